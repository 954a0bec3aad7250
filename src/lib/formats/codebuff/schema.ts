/**
 * The shapes a Codebuff file must have to be usable, as zod schemas used only to *validate* (never to produce
 * output: zod objects strip unknown keys; these are loose). Source: codebuff-format.md §2 (CodebuffAI/freebuff
 * sdk/src/run-state.ts, cli/src/types/chat.ts, cli/src/utils/chat-meta.ts at 5dcbfb28).
 */
import {z} from 'zod'
import type {Reason} from '../../model.js'

/** A message of `messageHistory` (§2.5). Only `role` is relied upon. */
export const HistoryMessageSchema = z.looseObject({
  role: z.string(),
  content: z.unknown(),
  tags: z.array(z.string()).optional(),
  sentAt: z.number().optional(),
})
export type HistoryMessage = z.infer<typeof HistoryMessageSchema>

/**
 * A RunState that holds agent context: `sessionState.mainAgentState.messageHistory` is an array (§2.1, §3.2).
 * Nothing else is required: a stray field of an odd type (e.g. a non-string `traceSessionId`) does not take
 * the context away (the measure reads such fields defensively).
 */
export const RunStateWithContextSchema = z.looseObject({
  sessionState: z.looseObject({
    mainAgentState: z.looseObject({
      messageHistory: z.array(z.unknown()),
    }),
  }),
})

/** One transcript message (§2.6). */
export const ChatMessageSchema = z.looseObject({
  id: z.string(),
  variant: z.string(),
  content: z.unknown().optional(),
  metadata: z.looseObject({runState: z.unknown().optional()}).optional(),
})
export type ChatMessage = z.infer<typeof ChatMessageSchema>

/** `chat-meta.json` (§2.8, since 26ce94c8, 2026-07-02). */
export const ChatMetaSchema = z.looseObject({
  messageCount: z.number(),
  firstPrompt: z.string(),
  messagesSize: z.number(),
  messagesMtimeMs: z.number(),
})

/** The loader's stand-in for an unreadable run state (#1168; §4.1). */
export const PLACEHOLDER_MESSAGE = 'Previous run state could not be restored.'
/** SDK `STATE_SNAPSHOT_INTERRUPTION_MESSAGE`: the fresh-chat pre-run save and in-flight snapshots (§4.2). */
export const INTERRUPTION_MESSAGE = 'The session ended before this response completed. Partial progress has been preserved.'

/**
 * The shape verdict on a parsed run-state value: `intact` when it holds agent context, else `contextless`
 * with reasons (`no-session-state`, plus `placeholder` or `fresh-chat` for the known stand-ins).
 */
export function runStateShape(value: unknown): {class: 'intact' | 'contextless'; reasons: Reason[]} {
  if (RunStateWithContextSchema.safeParse(value).success) return {class: 'intact', reasons: []}
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
