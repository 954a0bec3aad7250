/**
 * Is Cline running? Cline's session files are written by its hub daemon (`cline --cline-hub-daemon …`), which
 * the first `cline` command starts and which keeps running after the CLI exits; it rewrites a session's files
 * in place whenever the session changes (new-agents.md §2.4). So a repair is refused while any of these says
 * Cline is running (read-only checks, Linux `/proc`):
 *
 * - a hub discovery record (`<data>/locks/hub/*.json`, `…/owners/*.json`: `{hubId, …, pid}`) whose pid is a
 *   running Cline process (a record left by a hub that died names a dead or foreign pid);
 * - a hub startup lock (`<data>/locks/hub/<name>.lock/owner.json`: `{pid, acquiredAt}`) held by a running
 *   Cline process;
 * - a hub instance lock (`<data>/locks/hub/<name>.instance.lock`): a SQLite file held in an open
 *   `BEGIN EXCLUSIVE`, i.e. a POSIX lock on it listed in `/proc/locks` (the kernel drops it when the holder
 *   dies, so it never goes stale);
 * - any running process whose command line is Cline's (`cline` as the program or script, or
 *   `--cline-hub-daemon`) and whose environment (`HOME`, `CLINE_DIR`, `CLINE_DATA_DIR`) names this data dir,
 *   or cannot be read (another user's process counts: it may).
 *
 * Sources: `sdk/packages/core/src/hub/discovery/index.ts` and `instance-lock.ts` (cline/cline, sdk 0.0.78),
 * the lock files of `shared/realdata/cline/3.0.65/` (new-agents.md §2.1). The discovery record also holds the
 * hub's auth token: only its `pid` is ever read out of it.
 */
import {readFileSync, realpathSync, statSync} from 'node:fs'
import path from 'node:path'
import {processCommandLine, processEnvironment} from '../../fsio/proc.js'
import {LOCKS, dataDir as clineDataDir} from './layout.js'
import {sortedNames} from '../../fsio/names.js'

/** One sign that Cline is running, in words, with the pid when one is known. */
export interface LiveSign {
  pid: number | null
  what: string
}

/** True for the argv of a Cline process: `cline` as program or script (a node/bun wrapper), or the hub daemon flag. */
export function isClineCommandLine(argv: readonly string[]): boolean {
  if (argv.includes('--cline-hub-daemon')) return true
  const base = (s: string | undefined) => (s === undefined ? '' : path.basename(s))
  return base(argv[0]) === 'cline' || (/^(?:node|bun|nodejs)(?:\.exe)?$/.test(base(argv[0])) && base(argv[1]) === 'cline')
}

/** The pid in a JSON lock record, when it is a positive integer. */
function pidIn(file: string): number | null {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as {pid?: unknown}
    return typeof v.pid === 'number' && Number.isSafeInteger(v.pid) && v.pid > 0 ? v.pid : null
  } catch {
    return null
  }
}

/** Which processes hold a POSIX lock on the file with this device and inode (from `/proc/locks`). */
function lockHolders(dev: number, ino: number, procLocks: string): number[] {
  const major = ((dev >> 8) & 0xfff) | Math.floor(dev / 2 ** 32) * 0x1000
  const minor = (dev & 0xff) | ((dev >> 12) & 0xfff00)
  const want = `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}:${ino}`
  const pids: number[] = []
  for (const line of procLocks.split('\n')) {
    const f = line.trim().split(/\s+/)
    // `1: POSIX  ADVISORY  WRITE 31440 fe:00:2146641 1073741824 1073742335` (a `->` marks a waiter).
    const at = f.findIndex((x) => /^[0-9a-f]+:[0-9a-f]+:\d+$/.test(x))
    if (at < 1 || f.includes('->') || f[at] !== want) continue
    const pid = Number(f[at - 1])
    if (Number.isSafeInteger(pid) && pid > 0) pids.push(pid)
  }
  return pids
}

/** Where the live checks look, and how (injectable for tests). */
export interface LiveProbe {
  /** argv of a running process, or null. */
  commandLine(pid: number): string[] | null
  /** Every running pid. */
  pids(): number[]
  /** `/proc/locks`, or null where there is none. */
  procLocks(): string | null
  /** The environment of a running process, or null when it cannot be read. */
  environ(pid: number): NodeJS.ProcessEnv | null
}

/** The probe of this machine (`/proc`). */
export const systemProbe: LiveProbe = {
  commandLine: processCommandLine,
  pids() {
    return sortedNames('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map(Number)
  },
  procLocks() {
    try {
      return readFileSync('/proc/locks', 'utf8')
    } catch {
      return null
    }
  },
  environ: processEnvironment,
}

/** A path with its symbolic links resolved when it exists. */
function real(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}

/** Whether a Cline process may be writing `dataDir`: its environment names it, or cannot be read. */
function mayWrite(pid: number, dataDir: string | null, probe: LiveProbe): boolean {
  if (dataDir === null) return true
  const env = probe.environ(pid)
  if (env === null || !env.HOME) return true
  return real(clineDataDir(env.HOME, env)) === real(dataDir)
}

/**
 * The signs that Cline is running for the data dir `dataDir` (null when unknown: only the process check
 * runs). Never throws; reads lock files, `/proc/locks` and `/proc/<pid>/cmdline` only.
 */
export function clineLiveSigns(dataDir: string | null, probe: LiveProbe = systemProbe): LiveSign[] {
  const signs: LiveSign[] = []
  const seen = new Set<number>()
  const isCline = (pid: number) => pid !== process.pid && (() => {
    const argv = probe.commandLine(pid)
    return argv !== null && isClineCommandLine(argv)
  })()
  const add = (pid: number | null, what: string) => {
    if (pid !== null) seen.add(pid)
    signs.push({pid, what})
  }
  if (dataDir !== null) {
    const locks = path.join(dataDir, LOCKS)
    const locksText = probe.procLocks()
    for (const dir of [locks, path.join(locks, 'owners')]) {
      for (const n of sortedNames(dir)) {
        const p = path.join(dir, n)
        if (n.endsWith('.json')) {
          const pid = pidIn(p)
          if (pid !== null && isCline(pid)) add(pid, `the Cline hub daemon (pid ${pid}) is running (${path.relative(dataDir, p)})`)
        } else if (n.endsWith('.instance.lock')) {
          if (locksText === null) continue
          try {
            const st = statSync(p)
            for (const pid of lockHolders(st.dev, st.ino, locksText)) if (pid !== process.pid) add(pid, `pid ${pid} holds the Cline hub instance lock (${path.relative(dataDir, p)})`)
          } catch {
            // Gone: nobody holds it.
          }
        } else if (n.endsWith('.lock')) {
          const pid = pidIn(path.join(p, 'owner.json'))
          if (pid !== null && isCline(pid)) add(pid, `a Cline process (pid ${pid}) holds the hub startup lock (${path.relative(dataDir, p)})`)
        }
      }
    }
  }
  for (const pid of probe.pids()) {
    if (seen.has(pid) || !isCline(pid) || !mayWrite(pid, dataDir, probe)) continue
    const argv = probe.commandLine(pid) ?? []
    add(pid, argv.includes('--cline-hub-daemon') ? `the Cline hub daemon (pid ${pid}) is running` : `a cline process (pid ${pid}) is running`)
  }
  return signs
}
