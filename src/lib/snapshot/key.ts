/**
 * The snapshot key: 32 random bytes, made on first use in `$XDG_CONFIG_HOME/chatdoctor/snapshot.key` (default
 * `~/.config/chatdoctor/`), mode 0600, as 64 hex digits and a newline; or given by `CHATDOCTOR_SNAPSHOT_KEY`
 * (64 hex digits, or 32 bytes in base64), which then wins. A key file readable or writable by anyone but its
 * owner is refused, as is one that is not a regular file or not a key. Only `snapshot` (and its hook) creates
 * the key; every reader (scan, repair, `snapshot --list`) only reads it.
 */
import {randomBytes} from 'node:crypto'
import {lstatSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {durableWrite} from '../fsio/durable-write.js'
import type {FileSystem} from '../fsio/fs.js'

export const KEY_FILE = 'snapshot.key'
export const KEY_ENV = 'CHATDOCTOR_SNAPSHOT_KEY'

/** chatdoctor's config folder: `$XDG_CONFIG_HOME/chatdoctor`, else `<home>/.config/chatdoctor`. */
export function configDir(home: string, env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), 'chatdoctor')
}

export function keyPath(home: string, env: NodeJS.ProcessEnv): string {
  return path.join(configDir(home, env), KEY_FILE)
}

/** A key read: its bytes and where it came from; `absent` when there is none yet; `error` one line. */
export type KeyResult = {key: Buffer; source: string} | {absent: true; file: string} | {error: string}

/** The key in a text (64 hex digits, or base64 of 32 bytes), or null. */
export function parseKeyText(text: string): Buffer | null {
  const t = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex')
  if (/^[A-Za-z0-9+/]{43}=$/.test(t)) {
    const b = Buffer.from(t, 'base64')
    return b.length === 32 ? b : null
  }
  return null
}

/** Reads the key (environment first, then the key file). Never creates it; never throws. */
export function readKey(home: string, env: NodeJS.ProcessEnv): KeyResult {
  const fromEnv = env[KEY_ENV]
  if (fromEnv !== undefined && fromEnv !== '') {
    const key = parseKeyText(fromEnv)
    return key ? {key, source: KEY_ENV} : {error: `${KEY_ENV} is not a key (64 hex digits, or 32 bytes in base64)`}
  }
  const file = keyPath(home, env)
  let st
  try {
    st = lstatSync(file)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return {absent: true, file}
    return {error: `the snapshot key ${file} cannot be read (${code ?? 'error'}); run chatdoctor as its owner`}
  }
  if (!st.isFile()) return {error: `the snapshot key ${file} is not a regular file; move it away (snapshots made with it need it back)`}
  if ((st.mode & 0o077) !== 0) return {error: `the snapshot key ${file} is readable or writable by others (mode ${(st.mode & 0o777).toString(8).padStart(3, '0')}); run chmod 600 ${file}`}
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return {error: `the snapshot key ${file} belongs to another user (uid ${st.uid}); run chatdoctor as its owner`}
  let text: string
  try {
    text = readFileSync(file, 'latin1')
  } catch (e) {
    return {error: `the snapshot key ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}); run chatdoctor as its owner`}
  }
  const key = parseKeyText(text)
  return key ? {key, source: file} : {error: `the snapshot key ${file} is not a key (64 hex digits); restore it from a backup (snapshots made with another key cannot be read)`}
}

/**
 * The key, made when there is none yet: 32 random bytes written durably (mode 0600; missing folders made)
 * through the write seam, never over an existing file. Throws what the write throws (EROFS, ENOSPC, …).
 */
export async function ensureKey(fs: FileSystem, home: string, env: NodeJS.ProcessEnv): Promise<KeyResult> {
  const r = readKey(home, env)
  if (!('absent' in r)) return r
  const key = randomBytes(32)
  await mkdirs(fs, path.dirname(r.file))
  try {
    await durableWrite(fs, r.file, Buffer.from(key.toString('hex') + '\n', 'latin1'), {tag: 'key', mode: 0o600, expect: 'absent'})
  } catch (e) {
    // Another chatdoctor made it first: use that one.
    if ((e as NodeJS.ErrnoException).code === 'ECHANGED') return readKey(home, env)
    throw e
  }
  return {key, source: r.file}
}

/** Creates `dir` and its missing parents, fsyncing the parent of each folder made. */
export async function mkdirs(fs: FileSystem, dir: string): Promise<void> {
  const missing: string[] = []
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    try {
      await fs.lstat(d)
      break
    } catch {
      missing.unshift(d)
    }
  }
  for (const d of missing) {
    try {
      await fs.mkdir(d)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
    await fs.fsyncDir(path.dirname(d))
  }
}
