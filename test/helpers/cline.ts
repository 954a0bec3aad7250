/**
 * Fixtures for Cline CLI tests, built from the store the real cline 3.0.65 binary wrote
 * (`shared/realdata/cline/3.0.65/`): copies of its home, damaged by code here, or the damage states the
 * generator left in `damage/<case>/0-damaged/` (what the binary then did is in each `result.json`).
 */
import {chmodSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {REALDATA, setMtime} from './fixtures.js'

export const CLINE = path.join(REALDATA, 'cline', '3.0.65')
/** Session A: 5 turns in 18 messages (run_commands, read_files, search_codebase, editor, thinking). */
export const SESSION_A = '1796118198748_i47ig'
/** Session B: 2 turns in 6 messages (read_files; the second turn typed into the TUI). */
export const SESSION_B = '1796118231767_yakzq'

export const messagesName = (id: string) => `${id}.messages.json`
export const recordName = (id: string) => `${id}.json`

/** The real files of a session as the binary left them at the end of the run. */
export function realMessages(id: string): Buffer {
  return readFileSync(path.join(CLINE, 'home', '.cline', 'data', 'sessions', id, messagesName(id)))
}
export function realRecord(id: string): Buffer {
  return readFileSync(path.join(CLINE, 'home', '.cline', 'data', 'sessions', id, recordName(id)))
}

/** A file of the damage state `damage/<case>/<step>/` (step `0-damaged`: the damage before Cline ran). */
export function damageFile(kase: string, id: string, name: string, step = '0-damaged'): Buffer {
  return readFileSync(path.join(CLINE, 'damage', kase, step, '.cline', 'data', 'sessions', id, name))
}

/** Makes a tree writable (the realdata copies are read-only). */
function writable(dir: string): void {
  chmodSync(dir, 0o755)
  for (const n of readdirSync(dir)) {
    const p = path.join(dir, n)
    if (statSync(p).isDirectory()) writable(p)
    else chmodSync(p, 0o644)
  }
}

/** A copied Cline home: where its data dir, session folders and files are. */
export interface ClineHome {
  home: string
  data: string
  sessions: string
  dir(id: string): string
  messages(id: string): string
  record(id: string): string
}

/**
 * Copies the real `~/.cline` into `<home>/.cline` (writable, distinct fixed mtimes: records before messages,
 * A before B). Returns its paths.
 */
export function copyClineHome(home: string): ClineHome {
  cpSync(path.join(CLINE, 'home', '.cline'), path.join(home, '.cline'), {recursive: true})
  writable(path.join(home, '.cline'))
  const data = path.join(home, '.cline', 'data')
  const sessions = path.join(data, 'sessions')
  const h: ClineHome = {
    home,
    data,
    sessions,
    dir: (id) => path.join(sessions, id),
    messages: (id) => path.join(sessions, id, messagesName(id)),
    record: (id) => path.join(sessions, id, recordName(id)),
  }
  const base = Date.UTC(2026, 11, 1, 9, 44, 0)
  for (const [k, id] of [SESSION_A, SESSION_B].entries()) {
    setMtime(h.record(id), base + k * 10_000)
    setMtime(h.messages(id), base + k * 10_000 + 1000)
    setMtime(h.dir(id), base + k * 10_000 + 2000)
  }
  return h
}

/** A session's files replaced by those of a damage state (`damage/<case>/<step>/`). */
export function installDamageState(h: ClineHome, kase: string, id: string, step = '0-damaged'): void {
  const src = path.join(CLINE, 'damage', kase, step, '.cline', 'data', 'sessions', id)
  rmSync(h.dir(id), {recursive: true, force: true})
  if (!existsSync(src)) return
  cpSync(src, h.dir(id), {recursive: true})
  writable(h.dir(id))
}

/** The session index and its WAL and SHM removed (`damage/delete-index`). */
export function deleteIndex(h: ClineHome): void {
  for (const s of ['', '-wal', '-shm']) rmSync(path.join(h.data, 'db', `sessions.db${s}`), {force: true})
}

/** Deletes one row of the copied index (through SQLite, as a lost index entry would leave it). */
export function dropIndexRow(h: ClineHome, id: string): void {
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3')
  const db = new Database(path.join(h.data, 'db', 'sessions.db'))
  try {
    db.prepare('DELETE FROM sessions WHERE session_id = ?').run(id)
  } finally {
    db.close()
  }
}

/**
 * What Cline's in-place rewrite leaves when it dies between its `write` and its `ftruncate`: the newer content
 * over the older, longer one, the older one's tail after it.
 */
export function staleTail(newer: Buffer, older: Buffer): Buffer {
  if (newer.length >= older.length) throw new Error('the newer content must be shorter for a stale tail')
  return Buffer.concat([newer, older.subarray(newer.length)])
}

/** The messages file with every message cut out of its array (`"messages": []`), the rest byte for byte. */
export function emptiedMessages(buf: Buffer): Buffer {
  const open = buf.indexOf('"messages": [') + '"messages": ['.length
  const close = buf.indexOf('\n  ],\n  "system_prompt"')
  if (open < '"messages": ['.length || close < 0) throw new Error('not a pretty Cline messages file')
  return Buffer.concat([buf.subarray(0, open), Buffer.from(']'), buf.subarray(close + '\n  ]'.length)])
}

/** Writes bytes, keeping the file's mtime (so a test damages content, not timing). */
export function overwrite(p: string, data: Buffer): void {
  const m = statSync(p).mtimeMs
  writeFileSync(p, data)
  setMtime(p, m)
}
