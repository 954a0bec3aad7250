/**
 * `opencode export` documents (`{info, messages: [{info, parts}]}`, peer-formats.md §1.8): a check of an export
 * file's bytes, and an export-equivalent document built from a session of the JSON tree (so a session of a
 * pre-1.2 store can be moved into a 1.2+ store with `opencode import`).
 *
 * OpenCode 1.1.65's own export of a tree session is exactly: `info` = the session file, `messages` = the
 * message files in id order, each with its part files in id order (`shared/realdata/opencode/1.1.65/`,
 * checked by test). Both functions only read; neither writes.
 */
import {lstatSync, readFileSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {classifyJsonBytes} from '../../classify/index.js'
import {finding} from './findings.js'
import type {ChatStatus, DamageLocation, FileClass, Finding, Reason, SessionContext} from '../../model/report.js'
import type {FileEntry} from '../../model/adapter.js'
import {STORAGE, messageFile, partFile, sessionFile} from './layout.js'
import {emptyContext, measureSession} from './measure.js'
import {ExportSchema} from './schema.js'
import {issueFindings, readTreeSession, usable} from './tree.js'

/** The verdict on one export file. */
export interface ExportCheck {
  /** Class of the file's bytes (`intact` when it parses strictly; `corrupt`/`wrong-shape` when not an export). */
  class: Exclude<FileClass, 'missing'>
  reasons: Reason[]
  /** The session id in `info.id`, null when the file cannot be read as an export. */
  sessionId: string | null
  /** The export's OpenCode version (`info.version`), null when unknown. */
  version: string | null
  /**
   * `healthy`: passes every check. `degraded`: well-formed, but its structure loses context (a completed tool
   * call without output, a message with no part, a broken parent link). `unrecoverable`: damaged or not an
   * export: `opencode import` would reject it or import it wrong.
   */
  status: Extract<ChatStatus, 'healthy' | 'degraded' | 'unrecoverable'>
  /** True when the check passes (`status` healthy). */
  ok: boolean
  findings: Finding[]
  context: SessionContext
  /** Where the bytes are damaged (first damaged byte and length), for a torn or corrupt file. */
  damage?: DamageLocation
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Checks the bytes of an `opencode export` file. Pure; never throws.
 *
 * Checks, in order: the bytes (torn, empty, zero-filled, corrupt JSON → `export-damaged`); the shape against
 * `ExportSchema` (→ `export-invalid`, first 5 issues); ids unique across messages and across parts
 * (`duplicate-id`); messages in ascending id order starting with a user message (`role-order`); every
 * message's `sessionID` is `info.id`, every part's `messageID`/`sessionID` name the message and session holding
 * it (`part-link`); then the context losses (`tool-output-missing`, `message-without-parts`,
 * `parent-missing`, which make it `degraded`).
 */
export function checkExport(bytes: Uint8Array): ExportCheck {
  const c = classifyJsonBytes(bytes)
  const base = {sessionId: null, version: null, context: emptyContext()}
  if (c.class !== 'intact') {
    const at = c.damage ? `, damage from byte ${c.damage.offset} of ${bytes.length}` : ''
    const why = c.reasons.length ? ` (${c.reasons.join(', ')})` : ''
    return {...base, class: c.class, reasons: c.reasons, status: 'unrecoverable', ok: false, findings: [finding('export-damaged', null, `export file is ${c.class}${why}${at}`)], ...(c.damage ? {damage: c.damage} : {})}
  }
  const parsed = ExportSchema.safeParse(c.value)
  const v = c.value
  const sessionId = isObj(v) && isObj(v.info) && typeof v.info.id === 'string' ? v.info.id : null
  const version = isObj(v) && isObj(v.info) && typeof v.info.version === 'string' ? v.info.version : null
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    const more = parsed.error.issues.length > 5 ? ` (+${parsed.error.issues.length - 5} more)` : ''
    return {...base, sessionId, version, class: 'corrupt', reasons: ['wrong-shape'], status: 'unrecoverable', ok: false, findings: [finding('export-invalid', null, `not an opencode export document: ${issues.join('; ')}${more}`)]}
  }
  const doc = parsed.data
  const findings: Finding[] = []
  const sid = doc.info.id
  const seenMsg = new Set<string>()
  const seenPart = new Set<string>()
  let prev = ''
  doc.messages.forEach((m, i) => {
    const mid = m.info.id
    if (seenMsg.has(mid)) findings.push(finding('duplicate-id', null, `message id ${mid} occurs more than once`))
    seenMsg.add(mid)
    if (mid <= prev && !findings.some((f) => f.id === 'role-order')) findings.push(finding('role-order', null, `message ${mid} (index ${i}) is not after ${prev} in id order`))
    prev = mid
    if (m.info.sessionID !== sid) findings.push(finding('part-link', null, `message ${mid} names session ${m.info.sessionID}, not ${sid}`))
    for (const p of m.parts) {
      if (seenPart.has(p.id)) findings.push(finding('duplicate-id', null, `part id ${p.id} occurs more than once`))
      seenPart.add(p.id)
      if (p.messageID !== mid || p.sessionID !== sid) findings.push(finding('part-link', null, `part ${p.id} names message ${p.messageID} of session ${p.sessionID}, but sits in message ${mid} of ${sid}`))
    }
  })
  if (doc.messages.length > 0 && doc.messages[0].info.role !== 'user') findings.push(finding('role-order', null, `the first message ${doc.messages[0].info.id} is not a user message`))
  const {context, issues} = measureSession(doc.messages.map((m) => ({id: m.info.id, info: m.info as Record<string, unknown>, parts: m.parts as Array<Record<string, unknown>>, unreadableParts: 0})))
  findings.push(...issueFindings(issues, () => null))
  const broken = findings.some((f) => f.severity === 'error')
  const status = broken ? 'unrecoverable' : issues.length > 0 ? 'degraded' : 'healthy'
  return {class: 'intact', reasons: [], sessionId: sid, version, status, ok: status === 'healthy', findings, context}
}

export {EXPORT_SIZE_CAP_BYTES} from './layout.js'
import {EXPORT_SIZE_CAP_BYTES} from './layout.js'


/** Why a tree session cannot be exported. */
export class ExportRefused extends Error {
  constructor(
    readonly reason: 'no-session' | 'session-damaged' | 'too-large',
    message: string,
  ) {
    super(message)
  }
}

/** What `exportFromTree` produced: the document, and what of the session it had to leave out. */
export interface TreeExport {
  document: {info: Record<string, unknown>; messages: Array<{info: Record<string, unknown>; parts: Array<Record<string, unknown>>}>}
  /** Relative paths of damaged message and part files left out (a message's parts go with it). */
  omitted: string[]
  /** Total bytes of the session's files read. */
  bytes: number
}

/** Reads the names of a folder, [] when it does not exist. */
function list(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort()
  } catch {
    return []
  }
}

/**
 * Builds the `opencode export` document of session `sessionId` from the JSON tree of the data dir `dataDir`
 * (the folder holding `storage/`). Deep-equal after parsing to what OpenCode 1.1.x's own `opencode export`
 * prints for an undamaged session. Damaged message and part files are left out and listed in `omitted`;
 * parts whose message file is gone are not part of the session OpenCode sees and are left out too.
 *
 * Read-only. Throws `ExportRefused` when the session has no session file (`no-session`), its session file is
 * not usable (`session-damaged`: no `info` to export), or its files exceed `capBytes` (`too-large`, default
 * `EXPORT_SIZE_CAP_BYTES`), checked from file sizes before reading any content.
 */
export function exportFromTree(dataDir: string, sessionId: string, capBytes = EXPORT_SIZE_CAP_BYTES): TreeExport {
  const root = path.join(dataDir, STORAGE)
  const project = readdirSafe(path.join(root, 'session')).find((p) => list(path.join(root, 'session', p)).includes(`${sessionId}.json`))
  if (project === undefined) throw new ExportRefused('no-session', `no session file for ${sessionId} under ${path.join(root, 'session')}`)
  const rels = [sessionFile(project, sessionId)]
  for (const m of list(path.join(root, 'message', sessionId))) {
    const mid = m.slice(0, -5)
    rels.push(messageFile(sessionId, mid))
    for (const p of list(path.join(root, 'part', mid))) rels.push(partFile(mid, p.slice(0, -5)))
  }
  let bytes = 0
  const stats = rels.map((rel) => {
    const st = lstatSync(path.join(dataDir, rel))
    bytes += st.size
    return {rel, st}
  })
  if (bytes > capBytes) throw new ExportRefused('too-large', `session ${sessionId} holds ${bytes} bytes of files, over the export cap of ${capBytes} bytes`)
  const files: FileEntry[] = stats.map(({rel, st}) => {
    const e: FileEntry = {name: rel, kind: st.isFile() ? 'file' : st.isDirectory() ? 'directory' : st.isSymbolicLink() ? 'symlink' : 'other', bytes: st.size, mtimeMs: st.mtimeMs}
    if (e.kind === 'file') e.data = readFileSync(path.join(dataDir, rel))
    return e
  })
  return exportFromFiles(sessionId, files, bytes)
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir).sort()
  } catch {
    return []
  }
}

/** The pure half of `exportFromTree`: the document from a session's files as the inventory reads them. */
export function exportFromFiles(sessionId: string, files: FileEntry[], bytes = files.reduce((n, f) => n + f.bytes, 0)): TreeExport {
  const s = readTreeSession(sessionId, files)
  if (!s.session) throw new ExportRefused('no-session', `no session file for ${sessionId}`)
  if (!usable(s.session)) throw new ExportRefused('session-damaged', `the session file of ${sessionId} is ${s.session.generation.class}: there is no session info to export`)
  const omitted: string[] = []
  const messages: TreeExport['document']['messages'] = []
  for (const m of s.messages) {
    if (!m.file) continue
    if (!usable(m.file)) {
      omitted.push(m.file.rel, ...m.parts.map((p) => p.rel))
      continue
    }
    const parts: Array<Record<string, unknown>> = []
    for (const p of m.parts) {
      if (usable(p)) parts.push(p.value)
      else omitted.push(p.rel)
    }
    messages.push({info: m.file.value, parts})
  }
  return {document: {info: s.session.value, messages}, omitted, bytes}
}
