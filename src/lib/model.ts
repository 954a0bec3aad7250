/**
 * The data model every step of chatdoctor passes along:
 * discover → inventory → classify → measure → rank → (plan → apply) → render.
 *
 * Plain data only. The zod schemas below describe the public `--json` report (schemaVersion 1);
 * `schemas/report.schema.json` is generated from them (`npm run schema`) and a test keeps the two equal.
 * Names in the report are a stable contract: fields may be added, never renamed.
 */
import {z} from 'zod'
import {SCHEMA_VERSION} from './schema-version.js'

/** Version of the `--json` report layout. Bumped only on an incompatible change. (Defined in `schema-version.ts`.) */
export {SCHEMA_VERSION}

/**
 * What part a file plays in a chat dir.
 * - `primary`: the state file the agent loads (Codebuff: `run-state.json`).
 * - `backup`: the previous generation rotated aside (`run-state.json.bak`).
 * - `temp`: a leftover temp of an interrupted atomic write (`run-state.json.<pid>[.<uuid>].tmp`).
 * - `embedded`: a state copy stored inside another file (Codebuff: `metadata.runState` of a transcript message).
 * - `transcript`, `transcript-temp`: the transcript the user sees and its leftover temps.
 * - `meta`: a sidecar summary (`chat-meta.json`).
 * - `other`: anything else; never classified, never touched.
 * - `message`, `part`: (OpenCode JSON tree) one message info file, one part file of a session.
 * - `database`: (OpenCode ≥ 1.2) the SQLite store and its `-wal`/`-shm`, stat only (never opened in place).
 * - `compressed`: the same session log compressed beside it (Codex: `rollout-….jsonl.zst` next to `….jsonl`).
 * - `export`: an `opencode export` document (`{info, messages: [{info, parts}]}`), a whole session in one file.
 */
export const ROLES = ['primary', 'backup', 'temp', 'embedded', 'transcript', 'transcript-temp', 'meta', 'other', 'message', 'part', 'database', 'compressed', 'export'] as const
export type Role = (typeof ROLES)[number]

/** Roles whose files are generations of the agent context (candidates for the winner). */
export const CONTEXT_ROLES: readonly Role[] = ['primary', 'backup', 'temp', 'embedded', 'compressed']

/**
 * The verdict on one file (see README "Classes"):
 * `intact` parses strictly and holds what its role needs; `truncated` is a proper prefix of a JSON document;
 * `empty` is 0 bytes or whitespace; `zero-filled` is all NUL; `corrupt` is anything else the loader would
 * reject; `contextless` parses but holds no agent context; `missing` is absent.
 */
export const CLASSES = ['intact', 'truncated', 'empty', 'zero-filled', 'corrupt', 'contextless', 'missing'] as const
export type FileClass = (typeof CLASSES)[number]

/**
 * Reason codes attached to a class. Closed list, documented in the README.
 * Byte level: `bom`, `invalid-utf8`, `torn-utf8`, `nul-tail`, `nul-run`.
 * Syntax level: `unexpected-end` (the document stops before it closes), `trailing-garbage`, `concatenated`,
 * `syntax-error`.
 * Shape level: `wrong-shape` (parses, but not the type the role needs), `no-session-state`, `placeholder`,
 * `fresh-chat`.
 * Access: `unreadable` (the file could not be read: permission, I/O error), `not-a-file` (the name is a
 * symbolic link, a folder or a special file: never read, never replaced).
 * Line level (JSONL session logs, counted per line): `torn-tail` (the final line is a cut record),
 * `torn-interior` (an earlier line is a cut record or a fragment), `interleaved-line` (a cut record and the next
 * record, or two records, on one line), `split-record` (one record spread over several lines by raw line
 * breaks), `lone-surrogate` (a `\uD800`–`\uDFFF` escape without its other half); `bom`, `invalid-utf8`,
 * `torn-utf8` and `nul-run` as above, per line.
 */
export const REASONS = [
  'bom',
  'invalid-utf8',
  'torn-utf8',
  'nul-tail',
  'nul-run',
  'unexpected-end',
  'trailing-garbage',
  'concatenated',
  'syntax-error',
  'wrong-shape',
  'no-session-state',
  'placeholder',
  'fresh-chat',
  'unreadable',
  'not-a-file',
  // Line level (JSONL session logs).
  'torn-tail',
  'torn-interior',
  'interleaved-line',
  'split-record',
  'lone-surrogate',
] as const
export type Reason = (typeof REASONS)[number]

export const SEVERITIES = ['error', 'warning', 'info'] as const
export type Severity = (typeof SEVERITIES)[number]

/**
 * Chat verdicts. `degraded` (exit bit 4): the agent loads the chat, but part of its context is missing:
 * the winning generation is usable but amnesiac (a new session replaced the agent's memory, plain
 * `repair` leaves it), or the session's structure lost part of the context (e.g. an OpenCode completed tool
 * part without its output, a message whose parts are gone).
 */
export const STATUSES = ['healthy', 'repairable', 'unrecoverable', 'degraded'] as const
export type ChatStatus = (typeof STATUSES)[number]

/**
 * Byte-level facts about where a file is damaged, for `inspect` and SARIF regions. Offsets in bytes from the
 * start of the file.
 */
export interface DamageLocation {
  /** Offset of the first byte that makes the file unusable (the tear, the bad byte, the garbage). */
  offset: number
  /** Number of bytes from `offset` that are damaged (to the end of the file for a tear). */
  length: number
}

/** The verdict of the classifier on one file's bytes. */
export interface Classification {
  class: Exclude<FileClass, 'missing'>
  reasons: Reason[]
  /** Where the damage starts, when there is damage to locate. */
  damage?: DamageLocation
  /** The parsed value, only when the bytes parse strictly (classes `intact` and `contextless`). */
  value?: unknown
}

/**
 * How much agent context one generation holds, measured against the transcript.
 * Codebuff: prompts are `USER_PROMPT`-tagged user messages in `sessionState.mainAgentState.messageHistory`
 * (codebuff-format.md §3.2–3.4).
 */
export interface ContextMeasure {
  /** N: 1-based index of the latest transcript turn matched by a prompt; own prompt count when M is null. */
  turns: number
  /** The generation's own prompt count. */
  prompts: number
  /** `sentAt` of the newest prompt (ms since epoch), null when no prompt carries one. */
  newestPromptAt: number | null
  /** Length of the message history the model sees. */
  historyLength: number
  /** Prompts that match no transcript turn. */
  unmatchedPrompts: number
  /** Unmatched prompts that come before the first matched one (older than the transcript's first turn). */
  unmatchedBeforeFirst: number
  /** 1-based index of the earliest transcript turn matched, null when none. */
  firstMatchedTurn: number | null
  /** RunState `traceSessionId`, null when absent. */
  traceSessionId: string | null
  /** True when the history ends in the interruption note (the last turn is partial). */
  interrupted: boolean
  // Session logs (Claude Code, Codex). Counts over the complete records of the file.
  /** User turns in the file as written (real prompts, not tool results or injected context). */
  userTurns?: number
  /** Assistant messages (Claude Code: distinct `message.id`; Codex: `agent_message` events or assistant messages). */
  assistantMessages?: number
  /** Tool calls (Claude Code `tool_use` blocks; Codex `function_call`, `custom_tool_call`, `local_shell_call`). */
  toolCalls?: number
  /** Tool calls with a result in the file. */
  toolCallsWithResult?: number
  /** Tool calls without a result in the file (open). */
  toolCallsOpen?: number
  /** Compactions (Claude Code `compact_boundary` records; Codex `compacted` records). */
  compactions?: number
  /** Latest record `timestamp`, ms since epoch; null when no record carries one. */
  lastActivityAt?: number | null
  /** Complete records in the file. */
  records?: number
  /** Records the agent's loader reaches (Claude Code: along the `parentUuid` chain from the last record). */
  reachableRecords?: number
}

/**
 * Line-level facts of a JSONL session log: LF-separated lines, a single CR before the LF part of the
 * line ending. Counts are of physical lines (the empty piece after a final LF is not a line).
 */
export interface LineCounts {
  total: number
  /** Lines that are exactly one complete record. */
  intact: number
  /** Whitespace-only lines (skipped by the agents' readers). */
  blank: number
  /** Lines with at least one reason. */
  damaged: number
  /** Complete records found, including those inside damaged lines that a repair keeps. */
  records: number
  /** Damaged lines per reason code. */
  byReason: Partial<Record<Reason, number>>
  /** The first damaged lines (at most 20): 1-based line number, byte offset and length, reasons. */
  firstDamaged: Array<{line: number; offset: number; length: number; reasons: Reason[]}>
}

/**
 * One file of a chat dir (or one state copy embedded in a file), with its verdict.
 * `file` is the name relative to the chat dir; embedded copies are `<file>#<id>`.
 */
export interface Generation {
  file: string
  role: Role
  /** null for role `other` (never classified). */
  class: FileClass | null
  reasons: Reason[]
  /** Size in bytes; 0 when missing. */
  bytes: number
  /** Modification time in ms since epoch (fractional as the OS gives it); null when missing. */
  mtimeMs: number | null
  /** sha256 of the bytes, lower-case hex; null when missing or not read. */
  sha256: string | null
  /** N for intact context generations, null otherwise. */
  turns: number | null
  damage?: DamageLocation
  measure?: ContextMeasure
  /** JSONL session logs only: per-line counts and reasons. */
  lines?: LineCounts
  /** What a salvage of this torn generation would recover; absent when nothing is salvageable. */
  salvage?: SalvageReport
  /**
   * (`scan --quick` only) True when the verdict was made from the whole file; false when only its ends were
   * read (a file larger than the head and tail windows): `intact` then means only that its ends look whole.
   */
  verified?: boolean
}

// ---- forensics -------------------------------------------------------------------------------

/** A member cut off by a tear and filled from a donor generation. */
export interface BorrowedKeyReport {
  /** Dotted path, e.g. `sessionState.fileContext`. */
  key: string
  /** The donor generation's file name. */
  from: string
}

/** What a salvage of a torn generation would recover. Byte counts are of the torn file unless said. */
export interface SalvageReport {
  /** `prefix`: cut back to the last complete message and closed; `tail`: a complete document with a NUL/whitespace tail dropped. */
  kind: 'prefix' | 'tail'
  /** Messages of the history kept whole, byte-identical. */
  messages: number
  /** N of the salvaged state against the transcript; null when it cannot be measured. */
  turns: number | null
  /** Offset of the first unusable byte. */
  tearOffset: number
  /** Original bytes kept (`[0, bytesKept)`). */
  bytesKept: number
  /** Original bytes dropped. */
  bytesDropped: number
  /** True when a partial message was dropped. */
  tornElementDropped: boolean
  keysBorrowed: BorrowedKeyReport[]
  /** Required members cut off that no generation holds (then `candidate` is false). */
  keysMissing: string[]
  /** Optional members cut off that no generation holds (left out). */
  keysDropped: string[]
  /** Size of the salvaged document in bytes. */
  bytes: number
  /** sha256 of the salvaged document. */
  sha256: string
  /** True when `repair --salvage` could use it (≥ 1 message, nothing required missing, holds agent context). */
  candidate: boolean
}

/** The transcript generation a repair would restore over a torn `chat-messages.json`. */
export interface TranscriptRestore {
  /** File name of the intact transcript temp to restore from. */
  from: string
  /** File it replaces (`chat-messages.json`). */
  to: string
  /** Agent turns in it. */
  turns: number
  /** Messages in it. */
  messages: number
  bytes: number
  sha256: string | null
}

/** The amnesia diagnosis of a chat: what the agent's memory lacks and what could restore it. */
export interface AmnesiaReport {
  /** The amnesiac generation (the primary). */
  file: string
  /** `trace-break`: `traceSessionId` differs from an older generation's; `late-start`: prompts start after turn 1 with no summary; `placeholder`: the loader's stand-in was saved. */
  patterns: Array<'trace-break' | 'late-start' | 'placeholder'>
  /** Transcript turns missing from its memory as `[first, last]` (1-based), null when none can be named. */
  missingTurns: [number, number] | null
  /** The generation that holds the most of the missing turns, null when none. */
  source: string | null
  /** N of `source`. */
  sourceTurns: number | null
  /** Turns a restore of `source` would drop as `[first, last]`, null when none. */
  restoreDrops: [number, number] | null
  /** The older `traceSessionId` that differs, for `trace-break`. */
  olderTraceSessionId: string | null
}

/** A finding: something worth telling about a chat. `id` is from the closed list in `findings.ts`. */
export interface Finding {
  id: string
  severity: Severity
  /** The file it is about, relative to the chat dir; null when about the chat as a whole. */
  file: string | null
  message: string
}

/** Where a usable candidate ended up in the ranking, and why it lost (null for the winner). */
export interface RankEntry {
  file: string
  rank: number
  turns: number
  lostBecause: string | null
}

/**
 * How much agent context a session holds, counted over its readable messages and parts (peer-formats.md §1.9,
 * §6.2). Used by formats whose chats are sessions of messages and parts (OpenCode).
 */
export interface SessionContext {
  /** Readable messages with `role: user`. */
  userTurns: number
  /** Readable messages with `role: assistant`. */
  assistantMessages: number
  /** Readable messages of any role. */
  messages: number
  /** Readable parts. */
  parts: number
  /** Tool parts whose `state.status` is `completed`. */
  toolCompleted: number
  /** Tool parts whose `state.status` is `pending` or `running` (the call never finished). */
  toolPending: number
  /** Tool parts whose `state.status` is `error`. */
  toolError: number
  /** Parts of type `compaction` (context before them is summarised). */
  compactionParts: number
}

/** The diagnosis of one chat. */
export interface ChatReport {
  /** Absolute path of the chat dir, the user's home written as `~`. */
  path: string
  format: string
  /** Chat id (Codebuff: the chat dir's name). */
  id: string
  status: ChatStatus
  /** File name of the best usable generation; null only when unrecoverable. */
  winner: string | null
  /** M: agent turns in the transcript; null when the transcript is missing or not intact. */
  transcriptTurns: number | null
  /** N of the winner; null only when unrecoverable. */
  contextTurns: number | null
  findings: Finding[]
  generations: Generation[]
  ranking: RankEntry[]
  /** `check`: the bundle (archive) the chat was read from, home as `~`; absent for chat dirs on disk. */
  bundle?: string
  /** Set when the transcript is torn and an intact transcript temp can replace it. */
  transcriptRestore?: TranscriptRestore
  /** Set when the agent's memory is amnesiac (status `degraded`, or a placeholder primary). */
  amnesia?: AmnesiaReport
  /** Context counts of a session (OpenCode); absent for formats that measure generations instead. */
  context?: SessionContext
  /** (`repair`) The chat's actions: planned (dry run) or executed. */
  actions?: ActionReport[]
  /** (`repair`) What the repair did with the chat. */
  repair?: ChatRepair
  /**
   * (`scan --quick` only) False when the chat's status rests on a file read only at its ends (a `healthy`
   * primary, or a `repairable` chat's winner, whose ends look whole); true otherwise.
   */
  verified?: boolean
}

// ---- repair -----------------------------------------------------------------------------------

/**
 * Kinds of repair action. `preserve`: keep a file as evidence before it is replaced (`to` is its name inside
 * the evidence folder); `restore`: write the bytes of a generation (`from`) as `to`; `restore-mtime`: put the
 * chat dir's own mtime back (`to` is `.`), so the agent's "newest chat" choice does not change. A `restore`
 * writes a file's bytes (`from` is its name), an embedded copy's (`from` `chat-messages.json#<id>`), a transcript
 * temp's (`to` `chat-messages.json`) or salvaged bytes (`from` `salvage:<torn file>`, `repair --salvage`).
 * `rewrite`: write the repaired bytes of a JSONL session log (`from` the generation repaired,
 * `to` the log the agent reads; `changes` lists every byte change); `move`: move a damaged file of OpenCode's
 * JSON tree out of the tree into the evidence folder (`from` its path below the data dir, `to` its name inside
 * the evidence folder, `sha256` of the bytes moved).
 */
export const ACTION_TYPES = ['preserve', 'restore', 'restore-mtime', 'rewrite', 'move'] as const
export type ActionType = (typeof ACTION_TYPES)[number]

/** An action as the report shows it. Names are relative to the chat dir. */
export interface ActionReport {
  type: ActionType
  /** The file (or labelled byte source) the bytes come from; null for `restore-mtime`. */
  from: string | null
  to: string
  /** sha256 of the bytes written (`restore`) or preserved (`preserve`); null for `restore-mtime`. */
  sha256: string | null
  /** Path of the evidence the action left (the preserved copy); null in a dry run or when none. */
  evidence: string | null
  /** (`restore` of salvaged bytes, `repair --salvage`) Members the tear cut off, each copied from a donor generation. */
  keysBorrowed?: BorrowedKeyReport[]
  /** (`rewrite`) Every byte change of the JSONL repair, in line order. */
  changes?: LineChangeReport[]
  /** (`move`) Why the file leaves the tree: `damaged-session`, `damaged-message`, `damaged-part`, `parts-of-damaged-message`. */
  why?: string
}

/** One byte change of a JSONL repair (`jsonl-repair.ts`): where, what kind, how many bytes. Never content. */
export interface LineChangeReport {
  /** `drop-torn-tail`, `strip-nul`, `strip-bom`, `split-line`, `drop-line`, `relink-parent`. */
  kind: string
  /** 1-based line number in the original file. */
  line: number
  /** Byte offset of the line in the original file. */
  offset: number
  /** Bytes of the original line (with its line ending). */
  length: number
  reasons: string[]
  bytesRemoved: number
  /** Complete records the line still holds after the change. */
  recordsKept: number
  /** sha256 of the original line's bytes (kept in the evidence folder). */
  sha256: string
  /** (`relink-parent`) The old and new `parentUuid` (ids only). */
  relink?: {from: string; to: string}
}

/** (OpenCode JSON tree) What a session loses by a repair that moves files out of the tree. Ids and counts only. */
export interface TreeLossReport {
  /** Message ids whose file moves out (with all their parts). */
  messages: string[]
  /** Part ids that leave the session (moved, or orphaned already). */
  parts: string[]
  /** Whether OpenCode can list the session after the repair. */
  sessionListed: boolean
  /** The session's context before the repair (readable files) and after it (what OpenCode will load). */
  before: SessionContext
  after: SessionContext
}

/**
 * What a repair did with one chat: `repaired`; `planned` (dry run); `refused` (live chat or locked, bit 8);
 * `failed` (a write failed, bit 8; evidence says what was kept); `not-attempted` (the user declined or
 * stopped the run first); `not-needed` (healthy); `not-repairable` (unrecoverable: nothing written);
 * `left-untouched` (degraded: plain `repair` changes nothing, `message` names the `--restore-from` that would);
 * `manual` (repairable damage chatdoctor does not repair itself, e.g. a damaged OpenCode database: nothing
 * written, `message` gives the next steps; exit bit 2 stays set).
 */
export const REPAIR_OUTCOMES = ['repaired', 'planned', 'refused', 'failed', 'not-attempted', 'not-needed', 'not-repairable', 'left-untouched', 'manual'] as const
export type RepairOutcome = (typeof REPAIR_OUTCOMES)[number]

export interface ChatRepair {
  outcome: RepairOutcome
  /** One line: why refused or failed, and what to do next; null otherwise. */
  message: string | null
  /** The evidence folder (home as `~`); null when nothing was preserved. */
  evidence: string | null
  /** The command that undoes this repair; null when nothing was written. */
  undo: string | null
  warnings: string[]
  /** The status a scan gives the chat once the planned actions are done. */
  statusAfter?: ChatStatus
  /** (OpenCode JSON tree) What the session loses by the repair. */
  lost?: TreeLossReport
}

/** A folder that looked like a chat dir but holds nothing to diagnose. */
export interface Skipped {
  path: string
  reason: string
}

/** A path or file that could not be read. Sets exit bit 8. */
export interface OperationalError {
  path: string
  message: string
  /** `check`: the finding id of the problem (e.g. `archive-entry-escapes`), for CI formats. */
  id?: string
}

// ---------------------------------------------------------------------------------------------------------
// zod schemas of the public JSON report. Loose objects: validation must never strip fields we add later.

export const FindingSchema = z.looseObject({
  id: z.string(),
  severity: z.enum(SEVERITIES),
  file: z.string().nullable(),
  message: z.string(),
})

export const DamageSchema = z.looseObject({offset: z.number().int().nonnegative(), length: z.number().int().nonnegative()})

export const GenerationSchema = z.looseObject({
  file: z.string(),
  role: z.enum(ROLES),
  class: z.enum(CLASSES).nullable(),
  reasons: z.array(z.enum(REASONS)),
  bytes: z.number().int().nonnegative(),
  mtimeMs: z.number().nullable(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
  turns: z.number().int().nonnegative().nullable(),
  damage: DamageSchema.optional(),
  verified: z.boolean().optional(),
  salvage: z
    .looseObject({
      kind: z.enum(['prefix', 'tail']),
      messages: z.number().int().nonnegative(),
      turns: z.number().int().nonnegative().nullable(),
      tearOffset: z.number().int().nonnegative(),
      bytesKept: z.number().int().nonnegative(),
      bytesDropped: z.number().int().nonnegative(),
      tornElementDropped: z.boolean(),
      keysBorrowed: z.array(z.looseObject({key: z.string(), from: z.string()})),
      keysMissing: z.array(z.string()),
      keysDropped: z.array(z.string()),
      bytes: z.number().int().nonnegative(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      candidate: z.boolean(),
    })
    .optional(),
  measure: z
    .looseObject({
      turns: z.number().int().nonnegative(),
      prompts: z.number().int().nonnegative(),
      newestPromptAt: z.number().nullable(),
      historyLength: z.number().int().nonnegative(),
      unmatchedPrompts: z.number().int().nonnegative(),
      unmatchedBeforeFirst: z.number().int().nonnegative(),
      firstMatchedTurn: z.number().int().positive().nullable(),
      traceSessionId: z.string().nullable(),
      interrupted: z.boolean(),
      userTurns: z.number().int().nonnegative().optional(),
      assistantMessages: z.number().int().nonnegative().optional(),
      toolCalls: z.number().int().nonnegative().optional(),
      toolCallsWithResult: z.number().int().nonnegative().optional(),
      toolCallsOpen: z.number().int().nonnegative().optional(),
      compactions: z.number().int().nonnegative().optional(),
      lastActivityAt: z.number().nullable().optional(),
      records: z.number().int().nonnegative().optional(),
      reachableRecords: z.number().int().nonnegative().optional(),
    })
    .optional(),
  lines: z
    .looseObject({
      total: z.number().int().nonnegative(),
      intact: z.number().int().nonnegative(),
      blank: z.number().int().nonnegative(),
      damaged: z.number().int().nonnegative(),
      records: z.number().int().nonnegative(),
      byReason: z.partialRecord(z.enum(REASONS), z.number().int().positive()),
      firstDamaged: z.array(
        z.looseObject({
          line: z.number().int().positive(),
          offset: z.number().int().nonnegative(),
          length: z.number().int().nonnegative(),
          reasons: z.array(z.enum(REASONS)),
        }),
      ),
    })
    .optional(),
})

export const RankEntrySchema = z.looseObject({
  file: z.string(),
  rank: z.number().int().positive(),
  turns: z.number().int().nonnegative(),
  lostBecause: z.string().nullable(),
})

export const ActionSchema = z.looseObject({
  type: z.enum(ACTION_TYPES),
  from: z.string().nullable(),
  to: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
  evidence: z.string().nullable(),
  keysBorrowed: z.array(z.looseObject({key: z.string(), from: z.string()})).optional(),
  changes: z
    .array(
      z.looseObject({
        kind: z.string(),
        line: z.number().int().positive(),
        offset: z.number().int().nonnegative(),
        length: z.number().int().nonnegative(),
        reasons: z.array(z.string()),
        bytesRemoved: z.number().int().nonnegative(),
        recordsKept: z.number().int().nonnegative(),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
        relink: z.looseObject({from: z.string(), to: z.string()}).optional(),
      }),
    )
    .optional(),
  why: z.string().optional(),
})

export const SessionContextSchema = z.looseObject({
  userTurns: z.number().int().nonnegative(),
  assistantMessages: z.number().int().nonnegative(),
  messages: z.number().int().nonnegative(),
  parts: z.number().int().nonnegative(),
  toolCompleted: z.number().int().nonnegative(),
  toolPending: z.number().int().nonnegative(),
  toolError: z.number().int().nonnegative(),
  compactionParts: z.number().int().nonnegative(),
})

export const ChatRepairSchema = z.looseObject({
  outcome: z.enum(REPAIR_OUTCOMES),
  message: z.string().nullable(),
  evidence: z.string().nullable(),
  undo: z.string().nullable(),
  warnings: z.array(z.string()),
  statusAfter: z.enum(STATUSES).optional(),
  lost: z
    .looseObject({
      messages: z.array(z.string()),
      parts: z.array(z.string()),
      sessionListed: z.boolean(),
      before: SessionContextSchema,
      after: SessionContextSchema,
    })
    .optional(),
})

export const ChatReportSchema = z.looseObject({
  path: z.string(),
  format: z.string(),
  id: z.string(),
  status: z.enum(STATUSES),
  winner: z.string().nullable(),
  transcriptTurns: z.number().int().nonnegative().nullable(),
  contextTurns: z.number().int().nonnegative().nullable(),
  findings: z.array(FindingSchema),
  generations: z.array(GenerationSchema),
  ranking: z.array(RankEntrySchema),
  actions: z.array(ActionSchema).optional(),
  repair: ChatRepairSchema.optional(),
  verified: z.boolean().optional(),
  context: SessionContextSchema.optional(),
  transcriptRestore: z
    .looseObject({
      from: z.string(),
      to: z.string(),
      turns: z.number().int().nonnegative(),
      messages: z.number().int().nonnegative(),
      bytes: z.number().int().nonnegative(),
      sha256: z.string().nullable(),
    })
    .optional(),
  amnesia: z
    .looseObject({
      file: z.string(),
      patterns: z.array(z.enum(['trace-break', 'late-start', 'placeholder'])),
      missingTurns: z.tuple([z.number().int().positive(), z.number().int().positive()]).nullable(),
      source: z.string().nullable(),
      sourceTurns: z.number().int().nonnegative().nullable(),
      restoreDrops: z.tuple([z.number().int().positive(), z.number().int().positive()]).nullable(),
      olderTraceSessionId: z.string().nullable(),
    })
    .optional(),
  bundle: z.string().optional(),
})

export const SummarySchema = z.looseObject({
  chats: z.number().int().nonnegative(),
  healthy: z.number().int().nonnegative(),
  repairable: z.number().int().nonnegative(),
  unrecoverable: z.number().int().nonnegative(),
  degraded: z.number().int().nonnegative(),
  skipped: z.number().int().nonnegative(),
})

export const ReportSchema = z.looseObject({
  schemaVersion: z.literal(SCHEMA_VERSION),
  command: z.string(),
  chatdoctorVersion: z.string(),
  exitCode: z.number().int().min(0).max(31),
  error: z.string().optional(),
  quick: z
    .looseObject({
      headBytes: z.number().int().nonnegative(),
      tailBytes: z.number().int().nonnegative(),
      notDetected: z.string(),
      trustEnds: z.boolean(),
      unverified: z.number().int().nonnegative(),
    })
    .optional(),
  summary: SummarySchema,
  errors: z.array(z.looseObject({path: z.string(), message: z.string(), id: z.string().optional()})),
  skipped: z.array(z.looseObject({path: z.string(), reason: z.string()})),
  chats: z.array(ChatReportSchema),
  repairId: z.string().nullable().optional(),
  dryRun: z.boolean().optional(),
  interrupted: z.boolean().optional(),
  repairs: z.array(z.looseObject({repairId: z.string(), time: z.string(), chats: z.array(z.string()), undone: z.boolean()})).optional(),
  undone: z.array(z.looseObject({chat: z.string(), file: z.string(), outcome: z.string(), sha256: z.string().nullable()})).optional(),
})

/** Counts per chat status, plus skipped dirs. */
export type Summary = z.infer<typeof SummarySchema>

/** The whole report of one run, as printed by `--json`. */
export interface Report {
  schemaVersion: typeof SCHEMA_VERSION
  command: string
  chatdoctorVersion: string
  exitCode: number
  /** Present only on a usage error (exit 16). */
  error?: string
  /**
   * Present only for `scan --quick`: each file larger than `headBytes` + `tailBytes` was judged from its first
   * `headBytes` and last `tailBytes` bytes (smaller ones are read and classified whole), and `notDetected` says
   * what that cannot see (damage in the middle of a file). `unverified`: chats whose status rests on such a file
   * (`verified: false`); they set exit bit 8 unless `trustEnds` (`--trust-ends`).
   */
  quick?: {headBytes: number; tailBytes: number; notDetected: string; trustEnds: boolean; unverified: number}
  summary: Summary
  errors: OperationalError[]
  skipped: Skipped[]
  chats: ChatReport[]
  /** (`repair`) The id of this repair (`undo <repairId>`); null in a dry run or when nothing was written. */
  repairId?: string | null
  /** (`repair`) True for `--dry-run`. */
  dryRun?: boolean
  /** (`repair`) True when Ctrl-C stopped the run between chats. */
  interrupted?: boolean
  /** (`undo --list`) Past repairs. */
  repairs?: Array<{repairId: string; time: string; chats: string[]; undone: boolean}>
  /** (`undo`) What undo did with each file. */
  undone?: Array<{chat: string; file: string; outcome: string; sha256: string | null}>
}
