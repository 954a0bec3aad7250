/**
 * Kilo's rule for `bundle --redact`: a session lives in rows of Kilo's database, which cannot be redacted file
 * by file, so it is refused (the store family's refusal, naming `kilo export`); so is a store whose database is
 * gone (what is left of it is WAL pages).
 */
import type {BundleFile, Redactor} from '../../model/adapter.js'
import type {ChatReport} from '../../model/report.js'
import {databaseRedactRefusal} from '../opencode-family/redact.js'
import {KILO} from './layout.js'

/** The `redact` hook. */
export function redactKiloFiles(_files: readonly BundleFile[], report: ChatReport, _r: Redactor): {refused: string} {
  return {refused: databaseRedactRefusal(KILO, report) ?? `${report.id} is what is left of a Kilo store (WAL pages), which cannot be redacted; bundle it without --redact`}
}
