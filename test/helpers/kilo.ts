/**
 * Fixtures for Kilo Code CLI: the home tree the real `@kilocode/cli@7.7.7` wrote (`../shared/realdata/kilo/7.7.7/`,
 * new-agents.md §3), copied into a temp folder with fixed, distinct mtimes; damage made by code on the copies.
 *
 * The baseline's WAL holds one current frame (Kilo copied the last run's pages into `kilo.db` at the start of
 * the `kilo export` that followed it). The WAL damage cases of `damage/` were made on a store whose last turn was
 * still only in the WAL; `withTurnInWal` makes that store from the baseline: it takes the last turn of a session
 * out of `kilo.db` (its message, part and event rows, the session's event sequence and update time), copies
 * everything into `kilo.db` (a checkpoint), then writes the turn again from Kilo's own event log, one transaction
 * per event, as Kilo's sync layer does (the event row, its projection onto the message or part row, the
 * session's sequence), with automatic checkpoints off, so every commit of the turn is in the WAL. Each row's last
 * write puts back the row Kilo wrote, byte for byte; the writes before it put the event's object (an empty text
 * part, an answer without its completion time). The files are copied while the writer still has the store open,
 * so the WAL index (`-shm`) records the commits as Kilo's does after a run. SQLite itself writes the WAL:
 * `better-sqlite3`'s SQLite 3.x, the same file format as Kilo's Bun SQLite.
 */
import {closeSync, copyFileSync, openSync, readFileSync, statSync, truncateSync, writeSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {REALDATA, copyWithMtimes, setMtime, tempDir, cleanup} from './fixtures.js'

export const KILO_REAL = path.join(REALDATA, 'kilo', '7.7.7')
/** The data dir below a copied home. */
export const DATA = path.join('.local', 'share', 'kilo')
/** Session A: 5 turns (`kilo run`, then `-s` four times: read, read, grep, edit, an answer with reasoning); 14 messages, 36 parts. */
export const SESSION_A = 'ses_dcf0103d1ffeVv9VwWk5ZTVB35'
/** Session B: 2 turns (a read, then "Thanks, that is all." under strace); 5 messages, 11 parts. */
export const SESSION_B = 'ses_dcf0012bdffeL2kaPUHfqjpaDl'

type Row = Record<string, unknown>
const require = createRequire(import.meta.url)
type Db = import('better-sqlite3').Database
const open = (file: string, readonly = false): Db => {
  const Database = require('better-sqlite3') as typeof import('better-sqlite3')
  return new Database(file, {readonly, fileMustExist: true})
}

/**
 * Copies the real home into `root` (writable), files with distinct mtimes in name order, folders after their
 * files. Returns the copied data dir (`<root>/.local/share/kilo`).
 */
export function copyKiloHome(root: string): string {
  copyWithMtimes(path.join(KILO_REAL, 'home'), root, Date.UTC(2026, 11, 1, 9, 50, 0))
  return path.join(root, DATA)
}

/** Runs `fn` on a file of the data dir, keeping the data dir's mtime. */
export function damage(data: string, name: string, fn: (p: string) => void): void {
  const dirMtime = statSync(data).mtimeMs
  fn(path.join(data, name))
  setMtime(data, dirMtime)
}

/** The store's files, read: for tests that compare what a repair left. */
export function storeBytes(data: string): Record<string, Buffer | null> {
  const out: Record<string, Buffer | null> = {}
  for (const n of ['kilo.db', 'kilo.db-wal', 'kilo.db-shm']) {
    try {
      out[n] = readFileSync(path.join(data, n))
    } catch {
      out[n] = null
    }
  }
  return out
}

/** What `withTurnInWal` wrote: the turn's prompt and answer, and the commit frame of each event (1-based). */
export interface TurnInWal {
  sessionId: string
  prompt: string
  answer: string
  /** One per event of the turn, in order: the event's type and the WAL frame that committed it. */
  commits: Array<{seq: number; type: string; frame: number}>
  pageSize: number
}

/** Rows of a table as objects. */
const rows = (db: Db, sql: string, ...args: unknown[]) => db.prepare(sql).all(...args) as Row[]

/** The commit frames of a WAL from the first frame on (current salts, valid checksums: as `wal.ts` reads them). */
function commitFrames(wal: Buffer): number[] {
  const pageSize = wal.readUInt32BE(8)
  const frameSize = pageSize + 24
  const salt = wal.subarray(16, 24)
  const out: number[] = []
  for (let i = 0; 32 + (i + 1) * frameSize <= wal.length; i++) {
    const f = wal.subarray(32 + i * frameSize, 32 + (i + 1) * frameSize)
    if (!f.subarray(8, 16).equals(salt)) break
    if (f.readUInt32BE(4) !== 0) out.push(i + 1)
  }
  return out
}

/**
 * Puts the last turn of `sessionId` back into the store of `data` as commits that are only in the WAL (see the
 * file's comment). The store reads row for row as before; `kilo.db` holds the store as it was before the turn.
 */
export function withTurnInWal(data: string, sessionId = SESSION_B): TurnInWal {
  const scratch = tempDir('chatdoctor-kilo-fixture-')
  try {
    for (const n of ['kilo.db', 'kilo.db-wal', 'kilo.db-shm']) copyFileSync(path.join(data, n), path.join(scratch, n))
    const file = path.join(scratch, 'kilo.db')
    const db = open(file)
    const msgs = rows(db, 'SELECT * FROM message WHERE session_id = ? ORDER BY id', sessionId)
    const prompt = [...msgs].reverse().find((m) => (JSON.parse(String(m.data)) as Row).role === 'user')!
    const turnMsgs = msgs.filter((m) => String(m.id) >= String(prompt.id))
    const answer = [...turnMsgs].reverse().find((m) => (JSON.parse(String(m.data)) as Row).role === 'assistant')!
    const ids = turnMsgs.map((m) => String(m.id))
    const turnParts = rows(db, `SELECT * FROM part WHERE message_id IN (${ids.map(() => '?').join(',')}) ORDER BY id`, ...ids)
    const events = rows(db, 'SELECT * FROM event WHERE aggregate_id = ? ORDER BY seq', sessionId)
    const first = events.findIndex((e) => String(e.type).startsWith('message.updated') && (JSON.parse(String(e.data)) as {info: Row}).info.id === prompt.id)
    const turnEvents = events.slice(first)
    const sessionRow = rows(db, 'SELECT * FROM session WHERE id = ?', sessionId)[0]
    const seqRow = rows(db, 'SELECT * FROM event_sequence WHERE aggregate_id = ?', sessionId)[0]
    const before = [...events.slice(0, first)].reverse().find((e) => String(e.type).startsWith('session.updated'))
    const updatedBefore = before ? ((JSON.parse(String(before.data)) as {info: {time: {updated: number}}}).info.time.updated) : sessionRow.time_created
    // The last write of each row puts back Kilo's own row.
    const lastWrite = new Map<string, number>()
    turnEvents.forEach((e, i) => {
      const d = JSON.parse(String(e.data)) as {info?: Row; part?: Row}
      const key = String(e.type).startsWith('message.updated') ? `m:${d.info!.id}` : String(e.type).startsWith('message.part.updated') ? `p:${d.part!.id}` : String(e.type).startsWith('session.updated') ? 's' : `x:${i}`
      lastWrite.set(key, i)
    })
    const finalMsg = new Map(turnMsgs.map((m) => [String(m.id), m]))
    const finalPart = new Map(turnParts.map((p) => [String(p.id), p]))

    db.transaction(() => {
      db.prepare(`DELETE FROM part WHERE message_id IN (${ids.map(() => '?').join(',')})`).run(...ids)
      db.prepare(`DELETE FROM message WHERE id IN (${ids.map(() => '?').join(',')})`).run(...ids)
      db.prepare('DELETE FROM event WHERE aggregate_id = ? AND seq >= ?').run(sessionId, turnEvents[0].seq)
      db.prepare('UPDATE event_sequence SET seq = ? WHERE aggregate_id = ?').run(Number(turnEvents[0].seq) - 1, sessionId)
      db.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(updatedBefore, sessionId)
    })()
    db.pragma('wal_checkpoint(RESTART)')
    db.pragma('wal_autocheckpoint = 0')

    const strip = (o: Row, keys: string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)))
    const eventCols = Object.keys(turnEvents[0])
    const insertEvent = db.prepare(`INSERT INTO event (${eventCols.join(', ')}) VALUES (${eventCols.map(() => '?').join(', ')})`)
    const upsert = (table: string, row: Row) => {
      const cols = Object.keys(row)
      db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ON CONFLICT(id) DO UPDATE SET ${cols.filter((c) => c !== 'id').map((c) => `${c} = excluded.${c}`).join(', ')}`).run(...cols.map((c) => row[c]))
    }
    turnEvents.forEach((e, i) => {
      db.transaction(() => {
        insertEvent.run(...eventCols.map((c) => e[c]))
        db.prepare('UPDATE event_sequence SET seq = ? WHERE aggregate_id = ?').run(e.seq, sessionId)
        const d = JSON.parse(String(e.data)) as {info?: Row; part?: Row; time?: number}
        const type = String(e.type)
        if (type.startsWith('message.updated')) {
          const id = String(d.info!.id)
          const fin = finalMsg.get(id)
          if (fin && lastWrite.get(`m:${id}`) === i) upsert('message', fin)
          else if (fin) upsert('message', {id, session_id: sessionId, time_created: fin.time_created, time_updated: (d.info!.time as Row | undefined)?.completed ?? fin.time_created, data: JSON.stringify(strip(d.info!, ['id', 'sessionID']))})
        } else if (type.startsWith('message.part.updated')) {
          const id = String(d.part!.id)
          const fin = finalPart.get(id)
          if (fin && lastWrite.get(`p:${id}`) === i) upsert('part', fin)
          else if (fin) upsert('part', {id, message_id: d.part!.messageID, session_id: sessionId, time_created: fin.time_created, time_updated: d.time ?? fin.time_created, data: JSON.stringify(strip(d.part!, ['id', 'sessionID', 'messageID']))})
        } else if (type.startsWith('message.part.removed')) {
          db.prepare('DELETE FROM part WHERE id = ?').run((d as {partID?: string}).partID ?? '')
        } else if (type.startsWith('session.updated')) {
          if (lastWrite.get('s') === i) {
            const cols = Object.keys(sessionRow).filter((c) => c !== 'id')
            db.prepare(`UPDATE session SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`).run(...cols.map((c) => sessionRow[c]), sessionId)
          } else db.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(((d.info as Row).time as Row).updated, sessionId)
        }
      })()
    })
    db.prepare('UPDATE event_sequence SET seq = ?, owner_id = ? WHERE aggregate_id = ?').run(seqRow.seq, seqRow.owner_id, sessionId)
    // Copied while the writer still has the store open: the WAL and its index as they are after a run.
    const dirMtime = statSync(data).mtimeMs
    for (const n of ['kilo.db', 'kilo.db-wal', 'kilo.db-shm']) copyFileSync(path.join(scratch, n), path.join(data, n))
    setMtime(data, dirMtime)
    db.close()
    const wal = readFileSync(path.join(data, 'kilo.db-wal'))
    const frames = commitFrames(wal)
    // One commit per event (the last update of the sequence rewrites its row unchanged: SQLite writes no page).
    if (frames.length !== turnEvents.length) throw new Error(`the replay left ${frames.length} commits for ${turnEvents.length} events`)
    const commits = turnEvents.map((e, i) => ({seq: Number(e.seq), type: String(e.type), frame: frames[i]}))
    return {sessionId, prompt: String(prompt.id), answer: String(answer.id), commits, pageSize: wal.readUInt32BE(8)}
  } finally {
    cleanup(scratch)
  }
}

/** Cuts the WAL of `data` `into` bytes inside frame `frame` (1-based): the frame's header and that much of it stay. */
export function cutWalInside(data: string, frame: number, pageSize: number, into = 1000): number {
  const at = 32 + (frame - 1) * (pageSize + 24) + into
  damage(data, 'kilo.db-wal', (p) => truncateSync(p, at))
  return at
}

/** Overwrites page `page` (1-based) of `kilo.db` with NUL bytes. */
export function nulPage(data: string, page: number, pageSize = 4096): void {
  damage(data, 'kilo.db', (p) => {
    const fd = openSync(p, 'r+')
    try {
      writeSync(fd, Buffer.alloc(pageSize), 0, pageSize, (page - 1) * pageSize)
    } finally {
      closeSync(fd)
    }
  })
}

/** Runs `fn` on a read-only connection to a private copy of the store of `data` (its WAL and index with it). */
function onCopy<T>(data: string, fn: (db: Db) => T): T {
  const scratch = tempDir('chatdoctor-kilo-copy-')
  try {
    for (const n of ['kilo.db', 'kilo.db-wal', 'kilo.db-shm']) {
      try {
        copyFileSync(path.join(data, n), path.join(scratch, n))
      } catch {
        // absent
      }
    }
    const db = open(path.join(scratch, 'kilo.db'), true)
    try {
      return fn(db)
    } finally {
      db.close()
    }
  } finally {
    cleanup(scratch)
  }
}

/** The root page of a table's b-tree (read on a copy). */
export function rootPage(data: string, table: string): number {
  return onCopy(data, (db) => Number(db.prepare('SELECT rootpage FROM sqlite_master WHERE type = ? AND name = ?').pluck().get('table', table)))
}

/** The rows of a store's session, message, part and event tables (read on a copy), for comparing two stores. */
export function storeRows(data: string): {session: Row[]; message: Row[]; part: Row[]; event: Row[]} {
  return onCopy(data, (db) => ({session: rows(db, 'SELECT * FROM session ORDER BY id'), message: rows(db, 'SELECT * FROM message ORDER BY id'), part: rows(db, 'SELECT * FROM part ORDER BY id'), event: rows(db, 'SELECT * FROM event ORDER BY id')}))
}
