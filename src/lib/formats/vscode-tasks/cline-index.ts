/**
 * The Cline extension's task list (`<storage>/state/taskHistory.json`, a `HistoryItem[]`) as a chat of its own,
 * role `index`: read with the task folders it no longer lists, diagnosed, held against the task chats
 * (`annotate`), and repaired.
 *
 * What Cline does with it (cline/cline v3.89.2, `apps/vscode/src/core/storage/disk.ts`
 * `readTaskHistoryFromState` / `writeTaskHistoryToState`, `core/storage/StateManager.ts`,
 * `core/controller/task/getTaskHistory.ts`, `core/commands/reconstructTaskHistory.ts`): it reads the whole file
 * with `JSON.parse` once at start (a file that is missing is an empty list) and keeps it in memory, reloading it
 * when the file changes on disk (a chokidar watcher); every save of a task replaces that task's entry by id or
 * appends it, and writes the whole list back (`JSON.stringify`, `atomicWriteFile`). The History view lists the
 * entries with a `ts` and a `task`, newest first, optionally only those whose `cwdOnTaskInitialization` is the
 * open folder. A file that does not parse makes Cline ask whether to reconstruct the list from the task
 * folders (every entry rebuilt: a new `ulid`, the task's first line cut to 100 characters, the first message's
 * time, no workspace, favourites lost); declined, the list is empty and its next write wipes the file.
 *
 * The repair keeps every entry the file holds byte for byte and adds, before the array's closing bracket, an
 * entry for each task folder the list lacks, rebuilt from the folder's own files (`cline-entry.ts`; what the
 * folder does not record taken from Cline's own `taskHistory.backup.<ms>.json`, when one holds the task); a torn
 * file is first cut back to its complete entries and closed (the salvage of `salvage.ts`); a missing file is
 * created. The entries Cline's next start appends from VS Code's `state.vscdb` (`readClinePending`) count as
 * listed, so none is written twice; a missing list is not created while those cannot be read. The file it
 * replaces is kept as evidence; `undo` puts it back, or removes the file it created.
 */
import {createHash} from 'node:crypto'
import {lstatSync, readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {classifyJsonBytes} from '../../classify/index.js'
import type {ChatDirSnapshot, ChatPlan, Diagnosis, IndexAnnotation, ScannedChat, StoreListing} from '../../model/adapter.js'
import type {ChatStatus, Classification, Finding, Generation} from '../../model/report.js'
import {rebuildClineEntry} from './cline-entry.js'
import {finding} from './findings.js'
import {STATE_DB, readClinePending} from './global-state.js'
import {API_HISTORY, CLINE_INDEX, FORMAT_OF, UI_MESSAGES, isTaskDir, variantOfRoot} from './layout.js'
import {salvageMessageArray} from './salvage.js'
import type {TaskFacts} from './store.js'

/** The list's name in its `state/` folder. */
export const TASK_HISTORY = path.basename(CLINE_INDEX)
const STATE = path.dirname(CLINE_INDEX)
/** Largest list, and largest task file, read (bytes). */
const MAX_BYTES = 256 << 20
const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`
const entriesOf = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`

/** A task folder the list does not hold: its rebuilt entry, or why there is none. */
export interface HiddenTask {
  id: string
  /** The folder's size as Cline measures it (bytes), null when it could not be measured. */
  size: number | null
  /** The rebuilt entry's compact JSON and its fields. */
  entry?: string
  fields?: string[]
  why?: string
  /** The backup of the list (`taskHistory.backup.<ms>.json`) whose older entry of the task gave fields the folder does not record, and that entry. */
  backup?: {file: string; entry: Record<string, unknown>}
}

/** Cline's backups of its list, written by its "Reconstruct Task History" before it rebuilds the list (`reconstructTaskHistory.ts`). */
const BACKUP = /^taskHistory\.backup\.(\d+)\.json$/

/**
 * The entries of Cline's backups of its list in `state` (`dir`), by task id, each from the newest backup that
 * holds one (a backup is `JSON.stringify(list, null, 2)` of the list as it parsed before a reconstruction); a
 * backup that is not a regular file, is too large, or does not parse as a list is passed over.
 */
function backupEntries(dir: string, names: readonly string[]): Map<string, {file: string; entry: Record<string, unknown>}> {
  const out = new Map<string, {file: string; entry: Record<string, unknown>}>()
  const backups = names.flatMap((n) => {
    const m = BACKUP.exec(n)
    return m ? [{n, ms: Number(m[1])}] : []
  })
  for (const {n} of backups.sort((a, b) => b.ms - a.ms)) {
    let list: unknown
    try {
      const st = lstatSync(path.join(dir, n))
      if (!st.isFile() || st.size > MAX_BYTES) continue
      list = JSON.parse(readFileSync(path.join(dir, n), 'utf8'))
    } catch {
      continue
    }
    if (!Array.isArray(list)) continue
    for (const e of list) {
      if (typeof e !== 'object' || e === null || Array.isArray(e) || typeof (e as {id?: unknown}).id !== 'string') continue
      const id = (e as {id: string}).id
      if (!out.has(id)) out.set(id, {file: n, entry: e as Record<string, unknown>})
    }
  }
  return out
}

/** What chatdoctor read of the Cline extension's task list and the task folders beside it. */
export interface ClineHistoryFacts {
  kind: 'cline-task-history'
  /** The extension's storage folder (`<globalStorage>/saoudrizwan.claude-dev`). */
  storage: string
  /** Ids of the entries the list holds (of its complete entries when it is torn); null when it is not a list. */
  listed: string[] | null
  /** Task folders (named as Cline names them or not) the list does not hold, sorted by id. */
  hidden: HiddenTask[]
  /** Ids the list holds whose task folder is gone. */
  gone: string[]
  /** The list file is not there (Cline then lists nothing but what its next start takes from VS Code's global state). */
  absent?: boolean
  /**
   * Ids of the entries Cline's next start appends to the list from VS Code's global state (global-state.ts
   * `readClinePending`): held as listed, so that no entry is written twice.
   */
  pending?: string[]
  /** Why the list is not created although it is missing (what Cline's next start takes into it is unknown). */
  blocked?: string
  /** The older entries of the hidden tasks that could not be rebuilt, from Cline's backups of its list, by id (for a rebuild after their own repair). */
  backups?: Record<string, {file: string; entry: Record<string, unknown>}>
}

/** The list facts of a snapshot, when it is the Cline extension's task-list chat. */
export function clineHistoryFactsOf(snapshot: Pick<ChatDirSnapshot, 'unit'>): ClineHistoryFacts | null {
  const f = snapshot.unit.facts as ClineHistoryFacts | undefined
  return f && f.kind === 'cline-task-history' ? f : null
}

/** What a list's bytes hold: the document to add entries to (a complete array), its entry count and ids. */
interface ListDoc {
  c: Classification
  /** A complete JSON array holding every complete entry (the file, or its salvage); null when there is none to keep. */
  doc: Buffer | null
  entries: number
  ids: string[]
  /** Why the list cannot be added to (not an array, a BOM); null when it can. */
  blocked: string | null
  /** The elements that are not entries (not an object: `null`, a number, a string, an array), as `#<index> <JSON>`. */
  junk: string[]
}

/**
 * The elements of a list that are not entries. Cline 3.89.2 keeps whatever `JSON.parse` returns
 * (`readTaskHistoryFromState`) and its History view reads `ts` and `task` of every element
 * (`getTaskHistory.ts` `filter((item) => item.ts && item.task)`), which throws on a `null`; so a list holding
 * one is not called repaired while it does. Pure.
 */
function junkOf(v: unknown[]): string[] {
  const out: string[] = []
  for (const [i, e] of v.entries()) if (typeof e !== 'object' || e === null || Array.isArray(e)) out.push(`#${i} ${JSON.stringify(e) ?? String(e)}`.slice(0, 40))
  return out
}

/** The list's bytes as a complete array: the file itself, or its complete entries closed. Pure. */
export function listDoc(data: Buffer): ListDoc {
  const c = classifyJsonBytes(data)
  const idsOf = (v: unknown[]) => v.flatMap((e) => (typeof e === 'object' && e !== null && typeof (e as {id?: unknown}).id === 'string' ? [(e as {id: string}).id] : []))
  if (c.class === 'intact') {
    if (!Array.isArray(c.value)) return {c, doc: null, entries: 0, ids: [], blocked: 'it parses but is not a list of entries', junk: []}
    return {c, doc: data, entries: c.value.length, ids: idsOf(c.value), blocked: null, junk: junkOf(c.value)}
  }
  if (c.reasons.includes('bom')) return {c, doc: null, entries: 0, ids: [], blocked: 'it starts with a byte-order mark (an editor re-saved it)', junk: []}
  const s = salvageMessageArray(TASK_HISTORY, data, c)
  if (s) return {c, doc: Buffer.concat(s.parts), entries: s.value.length, ids: idsOf(s.value), blocked: null, junk: junkOf(s.value)}
  return {c, doc: null, entries: 0, ids: [], blocked: null, junk: []}
}

/**
 * `doc` (a complete JSON array of `count` elements) with `entries` added before its closing bracket, every
 * other byte as it was. Pure.
 */
export function appendEntries(doc: Buffer, count: number, entries: readonly string[]): Buffer {
  let k = doc.length - 1
  while (k >= 0 && (doc[k] === 0x20 || doc[k] === 0x0a || doc[k] === 0x0d || doc[k] === 0x09)) k--
  if (k < 0 || doc[k] !== 0x5d) throw new Error('not a JSON array')
  const add = Buffer.from(`${count > 0 ? ',' : ''}${entries.join(',')}`, 'utf8')
  return Buffer.concat([doc.subarray(0, k), add, doc.subarray(k)])
}

/** A folder's size as `get-folder-size` `loose` counts it: the `lstat` size of it and of everything below it, each inode once; null when unreadable. */
function folderSize(dir: string): number | null {
  const seen = new Set<number>()
  let total = 0
  const walk = (p: string): boolean => {
    let st
    try {
      st = lstatSync(p)
    } catch {
      return p !== dir
    }
    if (!seen.has(st.ino)) {
      seen.add(st.ino)
      total += st.size
    }
    if (!st.isDirectory()) return true
    let names: string[]
    try {
      names = readdirSync(p)
    } catch {
      return true
    }
    for (const n of names) walk(path.join(p, n))
    return true
  }
  return walk(dir) ? total : null
}

/** The bytes of a task folder's files an entry is rebuilt from (a file too large or unreadable is left out). */
export function entryFiles(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  for (const name of [API_HISTORY, UI_MESSAGES]) {
    try {
      const st = lstatSync(path.join(dir, name))
      if (st.isFile() && st.size <= MAX_BYTES) out.set(name, readFileSync(path.join(dir, name)))
    } catch {
      // missing: the rebuild says why
    }
  }
  return out
}

/**
 * Reads the task list in `<storage>/state` (`dir`) into one chat, with a rebuilt entry for each task folder it
 * does not hold (nor Cline's next start takes from VS Code's global state); null when `dir` is not a Cline
 * storage folder's `state/` folder, or the list is missing and no task folder lacks an entry. Read-only; never
 * throws.
 */
export async function readClineHistory(dir: string): Promise<StoreListing | null> {
  const storage = path.dirname(dir)
  if (path.basename(dir) !== STATE || variantOfRoot(storage) !== 'cline') return null
  let data: Buffer | null = null
  let absent = false
  try {
    // A `state` that is a symbolic link is never followed: the list it leads to is not this storage folder's.
    if (!lstatSync(dir).isDirectory()) return null
  } catch {
    return null
  }
  try {
    const st = lstatSync(path.join(dir, TASK_HISTORY))
    if (st.isFile() && st.size <= MAX_BYTES) data = readFileSync(path.join(dir, TASK_HISTORY))
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return null
    absent = true
  }
  const doc = data ? listDoc(data) : null
  const listed = absent ? [] : doc && doc.blocked === null ? doc.ids : null
  const facts: ClineHistoryFacts = {kind: 'cline-task-history', storage, listed, hidden: [], gone: [], ...(absent ? {absent} : {})}
  const tasks = path.join(storage, 'tasks')
  const onDisk = new Set<string>()
  let entries: string[] = []
  try {
    entries = readdirSync(tasks).sort()
  } catch {
    // no tasks folder: nothing hidden
  }
  const lacked: string[] = []
  for (const name of entries) {
    if (name.startsWith('_') || name.startsWith('.') || name.includes('\uFFFD')) continue
    const taskDir = path.join(tasks, name)
    let names: string[]
    try {
      if (!lstatSync(taskDir).isDirectory()) continue
      names = readdirSync(taskDir)
    } catch {
      continue
    }
    if (!isTaskDir(names)) continue
    onDisk.add(name)
    if (listed === null || listed.includes(name)) continue
    lacked.push(name)
  }
  // What Cline's next start appends from VS Code's global state counts as listed; when it is unknown, a
  // missing list is not created (an entry could end up twice), a present one is added to as it is.
  const pending = absent || lacked.length > 0 ? await readClinePending(storage) : null
  if (pending && 'ids' in pending && pending.ids.size > 0) facts.pending = [...pending.ids].sort()
  if (pending && 'why' in pending && absent) facts.blocked = `what Cline's next start takes into it from VS Code's globalStorage/${STATE_DB} is unknown (${pending.why})`
  let known: ReturnType<typeof backupEntries> = new Map()
  if (lacked.length > 0) {
    try {
      known = backupEntries(dir, readdirSync(dir))
    } catch {
      // no backups to read
    }
  }
  for (const name of lacked) {
    if (facts.pending?.includes(name)) continue
    const taskDir = path.join(tasks, name)
    const size = folderSize(taskDir)
    const b = known.get(name)
    const r = rebuildClineEntry(name, entryFiles(taskDir), size, b?.entry)
    facts.hidden.push('json' in r ? {id: name, size, entry: r.json, fields: r.fields, ...(b ? {backup: b} : {})} : {id: name, size, why: r.why})
    if (!('json' in r) && b) facts.backups = {...facts.backups, [name]: b}
  }
  if (listed) facts.gone = [...new Set(listed.filter((id) => !onDisk.has(id)))].sort()
  // A missing list with no task folder it lacks is the state of a fresh install: nothing to say.
  if (absent && facts.hidden.length === 0) return null
  return {chats: [{dir, path: dir, members: [TASK_HISTORY], facts}], errors: []}
}

/**
 * What the repair writes: the bytes of the new list and what it keeps and adds (the rebuilt entries of the
 * facts, then `more`); or why it writes nothing.
 */
function newList(snapshot: ChatDirSnapshot, f: ClineHistoryFacts, more: readonly HiddenTask[] = []): {data: Buffer; kept: number; added: HiddenTask[]; torn: boolean} | {none: string} {
  const e = snapshot.files.find((x) => x.name === TASK_HISTORY)
  if (f.absent && !e) {
    if (f.blocked) return {none: f.blocked}
    const added = [...f.hidden, ...more].filter((h) => h.entry !== undefined)
    if (added.length === 0) return {none: 'nothing to add'}
    // Written as Cline's `writeTaskHistoryToState` writes a list: `JSON.stringify` of the array, compact.
    return {data: appendEntries(Buffer.from('[]', 'utf8'), 0, added.map((h) => h.entry!)), kept: 0, added, torn: false}
  }
  if (!e || e.kind !== 'file' || !e.data) return {none: `${CLINE_INDEX} could not be read`}
  const d = listDoc(e.data)
  if (d.blocked !== null) return {none: d.blocked}
  if (d.junk.length > 0) return {none: `it holds ${plural(d.junk.length, 'element')} that ${d.junk.length === 1 ? 'is not an entry' : 'are not entries'}`}
  const added = [...f.hidden, ...more].filter((h) => h.entry !== undefined && !d.ids.includes(h.id))
  const torn = d.c.class !== 'intact'
  if (!torn && added.length === 0) return {none: 'nothing to add'}
  const base = d.doc ?? Buffer.from('[]', 'utf8')
  return {data: appendEntries(base, d.doc ? d.entries : 0, added.map((h) => h.entry!)), kept: d.doc ? d.entries : 0, added, torn}
}

function describeClass(g: Generation): string {
  const why = g.reasons.length > 0 ? ` (${g.reasons.join(', ')})` : ''
  const at = g.damage && g.damage.length > 0 ? `, damage from byte ${g.damage.offset} of ${g.bytes}` : ''
  return `${g.class}${why}${at}`
}

const RECONSTRUCT =
  'Cline\'s own "Reconstruct Task History" (command palette) rebuilds the whole list instead: every entry gets a new ulid, its task cut to the first line\'s 100 characters, the first message\'s time and no workspace, and favourites are lost'

/** What the rebuilt entries take from Cline's backups of its list, in words (after a `; `), or nothing. */
function fromBackups(rebuilt: readonly HiddenTask[]): string {
  const byFile = new Map<string, string[]>()
  for (const h of rebuilt) if (h.backup) byFile.set(h.backup.file, [...(byFile.get(h.backup.file) ?? []), h.id])
  if (byFile.size === 0) return ''
  const parts = [...byFile].map(([file, ids]) => `${ids.join(', ')} from ${path.join(STATE, file)}`)
  return `; the fields a folder does not record (ulid, favourite, checkpoint work tree, workspace, and the truncation range when the transcript is unchanged since) are taken from the older entry in Cline's backup of its list: ${parts.join('; ')}`
}

/** Diagnoses the Cline extension's task-list chat. Pure. */
export function diagnoseClineHistory(snapshot: ChatDirSnapshot, f: ClineHistoryFacts): Diagnosis {
  const e = snapshot.files.find((x) => x.name === TASK_HISTORY)
  const g: Generation = {file: TASK_HISTORY, role: 'index', class: null, reasons: [], bytes: e?.bytes ?? 0, mtimeMs: e?.mtimeMs ?? null, sha256: null, turns: null}
  const findings: Finding[] = []
  let status: ChatStatus = 'healthy'
  const file = CLINE_INDEX
  if (f.absent && !e) {
    g.class = 'missing'
    const rebuilt = f.hidden.filter((h) => h.entry !== undefined)
    const unbuilt = f.hidden.filter((h) => h.entry === undefined)
    const pending = f.pending && f.pending.length > 0 ? ` but the ${entriesOf(f.pending.length)} its next start takes from VS Code's globalStorage/${STATE_DB} (${f.pending.join(', ')}; it appends them to whatever list the file then holds)` : ''
    const why = `${file} is missing while ${plural(f.hidden.length + (f.pending?.length ?? 0), 'task folder')} exist, so Cline lists nothing${pending}`
    if (f.blocked) findings.push(finding('index-unreadable', TASK_HISTORY, `${why}; ${f.blocked}, so chatdoctor does not create the list (an entry could be listed twice). ${RECONSTRUCT}`))
    else if (rebuilt.length > 0) {
      status = 'repairable'
      findings.push(finding('not-in-index', TASK_HISTORY, `${why}; a repair creates it with the ${entriesOf(rebuilt.length)} of the task folders it lacks (${rebuilt.map((h) => h.id).join(', ')}), rebuilt from each task's own files (${(rebuilt.find((h) => !h.backup) ?? rebuilt[0]).fields!.join(', ')})${f.pending ? `, leaving out those Cline's next start adds itself, so none is listed twice` : ''}${fromBackups(rebuilt)}; undo removes it again. ${RECONSTRUCT}`))
    }
    if (unbuilt.length > 0) findings.push(finding('not-in-index', TASK_HISTORY, `${file} is missing and ${plural(unbuilt.length, 'task folder')} cannot be rebuilt from ${unbuilt.length === 1 ? 'its' : 'their'} files: ${unbuilt.map((h) => `${h.id} (${h.why})`).join('; ')}`))
  } else if (!e || e.kind !== 'file' || !e.data) {
    g.class = 'corrupt'
    g.reasons = [e?.kind === 'file' ? 'unreadable' : 'not-a-file']
    findings.push(finding('index-unreadable', TASK_HISTORY, `${file} ${e?.kind === 'file' ? 'could not be read (or is larger than 256 MiB)' : 'is not a regular file'}: never written`))
  } else {
    const d = listDoc(e.data)
    g.class = d.c.class
    g.reasons = [...d.c.reasons]
    if (d.c.damage) g.damage = d.c.damage
    g.sha256 = createHash('sha256').update(e.data).digest('hex')
    if (d.blocked !== null) {
      status = 'repairable'
      if (d.c.class === 'intact') g.class = 'corrupt'
      if (d.c.class === 'intact') g.reasons = ['wrong-shape']
      findings.push(finding('index-damaged', TASK_HISTORY, `${file} is ${describeClass(g)}: ${d.blocked}, so Cline cannot use it as its list; chatdoctor does not rewrite a list it cannot keep: Cline's own "Reconstruct Task History" (command palette) backs it up and rebuilds the list from the task folders`))
    }
    if (d.blocked === null && d.junk.length > 0) {
      status = 'repairable'
      g.class = 'corrupt'
      g.reasons = [...new Set([...g.reasons, 'wrong-shape' as const])]
      findings.push(finding('index-damaged', TASK_HISTORY, `${file} holds ${plural(d.junk.length, 'element')} that ${d.junk.length === 1 ? 'is not a task entry' : 'are not task entries'} (${d.junk.join(', ')}): Cline keeps them as they are, and its History view fails on a null one; chatdoctor writes no list that keeps them: with every window of the editor closed, delete ${d.junk.length === 1 ? 'it' : 'them'} from ${file} (a copy set aside first) and run chatdoctor repair again`))
    }
    const plan = newList(snapshot, f)
    const rebuilt = f.hidden.filter((h) => h.entry !== undefined)
    const unbuilt = f.hidden.filter((h) => h.entry === undefined)
    const fields = (rebuilt.find((h) => !h.backup) ?? rebuilt[0])?.fields ?? []
    if (d.blocked === null && d.c.class !== 'intact') {
      status = 'repairable'
      const keep = d.doc ? `keeps its complete ${d.entries === 1 ? 'entry' : `${d.entries} entries`} byte for byte` : 'keeps none of its entries (no complete one survives; the file is kept as evidence)'
      findings.push(finding('index-damaged', TASK_HISTORY, `${file} is ${describeClass(g)}: Cline cannot parse it, so at its next start it asks to reconstruct the list from the task folders, and declining wipes the list at its next write; a repair ${keep} and adds ${entriesOf(rebuilt.length)} rebuilt from the task folders it lacks${fields.length > 0 ? ` (${fields.join(', ')})` : ''}${fromBackups(rebuilt)}. ${RECONSTRUCT}`))
    } else if (d.blocked === null && rebuilt.length > 0) {
      status = 'repairable'
      findings.push(finding('not-in-index', TASK_HISTORY, `${file} (${entriesOf(d.entries)}) does not list ${plural(rebuilt.length, 'task folder')} (${rebuilt.map((h) => h.id).join(', ')}), so Cline does not show ${rebuilt.length === 1 ? 'it' : 'them'}; ${d.junk.length > 0 ? 'once the elements that are not entries are gone, ' : ''}a repair adds ${rebuilt.length === 1 ? 'its entry' : 'their entries'} before the list's closing bracket, rebuilt from each task's own files (${fields.join(', ')}), every entry already there kept byte for byte${fromBackups(rebuilt)}. ${RECONSTRUCT}`))
    }
    if (d.blocked === null && unbuilt.length > 0) {
      findings.push(finding('not-in-index', TASK_HISTORY, `${file} does not list ${plural(unbuilt.length, 'task folder')} that cannot be rebuilt from ${unbuilt.length === 1 ? 'its' : 'their'} files: ${unbuilt.map((h) => `${h.id} (${h.why})`).join('; ')}; when a task's own repair restores its ${UI_MESSAGES} or ${API_HISTORY} in the same run, the entry is rebuilt from the bytes that repair writes`))
    }
    if (f.gone.length > 0) {
      findings.push(finding('index-entry-missing', TASK_HISTORY, `${file} lists ${plural(f.gone.length, 'task')} whose folder is gone (${f.gone.join(', ')}): Cline shows ${f.gone.length === 1 ? 'it' : 'them'}, and opening one removes it from the list ("Task not found"); nothing to rebuild ${f.gone.length === 1 ? 'it' : 'them'} from`, 'info'))
    }
    if ('data' in plan && d.blocked === null) status = 'repairable'
  }
  return {
    kind: 'chat',
    report: {format: FORMAT_OF.cline, id: 'index', status, winner: TASK_HISTORY, transcriptTurns: null, contextTurns: null, findings, generations: [g], ranking: []},
  }
}

/** What the Cline task-list chat says of one task of its storage folder: that its repair lists the task again. Pure. */
export function annotateClineTask(session: Pick<ScannedChat, 'report' | 'snapshot'>, indexes: ReadonlyArray<Pick<ScannedChat, 'report' | 'snapshot'>>): IndexAnnotation | null {
  const tf = session.snapshot.unit.facts as TaskFacts | undefined
  if (tf?.kind !== 'vscode-task' || tf.variant !== 'cline' || tf.index === null || tf.index.state === 'listed') return null
  const storage = path.dirname(path.dirname(session.snapshot.dir))
  const idx = indexes.find((i) => clineHistoryFactsOf(i.snapshot)?.storage === storage)
  const f = idx ? clineHistoryFactsOf(idx.snapshot) : null
  if (!idx || !f || idx.report.status !== 'repairable') return null
  const id = path.basename(session.snapshot.dir)
  const rebuilt = f.hidden.some((h) => h.id === id && h.entry !== undefined)
  const kept = tf.index.state === 'damaged' && f.listed?.includes(id) === true
  return rebuilt || kept ? {findings: [], repairedBy: idx.snapshot.unit.path} : null
}

/** The repair plan of the Cline task-list chat: the list with its entries kept and the missing ones added. Pure. */
export function planClineHistory(chat: ScannedChat): ChatPlan {
  const f = clineHistoryFactsOf(chat.snapshot)!
  const plan: ChatPlan = {chat, actions: [], watch: chat.snapshot.files.filter((e) => e.kind === 'file').map((e) => ({name: e.name, bytes: e.bytes, mtimeMs: e.mtimeMs})), temps: [], evidenceSub: 'cline-task-history'}
  if (chat.report.status !== 'repairable') return plan
  const next = newList(chat.snapshot, f)
  if ('none' in next) {
    plan.manual = chat.report.findings.find((x) => x.id === 'index-damaged')?.message ?? `${CLINE_INDEX} is not repaired by chatdoctor (${next.none})`
    return plan
  }
  setActions(plan, next.data)
  return plan
}

/** The plan's actions: the list kept as evidence, then the new bytes written over it. */
function setActions(plan: ChatPlan, data: Buffer): void {
  const g = plan.chat.report.generations.find((x) => x.file === TASK_HISTORY)
  const sha256 = createHash('sha256').update(data).digest('hex')
  const restore = {type: 'restore', from: REBUILT, to: TASK_HISTORY, sha256, source: {kind: 'bytes', label: REBUILT, data}, data} as const
  // A list that was not there has nothing to keep: the manifest records that the repair created it, and undo removes it.
  plan.actions = g?.class === 'missing' ? [restore] : [{type: 'preserve', from: TASK_HISTORY, to: TASK_HISTORY, sha256: g?.sha256 ?? null}, restore]
  plan.statusAfter = 'healthy'
}

/** The bytes a plan leaves in one of its chat's files: what it restores there, else the file as scanned. */
function bytesAfter(p: ChatPlan, name: string): Buffer | undefined {
  const a = p.actions.find((x) => x.type === 'restore' && x.to === name)
  if (a) return a.data ?? (a.source?.kind === 'bytes' ? a.source.data : a.source?.kind === 'file' ? p.chat.snapshot.files.find((x) => x.name === (a.source as {name: string}).name)?.data : undefined)
  return p.chat.snapshot.files.find((x) => x.name === name && x.kind === 'file')?.data
}

/**
 * (`repair`) A hidden task whose entry could not be rebuilt because its own files are damaged, repaired by its
 * own plan in the same run (a torn transcript closed, a model context restored): its entry rebuilt from the
 * bytes that plan writes, and added to the list's plan. Pure; changes `plan`.
 */
export function followClineHistory(plan: ChatPlan, others: readonly ChatPlan[]): void {
  const f = clineHistoryFactsOf(plan.chat.snapshot)
  if (!f || plan.manual || plan.advice) return
  const more: HiddenTask[] = []
  for (const o of others) {
    if (o.refusal || o.problem || o.actions.length === 0 || path.dirname(path.dirname(o.chat.snapshot.dir)) !== f.storage) continue
    const id = path.basename(o.chat.snapshot.dir)
    const h = f.hidden.find((x) => x.id === id && x.entry === undefined)
    if (!h || !o.actions.some((a) => a.type === 'restore' && (a.to === UI_MESSAGES || a.to === API_HISTORY))) continue
    const files = new Map<string, Buffer>()
    for (const name of [API_HISTORY, UI_MESSAGES]) {
      const b = bytesAfter(o, name)
      if (b) files.set(name, b)
    }
    const b = f.backups?.[id]
    const r = rebuildClineEntry(id, files, h.size, b?.entry)
    if (!('json' in r)) continue
    more.push({id, size: h.size, entry: r.json, fields: r.fields, ...(b ? {backup: b} : {})})
    plan.warnings = [...(plan.warnings ?? []), `the entry of task ${id} is rebuilt from the ${UI_MESSAGES} and ${API_HISTORY} its own repair writes in this run`]
  }
  if (more.length === 0) return
  const next = newList(plan.chat.snapshot, f, more)
  if ('data' in next) setActions(plan, next.data)
}

/** The label of the rebuilt list as a repair's source. */
const REBUILT = `rebuilt:${TASK_HISTORY}`
