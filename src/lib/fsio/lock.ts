/**
 * The per-chat lock: `<chat dir>/.chatdoctor/lock`, holding the pid and start time of the chatdoctor process
 * that is writing the chat. Taken only on chats a repair (or undo) will write. A second chatdoctor finding a
 * live holder refuses that chat at once (exit bit 8); a dead holder's lock (process gone, or the pid reused
 * by a process that started at another time) is taken over with a warning.
 */
import path from 'node:path'
import {randomBytes} from 'node:crypto'
import type {FileSystem} from './fs.js'

/** What a lock file holds. */
export interface LockInfo {
  pid: number
  /** Start time of the holding process, ms since epoch (tells a reused pid apart). */
  startedAtMs: number | null
  /** `repair` or `undo`, and its id. */
  purpose: string
  /** When the lock was taken (ISO 8601). */
  time: string
}

/** The lock file's path for a chat dir. */
export function lockPath(chatDir: string): string {
  return path.join(chatDir, '.chatdoctor', 'lock')
}

export type LockResult =
  | {ok: true; path: string; ino: number; tookOverFrom: LockInfo | null}
  | {ok: false; holder: LockInfo}

function parseLock(buf: Buffer): LockInfo | null {
  try {
    const v = JSON.parse(buf.toString('utf8')) as Partial<LockInfo>
    if (typeof v.pid !== 'number') return null
    return {pid: v.pid, startedAtMs: typeof v.startedAtMs === 'number' ? v.startedAtMs : null, purpose: String(v.purpose ?? ''), time: String(v.time ?? '')}
  } catch {
    return null
  }
}

/** Writes `body` durably into a new file `file` (never over one). */
async function writeNew(fs: FileSystem, file: string, body: Buffer): Promise<void> {
  const fd = await fs.open(file, 'wx', 0o644)
  try {
    await fs.write(fd, body)
    await fs.fsync(fd)
  } finally {
    await fs.close(fd)
  }
}

/** The errors of a file system (or a mount) that makes no hard links. */
const NO_LINKS = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'])

const code = (e: unknown) => (e as NodeJS.ErrnoException)?.code ?? ''

/**
 * Takes the lock of a chat dir (its `.chatdoctor/` folder must exist). `isAlive` decides whether a found
 * holder still runs. Throws the errno error when the lock cannot be written (EACCES, EROFS, …).
 *
 * The lock file is never seen half-written: the body is written to a temp of this process and hard-linked to
 * the lock's name (a link fails when the name exists, like `O_EXCL`), so another chatdoctor that finds the lock
 * reads its whole body (an empty or garbled lock is one a crashed run left, never one being taken). A stale
 * lock is taken over only by the process that moves that very file (its inode) aside; the new lock is then
 * linked in the same exclusive way, so of two processes judging one stale lock at most one takes it. On a file
 * system that makes no hard links the lock's name is created exclusively (`wx`) and its body written right
 * after; there a lock being taken may be seen empty for that moment.
 */
export async function acquireLock(fs: FileSystem, chatDir: string, me: LockInfo, isAlive: (h: LockInfo) => boolean): Promise<LockResult> {
  const p = lockPath(chatDir)
  const body = Buffer.from(JSON.stringify(me) + '\n')
  // A live holder is refused before anything is written (the link below settles a race with one taking it now).
  const held = await fs.readFile(p).then(parseLock, (e) => {
    if (code(e) !== 'ENOENT') throw e
    return null
  })
  if (held && held.pid > 0 && isAlive(held)) return {ok: false, holder: held}
  const mine = `${p}.${me.pid}.${randomBytes(4).toString('hex')}.tmp`
  await writeNew(fs, mine, body)
  const drop = () => fs.unlink(mine).catch(() => undefined)
  /** Links our lock in; false when a lock is there. */
  const linkIn = async (): Promise<boolean> => {
    try {
      await fs.link(mine, p)
      return true
    } catch (e) {
      if (code(e) === 'EEXIST') return false
      if (!NO_LINKS.has(code(e))) throw e
    }
    // A file system without hard links: an exclusive create of the lock's name, its body written right after.
    try {
      await writeNew(fs, p, body)
      return true
    } catch (e) {
      if (code(e) !== 'EEXIST') throw e
      return false
    }
  }
  try {
    if (await linkIn()) {
      const st = await fs.lstat(p)
      return {ok: true, path: p, ino: st.ino, tookOverFrom: null}
    }
    let found
    try {
      found = await fs.lstat(p)
    } catch (e) {
      if (code(e) !== 'ENOENT') throw e
      // Released between our link and our look: one more try, then it counts as held.
      if (await linkIn()) return {ok: true, path: p, ino: (await fs.lstat(p)).ino, tookOverFrom: null}
      return {ok: false, holder: {pid: -1, startedAtMs: null, purpose: 'another chatdoctor taking the lock', time: ''}}
    }
    const holder = parseLock(await fs.readFile(p)) ?? {pid: -1, startedAtMs: null, purpose: 'unreadable lock', time: ''}
    if (holder.pid > 0 && isAlive(holder)) return {ok: false, holder}
    // Take over: move the dead lock aside, only when it is still the file judged dead, then link ours in.
    const aside = `${p}.${me.pid}.stale`
    try {
      await fs.rename(p, aside)
    } catch (e) {
      if (code(e) === 'ENOENT') return {ok: false, holder: {pid: -1, startedAtMs: null, purpose: 'another chatdoctor taking over the stale lock', time: ''}}
      throw e
    }
    const moved = await fs.lstat(aside)
    if (moved.ino !== found.ino) {
      // Another process's new lock was moved: put it back (never over a lock) and leave the chat to it.
      await fs.link(aside, p).catch(() => undefined)
      await fs.unlink(aside).catch(() => undefined)
      return {ok: false, holder: {pid: -1, startedAtMs: null, purpose: 'another chatdoctor taking over the stale lock', time: ''}}
    }
    await fs.unlink(aside)
    if (!(await linkIn())) return {ok: false, holder: parseLock(await fs.readFile(p).catch(() => Buffer.alloc(0))) ?? holder}
    return {ok: true, path: p, ino: (await fs.lstat(p)).ino, tookOverFrom: holder}
  } finally {
    await drop()
  }
}

/** Releases a lock taken by `acquireLock`, only while it is still that lock (best effort: a lock left behind is taken over next time). */
export async function releaseLock(fs: FileSystem, p: string, ino?: number): Promise<void> {
  if (ino !== undefined) {
    const st = await fs.lstat(p).catch(() => null)
    if (!st || st.ino !== ino) return
  }
  await fs.unlink(p).catch(() => undefined)
}
