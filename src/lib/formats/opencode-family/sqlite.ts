/**
 * Read-only diagnosis of a store's SQLite database (`<name>.db` + `-wal` + `-shm`; tables `session`, `message`,
 * `part`, peer-formats.md §1.4).
 *
 * The original is never opened: opening a WAL database, even read-only, rewrites its `-shm`, and the last
 * connection to close checkpoints the WAL into the database and deletes it. The database, its `-wal` and its
 * `-shm` are copied together into a private temp folder (again, when one of them changed while it was copied),
 * the log and its index are read byte by byte (`wal.ts`), the copy is opened read-only, and the folder is removed
 * afterwards whatever happens. `better-sqlite3` is loaded only here, on first use, so a scan without a database
 * never loads the native module.
 */
import {createHash} from 'node:crypto'
import {closeSync, constants, copyFileSync, lstatSync, mkdtempSync, openSync, readSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type {SessionContext} from '../../model/report.js'
import {SqliteUnavailable, sqliteDriver} from '../../sqlite/index.js'
import {measureSession, type ContextIssue, type SessionMessage} from './measure.js'
import {loneSurrogateIn, type LoneSurrogate} from './findings.js'
import {shmFacts, walFacts, type ShmFacts, type WalFacts} from './wal.js'

/** The last turn of a session: its last prompt and the newest answer to it. Ids and counts only. */
export interface LastTurn {
  /** The session's last user message, null when it has none. */
  prompt: string | null
  /** The newest assistant message after that prompt, null when none was written. */
  answer: string | null
  /** True when the answer never finished: it has neither `time.completed` nor an `error`. */
  unfinished: boolean
  /** Text parts of the answer whose text is empty (created before the model's text arrived). */
  emptyTexts: number
  /** Model steps of the answer that started (`step-start`) and never finished (no `step-finish` after them). */
  openSteps: number
  /** Tool calls of the answer still `pending` or `running`. */
  pendingTools: number
}

/** What was found for one session row. Counts only: no message text. */
export interface DbSession {
  id: string
  projectId: string | null
  parentId: string | null
  version: string | null
  /** The row's `time_updated` (ms), null when not a number. */
  updatedMs: number | null
  /** Message rows of the session. */
  messages: number
  /** Part rows of the session's messages. */
  parts: number
  /** Message or part rows whose `data` column is not a JSON object. */
  unreadableRows: number
  /** Part rows with this `session_id` whose `message_id` names no message row. */
  orphanParts: number
  context: SessionContext
  issues: ContextIssue[]
  /** The session's last turn, null when it holds no message. */
  lastTurn: LastTurn | null
  /** Message and part rows whose data holds a lone surrogate escape (kept as they are; a warning). */
  loneSurrogates: LoneSurrogate[]
}

/** The database file as bytes (before SQLite reads it). */
export interface DbFileFacts {
  bytes: number
  /**
   * `intact`: starts with SQLite's header; `truncated`: the header's page count says it is longer than it is;
   * `empty`: 0 bytes; `zero-filled`: every byte is NUL; `corrupt`: not a SQLite header.
   */
  class: 'intact' | 'truncated' | 'empty' | 'zero-filled' | 'corrupt'
  pageSize: number | null
  /** Pages the header says the file holds (as of its last checkpoint), null when the header does not say. */
  pages: number | null
}

/** The diagnosis of one database file. */
export interface DatabaseFacts {
  /** The database's file name inside the data dir (`opencode.db`). */
  file: string
  /** Null when the copy opened and every query ran; otherwise why not (one line). */
  error: string | null
  /** `PRAGMA integrity_check` lines: `['ok']` when healthy; at most 20 lines. Empty when it could not run. */
  integrity: string[]
  sessions: DbSession[]
  /** Message rows whose `session_id` names no session row. */
  orphanMessages: number
  /** Part rows whose `message_id` names no message row and whose `session_id` names no session row. */
  orphanPartsNoSession: number
  /** The newest `version` among session rows (the agent version that last created a session), or null. */
  newestVersion: string | null
  /**
   * Queries of the `message` or `part` table that failed part-way (e.g. `database disk image is malformed`):
   * the counts above then hold only the rows read before the failure. One line each.
   */
  queryErrors: string[]
  /** The database file's bytes as copied; null when it could not be copied. */
  db: DbFileFacts | null
  /** The WAL as copied, null when there is none (or it could not be read). */
  wal: WalFacts | null
  /** The WAL index as copied, null when there is none. */
  shm: ShmFacts | null
  /** Ids of sessions whose id is written in the bytes of the WAL that SQLite ignores (what it rolled back). */
  rolledBackSessions: string[]
  /** sha256 of each file of the set as copied (database, `-wal`, `-shm`), when asked for (`hash`). */
  sha256: Record<string, string>
  /** Ids of the `migration` table's rows (the schema migrations applied), sorted; empty when it has none or cannot be read. */
  migrations: string[]
}

/** Options of `readDatabase`. */
export interface ReadOptions {
  /** Prefix of the private temp folder (`chatdoctor-<agent>-db-`). */
  tempPrefix: string
  /** Also hash the files as copied (a repair that moves them then checks it moves exactly those bytes). */
  hash?: boolean
}

/** The sha256 of a file, read in chunks. */
export function hashFile(file: string): string {
  const h = createHash('sha256')
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.alloc(1 << 20)
    for (let pos = 0; ; ) {
      const n = readSync(fd, buf, 0, buf.length, pos)
      if (n === 0) break
      h.update(buf.subarray(0, n))
      pos += n
    }
  } finally {
    closeSync(fd)
  }
  return h.digest('hex')
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function parseData(text: unknown): Record<string, unknown> | null {
  if (typeof text !== 'string') return null
  try {
    const v = JSON.parse(text)
    return isObj(v) ? v : null
  } catch {
    return null
  }
}

/** Compares versions `a.b.c` numerically (non-numeric parts compare as 0). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0)
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}

function oneLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0]
}

/** The names of a database's files: the database, its WAL, its WAL index. */
export const storeFiles = (file: string): [string, string, string] => [file, `${file}-wal`, `${file}-shm`]

type Seen = {ino: number; size: number; mtimeMs: number} | null

function seen(p: string): Seen {
  try {
    const st = lstatSync(p)
    if (!st.isFile()) throw Object.assign(new Error(`${path.basename(p)} is not a regular file (never read)`), {code: 'ENOTREG'})
    return {ino: st.ino, size: st.size, mtimeMs: st.mtimeMs}
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw e
  }
}

const same = (a: Seen, b: Seen) => (a === null ? b === null : b !== null && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs)

/**
 * Copies a database with its WAL and WAL index into `tmp`, as one consistent set: when any of them changed
 * while it was copied (the agent wrote), the copy is made again, up to 3 times. Throws when the database is
 * absent or not a regular file, or when it kept changing.
 */
export function copyTogether(dataDir: string, file: string, tmp: string): {wal: boolean; shm: boolean} {
  const names = storeFiles(file)
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = names.map((n) => seen(path.join(dataDir, n)))
    if (before[0] === null) throw Object.assign(new Error(`${file} is gone`), {code: 'ENOENT'})
    for (const [i, n] of names.entries()) {
      rmSync(path.join(tmp, n), {force: true})
      if (before[i] !== null) {
        try {
          copyFileSync(path.join(dataDir, n), path.join(tmp, n), constants.COPYFILE_EXCL)
        } catch (e) {
          // A WAL or index removed between the check and the copy (the agent closed the store): copied again.
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || i === 0) throw e
        }
      }
    }
    const after = names.map((n) => seen(path.join(dataDir, n)))
    if (names.every((_, i) => same(before[i], after[i]))) return {wal: before[1] !== null, shm: before[2] !== null}
  }
  throw new Error(`${file} and its -wal kept changing while they were copied (is the agent writing them?)`)
}

/** The bytes of a database file, judged before SQLite reads it (SQLite's header: sqlite.org/fileformat2.html §1.3). */
export function dbFileFacts(file: string): DbFileFacts {
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.alloc(64 * 1024)
    let pos = 0
    let allNul = true
    let head: Buffer | null = null
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, pos)
      if (n === 0) break
      if (head === null) head = Buffer.from(buf.subarray(0, Math.min(n, 100)))
      if (allNul) for (let i = 0; i < n; i++) if (buf[i] !== 0) allNul = false
      pos += n
      if (!allNul && pos >= 100) break
    }
    const bytes = lstatSync(file).size
    if (bytes === 0 || head === null) return {bytes, class: 'empty', pageSize: null, pages: null}
    if (allNul) return {bytes, class: 'zero-filled', pageSize: null, pages: null}
    if (head.length < 100 || !head.subarray(0, 16).equals(Buffer.from('SQLite format 3\0', 'latin1'))) return {bytes, class: 'corrupt', pageSize: null, pages: null}
    const raw = head.readUInt16BE(16)
    const pageSize = raw === 1 ? 65536 : raw
    // The header's page count is valid only when its change counter matches "version valid for" (offset 92).
    const pages = head.readUInt32BE(24) === head.readUInt32BE(92) && head.readUInt32BE(28) > 0 ? head.readUInt32BE(28) : null
    const truncated = pages !== null && pageSize >= 512 && bytes < pages * pageSize
    return {bytes, class: truncated ? 'truncated' : 'intact', pageSize, pages}
  } finally {
    closeSync(fd)
  }
}

/**
 * Diagnoses `<dataDir>/<file>` on a private copy (with its `-wal` and `-shm` when present), in a temp folder named
 * `<tempPrefix>…`. Never throws: a database that cannot be copied, opened or queried yields `error`. Writes only
 * inside its own temp folder, removed before returning.
 */
export async function readDatabase(dataDir: string, file: string, opts: ReadOptions): Promise<DatabaseFacts> {
  const facts: DatabaseFacts = {file, error: null, integrity: [], sessions: [], orphanMessages: 0, orphanPartsNoSession: 0, newestVersion: null, queryErrors: [], db: null, wal: null, shm: null, rolledBackSessions: [], sha256: {}, migrations: []}
  let tmp: string | undefined
  try {
    tmp = mkdtempSync(path.join(os.tmpdir(), opts.tempPrefix))
    const copy = path.join(tmp, file)
    const has = copyTogether(dataDir, file, tmp)
    if (opts.hash) for (const [i, n] of storeFiles(file).entries()) if (i === 0 || (i === 1 ? has.wal : has.shm)) facts.sha256[n] = hashFile(path.join(tmp, n))
    facts.db = dbFileFacts(copy)
    let ignored: Buffer | null = null
    if (has.wal) {
      try {
        facts.wal = walFacts(`${copy}-wal`, (b) => void (ignored = b))
      } catch {
        // An unreadable copy of the WAL: SQLite will say what it makes of it.
      }
    }
    if (has.shm) {
      try {
        const fd = openSync(`${copy}-shm`, 'r')
        try {
          const buf = Buffer.alloc(136)
          const n = readSync(fd, buf, 0, buf.length, 0)
          facts.shm = shmFacts(buf.subarray(0, n), lstatSync(`${copy}-shm`).size)
        } finally {
          closeSync(fd)
        }
      } catch {
        // As for the WAL.
      }
    }
    const Database = sqliteDriver()
    const db = new Database(copy, {readonly: true, fileMustExist: true})
    try {
      queryInto(db, facts)
    } finally {
      db.close()
    }
    const lost = ignored as Buffer | null
    if (lost !== null && lost.length > 0) facts.rolledBackSessions = facts.sessions.filter((s) => lost.includes(s.id, 0, 'latin1')).map((s) => s.id)
  } catch (e) {
    if (e instanceof SqliteUnavailable) throw e
    // A file of the store the user cannot read: said as the rest of chatdoctor says it (not the private copy's path).
    const code = (e as NodeJS.ErrnoException).code
    facts.error = code === 'EACCES' || code === 'EPERM' ? 'permission denied (run as a user who can read it)' : oneLine(e)
  } finally {
    if (tmp) rmSync(tmp, {recursive: true, force: true})
  }
  return facts
}

type Db = import('better-sqlite3').Database

/** Runs a table read; a failure part-way (a damaged page) is recorded, and the rows read so far are kept. */
function tolerate(facts: DatabaseFacts, read: () => void): void {
  try {
    read()
  } catch (e) {
    facts.queryErrors.push(oneLine(e))
  }
}

/** The last turn of a session from its messages in id order. */
export function lastTurnOf(messages: SessionMessage[]): LastTurn | null {
  if (messages.length === 0) return null
  let prompt = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].info?.role === 'user') {
      prompt = i
      break
    }
  }
  let answer: SessionMessage | null = null
  for (let i = messages.length - 1; i > prompt; i--) {
    if (messages[i].info?.role === 'assistant') {
      answer = messages[i]
      break
    }
  }
  const out: LastTurn = {prompt: prompt >= 0 ? messages[prompt].id : null, answer: answer?.id ?? null, unfinished: false, emptyTexts: 0, openSteps: 0, pendingTools: 0}
  if (!answer || !answer.info) return out
  const time = isObj(answer.info.time) ? answer.info.time : {}
  out.unfinished = typeof time.completed !== 'number' && answer.info.error === undefined
  let open = 0
  for (const p of answer.parts) {
    if (p.type === 'text' && p.emptyText === true) out.emptyTexts++
    if (p.type === 'step-start') open++
    if (p.type === 'step-finish' && open > 0) open--
    if (p.type === 'tool' && isObj(p.state) && (p.state.status === 'pending' || p.state.status === 'running')) out.pendingTools++
  }
  out.openSteps = open
  return out
}

/** Notes a row whose data holds a lone surrogate escape (the field's path only, never the text). */
function surrogateInto(s: DbSession, record: string, text: string, value: Record<string, unknown>): void {
  const at = loneSurrogateIn(text, value)
  if (at !== null) s.loneSurrogates.push({record, path: at})
}

function queryInto(db: Db, facts: DatabaseFacts): void {
  try {
    facts.migrations = (db.prepare('SELECT id FROM migration ORDER BY id').pluck().all() as unknown[]).map(String)
  } catch {
    // No migration table (a store older than the table): nothing says the schema is newer than the one read below.
  }
  try {
    // One row per problem, but SQLite may put several on one row (one line each, under a `*** in database … ***` heading).
    facts.integrity = (db.prepare('PRAGMA integrity_check(20)').pluck().all() as unknown[]).flatMap((r) => String(r).split('\n')).filter((l) => l !== '' && !/^\*\*\* in database .* \*\*\*$/.test(l))
  } catch (e) {
    facts.integrity = [oneLine(e)]
  }
  const sessions = new Map<string, DbSession>()
  const msgs = new Map<string, Map<string, SessionMessage>>()
  const msgSession = new Map<string, string>()
  for (const row of db.prepare('SELECT id, project_id, parent_id, version, time_updated FROM session ORDER BY id').iterate() as Iterable<Record<string, unknown>>) {
    const id = String(row.id)
    const version = typeof row.version === 'string' ? row.version : null
    const updatedMs = typeof row.time_updated === 'number' ? row.time_updated : typeof row.time_updated === 'bigint' ? Number(row.time_updated) : null
    sessions.set(id, {id, projectId: (row.project_id as string) ?? null, parentId: (row.parent_id as string) ?? null, version, updatedMs, messages: 0, parts: 0, unreadableRows: 0, orphanParts: 0, context: {} as SessionContext, issues: [], lastTurn: null, loneSurrogates: []})
    msgs.set(id, new Map())
    if (version && (facts.newestVersion === null || compareVersions(version, facts.newestVersion) > 0)) facts.newestVersion = version
  }
  tolerate(facts, () => {
    for (const row of db.prepare('SELECT id, session_id, data FROM message ORDER BY id').iterate() as Iterable<Record<string, unknown>>) {
      const id = String(row.id)
      const sid = String(row.session_id)
      const s = sessions.get(sid)
      if (!s) {
        facts.orphanMessages++
        continue
      }
      const info = parseData(row.data)
      s.messages++
      if (!info) s.unreadableRows++
      else surrogateInto(s, `message ${id}`, row.data as string, info)
      msgSession.set(id, sid)
      msgs.get(sid)!.set(id, {id, info, parts: [], unreadableParts: 0})
    }
  })
  tolerate(facts, () => {
    for (const row of db.prepare('SELECT id, message_id, session_id, data FROM part ORDER BY id').iterate() as Iterable<Record<string, unknown>>) {
      const mid = String(row.message_id)
      const sid = msgSession.get(mid)
      if (sid === undefined) {
        const s = sessions.get(String(row.session_id))
        if (s) s.orphanParts++
        else facts.orphanPartsNoSession++
        continue
      }
      const s = sessions.get(sid)!
      s.parts++
      const m = msgs.get(sid)!.get(mid)!
      const data = parseData(row.data)
      if (!data) {
        s.unreadableRows++
        m.unreadableParts++
        continue
      }
      surrogateInto(s, `part ${String(row.id)} of message ${mid}`, row.data as string, data)
      // Keep only what measuring needs (never the text).
      const st = isObj(data.state) ? data.state : null
      m.parts.push({id: String(row.id), type: data.type, ...(st ? {state: {status: st.status, ...(typeof st.output === 'string' ? {output: ''} : {})}} : {}), ...(data.type === 'text' && data.text === '' ? {emptyText: true} : {})})
    }
  })
  for (const s of sessions.values()) {
    const list = [...msgs.get(s.id)!.values()]
    const {context, issues} = measureSession(list)
    s.context = context
    s.issues = issues
    s.lastTurn = lastTurnOf(list)
  }
  facts.sessions = [...sessions.values()]
}
