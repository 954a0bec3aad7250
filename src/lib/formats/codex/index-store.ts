/**
 * Codex's index of its threads, read as one chat: `$CODEX_HOME/state_<n>.sqlite` (table `threads`: one row per
 * thread, `rollout_path` the absolute path of its rollout) and `thread_history_<n>.sqlite` (a projection of each
 * rollout: per turn the byte offset and ordinal of its first and last line, and per thread the next byte offset
 * and ordinal), each with its `-wal`/`-shm`, held against the rollouts under `sessions/` and `archived_sessions/`.
 * Observed on Codex CLI 0.169.0 (index-files.md §2, and the trials in `scripts/realbin/codex-trials.mjs`):
 * missing databases are rebuilt from the rollouts; a present one is trusted: a row whose `rollout_path` names no
 * file fails `codex exec resume <id>` ("no rollout found for thread id"); a database that does not open fails
 * every resume; a thread without a row still resumes by id (and gets its row back) but is not listed; a
 * projection whose offsets no longer start the lines they name stays wrong after a resume.
 *
 * Read-only: directory listings, stat, a few bytes at each projected offset, and the databases on a private
 * copy (never the original). A repair of rows is prepared here too, on a private writable copy, so the plan can
 * carry its exact bytes.
 */
import {createHash} from 'node:crypto'
import {lstatSync, openSync, readSync, closeSync} from 'node:fs'
import path from 'node:path'
import type {ChatUnit, StoreListing} from '../../model/adapter.js'
import {headerVerdict, quickCheck, readHead, repairedBytes, rowCount, tableColumns, withPrivateCopy, type Db, type HeaderVerdict} from '../../sqlite/index.js'
import {sortedNames} from '../../fsio/names.js'
import {ROLLOUT_DIRS} from './roots.js'

export {ROLLOUT_DIRS, codexHomeOf, codexStoresOf} from './roots.js'

/** The state database's name (`state_<n>.sqlite`; 0.169.0 writes `state_5`). */
export const STATE_DB = /^state_(\d+)\.sqlite$/
/** The thread-history database's name (`thread_history_<n>.sqlite`; 0.169.0 writes `thread_history_1`). */
export const HISTORY_DB = /^thread_history_(\d+)\.sqlite$/
/** A thread id at the end of a rollout's name. */
const THREAD_ID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(?:\.zst)?$/i
/** Largest state database whose repaired rows are prepared in memory (bytes). */
const MAX_REPAIR_BYTES = 512 << 20

/** The state database's tables that hold only what Codex rebuilds from the rollouts (when their rows are plain). */
const STATE_DERIVED_TABLES = new Set(['threads', 'backfill_state', 'thread_read_receipts', 'thread_sections', '_sqlx_migrations', 'sqlite_sequence'])
/** The thread-history database's tables: projections of the rollouts. */
const HISTORY_DERIVED_TABLES = new Set(['thread_turns', 'thread_items', 'thread_history_projection_state', '_sqlx_migrations', 'sqlite_sequence'])

/** One database file of the index, as read on a private copy. */
export interface DbFacts {
  file: string
  bytes: number
  /** `-wal` / `-shm` beside it. */
  wal: boolean
  shm: boolean
  header: HeaderVerdict['kind'] | 'missing' | 'unreadable'
  /** `PRAGMA quick_check` lines (`['ok']` when healthy), empty when it could not run. */
  check: string[]
  /** Why the copy could not be opened or read (one line), or null. */
  error: string | null
  /** True when the tables and columns the index needs are there (else: an unknown schema, never written). */
  knownSchema: boolean
  /** What it holds that the rollouts do not (thread names, pins, sections, archive flags, projects …), in words. */
  userState: string[]
}

/** A row of `threads`, as far as the index is held against the rollouts. */
export interface ThreadRow {
  id: string
  rolloutPath: string
  archived: boolean
  title: string
}

/** What the index says of one thread that disagrees with the rollouts. */
export type Drift =
  /** The row's `rollout_path` names no file, and the thread's rollout is elsewhere below `$CODEX_HOME` (`found`). */
  | {kind: 'moved'; id: string; listed: string; found: string}
  /** The row's `rollout_path` names no file and no rollout of the thread is on disk. */
  | {kind: 'gone'; id: string; listed: string}
  /** The row's `rollout_path` lies outside `$CODEX_HOME` (reported, never followed for writing). */
  | {kind: 'outside'; id: string; listed: string; exists: boolean}
  /** A rollout on disk (`rel`) whose thread has no row. */
  | {kind: 'not-listed'; id: string; rel: string}
  /** The thread's projection no longer matches its rollout (`rel`): `why` in words. */
  | {kind: 'projection-stale'; id: string; rel: string; why: string}

/** A rollout found on disk. */
export interface RolloutFile {
  /** Relative to `$CODEX_HOME`, `/`-separated. */
  rel: string
  id: string
  bytes: number
}

/** What `read` hands to `diagnose`, `annotate` and `planRepair` for the index chat. */
export interface CodexIndexFacts {
  kind: 'codex-index'
  /** `$CODEX_HOME`, absolute. */
  home: string
  state: DbFacts | null
  history: DbFacts | null
  /** `-wal` files whose database is missing. */
  orphanWal: string[]
  rollouts: RolloutFile[]
  /** Rows of `threads` (empty when the state database could not be read). */
  threads: ThreadRow[]
  drift: Drift[]
  /** The state database with its rows repaired (stale `rollout_path` set, the backfill marker cleared), when planned. */
  rowRepair: {bytes: Buffer; sha256: string; updates: Array<{id: string; rolloutPath: string}>; backfillReset: boolean} | null
  /** Why rows that need repair could not be repaired on a copy (one line), or null. */
  rowRepairError: string | null
  /** Processes of Codex that look alive (its app-server daemon, thread writer locks), in words, at read time. */
  live: string[]
  /** Threads the thread-history database holds a projection of. */
  projected: string[]
  /**
   * Whether Codex considers its scan of the rollouts done (`backfill_state.status = 'complete'`): then it never
   * adds the rows it lacks by itself; null when unknown.
   */
  backfillComplete: boolean | null
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')
const posix = (p: string) => p.split(path.sep).join('/')

/** The rollouts below `$CODEX_HOME`, without following links. */
function listRollouts(home: string): RolloutFile[] {
  const out: RolloutFile[] = []
  const walk = (rel: string, depth: number) => {
    for (const name of sortedNames(path.join(home, rel))) {
      const r = rel === '' ? name : `${rel}/${name}`
      let st
      try {
        st = lstatSync(path.join(home, r))
      } catch {
        continue
      }
      if (st.isDirectory() && depth < 6 && !name.startsWith('.')) walk(r, depth + 1)
      else if (st.isFile()) {
        const m = THREAD_ID.exec(name)
        if (m && name.startsWith('rollout-')) out.push({rel: r, id: m[1].toLowerCase(), bytes: st.size})
      }
    }
  }
  for (const d of ROLLOUT_DIRS) walk(d, 0)
  return out
}

function has(cols: Map<string, Set<string>>, table: string, need: string[]): boolean {
  const t = cols.get(table)
  return t !== undefined && need.every((c) => t.has(c))
}

/** The header and size of one database file (null when it does not exist). */
async function fileFacts(home: string, file: string, names: string[]): Promise<DbFacts | null> {
  if (!names.includes(file)) return null
  const f: DbFacts = {file, bytes: 0, wal: names.includes(`${file}-wal`), shm: names.includes(`${file}-shm`), header: 'unreadable', check: [], error: null, knownSchema: false, userState: []}
  try {
    const st = lstatSync(path.join(home, file))
    if (!st.isFile()) {
      f.error = 'not a regular file'
      return f
    }
    f.bytes = st.size
    f.header = headerVerdict(await readHead(path.join(home, file))).kind
  } catch (e) {
    f.error = (e as Error).message.split('\n')[0]
  }
  return f
}

const one = (e: unknown) => String((e as Error)?.message ?? e).split('\n')[0]

/** Reads the state database's rows and what it holds beyond the rollouts. */
function readState(db: Db, f: DbFacts): ThreadRow[] {
  f.check = quickCheck(db)
  const cols = tableColumns(db)
  f.knownSchema = has(cols, 'threads', ['id', 'rollout_path', 'archived', 'title']) && has(cols, 'backfill_state', ['status'])
  if (!f.knownSchema) return []
  const threadCols = cols.get('threads')!
  const rows: ThreadRow[] = []
  let named = 0
  let pinned = 0
  let sectioned = 0
  for (const r of db.prepare('SELECT * FROM threads').iterate() as Iterable<Record<string, unknown>>) {
    rows.push({id: String(r.id), rolloutPath: String(r.rollout_path), archived: Number(r.archived) === 1, title: String(r.title ?? '')})
    if (threadCols.has('name') && typeof r.name === 'string' && r.name !== '') named++
    if (threadCols.has('is_pinned') && Number(r.is_pinned) === 1) pinned++
    if (threadCols.has('thread_section_id') && r.thread_section_id !== null && r.thread_section_id !== undefined) sectioned++
  }
  if (named > 0) f.userState.push(`${named} thread name${named === 1 ? '' : 's'}`)
  if (pinned > 0) f.userState.push(`${pinned} pinned thread${pinned === 1 ? '' : 's'}`)
  if (sectioned > 0) f.userState.push(`${sectioned} thread${sectioned === 1 ? '' : 's'} in sections`)
  for (const [table] of cols) {
    if (STATE_DERIVED_TABLES.has(table) || table.startsWith('sqlite_')) continue
    const n = rowCount(db, table)
    if (n > 0) f.userState.push(`${n} row${n === 1 ? '' : 's'} of ${table}`)
  }
  return rows
}

/** One projection row per thread, with its turns. */
interface Projection {
  id: string
  nextOffset: number
  turns: Array<{ordinal: number; offset: number | null; endOrdinal: number | null; endOffset: number | null}>
}

function readHistory(db: Db, f: DbFacts): Projection[] {
  f.check = quickCheck(db)
  const cols = tableColumns(db)
  f.knownSchema = has(cols, 'thread_history_projection_state', ['thread_id', 'next_rollout_byte_offset']) && has(cols, 'thread_turns', ['thread_id', 'rollout_ordinal', 'rollout_byte_offset', 'rollout_end_ordinal', 'rollout_end_byte_offset'])
  if (!f.knownSchema) return []
  for (const [table] of cols) {
    if (HISTORY_DERIVED_TABLES.has(table) || table.startsWith('sqlite_')) continue
    const n = rowCount(db, table)
    if (n > 0) f.userState.push(`${n} row${n === 1 ? '' : 's'} of ${table}`)
  }
  const byId = new Map<string, Projection>()
  for (const r of db.prepare('SELECT thread_id, next_rollout_byte_offset FROM thread_history_projection_state').iterate() as Iterable<Record<string, unknown>>) {
    byId.set(String(r.thread_id), {id: String(r.thread_id), nextOffset: Number(r.next_rollout_byte_offset), turns: []})
  }
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v))
  for (const r of db.prepare('SELECT thread_id, rollout_ordinal, rollout_byte_offset, rollout_end_ordinal, rollout_end_byte_offset FROM thread_turns ORDER BY rollout_ordinal').iterate() as Iterable<Record<string, unknown>>) {
    const p = byId.get(String(r.thread_id))
    if (p) p.turns.push({ordinal: Number(r.rollout_ordinal), offset: num(r.rollout_byte_offset), endOrdinal: num(r.rollout_end_ordinal), endOffset: num(r.rollout_end_byte_offset)})
  }
  return [...byId.values()]
}

/** The `ordinal` of the record whose line starts at `offset` (from its first bytes), or why there is none. */
function ordinalAt(fd: number, offset: number, size: number): number | string {
  if (offset > size) return `offset ${offset} is past the end (${size} bytes)`
  if (offset > 0) {
    const b = Buffer.alloc(1)
    readSync(fd, b, 0, 1, offset - 1)
    if (b[0] !== 0x0a) return `offset ${offset} is not the start of a line`
  }
  const head = Buffer.alloc(Math.min(256, size - offset))
  readSync(fd, head, 0, head.length, offset)
  const m = /^\{"timestamp":"[^"]*","ordinal":(\d+)/.exec(head.toString('latin1')) ?? /"ordinal":(\d+)/.exec(head.toString('latin1').split('\n')[0])
  return m ? Number(m[1]) : `the line at offset ${offset} has no ordinal`
}

/** The `ordinal` of the record whose line ends (with its newline) just before `end`. */
function ordinalEndingAt(fd: number, end: number, size: number): number | string {
  if (end > size || end === 0) return `end offset ${end} is past the end (${size} bytes)`
  const back = Math.min(end, 1 << 20)
  const buf = Buffer.alloc(back)
  readSync(fd, buf, 0, back, end - back)
  if (buf[back - 1] !== 0x0a) return `end offset ${end} is not the end of a line`
  const prev = buf.lastIndexOf(0x0a, back - 2)
  return ordinalAt(fd, end - back + prev + 1, size)
}

/**
 * Checks a thread's projection against its rollout the way Codex reads it: each turn's first line at its byte
 * offset carries the turn's ordinal, its last line ends at its end offset with its end ordinal, and the next
 * offset is not past the end of the file. Returns why it does not hold, or null.
 */
export function projectionProblem(file: string, p: {nextOffset: number; turns: Projection['turns']}): string | null {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch (e) {
    return `the rollout cannot be read (${one(e)})`
  }
  try {
    const size = lstatSync(file).size
    if (p.nextOffset > size) return `the projection ends at byte ${p.nextOffset} but the rollout has ${size} bytes`
    for (const t of p.turns) {
      if (t.offset !== null) {
        const o = ordinalAt(fd, t.offset, size)
        if (o !== t.ordinal) return typeof o === 'string' ? o : `the line at byte ${t.offset} is ordinal ${o}, the projection says ${t.ordinal}`
      }
      if (t.endOffset !== null && t.endOrdinal !== null) {
        const o = ordinalEndingAt(fd, t.endOffset, size)
        if (o !== t.endOrdinal) return typeof o === 'string' ? o : `the line ending at byte ${t.endOffset} is ordinal ${o}, the projection says ${t.endOrdinal}`
      }
    }
    return null
  } catch (e) {
    return `the rollout cannot be read (${one(e)})`
  } finally {
    closeSync(fd)
  }
}

/** Whether `p` lies inside `root` (both absolute). */
function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p)
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)
}

/** Codex's live signals in `$CODEX_HOME`: a running app-server daemon, a thread writer lock. */
export function codexLive(home: string): string[] {
  const out: string[] = []
  for (const n of sortedNames(path.join(home, 'thread-writer-locks'))) if (n.endsWith('.lock') && !n.startsWith('.')) out.push(`Codex holds a writer lock of thread ${n.slice(0, -5)} (thread-writer-locks/${n})`)
  try {
    const fd = openSync(path.join(home, 'app-server-daemon', 'daemon.pid'), 'r')
    try {
      const buf = Buffer.alloc(4096)
      const n = readSync(fd, buf, 0, buf.length, 0)
      const pid = Number((JSON.parse(buf.subarray(0, n).toString('utf8')) as {pid?: unknown}).pid)
      if (Number.isInteger(pid) && pid > 0) {
        try {
          process.kill(pid, 0)
          out.push(`Codex's app-server daemon runs (pid ${pid}, app-server-daemon/daemon.pid)`)
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'EPERM') out.push(`Codex's app-server daemon runs (pid ${pid}, app-server-daemon/daemon.pid)`)
        }
      }
    } finally {
      closeSync(fd)
    }
  } catch {
    // No daemon pid file, or not one that names a pid.
  }
  return out
}

/** A first page zeroed or cut off on disk that may still be whole in the `-wal`, which SQLite (and Codex) read with it. */
function walHolds(f: DbFacts): boolean {
  return f.wal && (f.header === 'zeroed' || f.header === 'empty')
}

/**
 * After a read of a database whose first page on disk was zeroed or empty (`header`): when the read through its
 * WAL found the whole database, it is one (`sqlite`, true); otherwise its facts are those of the damaged file
 * again (false).
 */
function settleWalHeader(f: DbFacts, header: DbFacts['header']): boolean {
  if (header === 'sqlite') return true
  if (f.error === null && f.knownSchema && f.check.length === 1 && f.check[0] === 'ok') {
    f.header = 'sqlite'
    return true
  }
  Object.assign(f, {header, check: [], error: null, knownSchema: false, userState: []})
  return false
}

/**
 * Reads Codex's index at `$CODEX_HOME` (`home`) into one chat. Null when the folder holds neither database nor a
 * `-wal` of one. Never throws.
 */
export async function readCodexIndex(home: string): Promise<StoreListing | null> {
  const names = sortedNames(home)
  const stateName = names.filter((n) => STATE_DB.test(n)).sort((a, b) => Number(STATE_DB.exec(b)![1]) - Number(STATE_DB.exec(a)![1]))[0]
  const historyName = names.filter((n) => HISTORY_DB.test(n)).sort((a, b) => Number(HISTORY_DB.exec(b)![1]) - Number(HISTORY_DB.exec(a)![1]))[0]
  const orphanWal = names.filter((n) => n.endsWith('.sqlite-wal') && (STATE_DB.test(n.slice(0, -4)) || HISTORY_DB.test(n.slice(0, -4))) && !names.includes(n.slice(0, -4)))
  if (!stateName && !historyName && orphanWal.length === 0) return null
  const facts: CodexIndexFacts = {kind: 'codex-index', home, state: null, history: null, orphanWal, rollouts: listRollouts(home), threads: [], drift: [], rowRepair: null, rowRepairError: null, live: codexLive(home), projected: [], backfillComplete: null}

  if (stateName) {
    const f = (await fileFacts(home, stateName, names))!
    facts.state = f
    if (f.header === 'sqlite' || walHolds(f)) {
      const header = f.header
      const r = await withPrivateCopy(home, stateName, ({db}) => {
        const rows = readState(db, f)
        if (f.knownSchema) facts.backfillComplete = (db.prepare('SELECT status FROM backfill_state').pluck().all() as unknown[]).includes('complete')
        return rows
      })
      if (Array.isArray(r)) facts.threads = r
      else f.error = r.error
      if (!settleWalHeader(f, header)) {
        facts.threads = []
        facts.backfillComplete = null
      }
    }
  }
  let projections: Projection[] = []
  if (historyName) {
    const f = (await fileFacts(home, historyName, names))!
    facts.history = f
    if (f.header === 'sqlite' || walHolds(f)) {
      const header = f.header
      const r = await withPrivateCopy(home, historyName, ({db}) => readHistory(db, f))
      if (Array.isArray(r)) projections = r
      else f.error = r.error
      if (!settleWalHeader(f, header)) projections = []
    }
  }

  // The rows held against the rollouts.
  const byId = new Map<string, RolloutFile[]>()
  for (const r of facts.rollouts) byId.set(r.id, [...(byId.get(r.id) ?? []), r])
  const listed = new Set<string>()
  for (const t of facts.threads) {
    listed.add(t.id.toLowerCase())
    const abs = path.isAbsolute(t.rolloutPath) ? path.normalize(t.rolloutPath) : null
    if (abs !== null && !inside(home, abs)) {
      let exists = false
      try {
        exists = lstatSync(abs).isFile()
      } catch {
        exists = false
      }
      const found = byId.get(t.id.toLowerCase())?.[0]
      if (!exists && found) facts.drift.push({kind: 'moved', id: t.id, listed: t.rolloutPath, found: found.rel})
      else facts.drift.push({kind: 'outside', id: t.id, listed: t.rolloutPath, exists})
      continue
    }
    const rel = abs === null ? null : posix(path.relative(home, abs))
    const onDisk = rel !== null && facts.rollouts.some((r) => r.rel === rel)
    if (onDisk) continue
    const found = byId.get(t.id.toLowerCase())?.[0]
    if (found) facts.drift.push({kind: 'moved', id: t.id, listed: t.rolloutPath, found: found.rel})
    else facts.drift.push({kind: 'gone', id: t.id, listed: t.rolloutPath})
  }
  const stateReadable = facts.state !== null && facts.state.error === null && facts.state.knownSchema
  if (stateReadable) {
    for (const [id, files] of byId) if (!listed.has(id)) facts.drift.push({kind: 'not-listed', id, rel: files[0].rel})
  }
  facts.projected = projections.map((p) => p.id.toLowerCase())
  for (const p of projections) {
    const file = byId.get(p.id.toLowerCase())?.[0]
    if (!file) continue
    const why = projectionProblem(path.join(home, file.rel), p)
    if (why) facts.drift.push({kind: 'projection-stale', id: p.id, rel: file.rel, why})
  }

  // The repair of rows, prepared on a private copy: stale paths set, the backfill marker cleared so Codex scans
  // the rollouts again at its next start and adds the rows it lacks (keeping every row it has).
  const updates = facts.drift.filter((d): d is Extract<Drift, {kind: 'moved'}> => d.kind === 'moved').map((d) => ({id: d.id, rolloutPath: path.join(home, ...d.found.split('/'))}))
  const backfillReset = facts.backfillComplete === true && facts.drift.some((d) => d.kind === 'not-listed')
  const stateOk = stateReadable && facts.state!.check.length === 1 && facts.state!.check[0] === 'ok'
  if (stateOk && (updates.length > 0 || backfillReset)) {
    if (facts.state!.bytes > MAX_REPAIR_BYTES) facts.rowRepairError = `${stateName} is larger than ${MAX_REPAIR_BYTES} bytes; its rows are not repaired in memory`
    else {
      const r = await repairedBytes(home, stateName!, (db) => {
        const set = db.prepare('UPDATE threads SET rollout_path = ? WHERE id = ?')
        for (const u of updates) set.run(u.rolloutPath, u.id)
        if (backfillReset) db.prepare('DELETE FROM backfill_state').run()
      })
      if ('bytes' in r) facts.rowRepair = {bytes: r.bytes, sha256: sha256(r.bytes), updates, backfillReset}
      else facts.rowRepairError = r.error
    }
  }

  const members = [stateName, historyName].filter((n): n is string => n !== undefined).flatMap((n) => [n, `${n}-wal`, `${n}-shm`]).filter((n) => names.includes(n))
  members.push(...orphanWal, ...orphanWal.map((w) => `${w.slice(0, -4)}-shm`).filter((n) => names.includes(n) && !members.includes(n)))
  const unit: ChatUnit = {dir: home, path: home, members: [...new Set(members)], facts}
  return {chats: [unit], errors: []}
}
