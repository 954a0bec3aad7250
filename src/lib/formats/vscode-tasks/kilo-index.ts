/**
 * Kilo Code's extension task list (the `taskHistory` of its row in VS Code's `globalStorage/state.vscdb`,
 * global-state.ts) as a chat of its own, role `index`: read on a private copy with the task folders it does not
 * list, diagnosed, held against the task chats (`annotate`), and repaired.
 *
 * The repair, in one transaction on a private copy of the database: the row's value (the JSON text of Kilo
 * Code's whole global state, as VS Code writes it with `JSON.stringify`) gets the entries of the hidden task
 * folders inserted before the closing bracket of its `taskHistory` array, every other character of the value
 * kept (checked: the new value is the old one with only that insertion), each entry rebuilt from the task's own
 * files as Kilo Code's `taskMetadata` derives it (the derivation Roo Code shares, history-item.ts). The copy's
 * bytes are then written over the original by the usual durable write, the original kept as evidence; `undo`
 * puts every byte back. Only when no process holds the database open (an editor of the VS Code family running
 * with the profile loads the state at start and writes it back, so a change under it would be lost, or lose
 * what it writes to the replaced file): Linux `/proc` tells; elsewhere nothing does, and the repair is refused.
 * A database with a hot journal, or a non-empty `-wal` or `-shm`, beside it (`walBeside`), one that fails its check,
 * a value that is not the `JSON.stringify` of itself: diagnosed, never written. The private copy is made with
 * its `-wal` and `-shm`, so it reads what SQLite (and the editor) would.
 */
import {createHash} from 'node:crypto'
import {lstatSync, readdirSync} from 'node:fs'
import path from 'node:path'
import type {ChatDirSnapshot, ChatPlan, Diagnosis, IndexAnnotation, ScannedChat, StoreListing} from '../../model/adapter.js'
import type {ChatStatus, Finding, Generation} from '../../model/report.js'
import {quickCheck, repairedBytes, withPrivateCopy} from '../../sqlite/index.js'
import {finding} from './findings.js'
import {KILO_STATE_KEY, MAX_COPY_BYTES, STATE_DB} from './global-state.js'
import {entryFiles} from './cline-index.js'
import {rebuildHistoryItem} from './history-item.js'
import {FORMAT_OF, isTaskDir} from './layout.js'
import type {TaskFacts} from './store.js'

/** Kilo Code's storage folder name in `globalStorage`. */
const KILO_FOLDER = KILO_STATE_KEY
/** Largest database and task file read for a repair (bytes). */
const MAX_BYTES = 256 << 20
const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** A task folder the list does not hold: its rebuilt entry, or why there is none. */
export interface KiloHidden {
  id: string
  entry?: string
  fields?: string[]
  why?: string
}

/** What chatdoctor read of Kilo Code's list in VS Code's state database. */
export interface KiloListFacts {
  kind: 'kilo-global-state'
  /** The `globalStorage` folder (the chat's dir). */
  globalStorage: string
  /** Entries the list holds. */
  entries: number
  hidden: KiloHidden[]
  /** Why the database is not written (a hot journal, a failed check, a value that does not round-trip), or null. */
  blocked: string | null
  /** The database's bytes after the repair (made on a private copy), or null when none is due or it failed. */
  repaired: {bytes: Buffer; sha256: string} | null
}

/** The list facts of a snapshot, when it is Kilo Code's task-list chat. */
export function kiloListFactsOf(snapshot: Pick<ChatDirSnapshot, 'unit'>): KiloListFacts | null {
  const f = snapshot.unit.facts as KiloListFacts | undefined
  return f && f.kind === 'kilo-global-state' ? f : null
}

/**
 * `value` with `entries` added at the end of its `taskHistory` array, when `value` is exactly the
 * `JSON.stringify` of what it holds (as VS Code writes it) and the result differs from it only by that
 * insertion; otherwise why not.
 */
export function insertEntries(value: string, entries: readonly string[]): {value: string} | {why: string} {
  let state: unknown
  try {
    state = JSON.parse(value)
  } catch {
    return {why: `its ${KILO_STATE_KEY} value is not JSON`}
  }
  if (typeof state !== 'object' || state === null || Array.isArray(state) || !Array.isArray((state as {taskHistory?: unknown}).taskHistory)) return {why: `its ${KILO_STATE_KEY} value holds no taskHistory list`}
  if (JSON.stringify(state) !== value) return {why: `its ${KILO_STATE_KEY} value is not written as VS Code writes it (JSON.stringify), so an insertion could not keep its other bytes`}
  const list = (state as {taskHistory: unknown[]}).taskHistory
  const next = JSON.stringify({...(state as object), taskHistory: [...list, ...entries.map((e) => JSON.parse(e) as unknown)]})
  const add = `${list.length > 0 ? ',' : ''}${entries.join(',')}`
  let k = 0
  while (k < value.length && value[k] === next[k]) k++
  // The insertion goes right before the array's closing bracket: whatever shared characters precede it.
  while (k > 0 && next.slice(k, k + add.length) !== add) k--
  if (next.length !== value.length + add.length || next.slice(k, k + add.length) !== add || next.slice(0, k) !== value.slice(0, k) || next.slice(k + add.length) !== value.slice(k)) return {why: 'the list could not be extended by an insertion alone'}
  return {value: next}
}

/**
 * Reads Kilo Code's list in `<globalStorage>/state.vscdb` (`dir`) into one chat, with a rebuilt entry for each
 * task folder of `<globalStorage>/kilocode.kilo-code/tasks` it does not hold, and the database's bytes once they
 * are added (made on a private copy); null when `dir` is not such a folder. Read-only; never throws.
 */
export async function readKiloIndex(dir: string): Promise<StoreListing | null> {
  if (path.basename(dir) !== 'globalStorage') return null
  const db = path.join(dir, STATE_DB)
  const tasks = path.join(dir, KILO_FOLDER, 'tasks')
  let size: number
  try {
    const st = lstatSync(db)
    if (!st.isFile()) return null
    size = st.size
    if (size > MAX_COPY_BYTES || !lstatSync(tasks).isDirectory()) return null
  } catch {
    return null
  }
  const facts: KiloListFacts = {kind: 'kilo-global-state', globalStorage: dir, entries: 0, hidden: [], blocked: null, repaired: null}
  const members = [STATE_DB]
  try {
    if (lstatSync(`${db}-journal`).size > 0) {
      facts.blocked = `${STATE_DB}-journal is beside it (VS Code is writing it, or stopped while writing)`
      members.push(`${STATE_DB}-journal`)
    }
  } catch {
    // no hot journal
  }
  const wal = walBeside(db)
  members.push(...wal.present)
  if (wal.why !== null) facts.blocked ??= wal.why
  const read = await withPrivateCopy(dir, STATE_DB, ({db: conn}) => {
    const check = quickCheck(conn)
    if (check.length !== 1 || check[0] !== 'ok') return {why: `it fails its check (${check[0]})`}
    const row = conn.prepare('SELECT value FROM ItemTable WHERE key = ?').get(KILO_STATE_KEY) as {value: unknown} | undefined
    if (!row) return {why: `it has no ${KILO_STATE_KEY} row`}
    // VS Code hands a BLOB value to the extension as its UTF-8 text too, so the list is read from it either way.
    return Buffer.isBuffer(row.value) ? {value: row.value.toString('utf8'), blob: true} : typeof row.value === 'string' ? {value: row.value, blob: false} : {value: null, blob: false}
  })
  if ('error' in read) return null
  if ('why' in read || read.value === null) {
    facts.blocked ??= 'why' in read ? (read.why ?? null) : `its ${KILO_STATE_KEY} value is not text`
    return {chats: [{dir, path: dir, members, facts}], errors: []}
  }
  if (read.blob) facts.blocked ??= `its ${KILO_STATE_KEY} value is stored as a BLOB, not as the text VS Code writes, so an insertion could not keep its bytes`
  let ids: string[] = []
  try {
    const list = (JSON.parse(read.value) as {taskHistory?: unknown}).taskHistory
    if (Array.isArray(list)) {
      facts.entries = list.length
      ids = list.flatMap((e) => (typeof e === 'object' && e !== null && typeof (e as {id?: unknown}).id === 'string' ? [(e as {id: string}).id] : []))
      // Kilo Code's History view reads ts and task of every element, which throws on a null.
      const junk = list.flatMap((e, i) => (typeof e !== 'object' || e === null || Array.isArray(e) ? [`#${i} ${String(JSON.stringify(e)).slice(0, 30)}`] : []))
      if (junk.length > 0) facts.blocked ??= `its taskHistory holds ${plural(junk.length, 'element')} that ${junk.length === 1 ? 'is not an entry' : 'are not entries'} (${junk.join(', ')}); with every window of the editor closed, delete ${junk.length === 1 ? 'it' : 'them'} (sqlite3, a copy set aside first) and run chatdoctor repair again`
    }
  } catch {
    // judged by insertEntries below
  }
  let names: string[] = []
  try {
    names = readdirSync(tasks).sort()
  } catch {
    // none
  }
  for (const name of names) {
    if (name.startsWith('_') || name.startsWith('.') || ids.includes(name)) continue
    const taskDir = path.join(tasks, name)
    try {
      if (!lstatSync(taskDir).isDirectory() || !isTaskDir(readdirSync(taskDir))) continue
    } catch {
      continue
    }
    const r = rebuildHistoryItem(name, entryFiles(taskDir))
    facts.hidden.push('data' in r ? {id: name, entry: r.data.toString('utf8'), fields: r.fields} : {id: name, why: r.why})
  }
  const entries = facts.hidden.flatMap((h) => (h.entry !== undefined ? [h.entry] : []))
  if (entries.length > 0 && facts.blocked === null) {
    const next = insertEntries(read.value, entries)
    if ('why' in next) facts.blocked = next.why
    else if (size > MAX_BYTES) facts.blocked = `it is larger than ${MAX_BYTES} bytes; it is not repaired in memory`
    else {
      const r = await repairedBytes(dir, STATE_DB, (conn) => {
        conn.prepare('UPDATE ItemTable SET value = ? WHERE key = ?').run(next.value, KILO_STATE_KEY)
      })
      if ('bytes' in r) facts.repaired = {bytes: r.bytes, sha256: createHash('sha256').update(r.bytes).digest('hex')}
      else facts.blocked = `its private copy could not be changed (${r.error})`
    }
  }
  return {chats: [{dir, path: dir, members, facts}], errors: []}
}

/**
 * The `-wal` and `-shm` beside the database, and why they keep it from being written: SQLite replays a WAL
 * over whatever main file it finds beside it (a WAL names no database), so the rebuilt file written over the
 * original with the old WAL left beside it reads as "database disk image is malformed"; moving the WAL aside
 * with it is no cure either, since a run stopped between the move and the rename (or a checkpoint the editor
 * left half done) leaves the old main file without pages only the WAL holds. So a non-empty `-wal` or `-shm`
 * means the database is left for a manual step, like a hot journal; an empty one (or none) cannot be replayed.
 */
export function walBeside(db: string): {present: string[]; why: string | null} {
  const present: string[] = []
  let why: string | null = null
  for (const suffix of ['-wal', '-shm']) {
    try {
      const st = lstatSync(db + suffix)
      present.push(STATE_DB + suffix)
      if (st.size > 0 || !st.isFile()) why ??= `${STATE_DB}${suffix} is beside it (${st.size} bytes: an editor has it open in WAL mode, or stopped without closing it), and SQLite would replay that log over a database written in its place (malformed); quit every window of the editor, fold the log into the database (\`sqlite3 ${STATE_DB} 'PRAGMA wal_checkpoint(TRUNCATE)'\`, which leaves the -wal empty) and run chatdoctor repair again`
    } catch {
      // absent
    }
  }
  return {present, why}
}

/** Why the database may not be written right now because of a `-wal`/`-shm` beside it (empty when none). Read-only; never throws. */
export function kiloWalReasons(globalStorage: string): string[] {
  const why = walBeside(path.join(globalStorage, STATE_DB)).why
  return why === null ? [] : [why]
}

const WHERE = `the taskHistory of ${KILO_STATE_KEY} in VS Code's globalStorage/${STATE_DB}`

/** Diagnoses Kilo Code's task-list chat. Pure. */
export function diagnoseKiloIndex(snapshot: ChatDirSnapshot, f: KiloListFacts): Diagnosis {
  const generations: Generation[] = snapshot.files.map((e) => ({file: e.name, role: 'index', class: e.name === STATE_DB ? (f.blocked?.includes('fails its check') ? 'corrupt' : 'intact') : null, reasons: [], bytes: e.bytes, mtimeMs: e.mtimeMs, sha256: null, turns: null}))
  const findings: Finding[] = []
  let status: ChatStatus = 'healthy'
  const rebuilt = f.hidden.filter((h) => h.entry !== undefined)
  const unbuilt = f.hidden.filter((h) => h.entry === undefined)
  if (rebuilt.length > 0) {
    status = 'repairable'
    const how = f.repaired
      ? `a repair adds ${rebuilt.length === 1 ? 'its entry' : 'their entries'} at the end of the list, rebuilt from each task's own files (${rebuilt[0].fields!.join(', ')}), in one transaction on a private copy of the database written over it, every other byte of the row's value kept; only while no editor of the VS Code family runs with this profile`
      : `chatdoctor does not write it (${f.blocked ?? 'no repair could be prepared'}): to list ${rebuilt.length === 1 ? 'it' : 'them'} again, quit every window of the editor, copy ${STATE_DB} (with any -wal and -shm beside it) aside, and add ${rebuilt.length === 1 ? 'an entry' : 'entries'} with the task's id, ts and task to that taskHistory (sqlite3)`
    findings.push(finding('not-in-index', STATE_DB, `${WHERE} (${f.entries} ${f.entries === 1 ? 'entry' : 'entries'}) does not list ${plural(rebuilt.length, 'task folder')} (${rebuilt.map((h) => h.id).join(', ')}), so Kilo Code does not show ${rebuilt.length === 1 ? 'it' : 'them'}; ${how}`))
  }
  if (unbuilt.length > 0) findings.push(finding('not-in-index', STATE_DB, `${WHERE} does not list ${plural(unbuilt.length, 'task folder')} that cannot be rebuilt from ${unbuilt.length === 1 ? 'its' : 'their'} files: ${unbuilt.map((h) => `${h.id} (${h.why})`).join('; ')}`))
  if (f.blocked !== null && rebuilt.length === 0) findings.push(finding('index-unreadable', STATE_DB, `${STATE_DB}: ${f.blocked}; read only as far as safe, never written`, 'info'))
  return {kind: 'chat', report: {format: FORMAT_OF.kilo, id: 'index', status, winner: STATE_DB, transcriptTurns: null, contextTurns: null, findings, generations, ranking: []}}
}

/** What Kilo Code's task-list chat says of one of its tasks: that its repair (or its step by hand) lists the task again. Pure. */
export function annotateKiloTask(session: Pick<ScannedChat, 'report' | 'snapshot'>, indexes: ReadonlyArray<Pick<ScannedChat, 'report' | 'snapshot'>>): IndexAnnotation | null {
  const tf = session.snapshot.unit.facts as TaskFacts | undefined
  if (tf?.kind !== 'vscode-task' || tf.variant !== 'kilo' || tf.index?.state !== 'not-listed') return null
  const globalStorage = path.dirname(path.dirname(path.dirname(session.snapshot.dir)))
  const idx = indexes.find((i) => kiloListFactsOf(i.snapshot)?.globalStorage === globalStorage)
  const f = idx ? kiloListFactsOf(idx.snapshot) : null
  // Listed again by the list chat's repair, or, when it cannot be written, by the step by hand its plan gives.
  if (!idx || !f || idx.report.status !== 'repairable') return null
  const id = path.basename(session.snapshot.dir)
  return f.hidden.some((h) => h.id === id && h.entry !== undefined) ? {findings: [], repairedBy: idx.snapshot.unit.path} : null
}

/** The repair plan of Kilo Code's task-list chat: the database with the entries added written over it. Pure. */
export function planKiloIndex(chat: ScannedChat): ChatPlan {
  const f = kiloListFactsOf(chat.snapshot)!
  const plan: ChatPlan = {chat, actions: [], watch: chat.snapshot.files.filter((e) => e.kind === 'file').map((e) => ({name: e.name, bytes: e.bytes, mtimeMs: e.mtimeMs})), temps: [], evidenceSub: 'kilo-global-state'}
  if (chat.report.status !== 'repairable') return plan
  if (!f.repaired) {
    plan.manual = chat.report.findings.find((x) => x.id === 'not-in-index')?.message ?? `${STATE_DB} is not repaired by chatdoctor`
    return plan
  }
  if (process.platform !== 'linux') {
    plan.refusal = `refused: on ${process.platform} chatdoctor cannot tell whether an editor of the VS Code family has ${STATE_DB} open (it writes the state back while it runs); quit every window of the editor and add the entries by hand (see the finding)`
    return plan
  }
  const entry = chat.snapshot.files.find((e) => e.name === STATE_DB)
  const sha = entry?.data ? createHash('sha256').update(entry.data).digest('hex') : null
  plan.actions.push({type: 'preserve', from: STATE_DB, to: STATE_DB, sha256: sha})
  plan.actions.push({type: 'restore', from: REBUILT, to: STATE_DB, sha256: f.repaired.sha256, source: {kind: 'bytes', label: REBUILT, data: f.repaired.bytes}, data: f.repaired.bytes})
  plan.statusAfter = 'healthy'
  return plan
}

const REBUILT = `rebuilt:${STATE_DB}`
