/**
 * Amnesia: a usable run state that is not the agent's memory of the chat (codebuff-format.md §3.4, §4.1,
 * §6.9). After the loader's placeholder (#1168) is saved at a turn start, the SDK's first snapshot of that turn
 * replaces it with a freshly initialised session that knows only the new prompt: valid JSON, a new
 * `traceSessionId`, prompts that start at a late transcript turn, and no summary of the turns before.
 *
 * Legitimate look-alikes: automatic compaction (a `<conversation_summary>` user message before the prompts)
 * and the `compact` prompt (the whole history replaced by one `<system>The following is a summary of the
 * conversation …</system>` message). An empty or near-empty such summary (Codebuff #1166) is a compaction wipe:
 * the agent no longer has the turns it replaced.
 */
import {isPlainObject} from './schema.js'
import {livePrompts} from './turns.js'

/** Marker of automatic compaction (context pruner, `compact-history.ts`; §2.5). */
export const CONVERSATION_SUMMARY = '<conversation_summary>'
/** Start of the single-message summary the `compact` prompt leaves (§2.5). */
export const COMPACT_SUMMARY_START = '<system>The following is a summary of the conversation'

/** What the history says about compaction before its first prompt. */
export interface CompactionFacts {
  /** A summary (either kind) comes before the first prompt. */
  summarized: boolean
  /** A summary before the first prompt is empty or near-empty (#1166; see `nearEmptySummary`). */
  emptySummary: boolean
}

/** Fewer words of letters or digits than this make a summary body near-empty. */
const NEAR_EMPTY_WORDS = 3
/** Bodies that say there is nothing to summarize (the empty fallback summaries of compaction, bug-log.md B29). */
const NOTHING_SUMMARIZED = /^\(?(?:no (?:prior |previous |earlier )?(?:history|conversation|context|messages|summary)(?: available| to summari[sz]e)?|none|n\/a|empty|nothing(?: to summari[sz]e)?)\)?[.!]?$/i

/**
 * True when a summary body carries no content: empty, fewer than three words, or a "no prior history" style
 * fallback. A real summary of earlier turns names what they did (a compaction summary lists `[USER]` entries).
 */
export function nearEmptySummary(body: string): boolean {
  const words = body.match(/[\p{L}\p{N}]+/gu) ?? []
  return words.length < NEAR_EMPTY_WORDS || NOTHING_SUMMARIZED.test(body.trim())
}

function texts(content: unknown): string[] {
  if (typeof content === 'string') return [content]
  if (!Array.isArray(content)) return []
  return content.filter((p) => isPlainObject(p) && p.type === 'text' && typeof p.text === 'string').map((p) => (p as {text: string}).text)
}

/** The summary body of one message's text, or null when the text is no summary. */
export function summaryBody(text: string): string | null {
  const t = text.trim()
  if (t.startsWith(COMPACT_SUMMARY_START)) {
    // Header sentence up to the first colon or line end, then the body, then `</system>`.
    let body = t.slice(COMPACT_SUMMARY_START.length)
    const cut = body.search(/[:\n]/)
    body = cut >= 0 ? body.slice(cut + 1) : ''
    return body.replace(/<\/system>\s*$/, '').trim()
  }
  const open = t.indexOf(CONVERSATION_SUMMARY)
  if (open >= 0) {
    const close = t.indexOf('</conversation_summary>', open)
    const inner = t.slice(open + CONVERSATION_SUMMARY.length, close >= 0 ? close : undefined)
    // Tags alone (e.g. an empty `<historical_memory></historical_memory>`) are no content.
    return inner.replace(/<\/?[a-z_]+>/g, '').replace(/-{3,}/g, '').trim()
  }
  return null
}

/** Compaction facts of a message history: summaries among the user messages before the first prompt. */
export function compactionFacts(history: unknown[]): CompactionFacts {
  const prompts = livePrompts(history)
  const before = prompts.length > 0 ? prompts[0].historyIndex : history.length
  let summarized = false
  let emptySummary = false
  for (let i = 0; i < before; i++) {
    const m = history[i]
    if (!isPlainObject(m) || m.role !== 'user') continue
    for (const t of texts(m.content)) {
      const body = summaryBody(t)
      if (body === null) continue
      summarized = true
      if (nearEmptySummary(body)) emptySummary = true
    }
  }
  return {summarized, emptySummary}
}

/** `turn 3` or `turns 1–7`. */
export function turnRange(a: number, b: number): string {
  return a === b ? `turn ${a}` : `turns ${a}–${b}`
}
