/**
 * The `<agent> export <sessionID>` document of one session of a store's database, built from its rows as the
 * agent's own export builds it (OpenCode ≥ 1.2 `packages/opencode/src/cli/cmd/export.ts`: `{info, messages:
 * [{info, parts}]}` printed as `JSON.stringify(doc, null, 2)` and a newline). `info` is the session row as the
 * agent's `fromRow` turns it into a session (`packages/opencode/src/session/session.ts`: its keys in that order,
 * absent columns left out); a message is its row's `data` with `id` and `sessionID` after it, a part its
 * row's `data` with `id`, `sessionID` and `messageID`; messages in creation order, parts in id order. Deep-
 * and byte-equal to the exports OpenCode 1.18.33 and Kilo 7.7.7 wrote of their sessions (checked by test).
 *
 * Read on a private copy of the database with its WAL and index (`copyTogether`), never the original; the copy
 * is removed before returning.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {copyTogether} from './sqlite.js'
import {SqliteUnavailable, sqliteDriver} from '../../sqlite/index.js'

/** An export document: the session's info and its messages, each with its parts. */
export interface ExportDocument {
  info: Record<string, unknown>
  messages: Array<{info: Record<string, unknown>; parts: Array<Record<string, unknown>>}>
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A JSON column (the agent's `mode: json` columns), parsed; undefined when null or not JSON. */
function json(v: unknown): unknown {
  if (typeof v !== 'string') return undefined
  try {
    return JSON.parse(v)
  } catch {
    return undefined
  }
}

/** A number column (SQLite integers may come back as bigint). */
const num = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v)
/** A nullable column: undefined for NULL (and so left out of the JSON). */
const opt = (v: unknown): unknown => (v === null || v === undefined ? undefined : num(v))

/** The session info of a session row, keys in the agent's order. Pure. */
export function sessionInfoOfRow(row: Record<string, unknown>): Record<string, unknown> {
  const has = (k: string) => row[k] !== null && row[k] !== undefined
  const summary =
    has('summary_additions') || has('summary_deletions') || has('summary_files')
      ? {additions: num(row.summary_additions ?? 0), deletions: num(row.summary_deletions ?? 0), files: num(row.summary_files ?? 0), diffs: json(row.summary_diffs)}
      : undefined
  const model = json(row.model)
  const revert = json(row.revert)
  const permission = json(row.permission)
  return {
    id: row.id,
    slug: row.slug,
    projectID: row.project_id,
    workspaceID: opt(row.workspace_id),
    directory: row.directory,
    path: opt(row.path),
    parentID: opt(row.parent_id),
    title: row.title,
    agent: opt(row.agent),
    model: isObj(model) ? {id: model.id, providerID: model.providerID, variant: model.variant} : undefined,
    version: row.version,
    summary,
    cost: num(row.cost),
    tokens: {input: num(row.tokens_input), output: num(row.tokens_output), reasoning: num(row.tokens_reasoning), cache: {read: num(row.tokens_cache_read), write: num(row.tokens_cache_write)}},
    share: has('share_url') ? {url: row.share_url} : undefined,
    metadata: json(row.metadata),
    revert: isObj(revert) ? {messageID: revert.messageID, partID: revert.partID, snapshot: revert.snapshot, diff: revert.diff} : undefined,
    permission: Array.isArray(permission) ? permission : undefined,
    time: {created: num(row.time_created), updated: num(row.time_updated), compacting: opt(row.time_compacting), archived: opt(row.time_archived)},
  }
}

/** The bytes `<agent> export` prints for a document. */
export function exportBytes(doc: ExportDocument): Buffer {
  return Buffer.from(JSON.stringify(doc, null, 2) + '\n', 'utf8')
}

/** Why a session's export could not be read. */
export interface ExportReadError {
  error: string
  /** True when the session has no row in the database. */
  absent?: boolean
}

type Db = import('better-sqlite3').Database

/** The export document of session `id` from an open database. Rows whose data is not a JSON object are an error. */
export function exportFromDatabase(db: Db, id: string): ExportDocument | ExportReadError {
  const row = db.prepare('SELECT * FROM session WHERE id = ?').get(id) as Record<string, unknown> | undefined
  if (!row) return {error: `no session row ${id}`, absent: true}
  const messages: ExportDocument['messages'] = []
  const byId = new Map<string, ExportDocument['messages'][number]>()
  for (const m of db.prepare('SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id').iterate(id) as Iterable<Record<string, unknown>>) {
    const data = json(m.data)
    if (!isObj(data)) return {error: `message row ${String(m.id)} of ${id} is not a JSON object`}
    const entry = {info: {...data, id: String(m.id), sessionID: id}, parts: [] as Array<Record<string, unknown>>}
    messages.push(entry)
    byId.set(String(m.id), entry)
  }
  for (const p of db.prepare('SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id').iterate(id) as Iterable<Record<string, unknown>>) {
    const m = byId.get(String(p.message_id))
    // A part whose message row is gone: the agent's export (message by message) never reaches it.
    if (!m) continue
    const data = json(p.data)
    if (!isObj(data)) return {error: `part row ${String(p.id)} of ${id} is not a JSON object`}
    m.parts.push({...data, id: String(p.id), sessionID: id, messageID: String(p.message_id)})
  }
  return {info: sessionInfoOfRow(row), messages}
}

/**
 * The export document of session `id` of `<dataDir>/<file>`, read on a private copy (temp folder
 * `<tempPrefix>…`, removed before returning). Never throws.
 */
export async function readSessionExport(dataDir: string, file: string, id: string, tempPrefix: string): Promise<ExportDocument | ExportReadError> {
  let tmp: string | undefined
  try {
    tmp = mkdtempSync(path.join(os.tmpdir(), tempPrefix))
    copyTogether(dataDir, file, tmp)
    const Database = sqliteDriver()
    const db = new Database(path.join(tmp, file), {readonly: true, fileMustExist: true})
    try {
      return exportFromDatabase(db, id)
    } finally {
      db.close()
    }
  } catch (e) {
    if (e instanceof SqliteUnavailable) throw e
    return {error: String((e as Error)?.message ?? e).split('\n')[0]}
  } finally {
    if (tmp) rmSync(tmp, {recursive: true, force: true})
  }
}
