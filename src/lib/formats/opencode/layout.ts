/**
 * OpenCode's on-disk layout: where its data dir is, which file of the JSON tree plays which role, its ids.
 * Source: peer-formats.md §1.2–1.6 (anomalyco/opencode `storage/json-migration.ts`, `session/session.sql.ts`,
 * `id/id.ts`), checked against the stores OpenCode 1.1.65 and 1.18.33 wrote in `shared/realdata/opencode/`.
 */
import path from 'node:path'
import type {StoreMember} from '../opencode-family/member.js'

/** OpenCode as a member of the store family. */
export const OPENCODE: StoreMember = {format: 'opencode', displayName: 'OpenCode', aDisplayName: 'an OpenCode', command: 'opencode', tempPrefix: 'chatdoctor-opencode-db-'}

/** The JSON tree's root inside the data dir (OpenCode ≤ 1.1.x; left beside the database by 1.2–1.15). */
export const STORAGE = 'storage'
/** The SQLite store's file name on the stable channel (≥ 1.2.0); other channels use `opencode-<channel>.db`. */
export const DATABASE = 'opencode.db'

/** A session id: `ses_` + 26 characters (12 hex of the inverted time, 14 base62); names of real files vary. */
export const SESSION_ID = /^ses_[0-9A-Za-z]+$/
export const MESSAGE_ID = /^msg_[0-9A-Za-z]+$/
export const PART_ID = /^prt_[0-9A-Za-z]+$/

/** The database files of a data dir: `opencode.db` and `opencode-<channel>.db` (peer-formats.md §1.2). */
export function isDatabaseName(name: string): boolean {
  return /^opencode(?:-[A-Za-z0-9._-]+)?\.db$/.test(name)
}

/**
 * OpenCode's data dir: `$XDG_DATA_HOME/opencode`, else `<home>/.local/share/opencode`, the same on macOS and
 * Windows (OpenCode uses `xdg-basedir`, which is not platform-branched; peer-formats.md §1.2).
 */
export function defaultRoots(home: string, env: NodeJS.ProcessEnv): string[] {
  const xdg = env.XDG_DATA_HOME
  return [path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.local', 'share'), 'opencode')]
}

/**
 * True when a folder is an OpenCode data dir, from its entry names: it holds an `opencode*.db`, or a
 * `storage` folder and is itself named `opencode*` (a bare `storage` elsewhere is too common a name).
 */
export function isDataDir(dir: string, names: string[]): boolean {
  if (names.some(isDatabaseName)) return true
  return names.includes(STORAGE) && path.basename(dir).startsWith('opencode')
}

/** What a path below the data dir is, by name (ids come from names, as OpenCode's own importer takes them). */
export type TreeFile =
  | {kind: 'session'; projectId: string; sessionId: string}
  | {kind: 'message'; sessionId: string; messageId: string}
  | {kind: 'part'; messageId: string; partId: string}
  | {kind: 'other'}

/**
 * Classifies a path relative to the data dir (`/`-separated):
 * `storage/session/<projectID>/<sessionID>.json`, `storage/message/<sessionID>/<messageID>.json`,
 * `storage/part/<messageID>/<partID>.json`. Anything else is `other`.
 */
export function treeFileOf(rel: string): TreeFile {
  const p = rel.split('/')
  if (p.length !== 4 || p[0] !== STORAGE || !p[3].endsWith('.json')) return {kind: 'other'}
  const id = p[3].slice(0, -5)
  if (p[1] === 'session') return {kind: 'session', projectId: p[2], sessionId: id}
  if (p[1] === 'message') return {kind: 'message', sessionId: p[2], messageId: id}
  if (p[1] === 'part') return {kind: 'part', messageId: p[2], partId: id}
  return {kind: 'other'}
}

/** Relative path of a session file. */
export const sessionFile = (projectId: string, sessionId: string) => `${STORAGE}/session/${projectId}/${sessionId}.json`
/** Relative path of a message file. */
export const messageFile = (sessionId: string, messageId: string) => `${STORAGE}/message/${sessionId}/${messageId}.json`
/** Relative path of a part file. */
export const partFile = (messageId: string, partId: string) => `${STORAGE}/part/${messageId}/${partId}.json`
/** Stand-in path of a session file that is absent (its project is unknown). */
export const missingSessionFile = (sessionId: string) => `${STORAGE}/session/*/${sessionId}.json`

/**
 * The size cap of `exportFromTree`, in bytes of the session's files: 256 MiB. The export is one JSON string,
 * and V8 strings stop at about 512 M characters; pretty-printing roughly doubles compact bytes.
 */
export const EXPORT_SIZE_CAP_BYTES = 256 * 1024 * 1024
