/**
 * Writes to an agent's SQLite store in WAL mode the way the agent does: on a private copy of the database, its
 * WAL and its index, through SQLite; the three files are copied back while the connection is still open, so
 * the WAL and its index are left as a running agent leaves them (closing the last connection would checkpoint
 * the WAL and delete it). The data dir keeps its mtime.
 */
import {copyFileSync, existsSync, statSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {cleanup, setMtime, tempDir} from './fixtures.js'

const require = createRequire(import.meta.url)
type Db = import('better-sqlite3').Database

/** Runs `fn` on a writable connection to a copy of `<data>/<db>` and puts the written files back. */
export function writeStore(data: string, db: string, fn: (db: Db) => void): void {
  const scratch = tempDir('chatdoctor-store-write-')
  const names = [db, `${db}-wal`, `${db}-shm`]
  try {
    for (const n of names) if (existsSync(path.join(data, n))) copyFileSync(path.join(data, n), path.join(scratch, n))
    const Database = require('better-sqlite3') as typeof import('better-sqlite3')
    const conn = new Database(path.join(scratch, db), {fileMustExist: true})
    try {
      fn(conn)
      const dirMtime = statSync(data).mtimeMs
      for (const n of names) if (existsSync(path.join(scratch, n))) copyFileSync(path.join(scratch, n), path.join(data, n))
      setMtime(data, dirMtime)
    } finally {
      conn.close()
    }
  } finally {
    cleanup(scratch)
  }
}

/**
 * The JSON text of a row's `data` with `insert` written, as it is, at the end of its string member `key`
 * (e.g. the six characters `\ud83c`: a text cut between the halves of an emoji, as `JSON.stringify` writes it).
 */
export function withTextEnding(data: string, key: string, insert: string): string {
  const v = JSON.parse(data) as Record<string, unknown>
  const member = `${JSON.stringify(key)}:${JSON.stringify(v[key])}`
  const at = data.indexOf(member)
  if (typeof v[key] !== 'string' || at < 0) throw new Error(`no compact string member ${key} in the row`)
  const end = at + member.length - 1
  return data.slice(0, end) + insert + data.slice(end)
}
