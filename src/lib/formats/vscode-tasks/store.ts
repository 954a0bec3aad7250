/**
 * The storage folder of an extension (`<globalStorage>/<extension id>/`, or Roo Code's / Kilo Code's
 * `customStoragePath`) as a store: its `tasks/<taskId>/` folders are the chats, and the task index beside
 * them says which the extension lists. Read-only: directory listings and the index file's bytes.
 *
 * Indexes (docs/formats.md): Roo Code ≥ 3.48.1 `tasks/_index.json` = `{version: 1, updatedAt, entries:
 * HistoryItem[]}`, a cache rebuilt at every start from each task's `history_item.json` (TaskHistoryStore
 * `reconcile`: a task folder whose `history_item.json` is missing or unreadable is not listed); Cline ≥ 3.28.0
 * `state/taskHistory.json` = `HistoryItem[]` (an unreadable one makes Cline offer to reconstruct it from the
 * task folders; declined, its list is wiped). Kilo Code's extension keeps the list in VS Code's own
 * `state.vscdb` (global-state.ts: read on a private copy); older Roo Code did too (not read here), and older
 * Cline did: what Cline's next start migrates from there into a missing or present list counts as listed.
 */
import {lstatSync, readdirSync, readFileSync, statSync} from 'node:fs'
import path from 'node:path'
import {classifyJsonBytes} from '../../classify/index.js'
import type {FileClass} from '../../model/report.js'
import type {ChatUnit, StoreListing} from '../../model/adapter.js'
import {CLINE_INDEX, HISTORY_ITEM, ROO_INDEX, isInStorage, isTaskDir, variantOfFiles, variantOfRoot, type Variant} from './layout.js'

export {isInStorage, isStorageRoot} from './layout.js'
import {STATE_DB, readClinePending, readKiloList} from './global-state.js'

/** What the task index says of one task. */
export interface IndexFacts {
  /** The index file, relative to the storage folder (`tasks/_index.json`, `state/taskHistory.json`). */
  file: string
  /**
   * `listed`, `not-listed`, the index cannot be read (`damaged`: its class in `class`), or Roo Code's
   * `tasks/_index.json` is not there while other tasks of the folder have a `history_item.json` (`absent`: a
   * version that keeps them, 3.48.1 or later, rebuilds the index from those files), or Cline's
   * `state/taskHistory.json` is not there (`absent`: Cline lists nothing but what its next start takes from VS
   * Code's global state; a task among those is `listed`).
   */
  state: 'listed' | 'not-listed' | 'damaged' | 'absent'
  class?: FileClass
  reasons?: string[]
  /** Why a damaged index cannot be read, in words (Kilo Code's list in VS Code's state database). */
  why?: string
  /** Entries the index holds (when it could be read). */
  entries?: number
  /**
   * Cline: the `state` folder is a symbolic link (`link`: read through, never written through), its list is one
   * (`list-link`: likewise), or the folder is not there (`missing`); absent when it is a folder.
   */
  folder?: 'link' | 'list-link' | 'missing'
  /** Cline, its list file missing: entries its next start takes from VS Code's global state (global-state.ts `readClinePending`). */
  pending?: number
}

/** What `listStore` hands to `diagnose` for one task folder. */
export interface TaskFacts {
  kind: 'vscode-task'
  variant: Variant
  /** The task index's say on this task; null when the folder has no index this version writes to a file. */
  index: IndexFacts | null
}

/** Largest index file read (bytes); a bigger one is reported as not read. */
const MAX_INDEX_BYTES = 256 << 20

interface ReadIndex {
  file: string
  ids: Set<string> | null
  class?: FileClass
  reasons?: string[]
  why?: string
  /** Cline: the list file is not there (`ids` then holds what its next start takes from VS Code's global state). */
  absent?: boolean
  folder?: 'link' | 'list-link' | 'missing'
  /** Cline: ids of the entries its next start appends from VS Code's global state. */
  pendingIds?: Set<string>
}

/**
 * How Cline's `state` folder and its list are there: a folder holding a regular list or none (undefined), a
 * folder that is a symbolic link (`link`), a list that is a symbolic link (`list-link`), or no folder at all.
 * chatdoctor never writes through either link.
 */
function stateFolderOf(root: string): 'link' | 'list-link' | 'missing' | undefined {
  try {
    if (lstatSync(path.join(root, path.dirname(CLINE_INDEX))).isSymbolicLink()) return 'link'
  } catch {
    return 'missing'
  }
  try {
    return lstatSync(path.join(root, CLINE_INDEX)).isSymbolicLink() ? 'list-link' : undefined
  } catch {
    return undefined
  }
}

/**
 * Cline's list: `readIndex`, and when the file is not there, the ids its next start takes from VS Code's global
 * state (an unreadable state database: the list is `damaged`, what Cline will list unknown).
 */
async function readClineIndex(root: string, read: (root: string, rel: string, shape: 'cline') => ReadIndex | null): Promise<ReadIndex> {
  const folder = stateFolderOf(root)
  const index = read(root, CLINE_INDEX, 'cline')
  const pending = await readClinePendingOnce(root)
  if (index) {
    // A task among those Cline's next start appends is listed then (a state database that cannot be read changes nothing here).
    const more = pending && 'ids' in pending && index.ids !== null && pending.ids.size > 0 ? {pendingIds: pending.ids} : {}
    return {...index, ...more, ...(folder ? {folder} : {})}
  }
  if (pending && 'why' in pending) return {file: CLINE_INDEX, ids: null, class: 'missing', reasons: [], why: `what Cline's next start takes into it from VS Code's globalStorage/${STATE_DB} is unknown (${pending.why})`, absent: true, ...(folder ? {folder} : {})}
  return {file: CLINE_INDEX, ids: pending?.ids ?? new Set(), absent: true, ...(folder ? {folder} : {})}
}

/**
 * `read(root)` of VS Code's state database beside `root`, reusing the last result of the same reader while the
 * database's path, size, mtime and inode are the same (a PATH `tasks/` reads it once for all its task folders).
 */
function onceByStateDb<T>(read: (root: string) => Promise<T>): (root: string) => Promise<T> {
  let last: {key: string; r: T} | null = null
  return async (root) => {
    const db = path.join(path.dirname(root), STATE_DB)
    let key: string
    try {
      const st = statSync(db)
      key = `${db}\0${st.size}\0${st.mtimeMs}\0${st.ino}`
    } catch {
      return read(root)
    }
    if (last?.key !== key) last = {key, r: await read(root)}
    return last.r
  }
}

/** `readClinePending`, once per state database. */
const readClinePendingOnce = onceByStateDb(readClinePending)

/** Reads one index file; null when it does not exist. */
function readIndex(root: string, rel: string, shape: 'roo' | 'cline'): ReadIndex | null {
  const p = path.join(root, rel)
  let data: Buffer
  try {
    const st = statSync(p)
    if (!st.isFile()) return {file: rel, ids: null, class: 'corrupt', reasons: ['not-a-file']}
    if (st.size > MAX_INDEX_BYTES) return {file: rel, ids: null, class: 'corrupt', reasons: ['unreadable']}
    data = readFileSync(p)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    return {file: rel, ids: null, class: 'corrupt', reasons: ['unreadable']}
  }
  const c = classifyJsonBytes(data)
  if (c.class !== 'intact') return {file: rel, ids: null, class: c.class, reasons: c.reasons}
  const v = c.value as {version?: unknown; entries?: unknown} | unknown[]
  const entries = shape === 'roo' ? (!Array.isArray(v) && (v as {version?: unknown}).version === 1 ? (v as {entries?: unknown}).entries : undefined) : v
  if (!Array.isArray(entries)) return {file: rel, ids: null, class: 'corrupt', reasons: ['wrong-shape']}
  const ids = new Set<string>()
  for (const e of entries) if (typeof e === 'object' && e !== null && typeof (e as {id?: unknown}).id === 'string') ids.add((e as {id: string}).id)
  return {file: rel, ids}
}

function factsOf(index: ReadIndex | null, id: string): IndexFacts | null {
  if (!index) return null
  const folder = index.folder ? {folder: index.folder} : {}
  if (index.ids === null) return {file: index.file, state: 'damaged', class: index.class, reasons: index.reasons, ...(index.why !== undefined ? {why: index.why} : {}), ...folder}
  if (index.absent) return {file: index.file, state: index.ids.has(id) ? 'listed' : 'absent', entries: 0, pending: index.ids.size, ...folder}
  return {file: index.file, state: index.ids.has(id) || index.pendingIds?.has(id) === true ? 'listed' : 'not-listed', entries: index.ids.size, ...folder}
}

function message(e: unknown): string {
  const err = e as NodeJS.ErrnoException
  if (err?.code === 'EACCES' || err?.code === 'EPERM') return 'permission denied (run as a user who can read it)'
  return err?.message ?? String(e)
}

/**
 * Lists the task folders of a storage folder with what its index says of each. Names starting with `_` or
 * `.` are not tasks (the extensions skip them too); symbolic links are not followed; a folder that holds no
 * task file is not a task. Never throws.
 */
export async function listStorage(root: string): Promise<StoreListing> {
  const out: StoreListing = {chats: [], errors: []}
  const tasks = path.join(root, 'tasks')
  let entries
  try {
    entries = readdirSync(tasks, {withFileTypes: true})
  } catch (e) {
    out.errors.push({path: tasks, message: message(e)})
    return out
  }
  const rootVariant = variantOfRoot(root) ?? 'unknown'
  const index = rootVariant === 'cline' ? await readClineIndex(root, readIndex) : rootVariant === 'kilo' ? await readKiloList(root) : rootVariant === 'unknown' ? null : readIndex(root, path.join('tasks', ROO_INDEX), 'roo')
  // Roo Code's per-task history files tell a version that keeps `_index.json` (and rebuilds it) from one that keeps its list in VS Code's state.
  let withHistoryItem = 0
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!e.isDirectory() || e.name.startsWith('_') || e.name.startsWith('.') || e.name.includes('\uFFFD')) continue
    const dir = path.join(tasks, e.name)
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch (err) {
      out.errors.push({path: dir, message: message(err)})
      continue
    }
    if (!isTaskDir(names)) continue
    const variant = rootVariant !== 'unknown' ? rootVariant : variantOfFiles(names)
    const facts: TaskFacts = {kind: 'vscode-task', variant, index: factsOf(index, e.name)}
    if (names.includes(HISTORY_ITEM)) withHistoryItem++
    const unit: ChatUnit = {dir, path: dir, facts, listing: names}
    out.chats.push(unit)
  }
  if (rootVariant === 'roo' && index === null && withHistoryItem > 0) {
    for (const unit of out.chats) (unit.facts as TaskFacts).index = {file: path.join('tasks', ROO_INDEX), state: 'absent'}
  }
  return out
}

/** The ids of the last index file read for a task folder given on its own, by its path and what `stat` said of it. */
let lastIndex: {key: string; index: ReadIndex | null} | null = null

/** `readIndex`, reusing the last result while the file's path, size, mtime and inode are the same. */
function readIndexOnce(root: string, rel: string, shape: 'roo' | 'cline'): ReadIndex | null {
  let key: string
  try {
    const st = statSync(path.join(root, rel))
    key = `${path.join(root, rel)}\0${st.size}\0${st.mtimeMs}\0${st.ino}`
  } catch {
    return readIndex(root, rel, shape)
  }
  if (lastIndex?.key !== key) lastIndex = {key, index: readIndex(root, rel, shape)}
  return lastIndex.index
}

/** `readKiloList`, once per state database. */
const readKiloListOnce = onceByStateDb<ReadIndex | null>(readKiloList)

/** True when some task folder of `tasks` holds a `history_item.json` (stops at the first). */
function anyHistoryItem(tasks: string): boolean {
  let entries
  try {
    entries = readdirSync(tasks, {withFileTypes: true})
  } catch {
    return false
  }
  for (const e of entries) {
    if (!e.isDirectory() || e.name.startsWith('_') || e.name.startsWith('.')) continue
    try {
      if (statSync(path.join(tasks, e.name, HISTORY_ITEM)).isFile()) return true
    } catch {
      // none in this one
    }
  }
  return false
}

/**
 * A task folder given on its own (a PATH below the storage folder, or its `tasks` folder), listed with what its
 * storage folder's task index says of it, so that it is diagnosed as in a scan of the storage folder (the same
 * rules as `listStorage`). The index file's ids are kept for the next task folder while the file is unchanged
 * (a PATH `tasks/` lists each task this way). Never throws.
 */
export async function listTaskOfStorage(dir: string): Promise<StoreListing> {
  // A folder laid out elsewhere (an archive's member extracted for `check`): the folder alone.
  if (!isInStorage(dir)) return {chats: [{dir, path: dir}], errors: []}
  const root = path.dirname(path.dirname(dir))
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch (e) {
    return {chats: [], errors: [{path: dir, message: message(e)}]}
  }
  const rootVariant = variantOfRoot(root) ?? 'unknown'
  const index = rootVariant === 'cline' ? await readClineIndex(root, readIndexOnce) : rootVariant === 'kilo' ? await readKiloListOnce(root) : readIndexOnce(root, path.join('tasks', ROO_INDEX), 'roo')
  const facts: TaskFacts = {kind: 'vscode-task', variant: rootVariant !== 'unknown' ? rootVariant : variantOfFiles(names), index: factsOf(index, path.basename(dir))}
  if (rootVariant === 'roo' && index === null && (names.includes(HISTORY_ITEM) || anyHistoryItem(path.dirname(dir)))) facts.index = {file: path.join('tasks', ROO_INDEX), state: 'absent'}
  return {chats: [{dir, path: dir, facts, listing: names}], errors: []}
}
