/**
 * The per-chat lock: `<chat dir>/.chatdoctor/lock`, holding the pid and start time of the chatdoctor process
 * that is writing the chat. Taken only on chats a repair (or undo) will write. A second chatdoctor finding a
 * live holder refuses that chat at once (exit bit 8); a dead holder's lock (process gone, or the pid reused
 * by a process that started at another time) is taken over with a warning.
 */
import path from 'node:path'
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
  | {ok: true; path: string; tookOverFrom: LockInfo | null}
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

/**
 * Takes the lock of a chat dir (its `.chatdoctor/` folder must exist). `isAlive` decides whether a found
 * holder still runs. Throws the errno error when the lock cannot be written (EACCES, EROFS, …).
 */
export async function acquireLock(fs: FileSystem, chatDir: string, me: LockInfo, isAlive: (h: LockInfo) => boolean): Promise<LockResult> {
  const p = lockPath(chatDir)
  const body = Buffer.from(JSON.stringify(me) + '\n')
  try {
    const fd = await fs.open(p, 'wx', 0o644)
    try {
      await fs.write(fd, body)
      await fs.fsync(fd)
    } finally {
      await fs.close(fd)
    }
    return {ok: true, path: p, tookOverFrom: null}
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  }
  const holder = parseLock(await fs.readFile(p)) ?? {pid: -1, startedAtMs: null, purpose: 'unreadable lock', time: ''}
  if (holder.pid > 0 && isAlive(holder)) return {ok: false, holder}
  // Take over: our own lock under a unique name, renamed over the dead one.
  const mine = `${p}.${me.pid}.tmp`
  const fd = await fs.open(mine, 'wx', 0o644)
  try {
    await fs.write(fd, body)
    await fs.fsync(fd)
  } finally {
    await fs.close(fd)
  }
  await fs.rename(mine, p)
  const now = parseLock(await fs.readFile(p))
  if (!now || now.pid !== me.pid || now.time !== me.time) return {ok: false, holder: now ?? holder}
  return {ok: true, path: p, tookOverFrom: holder}
}

/** Releases a lock taken by `acquireLock` (best effort: a lock left behind is taken over next time). */
export async function releaseLock(fs: FileSystem, p: string): Promise<void> {
  await fs.unlink(p).catch(() => undefined)
}
