/**
 * Is Gemini CLI running on a project? The CLI leaves no lock on its session files (it appends to them, with no
 * lock, temp or rename; its only lock is the transient `~/.gemini/projects.json.lock/` folder around a registry
 * save; strace of one turn, new-agents.md §1.4), so the signal is its process: a `gemini` process (the CLI's
 * Node bundle, and the child it relaunches itself as) whose working folder is the project's root, which the
 * chats folder's parent names in `.project_root`. Linux `/proc` only; read-only.
 */
import {closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, realpathSync} from 'node:fs'
import path from 'node:path'
import type {ChatDirSnapshot} from '../../model/adapter.js'
import {AGENT_PROCESS, isChatsDir} from './layout.js'

/** The project root a chats folder belongs to (`<project temp dir>/.project_root`), or null when unknown. */
export function projectRootOf(chatsDir: string): string | null {
  if (!isChatsDir(chatsDir)) return null
  let fd: number | undefined
  try {
    // Never follows a link, never blocks on a FIFO, reads at most 4 KiB of a regular file.
    fd = openSync(path.join(path.dirname(chatsDir), '.project_root'), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    const st = fstatSync(fd)
    if (!st.isFile() || st.size > 4096) return null
    const buf = Buffer.alloc(st.size)
    const n = readSync(fd, buf, 0, buf.length, 0)
    const root = buf.subarray(0, n).toString('utf8').trim()
    return root.length > 0 && path.isAbsolute(root) && !root.includes('\0') ? root : null
  } catch {
    return null
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** The argv of a running process (`/proc/<pid>/cmdline`), or null when it is gone or unreadable. */
function commandLine(pid: number): string[] | null {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`)
    return raw.length === 0 ? null : raw.toString('utf8').split('\0').filter((a) => a !== '')
  } catch {
    return null
  }
}

/** A running process of the CLI, with the folder it works in (null when that cannot be read). */
export interface GeminiProcess {
  pid: number
  cwd: string | null
}

/** The running Gemini CLI processes (from `/proc/<pid>/cmdline`); none where `/proc` is absent. */
export function geminiProcesses(pattern: RegExp = AGENT_PROCESS): GeminiProcess[] {
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n))
  } catch {
    return []
  }
  const out: GeminiProcess[] = []
  for (const p of pids) {
    const pid = Number(p)
    if (pid === process.pid) continue
    const argv = commandLine(pid)
    if (!argv || !argv.slice(0, 3).some((a) => pattern.test(a))) continue
    let cwd: string | null
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`)
    } catch {
      cwd = null
    }
    out.push({pid, cwd})
  }
  return out
}

function same(a: string, b: string): boolean {
  if (a === b) return true
  try {
    return realpathSync(a) === realpathSync(b)
  } catch {
    return false
  }
}

/**
 * Why a Gemini CLI chat is live right now: a running CLI process in the chat's project (or one whose folder
 * cannot be read, or any when the project is unknown). Empty when none. `processes` is for tests.
 */
export function geminiLiveReasons(snapshot: ChatDirSnapshot, processes: GeminiProcess[] = geminiProcesses()): string[] {
  if (processes.length === 0) return []
  const root = projectRootOf(snapshot.dir)
  const reasons: string[] = []
  for (const p of processes) {
    if (p.cwd === null) reasons.push(`Gemini CLI is running (pid ${p.pid}; its working folder cannot be read, so it may be this project's)`)
    else if (root === null) reasons.push(`Gemini CLI is running (pid ${p.pid} in ${p.cwd}) and this chats folder names no project root`)
    else if (same(p.cwd, root)) reasons.push(`Gemini CLI is running in this chat's project (pid ${p.pid} in ${root})`)
  }
  return reasons
}
