/**
 * The task-folder layout shared by three VS Code extensions: Roo Code (`rooveterinaryinc.roo-cline`), Kilo
 * Code's extension (`kilocode.kilo-code`) and Cline 3.x (`saoudrizwan.claude-dev`). Each keeps
 * `<storage>/tasks/<taskId>/` with the model context (`api_conversation_history.json`), the transcript
 * (`ui_messages.json`) and sidecars; they differ in how they write (temp names) and where their index is.
 *
 * Sources (docs/formats.md, "VS Code extension task folders", lists file and commit of each fact):
 * RooCodeInc/Roo-Code `src/shared/globalFileNames.ts`, `src/utils/safeWriteJson.ts`, `src/utils/storage.ts`,
 * `src/core/task-persistence/TaskHistoryStore.ts`; Kilo-Org/kilocode-legacy the same files;
 * cline/cline v3.89.2 `apps/vscode/src/core/storage/disk.ts`.
 */
import {readFileSync} from 'node:fs'
import path from 'node:path'
import type {Role} from '../../model/report.js'

/** Which extension wrote a task folder (`unknown` when nothing tells). */
export type Variant = 'roo' | 'kilo' | 'cline' | 'unknown'

/** The report's `format` per variant. */
export const FORMAT_OF: Readonly<Record<Variant, string>> = {roo: 'roo-code', kilo: 'kilo-code', cline: 'cline-extension', unknown: 'vscode-tasks'}
/** The extension's name in words. */
export const PRODUCT_OF: Readonly<Record<Variant, string>> = {roo: 'Roo Code', kilo: 'Kilo Code', cline: 'Cline', unknown: 'the extension'}

/** globalStorage folder names (VS Code lower-cases `<publisher>.<name>`) per variant. */
export const EXTENSION_IDS: ReadonlyArray<[string, Variant]> = [
  ['rooveterinaryinc.roo-cline', 'roo'],
  ['kilocode.kilo-code', 'kilo'],
  ['saoudrizwan.claude-dev', 'cline'],
]

/** The variant whose globalStorage folder this is, by its name. */
export function variantOfRoot(dir: string): Variant | null {
  const base = path.basename(dir).toLowerCase()
  return EXTENSION_IDS.find(([id]) => id === base)?.[1] ?? null
}

export const API_HISTORY = 'api_conversation_history.json'
export const UI_MESSAGES = 'ui_messages.json'
export const TASK_METADATA = 'task_metadata.json'
/** Roo Code ≥ 3.48.1: the task's own history entry (the source of truth of the index). */
export const HISTORY_ITEM = 'history_item.json'
/** Cline: the context manager's edits of past messages (rewritten in place; rebuilt when unreadable). */
export const CONTEXT_HISTORY = 'context_history.json'
/** Cline: per-task settings. */
export const TASK_SETTINGS = 'settings.json'
/** Roo Code ≥ 3.48.1: `tasks/_index.json`, a cache of every task's history entry. */
export const ROO_INDEX = '_index.json'
/** Cline ≥ 3.28.0: `<storage>/state/taskHistory.json`. */
export const CLINE_INDEX = path.join('state', 'taskHistory.json')

const SIDECARS = new Set([TASK_METADATA, HISTORY_ITEM, CONTEXT_HISTORY, TASK_SETTINGS])
/** Files the extensions write into a task folder that are not generations: listed as `other`, never flagged. */
export const KNOWN_OTHER = new Set(['checkpoints', 'claude_messages.json'])

/**
 * Roo Code and Kilo Code `safeWriteJson`: `.<name>.new_<Date.now()>_<Math.random().toString(36).substring(2)>.tmp`
 * (the new bytes, streamed) and `.<name>.bak_<ms>_<rand>.tmp` (the previous file renamed aside, unlinked after
 * the new one is in place).
 */
const SAFE_WRITE = /^\.(.+)\.(new|bak)_(\d+)_([0-9a-z]+)\.tmp$/
/** Cline ≥ 3.40.0 `atomicWriteFile`: `<name>.tmp.<Date.now()>.<Math.random().toString(36).substring(7)>.json`. */
const ATOMIC_TMP = /^(.+)\.tmp\.(\d+)\.([0-9a-z]*)\.json$/
/** proper-lockfile's lock folder `<file>.lock` (Roo Code, Kilo Code), refreshed every 10 s while held, stale after 31 s. */
const LOCK_DIR = /^(.+)\.lock$/

/** What a name in a task folder is a leftover of: the file it belongs to, how, and the time in its name. */
export interface Leftover {
  /** The file whose write left it (`api_conversation_history.json`, …). */
  of: string
  /** `new`: the new bytes of an unfinished write; `bak`: the previous file renamed aside; `tmp`: Cline's temp. */
  kind: 'new' | 'bak' | 'tmp'
  /** The `Date.now()` in its name, ms since epoch. */
  timeMs: number
}

/** The safe-write leftover a name is, or null. */
export function leftoverOf(name: string): Leftover | null {
  let m = SAFE_WRITE.exec(name)
  if (m) return {of: m[1], kind: m[2] as 'new' | 'bak', timeMs: Number(m[3])}
  m = ATOMIC_TMP.exec(name)
  if (m) return {of: m[1], kind: 'tmp', timeMs: Number(m[2])}
  return null
}

/** The file a proper-lockfile lock folder name locks, or null. */
export function lockedFileOf(name: string): string | null {
  const m = LOCK_DIR.exec(name)
  return m && (m[1] === API_HISTORY || m[1] === UI_MESSAGES || SIDECARS.has(m[1])) ? m[1] : null
}

/**
 * The role of a name in a task folder. The model context and its leftovers: `primary`, `temp` (new bytes
 * never renamed into place), `backup` (the previous file renamed aside); the transcript and its leftovers:
 * `transcript`, `transcript-temp`; sidecars: `meta`.
 */
export function roleOf(name: string): Role {
  if (name === API_HISTORY) return 'primary'
  if (name === UI_MESSAGES) return 'transcript'
  if (SIDECARS.has(name)) return 'meta'
  const l = leftoverOf(name)
  if (l?.of === API_HISTORY) return l.kind === 'bak' ? 'backup' : 'temp'
  if (l?.of === UI_MESSAGES) return 'transcript-temp'
  return 'other'
}

/** Whether a diagnosis needs the bytes of a file (the generations, the transcript and the sidecars). */
export function wantsContent(name: string): boolean {
  if (roleOf(name) !== 'other') return true
  const l = leftoverOf(name)
  return l !== null && SIDECARS.has(l.of)
}

/** True when the names look like a task folder: one of its files, or a leftover of one. */
export function isTaskDir(names: readonly string[]): boolean {
  return names.some((n) => n === API_HISTORY || n === UI_MESSAGES || n === HISTORY_ITEM || (leftoverOf(n) !== null && roleOf(n) !== 'other'))
}

/** The variant a task folder's own files betray, or `unknown` (Roo and Kilo write alike). */
export function variantOfFiles(names: readonly string[]): Variant {
  if (names.some((n) => leftoverOf(n)?.kind === 'tmp' || n === CONTEXT_HISTORY || n === TASK_SETTINGS)) return 'cline'
  if (names.includes(HISTORY_ITEM)) return 'roo'
  return 'unknown'
}

/** Task ids: a UUID (Roo Code, Kilo Code: v4, then v7) or `Date.now()` digits (Cline). */
export const TASK_ID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{10,16})$/i

/** The editors of the VS Code family whose user-data folder holds `User/globalStorage/<extension>`. */
export const EDITORS = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf'] as const
/** Their remote-server data folders under the home (`<dir>/data/User/globalStorage`). */
export const SERVER_DIRS = ['.vscode-server', '.vscode-server-insiders', '.vscodium-server', '.cursor-server', '.windsurf-server'] as const

/**
 * The `User` folders of every editor of the family, on Linux (`$XDG_CONFIG_HOME` or `~/.config`), macOS
 * (`~/Library/Application Support`), Windows (`%APPDATA%`, else `~/AppData/Roaming`), the remote servers'
 * `~/<server>/data/User`, and a portable install (`$VSCODE_PORTABLE/user-data/User`). All of them on every OS:
 * those that do not exist are skipped.
 */
export function userDirs(home: string, env: NodeJS.ProcessEnv): string[] {
  const bases = new Set<string>()
  bases.add(env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(home, '.config'))
  bases.add(path.join(home, 'Library', 'Application Support'))
  bases.add(env.APPDATA && path.isAbsolute(env.APPDATA) ? env.APPDATA : path.join(home, 'AppData', 'Roaming'))
  const out: string[] = []
  for (const b of bases) for (const e of EDITORS) out.push(path.join(b, e, 'User'))
  for (const s of SERVER_DIRS) out.push(path.join(home, s, 'data', 'User'))
  if (env.VSCODE_PORTABLE && path.isAbsolute(env.VSCODE_PORTABLE)) out.push(path.join(env.VSCODE_PORTABLE, 'user-data', 'User'))
  return out
}

/** The `customStoragePath` setting of each variant that has one (`<package name>.customStoragePath`). */
const CUSTOM_STORAGE_KEYS: ReadonlyArray<[string, Variant]> = [
  ['roo-cline.customStoragePath', 'roo'],
  ['kilo-code.customStoragePath', 'kilo'],
]

/**
 * The custom storage paths set in one editor's `User/settings.json` (JSON with comments): the string value of
 * each `<package>.customStoragePath` key, when it is an absolute path. The file is the user's and may be
 * anything: read at most 1 MiB, never parsed as a whole, and a value that is not a plain absolute path is
 * ignored. Never throws.
 */
export function customStoragePaths(userDir: string): string[] {
  let text: string
  try {
    const buf = readFileSync(path.join(userDir, 'settings.json'))
    text = buf.subarray(0, 1 << 20).toString('utf8')
  } catch {
    return []
  }
  const out: string[] = []
  for (const [key] of CUSTOM_STORAGE_KEYS) {
    const re = new RegExp(`"${key.replace(/\./g, '\\.')}"\\s*:\\s*("(?:[^"\\\\\\n]|\\\\.)*")`, 'g')
    for (const m of text.matchAll(re)) {
      try {
        const v = JSON.parse(m[1]) as unknown
        if (typeof v === 'string' && v !== '' && path.isAbsolute(v) && !v.includes('\0')) out.push(path.normalize(v))
      } catch {
        // not a JSON string literal: ignored
      }
    }
  }
  return out
}

/**
 * Folders to search when no PATH is given: each extension's globalStorage folder in every editor's `User`
 * folder, and the custom storage paths those editors' settings name.
 */
export function defaultRoots(home: string, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = []
  for (const user of userDirs(home, env)) {
    for (const [id] of EXTENSION_IDS) out.push(path.join(user, 'globalStorage', id))
    out.push(...customStoragePaths(user))
  }
  return [...new Set(out)]
}

/**
 * Home-relative paths through dot-folders to the extensions' storage folders (`FormatAdapter.discoveryPaths`):
 * `.config/<editor>/User/globalStorage/<extension>` (Linux) and `<server>/data/User/globalStorage/<extension>`
 * (remote servers), so that `scan ~` and `scan ~/.config` find the tasks, and enter nothing else of an editor's
 * folders (caches, workspace storage, extensions). macOS and Windows keep them outside dot-folders.
 */
export const DISCOVERY_PATHS: readonly string[] = [
  ...EDITORS.map((e) => `.config/${e}/User`),
  ...SERVER_DIRS.map((s) => `${s}/data/User`),
].flatMap((user) => EXTENSION_IDS.map(([id]) => `${user}/globalStorage/${id}`))

/** The VS Code family's process names as they appear in argv[0] (the main process and its helpers). */
export const EDITOR_PROCESS = /(?:^|[/\\])(?:code|code-insiders|codium|vscodium|cursor|windsurf|code-oss)(?:\.exe)?$/i

/** True when a folder is an extension's storage folder holding tasks (by its name and its `tasks` entry). */
export function isStorageRoot(dir: string, names: readonly string[]): boolean {
  return variantOfRoot(dir) !== null && names.includes('tasks')
}

/** True when a folder is a task folder `<storage>/tasks/<id>/` of an extension's storage folder (by its path alone). */
export function isInStorage(dir: string): boolean {
  const name = path.basename(dir)
  // Names beginning with `_` or `.` in `tasks/` are not tasks to the extensions (listStorage skips them too).
  return !name.startsWith('_') && !name.startsWith('.') && path.basename(path.dirname(dir)) === 'tasks' && variantOfRoot(path.dirname(path.dirname(dir))) !== null
}
