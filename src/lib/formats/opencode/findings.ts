/**
 * OpenCode's finding kinds: sessions spread over a JSON tree or database rows, and `opencode export` files.
 */
import {CORE_FINDING_KINDS, findingMaker, type FindingKindSpec} from '../../model/findings.js'

/** The finding kinds only this format reports (joined into the closed list by the registry). */
export const OPENCODE_FINDING_KINDS = {
  'message-damaged': {severity: 'error', description: "A message file is truncated, empty, zero-filled or corrupt: the agent cannot open the session, and the message's parts are lost with it."},
  'part-damaged': {severity: 'error', description: 'A part file (text, tool call, step) is truncated, empty, zero-filled or corrupt: the agent cannot open the session.'},
  'orphan-parts': {severity: 'warning', description: 'Parts whose message is gone: the agent never reads them, so their context is lost.'},
  'tool-output-missing': {severity: 'warning', description: 'A completed tool call has no output: the model will not see what the tool returned.'},
  'message-without-parts': {severity: 'warning', description: 'A message has no parts left: its content is lost.'},
  'parent-missing': {severity: 'warning', description: "An assistant message's parentID names no user message of the session."},
  'not-in-database': {severity: 'error', description: 'A session exists only in the legacy JSON tree beside the database: OpenCode 1.16 and later no longer read it.'},
  'database-damaged': {severity: 'error', description: "The database fails SQLite's integrity check (e.g. \"database disk image is malformed\")."},
  'database-unreadable': {severity: 'error', description: 'The database could not be opened or queried (on a private copy): its sessions cannot be listed.'},
  'export-damaged': {severity: 'error', description: 'An export file is truncated, empty, zero-filled or corrupt JSON.'},
  'export-invalid': {severity: 'error', description: 'An export file parses but does not have the shape of an `opencode export` document.'},
  'duplicate-id': {severity: 'error', description: 'A message or part id occurs more than once in a session.'},
  'role-order': {severity: 'error', description: 'Messages are out of id order, or the session does not start with a user message.'},
  'part-link': {severity: 'error', description: "A part's messageID or sessionID, or a message's sessionID, does not name the record that holds it."},
} as const satisfies Record<string, FindingKindSpec>

/** Makes a finding of a core kind or of this format's. */
export const finding = findingMaker({...CORE_FINDING_KINDS, ...OPENCODE_FINDING_KINDS})
