/**
 * Ranking of usable candidates (intact generations of the agent context), format-independent.
 *
 * Order: higher N first; then the later `sentAt` of the newest prompt; then the longer message
 * history; then the newer file mtime; then the byte-wise file name comparison, descending (so equal mtimes on
 * coarse filesystems stay deterministic).
 */
import type {ContextMeasure, RankEntry} from '../model/report.js'

/** A usable generation as the ranking sees it. */
export interface Candidate {
  file: string
  measure: ContextMeasure
  /** ms since epoch; null when unknown (e.g. an embedded copy takes its container's). */
  mtimeMs: number | null
}

function cmpNullable(a: number | null, b: number | null): number {
  if (a === b) return 0
  if (a === null) return 1
  if (b === null) return -1
  return b - a
}

/** Byte-wise comparison of two names (UTF-8), descending: the larger name sorts first. */
function cmpNameDesc(a: string, b: string): number {
  return Buffer.compare(Buffer.from(b), Buffer.from(a))
}

/** Compares two candidates: negative when `a` ranks before `b`. */
export function compareCandidates(a: Candidate, b: Candidate): number {
  return (
    b.measure.turns - a.measure.turns ||
    cmpNullable(a.measure.newestPromptAt, b.measure.newestPromptAt) ||
    b.measure.historyLength - a.measure.historyLength ||
    cmpNullable(a.mtimeMs, b.mtimeMs) ||
    cmpNameDesc(a.file, b.file)
  )
}

/**
 * Why `loser` ranks below `winner`: the first criterion that separates them, in words. `kept` says why the winner
 * was kept ahead of the order (`'primary'`: the usable primary; a sentence: the reason given), undefined when
 * it was not.
 */
export function whyLost(loser: Candidate, winner: Candidate, kept?: 'primary' | string): string {
  const w = winner.measure
  const l = loser.measure
  if (kept !== undefined && l.turns <= w.turns) {
    if (l.turns < w.turns) return `covers fewer turns (${l.turns} < ${w.turns})`
    if (kept !== 'primary') return `covers no more turns than ${winner.file} (${l.turns} = ${w.turns}), which is kept: ${kept}`
    return `covers no more turns than the primary (${l.turns} = ${w.turns}); a usable primary is kept unless another generation covers more`
  }
  if (l.turns !== w.turns) return `covers fewer turns (${l.turns} < ${w.turns})`
  if (l.newestPromptAt !== w.newestPromptAt) {
    if (l.newestPromptAt === null) return 'its newest prompt has no sentAt time'
    return `its newest prompt is older (${new Date(l.newestPromptAt).toISOString()} < ${new Date(w.newestPromptAt ?? 0).toISOString()})`
  }
  if (l.historyLength !== w.historyLength) return `shorter message history (${l.historyLength} < ${w.historyLength} messages)`
  if (loser.mtimeMs !== winner.mtimeMs) return 'older file mtime'
  return 'same on every measure; ordered by file name'
}

/**
 * Ranks candidates. When `keep` names a candidate (the usable primary of a healthy chat), that candidate is
 * the winner unless another covers strictly more turns. Returns the winner first, then the rest in order.
 * `keptBecause`: `keep` names another candidate than the primary, kept for this reason (in the losers' words).
 */
export function rankCandidates(candidates: Candidate[], keep?: string, keptBecause?: string): {order: Candidate[]; entries: RankEntry[]} {
  const sorted = [...candidates].sort(compareCandidates)
  const kept = keep === undefined ? undefined : sorted.find((c) => c.file === keep)
  let winnerIsKept = false
  if (kept && !sorted.some((c) => c.measure.turns > kept.measure.turns)) {
    sorted.splice(sorted.indexOf(kept), 1)
    sorted.unshift(kept)
    winnerIsKept = true
  }
  const winner = sorted[0]
  const entries = sorted.map((c, i) => ({
    file: c.file,
    rank: i + 1,
    turns: c.measure.turns,
    lostBecause: i === 0 ? null : whyLost(c, winner, winnerIsKept ? (keptBecause ?? 'primary') : undefined),
  }))
  return {order: sorted, entries}
}
