/**
 * OpenCode's rules for `bundle --redact`: the store family's profile (`opencode-family/redact.ts`) over the
 * session, message and part files of the JSON tree and over export documents.
 */
import {redactByRole, type RedactedFiles} from '../../json/redact.js'
import type {BundleFile, Redactor} from '../../model/adapter.js'
import type {ChatReport} from '../../model/report.js'
import {redactDatabaseSession, redactStoreBytes} from '../opencode-family/redact.js'
import {OPENCODE} from './layout.js'

/** Redacts one OpenCode JSON file (session, message or part file, or an export document). Never throws. */
export const redactOpenCodeBytes: (buf: Buffer, r: Redactor) => Buffer = redactStoreBytes

/**
 * The `redact` hook: the session, message and part files of a JSON-tree session; a session in the database is
 * redacted on a private copy of the database by the store family (`redactDatabaseSession`); a database SQLite
 * cannot read is refused (it has no rows to redact).
 */
export function redactSessionFiles(files: readonly BundleFile[], report: ChatReport, r: Redactor): (RedactedFiles & {relist?: true}) | {refused: string} {
  if (report.findings.some((f) => f.id === 'database-unreadable')) return {refused: `${report.id} is an OpenCode database SQLite cannot read, which cannot be redacted; bundle it without --redact`}
  const db = redactDatabaseSession(OPENCODE, files, report, r)
  if (db !== null) return db
  return redactByRole(files, report, (f, role) => (role === 'primary' || role === 'message' || role === 'part' ? redactOpenCodeBytes(f.data, r) : {omit: 'content cannot be redacted structurally'}))
}
