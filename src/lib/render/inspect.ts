/**
 * Human rendering of `inspect`: header, timeline table, tears, ranking, salvage, transcript and amnesia
 * notes, findings and the plain-language account. Counts, sizes, offsets, ids, times and hashes only.
 */
import type CliTable3 from 'cli-table3'
import {createRequire} from 'node:module'
import type {ChalkInstance} from 'chalk'
import type {Inspection} from '../pipeline/inspect.js'
import {adapterByName} from '../formats/index.js'
import {salvageCommand} from '../fsio/paths.js'

// cli-table3 is CommonJS: `require` skips the export-name scan an ESM import of it costs at start-up.
const Table = createRequire(import.meta.url)('cli-table3') as typeof CliTable3

function time(ms: number | null): string {
  return ms === null ? '–' : new Date(ms).toISOString()
}

function wrap(text: string, width = 100): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  if (line) lines.push(line)
  return lines
}

/** Renders one inspection as text for a terminal. */
export function renderInspection(x: Inspection, opts: {chalk: ChalkInstance}): string {
  const c = opts.chalk
  const out: string[] = []
  out.push(c.bold(x.path))
  out.push(`format ${x.format} · status ${x.status} · winner ${x.winner ?? 'none'} · turns ${x.contextTurns ?? '–'}/${x.transcriptTurns ?? '–'}`)

  out.push('', c.bold('Timeline') + c.dim(' (oldest first)'))
  const t = new Table({
    head: ['mtime', 'file', 'role', 'class', 'bytes', 'turns', 'first', 'traceSessionId'],
    style: {head: c.level > 0 ? ['bold'] : [], border: c.level > 0 ? ['grey'] : []},
    // No rule between rows: a chat can have dozens of generations.
    chars: {mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': ''},
  })
  for (const e of x.timeline) {
    const cls = e.class === null ? '–' : e.reasons.length > 0 ? `${e.class} (${e.reasons.join(', ')})` : e.class
    t.push([time(e.mtimeMs), e.file, e.role, cls, String(e.bytes), e.turns === null ? '–' : `${e.turns}${e.interrupted ? ' partial' : ''}`, e.firstTurn ?? '–', e.traceSessionId ?? '–'])
  }
  out.push(t.toString())

  if (x.tears.length > 0) {
    out.push('', c.bold('Tears'))
    for (const tr of x.tears) {
      const block = tr.blockAligned ? 'on a 4096-byte boundary' : `${tr.offsetInBlock} bytes into a 4096-byte block`
      const where = tr.length === 0 ? `cut at byte ${tr.offset}, the end of the file` : `damage from byte ${tr.offset} of ${tr.bytes} (${tr.length} bytes)`
      out.push(`  ${tr.file}: ${tr.class}${tr.reasons.length ? ` (${tr.reasons.join(', ')})` : ''}, ${where}, ${block}`)
      if (tr.nulRuns.length > 0) out.push(`    NUL runs: ${tr.nulRuns.map((r) => `${r.length} at ${r.offset}`).join(', ')}${tr.nulRuns.length >= 20 ? ', …' : ''}`)
    }
  }

  if (x.damagedLines && x.damagedLines.length > 0) {
    out.push('', c.bold('Damaged lines'))
    const shown = x.damagedLines.slice(0, 50)
    for (const d of shown) out.push(`  ${d.file}:${d.line} byte ${d.offset} (${d.length} bytes): ${d.reasons.join(', ')} → ${d.action}${d.recordsKept > 0 ? `, ${d.recordsKept} record${d.recordsKept === 1 ? '' : 's'} kept` : ''}`)
    if (x.damagedLines.length > shown.length) out.push(`  … ${x.damagedLines.length - shown.length} more (--json lists them all)`)
  }

  if (x.plans && x.plans.some((p) => p.changes > 0)) {
    out.push('', c.bold('Planned byte changes') + c.dim(' (what repair would write; every other line byte-identical)'))
    for (const p of x.plans) {
      if (p.changes === 0) continue
      out.push(`  ${p.file}: ${p.changes} change${p.changes === 1 ? '' : 's'}, ${p.bytesBefore} → ${p.bytesAfter} bytes, ${p.accepted ? 'accepted by the agent' : `not accepted: ${p.problems.join('; ')}`}`)
      for (const ch of (x.plannedChanges ?? []).filter((k) => k.file === p.file).slice(0, 50)) {
        const what = ch.relink ? ` ${adapterByName(x.format)?.texts?.parentKey ?? 'parent'} ${ch.relink.from} → ${ch.relink.to}` : ` ${ch.bytesRemoved} bytes removed`
        out.push(`    ${ch.kind} line ${ch.line} (byte ${ch.offset}, ${ch.length} bytes):${what}`)
      }
    }
  }

  if (x.ranking.length > 0) {
    out.push('', c.bold('Ranking'))
    for (const r of x.ranking) out.push(`  ${r.rank}. ${r.file} (turn ${r.turns})${r.lostBecause ? c.dim(` lost: ${r.lostBecause}`) : ' wins'}`)
  }

  if (x.salvage.length > 0) {
    out.push('', c.bold('Salvage'))
    for (const s of x.salvage) {
      out.push(`  ${s.file}: keeps ${s.messages} messages${s.turns !== null ? ` (turn ${s.turns})` : ''}, bytes [0, ${s.bytesKept}) kept, ${s.bytesDropped} dropped${s.tornElementDropped ? ', a torn message dropped' : ''}; result ${s.bytes} bytes sha256 ${s.sha256.slice(0, 12)}…; ${s.candidate ? 'usable' : 'not usable'}`)
      for (const k of s.keysBorrowed) out.push(`    ${k.key} borrowed from ${k.from}`)
      for (const k of s.keysMissing) out.push(`    ${k} missing: no generation holds it`)
      for (const k of s.keysDropped) out.push(`    ${k} dropped`)
    }
  }

  if (x.transcriptRestore) out.push('', `${c.bold('Transcript')}: ${x.transcriptRestore.to} would be restored from ${x.transcriptRestore.from} (${x.transcriptRestore.turns} turns, ${x.transcriptRestore.messages} messages)`)

  if (x.findings.length > 0) {
    out.push('', c.bold('Findings'))
    for (const f of x.findings) out.push(`  ${f.severity} ${f.id}${f.file ? ` ${f.file}` : ''}: ${f.message}`)
  }

  out.push('', c.bold('What most likely happened'))
  for (const l of wrap(x.account)) out.push(`  ${l}`)
  const hint = adapterByName(x.format)?.texts?.salvageHint
  const more = hint ? x.findings.find((f) => f.id === hint) : undefined
  if (more) out.push('', `To reach more turns with borrowed values: ${salvageCommand(x.path)}`)
  return out.join('\n')
}
