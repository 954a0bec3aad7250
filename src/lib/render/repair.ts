/**
 * Human rendering of a `repair` report, in words a user understands: per chat, which file was restored from
 * which generation, how much agent context came back ("turns 1–9 of 10"), what is lost, where the evidence
 * is and how to undo. Never prints message text or file contents.
 */
import type {ChalkInstance} from 'chalk'
import type {ChatReport, LineChangeReport, Report} from '../model/report.js'
import {salvageCommand} from '../fsio/paths.js'
import {renderFindings, unsupportedLine} from './table.js'
import {isUrgent} from '../model/findings.js'
import {adapterByName, findingKinds} from '../formats/index.js'

export interface RepairRenderOptions {
  chalk: ChalkInstance
  verbose: boolean
  quiet: boolean
}

/** "turns 1–9 of 10", "turn 1 of 1", "3 prompts (no usable transcript to count turns against)". */
export function contextText(chat: Pick<ChatReport, 'contextTurns' | 'transcriptTurns'>): string {
  const n = chat.contextTurns ?? 0
  const m = chat.transcriptTurns
  if (m === null) return `${n} prompt${n === 1 ? '' : 's'} (no usable transcript to count turns against)`
  if (n === 0) return `no turn of ${m}`
  return `${n === 1 ? 'turn 1' : `turns 1–${n}`} of ${m}`
}

/** What of the transcript the agent's memory lacks after the repair, in words; null when nothing. */
export function lostText(chat: Pick<ChatReport, 'contextTurns' | 'transcriptTurns'>): string | null {
  const n = chat.contextTurns ?? 0
  const m = chat.transcriptTurns
  if (m === null || n >= m) return null
  if (m - n === 1) return `turn ${m}'s prompt and answer are in the transcript but not in the agent's memory`
  return `turns ${n + 1}–${m}: their prompts and answers are in the transcript but not in the agent's memory`
}

function primaryState(chat: ChatReport): string {
  const p = chat.generations.find((g) => g.role === 'primary')
  if (!p) return ''
  if (p.class === 'missing') return `${p.file} was missing`
  if (p.class === 'intact') {
    if (chat.status === 'degraded') return `${p.file} was amnesiac (${chat.amnesia?.patterns.join(', ') ?? 'part of the context missing'})`
    return `${p.file} covered only turn ${p.turns ?? 0}${chat.transcriptTurns !== null ? ` of ${chat.transcriptTurns}` : ''}`
  }
  return `${p.file} was ${p.class}${p.reasons.length ? ` (${p.reasons.join(', ')})` : ''}`
}

function transcriptState(chat: ChatReport, file: string): string {
  const t = chat.generations.find((g) => g.file === file)
  if (!t || t.class === 'missing') return `${file} was missing`
  return `${file} was ${t.class}${t.reasons.length ? ` (${t.reasons.join(', ')})` : ''}`
}

/** N of the generation a `restore` of the primary writes: a generation's turns, or a salvage's (`salvage:<file>`). */
function restoredTurns(chat: ChatReport, from: string | null): number | null {
  if (from === null) return null
  const salvaged = /^salvage:(.+)$/.exec(from)
  if (salvaged) return chat.generations.find((g) => g.file === salvaged[1])?.salvage?.turns ?? null
  return chat.generations.find((g) => g.file === from)?.turns ?? null
}

/**
 * One byte change of a JSONL repair, in words ("line 12 (byte 4096): drop-line, 312 bytes removed
 * (interleaved-line)"); `parentKey` names the record key a `relink-parent` rewrites (the adapter's).
 */
export function changeText(ch: LineChangeReport, parentKey = 'parent'): string {
  const bytes = (n: number) => `${n} byte${n === 1 ? '' : 's'}`
  let what: string
  if (ch.kind === 'relink-parent' && ch.relink) what = `relink-parent, ${parentKey} ${ch.relink.from} → ${ch.relink.to}`
  else if (ch.kind === 'rejoin-lines') what = `rejoin-lines, ${ch.linesJoined ?? 2} lines made one record again: ${bytes(ch.bytesRemoved)} of raw line breaks replaced by ${bytes(ch.bytesAdded ?? 0)} of their escapes`
  else if (ch.kind === 'set-ordinal') what = `set-ordinal, ordinal ${ch.ordinal ?? '?'} given (${bytes(ch.bytesAdded ?? 0)} added)`
  else what = `${ch.kind}, ${bytes(ch.bytesRemoved)} removed${ch.recordsKept > 0 ? `, ${ch.recordsKept} record${ch.recordsKept === 1 ? '' : 's'} kept` : ''}`
  return `line ${ch.line} (byte ${ch.offset}): ${what}${ch.reasons.length > 0 ? ` (${ch.reasons.join(', ')})` : ''}`
}

function chatLines(chat: ChatReport, c: ChalkInstance, verbose = false): string[] {
  const r = chat.repair
  if (!r) return []
  const texts = adapterByName(chat.format)?.texts
  const primary = chat.generations.find((g) => g.role === 'primary')?.file ?? null
  const restore = chat.actions?.find((a) => a.type === 'restore')
  const stateRestore = chat.actions?.find((a) => a.type === 'restore' && a.to === primary)
  const lines: string[] = []
  const short = (h: string | null) => (h ? h.slice(0, 12) + '…' : '–')
  switch (r.outcome) {
    case 'repaired':
    case 'planned': {
      const did = r.outcome === 'repaired'
      const tidyOnly = !(chat.actions ?? []).some((a) => a.type === 'restore' || a.type === 'rewrite' || a.type === 'move')
      lines.push(`${tidyOnly ? (did ? c.green('tidied') : c.yellow('would tidy')) : did ? c.green('repaired') : c.yellow('would repair')} ${chat.path}`)
      for (const a of chat.actions ?? []) if (a.type === 'restore') lines.push(`  ${a.to === primary ? primaryState(chat) : transcriptState(chat, a.to)}`)
      for (const a of chat.actions ?? []) if (a.type === 'rewrite') lines.push(`  ${transcriptState(chat, a.from ?? a.to)}`)
      for (const a of chat.actions ?? []) {
        if (a.type === 'preserve') lines.push(`  ${did ? 'kept' : 'would keep'} ${a.from} as evidence${a.evidence ? ` (${a.evidence})` : ''}`)
        if (a.type === 'restore') {
          lines.push(`  ${did ? 'restored' : 'would restore'} ${a.to} from ${a.from} (sha256 ${short(a.sha256)})`)
          for (const k of a.keysBorrowed ?? []) lines.push(`    ${k.key} ${did ? 'was' : 'would be'} cut off by the tear: taken from ${k.from}`)
        }
        if (a.type === 'restore-mtime') lines.push(`  ${did ? 'put back' : 'would put back'} the ${texts?.folderMtime ?? "folder's mtime"}`)
        if (a.type === 'rewrite') {
          lines.push(`  ${did ? 'rewrote' : 'would rewrite'} ${a.to}${a.from !== a.to ? ` from ${a.from}` : ''} (sha256 ${short(a.sha256)}), its mtime kept; ${(a.changes ?? []).length === 0 ? 'no line changed' : `${a.changes!.length} change${a.changes!.length === 1 ? '' : 's'}, every other line byte-identical:`}`)
          for (const ch of (a.changes ?? []).slice(0, verbose ? Infinity : 20)) lines.push(`    ${changeText(ch, texts?.parentKey)}`)
          if (!verbose && (a.changes ?? []).length > 20) lines.push(`    … ${a.changes!.length - 20} more (--verbose or --json lists them)`)
        }
        if (a.type === 'remove-leftover') lines.push(`  ${did ? 'removed' : 'would remove'} chatdoctor's own leftover ${a.to} of an interrupted run`)
        if (a.type === 'move') lines.push(`  ${did ? 'moved' : 'would move'} ${a.from} out of the tree (${a.why ?? 'damaged'})${a.evidence ? ` to ${a.evidence}` : ' into the evidence folder'}`)
      }
      const rewrite = chat.actions?.find((a) => a.type === 'rewrite')
      if (r.lost) {
        const l = r.lost
        const ids = (xs: string[]) => (xs.length <= 6 ? xs.join(', ') : `${xs.slice(0, 5).join(', ')} … (${xs.length} in all)`)
        if (l.messages.length > 0) lines.push(`  the session ${did ? 'lost' : 'would lose'} ${l.messages.length} message${l.messages.length === 1 ? '' : 's'}: ${ids(l.messages)}`)
        if (l.parts.length > 0) lines.push(`  the session ${did ? 'lost' : 'would lose'} ${l.parts.length} part${l.parts.length === 1 ? '' : 's'}: ${ids(l.parts)}`)
        const ctx = (x: typeof l.after) => `${x.userTurns} user turn${x.userTurns === 1 ? '' : 's'}, ${x.assistantMessages} assistant message${x.assistantMessages === 1 ? '' : 's'}, ${x.parts} part${x.parts === 1 ? '' : 's'}`
        lines.push(`  context ${l.sessionListed ? (did ? 'now' : 'after') : 'left on disk'}: ${ctx(l.after)} (readable before: ${ctx(l.before)})`)
        if (!l.sessionListed) lines.push(`  the session file itself was damaged: ${texts?.sessionUnlisted ?? 'the agent still cannot list this session'}`)
      } else if (rewrite) {
        const turns = chat.ranking.find((x) => x.file === rewrite.from)?.turns ?? chat.contextTurns
        const after = {contextTurns: turns, transcriptTurns: chat.transcriptTurns}
        lines.push(`  agent context ${did ? 'now' : 'after the repair'}: ${contextText(after)} reachable`)
        const lost = lostText(after)
        if (lost) lines.push(`  lost: ${lost}`)
      } else if (stateRestore) {
        const n = restoredTurns(chat, stateRestore.from) ?? chat.contextTurns
        const after = {contextTurns: n, transcriptTurns: chat.transcriptTurns}
        lines.push(`  agent context ${did ? 'restored' : 'would be restored'}: ${contextText(after)}`)
        const lost = lostText(after)
        if (lost) lines.push(`  lost: ${lost}`)
        else if (after.transcriptTurns === null) lines.push('  the transcript is not usable, so what the agent may have lost cannot be measured against it (see the transcript findings)')
        else lines.push("  nothing lost: the agent's memory covers every transcript turn")
      } else if (chat.status === 'unrecoverable') lines.push('  agent context: still lost (no usable generation of it)')
      else lines.push(`  agent context unchanged: ${contextText(chat)}`)
      if (did && r.evidence) lines.push(`  originals kept in ${r.evidence}/`)
      if (did && r.undo) lines.push(`  to undo: ${r.undo}`)
      break
    }
    case 'refused':
    case 'failed':
      lines.push(`${c.red(r.outcome)} ${chat.path}`)
      if (r.message) lines.push(`  ${r.message}`)
      if (r.evidence) lines.push(`  evidence kept in ${r.evidence}/${r.undo ? ` (${r.undo})` : ''}`)
      break
    case 'not-attempted':
      lines.push(`${c.yellow('not repaired')} ${chat.path}${r.message ? `: ${r.message}` : ''}`)
      if (restore) lines.push(`  would restore ${restore.to} from ${restore.from}`)
      break
    case 'not-repairable': {
      lines.push(`${c.red('not repairable')} ${chat.path}`)
      lines.push(`  ${texts?.notRepairable?.(chat) ?? r.message ?? 'no usable generation: nothing written'}`)
      break
    }
    case 'left-untouched': {
      lines.push(`${c.yellow('left untouched')} ${chat.path}`)
      for (const f of chat.findings) if (isUrgent(f, findingKinds()) && f.id !== texts?.salvageHint && f.severity === 'error') lines.push(`  ${f.message}`)
      if (r.message) lines.push(`  ${r.message}`)
      break
    }
    case 'manual':
      lines.push(`${c.yellow('not repaired')} ${chat.path}`)
      if (r.message) lines.push(`  ${r.message}`)
      break
    case 'not-needed':
      return []
  }
  for (const w of r.warnings) lines.push(`  ${c.yellow('warning')} ${w}`)
  // More turns reachable only with borrowed values: said unless this run already restored a salvage.
  const more = texts?.salvageHint ? chat.findings.find((x) => x.id === texts.salvageHint) : undefined
  const usedSalvage = (chat.actions ?? []).some((a) => a.type === 'restore' && a.from !== null && a.from.startsWith('salvage:') && (a.keysBorrowed ?? []).length > 0)
  if (more && !usedSalvage) lines.push(`  ${c.yellow('note')} ${more.message}: ${salvageCommand(chat.path)}`)
  return lines
}

/** The summary line of a repair run. */
export function repairSummaryLine(report: Report): string {
  const count = (o: string) => report.chats.filter((ch) => ch.repair?.outcome === o).length
  const parts: string[] = []
  const n = report.chats.length
  parts.push(`${n} chat${n === 1 ? '' : 's'}`)
  if (report.dryRun) parts.push(`${count('planned')} would be repaired`)
  else parts.push(`${count('repaired')} repaired`)
  for (const [o, word] of [['refused', 'refused'], ['failed', 'failed'], ['not-attempted', 'not repaired'], ['not-repairable', 'not repairable'], ['left-untouched', 'left untouched (degraded)'], ['manual', 'left for a manual repair'], ['not-needed', 'healthy']] as const) {
    const k = count(o)
    if (k > 0 || o === 'not-needed') parts.push(`${k} ${word}`)
  }
  if (report.summary.skipped > 0) parts.push(`${report.summary.skipped} skipped`)
  if (report.errors.length > 0) parts.push(`${report.errors.length} error${report.errors.length === 1 ? '' : 's'}`)
  return `${parts.join(', ')}${report.dryRun ? ' (dry run: nothing written)' : ''} (exit ${report.exitCode})`
}

/** Renders the whole human report of `repair`. */
export function renderRepair(report: Report, opts: RepairRenderOptions): {stdout: string; stderr: string} {
  const out: string[] = []
  const err: string[] = []
  const c = opts.chalk
  for (const chat of report.chats) {
    const lines = chatLines(chat, c, opts.verbose)
    if (lines.length === 0) continue
    if (opts.quiet && chat.repair?.outcome === 'repaired') continue
    if (out.length > 0) out.push('')
    out.push(...lines)
  }
  if (opts.verbose) out.push(...renderFindings(report.chats, {chalk: c, verbose: true, quiet: opts.quiet}))
  if (opts.verbose) for (const s of report.skipped) out.push(c.dim(`skipped ${s.path}: ${s.reason}`))
  for (const e of report.errors) err.push(`${c.red('error')} ${e.path}: ${e.message}`)
  if (!opts.quiet) {
    if (report.chats.length === 0 && report.errors.length === 0) out.push('No chats found.')
    else if (out.length === 0) out.push('Nothing to repair.')
    if (out.length > 0) out.push('')
    const also = unsupportedLine(report.skipped)
    if (also) out.push(also)
    out.push(repairSummaryLine(report))
    if (report.repairId) out.push(`To undo this repair: chatdoctor undo ${report.repairId}`)
    if (report.dryRun && report.chats.some((ch) => ch.repair?.outcome === 'planned')) out.push('Run without --dry-run to repair.')
    if (report.interrupted) out.push('Stopped (Ctrl-C or a termination signal) between chats: every chat above is either fully repaired or untouched.')
  }
  return {stdout: out.join('\n'), stderr: err.join('\n')}
}
