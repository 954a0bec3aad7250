/**
 * Cline's session index `<data>/db/sessions.db` (SQLite in WAL mode, table `sessions`; schema in
 * `shared/realdata/cline/3.0.65/sqlite/sessions.db.schema.sql`), read only to tell which sessions it lists.
 *
 * The original is never opened: opening a WAL database, even read-only, rewrites its `-shm`. The database, its
 * `-wal` and its `-shm` are copied together into a private temp folder, the copy is opened read-only, and the
 * folder is removed whatever happens. `better-sqlite3` is loaded only here, on first use.
 *
 * One read per index: the facts are kept for the rest of the process, keyed by the index's path and the size
 * and mtime of its three files, so the session folders of one store (listed one by one when discovery reaches
 * them singly) share one copy.
 */
import {copyFileSync, mkdtempSync, rmSync, statSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {runCountOf} from './record.js'
import {SqliteUnavailable, sqliteDriver} from '../../sqlite/index.js'

/** One row of the `sessions` table, as far as chatdoctor needs it (no text). */
export interface IndexRow {
  sessionId: string
  status: string | null
  /** A sub-agent or teammate session (its files sit in the root session's folder). */
  child: boolean
  /** The absolute path of the messages file the row names (Cline reads this path), or null. */
  messagesPath: string | null
  /** `metadata_json` → `checkpoint.latest.runCount`, or null. */
  runCount: number | null
}

/** What the index says. */
export type IndexFacts =
  | {state: 'absent'; file: string}
  | {state: 'unreadable'; file: string; error: string}
  | {state: 'read'; file: string; rows: IndexRow[]}

const memo = new Map<string, {stamp: string; facts: IndexFacts}>()

function stampOf(file: string): string | null {
  const parts: string[] = []
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      const st = statSync(file + suffix)
      parts.push(`${st.size}:${st.mtimeMs}:${st.ino}`)
    } catch (e) {
      if (suffix === '') return null
      parts.push((e as NodeJS.ErrnoException).code ?? 'x')
    }
  }
  return parts.join('|')
}

function oneLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0]
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

/** The index at `file` (`<data>/db/sessions.db`): absent, unreadable (why), or its rows. Never throws. */
export function readIndex(file: string): IndexFacts {
  const stamp = stampOf(file)
  if (stamp === null) return {state: 'absent', file}
  const hit = memo.get(file)
  if (hit && hit.stamp === stamp) return hit.facts
  const facts = readCopy(file)
  memo.set(file, {stamp, facts})
  return facts
}

function readCopy(file: string): IndexFacts {
  let tmp: string | undefined
  try {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'chatdoctor-cline-index-'))
    const copy = path.join(tmp, path.basename(file))
    copyFileSync(file, copy)
    for (const suffix of ['-wal', '-shm']) {
      try {
        copyFileSync(file + suffix, copy + suffix)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
      }
    }
    const Database = sqliteDriver()
    const db = new Database(copy, {readonly: true, fileMustExist: true})
    try {
      const rows: IndexRow[] = []
      for (const r of db.prepare('SELECT session_id, status, is_subagent, parent_session_id, messages_path, metadata_json FROM sessions').iterate() as Iterable<Record<string, unknown>>) {
        let runCount: number | null = null
        if (typeof r.metadata_json === 'string') {
          try {
            runCount = runCountOf(JSON.parse(r.metadata_json))
          } catch {
            // Unreadable metadata: no run count.
          }
        }
        rows.push({sessionId: String(r.session_id), status: str(r.status), child: r.is_subagent === 1 || str(r.parent_session_id) !== null, messagesPath: str(r.messages_path), runCount})
      }
      return {state: 'read', file, rows}
    } finally {
      db.close()
    }
  } catch (e) {
    if (e instanceof SqliteUnavailable) throw e
    return {state: 'unreadable', file, error: oneLine(e)}
  } finally {
    if (tmp) rmSync(tmp, {recursive: true, force: true})
  }
}

/** Forgets every index read (tests that change an index in place within one process). */
export function forgetIndexReads(): void {
  memo.clear()
}
