/**
 * OpenCode's index of its sessions is its projects: it lists, and in the JSON tree also opens, only the sessions
 * filed under the current project's id (`session.project_id` in the database, the folder
 * `storage/session/<projectID>/` in the tree), the project being the git repository its folder is in (its id
 * cached in `.git/opencode`) or `global` outside one (anomalyco/opencode `project/project.ts`, `session/index.ts`:
 * `Session.list` filters on `project_id`). OpenCode itself moves the sessions of `global`, and of other project
 * rows with the same worktree, to the project when it starts in that worktree, but only those whose `directory`
 * is spelled exactly as the worktree: a session whose directory is spelled otherwise (a trailing slash, `//`,
 * `/./`) or lies below the worktree stays filed under the old id, and OpenCode never lists it again.
 *
 * Read as one chat per data dir: its `project` rows (or `storage/project/*.json`) and the sessions filed under
 * another project than the one their directory belongs to. The repair is the move OpenCode makes itself: in the
 * database `UPDATE session SET project_id` (on a private copy, in one transaction); in the tree the session file
 * moved to its project's folder with its `projectID` value replaced in place (every other byte kept).
 * Read-only here.
 */
import {createHash} from 'node:crypto'
import {lstatSync, readFileSync} from 'node:fs'
import path from 'node:path'
import type {ChatUnit, StoreListing} from '../../model/adapter.js'
import {repairedBytes, withPrivateCopy} from '../../sqlite/index.js'
import {DATABASE, STORAGE, isDatabaseName, sessionFile} from './layout.js'
import {sortedNames} from '../../fsio/names.js'

/** The id OpenCode files sessions under outside a git repository. */
export const GLOBAL_PROJECT = 'global'
/** Largest database whose repaired rows are prepared in memory (bytes). */
const MAX_REPAIR_BYTES = 512 << 20

/** A project as OpenCode records it. */
export interface ProjectRow {
  id: string
  worktree: string
  vcs: string | null
}

/** A session filed under another project than the one its directory belongs to. */
export interface Orphan {
  sessionId: string
  /** The project id it is filed under. */
  from: string
  /** The project its directory belongs to. */
  to: string
  directory: string
  worktree: string
  /** Where it lives: a database row, or a tree session file (relative path, `/`-separated). */
  store: 'database' | 'tree'
  file?: string
  /** Tree only: the session file moved to its project's folder, with its `projectID` value replaced. */
  moved?: {to: string; bytes: Buffer; sha256: string}
}

/** What `read` hands to the index chat. */
export interface OpenCodeProjectFacts {
  kind: 'opencode-projects'
  dir: string
  database: string | null
  projects: ProjectRow[]
  orphans: Orphan[]
  /** The database with the orphans' rows repaired, when any are in it. */
  rowRepair: {bytes: Buffer; sha256: string} | null
  rowRepairError: string | null
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')

/** A directory as OpenCode would have written it for the same folder: `//`, `/./`, a trailing `/` folded. */
export function canonicalDir(d: string): string {
  if (!path.isAbsolute(d)) return d
  const n = path.normalize(d)
  return n.length > 1 && n.endsWith(path.sep) ? n.slice(0, -1) : n
}

/** The git project whose worktree holds `directory` (the deepest), or null. */
export function projectOf(directory: string, projects: readonly ProjectRow[]): ProjectRow | null {
  const d = canonicalDir(directory)
  let best: ProjectRow | null = null
  for (const p of projects) {
    if (p.id === GLOBAL_PROJECT || p.vcs !== 'git') continue
    const w = canonicalDir(p.worktree)
    const rel = path.relative(w, d)
    if (rel.startsWith('..') || path.isAbsolute(rel)) continue
    if (!best || canonicalDir(best.worktree).length < w.length) best = p
  }
  return best
}

/** The sessions of `sessions` filed under another project than their directory's. */
export function orphansOf(sessions: ReadonlyArray<{id: string; projectId: string; directory: string; parentId: string | null}>, projects: readonly ProjectRow[]): Array<Omit<Orphan, 'store'>> {
  const out: Array<Omit<Orphan, 'store'>> = []
  const byId = new Map(projects.map((p) => [p.id, p]))
  for (const s of sessions) {
    const home = projectOf(s.directory, projects)
    if (!home || home.id === s.projectId) continue
    // Filed under a project that also holds the directory (a nested repository): listed there, not hidden.
    const filed = byId.get(s.projectId)
    if (filed && filed.id !== GLOBAL_PROJECT && projectOf(s.directory, [filed])) continue
    out.push({sessionId: s.id, from: s.projectId, to: home.id, directory: s.directory, worktree: home.worktree})
  }
  return out
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Replaces the string value of the one `"projectID"` member of a session file in place; null when not exactly one. */
export function replaceProjectId(data: Buffer, from: string, to: string): Buffer | null {
  const text = data.toString('utf8')
  const re = new RegExp(`("projectID"\\s*:\\s*)"${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`, 'g')
  const hits = [...text.matchAll(re)]
  if (hits.length !== 1) return null
  const h = hits[0]
  const start = Buffer.byteLength(text.slice(0, h.index! + h[1].length))
  const end = start + Buffer.byteLength(`"${from}"`)
  return Buffer.concat([data.subarray(0, start), Buffer.from(JSON.stringify(to)), data.subarray(end)])
}

/** The tree's projects and sessions (directory from each session file). */
function readTree(dir: string): {projects: ProjectRow[]; sessions: Array<{id: string; projectId: string; directory: string; parentId: string | null; file: string; data: Buffer}>} {
  const root = path.join(dir, STORAGE)
  const projects: ProjectRow[] = []
  for (const n of sortedNames(path.join(root, 'project'))) {
    if (!n.endsWith('.json') || n.startsWith('.')) continue
    try {
      const v = JSON.parse(readFileSync(path.join(root, 'project', n), 'utf8')) as unknown
      if (isObj(v) && typeof v.worktree === 'string') projects.push({id: n.slice(0, -5), worktree: v.worktree, vcs: typeof v.vcs === 'string' ? v.vcs : null})
    } catch {
      // A damaged project file: its sessions are judged against the others.
    }
  }
  const sessions: Array<{id: string; projectId: string; directory: string; parentId: string | null; file: string; data: Buffer}> = []
  for (const pid of sortedNames(path.join(root, 'session'))) {
    for (const n of sortedNames(path.join(root, 'session', pid))) {
      if (!n.endsWith('.json') || n.startsWith('.')) continue
      const rel = sessionFile(pid, n.slice(0, -5))
      try {
        if (!lstatSync(path.join(dir, rel)).isFile()) continue
        const data = readFileSync(path.join(dir, rel))
        const v = JSON.parse(data.toString('utf8')) as unknown
        if (isObj(v) && typeof v.directory === 'string') sessions.push({id: n.slice(0, -5), projectId: pid, directory: v.directory, parentId: typeof v.parentID === 'string' ? v.parentID : null, file: rel, data})
      } catch {
        // A damaged session file is the session chat's business.
      }
    }
  }
  return {projects, sessions}
}

/**
 * Reads the projects of the data dir `dir` and the sessions filed under another project than their directory's.
 * Null when the folder holds no project at all. Never throws.
 */
export async function readProjects(dir: string): Promise<StoreListing | null> {
  const entries = sortedNames(dir)
  const database = entries.includes(DATABASE) ? DATABASE : (entries.find(isDatabaseName) ?? null)
  const facts: OpenCodeProjectFacts = {kind: 'opencode-projects', dir, database, projects: [], orphans: [], rowRepair: null, rowRepairError: null}
  let dbOrphans: Array<Omit<Orphan, 'store'>> = []
  if (database) {
    const r = await withPrivateCopy(dir, database, ({db}) => {
      const projects = (db.prepare('SELECT id, worktree, vcs FROM project').all() as Array<Record<string, unknown>>).map((p) => ({id: String(p.id), worktree: String(p.worktree), vcs: typeof p.vcs === 'string' ? p.vcs : null}))
      const sessions = (db.prepare('SELECT id, project_id, directory, parent_id FROM session').all() as Array<Record<string, unknown>>).map((s) => ({id: String(s.id), projectId: String(s.project_id), directory: String(s.directory), parentId: typeof s.parent_id === 'string' ? s.parent_id : null}))
      return {projects, sessions}
    })
    if ('projects' in r) {
      facts.projects.push(...r.projects)
      dbOrphans = orphansOf(r.sessions, r.projects)
      facts.orphans.push(...dbOrphans.map((o) => ({...o, store: 'database' as const})))
    }
  }
  if (entries.includes(STORAGE)) {
    const t = readTree(dir)
    for (const p of t.projects) if (!facts.projects.some((x) => x.id === p.id)) facts.projects.push(p)
    const inDb = new Set(dbOrphans.map((o) => o.sessionId))
    for (const o of orphansOf(t.sessions, t.projects)) {
      if (inDb.has(o.sessionId)) continue
      const s = t.sessions.find((x) => x.id === o.sessionId && x.projectId === o.from)!
      const to = sessionFile(o.to, o.sessionId)
      if (sortedNames(path.join(dir, STORAGE, 'session', o.to)).includes(`${o.sessionId}.json`)) continue
      const bytes = replaceProjectId(s.data, o.from, o.to)
      facts.orphans.push({...o, store: 'tree', file: s.file, ...(bytes ? {moved: {to, bytes, sha256: sha256(bytes)}} : {})})
    }
  }
  if (facts.projects.length === 0) return null
  if (dbOrphans.length > 0 && database) {
    let size = 0
    try {
      size = lstatSync(path.join(dir, database)).size
    } catch {
      size = 0
    }
    if (size > MAX_REPAIR_BYTES) facts.rowRepairError = `${database} is larger than ${MAX_REPAIR_BYTES} bytes; its rows are not repaired in memory`
    else {
      const r = await repairedBytes(dir, database, (db) => {
        const set = db.prepare('UPDATE session SET project_id = ? WHERE id = ? AND project_id = ?')
        for (const o of dbOrphans) set.run(o.to, o.sessionId, o.from)
      })
      if ('bytes' in r) facts.rowRepair = {bytes: r.bytes, sha256: sha256(r.bytes)}
      else facts.rowRepairError = r.error
    }
  }
  const members: string[] = []
  if (database) for (const n of [database, `${database}-wal`, `${database}-shm`]) if (entries.includes(n)) members.push(n)
  for (const o of facts.orphans) if (o.file) members.push(o.file)
  const unit: ChatUnit = {dir, path: `${path.join(dir, database ?? STORAGE)}#projects`, members, facts}
  return {chats: [unit], errors: []}
}
