/**
 * SQLite databases of agents, read and changed only on a private copy. The original is never opened: opening a
 * WAL database, even read-only, rewrites its `-shm`, and a checkpoint folds the `-wal` into the main file. The
 * database is copied with its `-wal` and `-shm` into a fresh temp folder of chatdoctor's own; the copy is
 * checked (header, `PRAGMA quick_check`), queried, and, for a repair of rows, changed in one transaction and
 * checkpointed, so the main file's bytes alone hold everything (they are then written over the original by
 * the write seam, its `-wal`/`-shm` moved aside). The temp folder is removed whatever happens. `better-sqlite3`
 * is loaded only here, on first use.
 */
import {copyFile, mkdtemp, open, readFile, rm, stat} from 'node:fs/promises'
import {createRequire} from 'node:module'
import os from 'node:os'
import path from 'node:path'

export type Db = import('better-sqlite3').Database

/**
 * chatdoctor's SQLite driver could not be loaded (an install that skipped or failed better-sqlite3's native
 * build: the package is there, its binding is not). Every database would then look unreadable, which says
 * nothing of the databases: no reader turns this into a verdict on a file, so it is thrown through them, and
 * what could not be read is an operational error with what to do.
 */
export class SqliteUnavailable extends Error {
  override name = 'SqliteUnavailable'
}

let driver: typeof import('better-sqlite3') | SqliteUnavailable | undefined

/**
 * better-sqlite3, loaded on first use and tried once on an in-memory database (its binding loads only when a
 * database is opened). Throws `SqliteUnavailable` when it cannot work.
 */
export function sqliteDriver(): typeof import('better-sqlite3') {
  if (driver === undefined) {
    try {
      const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3')
      new Database(':memory:').close()
      driver = Database
    } catch (e) {
      driver = new SqliteUnavailable(
        `chatdoctor's SQLite module (better-sqlite3) does not load (${oneLine(e)}), so no SQLite store was read or repaired; reinstall chatdoctor letting that module build (npm install -g --allow-scripts=better-sqlite3 <chatdoctor package>)`,
      )
    }
  }
  if (driver instanceof SqliteUnavailable) throw driver
  return driver
}

/** The 16-byte magic every SQLite 3 database file starts with. */
const MAGIC = Buffer.from('SQLite format 3\0', 'latin1')
/** The magic of a WAL file's header (either byte order of its checksums). */
const WAL_MAGICS = [0x377f0682, 0x377f0683]

/** What the first bytes of a database file say, before SQLite opens it. */
export type HeaderVerdict =
  | {kind: 'sqlite'}
  | {kind: 'empty'}
  | {kind: 'zeroed'}
  /** Neither SQLite's magic nor NUL bytes: an encrypted database (SQLCipher and the like) or another file. */
  | {kind: 'foreign'}

/** Judges a database file by its first 100 bytes (SQLite's header). */
export function headerVerdict(head: Buffer): HeaderVerdict {
  if (head.length === 0) return {kind: 'empty'}
  if (head.length >= 16 && head.subarray(0, 16).equals(MAGIC)) return {kind: 'sqlite'}
  if (head.every((b) => b === 0)) return {kind: 'zeroed'}
  return {kind: 'foreign'}
}

/** True when a WAL file starts with SQLite's WAL magic. */
export function isWalHeader(head: Buffer): boolean {
  return head.length >= 4 && WAL_MAGICS.includes(head.readUInt32BE(0))
}

/** Reads the first `n` bytes of a file (fewer when it is shorter). */
export async function readHead(file: string, n = 100): Promise<Buffer> {
  const fh = await open(file, 'r')
  try {
    const buf = Buffer.alloc(n)
    const {bytesRead} = await fh.read(buf, 0, n, 0)
    return buf.subarray(0, bytesRead)
  } finally {
    await fh.close()
  }
}

function oneLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0]
}

/** A private copy of a database, opened. */
export interface PrivateCopy {
  db: Db
  /** The copy's main file. */
  file: string
  /** Which of `-wal`, `-shm` were copied along. */
  copied: string[]
}

/**
 * Runs `fn` on a private copy of `<dir>/<file>` (with its `-wal` and `-shm`), opened read-only unless
 * `writable`. Returns what `fn` returns, or `{error}` (one line) when the copy could not be made or opened.
 * The copy is removed before returning. Throws only `SqliteUnavailable` (an exception of `fn` becomes `{error}`).
 */
export async function withPrivateCopy<T>(dir: string, file: string, fn: (c: PrivateCopy) => T | Promise<T>, opts: {writable?: boolean} = {}): Promise<T | {error: string}> {
  let tmp: string | undefined
  try {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'chatdoctor-sqlite-'))
    const copy = path.join(tmp, path.basename(file))
    await copyFile(path.join(dir, file), copy)
    const copied: string[] = []
    for (const suffix of ['-wal', '-shm']) {
      try {
        await stat(path.join(dir, file + suffix))
        await copyFile(path.join(dir, file + suffix), copy + suffix)
        copied.push(suffix)
      } catch {
        // Absent (or gone since): the main file alone.
      }
    }
    const Database = sqliteDriver()
    const db = new Database(copy, {readonly: !opts.writable, fileMustExist: true})
    try {
      return await fn({db, file: copy, copied})
    } finally {
      db.close()
    }
  } catch (e) {
    if (e instanceof SqliteUnavailable) throw e
    return {error: oneLine(e)}
  } finally {
    if (tmp) await rm(tmp, {recursive: true, force: true})
  }
}

/** What chatdoctor learnt of one database file: its header, and the check and error of a read of its private copy. */
export interface DbVerdictFacts {
  header: HeaderVerdict['kind'] | 'missing' | 'unreadable'
  /** Why the copy could not be opened or read (one line), or null. */
  error: string | null
  /** `PRAGMA quick_check` lines (`['ok']` when healthy). */
  check: string[]
}

/** Why a database is unusable to the agent that reads it, in words; null when it opens and passes its check. */
export function damageOf(db: DbVerdictFacts): string | null {
  if (db.header === 'empty') return 'empty (0 bytes)'
  if (db.header === 'zeroed') return 'not a database: its first page is zeroed'
  if (db.header === 'foreign') return 'not a SQLite database (encrypted, or another kind of file)'
  if (db.header !== 'sqlite') return `unreadable${db.error ? ` (${db.error})` : ''}`
  if (db.error !== null) return `unusable: ${db.error}`
  if (db.check.length !== 1 || db.check[0] !== 'ok') return `damaged: its check fails (${db.check.slice(0, 2).join('; ')})`
  return null
}

/** `PRAGMA quick_check` lines (`['ok']` when healthy; at most 20), or the one-line error that stopped it. */
export function quickCheck(db: Db): string[] {
  try {
    return (db.prepare('PRAGMA quick_check(20)').pluck().all() as unknown[]).map(String)
  } catch (e) {
    return [oneLine(e)]
  }
}

/** The columns of each table of the database (`sqlite_master`), by table name. */
export function tableColumns(db: Db): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const name of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]) {
    const cols = (db.prepare(`PRAGMA table_info("${name.replace(/"/g, '""')}")`).all() as Array<{name: string}>).map((c) => c.name)
    out.set(name, new Set(cols))
  }
  return out
}

/** Rows of a table (0 when it cannot be counted). */
export function rowCount(db: Db, table: string): number {
  try {
    return Number(db.prepare(`SELECT count(*) FROM "${table.replace(/"/g, '""')}"`).pluck().get())
  } catch {
    return 0
  }
}

/**
 * The bytes of a database after a repair of its rows: on a private writable copy, `change` runs in one
 * transaction, then the WAL is checkpointed and truncated, so the main file alone holds every page (its header
 * keeps the journal mode). `{error}` when any step fails (nothing of the original is touched in any case).
 */
export async function repairedBytes(dir: string, file: string, change: (db: Db) => void): Promise<{bytes: Buffer} | {error: string}> {
  return withPrivateCopy(
    dir,
    file,
    async (c) => {
      c.db.transaction(() => change(c.db))()
      c.db.pragma('wal_checkpoint(TRUNCATE)')
      const check = quickCheck(c.db)
      if (check.length !== 1 || check[0] !== 'ok') throw new Error(`the repaired copy fails its check: ${check[0]}`)
      return {bytes: await readFile(c.file)}
    },
    {writable: true},
  )
}
