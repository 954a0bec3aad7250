/**
 * The boundary every agent format sits behind. The core (discover, inventory, rank, plan, render) knows
 * nothing of file names or schemas; an adapter knows nothing of the terminal or of how files are read.
 */
import type {FindingKindSpec} from './findings.js'
import type {AgentInspection, TearLocation} from './inspect.js'
import type {ActionType, BorrowedKeyReport, ChatReport, ChatStatus, Classification, Finding, LineChangeReport, OperationalError, Role, Skipped, TreeLossReport} from './report.js'
import type {SnapshotCandidate, SnapshotCaps, SnapshotCapture, SnapshotHeader, SnapshotRef} from './snapshot.js'

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
  /**
   * For an intact JSON file the format measures without parsing it whole (`FormatAdapter.streamValue`; files
   * above the inventory's value threshold): the measurable value the spec built, and the sha256 of its bytes.
   * `data` holds the bytes too when they were read whole (below the streaming threshold); above it they are
   * not held (a restore copies the file from disk in chunks, `PlannedAction.copyFrom`). `escapes`: a string
   * in it holds a `\u` escape of something other than a control character (without one, no string in it can
   * hold a lone surrogate: valid UTF-8 cannot encode one).
   */
  large?: {value: unknown; sha256: string; escapes: boolean}
  /**
   * For a file above the inventory's log-streaming threshold that its adapter reads itself, a chunk at a time
   * (`FormatAdapter.streams`): its absolute path, set instead of `data` (the file is never held whole).
   */
  path?: string
}

/**
 * How to build the measurable value of a large JSON document while checking it, without parsing it whole: the
 * top object's members parsed one by one, descending along `spine` to an array whose elements are handed to
 * `element` one at a time (`classify/fast.ts`).
 */
export interface StreamValueSpec {
  /** Keys from the top object down to the array read element by element. */
  spine: readonly string[]
  /**
   * The value kept for one element of the spine array, from its bytes (valid JSON; the buffer may be reused
   * after the call, so keep no view of it). `escapes`: its strings hold a `\u` escape of something other than
   * a control character (a character JSON.stringify writes as itself, or half of a surrogate pair); without
   * one, every string in it reads as its bytes do.
   */
  element(bytes: Buffer, escapes: boolean): unknown
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
  /**
   * The format a bundle's manifest recorded for this chat, when `check` reads the chat back from a bundle: its
   * folder is then out of the place that told its format (e.g. the storage folder of the extension that wrote
   * it), and the adapter may take the format from here.
   */
  recordedFormat?: string
  /** True for an agent's index of its chats, as its adapter's `IndexHook.read` gave it. */
  index?: boolean
  /**
   * chatdoctor's stored snapshots of this chat (matched by the adapter's `snapshot.chatKey`), newest first: the
   * inventory decrypts them into `ChatDirSnapshot.snapshots`.
   */
  snapshots?: SnapshotRef[]
  /**
   * The times of chatdoctor's redacted snapshots of this chat, newest first (ranked only when asked for): a chat
   * that lost its context is told one exists, and a repair that restores one says it is redacted.
   */
  redactedSnapshots?: string[]
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
  /**
   * Only the verdict is asked for (a plain `scan`): the adapter may leave out candidates that cannot change the
   * winner, the status or a finding, and says so in the report's `unmeasured`. Absent or false: measure all
   * (`inspect`, `repair`, `scan --verbose`).
   */
  verdictOnly?: boolean
  /**
   * chatdoctor's stored snapshots of the chat, decrypted and checked (or rejected with why), newest first: an
   * adapter with `snapshot` support ranks each as a generation of role `snapshot` named `snapshot:<time>`.
   */
  snapshots?: SnapshotCandidate[]
}

/** What an adapter says of a chat dir: a diagnosis, or a reason it holds nothing to diagnose. */
export type Diagnosis = {kind: 'chat'; report: Omit<ChatReport, 'path'>} | {kind: 'skipped'; reason: string}

/**
 * What the recognition of an agent chatdoctor does not diagnose yet found in a folder: the thing, in words (`store`,
 * `chats folder`, `config file`), and what of the folder it is: the whole folder (nothing in it is searched
 * further, no adapter looks at it), or some of its entries by name (the rest of the folder is searched as usual).
 */
export interface UnsupportedFind {
  what: string
  claims: 'folder' | readonly string[]
  /** The agent's name when it is not the recognizer's own (one recognizer for several agents' shared layout). */
  agent?: string
}

/**
 * An agent chatdoctor finds but does not diagnose yet (`formats/unsupported/`): how its store is recognised, so
 * that a scan says what it found instead of nothing, and never takes its files for another agent's.
 */
export interface UnsupportedAgent {
  /** Id, e.g. `gemini-cli`. */
  readonly name: string
  /** The agent's name as people write it (`Gemini CLI`). */
  readonly displayName: string
  /** Its words, kept out of the core as an adapter's are (`FormatAdapter.vocabulary`). */
  readonly vocabulary: readonly string[]
  /** Where its stores live for a home dir and environment (folders or files); a default-roots scan looks at those that exist. */
  defaultRoots(home: string, env: NodeJS.ProcessEnv): string[]
  /** Home-relative paths through dot-folders to its stores, as `FormatAdapter.discoveryPaths`. */
  readonly discoveryPaths?: readonly string[]
  /** What of this agent a folder holds, from its path and its entries' names; null for nothing. Must not touch the disk. */
  recognize(dir: string, names: readonly string[]): UnsupportedFind | null
}

/** An agent's on-disk format. */
export interface FormatAdapter {
  /** Format id as it appears in the JSON report (`format`), e.g. `codebuff`. */
  readonly name: string
  /** The agent's name as people write it (`Claude Code`), for messages and `--help`. */
  readonly displayName: string
  /**
   * Further format ids this adapter's reports carry, when one adapter serves several agents that write alike
   * (each report names the agent that wrote the chat): `adapterByName` finds the adapter by these too, so the
   * planner, `inspect`, `bundle --redact` and `check` of a report reach it.
   */
  readonly formats?: readonly string[]
  /**
   * The words that are this agent's alone — its names, its file names, its record keys — which no code outside
   * `src/lib/formats/` may spell (`test/core-names.test.ts`). One lower-case word is matched as a whole word,
   * anything else as it is written.
   */
  readonly vocabulary: readonly string[]
  /** The finding kinds this format reports beyond the core's, joined into the closed list by the registry. */
  readonly findingKinds?: Readonly<Record<string, FindingKindSpec>>
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
  /**
   * Home-relative paths of the agent's roots that hold dot-folders (`.config/manicode*`, `.claude`): discovery
   * skips dot-folders except along these, and inside such a path's parent folders enters only the next step
   * of one of them. A trailing `*` matches any name starting with what comes before it.
   */
  readonly discoveryPaths?: readonly string[]
  /** Whether the inventory must read a file's bytes (otherwise it only stats it). */
  wantsContent(name: string): boolean
  /**
   * How to build the measurable value of a large file of this format without parsing it whole (its members
   * one by one, the elements of one array one at a time): for a file above the inventory's value threshold,
   * the inventory checks and builds it on one pass (streamed above the streaming threshold) and hands it over
   * as `FileEntry.large`. Undefined (or no such method) for files measured from their parsed value only.
   */
  streamValue?(name: string): StreamValueSpec | undefined
  /**
   * Whether the adapter reads this (wanted) file itself by streaming when it is larger than the inventory's
   * log-streaming threshold (`LOG_STREAM_THRESHOLD_BYTES`): the inventory then gives its `path`, not its bytes.
   */
  streams?(name: string): boolean
  /**
   * `scan --quick` (which reads only the ends of files and never calls `diagnose`): the role of a file by its
   * name, and the name a missing primary is reported under. Optional: without it, quick mode classifies no
   * file of this format.
   */
  readonly quick?: {
    roleOf(name: string): Role
    primary: string
    /**
     * Files of this `role` may hold copies of the agent context embedded in them (generations of role
     * `embedded`). `find` gets such a file's whole bytes (quick mode read it whole) and names the newest embedded
     * copy that holds agent context, as a generation is named; null when none does.
     */
    embedded?: {role: Role; find(file: string, bytes: Uint8Array): string | null}
  }
  /** The whole diagnosis of one chat dir: classify, measure, rank, status, findings. Pure; never throws. */
  diagnose(snapshot: ChatDirSnapshot): Diagnosis
  /** (repair) Matches an argv element of the agent's own process (e.g. /codebuff|freebuff/i), for the live check. */
  readonly agentProcess?: RegExp
  /**
   * (repair) Why the chat is live right now by the agent's own signals (a fresh lock it holds, a process of its
   * holding its store open), in words; empty when none. May read `/proc` and small entries near the chat; never
   * writes, never throws. `pipeline/apply.ts` checks it with the watched files before every write (`--force`
   * overrides).
   */
  liveReasons?(snapshot: ChatDirSnapshot): string[]
  /**
   * (repair) Why the chat's files must not be written right now whatever `--force` says, in words (e.g. a log
   * beside a database that SQLite would replay over the file written in its place); empty when none. Same rules
   * as `liveReasons`; `pipeline/apply.ts` checks it before the first write and again under the lock.
   */
  writeBlockers?(snapshot: ChatDirSnapshot): string[]
  /**
   * Optional, for store formats (`chatsIn` answered `store: true`): lists the chats of the store at `dir` with
   * their `members` (and `facts`). Read-only; may read directory listings and the few file bytes needed to
   * attribute files to chats, and may open a private copy of a database (never the original). Never throws.
   */
  listStore?(dir: string): Promise<StoreListing>
  /**
   * The repair plan of one chat of this format (pure: no disk). `pipeline/plan.ts` dispatches by the report's
   * `format` (a chat the `claude-code` adapter found may be reported as `codex`). The actions carry their
   * exact bytes (`data`) or name the files they move; `pipeline/apply.ts` executes them. Without it, chats of
   * this format get no actions.
   */
  planRepair?(chat: ScannedChat, opts: PlanOptions): ChatPlan
  /**
   * (`inspect`) The account of what most likely happened to one chat of this format, in plain language, and
   * for line-based formats its damaged lines and planned byte changes. `tears` are the damaged files the
   * inspection located. Pure; never message text or file contents. Without it the account is empty.
   */
  inspect?(chat: Pick<ScannedChat, 'report' | 'snapshot'>, tears: readonly TearLocation[]): AgentInspection
  /**
   * (`bundle --redact`) The chat's files with their content replaced by keyed-hash placeholders (`r`), damage
   * kept where it is, so the redacted chat diagnoses the same (the bundle checks that). Files that cannot be
   * redacted structurally are left out with why; `refused` when the chat cannot be redacted at all. Pure, but
   * for a database rewritten on a private copy in its own temp folder.
   * Without it, chats of this format cannot be redacted. `relist`: the redacted files are diagnosed again by
   * listing them as a store (`listStore` in a private folder), as `check` does, because the chat's diagnosis
   * comes from what the listing read rather than from its files' bytes.
   */
  redact?(files: readonly BundleFile[], report: ChatReport, r: Redactor): {files: BundleFile[]; omitted: Array<{path: string; reason: string}>; relist?: boolean} | {refused: string}
  /**
   * (`check`) Single-file documents of this format (e.g. an export of one session), found by name and content
   * in folders and archives, each diagnosed as a chat.
   */
  readonly documents?: DocumentKind
  /** (`check`) Whether an archive member's bytes are needed beyond `wantsContent` (e.g. a store's database). */
  archiveWants?(name: string): boolean
  /** What this adapter adds to the commands' `--help` (`cli/help.ts` joins the adapters' in registry order). */
  readonly help: AdapterHelp
  /** Phrases of this agent's that `render/` uses in human output. */
  readonly texts?: AdapterTexts
  /** (`bundle --session ID`) Writes one session of this format as a single document another install can import. */
  readonly sessionExport?: SessionExporter
  /**
   * (`scan`, `repair`) The agent's index or registry of its chats (a database, a config file listing sessions),
   * read as a chat of its own and held against the session files. Without it, nothing is said of indexes.
   */
  readonly indexes?: IndexHook
  /** (`snapshot`, `guard`) What a snapshot of this format's chats holds, when a chat is settled, and the agent's hook. */
  readonly snapshot?: SnapshotSupport
  /** (`find`) Where this agent's chats hold their prompts and answers, and how one of its sessions is resumed. */
  readonly find?: SessionFinder
}

/**
 * What `find` asks of an agent: which files of a chat hold its prompts and answers, the texts of one decoded
 * record, and the session a chat with a match is (its id, project, time, the agent's own command that resumes
 * it, and whether the agent's picker lists it). Pure except `session`, which may read small files near the
 * chat; nothing here writes or throws.
 */
export interface SessionFinder {
  /** The files of a chat to search (relative to `unit.dir`, as discovery found the chat), in order. */
  sources(unit: ChatUnit): FindSource[]
  /**
   * The prompts and answers one record holds (a parsed JSON line, or a whole parsed document). May read a
   * small file of the chat when the record alone does not tell whose text it is (a part naming its message).
   */
  texts(record: unknown, source: FindSource, unit: ChatUnit): FoundText[]
  /**
   * The session of a chat with a match. `head` is the first bytes of the source (at most 64 KiB), `hit` the
   * first record that matched (null when the match came from a damaged part), `mtimeMs` the source's mtime.
   */
  session(unit: ChatUnit, source: FindSource, ctx: {head: Buffer; hit: unknown; mtimeMs: number}): FoundSession
  /**
   * The records of a `rows` source (rows of a database, read on a private copy with its `-wal` and `-shm`,
   * never in place), each handed to `texts` as a parsed record. Needed when a source is `rows`; may throw (the
   * search reports the error and goes on).
   */
  rows?(unit: ChatUnit, source: FindSource): Promise<Iterable<unknown>>
  /**
   * True when a chat's sources are different documents holding the same conversation (a model context and a
   * transcript): human output then names the file of each match.
   */
  readonly namesFiles?: boolean
}

/**
 * One source `find` searches: a file of `lines` (a record per line: JSON lines) or one `document` (the whole
 * file one JSON value), or `rows` the finder reads itself (a database's rows: `rows`).
 */
export interface FindSource {
  /** Relative to the chat's `dir`, possibly in subfolders. */
  name: string
  records: 'lines' | 'document' | 'rows'
}

/** A prompt (what the user wrote) or an answer (what the agent wrote back), as decoded text. */
export interface FoundText {
  role: 'prompt' | 'answer'
  text: string
}

/** The session a match is in, as the agent knows it. */
export interface FoundSession {
  /** The id the agent's resume command takes. */
  id: string
  /** The project folder it belongs to (the agent's working directory), when known. */
  project: string | null
  /** Its last activity, ms since epoch (what the agent's picker shows), when known. */
  timeMs: number | null
  /** The agent's own command that opens it: argv, and the folder to run it from (null: anywhere); null when none exists. */
  resume: {argv: string[]; cwd: string | null} | null
  /** Why the agent's own picker does not list it (a print-mode or `exec` session), null when it does. */
  hidden: string | null
  /** What to do instead of a command, when `resume` is null (an extension's history view), in words. */
  howToOpen?: string
  /** The report format and the agent's name, for an adapter serving several agents (default: the adapter's). */
  format?: string
  agent?: string
}

/**
 * An agent's index of its chats. `scan` asks each adapter for the folders that may hold its index (`storesOf`),
 * reads each once (`read`: one chat whose files have role `index`, its `facts` what the index says of each
 * session), diagnoses that chat with the adapter's `diagnose` like any other, then lets the adapter add what the
 * index says to each of its session chats (`annotate`). `repair` plans the index chat with the adapter's
 * `planRepair`, lets it follow the session files other chats of the same run rewrite (`followUp`), and applies
 * index chats first.
 */
export interface IndexHook {
  /**
   * Folders that may hold this agent's index of the chats discovery found (its chats among `chats`), from their
   * paths, the roots searched (absolute) and the home. Pure: no disk.
   */
  storesOf(chats: readonly ChatUnit[], roots: readonly string[], home: string, env: NodeJS.ProcessEnv): string[]
  /**
   * The index at `dir` as one chat (`members`: its files, role `index`; `facts`: plain data for `diagnose`,
   * `annotate` and `planRepair`), or null when the folder holds no index of this agent. Read-only: listings,
   * small reads, databases on a private copy with their `-wal`/`-shm` (never the original). Never throws.
   */
  read(dir: string, home: string, env: NodeJS.ProcessEnv): Promise<StoreListing | null>
  /**
   * What the index chats of this agent (`indexes`, diagnosed) say of one of its session chats: findings to add
   * (naming why the session is hidden or cannot be resumed, and the agent's own command that opens it once
   * fixed), and `repairedBy`, the path of the index chat whose repair brings the session back (the session is
   * then `repairable`). Null when they say nothing. Pure.
   */
  annotate?(session: Pick<ScannedChat, 'report' | 'snapshot'>, indexes: ReadonlyArray<Pick<ScannedChat, 'report' | 'snapshot'>>): IndexAnnotation | null
  /**
   * (`repair`) Completes an index chat's plan for the session files the other plans of the same run rewrite
   * (`others`): every entry describing those bytes is fixed or invalidated the way the agent accepts, or the
   * rewrite is refused (`others[i].refusal`) when that cannot be done. Pure; may change the plans it is given.
   */
  followUp?(plan: ChatPlan, others: readonly ChatPlan[]): void
}

/** What an index says of one session chat. */
export interface IndexAnnotation {
  findings: Finding[]
  /** The path (`ChatUnit.path`) of the index chat whose repair brings the session back; absent when none does. */
  repairedBy?: string
}

// ---- snapshots and hooks -------------------------------------------------------------------------

/** What an adapter gives `snapshot` and `guard`. */
export interface SnapshotSupport {
  /** The chat's identity in the snapshot store (default: `unit.path`). Must not touch the disk. */
  chatKey?(unit: ChatUnit): string
  /**
   * What a snapshot of a diagnosed chat stores, or why it is skipped: the agent's rule of a settled chat (its
   * last turn complete: no tool call pending or running, the last prompt answered, no temp newer than the
   * primary), the message and byte caps. Never throws; pure, except that a chat whose rows live in a database
   * may be read again from a private copy of it (the promise), never from the original.
   */
  capture(chat: Pick<ScannedChat, 'report' | 'snapshot'>, caps: SnapshotCaps): SnapshotCapture | Promise<SnapshotCapture>
  /**
   * The payload with private tool payloads (tool inputs and outputs) and per-turn system prompts removed, roles,
   * order, tool ids and their lifecycle kept; `refused` when it cannot be done structurally. Pure.
   */
  redact?(payload: Buffer, header: Pick<SnapshotHeader, 'format' | 'kind' | 'target'>): Buffer | {refused: string}
  /** The agent's own hook mechanism, when it has one. */
  readonly hook?: AgentHook
  /** Why the agent has no hook (a sentence), when it has none: `guard install` then prints a user-level timer. */
  readonly noHook?: string
  /**
   * A chat for stored snapshots of this adapter's formats whose chat discovery did not find (`key`, their chat
   * key), when the key names a chat of a store among `found` (this adapter's chats) or a file inside both the
   * scan's roots and the agent's own (`scope`): the agent lost that chat altogether and the snapshot is all that
   * is left of it. Null when the key is neither. Reads nothing; may lstat the folder a file's chat would be in.
   */
  goneChat?(key: string, found: readonly ChatUnit[], scope: GoneScope): ChatUnit | null
  /** The folders the printed timer snapshots (default: the adapter's `defaultRoots`). */
  timerRoots?(home: string, env: NodeJS.ProcessEnv): string[]
}

/** Where a scan looks, for `goneChat`: the folders it searched (absolute), and the home and environment of the agents' roots. */
export interface GoneScope {
  roots: readonly string[]
  home: string
  env: NodeJS.ProcessEnv
}

/** The command a hook runs: as an argument vector, and as one shell command line. */
export interface HookCommand {
  argv: string[]
  shell: string
}

/** What the agent handed the hook: its stdin and its arguments after ours. Hostile until checked. */
export interface HookInput {
  stdin: string
  args: string[]
}

/**
 * What a hook invocation names: the PATHs to scan and, when they hold more chats than the one named, the
 * `chatKey` of that one.
 */
export interface HookTarget {
  paths: string[]
  key?: string
}

/**
 * An agent's hook configuration, as pure text edits of its settings file (the `guard` core reads and writes
 * the file through the write seam, keeps the previous version as evidence, and checks that an uninstall
 * leaves the file as it was).
 */
export interface AgentHook {
  /** The file the hook lives in (absolute), for a home and environment. */
  configFile(home: string, env: NodeJS.ProcessEnv): string
  /** The file's text with chatdoctor's hook added (`current` null: no file yet); `already` when it is there. */
  install(current: string | null, command: HookCommand): {text: string} | {already: true} | {error: string}
  /**
   * The file's text with exactly chatdoctor's entries removed (null: remove the file, one chatdoctor wrote
   * whole); `absent` when none is there. `before`: the file's text before the install, when guard kept it (null:
   * there was no file), so that a container the removal leaves empty goes only when install made it.
   */
  uninstall(current: string, before?: string | null): {text: string | null} | {absent: true} | {error: string}
  /** Whether the text holds chatdoctor's hook, and what it is, in words (for `guard status`). */
  status(current: string | null): {installed: boolean; detail: string}
  /**
   * What the user must know for the hook to run, given the settings file's text after install (a switch of the
   * agent's that is off, a release that needs one turned on): said by `guard install`, never acted on.
   */
  notes?(current: string | null): string[]
  /**
   * The chat a hook invocation names. May read directory listings (to find a session by its id); never writes,
   * never throws. `ignore`: an event that is not one to snapshot on (said in words, logged).
   */
  parseInput(input: HookInput, home: string, env: NodeJS.ProcessEnv): HookTarget | {error: string} | {ignore: string}
  /**
   * How long the hook keeps trying, in ms, while the chat is not settled yet (the agent may call it before its
   * last write is on disk); 0 or absent: once. The agent is never made to wait for it.
   */
  readonly settleMs?: number
  /** True when the agent passes the hook's input on stdin (else stdin is never read: it may be the agent's terminal). */
  readonly stdin?: boolean
  /** Where the mechanism is documented (the agent's own docs or source), for `docs/snapshots.md` and `--help`. */
  readonly source: string
}

/** Single-file documents of a format, for `check`. */
export interface DocumentKind {
  /** Whether a file of this name may be one (by name alone). */
  mayBeName(name: string): boolean
  /** How many leading bytes `looksLike` needs. */
  readonly sniffBytes: number
  /** Whether a file's first bytes look like one. */
  looksLike(head: Uint8Array): boolean
  /** Folder names that hold the agent's own files: never searched for documents, nor is a PATH below them one. */
  readonly skipFolders: readonly string[]
  /**
   * True for the kind a file given as PATH is checked as when its name fits several kinds and its content none
   * (a torn or zeroed document): the format the others refine (OpenCode's export, which Kilo's is a version of).
   */
  readonly fallback?: boolean
  /** The report body (without `path`) of one document; `name` is its file name. Reads nothing. */
  diagnose(name: string, data: Buffer, mtimeMs: number): Promise<Omit<ChatReport, 'path'>>
}

/** What an adapter adds to the commands' `--help`: plain sentences, wrapped by the commands. */
export interface AdapterHelp {
  /** `scan`: where it searches with no PATH, e.g. `Codebuff's config roots (~/.config/manicode, …)`. */
  readonly roots: string
  /** `repair`: how this format's chats are repaired (a paragraph). */
  readonly repair?: string
  /** `inspect`: what the inspection of this format's chats shows beyond the common picture. */
  readonly inspect?: string
  /** `bundle`: how this format's chats go into a bundle. */
  readonly bundle?: string
  /** `repair`: the agent's process names, for the live-chat refusal (`codebuff/freebuff`). */
  readonly process?: string
  /** A store holding many chats that `inspect` picks from with `--session`: its folder and its ids, in words. */
  readonly store?: {readonly dir: string; readonly sessionId: string}
  /** `bundle --session`: what it writes (a paragraph) and the `--session` flag's description. */
  readonly sessionExport?: {readonly paragraph: string; readonly flag: string}
  /** `find`: the command that opens one of its sessions, and which sessions its own picker hides, in words. */
  readonly find?: string
  /** Example paths for the commands' examples; the first adapter giving one is used. */
  readonly examples?: {
    /** A chat (its dir or session file). */
    readonly chat?: string
    /** A folder of chats. */
    readonly chats?: string
    /** A root searched by default. */
    readonly root?: string
    /** A generation `--restore-from` may name. */
    readonly generation?: string
    /** Arguments of further `bundle` examples. */
    readonly bundle?: readonly string[]
  }
}

/** Phrases of an agent's that human output uses. */
export interface AdapterTexts {
  /** The record key a `relink-parent` change rewrites (shown with the old and new ids); default `parent`. */
  readonly parentKey?: string
  /** What `repair` puts back with `restore-mtime`; default `folder's mtime`. */
  readonly folderMtime?: string
  /** What `repair` says of a chat it cannot repair (no usable generation), instead of the outcome's message. */
  notRepairable?(chat: ChatReport): string
  /** What `repair` adds when a session file is gone for good (`lost.sessionListed` false). */
  readonly sessionUnlisted?: string
}

/** What `bundle --session` asks of the adapter that exports sessions. */
export interface SessionExporter {
  /** Default cap in bytes of the session's files (`--max-session-bytes`). */
  readonly capBytes: number
  /**
   * The document of session `sessionId` among `units` (this adapter's chats discovery found under the PATHs):
   * null when none is that session; `{error}` (one line saying what to do next) when it cannot be exported.
   * Read-only; never throws.
   */
  export(units: readonly ChatUnit[], sessionId: string, opts: SessionExportOptions): Promise<SessionExport | {error: string} | null>
  /** The report body (without `path`) a written document gets when `check` reads it; `name` is its file name. */
  diagnose(name: string, data: Buffer, mtimeMs: number): Promise<Omit<ChatReport, 'path'>>
}

/** Options of a session export. */
export interface SessionExportOptions {
  redact: boolean
  /** Size cap in bytes of the session's files (default: the exporter's `capBytes`). */
  capBytes?: number
  /** Redaction key, for tests only (default: 32 random bytes, never stored). */
  key?: Buffer
}

/** A session exported: the bytes to write and what they hold. */
export interface SessionExport {
  sessionId: string
  /** The folder the session was read from (e.g. the agent's data dir). */
  dataDir: string
  /** The document's bytes. */
  bytes: Buffer
  messages: number
  parts: number
  /** Relative paths of damaged files left out. */
  omitted: string[]
  /** Total bytes of the session's files read. */
  sessionBytes: number
  redacted: boolean
}

/** One file of a chat as a bundle carries it: `rel` relative to the chat's folder, `/`-separated. */
export interface BundleFile {
  rel: string
  data: Buffer
  mtimeMs: number
}

/** A redaction context: the per-bundle key and a memo of placeholders. */
export interface Redactor {
  /** The placeholder of a value: `[redacted:<24 hex>]`, or `''` for `''`. */
  placeholder(value: string): string
}

/** One diagnosed chat with what the diagnosis was made from (for `repair`'s plan and live-chat check). */
export interface ScannedChat {
  report: ChatReport
  snapshot: ChatDirSnapshot
  adapter: FormatAdapter
  /** chatdoctor's own leftovers and interrupted repairs in the chat's folder (`pipeline/own-state.ts`), when any. */
  own?: OwnState
  /** The path of the index chat whose repair brings this session back (`IndexAnnotation.repairedBy`), when any. */
  repairedBy?: string
}

/** One of chatdoctor's own leftovers of a killed run, relative to the chat dir, with its size. */
export interface Leftover {
  path: string
  bytes: number
}

/** A repair of the chat killed before its end, with the chat dir's times it recorded before writing the chat's files. */
export interface InterruptedRepair {
  repairId: string
  dirMtimeMs: number
  dirAtimeMs: number
  /** Its evidence folder, as its log entry names it (the end recorded for it names the same). */
  evidenceDir?: string
}

/** chatdoctor's own state in one chat's folder, as the scan found it. */
export interface OwnState {
  leftovers: Leftover[]
  interrupted: InterruptedRepair[]
}

// ---- repair plans ------------------------------------------------------------------------------

/**
 * Where a `restore` action's bytes come from: a whole file of the chat dir (as the scan read it), or an
 * in-memory byte string with a label (an embedded copy `chat-messages.json#ai-…`, or salvaged bytes
 * `salvage:<torn file>`).
 */
export type ActionSource = {kind: 'file'; name: string} | {kind: 'bytes'; label: string; data: Buffer}

/**
 * Bytes to write that are not held in memory: their size and sha256 known ahead (as planned), produced a chunk
 * at a time (a streamed log's repair: ranges of the log as scanned, and the few bytes the repair makes).
 */
export interface ChunkedBytes {
  readonly size: number
  readonly sha256: string
  chunks(): Iterable<Uint8Array>
}

/** One planned action. Names are relative to the chat dir. */
export interface PlannedAction {
  type: ActionType
  /** The source's name or label; for `preserve`, the file preserved; null for `restore-mtime`. */
  from: string | null
  /** The file written (`restore`), the name inside the evidence folder (`preserve`), `.` (`restore-mtime`). */
  to: string
  /** sha256 of the bytes written (`restore`) or of the file preserved (`preserve`, null when unread). */
  sha256: string | null
  /** `restore`: where the bytes come from. */
  source?: ActionSource
  /** `restore`: the exact bytes to write (resolved from `source` at plan time). */
  data?: Buffer
  /**
   * `restore` from a file of the chat too large to hold (measured without its bytes in memory): the file, as
   * the scan read it (`bytes` long, sha256 `sha256`), is copied in chunks at write time and must still hash
   * as scanned; `data` is then absent.
   */
  copyFrom?: {name: string; bytes: number}
  /** `rewrite` of a log read by streaming: the exact bytes to write, in chunks, instead of `data`. */
  stream?: ChunkedBytes
  /** `restore-mtime`: the mtime to put back, ms since epoch. */
  mtimeMs?: number
  /** `restore` of salvaged bytes: the members the tear cut off, each taken from a donor generation. */
  keysBorrowed?: BorrowedKeyReport[]
  /** `rewrite`: the byte changes of the JSONL repair; `mtimeMs` is then the log's own mtime to put back. */
  changes?: LineChangeReport[]
  /** `move`: why the file leaves the tree. */
  why?: string
  /** `preserve`: the file may be appended to in place (a session log): its evidence is a copy, never a hard link. */
  copy?: boolean
  /** `remove-leftover`: its size in bytes. */
  bytes?: number
}

/** A file whose size and mtime must be what the scan saw when the repair writes (else the chat is live). */
export interface WatchedFile {
  name: string
  bytes: number
  mtimeMs: number
}

/** The plan for one chat. */
export interface ChatPlan {
  chat: ScannedChat
  actions: PlannedAction[]
  /** Generations and transcript as the scan saw them. */
  watch: WatchedFile[]
  /** Leftover temps whose name carries the writer's pid. */
  temps: Array<{name: string; pid: number}>
  /** Why a needed restore cannot be planned (its bytes are not at hand or no longer hash as scanned); the chat is then not written. */
  problem?: string
  /** For a chat left as it is on purpose (a `degraded` chat under plain `repair`): what would change it, in words. */
  advice?: string
  /**
   * for formats that keep several chats in one folder (a Claude Code project dir, OpenCode's
   * data dir): the name of this chat's own subfolder of the evidence folder, `.chatdoctor/<repairId>/<name>/`.
   */
  evidenceSub?: string
  /** Why the chat must not be written at all (e.g. the agent is writing the session): outcome `refused`. */
  refusal?: string
  /** Repairable damage chatdoctor does not repair itself, with the next steps: outcome `manual`. */
  manual?: string
  /** The entry a repair would have to replace that is not a regular file (the plan is then `manual`, no actions). */
  blocked?: FileEntry
  /** The status a scan gives the chat once the actions are done (when it differs from `healthy`, exit bit 4). */
  statusAfter?: ChatStatus
  /** (OpenCode JSON tree) What the session loses by the moves. */
  lost?: TreeLossReport
  /** Interrupted earlier repairs of the chat whose recorded dir mtime the `restore-mtime` puts back. */
  settles?: string[]
  /** What the report must say besides the actions (e.g. what `--force` may lose). */
  warnings?: string[]
  /** The plan of the index chat whose repair brings this chat back (its own actions may be none). */
  by?: ChatPlan
  /**
   * A chat the agent's store lost altogether, brought back by the agent's own importer: `repair` writes
   * `data` as `name` into its state folder and runs `argv` (with `{file}` replaced by that file's path) in `cwd`
   * when `argv[0]` is on PATH, bounded by a timeout; otherwise it prints the command.
   */
  agentImport?: AgentImport
}

/** A document for the agent's own importer, and the command that imports it. */
export interface AgentImport {
  name: string
  data: Buffer
  argv: string[]
  /** Where the command runs (the agent files the chat under the project of its working folder); null: anywhere. */
  cwd: string | null
  /** What is imported, in words (for the report). */
  what: string
}

/** What the user asked `repair` for, beyond the default. */
export interface PlanOptions {
  /** `--salvage`: salvaged torn generations are candidates too (used only when they cover more turns). */
  salvage?: boolean
  /** `--restore-from <generation>`: restore this generation (the run must hold exactly one chat). */
  restoreFrom?: string
  /** `--force`: repair although a candidate generation could not be read (with a warning). */
  force?: boolean
}
