/**
 * The data model every step of chatdoctor passes along:
 * discover → inventory → classify → measure → rank → (plan → apply) → render.
 *
 * Each shape of the public `--json` report (schemaVersion 1) is defined once, as a zod schema; its TypeScript
 * type is derived from it (`Shape<…>`). Code takes the types with `import type`, which the compiler removes,
 * so only what validates or publishes the report (`render/contract.ts`, bundle manifests, tests) loads zod and
 * these schemas; the scan path never does. `schemas/report.schema.json` is generated from them
 * (`npm run schema`) and a test keeps the two equal. Loose objects: validation never strips fields added
 * later. Names in the report are a stable contract: fields may be added, never renamed.
 */
import {z} from 'zod'
import {ACTION_TYPES, AMNESIA_PATTERNS, CLASSES, REASONS, REPAIR_OUTCOMES, ROLES, SEVERITIES, STATUSES, type FileClass, type Reason} from './enums.js'
import {SCHEMA_VERSION} from './schema-version.js'

export {ACTION_TYPES, AMNESIA_PATTERNS, CLASSES, CONTEXT_ROLES, REASONS, REPAIR_OUTCOMES, ROLES, SEVERITIES, STATUSES} from './enums.js'
export type {ActionType, AmnesiaPattern, ChatStatus, FileClass, Reason, RepairOutcome, Role, Severity} from './enums.js'

/** Version of the `--json` report layout. Bumped only on an incompatible change. (Defined in `schema-version.ts`.) */
export {SCHEMA_VERSION}

/**
 * The plain TypeScript type of a schema's output: without the index signature a loose object adds (so
 * `Omit`, `Pick` and excess-property checks work as on an interface), recursively; tuples stay tuples.
 */
export type Exact<T> = T extends readonly unknown[]
  ? {[I in keyof T]: Exact<T[I]>}
  : T extends object
    ? {[K in keyof T as string extends K ? never : number extends K ? never : K]: Exact<T[K]>}
    : T

/** The type a schema describes. */
type Shape<S extends z.ZodType> = Exact<z.output<S>>

const count = () => z.number().int().nonnegative()
const sha256 = () => z.string().regex(/^[0-9a-f]{64}$/)

/** A finding: something worth telling about a chat. `id` is from the closed list (`findings.ts` and the adapters'). */
export const FindingSchema = z.looseObject({
  id: z.string(),
  severity: z.enum(SEVERITIES),
  /** The file it is about, relative to the chat dir; null when about the chat as a whole. */
  file: z.string().nullable(),
  message: z.string(),
})
export type Finding = Shape<typeof FindingSchema>

/**
 * Byte-level facts about where a file is damaged, for `inspect` and SARIF regions. Offsets in bytes from the
 * start of the file.
 */
export const DamageSchema = z.looseObject({
  /** Offset of the first byte that makes the file unusable (the tear, the bad byte, the garbage). */
  offset: count(),
  /** Number of bytes from `offset` that are damaged (to the end of the file for a tear). */
  length: count(),
})
export type DamageLocation = Shape<typeof DamageSchema>

/** A member cut off by a tear and filled from a donor generation. */
const BorrowedKeySchema = z.looseObject({
  /** Dotted path, e.g. `sessionState.fileContext`. */
  key: z.string(),
  /** The donor generation's file name. */
  from: z.string(),
})
export type BorrowedKeyReport = Shape<typeof BorrowedKeySchema>

/** What a salvage of a torn generation would recover. Byte counts are of the torn file unless said. */
const SalvageSchema = z.looseObject({
  /**
   * `prefix`: cut back to the last complete message and closed; `tail`: a complete document with the bytes
   * after it (NULs, whitespace, a stale tail) dropped; `bom`: a complete document behind a UTF-8 BOM, only the
   * BOM dropped (`bytesKept` counts the bytes after it).
   */
  kind: z.enum(['prefix', 'tail', 'bom']),
  /** Messages of the history kept whole, byte-identical. */
  messages: count(),
  /** N of the salvaged state against the transcript (for a transcript: its agent turns); null when it cannot be measured. */
  turns: count().nullable(),
  /** Offset of the first unusable byte. */
  tearOffset: count(),
  /** Original bytes kept (`[0, bytesKept)`; for `bom`, the bytes after the BOM). */
  bytesKept: count(),
  /** Original bytes dropped. */
  bytesDropped: count(),
  /** True when a partial message was dropped. */
  tornElementDropped: z.boolean(),
  keysBorrowed: z.array(BorrowedKeySchema),
  /** Required members cut off that no generation holds (then `candidate` is false). */
  keysMissing: z.array(z.string()),
  /** Optional members cut off that no generation holds (left out). */
  keysDropped: z.array(z.string()),
  /** Size of the salvaged document in bytes. */
  bytes: count(),
  /** sha256 of the salvaged document. */
  sha256: sha256(),
  /** True when `repair --salvage` could use it (≥ 1 message, nothing required missing, holds agent context). */
  candidate: z.boolean(),
  /**
   * True when the salvage loses nothing that was written: every message kept byte for byte, no member
   * borrowed, missing or dropped, and what follows the kept bytes is only closing syntax the tear cut off
   * (whitespace or NULs after it), or trailing bytes after a complete document, or a BOM before it. A lossless
   * candidate is ranked with the intact generations under plain `repair` (named `salvage:<file>`).
   */
  lossless: z.boolean(),
})
export type SalvageReport = Shape<typeof SalvageSchema>

/**
 * For a torn generation: which turn's state the interrupted save was writing, as far as the bytes tell.
 * `same-as`: the surviving bytes are the start of another, intact generation (`sameAs`; for a NUL-padded file,
 * one of exactly its size), so the save wrote that state; `prompts`: the last prompt in the surviving bytes is
 * transcript turn `turns[0]` and the transcript's newest turn is `turns[1]`; `complete`: the document itself is
 * complete (only bytes around it are damage) and covers `turns[0]`; `unknown`: it cannot tell (`note` says why).
 */
const TornSaveSchema = z.looseObject({
  basis: z.enum(['same-as', 'prompts', 'complete', 'unknown']),
  /** `[first, last]` transcript turns the save was of (equal when known exactly); null when unknown. */
  turns: z.tuple([count(), count()]).nullable(),
  sameAs: z.string().nullable(),
  note: z.string().nullable(),
})
export type TornSave = Shape<typeof TornSaveSchema>

/**
 * How much agent context one generation holds, measured against the transcript (chat-file formats: prompts
 * of the state's message history matched with transcript turns).
 */
const MeasureSchema = z.looseObject({
  /** N: 1-based index of the latest transcript turn matched by a prompt; own prompt count when M is null. */
  turns: count(),
  /** The generation's own prompt count. */
  prompts: count(),
  /** `sentAt` of the newest prompt (ms since epoch), null when no prompt carries one. */
  newestPromptAt: z.number().nullable(),
  /** Length of the message history the model sees. */
  historyLength: count(),
  /** Prompts that match no transcript turn. */
  unmatchedPrompts: count(),
  /** Unmatched prompts that come before the first matched one (older than the transcript's first turn). */
  unmatchedBeforeFirst: count(),
  /** 1-based index of the earliest transcript turn matched, null when none. */
  firstMatchedTurn: z.number().int().positive().nullable(),
  /** The state's trace session id, null when absent. */
  traceSessionId: z.string().nullable(),
  /** True when the history ends in the interruption note (the last turn is partial). */
  interrupted: z.boolean(),
  // Session logs (JSON lines). Counts over the complete records of the file.
  /** User turns in the file as written (real prompts, not tool results or injected context). */
  userTurns: count().optional(),
  /** Assistant messages. */
  assistantMessages: count().optional(),
  /** Tool calls. */
  toolCalls: count().optional(),
  /** Tool calls with a result in the file. */
  toolCallsWithResult: count().optional(),
  /** Tool calls without a result in the file (open). */
  toolCallsOpen: count().optional(),
  /** Compactions. */
  compactions: count().optional(),
  /** Latest record `timestamp`, ms since epoch; null when no record carries one. */
  lastActivityAt: z.number().nullable().optional(),
  /** Complete records in the file. */
  records: count().optional(),
  /** Records the agent's loader reaches. */
  reachableRecords: count().optional(),
})
export type ContextMeasure = Shape<typeof MeasureSchema>

/**
 * Line-level facts of a JSONL session log: LF-separated lines, a single CR before the LF part of the
 * line ending. Counts are of physical lines (the empty piece after a final LF is not a line).
 */
const LineCountsSchema = z.looseObject({
  total: count(),
  /** Lines that are exactly one complete record. */
  intact: count(),
  /** Whitespace-only lines (skipped by the agents' readers). */
  blank: count(),
  /** Lines with at least one reason. */
  damaged: count(),
  /** Complete records found, including those inside damaged lines that a repair keeps. */
  records: count(),
  /** Damaged lines per reason code. */
  byReason: z.partialRecord(z.enum(REASONS), z.number().int().positive()),
  /** The first damaged lines (at most 20): 1-based line number, byte offset and length, reasons. */
  firstDamaged: z.array(
    z.looseObject({
      line: z.number().int().positive(),
      offset: count(),
      length: count(),
      reasons: z.array(z.enum(REASONS)),
    }),
  ),
})
export type LineCounts = Shape<typeof LineCountsSchema>

/**
 * One file of a chat dir (or one state copy embedded in a file), with its verdict.
 * `file` is the name relative to the chat dir; embedded copies are `<file>#<id>`.
 */
export const GenerationSchema = z.looseObject({
  file: z.string(),
  role: z.enum(ROLES),
  /** null for role `other` (never classified). */
  class: z.enum(CLASSES).nullable(),
  reasons: z.array(z.enum(REASONS)),
  /** Size in bytes; 0 when missing. */
  bytes: count(),
  /** Modification time in ms since epoch (fractional as the OS gives it); null when missing. */
  mtimeMs: z.number().nullable(),
  /** sha256 of the bytes, lower-case hex; null when missing or not read. */
  sha256: sha256().nullable(),
  /** N for intact context generations, null otherwise. */
  turns: count().nullable(),
  damage: DamageSchema.optional(),
  /** What a salvage of this torn generation would recover; absent when nothing is salvageable. */
  salvage: SalvageSchema.optional(),
  /** For a torn context generation: the turn the interrupted save was writing (inspect's account). */
  save: TornSaveSchema.optional(),
  measure: MeasureSchema.optional(),
  /** JSONL session logs only: per-line counts and reasons. */
  lines: LineCountsSchema.optional(),
  /**
   * (`scan --quick` only) True when the verdict was made from the whole file; false when only its ends were
   * read (a file larger than the head and tail windows): `intact` then means only that its ends look whole.
   */
  verified: z.boolean().optional(),
})
export type Generation = Shape<typeof GenerationSchema>

/** Where a usable candidate ended up in the ranking, and why it lost (null for the winner). */
export const RankEntrySchema = z.looseObject({
  file: z.string(),
  rank: z.number().int().positive(),
  turns: count(),
  lostBecause: z.string().nullable(),
})
export type RankEntry = Shape<typeof RankEntrySchema>

/** One byte change of a JSONL repair: where, what kind, how many bytes. Never content. */
const LineChangeSchema = z.looseObject({
  /** `drop-torn-tail`, `strip-nul`, `strip-bom`, `split-line`, `rejoin-lines`, `drop-line`, `relink-parent`, `set-ordinal`, `add-newline`, `drop-trailing`. */
  kind: z.string(),
  /** 1-based line number in the original file. */
  line: z.number().int().positive(),
  /** Byte offset of the line in the original file. */
  offset: count(),
  /** Bytes of the original line (with its line ending); for `rejoin-lines`, of every line joined. */
  length: count(),
  reasons: z.array(z.string()),
  bytesRemoved: count(),
  /** Bytes added (`rejoin-lines`: the JSON escapes of the raw line breaks; `set-ordinal`: the member inserted). */
  bytesAdded: count().optional(),
  /** (`rejoin-lines`) How many physical lines became one record again. */
  linesJoined: z.number().int().positive().optional(),
  /** Complete records the line still holds after the change. */
  recordsKept: count(),
  /** sha256 of the original line's bytes (kept in the evidence folder). */
  sha256: sha256(),
  /** (`relink-parent`) The old and new parent ids (ids only). */
  relink: z.looseObject({from: z.string(), to: z.string()}).optional(),
  /** (`set-ordinal`) The `ordinal` given to a paginated Codex rollout's record that lacked it. */
  ordinal: count().optional(),
})
export type LineChangeReport = Shape<typeof LineChangeSchema>

/** An action as the report shows it. Names are relative to the chat dir. */
export const ActionSchema = z.looseObject({
  type: z.enum(ACTION_TYPES),
  /** The file (or labelled byte source) the bytes come from; null for `restore-mtime`. */
  from: z.string().nullable(),
  to: z.string(),
  /** sha256 of the bytes written (`restore`) or preserved (`preserve`); null for `restore-mtime`. */
  sha256: sha256().nullable(),
  /** Path of the evidence the action left (the preserved copy); null in a dry run or when none. */
  evidence: z.string().nullable(),
  /** (`restore` of salvaged bytes, `repair --salvage`) Members the tear cut off, each copied from a donor generation. */
  keysBorrowed: z.array(BorrowedKeySchema).optional(),
  /** (`rewrite`) Every byte change of the JSONL repair, in line order. */
  changes: z.array(LineChangeSchema).optional(),
  /** (`move`) Why the file leaves the tree: `damaged-session`, `damaged-message`, `damaged-part`, `parts-of-damaged-message`. */
  why: z.string().optional(),
})
export type ActionReport = Shape<typeof ActionSchema>

/**
 * How much agent context a session holds, counted over its readable messages and parts (peer-formats.md §1.9,
 * §6.2). Used by formats whose chats are sessions of messages and parts.
 */
export const SessionContextSchema = z.looseObject({
  /** Readable messages with `role: user`. */
  userTurns: count(),
  /** Readable messages with `role: assistant`. */
  assistantMessages: count(),
  /** Readable messages of any role. */
  messages: count(),
  /** Readable parts. */
  parts: count(),
  /** Tool parts whose `state.status` is `completed`. */
  toolCompleted: count(),
  /** Tool parts whose `state.status` is `pending` or `running` (the call never finished). */
  toolPending: count(),
  /** Tool parts whose `state.status` is `error`. */
  toolError: count(),
  /** Parts of type `compaction` (context before them is summarised). */
  compactionParts: count(),
})
export type SessionContext = Shape<typeof SessionContextSchema>

/** What a session of a store loses by a repair that moves files out of it. Ids and counts only. */
const TreeLossSchema = z.looseObject({
  /** Message ids whose file moves out (with all their parts). */
  messages: z.array(z.string()),
  /** Part ids that leave the session (moved, or orphaned already). */
  parts: z.array(z.string()),
  /** Whether the agent can list the session after the repair. */
  sessionListed: z.boolean(),
  /** The session's context before the repair (readable files) and after it (what the agent will load). */
  before: SessionContextSchema,
  after: SessionContextSchema,
})
export type TreeLossReport = Shape<typeof TreeLossSchema>

/** What a repair did with one chat (see `REPAIR_OUTCOMES`). */
export const ChatRepairSchema = z.looseObject({
  outcome: z.enum(REPAIR_OUTCOMES),
  /** One line: why refused or failed, and what to do next; null otherwise. */
  message: z.string().nullable(),
  /** The evidence folder (home as `~`); null when nothing was preserved. */
  evidence: z.string().nullable(),
  /** The command that undoes this repair; null when nothing was written. */
  undo: z.string().nullable(),
  warnings: z.array(z.string()),
  /** The status a scan gives the chat once the planned actions are done. */
  statusAfter: z.enum(STATUSES).optional(),
  /** What the session loses by the repair (stores whose damaged files move out). */
  lost: TreeLossSchema.optional(),
})
export type ChatRepair = Shape<typeof ChatRepairSchema>

/** The transcript generation a repair would restore over a torn transcript. */
const TranscriptRestoreSchema = z.looseObject({
  /** The intact transcript temp to restore from, or `salvage:<transcript>` (its complete messages, closed). */
  from: z.string(),
  /** File it replaces (the transcript). */
  to: z.string(),
  /** Agent turns in it. */
  turns: count(),
  /** Messages in it. */
  messages: count(),
  bytes: count(),
  sha256: z.string().nullable(),
})
export type TranscriptRestore = Shape<typeof TranscriptRestoreSchema>

/** The amnesia diagnosis of a chat: what the agent's memory lacks and what could restore it. */
const AmnesiaSchema = z.looseObject({
  /** The amnesiac generation (the primary). */
  file: z.string(),
  /** How the memory came to lack turns (see `AMNESIA_PATTERNS`). */
  patterns: z.array(z.enum(AMNESIA_PATTERNS)),
  /** Transcript turns missing from its memory as `[first, last]` (1-based), null when none can be named. */
  missingTurns: z.tuple([z.number().int().positive(), z.number().int().positive()]).nullable(),
  /** The generation that holds the most of the missing turns, null when none. */
  source: z.string().nullable(),
  /** N of `source`. */
  sourceTurns: count().nullable(),
  /** Turns a restore of `source` would drop as `[first, last]`, null when none. */
  restoreDrops: z.tuple([z.number().int().positive(), z.number().int().positive()]).nullable(),
  /** The older trace session id that differs, for `trace-break`. */
  olderTraceSessionId: z.string().nullable(),
})
export type AmnesiaReport = Shape<typeof AmnesiaSchema>

/**
 * Candidates a scan located but did not measure because none could change the verdict: the primary is intact
 * and already covers every turn of a complete transcript, so no other generation can win and none is needed
 * for a finding. They are left out of `generations` and `ranking`; `inspect`, `scan --verbose` and `repair`
 * of the chat measure them.
 */
export const UnmeasuredSchema = z.looseObject({
  /** Which generations they are, in words (e.g. `the RunState copies embedded in chat-messages.json`). */
  what: z.string(),
  /** Why they were not measured, in words. */
  reason: z.string(),
  /**
   * Files of `generations[]` whose bytes were read and checked but not hashed (their `sha256` null): a hash
   * decides no verdict, and a plain scan skips it for the file holding the candidates it left out (the bulk of
   * the chat's bytes). Absent when every file read is hashed.
   */
  unhashed: z.array(z.string()).optional(),
})
export type Unmeasured = Shape<typeof UnmeasuredSchema>

/**
 * A turn whose final answer is gone because the log was cut inside it: its prompt and the records before the
 * cut survive. The turn is not counted in N.
 */
const LostAnswerSchema = z.looseObject({
  /** The turn (1-based): the last turn the winner reaches. */
  turn: z.number().int().positive(),
  /** The first words of its prompt (whitespace collapsed, at most 60 characters). */
  prompt: z.string(),
  /** Why the turn is unanswered in what survives, in words. */
  why: z.string(),
  /** The generation that was cut, and the 1-based line and byte offset of the cut record. */
  file: z.string(),
  line: z.number().int().positive(),
  offset: count(),
})
export type LostAnswer = Shape<typeof LostAnswerSchema>

/** The diagnosis of one chat. */
export const ChatReportSchema = z.looseObject({
  /** Absolute path of the chat dir, the user's home written as `~`. */
  path: z.string(),
  format: z.string(),
  /** Chat id (e.g. the chat dir's name). */
  id: z.string(),
  status: z.enum(STATUSES),
  /** File name of the best usable generation; null only when unrecoverable. */
  winner: z.string().nullable(),
  /** M: agent turns in the transcript; null when the transcript is missing or not intact. */
  transcriptTurns: count().nullable(),
  /** N of the winner; null only when unrecoverable. */
  contextTurns: count().nullable(),
  findings: z.array(FindingSchema),
  generations: z.array(GenerationSchema),
  ranking: z.array(RankEntrySchema),
  /** Set when a scan skipped candidates that could not change the verdict (absent when every one was measured). */
  unmeasured: UnmeasuredSchema.optional(),
  /** (`repair`) The chat's actions: planned (dry run) or executed. */
  actions: z.array(ActionSchema).optional(),
  /** (`repair`) What the repair did with the chat. */
  repair: ChatRepairSchema.optional(),
  /** Context counts of a session; absent for formats that measure generations instead. */
  context: SessionContextSchema.optional(),
  /** Set when the transcript is torn and an intact transcript temp can replace it. */
  transcriptRestore: TranscriptRestoreSchema.optional(),
  /** Set when the agent's memory is amnesiac (status `degraded`, or a placeholder primary). */
  amnesia: AmnesiaSchema.optional(),
  /** Set when the log was cut inside the winner's last turn: that turn's final answer is lost (not counted in N). */
  lostAnswer: LostAnswerSchema.optional(),
  /**
   * The turns (1-based, in the order of the transcript's prompts) whose prompt only a damaged line of the winner
   * still shows: its repair drops them, so they are the turns of M the agent lacks. Absent when none.
   */
  droppedTurns: z.array(z.number().int().positive()).optional(),
  /** `check`: the bundle (archive) the chat was read from, home as `~`; absent for chat dirs on disk. */
  bundle: z.string().optional(),
  /**
   * (`scan --quick` only) False when the chat's status rests on a file read only at its ends (a `healthy`
   * primary, or a `repairable` chat's winner, whose ends look whole); true otherwise.
   */
  verified: z.boolean().optional(),
})
export type ChatReport = Shape<typeof ChatReportSchema>

/** Counts per chat status, plus skipped dirs. */
export const SummarySchema = z.looseObject({
  chats: count(),
  healthy: count(),
  repairable: count(),
  unrecoverable: count(),
  degraded: count(),
  skipped: count(),
})
export type Summary = Shape<typeof SummarySchema>

/** A path or file that could not be read. Sets exit bit 8. */
const OperationalErrorSchema = z.looseObject({
  path: z.string(),
  message: z.string(),
  /** `check`: the finding id of the problem (e.g. `archive-entry-escapes`), for CI formats. */
  id: z.string().optional(),
})
export type OperationalError = Shape<typeof OperationalErrorSchema>

/** A folder that looked like a chat dir but holds nothing to diagnose. */
const SkippedSchema = z.looseObject({
  path: z.string(),
  reason: z.string(),
  /** The agent whose store, folder or file this is, when chatdoctor recognises it but does not diagnose it yet. */
  agent: z.string().optional(),
  /** (with `agent`) What was found, in words: `store`, `chats folder`, `task folder`, `config file`. */
  what: z.string().optional(),
})
export type Skipped = Shape<typeof SkippedSchema>

/** (`find`) One matching prompt or answer. */
const FindMatchSchema = z.looseObject({
  /** The file, relative to the chat's folder. */
  file: z.string(),
  /** 1-based line of a JSON-lines file; null for a file that is one document. */
  line: z.number().int().min(1).nullable(),
  /** Who wrote it; null when it was read from a damaged part of the file (its role unknown). */
  role: z.enum(['prompt', 'answer']).nullable(),
  /** The matching line of the text, shortened around the match (`…`), control characters escaped as `\uNNNN`. */
  text: z.string(),
})

/** (`find`) A session with a match. */
const FoundSessionSchema = z.looseObject({
  /** The agent's name as people write it. */
  agent: z.string(),
  format: z.string(),
  /** The id the agent's resume command takes. */
  sessionId: z.string(),
  /** The project folder (the agent's working directory), home as `~`; null when unknown. */
  project: z.string().nullable(),
  /** Its last activity (what the agent's picker shows), ISO 8601; null when unknown. */
  lastTime: z.string().nullable(),
  /** The chat as discovery names it (its folder or session file), home as `~`. */
  path: z.string(),
  /** The agent's own command that opens it, and the folder to run it from; `command` is both as one shell line. Null when the agent has none. */
  resume: z.looseObject({argv: z.array(z.string()), cwd: z.string().nullable(), command: z.string()}).nullable(),
  /** What to do to open it, in words, when a command alone does not say it. */
  howToOpen: z.string().nullable(),
  /** Why the agent's own picker (or history list) does not show it; null when it does. */
  hiddenFromPicker: z.string().nullable(),
  /** Why a searched file of the session is damaged (only what was readable was searched). */
  damaged: z.array(z.string()),
  matches: z.array(FindMatchSchema),
  /** Matches beyond those listed. */
  moreMatches: count(),
})

/** The whole report of one run, as printed by `--json`. */
export const ReportSchema = z.looseObject({
  schemaVersion: z.literal(SCHEMA_VERSION),
  command: z.string(),
  chatdoctorVersion: z.string(),
  exitCode: z.number().int().min(0).max(31),
  /** Present only on a usage error (exit 16). */
  error: z.string().optional(),
  /**
   * Present only for `scan --quick`: each file larger than `headBytes` + `tailBytes` was judged from its first
   * `headBytes` and last `tailBytes` bytes (smaller ones are read and classified whole), and `notDetected` says
   * what that cannot see (damage in the middle of a file). `unverified`: chats whose status rests on such a file
   * (`verified: false`); they set exit bit 8 unless `trustEnds` (`--trust-ends`).
   */
  quick: z
    .looseObject({
      headBytes: count(),
      tailBytes: count(),
      notDetected: z.string(),
      trustEnds: z.boolean(),
      unverified: count(),
    })
    .optional(),
  summary: SummarySchema,
  errors: z.array(OperationalErrorSchema),
  skipped: z.array(SkippedSchema),
  chats: z.array(ChatReportSchema),
  /**
   * (`scan`, `repair`) Where the search started, home as `~`: each PATH given, or every agent's default folder
   * (`format` names the agent; null for a PATH), and whether anything was there.
   */
  roots: z.array(z.looseObject({path: z.string(), format: z.string().nullable(), present: z.boolean()})).optional(),
  /** (`repair`) The id of this repair (`undo <repairId>`); null in a dry run or when nothing was written. */
  repairId: z.string().nullable().optional(),
  /** (`repair`) True for `--dry-run`. */
  dryRun: z.boolean().optional(),
  /** (`repair`) True when Ctrl-C (or SIGTERM, SIGHUP) stopped the run between chats. */
  interrupted: z.boolean().optional(),
  /** (`undo --list`) Past repairs. */
  repairs: z.array(z.looseObject({repairId: z.string(), time: z.string(), chats: z.array(z.string()), undone: z.boolean()})).optional(),
  /** (`undo`) What undo did with each file. */
  undone: z.array(z.looseObject({chat: z.string(), file: z.string(), outcome: z.string(), sha256: z.string().nullable()})).optional(),
  /** (`find`) What was searched for: the words (all in one prompt or answer, any case), or the regular expression. */
  query: z.looseObject({words: z.array(z.string()), regex: z.string().nullable()}).optional(),
  /** (`find`) The sessions with a match, in the order they were found. */
  sessions: z.array(FoundSessionSchema).optional(),
  /**
   * (`find`) How much was searched: chats, files and bytes; `damaged`, the files searched only in part (damaged:
   * only what is readable in them was searched; or too large to search), matched or not, and `damagedFiles`
   * each of them (home as `~`) with why (at most 1000 listed).
   */
  searched: z
    .looseObject({
      chats: count(),
      files: count(),
      bytes: count(),
      damaged: count(),
      damagedFiles: z.array(z.looseObject({path: z.string(), why: z.string()})),
    })
    .optional(),
  /** (`undo`) True when nothing needed undoing (already undone, or the repair replaced nothing): no file of the chat was written. */
  alreadyUndone: z.boolean().optional(),
  /** (`undo`) chatdoctor's own leftovers of the repair that undo removed (its temps, evidence of nothing replaced): chat dir, name in it, bytes. */
  leftoversRemoved: z.array(z.looseObject({chat: z.string(), path: z.string(), bytes: count()})).optional(),
})
export type Report = Shape<typeof ReportSchema>

/** The verdict of the classifier on one file's bytes (internal: not part of the report). */
export interface Classification {
  class: Exclude<FileClass, 'missing'>
  reasons: Reason[]
  /** Where the damage starts, when there is damage to locate. */
  damage?: DamageLocation
  /** The parsed value, only when the bytes parse strictly (classes `intact` and `contextless`). */
  value?: unknown
}
