/**
 * What a task folder's two documents hold, measured on their parsed values (pure).
 *
 * The model context (`api_conversation_history.json`): an array of Anthropic `MessageParam`s, each with
 * optional `ts` (Roo Code, Kilo Code) and the markers of non-destructive condensing and truncation
 * (RooCodeInc/Roo-Code `src/core/task-persistence/apiMessages.ts`, `src/core/condense/index.ts`,
 * `src/core/context-management/index.ts`): a summary message `{role: "user", isSummary: true, condenseId}`,
 * a truncation marker `{role: "user", isTruncationMarker: true, truncationId}`, and on the messages they
 * hide `condenseParent` / `truncationParent`. The messages stay stored; the model no longer sees the hidden
 * ones (`getEffectiveApiHistory`).
 *
 * A turn is a user message that carries the user's words: the extensions put all user-written content inside
 * one of the tags `<task>`, `<feedback>`, `<answer>`, `<user_message>` (cline/cline v3.89.2
 * `apps/vscode/src/shared/messages/constants.ts` USER_CONTENT_TAGS; Roo Code's and Kilo Code's `Task.ts` say
 * the same of their tags), in a text block or inside a tool result. Summary messages and truncation markers
 * are not turns.
 *
 * The transcript (`ui_messages.json`): an array of `ClineMessage`s `{ts, type: "ask"|"say", say?, ask?, text?}`.
 * The first message is the task (`say: "text"`); every later prompt of the user is a `say: "user_feedback"`.
 */
import type {ContextMeasure} from '../../model/report.js'

/** The tags the extensions wrap user-written content in (USER_CONTENT_TAGS). */
export const USER_CONTENT_TAGS = ['<task>', '<feedback>', '<answer>', '<user_message>'] as const

type Obj = Record<string, unknown>

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The texts of a message's content: a string, text blocks, and the texts inside tool results. */
function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content]
  if (!Array.isArray(content)) return []
  const out: string[] = []
  for (const b of content) {
    if (!isObj(b)) continue
    if (b.type === 'text' && typeof b.text === 'string') out.push(b.text)
    else if (b.type === 'tool_result') out.push(...textsOf(b.content))
  }
  return out
}

/** True when a text holds user-written content (one of the tags, any case, as the extensions test it). */
export function holdsUserContent(text: string): boolean {
  const lower = text.toLowerCase()
  return USER_CONTENT_TAGS.some((t) => lower.includes(t))
}

/** A prompt: a user message (not a summary or truncation marker) that carries user-written content. */
export function isTaskPrompt(m: Record<string, unknown>): boolean {
  return m.role === 'user' && m.isSummary !== true && m.isTruncationMarker !== true && textsOf(m.content).some(holdsUserContent)
}

/** What one generation of the model context holds. */
export interface HistoryFacts {
  messages: number
  /** User messages that carry the user's words (turns). */
  prompts: number
  /** Of those, the ones the model no longer sees (condensed or truncated away, their marker present). */
  hiddenPrompts: number
  summaries: number
  truncationMarkers: number
  assistantMessages: number
  toolCalls: number
  toolCallsWithResult: number
  /** `ts` of the newest prompt, null when none carries one. */
  newestPromptAt: number | null
  /** The newest `ts` of any message, null when none carries one. */
  lastActivityAt: number | null
  /** The history ends in an assistant tool call without its result (the task stopped mid-step). */
  interrupted: boolean
}

function tsOf(m: Obj): number | null {
  return typeof m.ts === 'number' && Number.isFinite(m.ts) ? m.ts : null
}

/** Measures a parsed model-context array (elements that are not objects are counted as messages only). */
export function historyFacts(history: readonly unknown[]): HistoryFacts {
  const summaryIds = new Set<string>()
  const truncationIds = new Set<string>()
  for (const m of history) {
    if (!isObj(m)) continue
    if (m.isSummary === true && typeof m.condenseId === 'string') summaryIds.add(m.condenseId)
    if (m.isTruncationMarker === true && typeof m.truncationId === 'string') truncationIds.add(m.truncationId)
  }
  // The model sees from the last summary on (Roo Code's fresh-start condensing), minus truncated messages.
  let lastSummary = -1
  history.forEach((m, i) => {
    if (isObj(m) && m.isSummary === true) lastSummary = i
  })
  const f: HistoryFacts = {messages: history.length, prompts: 0, hiddenPrompts: 0, summaries: 0, truncationMarkers: 0, assistantMessages: 0, toolCalls: 0, toolCallsWithResult: 0, newestPromptAt: null, lastActivityAt: null, interrupted: false}
  const calls = new Set<string>()
  const results = new Set<string>()
  history.forEach((m, i) => {
    if (!isObj(m)) return
    const ts = tsOf(m)
    if (ts !== null && (f.lastActivityAt === null || ts > f.lastActivityAt)) f.lastActivityAt = ts
    if (m.isSummary === true) f.summaries++
    if (m.isTruncationMarker === true) f.truncationMarkers++
    if (m.role === 'assistant') {
      f.assistantMessages++
      if (Array.isArray(m.content)) for (const b of m.content) if (isObj(b) && b.type === 'tool_use' && typeof b.id === 'string') calls.add(b.id)
      return
    }
    if (m.role !== 'user') return
    if (Array.isArray(m.content)) for (const b of m.content) if (isObj(b) && b.type === 'tool_result' && typeof b.tool_use_id === 'string') results.add(b.tool_use_id)
    if (m.isSummary === true || m.isTruncationMarker === true) return
    if (!textsOf(m.content).some(holdsUserContent)) return
    f.prompts++
    if (ts !== null && (f.newestPromptAt === null || ts > f.newestPromptAt)) f.newestPromptAt = ts
    const condensed = (lastSummary >= 0 && i < lastSummary) || (typeof m.condenseParent === 'string' && summaryIds.has(m.condenseParent))
    const truncated = typeof m.truncationParent === 'string' && truncationIds.has(m.truncationParent)
    if (condensed || truncated) f.hiddenPrompts++
  })
  f.toolCalls = calls.size
  for (const id of calls) if (results.has(id)) f.toolCallsWithResult++
  const last = history[history.length - 1]
  if (isObj(last) && last.role === 'assistant' && Array.isArray(last.content)) f.interrupted = last.content.some((b) => isObj(b) && b.type === 'tool_use' && typeof b.id === 'string' && !results.has(b.id))
  return f
}

/** The ranking's measure of a model-context generation: N is its turn count. */
export function contextMeasure(f: HistoryFacts): ContextMeasure {
  return {
    turns: f.prompts,
    prompts: f.prompts,
    newestPromptAt: f.newestPromptAt,
    historyLength: f.messages,
    unmatchedPrompts: 0,
    unmatchedBeforeFirst: 0,
    firstMatchedTurn: f.prompts > 0 ? 1 : null,
    traceSessionId: null,
    interrupted: f.interrupted,
    userTurns: f.prompts,
    assistantMessages: f.assistantMessages,
    toolCalls: f.toolCalls,
    toolCallsWithResult: f.toolCallsWithResult,
    toolCallsOpen: f.toolCalls - f.toolCallsWithResult,
    compactions: f.summaries + f.truncationMarkers,
    lastActivityAt: f.lastActivityAt,
    records: f.messages,
  }
}

/** The user's prompts in a transcript: the task (a first `say: "text"`) and every `say: "user_feedback"`. */
export function transcriptPrompts(ui: readonly unknown[]): number {
  let n = 0
  ui.forEach((m, i) => {
    if (!isObj(m) || m.type !== 'say' || m.partial === true) return
    if ((i === 0 && m.say === 'text') || m.say === 'user_feedback') n++
  })
  return n
}

/** True when a parsed value has the shape the extension loads: an array of message objects. */
export function isMessageArray(v: unknown): v is Obj[] {
  return Array.isArray(v) && v.every(isObj)
}
