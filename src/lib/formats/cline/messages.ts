/**
 * Cline CLI's conversation file `<id>.messages.json`: what it holds, what counts as a turn, and what Cline's
 * own reader makes of a damaged one.
 *
 * Shape (new-agents.md §2.2; SDK `buildMessagesFilePayload`, `sdk/packages/core/src/services/session-data.ts`):
 * `{"version":1,"updated_at":…,"agent":"lead"|"subagent"|"teammate","sessionId":…,"taskType"?:…,"origin":{…},
 * "messages":[…],"system_prompt"?:…}`, pretty-printed with a trailing LF. A turn is a user message holding the
 * user's words (`<user_input mode="act|plan">…</user_input>`), then per model step one assistant message and,
 * for tool steps, one user message of `tool_result` blocks (new-agents.md §2.3).
 *
 * Cline's reader (`readPersistedMessagesFile`, `sdk/packages/core/src/runtime/host/runtime-host-support.ts`):
 * decodes UTF-8 (bad bytes become U+FFFD), trims (String.prototype.trim, which also drops a leading BOM),
 * `JSON.parse`s, and takes a top-level array or the `messages` array of an object; anything else, any parse
 * error included, reads as an empty conversation — silently. A resume that reads an empty conversation
 * starts a new one and overwrites both files (observed on 3.0.65: `damage/messages-*`).
 */
import {isUtf8} from 'node:buffer'
import {carriesToolResult, countMessages, firstText, type MessageCounts} from '../anthropic-messages/index.js'
import type {ContextMeasure} from '../../model.js'

/** The array of messages a parsed file holds, or null when its shape is not one Cline's reader takes. */
export function messagesOf(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value
  if (typeof value === 'object' && value !== null) {
    const m = (value as {messages?: unknown}).messages
    if (Array.isArray(m)) return m
  }
  return null
}

/** A prompt: a user message with text and no tool result (the CLI wraps it in `<user_input mode="…">`). */
export function isPrompt(m: Record<string, unknown>): boolean {
  return m.role === 'user' && !carriesToolResult(m) && firstText(m) !== null
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

/** The measure of a message array: prompts are the turns. */
export function measureMessages(messages: readonly unknown[]): {measure: ContextMeasure; counts: MessageCounts} {
  const counts = countMessages(messages, isPrompt)
  let newestPromptAt: number | null = null
  let lastActivityAt: number | null = null
  for (const m of messages) {
    if (typeof m !== 'object' || m === null) continue
    const ts = (m as {ts?: unknown}).ts
    if (typeof ts !== 'number' || !Number.isFinite(ts)) continue
    if (lastActivityAt === null || ts > lastActivityAt) lastActivityAt = ts
    if (isPrompt(m as Record<string, unknown>) && (newestPromptAt === null || ts > newestPromptAt)) newestPromptAt = ts
  }
  const measure: ContextMeasure = {
    turns: counts.prompts,
    prompts: counts.prompts,
    newestPromptAt,
    historyLength: messages.length,
    unmatchedPrompts: 0,
    unmatchedBeforeFirst: 0,
    firstMatchedTurn: counts.prompts > 0 ? 1 : null,
    traceSessionId: null,
    interrupted: false,
    userTurns: counts.prompts,
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
