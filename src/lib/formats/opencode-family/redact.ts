/**
 * The family's rules for `bundle --redact` (on the byte-level lexer of `json/redact.ts`): in JSON-tree files
 * and export documents, ids (`id`, `sessionID`, `messageID`, `parentID`, `projectID`, `callID`), roles, part
 * types, tool names and states, model and provider ids and versions are kept; titles, paths, text, tool
 * inputs and outputs become placeholders; times are numbers and stay. A session of a database cannot be
 * redacted file by file.
 */
import {redactJsonBytes, type RedactProfile} from '../../json/redact.js'
import type {Redactor} from '../../model/adapter.js'
import type {ChatReport} from '../../model/report.js'
import type {StoreMember} from './member.js'

/** The store format's structural keys (peer-formats.md §1.5; `schema.ts`). */
export const STORE_PROFILE: RedactProfile = {
  structuralKeys: new Set(['id', 'sessionID', 'messageID', 'parentID', 'projectID', 'callID', 'role', 'type', 'status', 'version', 'modelID', 'providerID', 'agent', 'mode', 'tool', 'slug', 'reason']),
}

/** Redacts one JSON file of the store format (a tree file or an export document). Never throws. */
export function redactStoreBytes(buf: Buffer, r: Redactor): Buffer {
  return redactJsonBytes(buf, r, STORE_PROFILE)
}

/** The refusal of `--redact` for a session that lives in a database, or null when the chat's files are not a database's. */
export function databaseRedactRefusal(member: StoreMember, report: ChatReport): string | null {
  if (!report.generations.some((g) => g.role === 'database')) return null
  return `${report.id} lives in ${member.aDisplayName} database, which cannot be redacted file by file; bundle it without --redact, or export it with \`${member.command} export\` and redact that`
}
