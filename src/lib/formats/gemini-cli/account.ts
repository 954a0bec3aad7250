/**
 * What `inspect` adds for a Gemini CLI session: every damaged line of each generation, the byte changes a repair
 * would make (the plan `repair` writes), and a plain-language account of what most likely happened, including
 * what the CLI's own next start will do. Pure; never includes message text or file contents.
 */
import type {LineReason} from '../../classify/jsonl.js'
import type {ChatDirSnapshot} from '../../model/adapter.js'
import type {AgentInspection, DamagedLine, PlannedChange, PlanSummary} from '../../model/inspect.js'
import type {ChatReport} from '../../model/report.js'
import {readStates, type GenState} from './diagnose.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** What a line reason most likely means for a log the CLI appends to with one write per record and no fsync. */
function story(reason: LineReason, at: string): string {
  switch (reason) {
    case 'torn-tail':
      return `the CLI was most likely killed, or the machine lost power, while appending a record (one write per record, no fsync): the file stops mid-record at ${at}`
    case 'interleaved-line':
      return `a record was cut at ${at} and a later append went on the same line: Gemini CLI writes its next record directly after the torn bytes (a resume, or \`--list-sessions\` saving a summary), so its loader loses both`
    case 'torn-interior':
      return `a record was cut at ${at} and later appends went on after it on their own lines`
    case 'nul-run':
      return `NUL bytes sit in the file from ${at}: blocks of an append never reached the disk (typical after a power loss)`
    case 'nul-tail':
      return `the file ends in NUL bytes from ${at}: its last append never reached the disk (typical after a power loss); no record was cut`
    case 'split-record':
      return `a record is spread over several lines from ${at} by raw line breaks (an editor or a tool re-saved the file); rejoined with the breaks escaped it is whole again`
    case 'foreign-content':
      return `the file holds no record at all and is other content from its first byte (written over by another program)`
    case 'bom':
      return `a byte-order mark stands in front of the record at ${at} (a tool re-saved the file); the CLI's loader skips that line`
    case 'invalid-utf8':
      return `the line at ${at} holds bytes that are not UTF-8`
    case 'torn-utf8':
      return `a multi-byte character is cut at ${at}`
  }
}

function fileAccount(s: GenState): string {
  const g = s.gen
  if (g.class === 'empty') return `${g.file} is empty: the CLI created it and no record reached the disk (or it was emptied).`
  if (g.class === 'zero-filled') return `${g.file} holds only NUL bytes (${g.bytes} bytes): its size reached the disk but none of its data, as after a power loss.`
  if (g.reasons.includes('not-a-file')) return `${g.file} is not a regular file; never read, never touched.`
  if (!s.cls) return g.class === 'intact' ? `${g.file} is a whole legacy session document.` : `${g.file} is ${g.class ?? 'unreadable'}.`
  const damaged = s.cls.lines.filter((l) => l.kind === 'damaged')
  if (damaged.length === 0) {
    const a = s.analysis
    const held = a ? ` (${plural(a.counts.prompts, 'prompt')}, ${`${a.counts.answered} answered`})` : ''
    return `${g.file} is complete: every one of its ${plural(s.cls.counts.total, 'line')} is a whole record${held}.`
  }
  const seen = new Set<LineReason>()
  const stories: string[] = []
  for (const l of damaged) {
    for (const r of l.reasons) {
      if (seen.has(r)) continue
      seen.add(r)
      stories.push(story(r, `line ${l.index + 1}, byte ${l.start}`))
    }
  }
  return `${g.file} is ${s.cls.class} (${plural(damaged.length, 'damaged line')} of ${s.cls.counts.total}): ${stories.join('; ')}.`
}

/** The forensics of one Gemini CLI chat from its scan. */
export function inspectGemini(scanned: {report: ChatReport; snapshot: ChatDirSnapshot}): AgentInspection {
  const r = scanned.report
  const states = readStates(scanned.snapshot)
  const role = new Map(r.generations.map((g) => [g.file, g] as const))
  const damagedLines: DamagedLine[] = []
  const plannedChanges: PlannedChange[] = []
  const plans: PlanSummary[] = []
  for (const s of states) {
    if (s.cls) {
      for (const l of s.cls.lines) {
        if (l.kind !== 'damaged') continue
        damagedLines.push({file: s.gen.file, line: l.index + 1, offset: l.start, length: l.next - l.start, reasons: [...l.reasons], action: l.action === 'rewrite' ? 'rewrite' : 'drop', recordsKept: l.records.length})
      }
    }
    if (s.plan) {
      for (const c of s.plan.changes) plannedChanges.push({file: s.gen.file, kind: c.kind, line: c.line, offset: c.offset, length: c.length, bytesRemoved: c.bytesRemoved, reasons: c.reasons})
      plans.push({file: s.gen.file, changes: s.plan.changes.length, bytesBefore: s.entry.data?.length ?? 0, bytesAfter: s.plan.bytes.length, accepted: s.plan.accepted, problems: [...s.plan.problems]})
    }
  }
  const out: string[] = []
  const primary = states.find((s) => role.get(s.gen.file)?.role === 'primary')
  if (primary) out.push(fileAccount(primary))
  for (const s of states) {
    const g = role.get(s.gen.file)
    if (!g || s === primary) continue
    if (g.role === 'sibling') {
      if (g.reasons.includes('sibling-orphan')) out.push(`${s.gen.file} has the same short id and holds only what the CLI writes when it starts: a resume in a later minute starts such a second file, while the conversation goes on in ${primary?.gen.file ?? 'the first one'} (the public "resume deletes my session" bug, still in 0.61.0).`)
      else out.push(`Another session file with the same short id: ${fileAccount(s)}`)
    } else if (g.role === 'backup') out.push(`Gemini CLI once could not reload the session and set ${s.gen.file} aside before rewriting the session file from memory; ${fileAccount(s)}`)
    else if (g.role === 'temp') out.push(`${s.gen.file} is the temp of such a rewrite, left when the process died before the rename; ${fileAccount(s)}`)
  }
  for (const f of r.findings) if (f.id === 'next-start-loss' && f.severity !== 'info') out.push(`Before Gemini CLI starts again: ${f.message}.`)
  const plan = primary ? plans.find((p) => p.file === primary.gen.file) : undefined
  if (plan && plan.changes > 0) out.push(plan.accepted ? `A repair would make ${plural(plan.changes, 'byte change')} to ${plan.file} (${plan.bytesBefore} → ${plan.bytesAfter} bytes), every other line byte-identical, and Gemini CLI would load the result.` : `A repair of ${plan.file} would not give a file Gemini CLI loads (${plan.problems.join('; ')}).`)
  if (r.winner && primary && r.winner !== primary.gen.file) out.push(`The best generation is ${r.winner}.`)
  if (r.status === 'unrecoverable') out.push('No generation gives a session file Gemini CLI loads and keeps.')
  if (r.status === 'healthy' && out.length <= 1) out.push('Nothing was lost.')
  return {damagedLines, plannedChanges, plans, account: out.join(' ')}
}
