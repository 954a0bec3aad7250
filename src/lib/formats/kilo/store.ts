/**
 * Lists the chats of a Kilo data dir: one per session row of each database Kilo would open (`kilo.db`,
 * `kilo-<channel>.db`, a pre-rename `opencode-<channel>.db`), read on a private copy of the database with its
 * WAL and index (the store family's `readDatabase`, with the files' sha256 so a repair moves exactly what the
 * scan read). A database that cannot be read is one chat. A data dir with no database is one chat too (the store
 * is gone: Kilo's next start makes a new, empty one), unless it holds Kilo 1.x's JSON storage (which Kilo 7
 * imports at its next start; not diagnosed here). Read-only.
 */
import {lstatSync, readdirSync} from 'node:fs'
import path from 'node:path'
import type {OperationalError} from '../../model/report.js'
import type {ChatUnit, StoreListing} from '../../model/adapter.js'
import {databaseUnits, presentStoreFiles, type DatabaseSessionFacts} from '../opencode-family/database.js'
import {hashFile, readDatabase} from '../opencode-family/sqlite.js'
import {walFacts, type WalFacts} from '../opencode-family/wal.js'
import {DATABASE, KILO, SESSION_DIFF, STORAGE, databasesOf} from './layout.js'

/** Facts of a data dir whose database is gone. */
export interface GoneFacts {
  kind: 'gone'
  /** The database Kilo would open (`kilo.db`). */
  file: string
  /** Its `-wal` and `-shm` left behind, when they are. */
  leftovers: string[]
  /** Sessions named by `storage/session_diff/<sessionID>.json` (Kilo's file diffs of each session). */
  traced: string[]
  /** The left-over WAL, read byte by byte (never through SQLite); null when there is none or it cannot be read. */
  wal: WalFacts | null
  /** sha256 of each left-over file (a repair moves exactly these bytes). */
  sha256: Record<string, string>
}

/** Facts of a data dir that holds only Kilo 1.x's JSON storage (`storage/session/…`). */
export interface LegacyFacts {
  kind: 'legacy'
}

/** Facts of a session the store lost altogether, of which only chatdoctor's snapshots are left (`goneChat`). */
export interface SessionGoneFacts {
  kind: 'session-gone'
  sessionId: string
}

export type KiloFacts = DatabaseSessionFacts | GoneFacts | LegacyFacts | SessionGoneFacts

function names(dir: string, errors: OperationalError[]): string[] {
  try {
    return readdirSync(dir).sort()
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') errors.push({path: dir, message: (e as Error).message})
    return []
  }
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory()
  } catch {
    return false
  }
}

/** Lists every chat of the Kilo data dir at `dataDir`. Never throws. */
export async function listStore(dataDir: string): Promise<StoreListing> {
  const errors: OperationalError[] = []
  const entries = names(dataDir, errors)
  const chats: ChatUnit[] = []
  const dbs = databasesOf(entries)
  for (const file of dbs) {
    const db = await readDatabase(dataDir, file, {tempPrefix: KILO.tempPrefix, hash: true})
    // A store that could not even be copied (not a regular file, no permission) says nothing of its sessions:
    // an operational error, never a lost chat.
    if (db.db === null) errors.push({path: path.join(dataDir, file), message: `not read: ${db.error ?? 'unknown error'}`})
    else chats.push(...databaseUnits(dataDir, db, presentStoreFiles(file, entries)))
  }
  if (dbs.length > 0) return {chats, errors}
  if (isDir(path.join(dataDir, STORAGE, 'session'))) return {chats: [{dir: dataDir, path: path.join(dataDir, STORAGE), members: [], facts: {kind: 'legacy'} satisfies LegacyFacts}], errors}
  const leftovers = presentStoreFiles(DATABASE, entries).filter((n) => n !== DATABASE)
  const traced = names(path.join(dataDir, STORAGE, SESSION_DIFF), errors)
    .filter((n) => /^ses_[0-9A-Za-z]+\.json$/.test(n))
    .map((n) => n.slice(0, -5))
  if (leftovers.length === 0 && traced.length === 0) return {chats, errors}
  let wal: WalFacts | null = null
  const sha256: Record<string, string> = {}
  for (const n of leftovers) {
    const p = path.join(dataDir, n)
    try {
      // Read byte by byte, never through SQLite; only regular files (never a link or a FIFO).
      if (!lstatSync(p).isFile()) continue
      sha256[n] = hashFile(p)
      if (n === `${DATABASE}-wal`) wal = walFacts(p)
    } catch {
      // Unreadable: its size is all the report can give.
    }
  }
  chats.push({dir: dataDir, path: path.join(dataDir, DATABASE), members: leftovers, facts: {kind: 'gone', file: DATABASE, leftovers, traced, wal, sha256} satisfies GoneFacts})
  return {chats, errors}
}
