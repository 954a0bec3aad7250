/**
 * Human rendering of a report: one table row per chat (chat, status, primary class, winner, turns N/M),
 * findings under each chat with `verbose` (without it, only the urgent ones: what the agent's own next start
 * would destroy), a summary line. Never prints message or file content: counts,
 * sizes, ids, times and hashes only (reports get pasted into bug trackers).
 */
import type CliTable3 from 'cli-table3'
import {createRequire} from 'node:module'
import type {ChalkInstance} from 'chalk'
import type {ChatReport, ChatStatus, Report, Severity} from '../model/report.js'
import {isUrgent} from '../model/findings.js'
import {adapterByName, findingKinds} from '../formats/index.js'
import {salvageCommand} from '../fsio/paths.js'

// cli-table3 is CommonJS: `require` skips the export-name scan an ESM import of it costs at start-up.
const Table = createRequire(import.meta.url)('cli-table3') as typeof CliTable3

export interface TableOptions {
  chalk: ChalkInstance
  verbose: boolean
  /** Only chats that are not healthy; no summary line. */
  quiet: boolean
}

function statusText(status: ChatStatus, c: ChalkInstance): string {
  switch (status) {
    case 'healthy':
      return c.green(status)
    case 'repairable':
      return c.yellow(status)
    case 'unrecoverable':
      return c.red(status)
    case 'degraded':
      return c.magenta(status)
  }
}

function severityText(s: Severity, c: ChalkInstance): string {
  return s === 'error' ? c.red(s) : s === 'warning' ? c.yellow(s) : c.dim(s)
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

/** Renders the chats table (empty string when there is nothing to show). */
export function renderChatTable(chats: ChatReport[], opts: TableOptions): string {
  const c = opts.chalk
  const shown = opts.quiet ? chats.filter((x) => x.status !== 'healthy') : chats
  if (shown.length === 0) return ''
  const table = new Table({
    head: ['chat', 'status', 'primary', 'winner', 'turns N/M'],
    style: {head: c.level > 0 ? ['bold'] : [], border: c.level > 0 ? ['grey'] : []},
    wordWrap: true,
  })
  for (const chat of shown) {
    // The file the agent loads: the primary, or an export file's own class.
    const primary = chat.generations.find((g) => g.role === 'primary') ?? chat.generations.find((g) => g.role === 'export')
    table.push([chat.path, statusText(chat.status, c), primary?.class ?? '–', chat.winner ?? c.red('none'), turnsText(chat)])
  }
  return table.toString()
}

/** Findings grouped under each chat: a heading line with the chat's path, then one line per finding. */
export function renderFindings(chats: ChatReport[], opts: TableOptions): string[] {
  const c = opts.chalk
  const lines: string[] = []
  for (const chat of chats) {
    if (chat.findings.length === 0 || (opts.quiet && chat.status === 'healthy')) continue
    lines.push('', c.bold(chat.path))
    for (const f of chat.findings) lines.push(`  ${severityText(f.severity, c)} ${f.id}${f.file ? ` ${c.dim(f.file)}` : ''}: ${f.message}`)
  }
  return lines
}

/** The exact `repair --salvage` command, for a chat whose adapter's `texts.salvageHint` finding it holds. */
function salvageLine(chat: ChatReport): string | null {
  const hint = adapterByName(chat.format)?.texts?.salvageHint
  return hint && chat.findings.some((f) => f.id === hint) ? `to use the salvage of ${chat.path}: ${salvageCommand(chat.path)}` : null
}

/** Renders the whole human report: table, urgent findings (all findings with verbose), skipped dirs (verbose), errors, summary. */
export function renderHuman(report: Report, opts: TableOptions): {stdout: string; stderr: string} {
  const out: string[] = []
  const err: string[] = []
  const table = renderChatTable(report.chats, opts)
  if (table) out.push(table)
  if (opts.verbose) out.push(...renderFindings(report.chats, opts))
  else {
    // Without --verbose, the urgent findings still show (what the agent's next start would destroy, lost context).
    const kinds = findingKinds()
    const urgent = report.chats.map((chat) => ({...chat, findings: chat.findings.filter((f) => isUrgent(f, kinds))})).filter((chat) => chat.findings.length > 0)
    out.push(...renderFindings(urgent, {...opts, quiet: false}))
  }
  for (const chat of report.chats) {
    const line = opts.quiet && chat.status === 'healthy' ? null : salvageLine(chat)
    if (line) out.push(line)
  }
  if (opts.verbose) for (const s of report.skipped) out.push(opts.chalk.dim(`skipped ${s.path}: ${s.reason}`))
  for (const e of report.errors) err.push(`${opts.chalk.red('error')} ${e.path}: ${e.message}`)
  if (!opts.quiet) {
    if (report.chats.length === 0 && report.errors.length === 0) out.push('No chats found.')
    const also = unsupportedLine(report.skipped)
    if (also) out.push(also)
    out.push(summaryLine(report))
  }
  return {stdout: out.join('\n'), stderr: err.join('\n')}
}
