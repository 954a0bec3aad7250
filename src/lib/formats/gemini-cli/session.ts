/**
 * One generation of a Gemini CLI session (a session file, a `.unreadable-<ms>` copy, a `.tmp-<pid>` temp, or a
 * legacy `.json` document): what the CLI's loader reaches, what its next start does with the file, and the turns
 * it holds. Pure.
 */
import type {Classification, ContextMeasure} from '../../model/report.js'
import {classifyJsonBytes} from '../../classify/index.js'
import {createHash} from 'node:crypto'
import {classifyJsonlBytes, type JsonlClassification} from '../../classify/jsonl.js'
import {planFromBytes, type JsonlChange, type JsonlRepairPlan, type JsonlRepairRules} from '../jsonl/repair.js'
import {countMessages, isMetaRecord, isPrompt, isResumable, replay, type GeminiRecord, type MessageCounts, type Replay} from './records.js'

/** Why the CLI's next start deletes a session file (sessionUtils.ts `getAllSessionFiles`, sessionCleanup.ts). */
export type DeleteReason = 'unloadable' | 'no-session-id' | 'nothing-resumable' | 'subagent-kind'

/** What one generation holds, as the CLI's loader reads it. */
export interface GeminiAnalysis {
  /** The loader's replay of the records it reads. */
  replay: Replay
  counts: MessageCounts
  /** Prompts the file holds as written (`heldPrompts`; damaged lines' complete records included). */
  promptsWritten: number
  /** Null when the CLI keeps the file at its next start; otherwise why it deletes it. */
  deletes: DeleteReason | null
  /** The session id the metadata names, null when none. */
  sessionId: string | null
  /** The metadata's `lastUpdated`, ms since epoch (the CLI resumes the file of a session updated last). */
  lastUpdated: number | null
  measure: ContextMeasure
}

/** The loader's acceptance of a repaired log: it must load (a metadata line with `sessionId` and `projectHash`). */
export function geminiAcceptance(records: Array<Record<string, unknown>>): string[] {
  return replay(records).loads ? [] : ['no metadata line with sessionId and projectHash survives: Gemini CLI cannot load the file']
}

/** The byte-change rules of a Gemini CLI session log repair (`jsonl-repair.ts`). */
export const GEMINI_RULES: JsonlRepairRules = {finalNewline: true, accept: geminiAcceptance}

function timeOf(v: unknown): number | null {
  if (typeof v !== 'string') return null
  const t = Date.parse(v)
  return Number.isNaN(t) ? null : t
}

/** The measure of a replay: N is the prompts the model answered, prompts all of them. */
function measureOf(r: Replay, c: MessageCounts, records: number): ContextMeasure {
  return {
    turns: c.answered,
    prompts: c.prompts,
    newestPromptAt: c.newestPromptAt,
    historyLength: r.messages.length,
    unmatchedPrompts: 0,
    unmatchedBeforeFirst: 0,
    firstMatchedTurn: c.answered > 0 ? 1 : null,
    traceSessionId: null,
    interrupted: c.lastUnanswered,
    userTurns: c.prompts,
    assistantMessages: c.modelMessages,
    toolCalls: c.toolCalls,
    toolCallsWithResult: c.toolCallsWithResult,
    toolCallsOpen: c.toolCalls - c.toolCallsWithResult,
    lastActivityAt: c.lastActivityAt,
    records,
    reachableRecords: records,
  }
}

/** What the CLI's start-up does with a loaded (or not loaded) replay. */
function deleteReason(r: Replay, c: MessageCounts, topLevel: boolean): DeleteReason | null {
  if (!r.loads) return 'unloadable'
  if (typeof r.metadata.sessionId !== 'string' || r.metadata.sessionId === '') return 'no-session-id'
  if (c.resumable === 0) return 'nothing-resumable'
  if (topLevel && r.metadata.kind === 'subagent') return 'subagent-kind'
  return null
}

/**
 * Analyses a JSON-lines generation from its line classification. The loader reads only the lines that are one
 * whole record (it `JSON.parse`s each line and skips those that fail); `topLevel` says whether the file sits
 * directly in a chats folder (where the start-up cleanup looks).
 */
export function analyzeJsonl(cls: JsonlClassification, topLevel: boolean): GeminiAnalysis {
  const clean = cls.records.filter((r) => cls.lines[r.line].kind === 'record').map((r) => r.value as GeminiRecord)
  const r = replay(clean)
  const c = countMessages(r.messages)
  return {
    replay: r,
    counts: c,
    promptsWritten: heldPrompts(cls.records.map((x) => x.value as GeminiRecord)),
    deletes: deleteReason(r, c, topLevel),
    sessionId: typeof r.metadata.sessionId === 'string' ? r.metadata.sessionId : null,
    lastUpdated: timeOf(r.metadata.lastUpdated),
    measure: measureOf(r, c, clean.length),
  }
}

/**
 * Prompts the file holds as written: distinct prompt ids in every record, checkpoints' message lists included
 * (a checkpoint that replaced them does not make them gone from the file). When the file holds a `$rewindTo`
 * (the user took turns back on purpose), the replay's count instead.
 */
export function heldPrompts(records: readonly GeminiRecord[]): number {
  if (records.some((r) => typeof r.$rewindTo === 'string')) return countMessages(replay(records).messages).prompts
  const ids = new Set<string>()
  const see = (m: unknown) => {
    if (typeof m === 'object' && m !== null && typeof (m as GeminiRecord).id === 'string' && isPrompt(m as GeminiRecord)) ids.add((m as GeminiRecord).id as string)
  }
  for (const r of records) {
    see(r)
    const set = r.$set as GeminiRecord | undefined
    for (const list of [set && typeof set === 'object' ? set.messages : undefined, r.messages]) if (Array.isArray(list)) list.forEach(see)
  }
  return ids.size
}

/**
 * The start of a resumed start that never got its full checkpoint: at every resumed start the CLI appends a
 * metadata line, a `$set.messages` holding only the session context, `$set.sessionId`, then a `$set.messages`
 * with the whole history (new-agents.md §1.3). Cut after the context-only checkpoint, the file replays as an
 * empty session, and the CLI's next start deletes it. Returns the index (into `records`) of the first record of
 * that unfinished preamble when the records before it replay to a session with something resumable; else null.
 */
export function unfinishedResume(records: readonly GeminiRecord[]): number | null {
  let i = records.length - 1
  while (i >= 0 && !isCheckpoint(records[i])) {
    const r = records[i]
    // Only the preamble's own records may follow: metadata lines and `$set`s without messages.
    if (typeof r.id === 'string' || typeof r.$rewindTo === 'string') return null
    i--
  }
  if (i < 0) return null
  const list = (records[i].$set as GeminiRecord).messages as unknown[]
  if (list.some((m) => typeof m === 'object' && m !== null && isResumable(m as GeminiRecord))) return null
  const start = i > 0 && isMetaRecord(records[i - 1]) ? i - 1 : i
  const before = replay(records.slice(0, start))
  return before.loads && countMessages(before.messages).resumable > 0 ? start : null
}

/**
 * The repair plan extended by the Gemini CLI rule above: when the repaired log would replay as an empty session
 * only because it ends in an unfinished resume, those trailing lines are dropped too (`drop-trailing`), so the
 * log is the session as it stood before that start. Only when every change of `plan` lies in those lines (the
 * result is then exactly the original's first lines). Null when the rule does not apply.
 */
export function dropUnfinishedResume(data: Buffer, plan: JsonlRepairPlan): JsonlRepairPlan | null {
  const cls = plan.before
  const clean = cls.records.filter((r) => cls.lines[r.line].kind === 'record')
  const at = unfinishedResume(clean.map((r) => r.value as GeminiRecord))
  if (at === null) return null
  const first = clean[at].line
  if (plan.changes.some((c) => c.line - 1 < first)) return null
  const bytes = Buffer.from(data.subarray(0, cls.lines[first].start))
  const changes: JsonlChange[] = cls.lines.slice(first).map((l) => ({kind: 'drop-trailing', line: l.index + 1, offset: l.start, length: l.next - l.start, reasons: [...l.reasons], bytesRemoved: l.next - l.start, recordsKept: 0, sha256: createHash('sha256').update(data.subarray(l.start, l.next)).digest('hex')}))
  const after = classifyJsonlBytes(bytes)
  const problems = after.class === 'intact' ? geminiAcceptance(after.records.map((r) => r.value)) : [`the result is ${after.class}`]
  return planFromBytes(bytes, {changes, before: cls, after, accepted: problems.length === 0, problems})
}

function isCheckpoint(r: GeminiRecord): boolean {
  const set = r.$set
  return typeof set === 'object' && set !== null && Array.isArray((set as GeminiRecord).messages)
}

/** A legacy `.json` session (one document `{sessionId, projectHash, startTime, lastUpdated, messages}`). */
export interface LegacyAnalysis {
  classification: Classification
  /** Null when the document is not intact or not a session. */
  analysis: GeminiAnalysis | null
}

/**
 * Analyses a legacy `.json` session document: the loader parses the whole file (`parseLegacyRecordFallback`)
 * and takes any object with a `sessionId` key.
 */
export function analyzeLegacy(data: Uint8Array, topLevel: boolean): LegacyAnalysis {
  const classification = classifyJsonBytes(data)
  if (classification.class !== 'intact') return {classification, analysis: null}
  const v = classification.value
  if (typeof v !== 'object' || v === null || Array.isArray(v) || !('sessionId' in v)) return {classification: {class: 'corrupt', reasons: ['wrong-shape']}, analysis: null}
  const doc = v as GeminiRecord
  const messages = Array.isArray(doc.messages) ? (doc.messages.filter((m) => typeof m === 'object' && m !== null) as GeminiRecord[]) : []
  // The legacy path takes the document as it is: `loads` needs only the sessionId key.
  const r: Replay = {metadata: doc, messages, loads: true, metaLines: 1, checkpoints: 0, rewinds: 0}
  const c = countMessages(messages)
  return {
    classification,
    analysis: {
      replay: r,
      counts: c,
      promptsWritten: c.prompts,
      deletes: deleteReason({...r, loads: true}, c, topLevel),
      sessionId: typeof doc.sessionId === 'string' ? doc.sessionId : null,
      lastUpdated: timeOf(doc.lastUpdated),
      measure: measureOf(r, c, messages.length),
    },
  }
}
