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
import {createHash} from 'node:crypto'
import {fastCheckBytes} from '../classify/fast.js'
import {classifyJsonFileSync, STREAM_CHUNK_BYTES} from '../classify/stream.js'
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
 * Files above this many bytes that the format can measure without parsing them whole
 * (`FormatAdapter.streamValue`) are checked by the fast check (`classify/fast.ts`), which builds their
 * measurable value on the same pass, instead of being parsed: a parse holds the bytes, their string and the
 * whole parsed value at once (about 3× the file), and costs more CPU than the check. 4 MiB: 50 chats of 2–20 MB
 * run-states scanned with this at 64 MiB peaked at 315 MB and 3.6 s CPU, at 4 MiB 245–267 MB and 3.1 s, the
 * same report; the states agents write per chat are far smaller and keep `JSON.parse`.
 */
export const VALUE_THRESHOLD_BYTES = 4 * 2 ** 20

/**
 * Files an adapter streams itself (`FormatAdapter.streams`, e.g. JSON-lines logs) larger than this (bytes) are
 * not read by the inventory: the adapter gets their path and reads them a chunk at a time, so a log of any size
 * is diagnosed in bounded memory.
 */
export const LOG_STREAM_THRESHOLD_BYTES = 64 * 1024 * 1024

export interface InventoryOptions {
  /** Override of `STREAM_THRESHOLD_BYTES` (tests use a small one); logs stream above it too when it is lower. */
  streamThresholdBytes?: number
  /** Override of `VALUE_THRESHOLD_BYTES` (tests use a small one). */
  valueThresholdBytes?: number
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
  const how: ReadHow = {threshold, valueThreshold: opts.valueThresholdBytes ?? VALUE_THRESHOLD_BYTES, adapter, logThreshold: opts.logStreamThresholdBytes ?? Math.min(opts.streamThresholdBytes ?? LOG_STREAM_THRESHOLD_BYTES, LOG_STREAM_THRESHOLD_BYTES)}
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
      const entry = readRegularFile(p, name, how, opts.arena)
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
        if (adapter.streams?.(name) && st.size > how.logThreshold) entry.path = p
        else if (st.size > threshold) streamInto(entry, p, how)
        else {
          entry.data = readFileSync(p)
          checkValue(entry, how)
        }
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
 * `how.threshold` bytes; or, for a file its adapter streams itself above `how.logThreshold` bytes, its path
 * only. Returns null
 * for anything else (a link, a folder, a FIFO, a name that is gone, cannot be opened or read), and the caller
 * takes the `lstat` path, which says what it is or why it cannot be read.
 */
function readRegularFile(p: string, name: string, how: ReadHow, arena?: ReadArena): FileEntry | null {
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
    if (how.adapter.streams?.(name) && st.size > how.logThreshold) return {...entry, path: p}
    if (st.size > how.threshold) return streamInto(entry, p, how)
    // The size the descriptor had when opened; a file that shrinks meanwhile gives fewer bytes.
    const data = arena ? arena.take(st.size) : Buffer.allocUnsafeSlow(st.size)
    let got = 0
    while (got < data.length) {
      const n = readSync(fd, data, got, data.length - got, got)
      if (n === 0) break
      got += n
    }
    entry.data = got === data.length ? data : data.subarray(0, got)
    checkValue(entry, how)
    return entry
  } catch {
    return null // the lstat path reads it again and reports why it cannot be read
  } finally {
    closeSync(fd)
  }
}

/** How the inventory reads the files of one chat. */
interface ReadHow {
  /** Above this many bytes a file is streamed, never read whole. */
  threshold: number
  /** Above this many bytes a file the format measures without parsing it whole gets its value built. */
  valueThreshold: number
  /** Above this many bytes a file the adapter streams itself (`FormatAdapter.streams`) is handed over by path. */
  logThreshold: number
  adapter: FormatAdapter
}

/**
 * For a file read whole above the value threshold that the format can measure without parsing it
 * (`streamValue`): the fast check over its bytes, and when it is intact its measurable value as `large`
 * (the bytes stay in `data`, for what needs them: a restore, a donor, a comparison). Anything else (damage,
 * or a case the fast check leaves to the exact path) leaves the entry to the format's own classifier.
 */
function checkValue(entry: FileEntry, how: ReadHow): void {
  const data = entry.data
  if (!data || data.length <= how.valueThreshold) return
  const spec = how.adapter.streamValue?.(entry.name)
  if (!spec) return
  const v = fastCheckBytes(data, spec)
  if (v.kind === 'intact' && v.value !== undefined) entry.large = {value: v.value, sha256: createHash('sha256').update(data).digest('hex'), escapes: v.escapes}
}

/**
 * Classifies a file above the streaming threshold by streaming it, into `entry`: its verdict and sha256 as
 * `streamed`; when it is intact and the format measures it without parsing it whole (`streamValue`), its
 * measurable value as `large` (never its bytes: a restore copies it from disk in chunks); otherwise an intact
 * file gets `readError` (it cannot be parsed to be measured). Returns `entry`. Throws what reading the file
 * throws.
 */
function streamInto(entry: FileEntry, p: string, how: ReadHow): FileEntry {
  const spec = how.adapter.streamValue?.(entry.name)
  const r = classifyJsonFileSync(p, STREAM_CHUNK_BYTES, spec)
  if (r.classification.class !== 'intact') entry.streamed = {classification: r.classification, sha256: r.sha256}
  else if (r.value !== undefined) entry.large = {value: r.value, sha256: r.sha256, escapes: r.escapes === true}
  else entry.readError = `intact JSON of ${r.bytes} bytes, too large to parse for measuring (over ${how.threshold} bytes)`
  return entry
}
