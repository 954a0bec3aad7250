/**
 * The context measure of one intact run-state generation: its prompts (`USER_PROMPT`-tagged user messages of
 * `sessionState.mainAgentState.messageHistory`) matched against the transcript's turns (codebuff-format.md
 * §3.2–3.4).
 */
import type {ContextMeasure} from '../../model/report.js'
import {endsInterrupted, livePrompts, matchPrompts, type TranscriptTurn} from './turns.js'

/** Measures an intact RunState value against the transcript turns (null when the transcript is unusable). */
export function measureRunState(value: unknown, turns: TranscriptTurn[] | null): ContextMeasure {
  const rs = value as {sessionState: {mainAgentState: {messageHistory: unknown[]}}; traceSessionId?: unknown; output?: unknown}
  const history = rs.sessionState.mainAgentState.messageHistory
  const prompts = livePrompts(history)
  let newestPromptAt: number | null = null
  for (const p of prompts) if (p.sentAt !== null && (newestPromptAt === null || p.sentAt > newestPromptAt)) newestPromptAt = p.sentAt
  const prompted = prompts.length
  const historyLength = history.length
  const traceSessionId = typeof rs.traceSessionId === 'string' ? rs.traceSessionId : null
  const interrupted = endsInterrupted(history, rs.output)
  // Each measure is one object literal (same keys, same order), not a spread of a shared part: measured on
  // 20,000 chats, the spread's objects were kept through young collections and promoted (about 100 KB per
  // collection, 53 MB of old-generation garbage over the scan) where literals die young (about 19 KB).
  if (turns === null) {
    return {prompts: prompted, newestPromptAt, historyLength, traceSessionId, interrupted, turns: prompted, unmatchedPrompts: 0, unmatchedBeforeFirst: 0, firstMatchedTurn: null}
  }
  const pairs = matchPrompts(prompts, turns)
  const firstPrompt = pairs.length > 0 ? pairs[0][0] : prompted
  return {
    prompts: prompted,
    newestPromptAt,
    historyLength,
    traceSessionId,
    interrupted,
    turns: pairs.length > 0 ? pairs[pairs.length - 1][1] + 1 : 0,
    unmatchedPrompts: prompted - pairs.length,
    unmatchedBeforeFirst: firstPrompt,
    firstMatchedTurn: pairs.length > 0 ? pairs[0][1] + 1 : null,
  }
}
