/**
 * Kilo Code CLI's on-disk layout: its data dir, its database's names, its lock folders and its process.
 *
 * Sources: the store the real `@kilocode/cli@7.7.7` wrote (`shared/realdata/kilo/7.7.7/`, new-agents.md §3:
 * `~/.local/share/kilo/kilo.db` with `-wal` and `-shm`, `storage/`, `~/.local/state/kilo/locks/<sha1>.lock/`
 * with `meta.json` and `heartbeat`, `strace-turn-B2.txt`); Kilo-Org/kilocode `packages/core/src/global.ts`
 * (`const app = "kilo"` under xdg-basedir, so `$XDG_DATA_HOME/kilo`, default `~/.local/share/kilo`, on every
 * platform) and its database path rule (the channels `latest`, `beta` and `prod` use `kilo.db`, any other
 * `kilo-<channel>.db`, or the pre-rename `opencode-<channel>.db` while no `kilo-<channel>.db` exists; `KILO_DB`
 * overrides the path: absolute, or relative to the data dir).
 */
import path from 'node:path'
import type {StoreMember} from '../opencode-family/member.js'
import {kiloExportView} from './export-view.js'

/** Kilo as a member of the OpenCode store family. */
export const KILO: StoreMember = {format: 'kilo', displayName: 'Kilo', aDisplayName: 'a Kilo', command: 'kilo', tempPrefix: 'chatdoctor-kilo-db-', exportView: kiloExportView}

/** The store's file name on the `latest`, `beta` and `prod` channels. */
export const DATABASE = 'kilo.db'

/** Kilo's own database names: `kilo.db`, `kilo-<channel>.db`. */
export function isKiloDatabaseName(name: string): boolean {
  return /^kilo(?:-[A-Za-z0-9._-]+)?\.db$/.test(name)
}

/** The name a channel database had before Kilo's rename, read by Kilo while no `kilo-<channel>.db` exists. */
const LEGACY_CHANNEL = /^opencode-([A-Za-z0-9._-]+)\.db$/

/**
 * The databases of a Kilo data dir Kilo itself would open, from its entry names: every `kilo*.db`, and each
 * `opencode-<channel>.db` whose `kilo-<channel>.db` is absent. `kilo.db` first, then by name.
 */
export function databasesOf(names: readonly string[]): string[] {
  const own = names.filter(isKiloDatabaseName)
  const legacy = names.filter((n) => {
    const m = LEGACY_CHANNEL.exec(n)
    return m !== null && !names.includes(`kilo-${m[1]}.db`)
  })
  return [...own, ...legacy].sort((a, b) => (a === DATABASE ? -1 : b === DATABASE ? 1 : a < b ? -1 : a > b ? 1 : 0))
}

/** True for a database file of the store, or its `-wal` or `-shm`. */
export function isStoreFile(name: string): boolean {
  const base = name.replace(/-(?:wal|shm)$/, '')
  return isKiloDatabaseName(base) || LEGACY_CHANNEL.test(base)
}

/** The JSON storage folder beside the database (`storage/migration`, `storage/session_diff/<sessionID>.json`). */
export const STORAGE = 'storage'
/** Where Kilo keeps the file diffs of each session: `storage/session_diff/<sessionID>.json` (`[]` when none). */
export const SESSION_DIFF = 'session_diff'

/**
 * True when a folder is a Kilo data dir, from its entry names: it holds a `kilo*.db`, or it is named `kilo*`
 * and holds `storage/` or an `opencode-<channel>.db` (a pre-rename channel store, which Kilo still reads).
 */
export function isDataDir(dir: string, names: readonly string[]): boolean {
  if (names.some(isKiloDatabaseName)) return true
  return path.basename(dir).startsWith('kilo') && (names.includes(STORAGE) || names.some((n) => LEGACY_CHANNEL.test(n)))
}

const absolute = (p: string | undefined): p is string => typeof p === 'string' && p !== '' && path.isAbsolute(p)

/** Kilo's data dir: `$XDG_DATA_HOME/kilo`, else `<home>/.local/share/kilo` (every platform). */
export function dataDir(home: string, env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_DATA_HOME?.trim()
  return path.join(absolute(xdg) ? xdg : path.join(home, '.local', 'share'), 'kilo')
}

/**
 * The folders searched by default: the data dir, and the folder of the database `KILO_DB` names (absolute, or
 * relative to the data dir; `:memory:` names none).
 */
export function defaultRoots(home: string, env: NodeJS.ProcessEnv): string[] {
  const data = dataDir(home, env)
  const roots = [data]
  const db = env.KILO_DB?.trim()
  if (db && db !== ':memory:') {
    const folder = path.dirname(path.isAbsolute(db) ? db : path.join(data, db))
    if (folder !== data) roots.push(folder)
  }
  return roots
}

/**
 * Kilo's state dirs for a data dir: `$XDG_STATE_HOME/kilo`, `<home>/.local/state/kilo`, and the one beside the
 * data dir (`<x>/share/kilo` → `<x>/state/kilo`), each once.
 */
export function stateDirsOf(data: string, home: string, env: NodeJS.ProcessEnv): string[] {
  const out = new Set<string>()
  const xdg = env.XDG_STATE_HOME?.trim()
  if (absolute(xdg)) out.add(path.join(xdg, 'kilo'))
  out.add(path.join(home, '.local', 'state', 'kilo'))
  const parent = path.dirname(path.dirname(data))
  if (path.basename(path.dirname(data)) === 'share') out.add(path.join(parent, 'state', 'kilo'))
  return [...out]
}

/** The folder of Kilo's lock folders inside a state dir: `locks/<sha1>.lock/{meta.json,heartbeat}`. */
export const LOCKS = 'locks'

/** Kilo's process: its Bun executable `kilo` (`bin/kilo`, `kilo.exe`), or the npm package's launcher. */
export const AGENT_PROCESS = /(?:^|[/\\])kilo(?:\.exe)?$|@kilocode[/\\]cli(?:-[a-z0-9-]+)?[/\\]/
