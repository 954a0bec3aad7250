/**
 * Kilo's rule for `bundle --redact`: a session lives in rows of Kilo's database, redacted on a private copy by
 * the store family (`opencode-family/redact.ts`: only that session's rows, its text replaced, the WAL
 * checkpointed and the copy vacuumed). A store SQLite cannot read or whose database is gone is refused (what is
 * left of it is database and WAL pages, with no rows to redact).
 */
import type {BundleFile, Redactor} from '../../model/adapter.js'
import type {ChatReport} from '../../model/report.js'
import {redactDatabaseSession} from '../opencode-family/redact.js'
import {KILO} from './layout.js'

/** The `redact` hook. */
export function redactKiloFiles(files: readonly BundleFile[], report: ChatReport, r: Redactor): ReturnType<typeof redactDatabaseSession> & object {
  const broken = report.findings.some((f) => f.id === 'database-unreadable' || f.id === 'database-missing')
  const done = broken ? null : redactDatabaseSession(KILO, files, report, r)
  return done ?? {refused: `${report.id} is what is left of a Kilo store SQLite cannot read (its database and WAL pages), which cannot be redacted; bundle it without --redact`}
}
