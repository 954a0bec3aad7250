/**
 * Lists the sessions of a Cline store: from the data dir (every `sessions/<id>/` folder, and every session
 * the index lists whose folder is gone), from the sessions dir, or from one session folder. Each session is
 * one chat: its folder's files, plus what the index (`db/sessions.db`, read on a private copy) says of it and
 * whether Cline is running. Read-only: directory listings, the index copy, lock files and `/proc`.
 */
import {lstatSync, readdirSync} from 'node:fs'
import path from 'node:path'
import type {OperationalError, Skipped} from '../../model/report.js'
import {printableName} from '../../fsio/paths.js'
import {nonUtf8Names} from '../../fsio/raw-names.js'
import type {ChatUnit, StoreListing} from '../../model/adapter.js'
import {readIndex, type IndexFacts, type IndexRow} from './index-db.js'
import {DB, INDEX_DB, SESSIONS, SESSION_ID, folderKind, messagesFile, sessionIdIn} from './layout.js'
import {clineLiveSigns, type LiveSign} from './live.js'

/** What the index says of one session. */
export type IndexView =
  /** No data dir is known above the session (a copy, a bundle): nothing to compare with. */
  | {state: 'none'}
  /** The data dir has no `db/sessions.db`. */
  | {state: 'absent'; file: string}
  | {state: 'unreadable'; file: string; error: string}
  | {state: 'read'; file: string; row: IndexRow | null}

/** Facts handed to `diagnose` for one session folder. */
export interface SessionFacts {
  kind: 'session'
  sessionId: string
  index: IndexView
  /** Signs that Cline is running (checked for sessions inside a `sessions/` folder only). */
  live: LiveSign[]
  /** The data dir above the session, when there is one (for the live checks at repair time). */
  dataDir: string | null
  /** Whether Cline may be writing the folder (it sits in a `sessions/` folder): the live checks apply. */
  watched: boolean
}

/** Facts for a session the index lists whose folder is gone. */
export interface IndexOnlyFacts {
  kind: 'index-only'
  sessionId: string
  index: {state: 'read'; file: string; row: IndexRow}
  live: LiveSign[]
  dataDir: string | null
  watched: boolean
}

export type ClineFacts = SessionFacts | IndexOnlyFacts

function list(dir: string, errors: OperationalError[]): string[] | null {
  try {
    return readdirSync(dir).sort()
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') errors.push({path: dir, message: (e as Error).message})
    return null
  }
}

/** The data dir holding `sessionsDir` (its parent, when that holds Cline's other folders), or null. */
function dataDirAbove(sessionsDir: string): string | null {
  const parent = path.dirname(sessionsDir)
  let names: string[]
  try {
    names = readdirSync(parent)
  } catch {
    return null
  }
  return folderKind(parent, names) === 'data' ? parent : null
}

/** An id from the index usable as one folder name (it names a path in the report): no separators, no dot names, no control characters. */
function isSafeName(id: string): boolean {
  return id !== '' && id !== '.' && id !== '..' && !/[/\\\0-\x1f]/.test(id)
}

function viewOf(index: IndexFacts | null, id: string): IndexView {
  if (index === null) return {state: 'none'}
  if (index.state !== 'read') return index
  return {state: 'read', file: index.file, row: index.rows.find((r) => r.sessionId === id) ?? null}
}

/** Lists the sessions of the Cline folder at `dir` (a data dir, a sessions dir, or a session dir). Never throws. */
export async function listStore(dir: string): Promise<StoreListing & {skipped: Skipped[]}> {
  const errors: OperationalError[] = []
  const skipped: Skipped[] = []
  const chats: ChatUnit[] = []
  const names = list(dir, errors)
  if (names === null) return {chats, errors, skipped}
  const kind = folderKind(dir, names)
  if (kind === null) return {chats, errors, skipped}

  let sessionsDir: string
  let dataDir: string | null
  if (kind === 'data') {
    dataDir = dir
    sessionsDir = path.join(dir, SESSIONS)
  } else if (kind === 'sessions') {
    sessionsDir = dir
    dataDir = dataDirAbove(dir)
  } else {
    sessionsDir = path.dirname(dir)
    dataDir = path.basename(sessionsDir) === SESSIONS ? dataDirAbove(sessionsDir) : null
  }
  const inStore = kind !== 'session' || path.basename(sessionsDir) === SESSIONS
  const index = dataDir !== null ? readIndex(path.join(dataDir, DB, INDEX_DB)) : null
  const live = inStore ? clineLiveSigns(dataDir) : []

  const add = (sessionDir: string, entries: string[], fallbackId: string | null) => {
    const id = sessionIdIn(path.basename(sessionDir), entries) ?? fallbackId
    if (id === null) return null
    const facts: SessionFacts = {kind: 'session', sessionId: id, index: viewOf(index, id), live, dataDir, watched: inStore}
    chats.push({dir: sessionDir, path: path.join(sessionDir, messagesFile(id)), listing: entries, facts})
    return id
  }

  const found = new Set<string>()
  if (kind === 'session') {
    add(dir, names, SESSION_ID.test(path.basename(dir)) ? path.basename(dir) : null)
    return {chats, errors, skipped}
  }
  const listed = list(sessionsDir, errors)
  const entries = listed ?? []
  const lossy = new Set(nonUtf8Names(sessionsDir, entries).map((raw) => raw.toString('utf8')))
  for (const raw of nonUtf8Names(sessionsDir, entries)) skipped.push({path: path.join(sessionsDir, printableName(raw)), reason: 'folder name is not valid UTF-8: not searched, never repaired'})
  for (const name of entries) {
    if (name.startsWith('.') || lossy.has(name)) continue
    const p = path.join(sessionsDir, name)
    let st
    try {
      st = lstatSync(p)
    } catch {
      continue // vanished
    }
    if (st.isSymbolicLink()) {
      skipped.push({path: p, reason: 'symbolic link in the sessions folder: not followed'})
      continue
    }
    if (!st.isDirectory()) continue
    const inner = list(p, errors)
    if (inner === null) continue
    const id = add(p, inner, SESSION_ID.test(name) ? name : null)
    if (id !== null) found.add(id)
  }
  // Sessions the index lists whose folder is gone (root sessions only: a child's files live in its root's folder).
  if (index?.state === 'read') {
    for (const row of index.rows) {
      if (row.child || found.has(row.sessionId) || !isSafeName(row.sessionId)) continue
      const facts: IndexOnlyFacts = {kind: 'index-only', sessionId: row.sessionId, index: {state: 'read', file: index.file, row}, live, dataDir, watched: inStore}
      chats.push({dir: listed !== null ? sessionsDir : dir, path: path.join(sessionsDir, row.sessionId, messagesFile(row.sessionId)), files: [], facts})
    }
  }
  return {chats, errors, skipped}
}
