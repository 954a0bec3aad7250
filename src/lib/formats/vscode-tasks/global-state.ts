/**
 * Kilo Code's extension task list, kept in VS Code's own state database: read on a private copy, never
 * written.
 *
 * Kilo Code's extension (Kilo-Org/kilocode-legacy `56b73d3`, 5.10.4: `src/core/config/ContextProxy.ts`
 * `PASS_THROUGH_STATE_KEYS = ["taskHistory"]`, `src/core/webview/ClineProvider.ts` `updateTaskHistory`, which
 * pushes or merges the task's `HistoryItem` and writes the whole list back with `globalState.update`) keeps no
 * `tasks/_index.json` and no `history_item.json` (Roo Code's `TaskHistoryStore` is not in it): its task list is
 * the `taskHistory` member of its global state. VS Code keeps each extension's global state as one row of
 * `<profile>/User/globalStorage/state.vscdb` (microsoft/vscode `src/vs/base/parts/storage/node/storage.ts`:
 * `ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)`, a rollback journal, no WAL; `state.vscdb.backup`
 * copied at each clean close), its key the extension id (`kilocode.kilo-code`), its value the JSON text of the
 * whole state object. VS Code loads it at start and writes it back while it runs, so the file says what the
 * History view will list at the next start, and a write to it while an editor runs is lost.
 */
import {lstatSync} from 'node:fs'
import path from 'node:path'
import {headerVerdict, quickCheck, readHead, withPrivateCopy} from '../../sqlite/index.js'
import type {FileClass} from '../../model/report.js'

/** VS Code's state database, in the `globalStorage` folder beside the extensions' storage folders. */
export const STATE_DB = 'state.vscdb'
/** Largest state database copied to be read (bytes): a larger one (an editor that keeps chats in it) is not read. */
export const MAX_COPY_BYTES = 512 << 20
/** Kilo Code's extension id: the key of its global state row. */
export const KILO_STATE_KEY = 'kilocode.kilo-code'

/** What the state database says of Kilo Code's task list. */
export interface GlobalStateList {
  /** The database, relative to the storage folder (`../state.vscdb`). */
  file: string
  /** Task ids the list holds; null when the list cannot be read (`class`, `reasons`, `why`). */
  ids: Set<string> | null
  class?: FileClass
  reasons?: string[]
  why?: string
}

/** An extension's global state object as VS Code keeps it in `state.vscdb`, or why it cannot be read. */
export type ExtensionState = {file: string; state: Record<string, unknown> | null} | {file: string; class: FileClass; reasons: string[]; why: string}

/**
 * Reads the global state object of the extension `key` (its row of `ItemTable`) from the `state.vscdb` beside
 * the storage folder `root` (a `globalStorage/<id>` folder), on a private copy: `state` null when the row is
 * not there or holds no object; null when there is no such database (a custom storage path, another layout). Never throws.
 */
export async function readExtensionState(root: string, key: string): Promise<ExtensionState | null> {
  const globalStorage = path.dirname(root)
  if (path.basename(globalStorage) !== 'globalStorage') return null
  const db = path.join(globalStorage, STATE_DB)
  const file = path.join('..', STATE_DB)
  try {
    const st = lstatSync(db)
    if (!st.isFile()) return {file, class: 'corrupt', reasons: ['not-a-file'], why: 'not a regular file'}
    if (st.size > MAX_COPY_BYTES) return {file, class: 'corrupt', reasons: ['unreadable'], why: `it is larger than ${MAX_COPY_BYTES} bytes and is not copied to be read`}
  } catch {
    return null
  }
  try {
    if (lstatSync(`${db}-journal`).size > 0) return {file, class: 'corrupt', reasons: ['unreadable'], why: `${STATE_DB}-journal is beside it (VS Code is writing it, or stopped while writing)`}
  } catch {
    // no hot journal
  }
  let head: Buffer
  try {
    head = await readHead(db)
  } catch (e) {
    return {file, class: 'corrupt', reasons: ['unreadable'], why: String((e as Error)?.message ?? e).split('\n')[0]}
  }
  const h = headerVerdict(head).kind
  if (h === 'empty') return {file, class: 'empty', reasons: [], why: 'empty'}
  if (h === 'zeroed') return {file, class: 'corrupt', reasons: ['nul-run'], why: 'its header is zero-filled'}
  if (h === 'foreign') return {file, class: 'corrupt', reasons: ['wrong-shape'], why: 'not a SQLite database'}
  const r = await withPrivateCopy(globalStorage, STATE_DB, ({db: conn}) => {
    const check = quickCheck(conn)
    if (check.length !== 1 || check[0] !== 'ok') return {why: `it fails its check (${check[0]})`}
    let row: {value: unknown} | undefined
    try {
      row = conn.prepare('SELECT value FROM ItemTable WHERE key = ?').get(key) as {value: unknown} | undefined
    } catch {
      return {why: 'it has no ItemTable of the shape VS Code writes'}
    }
    if (!row) return {state: null}
    const text = Buffer.isBuffer(row.value) ? row.value.toString('utf8') : typeof row.value === 'string' ? row.value : null
    let state: unknown
    try {
      state = text === null ? undefined : JSON.parse(text)
    } catch {
      return {why: `the ${key} value is not JSON`}
    }
    // A value that is not an object holds no state member (as VS Code's `globalState.get` reads it).
    if (typeof state !== 'object' || state === null || Array.isArray(state)) return {state: null}
    return {state: state as Record<string, unknown>}
  })
  if ('error' in r) return {file, class: 'corrupt', reasons: ['unreadable'], why: `it could not be read on a private copy (${r.error})`}
  if ('why' in r) return {file, class: 'corrupt', reasons: ['wrong-shape'], why: r.why!}
  return {file, state: r.state ?? null}
}

/** The ids of the entries of a `HistoryItem[]`, as the extensions key them. */
export function entryIds(list: readonly unknown[]): Set<string> {
  const ids = new Set<string>()
  for (const e of list) if (typeof e === 'object' && e !== null && typeof (e as {id?: unknown}).id === 'string') ids.add((e as {id: string}).id)
  return ids
}

/**
 * Reads Kilo Code's task list from the `state.vscdb` beside the storage folder `root` (a `globalStorage/<id>`
 * folder), on a private copy; null when there is no such database (a custom storage path, another layout).
 * Never throws.
 */
export async function readKiloList(root: string): Promise<GlobalStateList | null> {
  const r = await readExtensionState(root, KILO_STATE_KEY)
  if (r === null) return null
  if (!('state' in r)) return {file: r.file, ids: null, class: r.class, reasons: r.reasons, why: r.why}
  const list = r.state?.taskHistory
  if (list === undefined) return {file: r.file, ids: new Set<string>()}
  if (!Array.isArray(list)) return {file: r.file, ids: null, class: 'corrupt', reasons: ['wrong-shape'], why: 'its taskHistory is not a list'}
  return {file: r.file, ids: entryIds(list)}
}

/** Cline's extension id: the key of its global state row. */
export const CLINE_STATE_KEY = 'saoudrizwan.claude-dev'

/**
 * What Cline's next start adds to its list from VS Code's global state (cline/cline v3.89.2
 * `apps/vscode/src/extension.ts` `cleanupLegacyVSCodeStorage`, `core/storage/state-migrations.ts`
 * `migrateTaskHistoryToFile`): while the `saoudrizwan.claude-dev` row holds no `lastShownAnnouncementId`, each
 * start takes that row's `taskHistory`, when it is a list with entries, writes `state/taskHistory.json` as the
 * file's list followed by it (no entry dropped, none merged by id), and clears it from the row. `ids` those
 * entries' ids (empty when nothing is pending), or why it cannot be known; null when there is no database.
 */
export async function readClinePending(root: string): Promise<{file: string; ids: Set<string>} | {file: string; why: string} | null> {
  const r = await readExtensionState(root, CLINE_STATE_KEY)
  if (r === null) return null
  if (!('state' in r)) return {file: r.file, why: r.why}
  const list = r.state?.taskHistory
  if (r.state === null || r.state.lastShownAnnouncementId !== undefined || !Array.isArray(list)) return {file: r.file, ids: new Set()}
  return {file: r.file, ids: entryIds(list)}
}
