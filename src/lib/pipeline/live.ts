/**
 * Is a chat live? Process checks used by `repair` and `undo` before they write (read-only; Linux `/proc`).
 *
 * A temp's pid means something only when that pid is a running process whose command line names the agent
 * (Codebuff: `codebuff`, `freebuff`): temps travel between machines in bundles, and pids get reused. Where
 * `/proc` is absent (macOS, Windows) the command line cannot be read and a pid means nothing.
 *
 * A file some process holds open for writing (`openWriters`: Linux `/proc/<pid>/fd` and the flags in
 * `/proc/<pid>/fdinfo/<fd>`) is never rewritten: that process keeps writing to the file's inode, which after a
 * rename is no longer the file. Without `/proc` (macOS, Windows) no process's open files are seen; the
 * inode, size and mtime re-checks right before and after each rename are then the only signal.
 */
import {readdirSync, readFileSync, readlinkSync, realpathSync} from 'node:fs'
import path from 'node:path'
import {isProcessRunning, processCommandLine} from '../fsio/proc.js'

export {processCommandLine}

/** True when `pid` is a running process whose command line matches `agent` (e.g. /codebuff|freebuff/i). */
export function isAgentProcess(pid: number, agent: RegExp): boolean {
  const argv = processCommandLine(pid)
  return argv !== null && argv.some((a) => agent.test(a))
}

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ; 100 on every mainstream Linux build). */
const USER_HZ = 100

/** When a process started, ms since epoch (Linux: `/proc/<pid>/stat` field 22 + `btime`); null when unknown. */
export function processStartMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[19]) // field 22 overall; fields[0] is field 3
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))
    if (!btime || !Number.isFinite(ticks)) return null
    return Number(btime[1]) * 1000 + (ticks * 1000) / USER_HZ
  } catch {
    return null
  }
}

/** This process's start time, ms since epoch. */
export function ownStartMs(): number {
  return processStartMs(process.pid) ?? Math.round(Date.now() - process.uptime() * 1000)
}

/**
 * True when the process that wrote a lock (pid + start time) is still the one running under that pid.
 * A running pid whose start time differs by more than 2 s is a reused pid: the holder is dead.
 */
export function isHolderAlive(pid: number, startedAtMs: number | null): boolean {
  if (!isProcessRunning(pid)) return false
  const start = processStartMs(pid)
  if (start === null || startedAtMs === null) return true
  return Math.abs(start - startedAtMs) <= 2000
}

/** Whether this system lets chatdoctor see which processes hold a file open (Linux `/proc`). */
export function canSeeOpenFiles(): boolean {
  try {
    return readdirSync('/proc/self/fdinfo').length > 0
  } catch {
    return false
  }
}

/** A process holding a file open for writing. */
export interface OpenWriter {
  pid: number
  /** The file (as asked for). */
  file: string
  /** The process's command (argv[0] base name), null when unreadable. */
  command: string | null
}

/** O_ACCMODE bits of `/proc/<pid>/fdinfo/<fd>` `flags:` (octal): 1 write only, 2 read-write. */
function writesThrough(pid: string, fd: string): boolean {
  try {
    const m = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))
    return m !== null && (parseInt(m[1], 8) & 3) !== 0
  } catch {
    return false
  }
}

/**
 * The processes (any user's whose `/proc/<pid>/fd` is readable; this one included) that hold one of `files`
 * open for writing. Empty where `/proc` is absent. Read-only; never throws.
 */
export function openWriters(files: string[]): OpenWriter[] {
  const want = new Map<string, string>()
  for (const f of files) {
    try {
      want.set(realpathSync(f), f)
    } catch {
      // absent: nobody holds it
    }
  }
  if (want.size === 0) return []
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n))
  } catch {
    return []
  }
  const out: OpenWriter[] = []
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue // gone, or another user's
    }
    for (const fd of fds) {
      let target: string
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`)
      } catch {
        continue
      }
      const file = want.get(target)
      if (file === undefined || !writesThrough(pid, fd)) continue
      const argv = processCommandLine(Number(pid))
      out.push({pid: Number(pid), file, command: argv?.[0] ? path.basename(argv[0]) : null})
    }
  }
  return out
}
