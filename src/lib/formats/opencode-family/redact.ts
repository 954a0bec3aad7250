/**
 * The family's rules for `bundle --redact` (on the byte-level lexer of `json/redact.ts`): in JSON-tree files
 * and export documents, ids (`id`, `sessionID`, `messageID`, `parentID`, `projectID`, `callID`), roles, part
 * types, tool names and states, model and provider ids and versions are kept; titles, paths, text, tool
 * inputs and outputs become placeholders; times are numbers and stay.
 *
 * A session of a database is redacted on a private copy of the database with its `-wal` and `-shm` (the bytes
 * the bundle read, written together into a private temp folder; the user's files are never opened by SQLite):
 * the copy keeps only that session's rows (its `session` row, its `message` rows and its `part` rows; the rows
 * of every other session and of every other table, such as events, inputs, accounts and credentials, are
 * deleted, so a bundle of one session carries no other session's text); each `message` and `part` row's `data`
 * is redacted by the profile above, and the `session` row's text columns (title, directory, path, share URL,
 * summaries; JSON columns by the profile) become placeholders, its ids, version, agent, counts and times kept.
 * Then the WAL is checkpointed into the copy (`wal_checkpoint(TRUNCATE)`) and the copy is rewritten
 * (`VACUUM`, with `secure_delete` on), so no freed page or older page version keeps the original text. The
 * bundle carries the copy's database file, and, where the store had them, a WAL holding one commit of the
 * rewritten store (a page written after the rewrite: no older page version) and its index, so the redacted
 * store diagnoses as the original (a store without its WAL reads differently). A store whose WAL lost writes
 * (what it lost is only in the WAL's bytes) or that fails SQLite's integrity check (VACUUM cannot rewrite it)
 * is refused, with why.
 */
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createHash} from 'node:crypto'
import os from 'node:os'
import path from 'node:path'
import {redactJsonBytes, type RedactProfile} from '../../json/redact.js'
import type {BundleFile, Redactor} from '../../model/adapter.js'
import type {ChatReport} from '../../model/report.js'
import {SqliteUnavailable, sqliteDriver} from '../../sqlite/index.js'
import type {StoreMember} from './member.js'
import {storeFiles} from './sqlite.js'

/** The store format's structural keys (peer-formats.md §1.5; `schema.ts`). */
export const STORE_PROFILE: RedactProfile = {
  structuralKeys: new Set(['id', 'sessionID', 'messageID', 'parentID', 'projectID', 'callID', 'role', 'type', 'status', 'version', 'modelID', 'providerID', 'agent', 'mode', 'tool', 'slug', 'reason']),
}

/** Redacts one JSON file of the store format (a tree file or an export document). Never throws. */
export function redactStoreBytes(buf: Buffer, r: Redactor): Buffer {
  return redactJsonBytes(buf, r, STORE_PROFILE)
}

/** Columns of a `session` row kept as they are (ids, version, agent); numbers and NULLs are always kept. */
const SESSION_KEPT = new Set(['id', 'project_id', 'workspace_id', 'parent_id', 'slug', 'version', 'agent'])
/** The tables a session's diagnosis reads; every other table's rows are deleted from the copy. */
const SESSION_TABLES = new Set(['session', 'message', 'part'])
/** Findings of a store whose redaction cannot keep its verdict, with why. */
const UNKEPT: Record<string, string> = {
  'database-damaged': 'fails SQLite\'s integrity check or has rows it cannot read, and a damaged database cannot be rewritten without its damage',
  'wal-torn': 'lost writes in its WAL, and what was lost is only in the WAL\'s bytes (which hold the user\'s text)',
  'store-newer': 'was migrated by a newer build than chatdoctor knows, whose tables may hold text chatdoctor does not know to redact',
  'turn-rolled-back': 'lost writes in its WAL, and what was lost is only in the WAL\'s bytes (which hold the user\'s text)',
}

const isJsonish = (s: string) => /^\s*[[{]/.test(s)

/** The redacted value of one text cell: JSON by the profile, anything else (and unreadable JSON) a placeholder. */
function redactCell(v: unknown, r: Redactor, json: boolean): unknown {
  if (typeof v !== 'string') return Buffer.isBuffer(v) ? r.placeholder(v.toString('latin1')) : v
  if (json) {
    try {
      const parsed = JSON.parse(v)
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return redactStoreBytes(Buffer.from(v, 'utf8'), r).toString('utf8')
    } catch {
      // Not JSON: the whole cell becomes a placeholder (still not a JSON object, as the diagnosis read it).
    }
    return r.placeholder(v)
  }
  return isJsonish(v) ? redactCell(v, r, true) : r.placeholder(v)
}

type Db = import('better-sqlite3').Database

/** Rewrites the private copy `db` to hold only session `sid`, redacted. */
function redactRows(db: Db, sid: string, r: Redactor): void {
  db.pragma('foreign_keys = OFF')
  db.pragma('secure_delete = ON')
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[])
  const q = (n: string) => `"${n.replace(/"/g, '""')}"`
  db.transaction(() => {
    for (const t of tables) if (!SESSION_TABLES.has(t)) db.prepare(`DELETE FROM ${q(t)}`).run()
    db.prepare('DELETE FROM part WHERE session_id IS NOT ? AND message_id NOT IN (SELECT id FROM message WHERE session_id = ?)').run(sid, sid)
    db.prepare('DELETE FROM message WHERE session_id IS NOT ?').run(sid)
    db.prepare('DELETE FROM session WHERE id IS NOT ?').run(sid)
    for (const t of ['message', 'part']) {
      const set = db.prepare(`UPDATE ${t} SET data = ? WHERE rowid = ?`)
      for (const row of db.prepare(`SELECT rowid AS k, data FROM ${t}`).all() as Array<{k: number; data: unknown}>) set.run(redactCell(row.data, r, true), row.k)
    }
    const cols = (db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('session') as string[]).filter((c) => !SESSION_KEPT.has(c))
    for (const row of db.prepare('SELECT rowid AS k, * FROM session').all() as Array<Record<string, unknown>>) {
      for (const c of cols) {
        const v = row[c]
        if (typeof v === 'string' || Buffer.isBuffer(v)) db.prepare(`UPDATE session SET ${q(c)} = ? WHERE rowid = ?`).run(redactCell(v, r, false), row.k)
      }
    }
  })()
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.exec('VACUUM')
  db.pragma('wal_checkpoint(TRUNCATE)')
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')

/**
 * The `redact` hook's work for a session of a database (null when the chat's files are not a database's): the
 * redacted database files (`relist`: the bundle diagnoses them again by listing them as a store), or why not.
 * Other files of the chat (a JSON-tree file of the same session) are redacted by the profile. Writes only
 * inside its own temp folder, removed before returning; never throws.
 */
export function redactDatabaseSession(member: StoreMember, files: readonly BundleFile[], report: ChatReport, r: Redactor): {files: BundleFile[]; omitted: Array<{path: string; reason: string}>; relist: true} | {refused: string} | null {
  const dbGen = report.generations.find((g) => g.role === 'database' && !/-(?:wal|shm)$/.test(g.file))
  if (!dbGen) return null
  const why = report.findings.map((f) => UNKEPT[f.id]).find((w) => w !== undefined)
  if (why) return {refused: `${report.id} cannot be redacted: its ${member.displayName} store ${why}; bundle it without --redact`}
  const names = storeFiles(dbGen.file)
  const byName = new Map(files.map((f) => [f.rel, f] as const))
  if (!byName.has(names[0])) return {refused: `${report.id} cannot be redacted: ${names[0]} was not read; bundle it without --redact`}
  // The bytes read for the bundle must be those the scan diagnosed (an agent writing in between changes them).
  for (const n of names) {
    const f = byName.get(n)
    const want = report.generations.find((g) => g.file === n)?.sha256
    if (f && want && sha256(f.data) !== want) return {refused: `${report.id} cannot be redacted: ${n} changed since it was diagnosed (is ${member.displayName} writing it?); quit ${member.displayName} and bundle again`}
  }
  let tmp: string | undefined
  try {
    tmp = mkdtempSync(path.join(os.tmpdir(), member.tempPrefix))
    for (const n of names) {
      const f = byName.get(n)
      if (f) writeFileSync(path.join(tmp, n), f.data, {flag: 'wx', mode: 0o600})
    }
    const copy = path.join(tmp, names[0])
    const Database = sqliteDriver()
    const db = new Database(copy, {fileMustExist: true})
    const out = new Map<string, Buffer>()
    try {
      redactRows(db, report.id, r)
      const wal = byName.get(names[1])
      if (wal && wal.data.length > 0 && db.pragma('journal_mode', {simple: true}) === 'wal') {
        // One commit of the rewritten store (its first page, unchanged), so the WAL is whole as the original's was.
        db.pragma(`user_version = ${Number(db.pragma('user_version', {simple: true})) | 0}`)
      }
      // Read while the connection is open: the last close checkpoints the WAL and deletes it.
      for (const n of names) if (byName.has(n)) out.set(n, readFileSync(path.join(tmp, n)))
    } finally {
      db.close()
    }
    const redacted: BundleFile[] = files.map((f) => ({...f, data: out.get(f.rel) ?? redactStoreBytes(f.data, r)}))
    return {files: redacted, omitted: [], relist: true}
  } catch (e) {
    if (e instanceof SqliteUnavailable) throw e
    return {refused: `${report.id} cannot be redacted: SQLite could not rewrite a private copy of its ${member.displayName} store (${String((e as Error)?.message ?? e).split('\n')[0]}); bundle it without --redact`}
  } finally {
    if (tmp) rmSync(tmp, {recursive: true, force: true})
  }
}
