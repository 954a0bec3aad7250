/**
 * The finding kinds of the JSON-lines session family (Claude Code, Codex, Gemini CLI): line damage, compressed siblings, live sessions, open tool calls, a missing header.
 */
import {CORE_FINDING_KINDS, findingMaker, type FindingKindSpec} from '../../model/findings.js'

/** The finding kinds only this format reports (joined into the closed list by the registry). */
export const SESSION_FINDING_KINDS = {
  'session-truncated': {severity: 'error', description: "The session log's final line is a torn record (a crash mid-append); the agent loses it or shows a blank chat."},
  'session-corrupt': {severity: 'error', description: 'Lines of the session log are damaged (NUL runs, interleaved, torn or split records, bad encoding); the agent skips them or stops there.'},
  'open-tool-call': {severity: 'info', description: 'A tool call has no result in the file (normal at the very end of a session).'},
  'compressed-damaged': {severity: 'warning', description: 'A compressed generation (Codex .jsonl.zst) cannot be decoded or its log is damaged.'},
  'session-live': {severity: 'warning', description: 'The session file changed while it was read: the agent is probably writing it. Repair leaves it alone.'},
  'answer-lost': {severity: 'error', urgent: true, description: "The log was cut inside its last turn: the turn's prompt and the records before the cut survive, its final answer does not (it went with the cut, or was never written). The turn is not counted as a whole turn (N < M); a repair keeps what survives, and the agent resumes with that turn unanswered."},
  'lost-lines-held': {severity: 'warning', description: "A repair of the log would drop damaged lines whose records another copy (a snapshot, a copy beside the log) holds. When that copy also holds every record the repair keeps, it is the winner and repair writes it; otherwise the log's repair stays the winner (it has newer records) and the message names the copy that still holds the dropped ones."},
  'missing-header': {severity: 'error', description: "The session log lacks the agent's header record (Codex: session_meta first; Gemini CLI: a metadata line with sessionId and projectHash); the agent refuses or hides the session."},
} as const satisfies Record<string, FindingKindSpec>

/** Makes a finding of a core kind or of this format's. */
export const finding = findingMaker({...CORE_FINDING_KINDS, ...SESSION_FINDING_KINDS})
