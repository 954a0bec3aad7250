/**
 * Gemini CLI as a member of the JSON-lines session family: its records are told apart from Claude Code's and
 * Codex's by content (`isGeminiRecord`), its names are its own (`isGeminiName`: the other members leave them),
 * and its adapter diagnoses its sessions itself (a chat is every file of a short id, replayed as its loader
 * does), so a Gemini CLI log that another member's name rule found is skipped with a clear reason, never
 * reported as that member's session. `analyze` gives the family's view of one log by the CLI's loader rules.
 */
import type {SessionDialect} from '../jsonl/dialect.js'
import {finding} from './findings.js'
import {GEMINI_NAMES} from './layout.js'
import {isGeminiRecord, isIgnoredUserText} from './records.js'
import {analyzeJsonl, GEMINI_RULES} from './session.js'

/** The start of a user message as the CLI writes it (`"type":"user","content":[{"text":"…`) and its text so far. */
const PROMPT_START = /"type":"user","content":\[\{"text":"((?:[^"\\]|\\.)*)/

/** Whether a damaged line's fragment still shows the start of a prompt (a user message that is not ignored). */
export function promptInFragment(text: string): boolean {
  const m = PROMPT_START.exec(text)
  return m !== null && !text.includes('"functionResponse"') && !isIgnoredUserText(m[1].replace(/^(?:\\[nrt]|\s)+/, ''))
}

/**
 * What of a record the family's detection reads (`isGeminiRecord`; the CLI's own diagnosis reads its logs
 * itself): the ids and kinds, and the presence of the members it tests.
 */
export function keepGeminiRecord(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k of ['sessionId', 'projectHash', 'type', '$rewindTo']) if (k in v) out[k] = v[k]
  if ('id' in v) out.id = typeof v.id === 'string' ? '' : null
  for (const k of ['startTime', 'lastUpdated', 'messages', 'content', 'uuid', 'payload']) if (k in v) out[k] = null
  if ('$set' in v) out.$set = typeof v.$set === 'object' && v.$set !== null ? (Array.isArray(v.$set) ? [] : {}) : v.$set
  return out
}

export const geminiDialect: SessionDialect = {
  name: 'gemini-cli',
  isRecord: isGeminiRecord,
  // The family classifies a log with any member's record rule before it knows the member; Gemini CLI's own
  // diagnosis classifies its logs itself.
  recordRule: () => isGeminiRecord,
  keep: keepGeminiRecord,
  claimsName: GEMINI_NAMES.claimsName,
  ownDiagnosis: 'a Gemini CLI session log under another name; point chatdoctor at it under its own name (session-<date>T<HH-MM>-<id8>.jsonl) or at its chats folder',
  analyze(_fileName, cls) {
    const a = analyzeJsonl(cls, true)
    const findings = cls.records.length > 0 && !a.replay.loads ? [finding('missing-header', null, 'no metadata line (sessionId, projectHash) survives: Gemini CLI cannot load or resume it')] : []
    return {measure: a.measure, transcriptTurns: a.promptsWritten, findings, rules: GEMINI_RULES, refused: a.replay.loads ? null : 'no metadata line with sessionId and projectHash', id: a.sessionId, manual: null}
  },
  promptInFragment,
}
