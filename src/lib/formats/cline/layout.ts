/**
 * Cline CLI's on-disk layout (the SDK store Cline CLI 3.x writes; the VS Code extension's `tasks/<taskId>/`
 * folders are another format). Sources: the store written by cline 3.0.65 in
 * `shared/realdata/cline/3.0.65/home/.cline/data/` (new-agents.md §2.1), and the SDK source of cline/cline
 * (CLI 3.0.56, sdk 0.0.78): `sdk/packages/shared/src/storage/paths.ts` (the data dir and its env overrides),
 * `sdk/packages/core/src/services/session-artifacts.ts` (file names in a session dir),
 * `sdk/packages/core/src/session/services/persistence-service.ts` (session ids),
 * `sdk/packages/core/src/hub/discovery/` (the hub's lock files).
 *
 * ```
 * <data>/sessions/<id>/<id>.json                  session record ("manifest"), pretty JSON
 * <data>/sessions/<id>/<id>.messages.json         the conversation (what resume loads), pretty JSON
 * <data>/sessions/<id>/<id>.compaction.json       compacted view for the model (optional; written atomically)
 * <data>/sessions/<id>/<agentId>[__<task>].messages.json   sub-agent and teammate conversations
 * <data>/db/sessions.db (+ -wal, -shm)            the session index (SQLite)
 * <data>/locks/hub/…                              the hub daemon's discovery record and locks
 * ```
 * `<data>` is `$CLINE_DATA_DIR`, else `$CLINE_DIR/data`, else `~/.cline/data`; `$CLINE_SESSION_DATA_DIR`
 * and `$CLINE_DB_DATA_DIR` move the sessions and db folders on their own.
 */
import path from 'node:path'
import type {ChatUnit} from '../../model/adapter.js'
import type {Role} from '../../model/report.js'

/** The session folder inside the data dir. */
export const SESSIONS = 'sessions'
/** The index folder inside the data dir, and the index file in it. */
export const DB = 'db'
export const INDEX_DB = 'sessions.db'
/** The hub's lock folder inside the data dir. */
export const LOCKS = path.join('locks', 'hub')

/** Session ids: `<epoch ms>_<5 nanoid characters>` (e.g. `1796118198748_i47ig`); `--id` may name others. */
export const SESSION_ID = /^\d{13}_[A-Za-z0-9_-]{5}$/

/** `<id>.messages.json`, the conversation of session `<id>`. */
export const messagesFile = (id: string): string => `${id}.messages.json`
/** `<id>.json`, the session record of session `<id>`. */
export const recordFile = (id: string): string => `${id}.json`
/** `<id>.compaction.json`, the compacted view of session `<id>`. */
export const compactionFile = (id: string): string => `${id}.compaction.json`

/** Env values that name a folder: trimmed, non-empty (the SDK trims them the same way). */
function envDir(env: NodeJS.ProcessEnv, name: string): string | null {
  const v = env[name]?.trim()
  return v ? path.resolve(v) : null
}

/** The data dir: `$CLINE_DATA_DIR`, else `$CLINE_DIR/data`, else `<home>/.cline/data` (paths.ts). */
export function dataDir(home: string, env: NodeJS.ProcessEnv): string {
  return envDir(env, 'CLINE_DATA_DIR') ?? path.join(envDir(env, 'CLINE_DIR') ?? path.join(home, '.cline'), 'data')
}

/** Cline's own folder: `$CLINE_DIR`, else `<home>/.cline` (paths.ts `resolveClineDir`; its file hooks are in `hooks/` there). */
export function clineDir(home: string, env: NodeJS.ProcessEnv): string {
  return envDir(env, 'CLINE_DIR') ?? path.join(home, '.cline')
}

/** The sessions dir: `$CLINE_SESSION_DATA_DIR`, else `<data>/sessions`. */
export function sessionsDir(home: string, env: NodeJS.ProcessEnv): string {
  return envDir(env, 'CLINE_SESSION_DATA_DIR') ?? path.join(dataDir(home, env), SESSIONS)
}

/** Folders searched when no PATH is given: the data dir, and the sessions dir when it is moved out of it. */
export function defaultRoots(home: string, env: NodeJS.ProcessEnv): string[] {
  const data = dataDir(home, env)
  const sessions = envDir(env, 'CLINE_SESSION_DATA_DIR')
  return sessions && sessions !== path.join(data, SESSIONS) ? [data, sessions] : [data]
}

/** What a folder is, from its own path and the names in it (no disk access). */
export type FolderKind = 'data' | 'sessions' | 'session' | null

/** Names only a Cline data dir holds beside `sessions`. */
const DATA_SIBLINGS = ['db', 'locks', 'settings', 'logs', 'cache']

/**
 * Recognises a Cline folder by name:
 * - a data dir: it holds `sessions` and at least two of `db`, `locks`, `settings`, `logs`, `cache`;
 * - a sessions dir: named `sessions`, holding at least one folder named like a session id;
 * - a session dir: it holds `<name>.messages.json` for its own name, or `<name>.json` when its name is a
 *   session id, or (a copy under another name, e.g. a bundle's temp folder) some `<id>.messages.json` with a
 *   session id.
 */
export function folderKind(dir: string, names: readonly string[]): FolderKind {
  const base = path.basename(dir)
  if (names.includes(SESSIONS) && DATA_SIBLINGS.filter((n) => names.includes(n)).length >= 2) return 'data'
  if (sessionIdIn(base, names) !== null) return 'session'
  if (base === SESSIONS && names.some((n) => SESSION_ID.test(n))) return 'sessions'
  return null
}

/**
 * The id of the session whose files sit in a folder, from its name and its entries; null when none. The
 * folder's own name wins when its files are there; otherwise the id that has both files, then any session-id
 * named messages file.
 */
export function sessionIdIn(base: string, names: readonly string[]): string | null {
  const has = new Set(names)
  if (has.has(messagesFile(base)) || (SESSION_ID.test(base) && has.has(recordFile(base)))) return base
  const stems = names.filter((n) => n.endsWith('.messages.json')).map((n) => n.slice(0, -'.messages.json'.length))
  const both = stems.filter((s) => has.has(recordFile(s)) && SESSION_ID.test(s))
  if (both.length > 0) return both.sort()[0]
  const ids = stems.filter((s) => SESSION_ID.test(s)).sort()
  return ids[0] ?? null
}

/** True when the data dir is certainly Cline's (so discovery need not look below it). */
export function isCertainDataDir(dir: string, names: readonly string[]): boolean {
  return (path.basename(dir) === 'data' && path.basename(path.dirname(dir)) === '.cline') || (names.includes('locks') && names.includes(DB))
}

/** The part a file of a session dir plays, by name. */
export function roleIn(sessionId: string, name: string): Role {
  if (name === messagesFile(sessionId)) return 'primary'
  if (name === recordFile(sessionId) || name === compactionFile(sessionId)) return 'meta'
  return 'other'
}

/** A sub-agent's or teammate's conversation in the root session's folder (`<agentId>[__<task>].messages.json`). */
export function isChildMessagesFile(sessionId: string, name: string): boolean {
  return name.endsWith('.messages.json') && name !== messagesFile(sessionId) && !name.startsWith('.')
}

/** Files of a session dir whose bytes are read: every `.json` (never chatdoctor's own). */
export function wantsContent(name: string): boolean {
  return name.endsWith('.json') && !name.startsWith('.chatdoctor')
}

/** The folders that may hold the index of the Cline sessions found: `<data>/db` of each. Pure. */
export function clineStoresOf(chats: readonly ChatUnit[]): string[] {
  const out = new Set<string>()
  for (const c of chats) {
    const d = (c.facts as {dataDir?: string | null} | undefined)?.dataDir
    if (typeof d === 'string') out.add(path.join(d, DB))
  }
  return [...out]
}
