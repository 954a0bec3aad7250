/**
 * Diagnosis of one session of OpenCode's JSON tree (≤ 1.1.x): classify its session file, message files and
 * part files with the shared classifier, find orphans, measure its context, decide its status. Pure over the
 * files the inventory read. Layout and failure modes: peer-formats.md §1.3, §1.7, §1.10; bug-log B01, B04.
 */
import {createHash} from 'node:crypto'
import {classifyJsonBytes} from '../../classify/index.js'
import {finding} from './findings.js'
import type {ChatStatus, Classification, Finding, Generation, Role} from '../../model/report.js'
import type {FileEntry} from '../../model/adapter.js'
import {missingSessionFile, treeFileOf} from './layout.js'
import {measureSession, type SessionMessage} from '../opencode-family/measure.js'
import {issueFindings, loneSurrogateFindings, loneSurrogateIn} from '../opencode-family/findings.js'
import type {TreeFacts} from './store.js'

/** One classified file of the tree. `value` only for usable files. */
export interface TreeFile {
  rel: string
  generation: Generation
  value?: Record<string, unknown>
  /** For a usable file: the path of its first string holding a lone surrogate escape (kept; a warning). */
  loneSurrogate?: string
}

/** A message of the session: its file (undefined when only its parts remain) and its parts. */
export interface TreeMessage {
  id: string
  file?: TreeFile
  parts: TreeFile[]
}

/** A session of the tree, classified file by file and grouped. */
export interface TreeSession {
  sessionId: string | null
  /** The session file; undefined when absent. */
  session?: TreeFile
  /** Messages in id order, including those whose file is gone but whose parts remain (`file` undefined). */
  messages: TreeMessage[]
  /** Files that are not session, message or part files. */
  other: TreeFile[]
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** True for a class the agent loads. */
export const usable = (f: TreeFile | undefined): f is TreeFile & {value: Record<string, unknown>} => f?.generation.class === 'intact' && f.value !== undefined

/**
 * Shape a file's role needs, on top of strict JSON: an object whose `id` is the id in its file name; a
 * message also needs `role` user or assistant, a part a string `type`.
 */
function shapeOk(kind: 'session' | 'message' | 'part', id: string, v: unknown): boolean {
  if (!isObj(v) || v.id !== id) return false
  if (kind === 'message') return v.role === 'user' || v.role === 'assistant'
  if (kind === 'part') return typeof v.type === 'string'
  return true
}

function classifyMember(f: FileEntry): TreeFile {
  const t = treeFileOf(f.name)
  const role: Role = t.kind === 'session' ? 'primary' : t.kind === 'message' ? 'message' : t.kind === 'part' ? 'part' : 'other'
  const g: Generation = {file: f.name, role, class: null, reasons: [], bytes: f.bytes, mtimeMs: f.mtimeMs, sha256: null, turns: null}
  if (t.kind === 'other' || f.kind !== 'file') return {rel: f.name, generation: {...g, role: 'other'}}
  if (f.data === undefined) return {rel: f.name, generation: {...g, class: 'corrupt', reasons: ['unreadable']}}
  let c: Classification = classifyJsonBytes(f.data)
  const id = t.kind === 'session' ? t.sessionId : t.kind === 'message' ? t.messageId : t.partId
  if (c.class === 'intact' && !shapeOk(t.kind, id, c.value)) c = {class: 'corrupt', reasons: ['wrong-shape']}
  g.class = c.class
  g.reasons = c.reasons
  g.bytes = f.data.length
  g.sha256 = createHash('sha256').update(f.data).digest('hex')
  if (c.damage) g.damage = c.damage
  if (c.class !== 'intact') return {rel: f.name, generation: g}
  const surrogate = loneSurrogateIn(f.data, c.value)
  return {rel: f.name, generation: g, value: c.value as Record<string, unknown>, ...(surrogate !== null ? {loneSurrogate: surrogate} : {})}
}

/** Classifies and groups a session's files (as `listStore` named them and the inventory read them). */
export function readTreeSession(sessionId: string | null, files: FileEntry[]): TreeSession {
  const out: TreeSession = {sessionId, messages: [], other: []}
  const byId = new Map<string, TreeMessage>()
  const msg = (id: string) => {
    if (!byId.has(id)) byId.set(id, {id, parts: []})
    return byId.get(id)!
  }
  for (const f of files) {
    const tf = classifyMember(f)
    const t = treeFileOf(f.name)
    if (tf.generation.role === 'other') out.other.push(tf)
    else if (t.kind === 'session') out.session = tf
    else if (t.kind === 'message') msg(t.messageId).file = tf
    else if (t.kind === 'part') msg(t.messageId).parts.push(tf)
  }
  out.messages = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  for (const m of out.messages) m.parts.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0))
  return out
}

/** The session's messages as `measureSession` takes them: messages with a file, their usable parts. */
export function sessionMessages(s: TreeSession): SessionMessage[] {
  return s.messages
    .filter((m) => m.file !== undefined)
    .map((m) => ({
      id: m.id,
      info: usable(m.file) ? m.file.value : null,
      parts: m.parts.filter(usable).map((p) => p.value),
      unreadableParts: m.parts.filter((p) => !usable(p)).length,
    }))
}

function describe(g: Generation): string {
  const why = g.reasons.length > 0 ? ` (${g.reasons.join(', ')})` : ''
  const at = g.damage ? `, damage from byte ${g.damage.offset} of ${g.bytes}` : ''
  return `${g.class}${why}${at}`
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** What `diagnoseTreeSession` returns: the report body without `path`. */
export type TreeDiagnosis = {
  format: 'opencode'
  id: string
  status: ChatStatus
  winner: string | null
  transcriptTurns: null
  contextTurns: number | null
  findings: Finding[]
  generations: Generation[]
  ranking: []
  context: ReturnType<typeof measureSession>['context']
}

/**
 * Diagnoses one session of the tree.
 *
 * Status: `unrecoverable` when the session file is missing or unusable (OpenCode cannot list the session; its
 * messages may survive on disk and the findings say so); else `repairable` when a message or part file is
 * damaged (OpenCode fails to open the session until the file is moved out of the tree) or when the session is
 * missing from a readable database beside the tree; else `degraded` when parts are orphaned or the structure
 * loses context (a completed tool call without output, a message with no part, a broken parent link); else
 * `healthy`.
 */
export function diagnoseTreeSession(files: FileEntry[], facts: TreeFacts): TreeDiagnosis {
  const s = readTreeSession(facts.sessionId, files)
  const findings: Finding[] = []
  const generations: Generation[] = []
  const sid = facts.sessionId
  if (sid !== null && !s.session) {
    generations.push({file: missingSessionFile(sid), role: 'primary', class: 'missing', reasons: [], bytes: 0, mtimeMs: null, sha256: null, turns: null})
  }
  if (s.session) generations.push(s.session.generation)
  for (const m of s.messages) {
    if (m.file) generations.push(m.file.generation)
    for (const p of m.parts) generations.push(p.generation)
  }
  for (const o of s.other) generations.push(o.generation)

  const {context, issues} = measureSession(sessionMessages(s))
  const survives = `${plural(context.messages, 'readable message')} (${plural(context.userTurns, 'user turn')}) survive on disk`
  if (sid !== null && !s.session) findings.push(finding('primary-missing', missingSessionFile(sid), `no session file for ${sid}: OpenCode cannot list this session; ${survives}`))
  else if (s.session && !usable(s.session)) {
    findings.push(finding('primary-damaged', s.session.rel, `session file is ${describe(s.session.generation)}: OpenCode stops listing sessions at it (it hides every session of the store); ${survives}`))
  }
  let damagedFiles = 0
  const orphans = new Map<string, number>()
  for (const m of s.messages) {
    if (m.file && !usable(m.file)) {
      damagedFiles++
      findings.push(finding('message-damaged', m.file.rel, `message file is ${describe(m.file.generation)}; ${plural(m.parts.length, 'part')} of it ${m.parts.length === 1 ? 'is' : 'are'} lost with it`))
    }
    if (!m.file) orphans.set(m.id, m.parts.length)
    for (const p of m.parts) {
      if (p.generation.reasons.includes('unreadable')) findings.push(finding('unreadable', p.rel, `could not read ${p.rel}`))
      else if (!usable(p)) {
        damagedFiles++
        findings.push(finding('part-damaged', p.rel, `part file is ${describe(p.generation)}`))
      }
    }
  }
  for (const [mid, n] of orphans) findings.push(finding('orphan-parts', null, `${plural(n, 'part')} of message ${mid}, whose message file is gone: OpenCode never reads ${n === 1 ? 'it' : 'them'}`))
  const fileOf = (mid: string, pid?: string) => {
    const m = s.messages.find((x) => x.id === mid)
    if (pid) return m?.parts.find((p) => p.rel.endsWith(`/${pid}.json`))?.rel ?? null
    return m?.file?.rel ?? null
  }
  findings.push(...issueFindings(issues, fileOf))
  for (const o of s.other) findings.push(finding('unknown-file', o.rel, 'not an OpenCode session, message or part file; left untouched'))
  const withSurrogate = [s.session, ...s.messages.flatMap((m) => [m.file, ...m.parts])].filter((f): f is TreeFile => usable(f) && f.loneSurrogate !== undefined)
  findings.push(...loneSurrogateFindings(withSurrogate.map((f) => ({record: f.rel, path: f.loneSurrogate!})), withSurrogate[0]?.rel ?? null, 'OpenCode'))
  if (facts.inDatabase === false && sid !== null) {
    findings.push(finding('not-in-database', s.session?.rel ?? null, `${sid} is only in the legacy JSON tree; the database beside it${facts.databaseVersion ? ` (written by ${facts.databaseVersion})` : ''} does not hold it, and OpenCode 1.16+ no longer imports the tree`))
  }

  const sessionUsable = usable(s.session)
  let status: ChatStatus
  if (!sessionUsable) status = 'unrecoverable'
  else if (damagedFiles > 0 || facts.inDatabase === false) status = 'repairable'
  else if (orphans.size > 0 || issues.length > 0) status = 'degraded'
  else status = 'healthy'
  return {
    format: 'opencode',
    id: sid ?? 'unattributed',
    status,
    winner: sessionUsable ? s.session!.rel : null,
    transcriptTurns: null,
    contextTurns: sessionUsable ? context.userTurns : null,
    findings,
    generations,
    ranking: [],
    context,
  }
}
