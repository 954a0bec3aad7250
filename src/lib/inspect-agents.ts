/**
 * The forensic picture `inspect` adds for the agents other than Codebuff:
 *
 * - Claude Code and Codex session logs: every damaged line (1-based line number, byte offset and length,
 *   reasons), the byte changes a repair would make (`jsonl-repair.ts`, the same plan `repair` writes), whether
 *   the agent would accept the result, and an account of what most likely happened to the log.
 * - OpenCode sessions: the account of the session's files (session file, message and part files, or the
 *   database) and what each damaged one costs; the timeline lists every file with its class.
 *
 * Pure: works on the scan's report and the bytes in its snapshot; never prints message text or file contents.
 */
import type {JsonlClassification, LineReason} from './classify/jsonl.js'
import {decodeZstd, sessionRules} from './formats/jsonl-session.js'
import {planJsonlRepair, type JsonlChangeKind} from './jsonl-repair.js'
import type {ChatReport, Generation} from './model.js'
import type {ScannedChat} from './scan.js'

/** One damaged line of a session log. Offsets and lengths in bytes of the (decoded) log. */
export interface DamagedLine {
  /** The generation's file name. */
  file: string
  /** 1-based line number. */
  line: number
  offset: number
  /** Bytes of the line, line ending included. */
  length: number
  reasons: LineReason[]
  /** What a repair does with it: `drop` the line, `rewrite` it from the records it holds. */
  action: 'drop' | 'rewrite'
  /** Complete records the line still holds. */
  recordsKept: number
}

/** One byte change a repair of a session log would make (ids only, never content). */
export interface PlannedChange {
  file: string
  kind: JsonlChangeKind
  line: number
  offset: number
  length: number
  bytesRemoved: number
  reasons: LineReason[]
  /** For `relink-parent`: the parent id before and after. */
  relink?: {from: string; to: string}
}

/** A session log generation's repair plan in brief. */
export interface PlanSummary {
  file: string
  changes: number
  bytesBefore: number
  bytesAfter: number
  /** True when the repaired log is intact and passes the agent's acceptance rules. */
  accepted: boolean
  problems: string[]
}

/** What `inspect` adds for a Claude Code, Codex or OpenCode chat. */
export interface AgentForensics {
  /** Damaged lines of every session log generation (JSONL formats only). */
  damagedLines: DamagedLine[]
  /** The byte changes a repair would make, per generation (JSONL formats only). */
  plannedChanges: PlannedChange[]
  plans: PlanSummary[]
  account: string
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** The log bytes of a JSONL generation (decoded for a `.zst`), or null. */
function logBytes(scanned: Pick<ScannedChat, 'snapshot'>, g: Generation): Buffer | null {
  const data = scanned.snapshot.files.find((f) => f.name === g.file)?.data
  if (!data) return null
  if (g.role !== 'compressed') return data
  const d = decodeZstd(data)
  return d.ok ? d.bytes : null
}

/** The forensics of a Claude Code, Codex or OpenCode chat; null for other formats. */
export function agentForensics(scanned: Pick<ScannedChat, 'report' | 'snapshot'>): AgentForensics | null {
  const r = scanned.report
  if (r.format === 'claude-code' || r.format === 'codex') return sessionForensics(scanned)
  if (r.format === 'opencode') return {damagedLines: [], plannedChanges: [], plans: [], account: openCodeAccount(r)}
  return null
}

function sessionForensics(scanned: Pick<ScannedChat, 'report' | 'snapshot'>): AgentForensics {
  const r = scanned.report
  const damagedLines: DamagedLine[] = []
  const plannedChanges: PlannedChange[] = []
  const plans: PlanSummary[] = []
  const classes = new Map<string, JsonlClassification>()
  for (const g of r.generations) {
    if (g.role !== 'primary' && g.role !== 'compressed') continue
    const bytes = logBytes(scanned, g)
    if (!bytes) continue
    const {cls, rules} = sessionRules(r.format === 'codex' ? 'codex' : 'claude-code', g.file, bytes)
    classes.set(g.file, cls)
    for (const l of cls.lines) {
      if (l.kind !== 'damaged') continue
      damagedLines.push({file: g.file, line: l.index + 1, offset: l.start, length: l.next - l.start, reasons: [...l.reasons], action: l.action === 'rewrite' ? 'rewrite' : 'drop', recordsKept: l.records.length})
    }
    const plan = planJsonlRepair(bytes, rules)
    for (const c of plan.changes) plannedChanges.push({file: g.file, kind: c.kind, line: c.line, offset: c.offset, length: c.length, bytesRemoved: c.bytesRemoved, reasons: c.reasons, ...(c.relink ? {relink: c.relink} : {})})
    plans.push({file: g.file, changes: plan.changes.length, bytesBefore: bytes.length, bytesAfter: plan.bytes.length, accepted: plan.accepted, problems: plan.problems})
  }
  return {damagedLines, plannedChanges, plans, account: sessionAccount(r, classes, damagedLines, plans)}
}

/** What each line reason most likely means, in plain words (peer-formats.md §6; bug-log.md). */
function reasonStory(reason: LineReason, at: string): string {
  switch (reason) {
    case 'torn-tail':
      return `the agent was most likely killed, or the machine lost power, while appending the last record: the log stops mid-record at ${at}`
    case 'torn-interior':
      return `a record was cut at ${at} and later appends went on after it (a crash mid-append, then the session was resumed)`
    case 'nul-run':
      return `NUL bytes sit in the log from ${at}: blocks of an append never reached the disk (the agents append without fsync; typical after a power loss)`
    case 'interleaved-line':
      return `a cut record and the next record share the line at ${at}: an append was cut and the next one went on the same line`
    case 'split-record':
      return `a record is spread over several lines from ${at} by raw line breaks`
    case 'bom':
      return `a byte-order mark stands in front of the record at ${at} (a tool re-saved the file); Codex refuses a BOM before its header`
    case 'invalid-utf8':
      return `the line at ${at} holds bytes that are not UTF-8 (a strict reader rejects the whole log)`
    case 'torn-utf8':
      return `a multi-byte character is cut at ${at}`
    case 'lone-surrogate':
      return `the record at ${at} holds a lone surrogate escape (text cut inside an emoji or other astral character)`
  }
}

function sessionAccount(r: ChatReport, classes: Map<string, JsonlClassification>, damaged: DamagedLine[], plans: PlanSummary[]): string {
  const s: string[] = []
  const primary = r.generations.find((g) => g.role === 'primary') ?? r.generations.find((g) => g.role === 'compressed')
  const cls = primary ? classes.get(primary.file) : undefined
  if (!primary || !cls) s.push('The session log could not be read.')
  else if (cls.class === 'empty') s.push(`${primary.file} is empty: the agent created it and the process died before the first record reached the disk.`)
  else if (cls.class === 'zero-filled') s.push(`${primary.file} holds only zeros (${primary.bytes} bytes): its size reached the disk but none of its data, as after a power loss shortly after writing.`)
  else if (cls.class === 'intact') s.push(`${primary.file} is complete: every one of its ${plural(cls.counts.total, 'line')} is a whole record${r.contextTurns !== null ? ` (${plural(r.contextTurns, 'user turn')} reachable)` : ''}.`)
  else {
    const mine = damaged.filter((d) => d.file === primary.file)
    const seen = new Set<LineReason>()
    const stories: string[] = []
    for (const d of mine) {
      for (const reason of d.reasons) {
        if (seen.has(reason)) continue
        seen.add(reason)
        stories.push(reasonStory(reason, `line ${d.line}, byte ${d.offset}`))
      }
    }
    s.push(`${primary.file} is ${cls.class} (${plural(mine.length, 'damaged line')} of ${cls.counts.total}): ${stories.join('; ')}.`)
  }
  for (const g of r.generations) {
    if (g === primary || g.role !== 'compressed') continue
    s.push(g.class === 'intact' ? `Its compressed sibling ${g.file} is intact${g.turns !== null ? ` (${plural(g.turns, 'user turn')})` : ''}.` : `Its compressed sibling ${g.file} is ${g.class ?? 'unreadable'}.`)
  }
  const plan = primary ? plans.find((p) => p.file === primary.file) : undefined
  if (plan && plan.changes > 0) {
    s.push(plan.accepted ? `A repair would make ${plural(plan.changes, 'byte change')} (${plan.bytesBefore} → ${plan.bytesAfter} bytes), every other line byte-identical, and the agent would accept the result.` : `A repair of it would not give a log the agent accepts (${plan.problems.join('; ')}).`)
  }
  if (r.winner && primary && r.winner !== primary.file) s.push(`The best generation is ${r.winner}.`)
  if (r.status === 'unrecoverable') s.push('No generation gives a log the agent accepts.')
  const dangling = r.findings.find((f) => f.id === 'dangling-parent' && f.severity !== 'info')
  if (dangling) s.push(`The parent chain is broken: ${dangling.message}.`)
  if (r.status === 'healthy' && s.length <= 1) s.push('Nothing was lost.')
  return s.join(' ')
}

function fileStory(g: Generation): string {
  const at = g.damage ? ` at byte ${g.damage.offset}` : ''
  switch (g.class) {
    case 'empty':
      return `${g.file} is 0 bytes: OpenCode overwrites its files in place with no temp file, and the process died between truncating and writing it`
    case 'zero-filled':
      return `${g.file} holds only zeros (${g.bytes} bytes): its size reached the disk but none of its data (a crash or power loss soon after an in-place overwrite)`
    case 'truncated':
      return `${g.file} stops mid-document${at}: the in-place overwrite was cut`
    default:
      return `${g.file} is ${g.class}${g.reasons.length ? ` (${g.reasons.join(', ')})` : ''}${at}`
  }
}

function openCodeAccount(r: ChatReport): string {
  const s: string[] = []
  const exp = r.generations.find((g) => g.role === 'export')
  if (exp) {
    s.push(exp.class === 'intact' ? `The export file ${exp.file} is whole${r.contextTurns !== null ? ` (${plural(r.contextTurns, 'user turn')})` : ''}.` : `The export file is damaged: ${fileStory(exp)}.`)
  } else if (r.generations.some((g) => g.role === 'database')) {
    const dmg = r.findings.filter((f) => f.id === 'database-damaged' || f.id === 'database-unreadable')
    s.push(dmg.length === 0 ? `The session lives in the database ${r.winner ?? ''}, which passes its integrity check (read on a private copy).` : `The session's database is damaged: ${dmg[0].message}.`)
  } else {
    const session = r.generations.find((g) => g.role === 'primary')
    const messages = r.generations.filter((g) => g.role === 'message')
    const parts = r.generations.filter((g) => g.role === 'part')
    s.push(`The session spreads over ${session && session.class !== 'missing' ? 'a session file' : 'no session file'}, ${plural(messages.length, 'message file')} and ${plural(parts.length, 'part file')}.`)
    if (session?.class === 'missing') s.push('Its session file is gone (deleted, or never written): OpenCode cannot list the session, though its messages survive on disk.')
    const bad = r.generations.filter((g) => (g.role === 'primary' || g.role === 'message' || g.role === 'part') && g.class !== null && g.class !== 'intact' && g.class !== 'missing')
    for (const g of bad) s.push(`${fileStory(g)}.`)
    if (bad.some((g) => g.role === 'primary')) s.push('OpenCode stops listing sessions at a damaged session file, so every session of the store disappears from its list.')
    else if (bad.length > 0) s.push('OpenCode fails to open the session until the damaged files are moved out of the tree (what `repair` does, keeping them as evidence).')
  }
  const lost = r.findings.filter((f) => f.id === 'tool-output-missing' || f.id === 'message-without-parts' || f.id === 'parent-missing' || f.id === 'orphan-parts')
  if (lost.length > 0) s.push(`The structure loses context: ${lost.map((f) => f.message).join('; ')}.`)
  if (r.findings.some((f) => f.id === 'not-in-database')) s.push('The session exists only in the legacy JSON tree; OpenCode 1.16 and later will not import it.')
  if (r.status === 'healthy' && s.length <= 1) s.push('Nothing was lost.')
  return s.join(' ')
}
