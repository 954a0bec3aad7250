/**
 * A table that fits a width: drawn by cli-table3, laid out here. Its natural layout is used when it fits;
 * else the caller's attempts are tried in order (each hides lesser columns and lets some columns shrink: a
 * `shorten` column's cells are shortened in the middle, a `wrap` column's go onto more lines); the first
 * that fits wins. When none fits, the rows are printed as a list, each line within the width. Widths are
 * measured with string-width (wide characters count 2 columns), so no line is wider than `width`.
 */
import type CliTable3 from 'cli-table3'
import {createRequire} from 'node:module'
import type {ChalkInstance} from 'chalk'
import {UNLIMITED, shortenMiddle, textWidth, wrapAnsi, wrapLine} from './width.js'

// cli-table3 is CommonJS: `require` skips the export-name scan an ESM import of it costs at start-up.
const Table = createRequire(import.meta.url)('cli-table3') as typeof CliTable3

/**
 * Rows drawn by one cli-table3 table. Its layout takes time quadratic in the rows (a table of 20,000 chats:
 * 60 s of its 84), so a longer table is drawn in blocks of this many rows with the same column widths and
 * joined where the one table would have its rule between them: the same text.
 */
export const TABLE_BLOCK_ROWS = 200

/** Narrowest a shrinking column is made when its `min` is not given. */
export const MIN_COLUMN = 8

export interface FitColumn {
  header: string
  /**
   * How a cell wider than its column is made to fit: `shorten` (in the middle, keeping the cell's `keep`) or
   * `wrap` (onto more lines). Only columns an attempt lets shrink are made narrower than their widest cell.
   */
  fit?: 'shorten' | 'wrap'
  /** The narrowest the column is made (default `MIN_COLUMN`, never below its header). */
  min?: number
  /** When a cell of this column is shortened, its whole text is shown under the row after this label. */
  detail?: string
  align?: 'left' | 'right'
}

export interface FitCell {
  text: string
  /** The part a shortened cell keeps whole (e.g. the chat id). */
  keep?: string
  /** Colour, applied after the text is fitted. */
  style?: (s: string) => string
}

/** One row; `details` are lines shown under it, across the whole table. */
export interface FitRow {
  cells: Array<string | FitCell>
  details?: string[]
}

/** A heading row across the whole table (e.g. the folder of the rows below it). */
export interface FitGroup {
  group: string
}

/** One layout to try: columns to hide, columns that may shrink below their widest cell, and how far. */
export interface FitAttempt {
  hide?: number[]
  shrink?: number[]
  /** Narrowest widths for this attempt, by column index (else the column's `min`). */
  min?: Record<number, number>
}

export interface FitOptions {
  /** Columns the table must fit; `UNLIMITED` for the natural layout. */
  width: number
  chalk: ChalkInstance
  /** A rule between rows (default true). Without rules, groups and details are left out of the table. */
  rules?: boolean
  /** Layouts tried in order when the natural one does not fit. */
  attempts?: FitAttempt[]
  /** Rows per drawn block (default `TABLE_BLOCK_ROWS`). */
  blockRows?: number
}

const cellOf = (c: string | FitCell): FitCell => (typeof c === 'string' ? {text: c} : c)
const isGroup = (x: FitRow | FitGroup): x is FitGroup => 'group' in x

/** Column widths (content only, without padding) for the visible columns, or null when they cannot fit. */
function layout(columns: FitColumn[], rows: FitRow[], visible: number[], shrink: Set<number>, width: number, min: Record<number, number> = {}): number[] | null {
  const natural = visible.map((i) => rows.reduce((w, r) => Math.max(w, textWidth(cellOf(r.cells[i] ?? '').text)), textWidth(columns[i].header)))
  if (width === UNLIMITED) return natural
  const avail = width - (3 * visible.length + 1)
  const floor = visible.map((i, k) => (shrink.has(i) ? Math.min(natural[k], Math.max(min[i] ?? columns[i].min ?? MIN_COLUMN, textWidth(columns[i].header))) : natural[k]))
  const sumAt = (cap: number) => natural.reduce((n, w, k) => n + (shrink.has(visible[k]) ? Math.max(floor[k], Math.min(w, cap)) : w), 0)
  if (sumAt(0) > avail) return null
  // The widest cap on the shrinking columns that fits (binary search: sumAt grows with the cap).
  let lo = 0
  let hi = Math.max(0, ...natural)
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (sumAt(mid) <= avail) lo = mid
    else hi = mid - 1
  }
  return natural.map((w, k) => (shrink.has(visible[k]) ? Math.max(floor[k], Math.min(w, lo)) : w))
}

/** A cell's lines fitted to `w` columns; `shortened` when text was left out. */
function fitCell(col: FitColumn, cell: FitCell, w: number): {lines: string[]; shortened: boolean} {
  let shortened = false
  const lines = cell.text.split('\n').flatMap((line) => {
    if (textWidth(line) <= w) return [line]
    if (col.fit === 'wrap') return wrapAnsi(line, w, {hard: true, trim: true}).split('\n')
    shortened = true
    return [shortenMiddle(line, w, cell.keep)]
  })
  return {lines: lines.map((l) => (cell.style ? cell.style(l) : l)), shortened}
}

/** One row as cli-table3 takes it: its cells' text, or one cell across the table. */
type DrawnRow = Array<string | {colSpan: number; content: string}>

function render(columns: FitColumn[], items: Array<FitRow | FitGroup>, visible: number[], widths: number[], opts: FitOptions): string {
  const c = opts.chalk
  const rules = opts.rules !== false
  const draw = (rows: DrawnRow[], head: boolean): string => {
    const table = new Table({
      head: head ? visible.map((i) => columns[i].header) : [],
      colWidths: widths.map((w) => w + 2),
      colAligns: visible.map((i) => columns[i].align ?? 'left'),
      wordWrap: false,
      style: {head: c.level > 0 ? ['bold'] : [], border: c.level > 0 ? ['grey'] : []},
      ...(rules ? {} : {chars: {mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': ''}}),
    })
    table.push(...rows)
    return table.toString()
  }
  const table: DrawnRow[] = []
  // A cell across the whole table: the widths, the borders between them, minus its own padding.
  const inner = widths.reduce((n, w) => n + w + 2, 0) + visible.length - 1 - 2
  const across = (content: string) => [{colSpan: visible.length, content}]
  for (const item of items) {
    if (isGroup(item)) {
      if (rules) table.push(across(c.bold(shortenMiddle(item.group, inner))))
      continue
    }
    const details = [...(item.details ?? [])]
    const cells = visible.map((i, k) => {
      const cell = cellOf(item.cells[i] ?? '')
      const fitted = fitCell(columns[i], cell, widths[k])
      if (fitted.shortened && columns[i].detail) details.push(`${columns[i].detail} ${cell.text}`)
      return fitted.lines.join('\n')
    })
    table.push(cells)
    if (rules && details.length > 0) table.push(across(details.flatMap((d) => wrapLine(`  ${d}`, inner, '    ')).join('\n')))
  }
  const block = Math.max(1, opts.blockRows ?? TABLE_BLOCK_ROWS)
  if (table.length <= block) return draw(table, true)
  // Each block after the first is drawn with the row before it (so the rule between them is the one table's),
  // then that row and the border above it are cut off; every block but the last loses its bottom border.
  const out: string[] = []
  for (let s = 0; s < table.length; s += block) {
    const last = s + block >= table.length
    const lines = draw(s === 0 ? table.slice(0, block) : table.slice(s - 1, s + block), s === 0).split('\n')
    const skip = s === 0 ? 0 : draw([table[s - 1]], false).split('\n').length - 1
    out.push(...lines.slice(skip, last ? undefined : -1))
  }
  return out.join('\n')
}

/** The rows as a list, for widths no table fits: each row's first cell, then `header value` pairs. */
function renderList(columns: FitColumn[], items: Array<FitRow | FitGroup>, visible: number[], opts: FitOptions): string {
  const c = opts.chalk
  const w = opts.width
  const out: string[] = []
  for (const item of items) {
    if (isGroup(item)) {
      out.push(c.bold(shortenMiddle(item.group, w)))
      continue
    }
    const [first, ...rest] = visible
    const head = cellOf(item.cells[first] ?? '')
    out.push(fitCell({...columns[first], fit: 'shorten'}, head, w).lines.join(' '))
    const pairs = rest.map((i) => {
      const cell = cellOf(item.cells[i] ?? '')
      return `${columns[i].header} ${cell.style ? cell.style(cell.text.replace(/\n/g, ' ')) : cell.text.replace(/\n/g, ' ')}`
    })
    out.push(...wrapLine(`  ${pairs.join(' · ')}`, w, '    '))
    for (const d of item.details ?? []) out.push(...wrapLine(`  ${d}`, w, '    '))
  }
  return out.join('\n')
}

/** Renders `items` as a table that fits `opts.width` (see the module comment). */
export function fitTable(columns: FitColumn[], items: Array<FitRow | FitGroup>, opts: FitOptions): string {
  const rows = items.filter((x): x is FitRow => !isGroup(x))
  const all = columns.map((_, i) => i)
  const tries: FitAttempt[] = [{}, ...(opts.width === UNLIMITED ? [] : (opts.attempts ?? []))]
  for (const t of tries) {
    const hide = new Set(t.hide ?? [])
    const visible = all.filter((i) => !hide.has(i))
    const widths = layout(columns, rows, visible, new Set(t.shrink ?? []), opts.width, t.min)
    if (!widths) continue
    // Rows across the table (groups) get the room they need, up to the width: the first column grows.
    const across = items.reduce((w, g) => (isGroup(g) ? Math.max(w, textWidth(g.group)) : w), 0)
    const inner = widths.reduce((n, w) => n + w + 2, 0) + visible.length - 3
    const total = widths.reduce((n, w) => n + w, 0) + 3 * visible.length + 1
    if (across > inner) widths[0] += Math.min(across - inner, opts.width - total)
    const text = render(columns, items, visible, widths, opts)
    // cli-table3 measures with its own string-width: trust the layout only when every line fits by ours.
    if (opts.width === UNLIMITED || text.split('\n').every((l) => textWidth(l) <= opts.width)) return text
  }
  const last = tries.at(-1)!
  const hide = new Set(last.hide ?? [])
  return renderList(columns, items, all.filter((i) => !hide.has(i)), opts)
}
