/**
 * Evidence: before a repair replaces a file, the file is preserved byte for byte under
 * `<chat dir>/.chatdoctor/<repairId>/` (dot-named: no agent reads it), with a `manifest.json` saying what each
 * preserved file was (name, size, mtime, mode, sha256, class) and what the repair wrote. A hard link is
 * preferred (no data copied, the original inode kept as it was); where links fail (EXDEV, EPERM, ENOTSUP,
 * EMLINK: e.g. FAT, some network shares) the bytes are copied, fsynced and given the original's times.
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
  /** Permission bits. */
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

/**
 * Preserves `chatDir/name` as `dir/evidenceName`: hard link, else copy (fsynced, times kept). Reads the copy
 * back and returns its record. Throws the errno error when neither works (EACCES, EROFS, ENOSPC, …).
 */
export async function preserveFile(fs: FileSystem, chatDir: string, name: string, dir: string, evidenceName: string, cls: FileClass | null): Promise<EvidenceFile> {
  const src = path.join(chatDir, name)
  const dest = path.join(dir, evidenceName)
  const st = await fs.lstat(src)
  let method: EvidenceFile['method'] = 'link'
  try {
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
  const sha256 = sha256Hex(await fs.readFile(dest))
  return {path: name, evidence: evidenceName, size: st.size, mtimeMs: st.mtimeMs, atimeMs: st.atimeMs, mode: st.mode, sha256, class: cls, method}
}

/** Writes a manifest durably into its evidence folder (the folder must exist). */
export async function writeManifest(fs: FileSystem, dir: string, manifest: Manifest): Promise<void> {
  await durableWrite(fs, path.join(dir, MANIFEST), Buffer.from(JSON.stringify(manifest, null, 2) + '\n'), {tag: manifest.repairId, mode: 0o644})
}

/** Reads a manifest; throws when it is missing or not a manifest. */
export async function readManifest(fs: FileSystem, dir: string): Promise<Manifest> {
  const v = JSON.parse((await fs.readFile(path.join(dir, MANIFEST))).toString('utf8')) as Manifest
  if (v?.manifestVersion !== 1 || !Array.isArray(v.files) || !Array.isArray(v.actions)) throw new Error(`${path.join(dir, MANIFEST)} is not a chatdoctor manifest`)
  return v
}
