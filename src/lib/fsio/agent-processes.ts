/**
 * The running processes of an agent, found by their command line (Linux `/proc`; none where it is absent).
 * Read-only.
 */
import {readdirSync} from 'node:fs'
import {processCommandLine} from './proc.js'

/** The pids (this process's aside) whose first three argv elements include one matching `pattern`. */
export function matchingPids(pattern: RegExp): number[] {
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n))
  } catch {
    return []
  }
  const out: number[] = []
  for (const p of pids) {
    const pid = Number(p)
    if (pid === process.pid) continue
    const argv = processCommandLine(pid)
    if (argv && argv.slice(0, 3).some((a) => pattern.test(a))) out.push(pid)
  }
  return out
}
