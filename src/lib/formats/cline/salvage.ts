/**
 * Salvage of Cline's two session files with the generic salvager (`src/lib/salvage/`): every kept byte is an
 * original byte, only closing brackets are added, a torn element or member is dropped, never completed, and
 * nothing is borrowed (Cline rewrites both files in place and keeps no older generation to borrow from).
 *
 * - `<id>.messages.json`: the `messages` array is kept message by message (the members before it —
 *   `version`, `updated_at`, `agent`, `sessionId`, `origin` — survive any tear inside it; `system_prompt`,
 *   written after it, is dropped: Cline's reader needs only `messages`). A complete document followed by
 *   other bytes (the in-place write was cut between its `write` and its `ftruncate`, so the older, longer
 *   content's tail is left after the new JSON) keeps the complete document whole.
 * - `<id>.json`: the record's members are kept one by one up to the tear; the salvage is usable only when every
 *   member Cline's schema requires survives (they are all written before `metadata`).
 */
import {salvageJson, salvageReport, type SalvagedGeneration} from '../../salvage/index.js'
import {measureMessages, messagesOf} from './messages.js'
import {RECORD_REQUIRED, recordProblem} from './record.js'

/** The salvage of one file (its measure is null for the record), with the parsed result. */
export interface ClineSalvage extends SalvagedGeneration {
  value: unknown
}

/** Classes a salvage is tried for: a torn document, or one followed by bytes Cline's reader chokes on. */
export function salvageable(c: {class: string | null; reasons: readonly string[]}): boolean {
  return (c.class === 'truncated' || c.class === 'corrupt') && !c.reasons.includes('unreadable') && !c.reasons.includes('not-a-file')
}

/**
 * Salvages a damaged `<id>.messages.json`. Null when nothing can be kept (the tear comes before the messages
 * array opens, the bytes before it are not JSON, or the document is not an object). A salvage that keeps no
 * message is returned (the report shows it) but is not a candidate: Cline would load an empty conversation.
 */
export function salvageMessages(file: string, data: Buffer, damageOffset: number | undefined): ClineSalvage | null {
  const out = salvageJson(data, {spine: ['messages'], end: damageOffset})
  if (!out.ok) return null
  const messages = messagesOf(out.salvage.value)
  if (messages === null) return null
  const {measure} = measureMessages(messages)
  const candidate = messages.length > 0 && out.salvage.description.keysBorrowed.length === 0 && out.salvage.description.keysMissing.length === 0
  return {file, parts: out.salvage.parts, summary: salvageReport(out.salvage, {messages: messages.length, turns: measure.turns, candidate}), measure, value: out.salvage.value}
}

/** Salvages a damaged `<id>.json`; usable only when the result passes Cline's record schema. Null when nothing can be kept. */
export function salvageRecord(file: string, data: Buffer, damageOffset: number | undefined): ClineSalvage | null {
  const out = salvageJson(data, {spine: [], root: 'object', required: {'': Object.keys(RECORD_REQUIRED)}, end: damageOffset})
  if (!out.ok) return null
  const candidate = recordProblem(out.salvage.value) === null && out.salvage.description.keysMissing.length === 0
  return {file, parts: out.salvage.parts, summary: salvageReport(out.salvage, {messages: 0, turns: null, candidate}), measure: null, value: out.salvage.value}
}
