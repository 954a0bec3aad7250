/**
 * Cline CLI's conversation file `<id>.messages.json`: what it holds, what counts as a turn, and what Cline's
 * own reader makes of a damaged one.
 *
 * Shape (new-agents.md §2.2; SDK `buildMessagesFilePayload`, `sdk/packages/core/src/services/session-data.ts`):
 * `{"version":1,"updated_at":…,"agent":"lead"|"subagent"|"teammate","sessionId":…,"taskType"?:…,"origin":{…},
 * "messages":[…],"system_prompt"?:…}`, pretty-printed with a trailing LF. A turn is a user message holding the
 * user's words (`<user_input mode="act|plan">…</user_input>`), then per model step one assistant message and,
 * for tool steps, one user message of `tool_result` blocks (new-agents.md §2.3); the SDK's own count of the
 * user's runs is `userRunSpan` below.
 *
 * Cline's reader (`readPersistedMessagesFile`, `sdk/packages/core/src/runtime/host/runtime-host-support.ts`):
 * decodes UTF-8 (bad bytes become U+FFFD), trims (String.prototype.trim, which also drops a leading BOM),
 * `JSON.parse`s, and takes a top-level array or the `messages` array of an object; anything else, any parse
 * error included, reads as an empty conversation — silently. A resume that reads an empty conversation
 * starts a new one and overwrites both files (observed on 3.0.65: `damage/messages-*`).
 */
import {isUtf8} from 'node:buffer'
import {blocksOf, countMessages, isMessage, type MessageCounts} from '../anthropic-messages/index.js'
import type {ContextMeasure} from '../../model/report.js'

/** The array of messages a parsed file holds, or null when its shape is not one Cline's reader takes. */
export function messagesOf(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value
  if (typeof value === 'object' && value !== null) {
    const m = (value as {messages?: unknown}).messages
    if (Array.isArray(m)) return m
  }
  return null
}

/** User-role messages the SDK injects itself (`metadata.kind`): they carry no run of the user's. */
const SYNTHETIC_KINDS = new Set(['auto_compaction', 'compaction_budget_emergency', 'completion_reminder', 'loop_detection_notice', 'manual_compaction', 'mistake_stop_notice', 'recovery_notice'])

/** The prompt the SDK sends by itself after an approved switch to act mode (not the user's words). */
export const ACT_MODE_CONTINUATION = 'The user approved switching to act mode. Continue with the approved plan now.'

/** The user's visible words in a prompt text: the `<user_input>`/`<user_command>` tags and `<mode_notice>` elements removed. */
export function visibleUserText(text: string): string {
  let t = text
  for (;;) {
    const a = t.indexOf('<mode_notice>')
    const b = a < 0 ? -1 : t.indexOf('</mode_notice>', a)
    if (b < 0) break
    t = t.slice(0, a) + t.slice(b + '</mode_notice>'.length)
  }
  return t.replace(/<\/?(?:user_input|user_command)\b[^>]*>/g, '').trim()
}

/**
 * How many of the user's runs (turns) one message stands for, by the SDK's rule
 * (`getUserRunSpan`, `sdk/packages/core/src/session/user-run-messages.ts`): 0 for assistant messages, tool
 * results and messages the SDK injects (`metadata.kind` of a notice, a `[TASK RESUMPTION]` or act-mode
 * continuation prompt, no visible text and no attachment); a compaction summary's `metadata.userRunSpan`
 * (default 1); otherwise 1. The checkpoint `runCount` is this count over the whole conversation.
 */
export function userRunSpan(m: Record<string, unknown>): number {
  if (m.role !== 'user') return 0
  const meta = typeof m.metadata === 'object' && m.metadata !== null && !Array.isArray(m.metadata) ? (m.metadata as Record<string, unknown>) : undefined
  const kind = typeof meta?.kind === 'string' ? meta.kind : undefined
  const span = typeof meta?.userRunSpan === 'number' && Number.isInteger(meta.userRunSpan) && meta.userRunSpan >= 0 ? meta.userRunSpan : undefined
  if (kind === 'compaction' || kind === 'compaction_summary') return span ?? 1
  if (span !== undefined) return span
  if (kind !== undefined && SYNTHETIC_KINDS.has(kind)) return 0
  let text: string
  let attachment = false
  if (typeof m.content === 'string') text = m.content
  else if (Array.isArray(m.content)) {
    const texts: string[] = []
    let toolResult = false
    for (const b of blocksOf(m)) {
      if (b.type === 'text' && typeof b.text === 'string') texts.push(b.text)
      else if (b.type === 'tool_result' || b.type === 'tool-result') toolResult = true
      else if (b.type === 'file' || b.type === 'image') attachment = true
    }
    attachment &&= !toolResult
    text = texts.join('\n')
  } else return 1
  const visible = visibleUserText(text)
  if (!attachment && visible === '') return 0
  if (!attachment && (visible.startsWith('[TASK RESUMPTION]') || visible === ACT_MODE_CONTINUATION)) return 0
  return 1
}

/** A prompt: a user message that stands for at least one of the user's runs. */
export function isPrompt(m: Record<string, unknown>): boolean {
  return userRunSpan(m) > 0
}

/** What Cline's reader gets from a file's bytes: every message as written, the messages with bad bytes replaced, or nothing. */
export type ClineRead = {read: 'whole' | 'lossy'; messages: unknown[]} | {read: 'empty'}

/**
 * What Cline's reader makes of these bytes (see the module comment): `whole` when it gets the messages as
 * written (a strict parse, or one where only a BOM or surrounding whitespace was trimmed), `lossy` when it
 * gets them only with invalid UTF-8 replaced by U+FFFD (its next save writes the replacement characters),
 * `empty` when it gets an empty conversation. `strict` is the value of a strict parse, when there was one.
 */
export function clineRead(bytes: Uint8Array, strict?: {value: unknown}): ClineRead {
  let value: unknown
  if (strict) value = strict.value
  else {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8').trim()
    if (text === '') return {read: 'empty'}
    try {
      value = JSON.parse(text)
    } catch {
      return {read: 'empty'}
    }
  }
  const messages = messagesOf(value)
  if (messages === null || (messages.length === 0 && !strict)) return {read: 'empty'}
  // Valid UTF-8: only a BOM or whitespace stood in the way of a strict parse, nothing was replaced.
  return {read: strict || isUtf8(bytes) ? 'whole' : 'lossy', messages}
}

/** The measure of a message array: the user's runs (`userRunSpan`) are the turns. */
export function measureMessages(messages: readonly unknown[]): {measure: ContextMeasure; counts: MessageCounts} {
  const counts = countMessages(messages, isPrompt)
  let turns = 0
  let newestPromptAt: number | null = null
  let lastActivityAt: number | null = null
  for (const m of messages) {
    if (!isMessage(m)) continue
    const span = userRunSpan(m)
    turns += span
    const ts = m.ts
    if (typeof ts !== 'number' || !Number.isFinite(ts)) continue
    if (lastActivityAt === null || ts > lastActivityAt) lastActivityAt = ts
    if (span > 0 && (newestPromptAt === null || ts > newestPromptAt)) newestPromptAt = ts
  }
  const measure: ContextMeasure = {
    turns,
    prompts: counts.prompts,
    newestPromptAt,
    historyLength: messages.length,
    unmatchedPrompts: 0,
    unmatchedBeforeFirst: 0,
    firstMatchedTurn: turns > 0 ? 1 : null,
    traceSessionId: null,
    interrupted: false,
    userTurns: turns,
    assistantMessages: counts.assistantMessages,
    toolCalls: counts.toolCalls,
    toolCallsWithResult: counts.toolCallsWithResult,
    toolCallsOpen: counts.toolCallsOpen,
    lastActivityAt,
    records: messages.length,
    reachableRecords: messages.length,
  }
  return {measure, counts}
}
