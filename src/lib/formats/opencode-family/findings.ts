/**
 * The finding kinds of OpenCode's store format (a session's rows in a SQLite database, an export document),
 * shared by every member of the family, and the findings of the context losses `measureSession` finds.
 */
import {CORE_FINDING_KINDS, findingMaker, type FindingKindSpec} from '../../model/findings.js'
import type {Finding} from '../../model/report.js'
import type {ContextIssue} from './measure.js'
import {loneSurrogatePath} from '../../classify/surrogates.js'

/** The finding kinds the family reports (each member joins them into its own list, unchanged). */
export const STORE_FINDING_KINDS = {
  'orphan-parts': {severity: 'warning', description: 'Parts whose message is gone: the agent never reads them, so their context is lost.'},
  'tool-output-missing': {severity: 'warning', description: 'A completed tool call has no output: the model will not see what the tool returned.'},
  'message-without-parts': {severity: 'warning', description: 'A message has no parts left: its content is lost.'},
  'parent-missing': {severity: 'warning', description: "An assistant message's parentID names no user message of the session."},
  'database-damaged': {severity: 'error', description: "The database fails SQLite's integrity check (e.g. \"database disk image is malformed\")."},
  'database-unreadable': {severity: 'error', description: 'The database could not be opened or queried (on a private copy): its sessions cannot be listed.'},
  'export-damaged': {severity: 'error', description: 'An export file is truncated, empty, zero-filled or corrupt JSON.'},
  'export-invalid': {severity: 'error', description: 'An export file parses but does not have the shape of an export document of the agent.'},
  'duplicate-id': {severity: 'error', description: 'A message or part id occurs more than once in a session.'},
  'role-order': {severity: 'error', description: 'Messages are out of id order, or the session does not start with a user message.'},
  'part-link': {severity: 'error', description: "A part's messageID or sessionID, or a message's sessionID, does not name the record that holds it."},
  'turn-rolled-back': {severity: 'error', description: "The database's write-ahead log lost commits it had (cut or torn): SQLite silently rolls the store back to the last whole commit, and the session's last turn is left unfinished (an answer without its text or its step's end)."},
  'wal-torn': {severity: 'warning', description: 'The write-ahead log ends in writes SQLite ignores (a frame cut short or torn, a transaction that never committed, or commits its index records that are gone): whatever they wrote is rolled back.'},
  'store-newer': {severity: 'warning', description: 'The store records schema migrations newer than every one chatdoctor knows (a newer build of the agent migrated it): its sessions are diagnosed from the tables chatdoctor knows, and repair writes nothing in it.'},
  'turn-unfinished': {severity: 'warning', description: "The session's last answer never finished (no completion time, a model step without its end, a tool call still running, or no answer to the last prompt), though the write-ahead log is whole: the agent stopped mid-turn, or is answering right now."},
} as const satisfies Record<string, FindingKindSpec>

/** Makes a finding of a core kind or of the family's. */
export const finding = findingMaker({...CORE_FINDING_KINDS, ...STORE_FINDING_KINDS})

/** Findings for the structural losses `measureSession` found. */
export function issueFindings(issues: ContextIssue[], fileOf: (messageId: string, partId?: string) => string | null): Finding[] {
  return issues.map((i) => {
    if (i.kind === 'tool-output-missing') return finding('tool-output-missing', fileOf(i.messageId, i.partId), `completed tool call ${i.partId} of ${i.messageId} has no output`)
    if (i.kind === 'message-without-parts') return finding('message-without-parts', fileOf(i.messageId), `message ${i.messageId} has no readable part`)
    return finding('parent-missing', fileOf(i.messageId), `assistant message ${i.messageId} answers ${i.parentId}, which is not a user message of the session`)
  })
}

/** A record of a session (a tree file, a database row) holding a string with an unpaired surrogate. */
export interface LoneSurrogate {
  /** The record in words: a tree file's path, or `part <id> of message <id>`. */
  record: string
  /** The field's path inside the record (`text`, `state.output`). */
  path: string
}

/** A `\uD800`–`\uDFFF` escape in JSON text (a surrogate half written by `JSON.stringify`). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/

/**
 * The path of the first string (or key) of a parsed record holding an unpaired surrogate, or null. The record's
 * JSON text is searched for a surrogate escape first (cheap), and the value walked only when one is there.
 */
export function loneSurrogateIn(text: string | Buffer, value: unknown): string | null {
  const s = typeof text === 'string' ? text : text.indexOf('\\ud') < 0 && text.indexOf('\\uD') < 0 ? '' : text.toString('utf8')
  return SURROGATE_ESCAPE.test(s) ? loneSurrogatePath(value) : null
}

/**
 * The warning for a session's records holding a lone surrogate escape (none when there are none): the agent
 * and JSON.parse accept them, the model API rejects a request holding one; nothing is changed.
 */
export function loneSurrogateFindings(found: LoneSurrogate[], file: string | null, agent: string): Finding[] {
  if (found.length === 0) return []
  const at = found.slice(0, 5).map((x) => `${x.record} (${x.path === '' ? 'the record itself' : x.path})`)
  const more = found.length > 5 ? ` and ${found.length - 5} more` : ''
  const n = found.length === 1 ? '1 record holds' : `${found.length} records hold`
  return [
    finding(
      'lone-surrogate',
      file,
      `${n} a lone surrogate escape (a \\uD800–\\uDFFF without its other half, e.g. text cut between the halves of an emoji): ${at.join(', ')}${more}. JSON.parse and ${agent} accept it, but the model API rejects a request holding it ("no low surrogate in string"); chatdoctor keeps the records as they are`,
    ),
  ]
}
