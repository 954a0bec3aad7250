/**
 * The shapes a Codebuff file must have to be usable, as plain predicates that only *validate* (loose: any
 * other keys are allowed and ignored). Source: codebuff-format.md §2 (CodebuffAI/freebuff sdk/src/run-state.ts,
 * cli/src/types/chat.ts, cli/src/utils/chat-meta.ts at 5dcbfb28).
 *
 * Not zod: these two checks were all of zod on the scan path, and loading zod cost ~0.1 s of every
 * run's start-up. `test/codebuff-schema.test.ts` holds them equal to the zod schemas they replace (zod 4:
 * `z.looseObject`, arrays rejected as objects, `z.number()` rejecting NaN and ±Infinity).
 */
import type {Reason} from '../../model/report.js'

/** A message of `messageHistory` (§2.5). Only `role` is relied upon. */
export interface HistoryMessage {
  role: string
  content: unknown
  tags?: string[]
  sentAt?: number
  [key: string]: unknown
}

/** One transcript message (§2.6). */
export interface ChatMessage {
  id: string
  variant: string
  content?: unknown
  metadata?: {runState?: unknown; [key: string]: unknown}
  [key: string]: unknown
}

/**
 * A RunState that holds agent context: `sessionState.mainAgentState.messageHistory` is an array (§2.1, §3.2).
 * Nothing else is required: a stray field of an odd type (e.g. a non-string `traceSessionId`) does not take
 * the context away (the measure reads such fields defensively).
 */
export function isRunStateWithContext(v: unknown): boolean {
  if (!isPlainObject(v) || !isPlainObject(v.sessionState)) return false
  const main = v.sessionState.mainAgentState
  return isPlainObject(main) && Array.isArray(main.messageHistory)
}

/** `chat-meta.json` (§2.8, since 26ce94c8, 2026-07-02): two finite numbers of bytes/ms, a count, a string. */
export function isChatMeta(v: unknown): boolean {
  return isPlainObject(v) && Number.isFinite(v.messageCount) && typeof v.firstPrompt === 'string' && Number.isFinite(v.messagesSize) && Number.isFinite(v.messagesMtimeMs)
}

/** The loader's stand-in for an unreadable run state (#1168; §4.1). */
export const PLACEHOLDER_MESSAGE = 'Previous run state could not be restored.'
/** SDK `STATE_SNAPSHOT_INTERRUPTION_MESSAGE`: the fresh-chat pre-run save and in-flight snapshots (§4.2). */
export const INTERRUPTION_MESSAGE = 'The session ended before this response completed. Partial progress has been preserved.'

/**
 * The shape verdict on a parsed run-state value: `intact` when it holds agent context, else `contextless`
 * with reasons (`no-session-state`, plus `placeholder` or `fresh-chat` for the known stand-ins).
 */
export function runStateShape(value: unknown): {class: 'intact' | 'contextless'; reasons: Reason[]} {
  if (isRunStateWithContext(value)) return {class: 'intact', reasons: []}
  const reasons: Reason[] = ['no-session-state']
  const output = (value as {output?: {type?: unknown; message?: unknown}} | null)?.output
  if (isPlainObject(value) && isPlainObject(output) && output.type === 'error') {
    if (output.message === PLACEHOLDER_MESSAGE) reasons.push('placeholder')
    else if (output.message === INTERRUPTION_MESSAGE && !('sessionState' in value)) reasons.push('fresh-chat')
  }
  if (!isPlainObject(value)) reasons.push('wrong-shape')
  return {class: 'contextless', reasons}
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
