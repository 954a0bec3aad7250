/**
 * GitHub Actions output: `::error` / `::warning` / `::notice` workflow commands, and a Markdown job summary.
 * Pure. GitHub shows at most 10 annotations of each type per step (prior-art.md §5.2; extra ones are dropped
 * silently), so at most 10 of each are printed, errors first, then one plain line says how many more there
 * are. The summary (for `$GITHUB_STEP_SUMMARY`, about 1 MiB per step) has the full table and every finding.
 */
import type {Severity} from '../model/report.js'
import {turnsText} from './table.js'
import {ciItems, displayPath, type CiInput} from './ci.js'

/** Annotations GitHub shows per type and step. */
export const GITHUB_ANNOTATIONS_PER_TYPE = 10
/** GitHub's job-summary cap per step, bytes. */
export const GITHUB_SUMMARY_MAX_BYTES = 1024 * 1024

const COMMAND: Record<Severity, 'error' | 'warning' | 'notice'> = {error: 'error', warning: 'warning', info: 'notice'}

/** Escapes a workflow command's message (actions/toolkit `escapeData`). */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

/** Escapes a workflow command property value (actions/toolkit `escapeProperty`). */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C')
}

/** The workflow-command lines (annotations, then the "N more" line when some were left out). */
export function renderGithubAnnotations(input: CiInput): string[] {
  const items = ciItems(input)
  const lines: string[] = []
  const more: Record<Severity, number> = {error: 0, warning: 0, info: 0}
  const shown: Record<Severity, number> = {error: 0, warning: 0, info: 0}
  for (const sev of ['error', 'warning', 'info'] as const) {
    for (const it of items.filter((x) => x.severity === sev)) {
      if (shown[sev] >= GITHUB_ANNOTATIONS_PER_TYPE) {
        more[sev]++
        continue
      }
      shown[sev]++
      const props = [`file=${escapeProperty(it.file)}`]
      if (it.line !== undefined) props.push(`line=${it.line}`, `col=${it.column}`)
      props.push(`title=${escapeProperty(`chatdoctor ${it.ruleId}`)}`)
      lines.push(`::${COMMAND[sev]} ${props.join(',')}::${escapeData(it.message)}`)
    }
  }
  const parts: string[] = []
  if (more.error) parts.push(`${more.error} more error${more.error === 1 ? '' : 's'}`)
  if (more.warning) parts.push(`${more.warning} more warning${more.warning === 1 ? '' : 's'}`)
  if (more.info) parts.push(`${more.info} more notice${more.info === 1 ? '' : 's'}`)
  if (parts.length > 0) lines.push(`chatdoctor: ${parts.join(', ')} not shown as annotations (GitHub shows ${GITHUB_ANNOTATIONS_PER_TYPE} per type); see the job summary or run with --format json.`)
  return lines
}

const md = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ')

/** The Markdown job summary: a table of every chat, then every finding and error. Capped at ~1 MiB. */
export function renderGithubSummary(input: CiInput): string {
  const out: string[] = ['## chatdoctor check', '']
  const s = input.report.summary
  out.push(`${s.chats} chat${s.chats === 1 ? '' : 's'}: ${s.healthy} healthy, ${s.repairable} repairable, ${s.unrecoverable} unrecoverable; ${input.errors.length} error${input.errors.length === 1 ? '' : 's'}; exit ${input.report.exitCode}`, '')
  out.push('| chat | bundle | status | winner | turns N/M | worst finding |', '|---|---|---|---|---|---|')
  for (const c of [...input.chats].sort((a, b) => (a.report.path < b.report.path ? -1 : a.report.path > b.report.path ? 1 : 0))) {
    const worst = c.report.findings.find((f) => f.severity === 'error') ?? c.report.findings.find((f) => f.severity === 'warning') ?? c.report.findings[0]
    out.push(`| ${md(c.report.id)} | ${md(c.bundle ? displayPath(c.bundle, input.cwd) : displayPath(c.suite, input.cwd))} | ${c.report.status} | ${md(c.report.winner ?? 'none')} | ${turnsText(c.report)} | ${worst ? `${worst.severity} \`${worst.id}\`` : ''} |`)
  }
  const items = ciItems(input)
  if (items.length > 0) {
    out.push('', '### Findings', '', '| severity | id | file | message |', '|---|---|---|---|')
    for (const it of items) out.push(`| ${it.severity} | \`${it.ruleId}\` | ${md(it.file)} | ${md(it.message)} |`)
  }
  let text = out.join('\n') + '\n'
  if (Buffer.byteLength(text) > GITHUB_SUMMARY_MAX_BYTES) {
    const note = '\n… cut to stay within the job summary limit; run chatdoctor check --format json for everything.\n'
    let cut = GITHUB_SUMMARY_MAX_BYTES - Buffer.byteLength(note) - 4096
    text = Buffer.from(text).subarray(0, cut).toString('utf8')
    cut = text.lastIndexOf('\n')
    text = text.slice(0, cut + 1) + note
  }
  return text
}
