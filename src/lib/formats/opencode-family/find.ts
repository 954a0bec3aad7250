/**
 * `find` in a store's database (OpenCode ≥ 1.2, Kilo): every `text` part of a session (`part` rows whose data
 * has `type: text`; `synthetic` parts the CLI adds left out) is a prompt or an answer by its message row's
 * `role`. The session row gives the project (`directory`) and the time (`time_updated`). `<command> --session
 * <id>` opens it from its project folder.
 *
 * The database is read on a private copy with its `-wal` and `-shm` (`copyTogether`, never the original), once
 * for all the sessions of one database: discovery lists a database's sessions one after another, so the texts
 * of the last database read are kept (prompts and answers only, no tool output) until another one is asked for,
 * and read again when one of its files changed.
 */
import {lstatSync, mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type {ChatUnit, FoundText, SessionFinder} from '../../model/adapter.js'
import {sqliteDriver} from '../../sqlite/index.js'
import type {DatabaseSessionFacts} from './database.js'
import type {StoreMember} from './member.js'
import {copyTogether, storeFiles} from './sqlite.js'

/** One prompt or answer of a session, with what the session row says of the session. */
export interface StoreText extends FoundText {
  directory: string | null
  updatedMs: number | null
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function parse(text: unknown): Record<string, unknown> | null {
  if (typeof text !== 'string') return null
  try {
    const v = JSON.parse(text) as unknown
    return isObj(v) ? v : null
  } catch {
    return null
  }
}

/** What identifies the bytes of a database's files: inode, size and mtime of each. */
function signature(dataDir: string, file: string): string {
  return storeFiles(file)
    .map((n) => {
      try {
        const st = lstatSync(path.join(dataDir, n))
        return `${st.ino}:${st.size}:${st.mtimeMs}`
      } catch {
        return '-'
      }
    })
    .join('|')
}

/** The texts of the database read last, by session id. */
let last: {key: string; signature: string; texts: Map<string, StoreText[]>} | null = null

/** The prompts and answers of every session of `<dataDir>/<file>`, read on a private copy. Throws when it cannot be read. */
export async function databaseTexts(dataDir: string, file: string, tempPrefix: string): Promise<Map<string, StoreText[]>> {
  const key = path.join(dataDir, file)
  const sig = signature(dataDir, file)
  if (last && last.key === key && last.signature === sig) return last.texts
  last = null
  const texts = new Map<string, StoreText[]>()
  const tmp = mkdtempSync(path.join(os.tmpdir(), tempPrefix))
  try {
    copyTogether(dataDir, file, tmp)
    const Database = sqliteDriver()
    const db = new Database(path.join(tmp, file), {readonly: true, fileMustExist: true})
    try {
      const sessions = new Map<string, {directory: string | null; updatedMs: number | null}>()
      for (const row of db.prepare('SELECT id, directory, time_updated FROM session').iterate() as Iterable<Record<string, unknown>>) {
        const t = row.time_updated
        sessions.set(String(row.id), {directory: typeof row.directory === 'string' ? row.directory : null, updatedMs: typeof t === 'number' ? t : typeof t === 'bigint' ? Number(t) : null})
      }
      const roles = new Map<string, FoundText['role']>()
      for (const row of db.prepare('SELECT id, data FROM message').iterate() as Iterable<Record<string, unknown>>) {
        const role = parse(row.data)?.role
        if (role === 'user' || role === 'assistant') roles.set(String(row.id), role === 'user' ? 'prompt' : 'answer')
      }
      for (const row of db.prepare('SELECT message_id, session_id, data FROM part ORDER BY message_id, id').iterate() as Iterable<Record<string, unknown>>) {
        const data = parse(row.data)
        const role = roles.get(String(row.message_id))
        const s = sessions.get(String(row.session_id))
        if (!data || data.type !== 'text' || typeof data.text !== 'string' || data.synthetic === true || role === undefined || s === undefined) continue
        const sid = String(row.session_id)
        if (!texts.has(sid)) texts.set(sid, [])
        texts.get(sid)!.push({role, text: data.text, ...s})
      }
    } finally {
      db.close()
    }
  } finally {
    rmSync(tmp, {recursive: true, force: true})
  }
  last = {key, signature: sig, texts}
  return texts
}

const sessionOf = (unit: ChatUnit) => {
  const facts = unit.facts as DatabaseSessionFacts | undefined
  return facts?.kind === 'database' && facts.session !== null ? {file: facts.file, id: facts.session.id, updatedMs: facts.session.updatedMs} : null
}

/** The finder of a member's database sessions (chats whose facts are the family's `DatabaseSessionFacts`). */
export function databaseFinder(member: StoreMember): SessionFinder {
  return {
    sources: (unit) => {
      const s = sessionOf(unit)
      return s === null ? [] : [{name: s.file, records: 'rows'}]
    },
    rows: async (unit, source) => {
      const s = sessionOf(unit)
      return s === null ? [] : ((await databaseTexts(unit.dir, source.name, member.tempPrefix)).get(s.id) ?? [])
    },
    texts: (record) => (isObj(record) && (record.role === 'prompt' || record.role === 'answer') && typeof record.text === 'string' ? [{role: record.role, text: record.text}] : []),
    session(unit, _source, {hit}) {
      const s = sessionOf(unit)!
      const h = hit as StoreText | null
      const project = h?.directory ?? null
      return {id: s.id, project, timeMs: h?.updatedMs ?? s.updatedMs, resume: {argv: [member.command, '--session', s.id], cwd: project}, hidden: null}
    },
  }
}
