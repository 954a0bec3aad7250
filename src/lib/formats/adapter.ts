/**
 * The boundary every agent format sits behind. The core (discover, inventory, rank, plan, render) knows
 * nothing of file names or schemas; an adapter knows nothing of the terminal or of how files are read.
 */
import type {ChatReport} from '../model.js'

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
}

/** Everything the inventory read from one chat dir: the only input an adapter's diagnosis gets. */
export interface ChatDirSnapshot {
  /** Absolute real path of the chat dir. */
  dir: string
  /** The chat dir's own mtime, ms since epoch. */
  dirMtimeMs: number
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
   * Whether a folder is a chat dir of this format, from the names of the entries directly inside it and
   * the folder's own path (some layouts are recognised by their parent, e.g. Codebuff's `chats/<id>/`).
   */
  isChatDir(dir: string, names: string[]): boolean
  /** Whether the inventory must read a file's bytes (otherwise it only stats it). */
  wantsContent(name: string): boolean
  /** The whole diagnosis of one chat dir: classify, measure, rank, status, findings. Pure; never throws. */
  diagnose(snapshot: ChatDirSnapshot): Diagnosis
}
