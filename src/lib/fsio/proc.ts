/**
 * What Linux `/proc` says of a running process, read-only: its command line and its environment. Where
 * `/proc` is absent (macOS, Windows), or the process is gone or another user's, there is nothing to read.
 */
import {readFileSync} from 'node:fs'

/** The argv of a running process (from `/proc/<pid>/cmdline`), or null when it is not running or unreadable. */
export function processCommandLine(pid: number): string[] | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`)
    if (raw.length === 0) return null // a zombie or kernel thread
    return raw.toString('utf8').split('\0').filter((a) => a !== '')
  } catch {
    return null
  }
}

/** The environment of a running process (from `/proc/<pid>/environ`), or null when it cannot be read. */
export function processEnvironment(pid: number): NodeJS.ProcessEnv | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null
  try {
    const env: NodeJS.ProcessEnv = {}
    for (const kv of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
      const at = kv.indexOf('=')
      if (at > 0) env[kv.slice(0, at)] = kv.slice(at + 1)
    }
    return env
  } catch {
    return null
  }
}

/** True when a process with this pid exists (signal 0; EPERM means it exists but belongs to another user). */
export function isProcessRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}
