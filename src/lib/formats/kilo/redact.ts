/**
 * Kilo's rule for `bundle --redact`: a session lives in rows of Kilo's database, which cannot be redacted file
 * by file, so it is refused (the store family's refusal, naming `kilo export`); so is a store SQLite cannot read
 * or whose database is gone (what is left of it is database and WAL pages, with no rows to export).
 */
import type {BundleFile, Redactor} from '../../model/adapter.js'
import type {ChatReport} from '../../model/report.js'
import {databaseRedactRefusal} from '../opencode-family/redact.js'
import {KILO} from './layout.js'

/** The `redact` hook. */
export function redactKiloFiles(_files: readonly BundleFile[], report: ChatReport, _r: Redactor): {refused: string} {
  const broken = report.findings.some((f) => f.id === 'database-unreadable' || f.id === 'database-missing')
  const refused = broken ? null : databaseRedactRefusal(KILO, report)
  return {refused: refused ?? `${report.id} is what is left of a Kilo store SQLite cannot read (its database and WAL pages), which cannot be redacted; bundle it without --redact`}
}
