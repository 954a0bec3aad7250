/**
 * Read-only diagnosis of OpenCode's SQLite store (≥ 1.2.0: `opencode.db` + `-wal` + `-shm`; tables `session`,
 * `message`, `part`, peer-formats.md §1.4).
 *
 * The original is never opened: opening a WAL database, even read-only, rewrites its `-shm`. The database and
 * its `-wal` are copied into a private temp folder, the copy is opened read-only, and the folder is removed
 * afterwards whatever happens. `better-sqlite3` is loaded only here, on first use, so a scan without an
 * OpenCode database never loads the native module.
 */
import {copyFile, mkdtemp, rm, stat} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type {SessionContext} from '../../model/report.js'
import {measureSession, type ContextIssue, type SessionMessage} from './measure.js'

/** What was found for one session row. Counts only: no message text. */
export interface DbSession {
  id: string
  projectId: string | null
  parentId: string | null
  version: string | null
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
  /** The newest `version` among session rows (the OpenCode version that last created a session), or null. */
  newestVersion: string | null
  /**
   * Queries of the `message` or `part` table that failed part-way (e.g. `database disk image is malformed`):
   * the counts above then hold only the rows read before the failure. One line each.
   */
  queryErrors: string[]
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

/** Compares OpenCode versions `a.b.c` numerically (non-numeric parts compare as 0). */
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

/**
 * Diagnoses `<dataDir>/<file>` on a private copy (with its `-wal` when present). Never throws: a database
 * that cannot be copied, opened or queried yields `error`. Writes only inside its own temp folder, removed
 * before returning.
 */
export async function readDatabase(dataDir: string, file: string): Promise<DatabaseFacts> {
  const facts: DatabaseFacts = {file, error: null, integrity: [], sessions: [], orphanMessages: 0, orphanPartsNoSession: 0, newestVersion: null, queryErrors: []}
  let tmp: string | undefined
  try {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'chatdoctor-opencode-db-'))
    const copy = path.join(tmp, file)
    await copyFile(path.join(dataDir, file), copy)
    try {
      await stat(path.join(dataDir, `${file}-wal`))
      await copyFile(path.join(dataDir, `${file}-wal`), `${copy}-wal`)
    } catch {
      // No WAL (or it vanished): the main file alone.
    }
    const {default: Database} = await import('better-sqlite3')
    const db = new Database(copy, {readonly: true, fileMustExist: true})
    try {
      queryInto(db, facts)
    } finally {
      db.close()
    }
  } catch (e) {
    facts.error = oneLine(e)
  } finally {
    if (tmp) await rm(tmp, {recursive: true, force: true})
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

function queryInto(db: Db, facts: DatabaseFacts): void {
  try {
    facts.integrity = (db.prepare('PRAGMA integrity_check(20)').pluck().all() as unknown[]).map(String)
  } catch (e) {
    facts.integrity = [oneLine(e)]
  }
  const sessions = new Map<string, DbSession>()
  const msgs = new Map<string, Map<string, SessionMessage>>()
  const msgSession = new Map<string, string>()
  for (const row of db.prepare('SELECT id, project_id, parent_id, version FROM session ORDER BY id').iterate() as Iterable<Record<string, unknown>>) {
    const id = String(row.id)
    const version = typeof row.version === 'string' ? row.version : null
    sessions.set(id, {id, projectId: (row.project_id as string) ?? null, parentId: (row.parent_id as string) ?? null, version, messages: 0, parts: 0, unreadableRows: 0, orphanParts: 0, context: {} as SessionContext, issues: []})
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
      // Keep only what measuring needs (never the text).
      const st = isObj(data.state) ? data.state : null
      m.parts.push({id: String(row.id), type: data.type, ...(st ? {state: {status: st.status, ...(typeof st.output === 'string' ? {output: ''} : {})}} : {})})
    }
  })
  for (const s of sessions.values()) {
    const {context, issues} = measureSession([...msgs.get(s.id)!.values()])
    s.context = context
    s.issues = issues
  }
  facts.sessions = [...sessions.values()]
}
