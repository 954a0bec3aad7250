/**
 * Evidence: before a repair replaces a file, the file is preserved byte for byte under
 * `<chat dir>/.chatdoctor/<repairId>/` (dot-named: no agent reads it), with a `manifest.json` saying what each
 * preserved file was (name, size, mtime, mode, sha256, class) and what the repair wrote. A hard link is
 * preferred (no data copied, the original inode kept as it was); where links fail (EXDEV, EPERM, ENOTSUP,
 * EMLINK: e.g. FAT, some network shares) the bytes are copied, fsynced and given the original's times. A file
 * that may still be appended to in place (a session log) is always copied: a process holding it open keeps
 * writing to its inode, which after the rewrite must not be the evidence.
 *
 * The manifest is bound to its repair-log entry (`manifestSha256`, outside the chat dir) and read back only
 * through `parseManifest`, which checks its whole shape: a manifest is hostile until checked.
 */
import path from 'node:path'
import type {FileClass} from '../model/report.js'
import {durableWrite, sha256Hex} from './durable-write.js'
import type {FileSystem} from './fs.js'

/** chatdoctor's folder inside a chat dir. */
export const OWN_DIR = '.chatdoctor'
export const MANIFEST = 'manifest.json'

/** The evidence folder of one repair in a chat dir. */
export function evidenceDir(chatDir: string, repairId: string): string {
  return path.join(chatDir, OWN_DIR, repairId)
}

/** One preserved file, as the manifest records it. */
export interface EvidenceFile {
  /** Name in the chat dir. */
  path: string
  /** Name inside the evidence folder. */
  evidence: string
  /** Size in bytes. */
  size: number
  /** ms since epoch, as lstat gave it before the repair. */
  mtimeMs: number
  atimeMs: number
  /** Permission bits (`mode & 0o777`: never setuid, setgid or sticky). */
  mode: number
  /** sha256 of the preserved bytes (read back from the evidence copy). */
  sha256: string
  /** The scan's class of the file (null when unknown). */
  class: FileClass | null
  method: 'link' | 'copy'
}

/** One action as executed, as the manifest and the repair log record it. */
export interface ActionRecord {
  type: string
  from: string | null
  to: string
  /** sha256 of the bytes written (restore) or preserved (preserve); null for restore-mtime. */
  sha256: string | null
  /** sha256 of the file `to` replaced (restore), null when it did not exist. */
  previousSha256?: string | null
  /** ms since epoch put back (restore-mtime). */
  mtimeMs?: number
}

/** The `manifest.json` of an evidence folder. */
export interface Manifest {
  manifestVersion: 1
  chatdoctorVersion: string
  repairId: string
  /** When the evidence was taken (ISO 8601). */
  time: string
  /** Absolute path of the chat dir. */
  chatDir: string
  format: string
  /** The chat dir's own mtime before the repair, ms since epoch. */
  dirMtimeMs: number
  files: EvidenceFile[]
  actions: ActionRecord[]
  /** (`move`) Folders that lost a file, with their times before the repair (undo puts them back). */
  dirTimes?: DirTime[]
  /** The chat dir's atime before the repair (with `dirMtimeMs`: what is put back, also by a re-run after a crash). */
  dirAtimeMs?: number
}

/** A folder's times, recorded before a repair changed its entries. `path` is relative to the chat dir. */
export interface DirTime {
  path: string
  /** ms since epoch. */
  atimeMs: number
  mtimeMs: number
}

function linkUnsupported(code: string | undefined): boolean {
  return code === 'EXDEV' || code === 'EPERM' || code === 'ENOTSUP' || code === 'EMLINK' || code === 'ENOSYS' || code === 'EOPNOTSUPP'
}

/** Evidence larger than this (bytes) is read back a chunk at a time, never whole. */
const HOLD_LIMIT_BYTES = 64 * 1024 * 1024

/**
 * Preserves `chatDir/name` as `dir/evidenceName`: hard link, else copy (fsynced, times kept). Reads the copy
 * back (a chunk at a time above `opts.holdLimit`, default `HOLD_LIMIT_BYTES`) and returns its record. Throws the
 * errno error when neither works (EACCES, EROFS, ENOSPC, …).
 */
export async function preserveFile(fs: FileSystem, chatDir: string, name: string, dir: string, evidenceName: string, cls: FileClass | null, opts: {copy?: boolean; holdLimit?: number} = {}): Promise<EvidenceFile> {
  const src = path.join(chatDir, name)
  const dest = path.join(dir, evidenceName)
  const st = await fs.lstat(src)
  let method: EvidenceFile['method'] = opts.copy ? 'copy' : 'link'
  try {
    if (opts.copy) throw Object.assign(new Error('copy asked for'), {code: 'ENOTSUP'})
    await fs.link(src, dest)
  } catch (e) {
    if (!linkUnsupported((e as NodeJS.ErrnoException).code)) throw e
    method = 'copy'
    await fs.copyFile(src, dest)
    const fd = await fs.open(dest, 'r')
    try {
      await fs.fsync(fd)
    } finally {
      await fs.close(fd)
    }
    await fs.utimes(dest, st.atimeMs, st.mtimeMs)
  }
  // A copy too large to hold (a session log read by streaming) is hashed a chunk at a time.
  const sha256 = st.size > (opts.holdLimit ?? HOLD_LIMIT_BYTES) ? (await fs.hashFile(dest)).sha256 : sha256Hex(await fs.readFile(dest))
  return {path: name, evidence: evidenceName, size: st.size, mtimeMs: st.mtimeMs, atimeMs: st.atimeMs, mode: st.mode & 0o777, sha256, class: cls, method}
}

/** Writes a manifest durably into its evidence folder (the folder must exist); returns the sha256 of its bytes. */
export async function writeManifest(fs: FileSystem, dir: string, manifest: Manifest): Promise<string> {
  const bytes = Buffer.from(JSON.stringify(manifest, null, 2) + '\n')
  await durableWrite(fs, path.join(dir, MANIFEST), bytes, {tag: manifest.repairId, mode: 0o644})
  return sha256Hex(bytes)
}

type Check = (v: unknown) => boolean
const isSha = (v: unknown) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)
const isMs = (v: unknown) => typeof v === 'number' && Number.isFinite(v)
const isStr = (v: unknown) => typeof v === 'string'
const isInt = (v: unknown) => Number.isSafeInteger(v)
const nullable = (c: Check): Check => (v) => v === null || c(v)
const optional = (c: Check): Check => (v) => v === undefined || c(v)

/** The first field of `v` that fails its check (dotted path), or null when every one passes. */
function badField(v: unknown, shape: Record<string, Check>, at: string): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return at || 'top level'
  for (const [k, check] of Object.entries(shape)) if (!check((v as Record<string, unknown>)[k])) return at ? `${at}.${k}` : k
  return null
}

function badList(v: unknown, shape: Record<string, Check>, at: string): string | null {
  if (!Array.isArray(v)) return at
  for (const [i, x] of v.entries()) {
    const bad = badField(x, shape, `${at}[${i}]`)
    if (bad) return bad
  }
  return null
}

const FILE_SHAPE: Record<string, Check> = {
  path: isStr, evidence: isStr, size: (v) => isInt(v) && (v as number) >= 0, mtimeMs: isMs, atimeMs: isMs, mode: isInt, sha256: isSha,
  class: nullable(isStr), method: (v) => v === 'link' || v === 'copy',
}
const ACTION_SHAPE: Record<string, Check> = {type: isStr, from: nullable(isStr), to: isStr, sha256: nullable(isSha), previousSha256: optional(nullable(isSha)), mtimeMs: optional(isMs)}
const MANIFEST_SHAPE: Record<string, Check> = {
  manifestVersion: (v) => v === 1, chatdoctorVersion: isStr, repairId: isStr, time: isStr, chatDir: isStr, format: isStr, dirMtimeMs: isMs, dirAtimeMs: optional(isMs),
  files: (v) => Array.isArray(v), actions: (v) => Array.isArray(v), dirTimes: optional((v) => Array.isArray(v)),
}

/**
 * Parses manifest bytes read from disk; throws an `Error` with a one-line reason when they are not valid JSON or
 * not a whole manifest (every field of the right type). Paths in it are not checked here (see `fsio/inside.ts`).
 */
export function parseManifest(bytes: Buffer): Manifest {
  let v: unknown
  try {
    v = JSON.parse(bytes.toString('utf8'))
  } catch {
    throw new Error(`${MANIFEST} is not valid JSON (${bytes.length} bytes; torn or edited)`)
  }
  const m = v as Manifest
  const bad =
    badField(v, MANIFEST_SHAPE, '') ??
    badList(m.files, FILE_SHAPE, 'files') ??
    badList(m.actions, ACTION_SHAPE, 'actions') ??
    (m.dirTimes ? badList(m.dirTimes, {path: isStr, atimeMs: isMs, mtimeMs: isMs}, 'dirTimes') : null)
  if (bad) throw new Error(`${MANIFEST} is not a chatdoctor manifest (${bad} is missing or of the wrong type)`)
  return m
}
