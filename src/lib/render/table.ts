/**
 * Human rendering of a report: one table row per chat (chat, status, primary class, winner, turns N/M) under
 * a row naming its folder, findings under each chat with `verbose` (without it, only the urgent ones: what the
 * agent's own next start would destroy), a summary line, and after a scan the next commands to run. Fits
 * `width` (see `fit-table.ts`). Never prints message or file content: counts, sizes, ids, times and hashes
 * only (reports get pasted into bug trackers). Control characters in names are shown escaped.
 */
import type {ChalkInstance} from 'chalk'
import type {ChatReport, ChatStatus, Generation, Report, Severity} from '../model/report.js'
import {isUrgent} from '../model/findings.js'
import {adapterByName, findingKinds} from '../formats/registry.js'
import {fitTable, type FitGroup, type FitRow} from './fit-table.js'
import {NEXT_STEP_FINDINGS, nextSteps, renderNextSteps, type NextContext} from './next-steps.js'
import {UNLIMITED, shortenMiddle, wrapLine} from './width.js'

export interface TableOptions {
  chalk: ChalkInstance
  verbose: boolean
  /** Only chats that are not healthy; no summary line. */
  quiet: boolean
  /** Columns the output must fit (`outputWidth`); unlimited when absent. */
  width?: number
  /** After a scan: what the next commands are made of; none are printed when absent. */
  next?: NextContext
}

/** `text` (default: the status itself) in the status's colour. */
export function statusText(status: ChatStatus, c: ChalkInstance, text: string = status): string {
  switch (status) {
    case 'healthy':
      return c.green(text)
    case 'repairable':
      return c.yellow(text)
    case 'unrecoverable':
      return c.red(text)
    case 'degraded':
      return c.magenta(text)
  }
}

function severityText(s: Severity, c: ChalkInstance): string {
  return s === 'error' ? c.red(s) : s === 'warning' ? c.yellow(s) : c.dim(s)
}

/** A generation's class in words: `ends look whole` for `intact` judged from the ends of the file only (`--quick`). */
export function classText(g: Pick<Generation, 'class' | 'verified'>): string {
  if (g.class === 'intact' && g.verified === false) return 'ends look whole'
  return g.class ?? '–'
}

/** "N/M", "N/–" when the transcript is unusable, "–" when no context survives. */
export function turnsText(chat: Pick<ChatReport, 'contextTurns' | 'transcriptTurns'>): string {
  if (chat.contextTurns === null) return `–/${chat.transcriptTurns ?? '–'}`
  return `${chat.contextTurns}/${chat.transcriptTurns ?? '–'}`
}

/** The one-line summary: counts per status, skipped and errors. */
export function summaryLine(report: Report): string {
  const s = report.summary
  const parts = [`${s.chats} chat${s.chats === 1 ? '' : 's'}: ${s.healthy} healthy, ${s.repairable} repairable, ${s.unrecoverable} unrecoverable${s.degraded > 0 ? `, ${s.degraded} degraded` : ''}`]
  const unverified = report.chats.filter((ch) => ch.verified === false).length
  if (unverified > 0) parts.push(`${unverified} unverified (judged by the ends of a file only)`)
  if (s.skipped > 0) parts.push(`${s.skipped} skipped`)
  if (report.errors.length > 0) parts.push(`${report.errors.length} error${report.errors.length === 1 ? '' : 's'}`)
  return parts.join('; ') + ` (exit ${report.exitCode})`
}

/** A noun phrase in the plural ("store" → "stores", "chat history" → "chat histories"). */
function pluralOf(what: string): string {
  if (what.endsWith('s')) return what
  if (/[^aeiou]y$/.test(what)) return `${what.slice(0, -1)}ies`
  const of = what.indexOf(' of ')
  if (of > 0) return `${pluralOf(what.slice(0, of))}${what.slice(of)}`
  return `${what}s`
}

/**
 * The one line that names what a scan found of agents chatdoctor does not diagnose yet ("also found: 1 Gemini CLI
 * store (not supported yet)"), or null when it found none.
 */
export function unsupportedLine(skipped: ReadonlyArray<{agent?: string; what?: string}>): string | null {
  const counts = new Map<string, {agent: string; what: string; n: number}>()
  for (const s of skipped) {
    if (s.agent === undefined || s.what === undefined) continue
    const key = `${s.agent}\u0000${s.what}`
    const c = counts.get(key) ?? {agent: s.agent, what: s.what, n: 0}
    c.n++
    counts.set(key, c)
  }
  if (counts.size === 0) return null
  return `also found: ${[...counts.values()].map((c) => `${c.n} ${c.agent} ${c.n === 1 ? c.what : pluralOf(c.what)}`).join(', ')} (not supported yet)`
}

/** A chat's path split into its folder (ending in `/`) and its own name. */
export function splitChatPath(p: string): {folder: string; name: string} {
  const cut = p.lastIndexOf('/')
  return {folder: p.slice(0, cut + 1), name: p.slice(cut + 1)}
}

/**
 * The winner as the table shows it: `none`, `itself` when the chat is one file and that file wins (its name
 * is already in the chat column), else the generation's name.
 */
export function winnerText(chat: Pick<ChatReport, 'path' | 'winner'>): string | null {
  if (chat.winner === null) return null
  if (chat.path.endsWith(`/${chat.winner}`)) return 'itself'
  return chat.winner
}

/**
 * What the human report reads of one chat (`renderHuman` and its next steps), for a scan that hands its chats on
 * one at a time: the chat's own fields, the generation its row shows (the primary, or an export file) and the
 * findings it prints or makes a next step of (every one with `verbose`; else the urgent ones and those of
 * `NEXT_STEP_FINDINGS`). `renderHuman` gives the same text for these as for the whole reports, at a small part
 * of their memory (no other generation, measure, ranking or action is kept).
 */
export function tableChat(chat: ChatReport, verbose: boolean): ChatReport {
  const kinds = findingKinds()
  const shown = chat.generations.find((g) => g.role === 'primary') ?? chat.generations.find((g) => g.role === 'export')
  const row: ChatReport = {
    path: chat.path,
    format: chat.format,
    id: chat.id,
    status: chat.status,
    winner: chat.winner,
    transcriptTurns: chat.transcriptTurns,
    contextTurns: chat.contextTurns,
    findings: verbose ? chat.findings : chat.findings.filter((f) => isUrgent(f, kinds) || NEXT_STEP_FINDINGS.has(f.id)),
    generations: shown ? [{file: shown.file, role: shown.role, class: shown.class, reasons: [], bytes: shown.bytes, mtimeMs: null, sha256: null, turns: null, ...(shown.verified === undefined ? {} : {verified: shown.verified})}] : [],
    ranking: [],
  }
  if (chat.verified !== undefined) row.verified = chat.verified
  return row
}

/** Renders the chats table (empty string when there is nothing to show). */
export function renderChatTable(chats: ChatReport[], opts: TableOptions): string {
  const c = opts.chalk
  const shown = opts.quiet ? chats.filter((x) => x.status !== 'healthy') : chats
  if (shown.length === 0) return ''
  const items: Array<FitRow | FitGroup> = []
  let folder: string | null = null
  // Each folder's chats together (report order sorts `a.jsonl` before `a/sub/b.jsonl` before `a2.jsonl`).
  const rows = shown.map((chat) => ({chat, split: splitChatPath(chat.path)})).sort((a, b) => (a.split.folder < b.split.folder ? -1 : a.split.folder > b.split.folder ? 1 : 0))
  for (const {chat, split} of rows) {
    if (split.folder !== folder) items.push({group: split.folder})
    folder = split.folder
    // The file the agent loads: the primary, or an export file's own class.
    const primary = chat.generations.find((g) => g.role === 'primary') ?? chat.generations.find((g) => g.role === 'export')
    const winner = winnerText(chat)
    // A chat judged by the ends of a file only (`--quick`) says so in its status.
    const unverified = chat.verified === false
    items.push({
      cells: [
        {text: split.name, keep: chat.id},
        {text: unverified ? `${chat.status}, unverified` : chat.status, style: (t) => (unverified ? c.yellow(t) : statusText(chat.status, c, t))},
        primary ? classText(primary) : '–',
        winner === null ? {text: 'none', style: c.red} : winner,
        turnsText(chat),
      ],
    })
  }
  return fitTable(
    [{header: 'chat', fit: 'shorten', min: 16}, {header: 'status'}, {header: 'primary'}, {header: 'winner', fit: 'shorten', min: 14, detail: 'winner'}, {header: 'turns N/M'}],
    items,
    // Narrower: the winner is shortened (its whole name under the row), then long chat names around their id,
    // then the primary's class is left out (findings and inspect tell it), then chat names shortened further.
    {width: opts.width ?? UNLIMITED, chalk: c, attempts: [{shrink: [3]}, {shrink: [3, 0], min: {0: 24}}, {hide: [2], shrink: [3]}, {hide: [2], shrink: [3, 0], min: {0: 24}}, {hide: [2], shrink: [3, 0]}]},
  )
}

/** Findings grouped under each chat: a heading line with the chat's path, then one line per finding. */
export function renderFindings(chats: ChatReport[], opts: TableOptions): string[] {
  const c = opts.chalk
  const width = opts.width ?? UNLIMITED
  const lines: string[] = []
  for (const chat of chats) {
    if (chat.findings.length === 0 || (opts.quiet && chat.status === 'healthy')) continue
    lines.push('', c.bold(shortenMiddle(chat.path, width, chat.id)))
    for (const f of chat.findings) lines.push(...wrapLine(`  ${severityText(f.severity, c)} ${f.id}${f.file ? ` ${c.dim(f.file)}` : ''}: ${f.message}`, width, '      '))
  }
  return lines
}

/** The stderr note of `scan --quick`: what was read, what that cannot see, and the exit rule for unverified chats. */
export function renderQuickNote(quick: NonNullable<Report['quick']>, width: number = UNLIMITED): string[] {
  const lines = [`quick mode: files over ${(quick.headBytes + quick.tailBytes) / 1024} KiB were read only at their ends (first ${quick.headBytes / 1024} KiB, last ${quick.tailBytes / 1024} KiB); not detected: ${quick.notDetected}.`]
  const n = quick.unverified
  if (n > 0) lines.push(`quick mode: ${n} chat${n === 1 ? "'s status rests" : "s' statuses rest"} on a file read only at its ends (they look whole): ${quick.trustEnds ? 'accepted (--trust-ends)' : 'exit bit 8; a full scan verifies them, --trust-ends accepts ends that look whole'}.`)
  return lines.flatMap((l) => wrapLine(l, width))
}

/** At most this many of one agent's default folders are named when none of them is there; the rest are counted. */
export const ROOTS_NAMED = 3

/**
 * Where an empty search looked: each PATH; or, with none, the agents' default folders that are there (and
 * held no chat), then per agent the ones that are not (a few named, the rest counted).
 */
export function renderRoots(report: Report, opts: TableOptions): string[] {
  const roots = report.roots ?? []
  if (roots.length === 0) return []
  const width = opts.width ?? UNLIMITED
  const wrap = (l: string) => wrapLine(l, width, '      ')
  if (roots.every((r) => r.format === null)) return ['Searched:', ...roots.flatMap((r) => wrap(`  ${r.path}: ${r.present ? 'no chat in it' : 'not there'}`))]
  const out: string[] = []
  const present = roots.filter((r) => r.present)
  if (present.length > 0) out.push("Searched the agents' default folders that are there (no chat in them):", ...present.flatMap((r) => wrap(`  ${r.path} (${adapterByName(r.format ?? '')?.displayName ?? r.format})`)))
  const absent = new Map<string, string[]>()
  for (const r of roots) if (!r.present) absent.set(r.format ?? '', [...(absent.get(r.format ?? '') ?? []), r.path])
  if (absent.size > 0) out.push(present.length > 0 ? 'Not there:' : "None of the agents' default folders is there:")
  for (const [format, paths] of absent) {
    const named = paths.length <= ROOTS_NAMED + 1 ? paths : [...paths.slice(0, ROOTS_NAMED), `and ${paths.length - ROOTS_NAMED} more`]
    out.push(...wrap(`  ${adapterByName(format)?.displayName ?? format}: ${named.join(', ')}`))
  }
  out.push(...wrapLine('Give the folder your agent keeps its chats in as PATH (chatdoctor scan PATH).', width))
  return out
}

/** Renders the whole human report: table, skipped dirs (verbose, or when nothing was found), errors, summary, next steps. */
export function renderHuman(report: Report, opts: TableOptions): {stdout: string; stderr: string} {
  const c = opts.chalk
  const width = opts.width ?? UNLIMITED
  const wrap = (line: string) => wrapLine(line, width)
  const out: string[] = []
  const err: string[] = []
  const empty = report.chats.length === 0 && report.errors.length === 0
  const table = renderChatTable(report.chats, opts)
  if (table) out.push(table)
  if (opts.verbose) out.push(...renderFindings(report.chats, opts))
  else {
    // Without --verbose, the urgent findings still show (what the agent's next start would destroy, lost context).
    const kinds = findingKinds()
    const urgent = report.chats.map((chat) => ({...chat, findings: chat.findings.filter((f) => isUrgent(f, kinds))})).filter((chat) => chat.findings.length > 0)
    out.push(...renderFindings(urgent, {...opts, quiet: false}))
  }
  if (opts.verbose || (empty && !opts.quiet)) for (const s of report.skipped) out.push(...wrap(c.dim(`skipped ${s.path}: ${s.reason}`)))
  for (const e of report.errors) err.push(...wrap(`${c.red('error')} ${e.path}: ${e.message}`))
  if (!opts.quiet) {
    if (empty) out.push('No chats found.', ...renderRoots(report, opts))
    const also = unsupportedLine(report.skipped)
    if (also) out.push(...wrap(also))
    out.push(...wrap(summaryLine(report)))
    if (opts.next) out.push(...renderNextSteps(nextSteps(report, opts.next), width))
  }
  return {stdout: out.join('\n'), stderr: err.join('\n')}
}
