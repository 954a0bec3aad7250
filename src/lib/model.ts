/**
 * The data model every step of chatdoctor passes along:
 * discover → inventory → classify → measure → rank → (plan → apply) → render.
 *
 * Plain data only. The zod schemas below describe the public `--json` report (schemaVersion 1);
 * `schemas/report.schema.json` is generated from them (`npm run schema`) and a test keeps the two equal.
 * Names in the report are a stable contract: fields may be added, never renamed.
 */
import {z} from 'zod'

/** Version of the `--json` report layout. Bumped only on an incompatible change. */
export const SCHEMA_VERSION = 1

/**
 * What part a file plays in a chat dir.
 * - `primary`: the state file the agent loads (Codebuff: `run-state.json`).
 * - `backup`: the previous generation rotated aside (`run-state.json.bak`).
 * - `temp`: a leftover temp of an interrupted atomic write (`run-state.json.<pid>[.<uuid>].tmp`).
 * - `embedded`: a state copy stored inside another file (Codebuff: `metadata.runState` of a transcript message).
 * - `transcript`, `transcript-temp`: the transcript the user sees and its leftover temps.
 * - `meta`: a sidecar summary (`chat-meta.json`).
 * - `other`: anything else; never classified, never touched.
 */
export const ROLES = ['primary', 'backup', 'temp', 'embedded', 'transcript', 'transcript-temp', 'meta', 'other'] as const
export type Role = (typeof ROLES)[number]

/** Roles whose files are generations of the agent context (candidates for the winner). */
export const CONTEXT_ROLES: readonly Role[] = ['primary', 'backup', 'temp', 'embedded']

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
 * Access: `unreadable` (the file could not be read: permission, I/O error).
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
] as const
export type Reason = (typeof REASONS)[number]

export const SEVERITIES = ['error', 'warning', 'info'] as const
export type Severity = (typeof SEVERITIES)[number]

/** Chat verdicts. `degraded` is reserved for amnesia detection (a later issue). */
export const STATUSES = ['healthy', 'repairable', 'unrecoverable'] as const
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
    })
    .optional(),
})

export const RankEntrySchema = z.looseObject({
  file: z.string(),
  rank: z.number().int().positive(),
  turns: z.number().int().nonnegative(),
  lostBecause: z.string().nullable(),
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
})

export const SummarySchema = z.looseObject({
  chats: z.number().int().nonnegative(),
  healthy: z.number().int().nonnegative(),
  repairable: z.number().int().nonnegative(),
  unrecoverable: z.number().int().nonnegative(),
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
    })
    .optional(),
  summary: SummarySchema,
  errors: z.array(z.looseObject({path: z.string(), message: z.string()})),
  skipped: z.array(z.looseObject({path: z.string(), reason: z.string()})),
  chats: z.array(ChatReportSchema),
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
   * Present only for `scan --quick`: each file was judged from its first `headBytes` and last `tailBytes`
   * bytes, and `notDetected` says what that cannot see (damage in the middle of a file).
   */
  quick?: {headBytes: number; tailBytes: number; notDetected: string}
  summary: Summary
  errors: OperationalError[]
  skipped: Skipped[]
  chats: ChatReport[]
}
