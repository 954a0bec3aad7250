/**
 * Is Kilo using a store right now? Kilo locks no file of its store for long: it takes transient lock folders
 * (`~/.local/state/kilo/locks/<sha1>.lock/` with `meta.json` naming its pid, and `heartbeat`; four in one turn,
 * strace-turn-B2.txt) and writes the WAL between them. So the signals are: a running `kilo` process whose
 * environment names this data dir (or cannot be read), and a lock folder held by a running process (or whose
 * heartbeat is fresh). The WAL itself is watched by the repair (size, mtime and sha256 before each write).
 * Linux `/proc` only; read-only.
 */
import {closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type {ChatDirSnapshot} from '../../model/adapter.js'
import {matchingPids} from '../../fsio/agent-processes.js'
import {samePath} from '../../fsio/paths.js'
import {isProcessRunning, processEnvironment} from '../../fsio/proc.js'
import {AGENT_PROCESS, LOCKS, dataDir, stateDirsOf} from './layout.js'

/** A running Kilo process and the data dirs its environment names (null when its environment cannot be read). */
export interface KiloProcess {
  pid: number
  dataDirs: string[] | null
}

/** A lock folder of Kilo's that is held: by a running pid, or with a heartbeat written in the last minute. */
export interface HeldLock {
  lock: string
  pid: number | null
}

/** The data dirs a Kilo process with this environment uses: its data dir and the folder of its `KILO_DB`. */
export function dataDirsOf(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? env.USERPROFILE
  if (!home) return []
  const data = dataDir(home, env)
  const db = env.KILO_DB?.trim()
  return db && db !== ':memory:' ? [data, path.dirname(path.isAbsolute(db) ? db : path.join(data, db))] : [data]
}

/** The running Kilo processes (argv matching `pattern`); none where `/proc` is absent. */
export function kiloProcesses(pattern: RegExp = AGENT_PROCESS): KiloProcess[] {
  return matchingPids(pattern).map((pid) => {
    const env = processEnvironment(pid)
    return {pid, dataDirs: env ? dataDirsOf(env) : null}
  })
}

/** The pid a lock's `meta.json` names (read without following links, at most 4 KiB), or null. */
function lockPid(lockDir: string): number | null {
  let fd: number | undefined
  try {
    fd = openSync(path.join(lockDir, 'meta.json'), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    const st = fstatSync(fd)
    if (!st.isFile() || st.size > 4096) return null
    const buf = Buffer.alloc(st.size)
    const n = readSync(fd, buf, 0, buf.length, 0)
    const v = JSON.parse(buf.subarray(0, n).toString('utf8')) as {pid?: unknown}
    return typeof v.pid === 'number' && Number.isSafeInteger(v.pid) ? v.pid : null
  } catch {
    return null
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Kilo's lock folders under `stateDirs` that are held right now. `nowMs` is for tests. */
export function heldLocks(stateDirs: readonly string[], nowMs = Date.now()): HeldLock[] {
  const out: HeldLock[] = []
  for (const state of stateDirs) {
    const dir = path.join(state, LOCKS)
    let names: string[]
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.lock'))
    } catch {
      continue
    }
    for (const n of names) {
      const lockDir = path.join(dir, n)
      try {
        if (!lstatSync(lockDir).isDirectory()) continue
      } catch {
        continue
      }
      const pid = lockPid(lockDir)
      if (pid !== null) {
        if (isProcessRunning(pid)) out.push({lock: lockDir, pid})
        continue
      }
      try {
        const hb = lstatSync(path.join(lockDir, 'heartbeat'))
        if (nowMs - hb.mtimeMs < 60_000) out.push({lock: lockDir, pid: null})
      } catch {
        // No heartbeat: a lock folder being made or left half removed by a killed Kilo.
      }
    }
  }
  return out
}


/**
 * Why a Kilo store is in use right now: a Kilo process on this data dir (or whose environment cannot be read),
 * a held lock of Kilo's. Empty when none. `processes` and `locks` are for tests.
 */
export function kiloLiveReasons(snapshot: ChatDirSnapshot, processes: KiloProcess[] = kiloProcesses(), locks: HeldLock[] = heldLocks(stateDirsOf(snapshot.dir, os.homedir(), process.env))): string[] {
  const reasons: string[] = []
  for (const p of processes) {
    if (p.dataDirs === null) reasons.push(`Kilo is running (pid ${p.pid}; its environment cannot be read, so it may be using this store)`)
    else if (p.dataDirs.some((d) => samePath(d, snapshot.dir))) reasons.push(`Kilo is running on this store (pid ${p.pid})`)
  }
  for (const l of locks) reasons.push(l.pid !== null ? `Kilo holds its lock ${l.lock} (pid ${l.pid})` : `a Kilo lock is being taken right now (${l.lock}, heartbeat written in the last minute)`)
  return reasons
}
