/**
 * A dialect of the JSON-lines session family: one agent's records, told apart by content, measured and checked
 * by the agent's own rules. Each member of the family (an agent folder) gives one; `dialects.ts` lists them.
 */
import type {JsonlClassification, KeptColumns} from '../../classify/jsonl.js'
import type {ContextMeasure, Finding} from '../../model/report.js'
import type {JsonlRepairRules} from './repair.js'

/** What the analysis of one log by its agent's rules found. */
export interface SessionAnalysis {
  measure: ContextMeasure
  /** User turns among all complete records (the file as written). */
  transcriptTurns: number
  findings: Finding[]
  rules: JsonlRepairRules
  /** Why the loader would refuse the file as it is; null when it loads. */
  refused: string | null
  /** The session id the records carry, null when none does. */
  id: string | null
  /**
   * When the loader refuses a log whose records are all intact for a reason only a person can fix (Codex: the
   * `session_meta` header is missing): what the file still tells, what the agent does with it and what to do,
   * in words. Null otherwise.
   */
  manual: string | null
}

/**
 * What discovery knows of a member of the family: its format id and which session files it claims by name
 * (the members' list of these is `claims.ts`, light enough for every scan; a dialect repeats its member's).
 */
export interface NameClaim {
  /** The format id in the report (`format`). */
  readonly name: string
  /**
   * Whether this agent claims a (plain) session file by its name or place (`compressedSibling`: a
   * `<name>.zst` lies beside it). Without it, the member takes the names no other member claims.
   */
  claimsName?(dir: string, name: string, compressedSibling: boolean): boolean
}

export interface SessionDialect extends NameClaim {
  /** Whether a complete record is one this agent writes (the family's formats are told apart by content). */
  isRecord(value: Record<string, unknown>): boolean
  /**
   * The record rule for what the line classifier carves out of a damaged line (`JsonlClassifyOptions.isRecord`):
   * true when an object has the keys every record of this agent has at top level, so that an object nested in a
   * record that closes right before a cut is not taken for one. `clean` are the log's records on clean lines: a
   * dialect with several layouts gives the rule of the layout they are in; without them, the rule of any layout.
   */
  recordRule(clean?: Array<Record<string, unknown>>): (value: Record<string, unknown>) => boolean
  /**
   * What of a record this agent's rules read (a log read by streaming keeps only this of each record): every
   * rule of the dialect used on a scan or a repair (`isRecord`, `recordRule`, `analyze` and the repair rules it
   * gives) answers the same on `keep(v)` as on `v`. A key kept only for its presence holds null (or '' for a
   * string only its type matters of); a member's value wins over another's placeholder (`keepForFamily` merges
   * them, the first member's value first). Without it, records are kept whole.
   */
  keep?(value: Record<string, unknown>): Record<string, unknown>
  /**
   * A fresh store holding `keep`'s output of clean lines in columns instead of an object per record (a log read
   * by streaming); it takes what fits and gives back an equal value when read. Without it, kept values are objects.
   */
  columns?(): KeptColumns
  /**
   * A key naming one record among a session's, read only from what `keep` keeps whole (so a log read by
   * streaming gives the same key as its bytes in memory): Claude Code a record's `uuid`. Two copies of a session
   * are compared by these keys (does a copy hold the records a lossy repair of the log drops, and every record it
   * keeps?); equal keys are counted. Without it, copies are never compared record by record.
   */
  recordKey?(value: Record<string, unknown>): string
  /** Measures one log and finds its structural problems, by the agent's loader rules. */
  analyze(fileName: string, cls: JsonlClassification): SessionAnalysis
  /**
   * Whether the text of a damaged line's fragment (the bytes of a cut record) still shows the start of a user
   * prompt of this agent: such prompts count in the log's turns M, so the report shows what a repair drops.
   */
  promptInFragment(text: string): boolean
  /**
   * Set when the agent's adapter diagnoses its logs itself (a chat of several files, its own loader rules): a
   * log of its records that another member's name rule found is then skipped with this reason, never
   * diagnosed as that member's session.
   */
  readonly ownDiagnosis?: string
  /**
   * (`snapshot`) Whether the log's last turn is settled by this agent's records: `unsettled` says why not (a
   * tool call pending, the last prompt unanswered), null when settled; `messages` counts its conversation
   * records (for the message cap). Without it, the agent's logs are never snapshotted.
   */
  settle?(records: ReadonlyArray<Record<string, unknown>>): {messages: number; unsettled: string | null}
  /**
   * The last turn of a log's records: its prompt's text, and why its final answer is not on disk (a tool call
   * or tool result the model never answered, an unanswered prompt), null when it is. Null when the records hold
   * no prompt. Without it, a cut is never said to take an answer.
   */
  lastTurn?(records: ReadonlyArray<Record<string, unknown>>): {prompt: string; unanswered: string | null} | null
  /**
   * (`snapshot --redact`) One record with its private tool payloads (tool inputs and outputs) and per-turn
   * system prompts removed; roles, order, ids and the tool calls' lifecycle kept. A new object; the input is
   * not changed.
   */
  redactRecord?(value: Record<string, unknown>): Record<string, unknown>
}
