/**
 * Human rendering of `inspect`: header, timeline table, tears, ranking, salvage, transcript and amnesia
 * notes, findings and the plain-language account. Counts, sizes, offsets, ids, times and hashes only. Names
 * arrive escaped (`printHuman`, `terminal.ts`); the salvage command names the exact chat (`exactOf`).
 */
import type {ChalkInstance} from 'chalk'
import type {Inspection} from '../pipeline/inspect.js'
import {adapterByName} from '../formats/index.js'
import {isoTime} from '../model/time-text.js'
import {SALVAGE_MORE_TURNS} from '../model/findings.js'
import {fitTable} from './fit-table.js'
import {commandLines} from './next-steps.js'
import {exactOf} from './terminal.js'
import {UNLIMITED, shortenMiddle, wrapLine} from './width.js'

function time(ms: number | null): string {
  return ms === null ? '–' : isoTime(ms)
}

/** Renders one inspection as text for a terminal, every line within `width` (default unlimited). */
export function renderInspection(x: Inspection, opts: {chalk: ChalkInstance; width?: number}): string {
  const c = opts.chalk
  const width = opts.width ?? UNLIMITED
  const out: string[] = []
  // Each line of the sections below is wrapped, continued under its own text.
  const push = (...lines: string[]) => {
    for (const l of lines) out.push(...wrapLine(l, width))
  }
  out.push(c.bold(shortenMiddle(x.path, width, x.id)))
  push(`format ${x.format} · status ${x.status} · winner ${x.winner === null ? 'none' : x.winner} · turns ${x.contextTurns ?? '–'}/${x.transcriptTurns ?? '–'}`)

  push('', c.bold('Timeline') + c.dim(' (oldest first)'))
  // Times of one day show the day once, in the header.
  const days = new Set(x.timeline.filter((e) => e.mtimeMs !== null).map((e) => time(e.mtimeMs).slice(0, 10)))
  const oneDay = days.size === 1 && /^\d{4}-\d\d-\d\d$/.test([...days][0]) ? [...days][0] : null
  const when = (ms: number | null) => (ms === null ? '–' : oneDay ? time(ms).slice(11) : time(ms))
  const rows = x.timeline.map((e) => ({
    cells: [
      when(e.mtimeMs),
      // Shortened, an embedded copy (`<file>#<id>`) keeps its id, a file in a subfolder its own name.
      {text: e.file, keep: e.file.includes('#') ? e.file.slice(e.file.lastIndexOf('#')) : e.file.includes('/') ? e.file.slice(e.file.lastIndexOf('/') + 1) : undefined},
      e.role,
      e.class ?? '–',
      e.reasons.join(', '),
      String(e.bytes),
      e.turns === null ? '–' : `${e.turns}${e.interrupted ? ' partial' : ''}`,
      e.firstTurn === null ? '–' : String(e.firstTurn),
      e.traceSessionId ?? '–',
    ],
  }))
  out.push(
    fitTable(
      [
        {header: oneDay ? `mtime ${oneDay}` : 'mtime'},
        {header: 'file', fit: 'shorten', min: 14},
        {header: 'role'},
        {header: 'class'},
        {header: 'reasons', fit: 'wrap', min: 10},
        {header: 'bytes', align: 'right'},
        {header: 'turns'},
        {header: 'first'},
        {header: 'traceSessionId', fit: 'shorten', min: 8},
      ],
      rows,
      // No rule between rows: a chat can have dozens of generations. Narrower: names shortened and reasons
      // wrapped, then the lesser columns left out (Tears and Findings below give every reason).
      {
        width,
        chalk: c,
        rules: false,
        attempts: [
          {shrink: [1, 4, 8], min: {1: 36}},
          {hide: [8], shrink: [1, 4], min: {1: 36}},
          {hide: [8, 4], shrink: [1], min: {1: 32}},
          {hide: [8, 4, 7], shrink: [1], min: {1: 30}},
          {hide: [8, 4, 7, 2], shrink: [1], min: {1: 24}},
          {hide: [8, 4, 7, 2, 5], shrink: [1]},
        ],
      },
    ),
  )

  if (x.tears.length > 0) {
    push('', c.bold('Tears'))
    for (const tr of x.tears) {
      const block = tr.blockAligned ? 'on a 4096-byte boundary' : `${tr.offsetInBlock} bytes into a 4096-byte block`
      const where = tr.length === 0 ? `cut at byte ${tr.offset}, the end of the file` : `damage from byte ${tr.offset} of ${tr.bytes} (${tr.length} bytes)`
      push(`  ${tr.file}: ${tr.class}${tr.reasons.length ? ` (${tr.reasons.join(', ')})` : ''}, ${where}, ${block}`)
      if (tr.nulRuns.length > 0) push(`    NUL runs: ${tr.nulRuns.map((r) => `${r.length} at ${r.offset}`).join(', ')}${tr.nulRuns.length >= 20 ? ', …' : ''}`)
    }
  }

  if (x.damagedLines && x.damagedLines.length > 0) {
    push('', c.bold('Damaged lines'))
    const shown = x.damagedLines.slice(0, 50)
    for (const d of shown) push(`  ${d.file}:${d.line} byte ${d.offset} (${d.length} bytes): ${d.reasons.join(', ')} → ${d.action}${d.recordsKept > 0 ? `, ${d.recordsKept} record${d.recordsKept === 1 ? '' : 's'} kept` : ''}`)
    if (x.damagedLines.length > shown.length) push(`  … ${x.damagedLines.length - shown.length} more (--json lists them all)`)
  }

  if (x.plans && x.plans.some((p) => p.changes > 0)) {
    push('', c.bold('Planned byte changes') + c.dim(' (what repair would write; every other line byte-identical)'))
    for (const p of x.plans) {
      if (p.changes === 0) continue
      push(`  ${p.file}: ${p.changes} change${p.changes === 1 ? '' : 's'}, ${p.bytesBefore} → ${p.bytesAfter} bytes, ${p.accepted ? 'accepted by the agent' : `not accepted: ${p.problems.join('; ')}`}`)
      for (const ch of (x.plannedChanges ?? []).filter((k) => k.file === p.file).slice(0, 50)) {
        const what = ch.relink ? ` ${adapterByName(x.format)?.texts?.parentKey ?? 'parent'} ${ch.relink.from} → ${ch.relink.to}` : ` ${ch.bytesRemoved} bytes removed`
        push(`    ${ch.kind} line ${ch.line} (byte ${ch.offset}, ${ch.length} bytes):${what}`)
      }
    }
  }

  if (x.ranking.length > 0) {
    push('', c.bold('Ranking'))
    for (const r of x.ranking) push(`  ${r.rank}. ${r.file} (turn ${r.turns})${r.lostBecause ? c.dim(` lost: ${r.lostBecause}`) : ' wins'}`)
  }

  if (x.salvage.length > 0) {
    push('', c.bold('Salvage'))
    for (const s of x.salvage) {
      push(`  ${s.file}: keeps ${s.messages} messages${s.turns !== null ? ` (turn ${s.turns})` : ''}, bytes [0, ${s.bytesKept}) kept, ${s.bytesDropped} dropped${s.tornElementDropped ? ', a torn message dropped' : ''}; result ${s.bytes} bytes sha256 ${s.sha256.slice(0, 12)}…; ${s.candidate ? 'usable' : 'not usable'}`)
      for (const k of s.keysBorrowed) push(`    ${k.key} borrowed from ${k.from}`)
      for (const k of s.keysMissing) push(`    ${k} missing: no generation holds it`)
      for (const k of s.keysDropped) push(`    ${k} dropped`)
    }
  }

  if (x.transcriptRestore) push('', `${c.bold('Transcript')}: ${x.transcriptRestore.to} would be restored from ${x.transcriptRestore.from} (${x.transcriptRestore.turns} turns, ${x.transcriptRestore.messages} messages)`)

  if (x.findings.length > 0) {
    push('', c.bold('Findings'))
    for (const f of x.findings) push(`  ${f.severity} ${f.id}${f.file ? ` ${f.file}` : ''}: ${f.message}`)
  }

  push('', c.bold('What most likely happened'))
  // A paragraph: its lines all indented alike.
  out.push(...wrapLine(`  ${x.account}`, width, '  '))
  const more = x.findings.find((f) => f.id === SALVAGE_MORE_TURNS)
  if (more) {
    push('', 'To reach more turns with a lossy salvage:')
    out.push(...commandLines(['repair', '--salvage', exactOf(x).path], width, '  '))
  }
  return out.join('\n')
}
