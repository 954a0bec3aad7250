/**
 * The HTML report of `inspect --html` and `check --format html`: one self-contained page per run. Inline CSS
 * and inline SVG only: no script, no font, no image or style sheet to fetch, and a Content-Security-Policy that
 * forbids them anyway, so the page reads the same offline and nothing in it can run. Every name, id and
 * message is escaped (control characters shown as `\uNNNN`), so a file name or finding cannot inject markup.
 *
 * Per chat: what most likely happened; the timeline (each generation of the agent context at its written
 * time against the transcript turns it covers, the winner marked); a byte map of each damaged file (the
 * intact bytes, the tear, NUL runs, foreign bytes, what a salvage keeps); what a repair would do and what
 * would be lost; findings and ranking. Counts, sizes, offsets, ids, times and hashes only: never message text.
 */
import type {Inspection, TearLocation, TimelineEntry} from '../model/inspect.js'
import {CONTEXT_ROLES} from '../model/enums.js'
import type {ChatReport, Summary} from '../model/report.js'
import {isoTime} from '../model/time-text.js'
import {escapeControls} from '../fsio/paths.js'
import type {HtmlChat} from '../pipeline/html-report.js'
import {outcomeLines, repairLines} from './repair.js'
import {makeChalk} from './style.js'
import {shortenMiddle} from './width.js'

export interface HtmlReportInput {
  /** The command that made the report, as a user would type it (`chatdoctor inspect ~/…`). */
  command: string
  version: string
  chats: HtmlChat[]
  /** Counts per status, when the report covers a whole run (`check`). */
  summary?: Summary
  /** Paths that could not be read or were refused (`check`). */
  errors?: ReadonlyArray<{path: string; message: string}>
}

/** Colours of the page; the timeline's winner ring and the byte map's regions are tested by their pixels. */
export const HTML_COLORS = {
  intact: '#2e7d32',
  damaged: '#c62828',
  nul: '#212121',
  foreign: '#ef6c00',
  salvage: '#1565c0',
  winner: '#d4a017',
  transcript: '#6a1b9a',
  grid: '#d0d0d0',
} as const

/** Reasons whose damaged bytes do not belong to the document (extra or alien bytes rather than missing ones). */
const FOREIGN: ReadonlySet<string> = new Set(['trailing-garbage', 'concatenated', 'bom', 'invalid-utf8', 'torn-utf8', 'interleaved-line', 'lone-surrogate'])

/** At most this many byte maps per chat (the JSON lists every damaged file). */
export const MAX_BYTE_MAPS = 40

/**
 * Text for HTML: control characters (C0, DEL, C1) as `\uNNNN`, the one escaping every human output uses
 * (`escapeControls`), then markup characters as entities.
 */
export function escapeHtml(s: string): string {
  return escapeControls(s).replace(/[&<>"']/g, (ch) => HTML_ENTITIES[ch]!)
}

const HTML_ENTITIES: Readonly<Record<string, string>> = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}

const e = escapeHtml
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
const fmt = (x: number) => (Math.round(x * 10) / 10).toString()

const CSS = `
:root { color-scheme: light; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 0; background: #fafafa; color: #1b1b1b; }
main { max-width: 1000px; margin: 0 auto; padding: 24px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 0 0 6px; word-break: break-all; }
h3 { font-size: 15px; margin: 20px 0 6px; }
section.chat { background: #fff; border: 1px solid #ddd; border-radius: 8px; padding: 16px 20px; margin: 20px 0; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; word-break: break-all; }
.muted { color: #666; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; color: #fff; font-size: 13px; font-weight: 600; }
.healthy { background: ${HTML_COLORS.intact}; } .repairable { background: #b26a00; } .unrecoverable { background: ${HTML_COLORS.damaged}; } .degraded { background: #8e24aa; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eee; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
svg { display: block; width: 100%; height: auto; background: #fff; }
.legend span { display: inline-block; margin-right: 14px; font-size: 13px; }
.legend i { display: inline-block; width: 12px; height: 12px; vertical-align: -1px; margin-right: 4px; border-radius: 2px; }
ul.lines { margin: 4px 0; padding-left: 20px; } ul.lines li { margin: 2px 0; }
nav ol { padding-left: 20px; }
`

/** A legend swatch. */
function swatch(color: string, label: string, ring = false): string {
  const style = ring ? `border: 3px solid ${color}; background: #fff; width: 8px; height: 8px; border-radius: 50%` : `background: ${color}`
  return `<span><i style="${style}"></i>${e(label)}</span>`
}

/** Whether a timeline entry is a generation of the agent context (a point of the timeline). */
function isContext(t: TimelineEntry): boolean {
  return CONTEXT_ROLES.includes(t.role) && t.mtimeMs !== null && t.class !== 'missing'
}

/** The timeline: each context generation at its written time (x) against the turns it covers (y). */
export function timelineSvg(x: Inspection, index: number): string {
  const W = 760
  const H = 296
  const L = 72
  const R = 24
  const T = 36
  const B = 48
  const points = x.timeline.filter(isContext)
  if (points.length === 0) return `<p class="muted">No generation of the agent context to place on a timeline.</p>`
  const salvageOf = new Map(x.salvage.map((s) => [s.file, s]))
  const maxY = Math.max(1, x.transcriptTurns ?? 0, ...points.map((p) => p.turns ?? 0), ...x.salvage.map((s) => s.turns ?? 0))
  // Each distinct written time gets a slot, in order, evenly spaced: one copy written months after the others
  // must not squash them into one spot. Copies all written within a second of each other (e.g. restored by a
  // copy that kept no times) are spread in timeline order instead.
  const slots = [...new Set(points.map((p) => Math.round(p.mtimeMs!)))].sort((a, b) => a - b)
  const t0 = slots[0]
  const t1 = slots.at(-1)!
  const ordinal = t1 - t0 < 1000
  const plot = W - L - R
  const px = (p: TimelineEntry, i: number) => {
    const n = ordinal ? points.length : slots.length
    const k = ordinal ? i : slots.indexOf(Math.round(p.mtimeMs!))
    return L + (n === 1 ? plot / 2 : (k / (n - 1)) * plot)
  }
  const py = (turns: number) => T + (1 - turns / maxY) * (H - T - B)
  const out: string[] = []
  out.push(`<svg id="timeline-${index}" class="timeline" viewBox="0 0 ${W} ${H}" role="img" aria-label="${e(`Timeline of ${x.id}: ${points.length} generations, winner ${x.winner ?? 'none'}`)}">`)
  // Axes and grid.
  out.push(`<line x1="${L}" y1="${py(0)}" x2="${W - R}" y2="${py(0)}" stroke="#888"/><line x1="${L}" y1="${T}" x2="${L}" y2="${py(0)}" stroke="#888"/>`)
  const ticks = [...new Set([0, Math.round(maxY / 2), maxY])]
  for (const k of ticks) out.push(`<line x1="${L}" y1="${fmt(py(k))}" x2="${W - R}" y2="${fmt(py(k))}" stroke="${HTML_COLORS.grid}" stroke-dasharray="2 4"/><text x="${L - 6}" y="${fmt(py(k) + 4)}" text-anchor="end" font-size="11">${k}</text>`)
  out.push(`<text x="12" y="${fmt((T + py(0)) / 2)}" font-size="11" transform="rotate(-90 12 ${fmt((T + py(0)) / 2)})" text-anchor="middle">turns covered</text>`)
  const axis = ordinal ? `generations in timeline order (all written within a second of ${isoTime(t0)})` : 'written time, oldest first (each time a step, not to scale)'
  out.push(`<text x="${(L + W - R) / 2}" y="${H - 8}" font-size="11" text-anchor="middle">${e(axis)}</text>`)
  if (!ordinal) {
    // A label under each time step (the day once when all are on one day), at most 8 (6 with days).
    const oneDay = new Set(slots.map((t) => isoTime(t).slice(0, 10))).size === 1
    const every = Math.max(1, Math.ceil(slots.length / (oneDay ? 8 : 6)))
    slots.forEach((t, k) => {
      if (k % every !== 0 && k !== slots.length - 1) return
      const x0 = fmt(L + (slots.length === 1 ? plot / 2 : (k / (slots.length - 1)) * plot))
      const label = oneDay ? isoTime(t).slice(11, 23) : isoTime(t).slice(0, 19).replace('T', ' ')
      out.push(`<line x1="${x0}" y1="${fmt(py(0))}" x2="${x0}" y2="${fmt(py(0) + 4)}" stroke="#888"/><text x="${x0}" y="${fmt(py(0) + 16)}" font-size="10" text-anchor="${k === 0 ? 'start' : k === slots.length - 1 ? 'end' : 'middle'}">${e(label)}</text>`)
    })
    if (oneDay) out.push(`<text x="${L}" y="${H - 8}" font-size="10">${e(isoTime(t0).slice(0, 10))} (UTC)</text>`)
  }
  if (x.transcriptTurns !== null) {
    const y = fmt(py(x.transcriptTurns))
    out.push(`<line x1="${L}" y1="${y}" x2="${W - R}" y2="${y}" stroke="${HTML_COLORS.transcript}" stroke-width="1.5" stroke-dasharray="6 4"/><text x="${L - 6}" y="${fmt(py(x.transcriptTurns) + 16)}" font-size="10" text-anchor="end" fill="${HTML_COLORS.transcript}">transcript</text>`)
  }
  points.forEach((p, i) => {
    const cx = fmt(px(p, i))
    const usable = p.turns !== null
    const cy = fmt(py(p.turns ?? 0))
    const label = shortenMiddle(p.file, 30)
    const tip = `${p.file}: ${p.role}, ${p.class ?? 'not classified'}${p.reasons.length ? ` (${p.reasons.join(', ')})` : ''}, ${p.bytes} bytes, written ${isoTime(p.mtimeMs!)}, ${usable ? `covers turn ${p.turns}` : 'no usable context'}`
    out.push(`<g class="generation"><title>${e(tip)}</title>`)
    if (p.file === x.winner) out.push(`<circle class="winner" cx="${cx}" cy="${cy}" r="13" fill="none" stroke="${HTML_COLORS.winner}" stroke-width="5"/><text x="${cx}" y="${fmt(py(p.turns ?? 0) - 19)}" font-size="12" font-weight="700" text-anchor="middle" fill="#8a6500">winner</text>`)
    if (usable) out.push(`<circle cx="${cx}" cy="${cy}" r="${p.role === 'embedded' ? 4 : 6}" fill="${HTML_COLORS.intact}"/>`)
    else out.push(`<path d="M${fmt(px(p, i) - 6)} ${fmt(py(0) - 6)} l12 12 m0 -12 l-12 12" stroke="${HTML_COLORS.damaged}" stroke-width="3"/>`)
    const sv = salvageOf.get(p.file)
    if (sv && sv.turns !== null) {
      const sy = fmt(py(sv.turns))
      out.push(`<line x1="${cx}" y1="${fmt(py(0))}" x2="${cx}" y2="${sy}" stroke="${HTML_COLORS.salvage}" stroke-dasharray="3 3"/><rect x="${fmt(px(p, i) - 5)}" y="${fmt(py(sv.turns) - 5)}" width="10" height="10" transform="rotate(45 ${cx} ${sy})" fill="#fff" stroke="${HTML_COLORS.salvage}" stroke-width="2"><title>${e(`a salvage of ${p.file} would keep ${plural(sv.messages, 'message')} (turn ${sv.turns})`)}</title></rect>`)
    }
    // Labels right of the point, or left of it near the right edge.
    const left = px(p, i) > W - R - 190
    if (p.role !== 'embedded' || p.file === x.winner) out.push(`<text x="${fmt(px(p, i) + (left ? -9 : 9))}" y="${fmt((usable ? py(p.turns!) : py(0)) + (usable ? 16 : -10))}" font-size="11"${left ? ' text-anchor="end"' : ''}>${e(label)}</text>`)
    out.push('</g>')
  })
  out.push('</svg>')
  out.push(`<div class="legend">${swatch(HTML_COLORS.intact, 'usable generation')}${swatch(HTML_COLORS.damaged, 'unusable (torn, empty, corrupt)')}${swatch(HTML_COLORS.winner, 'winner: the copy a repair loads', true)}${swatch(HTML_COLORS.salvage, 'turns a salvage of a torn copy would keep')}${x.transcriptTurns !== null ? swatch(HTML_COLORS.transcript, 'turns in the transcript') : ''}</div>`)
  return out.join('\n')
}

/** One region of a byte map. */
interface Region {
  offset: number
  length: number
  kind: 'damaged' | 'nul' | 'foreign'
  label: string
}

/** The damaged regions of one file: its tear (or damaged span), its NUL runs, its damaged lines. */
function regionsOf(tear: TearLocation | undefined, lines: NonNullable<Inspection['damagedLines']>): Region[] {
  const out: Region[] = []
  if (tear && tear.length > 0) {
    const kind = tear.class === 'zero-filled' ? 'nul' : tear.reasons.some((r) => FOREIGN.has(r)) ? 'foreign' : 'damaged'
    out.push({offset: tear.offset, length: tear.length, kind, label: `${tear.class}${tear.reasons.length ? ` (${tear.reasons.join(', ')})` : ''}: bytes ${tear.offset}–${tear.offset + tear.length}`})
  }
  for (const r of tear?.nulRuns ?? []) out.push({offset: r.offset, length: r.length, kind: 'nul', label: `${r.length} NUL bytes at ${r.offset}`})
  for (const d of lines) {
    const kind = d.reasons.includes('nul-run') ? 'nul' : d.reasons.some((r) => FOREIGN.has(r)) ? 'foreign' : 'damaged'
    out.push({offset: d.offset, length: d.length, kind, label: `line ${d.line}: ${d.reasons.join(', ')} (bytes ${d.offset}–${d.offset + d.length}, ${d.action})`})
  }
  return out
}

/** A byte map of one damaged file: its bytes left to right, damaged regions coloured, the tear marked. */
export function byteMapSvg(file: string, bytes: number, tear: TearLocation | undefined, lines: NonNullable<Inspection['damagedLines']>, salvageKept: number | null): string {
  const W = 760
  const L = 8
  const R = 8
  const barY = 22
  const barH = 26
  const H = salvageKept !== null ? 96 : 70
  const span = W - L - R
  const at = (off: number) => L + (bytes === 0 ? 0 : (Math.min(off, bytes) / bytes) * span)
  const out: string[] = [`<svg class="bytemap" viewBox="0 0 ${W} ${H}" role="img" aria-label="${e(`Byte map of ${file}`)}">`]
  if (bytes === 0) {
    out.push(`<rect x="${L}" y="${barY}" width="${span}" height="${barH}" fill="#fff" stroke="${HTML_COLORS.damaged}" stroke-dasharray="4 3"/><text x="${W / 2}" y="${barY + 17}" font-size="12" text-anchor="middle">0 bytes: the file is empty</text></svg>`)
    return out.join('')
  }
  out.push(`<rect x="${L}" y="${barY}" width="${span}" height="${barH}" fill="${HTML_COLORS.intact}"><title>${e(`${file}: ${bytes} bytes`)}</title></rect>`)
  const color = {damaged: HTML_COLORS.damaged, nul: HTML_COLORS.nul, foreign: HTML_COLORS.foreign}
  for (const r of regionsOf(tear, lines)) {
    // Every region stays visible: at least 2 px wide.
    const x0 = at(r.offset)
    const w = Math.max(2, at(r.offset + r.length) - x0)
    out.push(`<rect x="${fmt(Math.min(x0, W - R - w))}" y="${barY}" width="${fmt(w)}" height="${barH}" fill="${color[r.kind]}"><title>${e(r.label)}</title></rect>`)
  }
  if (tear) {
    const x = fmt(at(tear.offset))
    const where = tear.offset >= bytes ? `the document stops at byte ${tear.offset} (the end of the file)` : `damage from byte ${tear.offset}`
    const anchor = Number(x) > W / 2 ? ' text-anchor="end"' : ''
    out.push(`<line x1="${x}" y1="${barY - 6}" x2="${x}" y2="${barY + barH + 6}" stroke="#000" stroke-width="2"/><text x="${x}" y="13" font-size="11"${anchor}>${e(`${where}${tear.blockAligned && tear.offset > 0 ? ', on a 4096-byte boundary' : ''}`)}</text>`)
  }
  out.push(`<text x="${L}" y="${barY + barH + 16}" font-size="11">0</text><text x="${W - R}" y="${barY + barH + 16}" font-size="11" text-anchor="end">${bytes} bytes</text>`)
  if (salvageKept !== null) {
    const x1 = fmt(at(salvageKept))
    out.push(`<line x1="${L}" y1="${barY + barH + 26}" x2="${x1}" y2="${barY + barH + 26}" stroke="${HTML_COLORS.salvage}" stroke-width="4"/><text x="${L}" y="${barY + barH + 40}" font-size="11" fill="${HTML_COLORS.salvage}">${e(`a salvage keeps bytes 0–${salvageKept}`)}</text>`)
  }
  out.push('</svg>')
  return out.join('')
}

/** The byte maps of a chat's damaged files, each with its facts in words. */
function byteMaps(x: Inspection): string {
  const files = new Map<string, {bytes: number; tear?: TearLocation; lines: NonNullable<Inspection['damagedLines']>}>()
  for (const t of x.tears) files.set(t.file, {bytes: t.bytes, tear: t, lines: []})
  for (const d of x.damagedLines ?? []) {
    const f = files.get(d.file) ?? {bytes: x.timeline.find((g) => g.file === d.file)?.bytes ?? d.offset + d.length, lines: []}
    f.lines.push(d)
    files.set(d.file, f)
  }
  if (files.size === 0) return '<p class="muted">No damaged file.</p>'
  const out: string[] = []
  let n = 0
  for (const [file, f] of files) {
    if (++n > MAX_BYTE_MAPS) {
      out.push(`<p class="muted">… ${files.size - MAX_BYTE_MAPS} more damaged files (the JSON report lists them all).</p>`)
      break
    }
    const sv = x.salvage.find((s) => s.file === file)
    const words: string[] = []
    if (f.tear) {
      const t = f.tear
      words.push(`${t.class}${t.reasons.length ? ` (${t.reasons.join(', ')})` : ''}, damage from byte ${t.offset} of ${t.bytes} (${t.length} bytes), ${t.blockAligned ? 'on a 4096-byte boundary' : `${t.offsetInBlock} bytes into a 4096-byte block`}`)
      if (t.nulRuns.length > 0) words.push(`NUL runs: ${t.nulRuns.map((r) => `${r.length} at ${r.offset}`).join(', ')}`)
    }
    if (f.lines.length > 0) words.push(`${plural(f.lines.length, 'damaged line')}: ${f.lines.slice(0, 8).map((d) => `line ${d.line} (${d.reasons.join(', ')})`).join('; ')}${f.lines.length > 8 ? '; …' : ''}`)
    if (sv) words.push(`a salvage keeps ${plural(sv.messages, 'message')}${sv.turns !== null ? ` (turn ${sv.turns})` : ''}, bytes 0–${sv.bytesKept}, and drops ${sv.bytesDropped}`)
    out.push(`<h4 class="mono">${e(file)}</h4>${byteMapSvg(file, f.bytes, f.tear, f.lines, sv ? sv.bytesKept : null)}<ul class="lines">${words.map((w) => `<li>${e(w)}</li>`).join('')}</ul>`)
  }
  out.push(`<div class="legend">${swatch(HTML_COLORS.intact, 'bytes as written')}${swatch(HTML_COLORS.damaged, 'torn or unparseable')}${swatch(HTML_COLORS.nul, 'NUL bytes (never written)')}${swatch(HTML_COLORS.foreign, 'foreign bytes (garbage, a BOM, invalid UTF-8, a second record)')}${swatch(HTML_COLORS.salvage, 'what a salvage keeps')}</div>`)
  return out.join('\n')
}

/** Plain lines (no colour, no indent) of what a repair would do, and of what would be lost. */
function repairText(dry: ChatReport | null): {does: string[]; loses: string[]} {
  if (!dry || !dry.repair) return {does: ['No repair plan could be made for this chat from what was read.'], loses: []}
  const plain = makeChalk(false)
  const strip = (l: string) => l.replace(/^ {2}/, '')
  if (dry.repair.outcome === 'not-needed') return {does: ['Nothing: the agent already loads its best copy of the context.'], loses: ['Nothing.']}
  const all = repairLines(dry, plain, true).slice(1)
  const outcome = dry.repair.outcome === 'planned' ? outcomeLines(dry, false) : []
  const does = all.filter((l) => !outcome.includes(l)).map(strip)
  const loses = outcome.length > 0 ? outcome.map(strip) : does.slice()
  return {does, loses}
}

/** The generations as a table (every one, missing and non-context files included). */
function generationTable(x: Inspection): string {
  const rows = x.timeline.map((t) => `<tr${t.file === x.winner ? ' class="is-winner"' : ''}><td class="mono">${e(t.file)}${t.file === x.winner ? ' <strong>(winner)</strong>' : ''}</td><td>${e(t.role)}</td><td>${e(t.class ?? '–')}${t.reasons.length ? ` <span class="muted">(${e(t.reasons.join(', '))})</span>` : ''}</td><td class="num">${t.bytes}</td><td class="num">${t.turns === null ? '–' : `${t.turns}${t.interrupted ? ' partial' : ''}`}</td><td class="mono">${t.mtimeMs === null ? '–' : e(isoTime(t.mtimeMs))}</td></tr>`)
  return `<table><thead><tr><th>file</th><th>role</th><th>class</th><th>bytes</th><th>turns</th><th>written</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
}

function chatSection(c: HtmlChat, index: number): string {
  const x = c.inspection
  const out: string[] = [`<section class="chat" id="chat-${index}">`]
  out.push(`<h2 class="mono">${e(x.path)}</h2>`)
  out.push(`<p><span class="badge ${e(x.status)}">${e(x.status)}</span> · ${e(x.format)} · chat <code>${e(x.id)}</code> · winner <code>${e(x.winner ?? 'none')}</code> · the agent remembers ${x.contextTurns === null ? 'no turn' : `turn ${x.contextTurns}`}${x.transcriptTurns !== null ? ` of ${x.transcriptTurns}` : ''}${c.bundle ? ` · from bundle <code>${e(c.bundle)}</code>` : ''}</p>`)
  out.push(`<h3>What most likely happened</h3><p>${e(x.account)}</p>`)
  out.push(`<h3>Timeline</h3>`, timelineSvg(x, index))
  out.push(`<details><summary>Every generation (${x.timeline.length})</summary>${generationTable(x)}</details>`)
  out.push(`<h3>Damaged files</h3>`, byteMaps(x))
  const r = repairText(c.dryRun)
  out.push(`<h3>What a repair would do</h3><ul class="lines">${r.does.map((l) => `<li>${e(l)}</li>`).join('')}</ul>`)
  out.push(`<h3>What would be lost</h3><ul class="lines">${r.loses.map((l) => `<li>${e(l)}</li>`).join('')}</ul>`)
  if (x.findings.length > 0) out.push(`<h3>Findings</h3><table><thead><tr><th>severity</th><th>finding</th><th>file</th><th>message</th></tr></thead><tbody>${x.findings.map((f) => `<tr><td>${e(f.severity)}</td><td class="mono">${e(f.id)}</td><td class="mono">${e(f.file ?? '')}</td><td>${e(f.message)}</td></tr>`).join('')}</tbody></table>`)
  if (x.ranking.length > 0) out.push(`<h3>Ranking</h3><ol>${x.ranking.map((k) => `<li><code>${e(k.file)}</code> (turn ${k.turns}) ${k.lostBecause ? `<span class="muted">lost: ${e(k.lostBecause)}</span>` : '<strong>wins</strong>'}</li>`).join('')}</ol>`)
  out.push('</section>')
  return out.join('\n')
}

/** The whole page. */
export function renderHtml(input: HtmlReportInput): string {
  const chats = input.chats
  const counts = input.summary ?? {chats: chats.length, healthy: 0, repairable: 0, unrecoverable: 0, degraded: 0, skipped: 0}
  if (!input.summary) for (const c of chats) counts[c.inspection.status]++
  const title = chats.length === 1 ? `chatdoctor: ${chats[0].inspection.id}` : `chatdoctor report: ${plural(chats.length, 'chat')}`
  const out: string[] = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<link rel="icon" href="data:,">',
    `<title>${e(title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body><main>',
    `<h1>${e(title)}</h1>`,
    `<p class="muted">Made by <code>${e(input.command)}</code> (chatdoctor ${e(input.version)}). Read-only: making it wrote nothing but this file.</p>`,
    `<p>${plural(counts.chats, 'chat')}: ${counts.healthy} healthy, ${counts.repairable} repairable, ${counts.unrecoverable} unrecoverable${counts.degraded > 0 ? `, ${counts.degraded} degraded` : ''}${counts.skipped > 0 ? `; ${counts.skipped} skipped` : ''}.</p>`,
  ]
  if (chats.length > 1) out.push(`<nav><ol>${chats.map((c, i) => `<li><a href="#chat-${i}" class="mono">${e(c.inspection.path)}</a> <span class="badge ${e(c.inspection.status)}">${e(c.inspection.status)}</span></li>`).join('')}</ol></nav>`)
  if (input.errors && input.errors.length > 0) out.push(`<section class="chat"><h2>Could not be read</h2><ul class="lines">${input.errors.map((x) => `<li><code>${e(x.path)}</code>: ${e(x.message)}</li>`).join('')}</ul></section>`)
  chats.forEach((c, i) => out.push(chatSection(c, i)))
  if (chats.length === 0) out.push('<p>No chat to show.</p>')
  out.push('</main></body>', '</html>', '')
  return out.join('\n')
}
