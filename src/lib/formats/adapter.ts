/**
 * The boundary every agent format sits behind. The core (discover, inventory, rank, plan, render) knows
 * nothing of file names or schemas; an adapter knows nothing of the terminal or of how files are read.
 */
import type {Redactor} from '../bundle/redact.js'
import type {ChatReport, Classification, OperationalError, Role, Skipped} from '../model.js'
import type {SalvagedGeneration} from '../salvage/index.js'
import type {ChatPlan, PlanOptions} from '../plan.js'
import type {ScannedChat} from '../scan.js'

/** One entry directly inside a chat dir, as the inventory saw it (lstat, never following links). */
export interface FileEntry {
  /** Name relative to the chat dir. */
  name: string
  kind: 'file' | 'directory' | 'symlink' | 'other'
  /** Size in bytes (from lstat). */
  bytes: number
  /** Modification time, ms since epoch, fractional as the OS gives it. */
  mtimeMs: number
  /** The file's bytes, when the adapter asked for them (`wantsContent`) and they could be read. */
  data?: Buffer
  /** Why the bytes could not be read (e.g. `EACCES: permission denied`), when they could not. */
  readError?: string
  /**
   * For a file above the inventory's streaming threshold: its syntax verdict and sha256, made by
   * streaming it in bounded memory; `data` is then absent. Never `intact` (an intact file that large cannot be
   * parsed for measuring and gets `readError` instead).
   */
  streamed?: {classification: Classification; sha256: string}
}

/**
 * One chat as discovery found it. Codebuff keeps one chat per folder (`files` undefined: every entry of `dir`
 * belongs to it); agents with one-file sessions (Claude Code, Codex) keep many chats per folder, each a few
 * named files (the session file and its sibling generations).
 */
export interface ChatUnit {
  /** Absolute real path of the folder holding the chat's files. */
  dir: string
  /** Absolute path that names the chat in reports: the chat dir, or the session file. */
  path: string
  /** Names (relative to `dir`) of the entries that belong to this chat; undefined for all of them. */
  files?: string[]
  /**
   * Store formats only (see `FormatAdapter.listStore`): relative paths below `dir`, possibly in subfolders
   * (`storage/part/msg_…/prt_….json`), of the files that belong to this chat. When set, the inventory reads
   * exactly these (a listed path that is gone is left out) instead of listing `dir`; `files` is ignored.
   */
  members?: string[]
  /**
   * Store formats only: adapter-private plain data gathered while listing the store (e.g. row counts read from
   * a private copy of a database, whether a session also exists in the database), handed back to `diagnose`
   * in `snapshot.unit`. The core never looks inside.
   */
  facts?: unknown
  /**
   * The names discovery's listing of `dir` returned, when it listed that folder to find this chat: the
   * inventory uses them instead of listing the folder a second time (one listing per chat). A name
   * gone by the time it is read is left out, as with a fresh listing.
   */
  listing?: string[]
}

/** What an adapter sees in one folder: the chats it holds, and whether discovery should search below it. */
export interface FolderChats {
  chats: ChatUnit[]
  /** True to keep searching the folder's subfolders (e.g. a Claude Code project dir with subagent folders). */
  descend: boolean
  /**
   * True when the folder is a store that spreads each chat over many subfolders (OpenCode's data dir: a
   * session file, a message folder, one part folder per message, or rows of a database). Discovery then asks
   * the adapter's `listStore` for the chats, instead of taking `chats`.
   */
  store?: boolean
}

/** The chats of a store, as `listStore` found them. */
export interface StoreListing {
  chats: ChatUnit[]
  /** Folders or files of the store that could not be read (exit bit 8). */
  errors: OperationalError[]
  /** Folders of the store left out on purpose, with why (a symbolic link, a name that is not UTF-8). */
  skipped?: Skipped[]
}

/** Everything the inventory read for one chat: the only input an adapter's diagnosis gets. */
export interface ChatDirSnapshot {
  /** Absolute real path of the folder holding the chat. */
  dir: string
  /** The chat as discovery found it. */
  unit: ChatUnit
  /** The folder's own mtime, ms since epoch. */
  dirMtimeMs: number
  /** The chat's entries (all of `dir`'s for a chat-dir format), sorted by name. */
  files: FileEntry[]
}

/** What an adapter says of a chat dir: a diagnosis, or a reason it holds nothing to diagnose. */
export type Diagnosis = {kind: 'chat'; report: Omit<ChatReport, 'path'>} | {kind: 'skipped'; reason: string}

/** An agent's on-disk format. */
export interface FormatAdapter {
  /** Format id as it appears in the JSON report (`format`), e.g. `codebuff`. */
  readonly name: string
  /**
   * Folders to search when no PATH is given, for a given home dir and environment. Not all need exist.
   */
  defaultRoots(home: string, env: NodeJS.ProcessEnv): string[]
  /**
   * The chats of this format held directly in a folder, from the names of its entries and the folder's own
   * path (some layouts are recognised by their parent, e.g. Codebuff's `chats/<id>/`); null when the folder
   * holds none. Must not touch the disk.
   */
  chatsIn(dir: string, names: string[]): FolderChats | null
  /** Whether the inventory must read a file's bytes (otherwise it only stats it). */
  wantsContent(name: string): boolean
  /**
   * The role of a file by its name, for `scan --quick` (which reads only the ends of files and never calls
   * `diagnose`). Optional: without it, quick mode classifies no file of this format.
   */
  roleOf?(name: string): Role
  /** The whole diagnosis of one chat dir: classify, measure, rank, status, findings. Pure; never throws. */
  diagnose(snapshot: ChatDirSnapshot): Diagnosis
  /**
   * (repair) The pid of the process that wrote a leftover temp, from its name; null when the name carries
   * none. With `agentProcess`, lets `repair` refuse a chat whose agent is still running.
   */
  tempWriterPid?(name: string): number | null
  /** (repair) Matches an argv element of the agent's own process (e.g. /codebuff|freebuff/i). */
  readonly agentProcess?: RegExp
  /**
   * Optional, for store formats (`chatsIn` answered `store: true`): lists the chats of the store at `dir` with
   * their `members` (and `facts`). Read-only; may read directory listings and the few file bytes needed to
   * attribute files to chats, and may open a private copy of a database (never the original). Never throws.
   */
  listStore?(dir: string): Promise<StoreListing>
  /**
   * The exact bytes of one generation named as in the report (a file, or an embedded copy
   * `<file>#<id>`), a view into the snapshot; null when not available. What a restore writes.
   */
  generationBytes?(snapshot: ChatDirSnapshot, file: string): Buffer | null
  /** Salvaged generations of the chat's torn files, with their exact bytes (`repair --salvage`). */
  salvage?(snapshot: ChatDirSnapshot, report: Pick<ChatReport, 'generations'>): SalvagedGeneration[]
  /**
   * The repair plan of one chat of this format (pure: no disk), for formats whose repair is not
   * "restore the winner as the primary" (Codebuff's, in `plan.ts`). `plan.ts` dispatches by the report's
   * `format` (a chat the `claude-code` adapter found may be reported as `codex`). The actions carry their
   * exact bytes (`data`) or name the files they move; `apply.ts` executes them.
   */
  planRepair?(chat: ScannedChat, opts: PlanOptions): ChatPlan
  /**
   * (repair) Why writing this chat right now is refused outright, from the agent's own signals that it is
   * running (its lock files, its processes); null when none. Read-only. `apply` asks right before it takes the
   * chat's lock and again once it holds it; `--force` does not override it.
   */
  liveRefusal?(chat: ScannedChat): string | null
  /**
   * (inspect) The plain-language account of what most likely happened to the chat, for formats whose story
   * is not Codebuff's generations. Pure; never quotes file contents.
   */
  inspectAccount?(scanned: Pick<ScannedChat, 'report' | 'snapshot'>): string
  /**
   * (bundle --redact) The redacted bytes of one file of a chat (`name` relative to the chat dir, `role` from the
   * report), or null when the file cannot be redacted structurally (it is then left out of the bundle).
   */
  redactFile?(name: string, role: Role, data: Buffer, r: Redactor): Buffer | null
}
