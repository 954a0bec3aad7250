/**
 * Inventory: reads one chat dir into a `ChatDirSnapshot` (lstat of every entry, bytes of the files the adapter
 * needs). The only step of a scan that reads file contents. Read-only; never follows symbolic links.
 *
 * Uses synchronous calls: a scan reads one chat after another, and on a fleet of thousands of small chats the
 * thread-pool round trip of each async call cost more than the read itself (measured: about half of
 * the wall time idle).
 */
import {constants} from 'node:buffer'
import {closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readdirSync, readFileSync, readSync} from 'node:fs'
import path from 'node:path'
import {classifyJsonFileSync} from '../classify/stream.js'
import type {ChatDirSnapshot, ChatUnit, FileEntry, FormatAdapter} from '../model/adapter.js'
import {printableName} from '../fsio/paths.js'
import {nonUtf8Names} from '../fsio/raw-names.js'

function kindOf(st: {isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean}): FileEntry['kind'] {
  if (st.isSymbolicLink()) return 'symlink'
  if (st.isFile()) return 'file'
  if (st.isDirectory()) return 'directory'
  return 'other'
}

/**
 * Reads one chat's entries. Throws only when its folder cannot be listed (the caller reports it); a file that
 * cannot be read gets `readError` and no `data`.
 */
export async function readChat(unit: ChatUnit, adapter: FormatAdapter, opts: InventoryOptions = {}): Promise<ChatDirSnapshot> {
  return readChatSync(unit, adapter, opts)
}

/**
 * Files larger than this (bytes) are classified by streaming instead of being read whole: V8 cannot make a
 * string longer than `buffer.constants.MAX_STRING_LENGTH` (about 512 MiB), so they could not be decoded and
 * parsed anyway.
 */
export const STREAM_THRESHOLD_BYTES = constants.MAX_STRING_LENGTH

/**
 * Files an adapter streams itself (`FormatAdapter.streams`, e.g. JSON-lines logs) larger than this (bytes) are
 * not read by the inventory: the adapter gets their path and reads them a chunk at a time, so a log of any size
 * is diagnosed in bounded memory.
 */
export const LOG_STREAM_THRESHOLD_BYTES = 64 * 1024 * 1024

export interface InventoryOptions {
  /** Override of `STREAM_THRESHOLD_BYTES` (tests use a small one); logs stream above it too when it is lower. */
  streamThresholdBytes?: number
  /** Override of `LOG_STREAM_THRESHOLD_BYTES` (tests use a small one). */
  logStreamThresholdBytes?: number
  /**
   * Read the files' bytes into this arena instead of fresh buffers. The caller must be done with the bytes
   * of the previous chat read into it (`data` dropped, no views kept): the arena is reused from its start.
   */
  arena?: ReadArena
}

/**
 * Reusable memory for the bytes of one chat at a time. Fresh buffers cost a page fault per 4 KiB
 * on first touch — ~12 µs each on the benchmark VM, more than reading the bytes — and threads of one process
 * fault under one lock, so two scan threads reading into fresh buffers ran slower than one. Reading every
 * chat into the same, already touched memory avoids both. Only for scans that drop each chat's bytes once it
 * is diagnosed (`scan`); `repair` keeps them and reads into fresh buffers.
 */
export class ReadArena {
  private buf: Buffer
  private used = 0

  /** `initialBytes`: the first capacity (grows to the largest chat's total). */
  constructor(initialBytes = 1 << 20) {
    this.buf = Buffer.allocUnsafeSlow(initialBytes)
  }

  /** Starts the next chat: earlier `take`s may be overwritten from now on. */
  reset(): void {
    this.used = 0
  }

  /**
   * `n` bytes of arena memory (contents undefined until written), 8-byte aligned. When the current block is
   * full a larger one replaces it; views handed out before stay valid (they keep the old block alive).
   */
  take(n: number): Buffer {
    if (this.used + n > this.buf.length) {
      this.buf = Buffer.allocUnsafeSlow(Math.max(n, this.buf.length * 2))
      this.used = 0
    }
    const view = this.buf.subarray(this.used, this.used + n)
    this.used += (n + 7) & ~7
    return view
  }
}

/**
 * `readChat`, synchronously. Same contract. A wanted file above the streaming threshold gets `streamed` (its
 * verdict and sha256, in bounded memory) instead of `data`; when that verdict is `intact` it gets `readError`
 * instead, since its value cannot be parsed to be measured.
 */
export function readChatSync(unit: ChatUnit, adapter: FormatAdapter, opts: InventoryOptions = {}): ChatDirSnapshot {
  const threshold = opts.streamThresholdBytes ?? STREAM_THRESHOLD_BYTES
  const logThreshold = opts.logStreamThresholdBytes ?? Math.min(opts.streamThresholdBytes ?? LOG_STREAM_THRESHOLD_BYTES, LOG_STREAM_THRESHOLD_BYTES)
  const dir = unit.dir
  const dirStat = lstatSync(dir)
  // A store's chat names its member files (possibly in subfolders); otherwise list the folder.
  let names = unit.members !== undefined ? [...unit.members] : unit.listing !== undefined ? [...unit.listing] : readdirSync(dir)
  if (unit.members === undefined && unit.files !== undefined) {
    const wanted = new Set(unit.files)
    names = names.filter((n) => wanted.has(n))
  }
  // Names that are not valid UTF-8: listed escaped, as kind `other` (never read, never touched).
  const files: FileEntry[] = []
  if (unit.members === undefined) {
    const lossy = new Set<string>()
    for (const raw of nonUtf8Names(dir, names)) {
      lossy.add(raw.toString('utf8'))
      try {
        const st = lstatSync(Buffer.concat([Buffer.from(dir + path.sep), raw]))
        files.push({name: printableName(raw), kind: 'other', bytes: st.size, mtimeMs: st.mtimeMs})
      } catch {
        // vanished
      }
    }
    if (lossy.size > 0) names = names.filter((n) => !lossy.has(n))
  }
  names.sort()
  for (const name of names) {
    const p = path.join(dir, name)
    if (adapter.wantsContent(name)) {
      const entry = readRegularFile(p, name, adapter.streams?.(name) ? {path: p, above: logThreshold} : null, threshold, opts.arena)
      if (entry) {
        files.push(entry)
        continue
      }
    }
    let st
    try {
      st = lstatSync(p)
    } catch {
      continue // vanished between readdir and lstat
    }
    const entry: FileEntry = {name, kind: kindOf(st), bytes: st.size, mtimeMs: st.mtimeMs}
    if (entry.kind === 'file' && adapter.wantsContent(name)) {
      try {
        if (adapter.streams?.(name) && st.size > logThreshold) entry.path = p
        else if (st.size > threshold) streamInto(entry, p, threshold)
        else entry.data = readFileSync(p)
      } catch (e) {
        entry.readError = (e as Error).message
      }
    }
    files.push(entry)
  }
  files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return {dir, unit, dirMtimeMs: dirStat.mtimeMs, files}
}

/**
 * Opens `p` without following a symbolic link and without blocking on a FIFO, and when it is a regular file
 * returns its entry: size and mtime from the open descriptor (no separate `lstat`: a syscall per file saved,
 * ~20 µs each here) and its bytes (in `arena` when given), or its streamed verdict above
 * `threshold` bytes; or, for a file its adapter streams itself (`streamed`) above `streamed.above` bytes, its
 * path only. Returns null
 * for anything else (a link, a folder, a FIFO, a name that is gone, cannot be opened or read), and the caller
 * takes the `lstat` path, which says what it is or why it cannot be read.
 */
function readRegularFile(p: string, name: string, streamed: {path: string; above: number} | null, threshold: number, arena?: ReadArena): FileEntry | null {
  let fd: number
  try {
    fd = openSync(p, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK)
  } catch {
    return null
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) return null
    const entry: FileEntry = {name, kind: 'file', bytes: st.size, mtimeMs: st.mtimeMs}
    if (streamed && st.size > streamed.above) return {...entry, path: streamed.path}
    if (st.size > threshold) return streamInto(entry, p, threshold)
    // The size the descriptor had when opened; a file that shrinks meanwhile gives fewer bytes.
    const data = arena ? arena.take(st.size) : Buffer.allocUnsafeSlow(st.size)
    let got = 0
    while (got < data.length) {
      const n = readSync(fd, data, got, data.length - got, got)
      if (n === 0) break
      got += n
    }
    entry.data = got === data.length ? data : data.subarray(0, got)
    return entry
  } catch {
    return null // the lstat path reads it again and reports why it cannot be read
  } finally {
    closeSync(fd)
  }
}

/**
 * Classifies a file above the streaming threshold (`threshold` bytes) by streaming it, into `entry`: its
 * verdict and sha256 as `streamed`, or, when it is intact, a `readError` (it cannot be parsed to be
 * measured). Returns `entry`. Throws what reading the file throws.
 */
function streamInto(entry: FileEntry, p: string, threshold: number): FileEntry {
  const r = classifyJsonFileSync(p)
  if (r.classification.class === 'intact') {
    entry.readError = `intact JSON of ${r.bytes} bytes, too large to parse for measuring (over ${threshold} bytes)`
    // Its bytes, for a format that measures it without one string of it (a Buffer holds up to MAX_LENGTH).
    const data = r.bytes <= constants.MAX_LENGTH ? readWhole(p, r.bytes) : null
    if (data) entry.large = {data, sha256: r.sha256}
  } else entry.streamed = {classification: r.classification, sha256: r.sha256}
  return entry
}

/** The file's `size` bytes (readFileSync refuses files over 2 GiB); null when it changed size meanwhile. */
function readWhole(p: string, size: number): Buffer | null {
  const fd = openSync(p, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK)
  try {
    const data = Buffer.allocUnsafeSlow(size)
    let got = 0
    while (got < size) {
      const n = readSync(fd, data, got, Math.min(size - got, 1 << 30), got)
      if (n === 0) break
      got += n
    }
    return got === size && fstatSync(fd).size === size ? data : null
  } finally {
    closeSync(fd)
  }
}
