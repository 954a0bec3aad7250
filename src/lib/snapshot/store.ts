/**
 * The snapshot store: `<state dir>/snapshots/<chat folder>/<time>-<sha256 prefix>.snap`, one file per snapshot
 * (`seal.ts`), in the state folder of the repair log (`$XDG_STATE_HOME/chatdoctor`). A chat's folder is named
 * by the first 16 hex digits of sha256 of its key, so the listing names no chat; the headers do. Reads go
 * straight to the disk (read-only); writes and removals go through the write seam, durably. Every file read
 * back is hostile: a file that is not a snapshot, or whose header does not name the folder's chat, is listed
 * as an error and never used.
 */
import {closeSync, lstatSync, openSync, readFileSync, readSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {durableWrite} from '../fsio/durable-write.js'
import type {FileSystem} from '../fsio/fs.js'
import type {OperationalError} from '../model/report.js'
import type {SnapshotCandidate, SnapshotHeader, SnapshotRef} from '../model/snapshot.js'
import {snapshotName} from '../model/snapshot.js'
import {mkdirs} from './key.js'
import {MAGIC, MAX_HEADER_BYTES, openSnapshot, readHeader, sha256Hex} from './seal.js'

export const SNAPSHOTS = 'snapshots'
const EXT = '.snap'

export function snapshotsDir(stateDir: string): string {
  return path.join(stateDir, SNAPSHOTS)
}

/** The folder of one chat's snapshots. */
export function chatFolder(stateDir: string, chatKey: string): string {
  return path.join(snapshotsDir(stateDir), sha256Hex(Buffer.from(chatKey, 'utf8')).slice(0, 16))
}

/** A snapshot's file name: its time (compact, sortable) and the start of its plaintext's sha256. */
export function snapshotFileName(header: Pick<SnapshotHeader, 'time' | 'sha256'>): string {
  return `${header.time.replace(/[-:]/g, '')}-${header.sha256.slice(0, 12)}${EXT}`
}

/** Reads the first bytes of a file (never following a link). */
function head(file: string, n: number): Buffer {
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.alloc(n)
    let got = 0
    while (got < n) {
      const k = readSync(fd, buf, got, n - got, got)
      if (k === 0) break
      got += k
    }
    return buf.subarray(0, got)
  } finally {
    closeSync(fd)
  }
}

/** What a listing of the store found. */
export interface StoreContents {
  /** Every readable snapshot, newest first within a chat (sorted by chat key, then time descending). */
  refs: SnapshotRef[]
  /** Files that are not snapshots of the folder they are in, and folders that cannot be read. */
  errors: OperationalError[]
  /** Total bytes of the snapshot files. */
  bytes: number
}

function listNames(dir: string, errors: OperationalError[]): string[] {
  try {
    return readdirSync(dir).sort()
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') errors.push({path: dir, message: `the snapshot store cannot be read (${code ?? 'error'})`})
    return []
  }
}

/** Lists the store (headers only; nothing decrypted). Read-only; never throws. */
export function listStore(stateDir: string): StoreContents {
  const root = snapshotsDir(stateDir)
  const out: StoreContents = {refs: [], errors: [], bytes: 0}
  for (const folder of listNames(root, out.errors)) {
    const dir = path.join(root, folder)
    let st
    try {
      st = lstatSync(dir)
    } catch {
      continue
    }
    if (!st.isDirectory() || !/^[0-9a-f]{16}$/.test(folder)) continue
    for (const name of listNames(dir, out.errors)) {
      if (!name.endsWith(EXT) || name.startsWith('.')) continue
      const file = path.join(dir, name)
      try {
        const fst = lstatSync(file)
        if (!fst.isFile()) continue
        out.bytes += fst.size
        const h = readHeader(head(file, MAGIC.length + 4 + MAX_HEADER_BYTES))
        if ('error' in h) {
          out.errors.push({path: file, message: `snapshot ${h.error}`})
          continue
        }
        if (chatFolder(stateDir, h.header.chat) !== dir) {
          out.errors.push({path: file, message: 'snapshot rejected: its header names a chat of another folder (moved or tampered); never restored'})
          continue
        }
        out.refs.push({file, header: h.header, fileBytes: fst.size})
      } catch (e) {
        out.errors.push({path: file, message: `snapshot cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`})
      }
    }
  }
  out.refs.sort((a, b) => (a.header.chat < b.header.chat ? -1 : a.header.chat > b.header.chat ? 1 : a.header.time > b.header.time ? -1 : a.header.time < b.header.time ? 1 : 0))
  return out
}

/** The snapshots of each chat key, newest first. */
export function byChat(refs: readonly SnapshotRef[]): Map<string, SnapshotRef[]> {
  const m = new Map<string, SnapshotRef[]>()
  for (const r of refs) {
    const list = m.get(r.header.chat) ?? []
    list.push(r)
    m.set(r.header.chat, list)
  }
  return m
}

/** Decrypts one stored snapshot into a candidate generation (or a rejection with why). Never throws. */
export function decryptRef(ref: SnapshotRef, key: Buffer | null, keyProblem: string): SnapshotCandidate {
  const name = snapshotName(ref.header.time)
  if (key === null) return {name, header: ref.header, file: ref.file, error: keyProblem}
  let bytes: Buffer
  try {
    bytes = readFileSync(ref.file)
  } catch (e) {
    return {name, header: ref.header, file: ref.file, error: `cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`}
  }
  const r = openSnapshot(bytes, key)
  if ('error' in r) return {name, header: ref.header, file: ref.file, error: r.error}
  // The header decrypted with must be the one listed (a file swapped between the listing and now is refused).
  if (JSON.stringify(r.header) !== JSON.stringify(ref.header)) return {name, header: ref.header, file: ref.file, error: 'rejected: it changed since the store was listed; never restored'}
  return {name, header: r.header, file: ref.file, data: r.data}
}

/** Stores a sealed snapshot durably (never over an existing file); returns its path. Throws what the write throws. */
export async function writeSnapshot(fs: FileSystem, stateDir: string, header: SnapshotHeader, bytes: Buffer): Promise<string> {
  const dir = chatFolder(stateDir, header.chat)
  await mkdirs(fs, dir)
  const file = path.join(dir, snapshotFileName(header))
  await durableWrite(fs, file, bytes, {tag: 'snapshot', mode: 0o600, expect: 'absent'})
  return file
}

/** Removes a stored snapshot (guarded: only the file listed) and flushes its folder. */
export async function removeSnapshot(fs: FileSystem, ref: SnapshotRef): Promise<void> {
  const st = await fs.lstat(ref.file)
  await fs.unlink(ref.file, {ino: st.ino, size: ref.fileBytes, mtimeMs: st.mtimeMs})
  await fs.fsyncDir(path.dirname(ref.file))
}
