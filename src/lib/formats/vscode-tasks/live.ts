/**
 * Is a task live? The extensions' own signals, checked by `repair` right before it writes (read-only):
 *
 * 1. a fresh lock folder of the safe write (`<file>.lock`, proper-lockfile, Roo Code and Kilo Code): held while
 *    the extension writes that file, its mtime refreshed every 10 s, stale after 31 s;
 * 2. a process that holds a file open under the task's storage folder, or the editor profile's
 *    `globalStorage/state.vscdb` (VS Code's own state database, open for as long as that editor runs with that
 *    profile): Linux `/proc/<pid>/fd`. Elsewhere (macOS, Windows) only the lock folders are seen.
 *
 * The extension host keeps no file open of its own between writes, so the editor's state database is the best
 * signal that the extension may write the task at any moment.
 */
import {lstatSync, readdirSync, readlinkSync} from 'node:fs'
import path from 'node:path'
import {lockedFileOf, variantOfRoot} from './layout.js'

/** A lock folder is stale after this long without a refresh (proper-lockfile `stale: 31000`). */
export const LOCK_STALE_MS = 31_000

/** Where `/proc` is (tests may point elsewhere; never set in normal use). */
const PROC = '/proc'

/**
 * The storage folder of a task folder (`<root>/tasks/<id>` → `<root>`) or of the Cline extension's `state/`
 * folder (`<root>/state` → `<root>`), or null when it is neither.
 */
export function storageRootOf(taskDir: string): string | null {
  if (path.basename(taskDir) === 'state' && variantOfRoot(path.dirname(taskDir)) === 'cline') return path.dirname(taskDir)
  const tasks = path.dirname(taskDir)
  return path.basename(tasks) === 'tasks' ? path.dirname(tasks) : null
}

/** Fresh lock folders in a task folder, as reasons. */
function lockReasons(taskDir: string, now: number): string[] {
  const out: string[] = []
  let names: string[]
  try {
    names = readdirSync(taskDir)
  } catch {
    return out
  }
  for (const n of names) {
    const file = lockedFileOf(n)
    if (!file) continue
    try {
      const st = lstatSync(path.join(taskDir, n))
      if (!st.isDirectory()) continue
      const age = now - st.mtimeMs
      if (age < LOCK_STALE_MS) out.push(`the extension holds the write lock of ${file} (${n}, refreshed ${Math.max(0, Math.round(age / 1000))} s ago)`)
    } catch {
      // gone
    }
  }
  return out
}

/** Processes (other than this one) holding a file open at or below one of `targets`, as reasons. */
function openFileReasons(targets: string[]): string[] {
  const out: string[] = []
  let pids: string[]
  try {
    pids = readdirSync(PROC).filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)
  } catch {
    return out
  }
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(path.join(PROC, pid, 'fd'))
    } catch {
      continue // another user's process, or gone
    }
    for (const fd of fds) {
      let target: string
      try {
        target = readlinkSync(path.join(PROC, pid, 'fd', fd))
      } catch {
        continue
      }
      const hit = targets.find((t) => target === t || target.startsWith(t + path.sep))
      if (hit) {
        out.push(`process ${pid} has ${target} open (an editor of the VS Code family is running with this storage)`)
        break
      }
    }
  }
  return out
}

/** Why a task folder is live right now (empty when it does not look live). Read-only; never throws. */
export function liveReasons(taskDir: string, now: number = Date.now()): string[] {
  const reasons = lockReasons(taskDir, now)
  const root = storageRootOf(taskDir)
  const targets: string[] = []
  if (root) {
    targets.push(root)
    if (path.basename(path.dirname(root)) === 'globalStorage') targets.push(path.join(path.dirname(root), 'state.vscdb'))
  } else targets.push(taskDir)
  reasons.push(...openFileReasons(targets))
  return reasons
}
