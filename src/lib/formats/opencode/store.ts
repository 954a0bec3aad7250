/**
 * Lists the chats of an OpenCode data dir: one per session, whether it lives in the JSON tree
 * (`storage/session|message|part/…`), in the database (`opencode.db`), or in both.
 *
 * A session of the tree is keyed by the id in its file names, so a session whose own file is missing or torn
 * is still a chat (found through `storage/message/<sessionID>/`). Parts whose message file is gone are given
 * to the session named inside them (their `sessionID`), or to an `unattributed` chat when none can be read.
 * When a readable database holds a session, the database is the chat and the tree's session file is an older
 * generation of it (1.2–1.15 import the tree on first start and leave it in place, peer-formats.md §1.1).
 * Read-only.
 */
import {lstat, readdir, readFile} from 'node:fs/promises'
import path from 'node:path'
import type {OperationalError} from '../../model/report.js'
import type {ChatUnit, StoreListing} from '../../model/adapter.js'
import {databaseUnits, presentStoreFiles, type DatabaseSessionFacts as StoreSessionFacts} from '../opencode-family/database.js'
import {readDatabase, type DatabaseFacts} from '../opencode-family/sqlite.js'
import {DATABASE, OPENCODE, STORAGE, isDatabaseName, messageFile, partFile, sessionFile} from './layout.js'

/** Facts handed to `diagnose` for a session of the JSON tree. */
export interface TreeFacts {
  kind: 'tree'
  /** The session id from file names; null for the chat of parts that name no readable session. */
  sessionId: string | null
  /** Whether a readable database beside the tree holds this session; null when there is no readable database. */
  inDatabase: boolean | null
  /** The newest OpenCode version that wrote a session into the database, or null. */
  databaseVersion: string | null
}

/** Facts handed to `diagnose` for a session of the database (or for a database that could not be read). */
export interface DatabaseSessionFacts extends StoreSessionFacts {
  /** Relative path of the same session's file in the legacy tree (an older generation), when there is one. */
  treeSessionFile: string | null
}

/** Facts of a session the store lost altogether, of which only chatdoctor's snapshots are left (`goneChat`). */
export interface GoneFacts {
  kind: 'gone'
  sessionId: string
  /** The store's database, when the data dir has a readable one (the session is then named as its row); null: the JSON tree. */
  database: string | null
}

export type OpenCodeFacts = TreeFacts | DatabaseSessionFacts | GoneFacts

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

async function names(dir: string, errors: OperationalError[]): Promise<string[]> {
  try {
    return (await readdir(dir)).sort()
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') errors.push({path: dir, message: (e as Error).message})
    return []
  }
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await lstat(p)).isDirectory()
  } catch {
    return false
  }
}

/** The JSON tree's files grouped by id, from directory listings only. */
export interface TreeIndex {
  /** sessionId → projectId of its session file (first one found). */
  sessionFiles: Map<string, string>
  /** sessionId → message ids (from `storage/message/<sessionID>/<messageID>.json`), sorted. */
  messages: Map<string, string[]>
  /** messageId → part ids, sorted. */
  parts: Map<string, string[]>
}

/** Lists the JSON tree under `<dataDir>/storage`. Never throws; unreadable folders go to `errors`. */
export async function indexTree(dataDir: string, errors: OperationalError[]): Promise<TreeIndex> {
  const idx: TreeIndex = {sessionFiles: new Map(), messages: new Map(), parts: new Map()}
  const root = path.join(dataDir, STORAGE)
  const ids = (list: string[]) => list.filter((n) => n.endsWith('.json') && !n.startsWith('.')).map((n) => n.slice(0, -5))
  for (const project of await names(path.join(root, 'session'), errors)) {
    for (const sid of ids(await names(path.join(root, 'session', project), errors))) if (!idx.sessionFiles.has(sid)) idx.sessionFiles.set(sid, project)
  }
  for (const sid of await names(path.join(root, 'message'), errors)) {
    if (!(await isDir(path.join(root, 'message', sid)))) continue
    idx.messages.set(sid, ids(await names(path.join(root, 'message', sid), errors)))
  }
  for (const mid of await names(path.join(root, 'part'), errors)) {
    if (!(await isDir(path.join(root, 'part', mid)))) continue
    idx.parts.set(mid, ids(await names(path.join(root, 'part', mid), errors)))
  }
  return idx
}

/** The `sessionID` written inside the first readable part of a message folder, or null. */
async function sessionOfParts(dataDir: string, messageId: string, partIds: string[]): Promise<string | null> {
  for (const pid of partIds.slice(0, 8)) {
    try {
      const v = JSON.parse(await readFile(path.join(dataDir, partFile(messageId, pid)), 'utf8'))
      if (isObj(v) && typeof v.sessionID === 'string' && v.sessionID.startsWith('ses_')) return v.sessionID
    } catch {
      // Damaged: try the next one.
    }
  }
  return null
}

/** Lists every chat of the data dir at `dataDir`. Never throws. */
export async function listStore(dataDir: string): Promise<StoreListing> {
  const errors: OperationalError[] = []
  const entries = await names(dataDir, errors)
  const chats: ChatUnit[] = []

  // The database first: sessions it holds are its chats.
  const dbName = entries.includes(DATABASE) ? DATABASE : entries.find(isDatabaseName)
  let db: DatabaseFacts | null = null
  if (dbName) db = await readDatabase(dataDir, dbName, {tempPrefix: OPENCODE.tempPrefix})
  const dbIds = new Set(db && db.error === null ? db.sessions.map((s) => s.id) : [])

  const idx = entries.includes(STORAGE) ? await indexTree(dataDir, errors) : null
  const members = new Map<string, string[]>()
  const add = (sid: string, rel: string) => {
    if (!members.has(sid)) members.set(sid, [])
    members.get(sid)!.push(rel)
  }
  if (idx) {
    const msgOwner = new Map<string, string>()
    for (const [sid, mids] of idx.messages) for (const mid of mids) msgOwner.set(mid, sid)
    for (const [sid, project] of idx.sessionFiles) add(sid, sessionFile(project, sid))
    for (const [sid, mids] of idx.messages) {
      for (const mid of mids) {
        add(sid, messageFile(sid, mid))
        for (const pid of idx.parts.get(mid) ?? []) add(sid, partFile(mid, pid))
      }
    }
    // Parts whose message file is gone: the session named inside them, if any can be read.
    for (const [mid, pids] of idx.parts) {
      if (msgOwner.has(mid) || pids.length === 0) continue
      const sid = (await sessionOfParts(dataDir, mid, pids)) ?? ''
      for (const pid of pids) add(sid, partFile(mid, pid))
    }
  }

  const dbFiles = dbName ? presentStoreFiles(dbName, entries) : []
  if (db) {
    for (const unit of databaseUnits(dataDir, db, dbFiles)) {
      const s = unit.facts.session
      const project = s ? idx?.sessionFiles.get(s.id) : undefined
      const treeSessionFile = s && project !== undefined ? sessionFile(project, s.id) : null
      chats.push({...unit, members: treeSessionFile ? [...dbFiles, treeSessionFile] : dbFiles, facts: {...unit.facts, treeSessionFile} satisfies DatabaseSessionFacts})
    }
  }
  for (const [sid, rel] of members) {
    if (sid !== '' && dbIds.has(sid)) continue
    const project = idx!.sessionFiles.get(sid)
    const chatPath = sid === '' ? path.join(dataDir, STORAGE, 'part') : project !== undefined ? path.join(dataDir, sessionFile(project, sid)) : path.join(dataDir, STORAGE, 'message', sid)
    const facts: TreeFacts = {kind: 'tree', sessionId: sid === '' ? null : sid, inDatabase: db && db.error === null ? false : null, databaseVersion: db?.newestVersion ?? null}
    chats.push({dir: dataDir, path: chatPath, members: rel, facts})
  }
  return {chats, errors}
}
