/**
 * OpenCode's rules for `bundle --redact` (on the byte-level lexer of `json/redact.ts`): in JSON-tree files
 * and export documents, ids (`id`, `sessionID`, `messageID`, `parentID`, `projectID`, `callID`), roles, part
 * types, tool names and states, model and provider ids and versions are kept; titles, paths, text, tool
 * inputs and outputs become placeholders; times are numbers and stay.
 */
import {redactByRole, redactJsonBytes, type RedactedFiles, type RedactProfile} from '../../json/redact.js'
import type {BundleFile, Redactor} from '../../model/adapter.js'
import type {ChatReport} from '../../model/report.js'

/** OpenCode's structural keys (peer-formats.md §1.5; formats/opencode/schema.ts). */
export const OPENCODE_PROFILE: RedactProfile = {
  structuralKeys: new Set(['id', 'sessionID', 'messageID', 'parentID', 'projectID', 'callID', 'role', 'type', 'status', 'version', 'modelID', 'providerID', 'agent', 'mode', 'tool', 'slug', 'reason']),
}

/** Redacts one OpenCode JSON file (session, message or part file, or an export document). Never throws. */
export function redactOpenCodeBytes(buf: Buffer, r: Redactor): Buffer {
  return redactJsonBytes(buf, r, OPENCODE_PROFILE)
}

/**
 * The `redact` hook: the session, message and part files of a JSON-tree session; a session in the database
 * is refused (its rows cannot be redacted file by file).
 */
export function redactSessionFiles(files: readonly BundleFile[], report: ChatReport, r: Redactor): RedactedFiles | {refused: string} {
  if (report.generations.some((g) => g.role === 'database')) {
    return {refused: `${report.id} lives in an OpenCode database, which cannot be redacted file by file; bundle it without --redact, or export it with \`opencode export\` and redact that`}
  }
  return redactByRole(files, report, (f, role) => (role === 'primary' || role === 'message' || role === 'part' ? redactOpenCodeBytes(f.data, r) : {omit: 'content cannot be redacted structurally'}))
}
