/**
 * Counting turns: transcript turns (M), a generation's prompts, and the match between them that gives
 * "covers up to turn N of M". Source: codebuff-format.md §3.2–§3.4 (CodebuffAI/freebuff
 * cli/src/hooks/use-send-message.ts, sdk/src/run.ts, common/src/types/messages at 5dcbfb28).
 */
import {INTERRUPTION_MESSAGE, isPlainObject} from './schema.js'

/** One agent turn of the transcript: a `user` message answered by an `ai-…` message before the next user message. */
export interface TranscriptTurn {
  /** 1-based turn number among the transcript's agent turns. */
  index: number
  /** Id of the user message (`user-<ms>`). */
  messageId: string
  /** Id of the first `ai-…` message that answers it. */
  answerId: string
  /** The user's text, normalised for matching. */
  text: string
  /** Send time from the id (`user-<ms>`), ms since epoch; null when the id carries none. */
  timeMs: number | null
}

/** A prompt the model saw: a `USER_PROMPT` user message of `messageHistory`. */
export interface Prompt {
  /** Index in `messageHistory`. */
  historyIndex: number
  /** The prompt text, unwrapped and normalised for matching. */
  text: string
  /** `sentAt`, ms since epoch (since cda474d0, 2026-01-04); null when absent. */
  sentAt: number | null
}

/** Normalises text for matching: CRLF to LF, trimmed. */
function norm(s: string): string {
  return s.replace(/\r\n/g, '\n').trim()
}

/** Agent turns of a transcript (§3.3). Non-object entries and messages without an id are ignored. */
export function transcriptTurns(messages: unknown[]): TranscriptTurn[] {
  const turns: TranscriptTurn[] = []
  let pending: {id: string; text: string} | null = null
  for (const m of messages) {
    if (!isPlainObject(m) || typeof m.id !== 'string') continue
    if (m.variant === 'user') {
      pending = {id: m.id, text: typeof m.content === 'string' ? norm(m.content) : ''}
      continue
    }
    if (pending && m.id.startsWith('ai-')) {
      const ms = /^user-(\d+)/.exec(pending.id)
      turns.push({index: turns.length + 1, messageId: pending.id, answerId: m.id, text: pending.text, timeMs: ms ? Number(ms[1]) : null})
      pending = null
    }
  }
  return turns
}

const ATTACHED_IMAGES = 'See attached image(s)'

/** First text of a message's content (string content in the legacy shape, else the first `text` part). */
function firstText(content: unknown): string | null {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return null
  for (const part of content) if (isPlainObject(part) && part.type === 'text' && typeof part.text === 'string') return part.text
  return null
}

/**
 * The prompt text as the user typed it (§2.5): inside `<user_message>…</user_message>`, without a leading
 * `<user_terminal_commands>` block and trailing `[Pasted Text]` / `[File: …]` / `[Directory: …]` sections.
 */
export function unwrapPrompt(text: string): string {
  let t = text
  const open = t.indexOf('<user_message>')
  const close = t.lastIndexOf('</user_message>')
  if (open >= 0 && close > open) t = t.slice(open + '<user_message>'.length, close)
  t = t.replace(/^\s*<user_terminal_commands>[\s\S]*?<\/user_terminal_commands>\s*/, '')
  t = t.replace(/\n+\[(?:Pasted Text|File: [^\]\n]*|Directory: [^\]\n]*)\][\s\S]*$/, '')
  t = norm(t)
  return t === ATTACHED_IMAGES ? '' : t
}

/**
 * The prompts of a message history: user messages tagged `USER_PROMPT`; for untagged (legacy) histories,
 * user messages whose first text starts with `<user_message>`.
 */
export function livePrompts(history: unknown[]): Prompt[] {
  const isUser = (m: unknown): m is Record<string, unknown> => isPlainObject(m) && m.role === 'user'
  const tagged = history.some((m) => isUser(m) && Array.isArray(m.tags) && m.tags.includes('USER_PROMPT'))
  const prompts: Prompt[] = []
  history.forEach((m, i) => {
    if (!isUser(m)) return
    const text = firstText(m.content)
    const isPrompt = tagged ? Array.isArray(m.tags) && m.tags.includes('USER_PROMPT') : text !== null && text.trimStart().startsWith('<user_message>')
    if (!isPrompt) return
    prompts.push({historyIndex: i, text: unwrapPrompt(text ?? ''), sentAt: typeof m.sentAt === 'number' ? m.sentAt : null})
  })
  return prompts
}

/** True when the history ends in the SDK's interruption note: the last prompt's turn is partial (§4.2). */
export function endsInterrupted(history: unknown[], output: unknown): boolean {
  if (isPlainObject(output) && output.type === 'error' && output.message === INTERRUPTION_MESSAGE) return true
  const last = history[history.length - 1]
  if (!isPlainObject(last) || last.role !== 'user') return false
  const t = firstText(last.content)
  return t !== null && /^<system>[\s\S]*<\/system>$/.test(t.trim()) && t.includes('ended before this response completed')
}

/** How far a prompt's `sentAt` may lie before its transcript message's id time and still match (ms). */
const SENT_BEFORE_SLACK_MS = 60_000
/** Above this many cells the in-order match falls back from LCS to a greedy scan. */
const MAX_LCS_CELLS = 4_000_000

function canMatch(p: Prompt, t: TranscriptTurn): boolean {
  if (p.text !== t.text) return false
  if (p.sentAt !== null && t.timeMs !== null && p.sentAt < t.timeMs - SENT_BEFORE_SLACK_MS) return false
  return true
}

/** The in-order match of prompts to transcript turns: `pairs[k] = [promptIndex, turnIndex]` (0-based), ascending. */
export function matchPrompts(prompts: Prompt[], turns: TranscriptTurn[]): Array<[number, number]> {
  const P = prompts.length
  const M = turns.length
  if (P === 0 || M === 0) return []
  if ((P + 1) * (M + 1) > MAX_LCS_CELLS) {
    const pairs: Array<[number, number]> = []
    let j = 0
    for (let i = 0; i < P && j < M; i++) {
      let k = j
      while (k < M && !canMatch(prompts[i], turns[k])) k++
      if (k < M) {
        pairs.push([i, k])
        j = k + 1
      }
    }
    return pairs
  }
  // Longest common subsequence, filled from the end so the backtrack walks forward.
  const W = M + 1
  const dp = new Int32Array((P + 1) * W)
  for (let i = P - 1; i >= 0; i--) {
    for (let j = M - 1; j >= 0; j--) {
      const skip = Math.max(dp[(i + 1) * W + j], dp[i * W + j + 1])
      dp[i * W + j] = canMatch(prompts[i], turns[j]) ? Math.max(skip, 1 + dp[(i + 1) * W + j + 1]) : skip
    }
  }
  const pairs: Array<[number, number]> = []
  let i = 0
  let j = 0
  while (i < P && j < M) {
    if (canMatch(prompts[i], turns[j]) && dp[i * W + j] === 1 + dp[(i + 1) * W + j + 1]) {
      pairs.push([i, j])
      i++
      j++
    } else if (dp[(i + 1) * W + j] >= dp[i * W + j + 1]) i++
    else j++
  }
  return pairs
}
