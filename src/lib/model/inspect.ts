/**
 * The shapes of `inspect --json`'s `inspection`: the whole forensic picture of one chat. Built by
 * `pipeline/inspect.ts` from a scan, with the account (and, for line-based formats, the damaged lines and
 * planned changes) from the chat's adapter (`FormatAdapter.inspect`). Never holds message text or file contents.
 */
import type {AmnesiaReport, ChatReport, FileClass, Finding, RankEntry, Reason, Role, SalvageReport, TranscriptRestore} from './report.js'

/** One generation on the timeline. */
export interface TimelineEntry {
  file: string
  role: Role
  class: FileClass | null
  reasons: Reason[]
  /** ms since epoch; null when missing. For an embedded copy: its container's mtime. */
  mtimeMs: number | null
  bytes: number
  /** N for usable context generations, else null. */
  turns: number | null
  /** First transcript turn its prompts match (1-based), null when unknown. */
  firstTurn: number | null
  traceSessionId: string | null
  /** True when its last turn is partial (ends in the interruption note). */
  interrupted: boolean
}

/** Where a damaged file is damaged. Offsets in bytes. */
export interface TearLocation {
  file: string
  class: FileClass
  reasons: Reason[]
  bytes: number
  /** Offset of the first damaged byte. */
  offset: number
  /** Damaged bytes from `offset`. */
  length: number
  /** True when `offset` is a multiple of 4096 (a tear at a page/block boundary). */
  blockAligned: boolean
  /** `offset mod 4096`. */
  offsetInBlock: number
  /** NUL runs in the file (at most `MAX_NUL_RUNS`), offset and length in bytes. */
  nulRuns: Array<{offset: number; length: number}>
  /** Total NUL bytes in the listed runs. */
  nulBytes: number
}

/** The whole forensic picture of one chat. */
export interface Inspection {
  path: string
  id: string
  format: string
  status: ChatReport['status']
  winner: string | null
  transcriptTurns: number | null
  contextTurns: number | null
  /** Every generation, oldest first (missing ones last). */
  timeline: TimelineEntry[]
  tears: TearLocation[]
  ranking: RankEntry[]
  salvage: Array<SalvageReport & {file: string}>
  transcriptRestore: TranscriptRestore | null
  amnesia: AmnesiaReport | null
  findings: Finding[]
  /** One paragraph: what most likely happened, in plain language. */
  account: string
  /** Line-based formats: every damaged line of each session log generation. */
  damagedLines?: DamagedLine[]
  /** Line-based formats: the byte changes a repair would make, and each generation's plan in brief. */
  plannedChanges?: PlannedChange[]
  plans?: PlanSummary[]
}

/** One damaged line of a session log. Offsets and lengths in bytes of the (decoded) log. */
export interface DamagedLine {
  /** The generation's file name. */
  file: string
  /** 1-based line number. */
  line: number
  offset: number
  /** Bytes of the line, line ending included. */
  length: number
  reasons: Reason[]
  /** What a repair does with it: `drop` the line, `rewrite` it from the records it holds. */
  action: 'drop' | 'rewrite'
  /** Complete records the line still holds. */
  recordsKept: number
}

/** One byte change a repair of a session log would make (ids only, never content). */
export interface PlannedChange {
  file: string
  /** `drop-torn-tail`, `strip-nul`, `strip-bom`, `split-line`, `drop-line`, `relink-parent`. */
  kind: string
  line: number
  offset: number
  length: number
  bytesRemoved: number
  reasons: Reason[]
  /** For `relink-parent`: the parent id before and after. */
  relink?: {from: string; to: string}
}

/** A session log generation's repair plan in brief. */
export interface PlanSummary {
  file: string
  changes: number
  bytesBefore: number
  bytesAfter: number
  /** True when the repaired log is intact and passes the agent's acceptance rules. */
  accepted: boolean
  problems: string[]
}

/**
 * What an adapter adds to a chat's inspection (`FormatAdapter.inspect`): the account of what most likely
 * happened and, for line-based formats, the damaged lines and the byte changes a repair would make (all
 * three or none).
 */
export interface AgentInspection {
  /** One paragraph: what most likely happened, in plain language. */
  account: string
  /** Damaged lines of every session log generation. */
  damagedLines?: DamagedLine[]
  /** The byte changes a repair would make, per generation. */
  plannedChanges?: PlannedChange[]
  plans?: PlanSummary[]
}
