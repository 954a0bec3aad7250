/**
 * OpenCode's rules for `bundle --redact`: the store family's profile (`opencode-family/redact.ts`) over the
 * session, message and part files of the JSON tree and over export documents.
 */
import type {BundleFile, Redactor} from '../../model/adapter.js'
import type {ChatReport} from '../../model/report.js'
import {databaseRedactRefusal, redactStoreBytes} from '../opencode-family/redact.js'
import {OPENCODE} from './layout.js'

/** Redacts one OpenCode JSON file (session, message or part file, or an export document). Never throws. */
export const redactOpenCodeBytes: (buf: Buffer, r: Redactor) => Buffer = redactStoreBytes

/**
 * The `redact` hook: the session, message and part files of a JSON-tree session; a session in the database
 * is refused (its rows cannot be redacted file by file).
 */
export function redactSessionFiles(files: readonly BundleFile[], report: ChatReport, r: Redactor): {files: BundleFile[]; omitted: Array<{path: string; reason: string}>} | {refused: string} {
  const refused = databaseRedactRefusal(OPENCODE, report)
  if (refused !== null) return {refused}
  const roles = new Map(report.generations.map((g) => [g.file, g.role] as const))
  const out: BundleFile[] = []
  const omitted: Array<{path: string; reason: string}> = []
  for (const f of files) {
    const role = roles.get(f.rel) ?? 'other'
    if (role === 'primary' || role === 'message' || role === 'part') out.push({...f, data: redactOpenCodeBytes(f.data, r)})
    else omitted.push({path: f.rel, reason: 'content cannot be redacted structurally'})
  }
  return {files: out, omitted}
}
