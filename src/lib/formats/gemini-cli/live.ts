/**
 * Is Gemini CLI running on a project? The CLI leaves no lock on its session files (it appends to them, with no
 * lock, temp or rename; its only lock is the transient `~/.gemini/projects.json.lock/` folder around a registry
 * save; strace of one turn, new-agents.md §1.4), so the signal is its process: a `gemini` process (the CLI's
 * Node bundle, and the child it relaunches itself as) whose working folder is the project's root, which the
 * chats folder's parent names in `.project_root`. Linux `/proc` only; read-only.
 */
import {closeSync, constants, fstatSync, openSync, readlinkSync, readSync} from 'node:fs'
import {matchingPids} from '../../fsio/agent-processes.js'
import {samePath} from '../../fsio/paths.js'
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

/** A running process of the CLI, with the folder it works in (null when that cannot be read). */
export interface GeminiProcess {
  pid: number
  cwd: string | null
}

/** The running Gemini CLI processes (from `/proc/<pid>/cmdline`); none where `/proc` is absent. */
export function geminiProcesses(pattern: RegExp = AGENT_PROCESS): GeminiProcess[] {
  return matchingPids(pattern).map((pid) => {
    let cwd: string | null
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`)
    } catch {
      cwd = null
    }
    return {pid, cwd}
  })
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
    else if (samePath(p.cwd, root)) reasons.push(`Gemini CLI is running in this chat's project (pid ${p.pid} in ${root})`)
  }
  return reasons
}
