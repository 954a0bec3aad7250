/**
 * Human rendering of a `repair` report, in words a user understands: per chat, which file was restored from
 * which generation, how much agent context came back ("turns 1–9 of 10"), what is lost, where the evidence
 * is and how to undo. Never prints message text or file contents.
 */
import type {ChalkInstance} from 'chalk'
import type {ActionReport, ChatReport, LineChangeReport, Report} from '../model/report.js'
import {renderFindings, renderRoots, unsupportedLine} from './table.js'
import {commandLines} from './next-steps.js'
import {exactOf} from './terminal.js'
import {UNLIMITED, shortenMiddle, textWidth, wrapLine} from './width.js'
import {SALVAGE_MORE_TURNS, isUrgent} from '../model/findings.js'
import {adapterByName, findingKinds} from '../formats/index.js'

export interface RepairRenderOptions {
  chalk: ChalkInstance
  verbose: boolean
  quiet: boolean
  /** Columns the output must fit (`outputWidth`); unlimited when absent. */
  width?: number
}

/** `label path`, the path shortened in the middle (keeping the chat id) to fit `width`. */
export function chatHeading(label: string, chat: Pick<ChatReport, 'path' | 'id'>, width: number = UNLIMITED): string {
  return `${label} ${shortenMiddle(chat.path, width - textWidth(label) - 1, chat.id)}`
}

/**
 * What a repaired (or planned) chat's actions are, when they touch no state of the agent: `finish` when they put
 * back the folder mtime an interrupted earlier repair recorded (and maybe remove its leftovers: a `restore-mtime`
 * with no restore or rewrite comes only from there), `tidy` when they only remove chatdoctor's own leftovers;
 * null for a repair of the chat's state. Such a chat is not counted as repaired: nothing of the agent changed.
 */
export function bookkeepingOnly(chat: Pick<ChatReport, 'actions'>): 'finish' | 'tidy' | null {
  const actions = chat.actions ?? []
  // No action at all: the chat comes back through another write (its index's repair, the agent's importer).
  if (actions.length === 0) return null
  if (actions.some((a) => a.type === 'restore' || a.type === 'rewrite' || a.type === 'move')) return null
  return actions.some((a) => a.type === 'restore-mtime') ? 'finish' : 'tidy'
}

const SNAPSHOT_PREFIX = 'snapshot:'

/** True when a write action creates a file the chat lacked (a deleted log written back from another generation). */
function createsMissing(chat: Pick<ChatReport, 'generations'>, a: Pick<ActionReport, 'type' | 'from' | 'to'>): boolean {
  if ((a.type !== 'rewrite' && a.type !== 'restore') || a.from === a.to) return false
  const target = chat.generations.find((g) => g.file === a.to)
  return target === undefined || target.class === 'missing'
}

/**
 * True when a repair's writes only created files the chat lacked: its evidence folder then keeps no original
 * (only the manifest that lets undo remove them again).
 */
function restoredOnly(chat: Pick<ChatReport, 'actions' | 'generations'>): boolean {
  const actions = chat.actions ?? []
  return actions.some((a) => createsMissing(chat, a)) && actions.every((a) => a.type === 'restore-mtime' || createsMissing(chat, a))
}

/** "turns 1–9 of 10", "turn 1 of 1", "3 prompts (no usable transcript to count turns against)". */
export function contextText(chat: Pick<ChatReport, 'contextTurns' | 'transcriptTurns' | 'droppedTurns'>): string {
  const n = chat.contextTurns ?? 0
  const m = chat.transcriptTurns
  if (m === null) return `${n} prompt${n === 1 ? '' : 's'} (no usable transcript to count turns against)`
  if (n === 0) return `no turn of ${m}`
  const d = chat.droppedTurns
  if (d !== undefined && d.length === m - n && d.some((t) => t <= n)) return `${n} turn${n === 1 ? '' : 's'} of ${m} (all but turn${d.length === 1 ? '' : 's'} ${d.join(', ')})`
  return `${n === 1 ? 'turn 1' : `turns 1–${n}`} of ${m}`
}

/** What of the transcript the agent's memory lacks after the repair, in words; null when nothing. */
export function lostText(chat: Pick<ChatReport, 'contextTurns' | 'transcriptTurns' | 'droppedTurns'>): string | null {
  const n = chat.contextTurns ?? 0
  const m = chat.transcriptTurns
  if (m === null || n >= m) return null
  // The turns the repair drops, when the scan named them (a damaged line inside the log, not its end).
  const d = chat.droppedTurns
  if (d !== undefined && d.length === m - n) {
    if (d.length === 1) return `turn ${d[0]}'s prompt is in the transcript but not in the agent's memory (its line is damaged)`
    return `the prompts of turns ${d.join(', ')} are in the transcript but not in the agent's memory (their lines are damaged)`
  }
  if (m - n === 1) return `turn ${m}'s prompt and answer are in the transcript but not in the agent's memory`
  return `turns ${n + 1}–${m}: their prompts and answers are in the transcript but not in the agent's memory`
}

/** A final answer the cut took, in words, with the turns after it the agent lacks too (`m`: M). */
export function lostAnswerWords(la: NonNullable<ChatReport['lostAnswer']>, m: number | null): string {
  const later = m !== null && m > la.turn ? `; ${lostText({contextTurns: la.turn, transcriptTurns: m})}` : ''
  return `the final answer of turn ${la.turn} ("${la.prompt}"): the log was cut at line ${la.line} inside that turn${later}`
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

/**
 * What a planned or done repair leaves of the agent context, and what is lost, in lines (indented by two):
 * the context after it against the transcript, the messages and parts a session loses, or that nothing is lost.
 */
export function outcomeLines(chat: ChatReport, did: boolean): string[] {
  const r = chat.repair
  if (!r) return []
  const texts = adapterByName(chat.format)?.texts
  const primary = chat.generations.find((g) => g.role === 'primary')?.file ?? null
  const stateRestore = chat.actions?.find((a) => a.type === 'restore' && a.to === primary)
  const out: string[] = []
  const rewrite = chat.actions?.find((a) => a.type === 'rewrite')
  if (r.lost) {
    const l = r.lost
    const ids = (xs: string[]) => (xs.length <= 6 ? xs.join(', ') : `${xs.slice(0, 5).join(', ')} … (${xs.length} in all)`)
    if (l.messages.length > 0) out.push(`  the session ${did ? 'lost' : 'would lose'} ${l.messages.length} message${l.messages.length === 1 ? '' : 's'}: ${ids(l.messages)}`)
    if (l.parts.length > 0) out.push(`  the session ${did ? 'lost' : 'would lose'} ${l.parts.length} part${l.parts.length === 1 ? '' : 's'}: ${ids(l.parts)}`)
    const ctx = (x: typeof l.after) => `${x.userTurns} user turn${x.userTurns === 1 ? '' : 's'}, ${x.assistantMessages} assistant message${x.assistantMessages === 1 ? '' : 's'}, ${x.parts} part${x.parts === 1 ? '' : 's'}`
    out.push(`  context ${l.sessionListed ? (did ? 'now' : 'after') : 'left on disk'}: ${ctx(l.after)} (readable before: ${ctx(l.before)})`)
    if (!l.sessionListed) out.push(`  the session file itself was damaged: ${texts?.sessionUnlisted ?? 'the agent still cannot list this session'}`)
  } else if (rewrite) {
    const turns = chat.ranking.find((x) => x.file === rewrite.from)?.turns ?? chat.contextTurns
    const after = {contextTurns: turns, transcriptTurns: chat.transcriptTurns, droppedTurns: chat.droppedTurns}
    const la = chat.lostAnswer
    out.push(`  agent context ${did ? 'now' : 'after the repair'}: ${contextText(after)} reachable${la ? `, and turn ${la.turn}'s prompt without its final answer` : ''}`)
    const lost = la ? lostAnswerWords(la, chat.transcriptTurns) : lostText(after)
    if (lost) out.push(`  lost: ${lost}`)
  } else if (stateRestore) {
    const n = restoredTurns(chat, stateRestore.from) ?? chat.contextTurns
    const after = {contextTurns: n, transcriptTurns: chat.transcriptTurns}
    out.push(`  agent context ${did ? 'restored' : 'would be restored'}: ${contextText(after)}`)
    const lost = lostText(after)
    if (lost) out.push(`  lost: ${lost}`)
    else if (after.transcriptTurns === null) out.push('  the transcript is not usable, so what the agent may have lost cannot be measured against it (see the transcript findings)')
    else out.push("  nothing lost: the agent's memory covers every transcript turn")
  } else if (chat.status === 'unrecoverable') out.push('  agent context: still lost (no usable generation of it)')
  else out.push(`  agent context unchanged: ${contextText(chat)}`)
  return out
}

/** What the repair did (or would do) with one chat, in lines (a heading naming the chat, then indented lines). */
export function repairLines(chat: ChatReport, c: ChalkInstance, verbose = false, width: number = UNLIMITED): string[] {
  const r = chat.repair
  if (!r) return []
  const texts = adapterByName(chat.format)?.texts
  const primary = chat.generations.find((g) => g.role === 'primary')?.file ?? null
  const restore = chat.actions?.find((a) => a.type === 'restore')
  const lines: string[] = []
  const short = (h: string | null) => (h ? h.slice(0, 12) + '…' : '–')
  switch (r.outcome) {
    case 'repaired':
    case 'planned': {
      const did = r.outcome === 'repaired'
      const only = bookkeepingOnly(chat)
      const heading = only === 'finish' ? (did ? c.green('finished an interrupted repair of') : c.yellow('would finish an interrupted repair of')) : only === 'tidy' ? (did ? c.green('tidied') : c.yellow('would tidy')) : did ? c.green('repaired') : c.yellow('would repair')
      lines.push(chatHeading(heading, chat, width))
      for (const a of chat.actions ?? []) if (a.type === 'restore') lines.push(`  ${a.to === primary ? primaryState(chat) : transcriptState(chat, a.to)}`)
      for (const a of chat.actions ?? []) if (a.type === 'rewrite' && !createsMissing(chat, a)) lines.push(`  ${transcriptState(chat, a.from ?? a.to)}`)
      for (const a of chat.actions ?? []) {
        if (a.type === 'preserve') lines.push(`  ${did ? 'kept' : 'would keep'} ${a.from} as evidence${a.evidence ? ` (${a.evidence})` : ''}`)
        if (a.type === 'restore') {
          lines.push(`  ${did ? 'restored' : 'would restore'} ${a.to} from ${a.from} (sha256 ${short(a.sha256)})`)
          for (const k of a.keysBorrowed ?? []) lines.push(`    ${k.key} ${did ? 'was' : 'would be'} cut off by the tear: taken from ${k.from}`)
        }
        if (a.type === 'restore-mtime') lines.push(`  ${did ? 'put back' : 'would put back'} the ${texts?.folderMtime ?? "folder's mtime"}${only === 'finish' ? ' that the interrupted repair recorded before its first write (its other writes were already done; nothing else changed)' : ''}`)
        if (a.type === 'rewrite' && createsMissing(chat, a)) lines.push(`  ${did ? 'restored' : 'would restore'} ${a.to} (it was missing) from ${a.from !== null && a.from.startsWith(SNAPSHOT_PREFIX) ? `snapshot ${a.from.slice(SNAPSHOT_PREFIX.length)}` : a.from} (sha256 ${short(a.sha256)})`)
        else if (a.type === 'rewrite') {
          lines.push(`  ${did ? 'rewrote' : 'would rewrite'} ${a.to}${a.from !== a.to ? ` from ${a.from}` : ''} (sha256 ${short(a.sha256)}), its mtime kept; ${(a.changes ?? []).length === 0 ? (a.from !== a.to ? `the bytes of ${a.from} exactly` : 'no line changed') : `${a.changes!.length} change${a.changes!.length === 1 ? '' : 's'}, every other line byte-identical:`}`)
          for (const ch of (a.changes ?? []).slice(0, verbose ? Infinity : 20)) lines.push(`    ${changeText(ch, texts?.parentKey)}`)
          if (!verbose && (a.changes ?? []).length > 20) lines.push(`    … ${a.changes!.length - 20} more (--verbose or --json lists them)`)
        }
        if (a.type === 'remove-leftover') lines.push(`  ${did ? 'removed' : 'would remove'} chatdoctor's own leftover ${a.to} of an interrupted run`)
        if (a.type === 'move') lines.push(`  ${did ? 'moved' : 'would move'} ${a.from} out of the tree (${a.why ?? 'damaged'})${a.evidence ? ` to ${a.evidence}` : ' into the evidence folder'}`)
      }
      // A chat with no action of its own comes back through another write, which its message names.
      if ((chat.actions ?? []).length === 0 && r.message) lines.push(`  ${r.message}`)
      else lines.push(...outcomeLines(chat, did))
      if (did && r.evidence && (chat.actions ?? []).length > 0 && !restoredOnly(chat)) lines.push(`  originals kept in ${r.evidence}/`)
      if (did && r.undo) lines.push(`  to undo: ${r.undo}`)
      break
    }
    case 'refused':
    case 'failed':
      lines.push(chatHeading(c.red(r.outcome), chat, width))
      if (r.message) lines.push(`  ${r.message}`)
      if (r.evidence) lines.push(`  evidence kept in ${r.evidence}/${r.undo ? ` (${r.undo})` : ''}`)
      break
    case 'not-attempted':
      lines.push(chatHeading(c.yellow('not repaired'), chat, width))
      if (r.message) lines.push(`  ${r.message}`)
      if (restore) lines.push(`  would restore ${restore.to} from ${restore.from}`)
      break
    case 'not-repairable': {
      lines.push(chatHeading(c.red('not repairable'), chat, width))
      lines.push(`  ${texts?.notRepairable?.(chat) ?? r.message ?? 'no usable generation: nothing written'}`)
      break
    }
    case 'left-untouched': {
      lines.push(chatHeading(c.yellow('left untouched'), chat, width))
      for (const f of chat.findings) if (isUrgent(f, findingKinds()) && f.id !== SALVAGE_MORE_TURNS && f.severity === 'error') lines.push(`  ${f.message}`)
      if (r.message) lines.push(`  ${r.message}`)
      break
    }
    case 'manual':
      lines.push(chatHeading(c.yellow('not repaired'), chat, width))
      if (r.message) lines.push(`  ${r.message}`)
      break
    case 'not-needed':
      return []
  }
  for (const w of r.warnings) lines.push(`  ${c.yellow('warning')} ${w}`)
  // More turns reachable only with borrowed values: said unless this run already restored a salvage.
  const more = chat.findings.find((x) => x.id === SALVAGE_MORE_TURNS)
  const usedSalvage = (chat.actions ?? []).some((a) => a.type === 'restore' && a.from !== null && a.from.startsWith('salvage:') && (a.keysBorrowed ?? []).length > 0)
  if (more && !usedSalvage) lines.push(`  ${c.yellow('note')} ${more.message}:`, ...commandLines(['repair', '--salvage', exactOf(chat).path], width, '    '))
  return lines
}

/** At most this many chats are listed before `repair` asks; the rest are counted. */
export const CONFIRM_LIST_MAX = 10

/** What a plan would do, in a few words ("restore run-state.json from run-state.json.bak"). */
export function actionsInBrief(actions: ReadonlyArray<Pick<ActionReport, 'type' | 'from' | 'to' | 'changes'>>): string {
  const parts: string[] = []
  for (const a of actions) {
    if (a.type === 'restore') parts.push(`restore ${a.to} from ${a.from ?? '?'}`)
    if (a.type === 'rewrite') parts.push(`rewrite ${a.to} (${(a.changes ?? []).length} line change${(a.changes ?? []).length === 1 ? '' : 's'})`)
  }
  const moves = actions.filter((a) => a.type === 'move').length
  if (moves > 0) parts.push(`move ${moves} damaged file${moves === 1 ? '' : 's'} out of the tree`)
  return parts.join(', ')
}

/**
 * The lines `repair` prints before it asks: the chats it would write (at most `CONFIRM_LIST_MAX`, then a
 * count), each with what it would do, within `width`.
 */
export function confirmationLines(todo: ReadonlyArray<{chat: Pick<ChatReport, 'path' | 'id'>; actions: ReadonlyArray<Pick<ActionReport, 'type' | 'from' | 'to' | 'changes'>>}>, width: number = UNLIMITED): string[] {
  const out = [`chatdoctor would repair ${todo.length} chat${todo.length === 1 ? '' : 's'}:`]
  for (const t of todo.slice(0, CONFIRM_LIST_MAX)) {
    out.push(chatHeading(' ', t.chat, width))
    const what = actionsInBrief(t.actions)
    if (what) out.push(...wrapLine(`    ${what}`, width))
  }
  if (todo.length > CONFIRM_LIST_MAX) out.push(...wrapLine(`  … and ${todo.length - CONFIRM_LIST_MAX} more (chatdoctor repair --dry-run lists them all)`, width))
  return out
}

/**
 * The question `repair` asks on a terminal: the chats it writes, and how many more come back with them without
 * a write of their own (a session that returns when its index is repaired), which the summary counts too.
 */
export function confirmationQuestion(writes: number, through: number): string {
  const more = through === 0 ? '' : `${through} more ${through === 1 ? 'comes back with its index' : 'come back with their indexes'}; `
  return `Repair these ${writes} chats (${more}originals kept as evidence, undo possible)? [y/N] `
}

/** The summary line of a repair run. */
export function repairSummaryLine(report: Report): string {
  const count = (o: string) => report.chats.filter((ch) => ch.repair?.outcome === o).length
  const parts: string[] = []
  const n = report.chats.length
  parts.push(`${n} chat${n === 1 ? '' : 's'}`)
  // A chat whose only actions finish an interrupted repair or remove leftovers is not a repaired chat: said apart.
  const done = report.dryRun ? 'planned' : 'repaired'
  const by = (k: ReturnType<typeof bookkeepingOnly>) => report.chats.filter((ch) => ch.repair?.outcome === done && bookkeepingOnly(ch) === k).length
  const [finished, tidied] = [by('finish'), by('tidy')]
  parts.push(`${by(null)} ${report.dryRun ? 'would be repaired' : 'repaired'}`)
  if (finished > 0) parts.push(report.dryRun ? `${finished} interrupted repair${finished === 1 ? '' : 's'} would be finished (the folder time put back)` : `${finished} interrupted repair${finished === 1 ? '' : 's'} finished (the folder time put back)`)
  if (tidied > 0) parts.push(report.dryRun ? `${tidied} would be tidied (chatdoctor's own leftovers removed)` : `${tidied} tidied (chatdoctor's own leftovers removed)`)
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
  const width = opts.width ?? UNLIMITED
  const wrap = (line: string) => wrapLine(line, width)
  for (const chat of report.chats) {
    const lines = repairLines(chat, c, opts.verbose, width).flatMap(wrap)
    if (lines.length === 0) continue
    if (opts.quiet && chat.repair?.outcome === 'repaired') continue
    if (out.length > 0) out.push('')
    out.push(...lines)
  }
  if (opts.verbose) out.push(...renderFindings(report.chats, {chalk: c, verbose: true, quiet: opts.quiet, width}))
  // What must be done before an agent's next start, for chats this run did not repair (a chat left untouched
  // says it in its own lines), even without --verbose.
  else {
    const kinds = findingKinds()
    const urgent = report.chats.filter((ch) => ch.repair?.outcome !== 'repaired' && ch.repair?.outcome !== 'left-untouched').map((ch) => ({...ch, findings: ch.findings.filter((f) => isUrgent(f, kinds))})).filter((ch) => ch.findings.length > 0)
    if (urgent.length > 0) out.push(...renderFindings(urgent, {chalk: c, verbose: false, quiet: false, width}))
  }
  if (opts.verbose) for (const s of report.skipped) out.push(...wrap(c.dim(`skipped ${s.path}: ${s.reason}`)))
  for (const e of report.errors) err.push(...wrap(`${c.red('error')} ${e.path}: ${e.message}`))
  if (!opts.quiet) {
    if (report.chats.length === 0 && report.errors.length === 0) out.push('No chats found.', ...renderRoots(report, {chalk: c, verbose: false, quiet: false, width}))
    else if (out.length === 0) out.push('Nothing to repair.')
    if (out.length > 0) out.push('')
    const tail = [repairSummaryLine(report)]
    const also = unsupportedLine(report.skipped)
    if (also) tail.unshift(also)
    if (report.repairId) tail.push(`To undo this repair: chatdoctor undo ${report.repairId}`)
    if (report.dryRun && report.chats.some((ch) => ch.repair?.outcome === 'planned')) tail.push('Run without --dry-run to repair.')
    if (report.interrupted) tail.push('Stopped (Ctrl-C or a termination signal) between chats: every chat above is either fully repaired or untouched.')
    out.push(...tail.flatMap(wrap))
  }
  return {stdout: out.join('\n'), stderr: err.join('\n')}
}
