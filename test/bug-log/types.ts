/**
 * The shape of the bug-log entries: one per public report of `shared/docs/bug-log.md` that applies to an agent
 * format, with the code that builds its damage from copies of real files and the exact verdict chatdoctor must
 * give. `test/bug-log.test.ts` runs every entry through the built CLI; `scripts/write-bug-log-verdicts.ts`
 * writes `docs/bug-log-verdicts.md` from the same entries.
 *
 * Each agent's entries live in their own file (`test/bug-log/<agent>.ts`) and are registered in `index.ts`.
 */
import type {ChatStatus, FileClass, Reason, RepairOutcome} from '../../src/lib/model/report.js'

/** A file's class and reasons: `intact`, `truncated unexpected-end`, `other` (role `other`: never classified). */
export type FileVerdict = string

/** The verdict on one chat of an entry's tree. */
export interface ChatVerdict {
  /** The chat's id as the report gives it (Codebuff: the chat dir's name). */
  chat: string
  status: ChatStatus
  winner: string | null
  /** `[N, M]`: the winner's turns and the transcript's (null where the report says null). */
  turns: [number | null, number | null]
  /**
   * Class and reasons of every generation, by file name (for Codebuff: every generation but the transcript's
   * embedded copies `chat-messages.json#…`, which `embeddedCopies` counts).
   */
  files: Record<string, FileVerdict>
  /** How many `<transcript>#<id>` embedded copies the report lists (checked when given). */
  embeddedCopies?: number
  /** Finding ids the report must hold (others may be there too). */
  findings?: string[]
  /** Finding ids the report must not hold. */
  absent?: string[]
  /** What the default human outputs (`scan`, `inspect`, `repair --dry-run` of the chat) must each say. */
  humanSays?: RegExp[]
  /** What a finding must say, by id: matched against `<its file>: <its message>` of some finding of that id. */
  said?: Record<string, RegExp>
  /** Facts `inspect`'s plain-language account must state (each matched against it). */
  account?: RegExp[]
  /** The salvage a torn file's generation must report: lossless or not, messages kept, turns. */
  salvage?: Record<string, {lossless: boolean; messages?: number; turns?: number | null; candidate?: boolean}>
  /** The transcript restore the report names (`from`), or null for none. */
  transcriptRestore?: string | null
  /** The amnesia patterns the report gives (checked when given). */
  amnesia?: string[]
}

/** One restore a repair makes: the file written and the generation its bytes come from. */
export interface RestoreVerdict {
  to: string
  from: string
  /** The exact bytes the restore must write, computed from the files as they were before the repair. */
  bytes?: (before: (name: string) => Buffer) => Buffer
}

/** What `repair` (plain, `-y`) does with the entry's chat, and what a scan says afterwards. */
export interface RepairVerdict {
  /** The chat the repair is about (its id). */
  chat: string
  outcome: RepairOutcome
  restores: RestoreVerdict[]
  exitCode: number
  /** The scan after the repair. */
  after: {status: ChatStatus; winner: string | null; turns: [number | null, number | null]; exitCode: number}
}

/** One bug-log report reproduced on one agent's real files. */
export interface BugLogEntry {
  /** The report id, e.g. `B16`. */
  id: string
  /** The test's name after the id: the test is named `<id> <title>`. */
  title: string
  /** Agent name as the table shows it, e.g. `Codebuff`. */
  agent: string
  /** The report's `format`. */
  format: string
  /** The damage, in one line (the agent's analog of the report's damage shape). */
  damage: string
  /** Builds the damaged tree under `root` (also the run's HOME) from copies of real files; returns the PATH to scan. */
  build(root: string): string
  /**
   * Environment every run of the entry gets beside its HOME (e.g. `CHATDOCTOR_STREAM_THRESHOLD` lowered, so a
   * file takes the path a file over V8's longest string takes); the damage line says so.
   */
  env?: Record<string, string>
  expect: {
    /** Exit status of `scan`. */
    exitCode: number
    chats: ChatVerdict[]
    /** Chats `scan` lists as skipped, by the last part of their path. */
    skipped?: string[]
    /** What plain `repair` does; null when it writes nothing (then `repair` must write nothing). */
    repair: RepairVerdict | null
    /**
     * When given, `bundle --redact` must refuse the tree with an error matching this (a store whose redacted
     * copy could not keep its verdict), write nothing, and plain `bundle` must take it; otherwise `bundle --redact` must succeed.
     */
    redactRefused?: RegExp
    /** True when no file of the tree's chats is on disk: `bundle`, plain or redacted, writes nothing (exit 8). */
    nothingToBundle?: boolean
  }
}

/** A report with no entry for an agent, and the sentence saying why. */
export interface NoEntry {
  id: string
  /** `not-applicable`: the damage shape cannot occur in this agent's files; `not-covered`: it can, but no entry tests it yet. */
  kind: 'not-applicable' | 'not-covered'
  reason: string
}

/** One agent's part of the bug-log table. */
export interface BugLogPart {
  agent: string
  /** A paragraph put above the part's table (what "analog" means for this agent, the base fixture). */
  intro: string
  entries: BugLogEntry[]
  /** Reports with no entry, each with its reason. */
  noEntry: NoEntry[]
  /** True when the part accounts for every report of the bug log (an entry or a reason each); checked by the test. */
  complete: boolean
}

/** Parses a `FileVerdict` string into class and reasons (`other` is class null). */
export function parseFileVerdict(v: FileVerdict): {class: FileClass | null; reasons: Reason[]} {
  const [cls, ...reasons] = v.split(' ')
  return {class: cls === 'other' ? null : (cls as FileClass), reasons: reasons as Reason[]}
}

/** A report's class and reasons as a `FileVerdict` string. */
export function fileVerdictOf(g: {class: string | null; reasons: readonly string[]}): FileVerdict {
  return [g.class ?? 'other', ...g.reasons].join(' ')
}
