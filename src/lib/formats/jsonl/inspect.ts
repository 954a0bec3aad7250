/**
 * The forensic picture `inspect` adds for a session log of the JSON-lines family: every damaged line (1-based
 * line number, byte offset and length, reasons), the byte changes a repair would make (`repair.ts`, the same
 * plan `repair` writes), whether the agent would accept the result, and an account of what most likely
 * happened to the log.
 *
 * Works on the scan's report and the bytes in its snapshot (a log above the streaming threshold is read again
 * from its file, a chunk at a time); never prints message text or file contents.
 */
import {linesOf, type JsonlClassification, type KeepRecord, type KeptColumns, type LineReason} from '../../classify/jsonl.js'
import {dialectByName, SESSION_DIALECTS} from './dialects.js'
import {decodeZstd, keepForFamily, logOfFile, sessionRules} from './session.js'
import type {JsonlLog} from './repair.js'
import type {ChatReport, Generation} from '../../model/report.js'
import type {ScannedChat} from '../../model/adapter.js'
import type {AgentInspection, DamagedLine, PlannedChange, PlanSummary} from '../../model/inspect.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/**
 * The log of a JSONL generation: its bytes (decoded for a `.zst`), or the file read by streaming (its records
 * kept by its member's keep, `keep`); null when unread.
 */
function logOf(scanned: Pick<ScannedChat, 'snapshot'>, g: Generation, keep: KeepRecord | undefined, columns?: () => KeptColumns): Uint8Array | JsonlLog | null {
  const f = scanned.snapshot.files.find((x) => x.name === g.file)
  if (!f?.data) return f?.path !== undefined && g.role !== 'compressed' ? logOfFile(f.path, f.bytes, keep, columns) : null
  if (g.role !== 'compressed') return f.data
  const d = decodeZstd(f.data)
  return d.ok ? d.bytes : null
}

/** The inspection of a session of the JSON-lines family (`FormatAdapter.inspect` of its members). */
export function inspectSession(scanned: Pick<ScannedChat, 'report' | 'snapshot'>): Required<AgentInspection> {
  const r = scanned.report
  const damagedLines: DamagedLine[] = []
  const plannedChanges: PlannedChange[] = []
  const plans: PlanSummary[] = []
  const classes = new Map<string, JsonlClassification>()
  for (const g of r.generations) {
    if (g.role !== 'primary' && g.role !== 'compressed') continue
    const dialect = dialectByName(r.format) ?? SESSION_DIALECTS[0]
    const log = logOf(scanned, g, dialect.keep ?? keepForFamily, dialect.keep ? dialect.columns : undefined)
    if (!log) continue
    const {cls, plan} = sessionRules(dialect, g.file, log)
    classes.set(g.file, cls)
    const lines = linesOf(cls)
    for (const i of lines.others()) {
      const l = lines.line(i)
      if (l.kind !== 'damaged') continue
      damagedLines.push({file: g.file, line: l.index + 1, offset: l.start, length: l.next - l.start, reasons: [...l.reasons], action: l.action === 'rewrite' ? 'rewrite' : 'drop', recordsKept: l.records.length})
    }
    for (const c of plan.changes) plannedChanges.push({file: g.file, kind: c.kind, line: c.line, offset: c.offset, length: c.length, bytesRemoved: c.bytesRemoved, reasons: c.reasons, ...(c.relink ? {relink: c.relink} : {})})
    plans.push({file: g.file, changes: plan.changes.length, bytesBefore: plan.source.size, bytesAfter: plan.size, accepted: plan.accepted, problems: plan.problems})
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
    case 'nul-tail':
      return `the log ends in NUL bytes from ${at}: the file grew but the bytes of its last append never reached the disk (typical after a power loss); no record was cut, every record before them is whole`
    case 'interleaved-line':
      return `a cut record and the next record share the line at ${at}: an append was cut and the next one went on the same line`
    case 'split-record':
      return `a record is spread over several lines from ${at} by raw line breaks inside its text (a writer that did not escape them): no byte is missing, and rejoined with the breaks escaped it is one whole record again`
    case 'foreign-content':
      return `the file holds no record at all and is other content from its first byte (another program's text or data written over the log, not a crash mid-append)`
    case 'bom':
      return `a byte-order mark stands in front of the record at ${at} (a tool re-saved the file); Codex refuses a BOM before its header`
    case 'invalid-utf8':
      return `the line at ${at} holds bytes that are not UTF-8 (a strict reader rejects the whole log)`
    case 'torn-utf8':
      return `a multi-byte character is cut at ${at}`
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
      for (const reason of d.reasons as LineReason[]) {
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
  const la = r.lostAnswer
  if (la) s.push(`The cut fell inside turn ${la.turn} ("${la.prompt}"): its final answer is lost (in what survives ${la.why}), so the log keeps ${plural(la.turn - 1, 'whole turn')} and turn ${la.turn}'s prompt.`)
  if (r.status === 'unrecoverable') s.push('No generation gives a log the agent accepts.')
  const dangling = r.findings.find((f) => f.id === 'dangling-parent' && f.severity !== 'info')
  if (dangling) s.push(`The parent chain is broken: ${dangling.message}.`)
  if (r.status === 'healthy' && s.length <= 1) s.push('Nothing was lost.')
  return s.join(' ')
}
