/**
 * The check of an export document (`{info, messages: [{info, parts}]}`, peer-formats.md §1.8), as `opencode
 * export` and `kilo export` print it: its bytes, its shape (`schema.ts`), its ids and links, and the context it
 * holds. Pure; loads zod (through `schema.ts`), so only the export checker imports it.
 */
import {classifyJsonBytes} from '../../classify/index.js'
import type {ChatStatus, DamageLocation, FileClass, Finding, Reason, SessionContext} from '../../model/report.js'
import {loneSurrogatePath} from '../../classify/surrogates.js'
import {finding, issueFindings, loneSurrogateFindings, loneSurrogateIn, type LoneSurrogate} from './findings.js'
import {emptyContext, measureSession} from './measure.js'
import type {StoreMember} from './member.js'
import {ExportSchema} from './schema.js'

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
   * export: the agent's `import` would reject it or import it wrong.
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
 * Checks the bytes of an `<agent> export` file of a member of the family. Pure; never throws.
 *
 * Checks, in order: the bytes (torn, empty, zero-filled, corrupt JSON → `export-damaged`); the shape against
 * `ExportSchema` (→ `export-invalid`, first 5 issues); ids unique across messages and across parts
 * (`duplicate-id`); messages in ascending id order starting with a user message (`role-order`); every
 * message's `sessionID` is `info.id`, every part's `messageID`/`sessionID` name the message and session holding
 * it (`part-link`); then the context losses (`tool-output-missing`, `message-without-parts`,
 * `parent-missing`, which make it `degraded`); a string holding a lone surrogate escape is a warning
 * (`lone-surrogate`, naming its record and field).
 */
export function checkStoreExport(bytes: Uint8Array, member: StoreMember): ExportCheck {
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
    return {...base, sessionId, version, class: 'corrupt', reasons: ['wrong-shape'], status: 'unrecoverable', ok: false, findings: [finding('export-invalid', null, `not ${/^[aeiou]/i.test(member.command) ? 'an' : 'a'} ${member.command} export document: ${issues.join('; ')}${more}`)]}
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
  // A lone surrogate escape: kept by the agent's import as it is (a warning); named by its record and field.
  if (loneSurrogateIn(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), c.value) !== null) {
    const found: LoneSurrogate[] = []
    const note = (record: string, v: unknown) => {
      const at = loneSurrogatePath(v)
      if (at !== null) found.push({record, path: at})
    }
    note('the session info', doc.info)
    for (const m of doc.messages) {
      note(`message ${m.info.id}`, m.info)
      for (const p of m.parts) note(`part ${p.id} of message ${m.info.id}`, p)
    }
    findings.push(...loneSurrogateFindings(found, null, member.displayName))
  }
  const broken = findings.some((f) => f.severity === 'error')
  const status = broken ? 'unrecoverable' : issues.length > 0 ? 'degraded' : 'healthy'
  return {class: 'intact', reasons: [], sessionId: sid, version, status, ok: status === 'healthy', findings, context}
}
