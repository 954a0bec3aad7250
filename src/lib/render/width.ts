/**
 * Fitting human output to the terminal: the width to fit, the display width of a string (string-width:
 * wide characters count 2 columns, ANSI colour codes 0), shortening in the middle, and wrapping (wrap-ansi).
 * Shortening works on plain text (colour is applied after); wrapping keeps colour codes.
 *
 * string-width, wrap-ansi and the grapheme segmenter are loaded when a text first needs them: setting up
 * string-width (its segmenter and its Unicode property patterns) takes about 25 ms, most of what a short
 * command does after start-up, and a line of printable ASCII (or a table's border) is as wide as it is long.
 */
import {createRequire} from 'node:module'
import type StringWidth from 'string-width'
import type WrapAnsi from 'wrap-ansi'

/**
 * The two ESM packages, loaded on first use by `require` where Node loads ES modules that way (20.19, 22.12
 * and later); on older Node they are imported here, when this module loads.
 */
const eager: {stringWidth: typeof StringWidth; wrapAnsi: typeof WrapAnsi} | undefined =
  (process.features as {require_module?: boolean}).require_module === true
    ? undefined
    : {stringWidth: (await import('string-width')).default, wrapAnsi: (await import('wrap-ansi')).default}

let loadedWidth: typeof StringWidth | undefined
let loadedWrap: typeof WrapAnsi | undefined
const load = <T>(name: string): T => quietly(() => (createRequire(import.meta.url)(name) as {default: T}).default)

/**
 * `run()` without the ExperimentalWarning some Node versions (22.12, 23.0–23.4) print for a `require()` of an ES
 * module from outside node_modules: the load is the same on every version that has it; only that warning is
 * dropped, any other passes on.
 */
export function quietly<T>(run: () => T): T {
  const emit = process.emitWarning
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as {type?: unknown} | undefined)?.type
    const text = typeof warning === 'string' ? warning : warning.message
    if ((type === 'ExperimentalWarning' || (warning instanceof Error && warning.name === 'ExperimentalWarning')) && /\bES Module\b.*\brequire\(\)/s.test(text)) return
    return (emit as (...a: unknown[]) => void).call(process, warning, ...rest)
  } as typeof process.emitWarning
  try {
    return run()
  } finally {
    process.emitWarning = emit
  }
}

/**
 * Characters one column wide whatever string-width's options: printable ASCII (no control character, no
 * escape code), the box-drawing block the tables are drawn with, and the ellipsis of a shortened name.
 */
const PLAIN = /^[\x20-\x7e\u2500-\u257f\u2026]*$/

/** string-width's width of `s`, its package loaded only for text with a character outside `PLAIN`. */
function stringWidth(s: string): number {
  if (PLAIN.test(s)) return s.length
  loadedWidth ??= eager?.stringWidth ?? load<typeof StringWidth>('string-width')
  return loadedWidth(s)
}

/** wrap-ansi, loaded on first use. */
export function wrapAnsi(...args: Parameters<typeof WrapAnsi>): string {
  loadedWrap ??= eager?.wrapAnsi ?? load<typeof WrapAnsi>('wrap-ansi')
  return loadedWrap(...args)
}

/** What `outputWidth` returns when nothing bounds the output (not a terminal, no `COLUMNS`). */
export const UNLIMITED = Number.POSITIVE_INFINITY

/** The narrowest width layouts are made for: below it lines are still cut to the width, but nothing is laid out finer. */
export const MIN_WIDTH = 20

/** The ellipsis that marks a shortened name. */
export const ELLIPSIS = '…'

/**
 * The width human output must fit: `COLUMNS` when it is a positive integer (the user, or a test, says so),
 * else the columns of the terminal `stream` writes to, else unlimited (a pipe or a file: nothing is cut).
 */
export function outputWidth(stream: {isTTY?: boolean; columns?: number}, env: NodeJS.ProcessEnv): number {
  const fromEnv = Number(env.COLUMNS)
  if (env.COLUMNS !== undefined && Number.isInteger(fromEnv) && fromEnv > 0) return Math.max(MIN_WIDTH, fromEnv)
  if (stream.isTTY && typeof stream.columns === 'number' && stream.columns > 0) return Math.max(MIN_WIDTH, stream.columns)
  return UNLIMITED
}

/** Columns a string takes on a terminal (ANSI codes take none; the widest line of a multi-line string). */
export function textWidth(s: string): number {
  if (!s.includes('\n')) return stringWidth(s)
  let w = 0
  for (const line of s.split('\n')) w = Math.max(w, stringWidth(line))
  return w
}

let segmenter: Intl.Segmenter | undefined

/** The grapheme clusters of `s` with their widths (a shortened string never splits a cluster). */
function graphemes(s: string): Array<{g: string; w: number}> {
  if (PLAIN.test(s)) return Array.from(s, (g) => ({g, w: 1}))
  segmenter ??= new Intl.Segmenter(undefined, {granularity: 'grapheme'})
  return Array.from(segmenter.segment(s), ({segment}) => ({g: segment, w: stringWidth(segment)}))
}

/** The longest start of `s` that fits `width` columns. */
function headOf(s: string, width: number): string {
  let out = ''
  let w = 0
  for (const {g, w: gw} of graphemes(s)) {
    if (w + gw > width) break
    out += g
    w += gw
  }
  return out
}

/** The longest end of `s` that fits `width` columns. */
function tailOf(s: string, width: number): string {
  const gs = graphemes(s)
  let out = ''
  let w = 0
  for (let i = gs.length - 1; i >= 0; i--) {
    if (w + gs[i].w > width) break
    out = gs[i].g + out
    w += gs[i].w
  }
  return out
}

/**
 * `s` in at most `width` columns: unchanged when it fits, else its start and end around `…`, the end
 * getting the larger share (names differ at their ends: ids, extensions). With `keep` (e.g. a chat id) found
 * in `s`: the part from the last `keep` to the end stays whole and only what comes before it is shortened;
 * when that is too wide, `keep` stays whole with what fits of the start before it (`…` for the rest).
 */
export function shortenMiddle(s: string, width: number, keep?: string): string {
  if (width <= 0) return ''
  if (textWidth(s) <= width) return s
  if (width === 1) return ELLIPSIS
  const at = keep ? s.lastIndexOf(keep) : -1
  if (keep && at >= 0) {
    const before = s.slice(0, at)
    const after = s.slice(at + keep.length)
    const kw = stringWidth(keep)
    const tailRoom = width - kw - stringWidth(after) - 1
    if (before && tailRoom >= 0) return headOf(before, tailRoom) + ELLIPSIS + keep + after
    const room = width - kw - (before ? 1 : 0) - (after ? 1 : 0)
    if (room >= 0) return (before ? headOf(before, room) + ELLIPSIS : '') + keep + (after ? ELLIPSIS : '')
  }
  const room = width - 1
  const head = Math.floor(room * 0.4)
  return headOf(s, head) + ELLIPSIS + tailOf(s, room - head)
}

/**
 * Word-wraps one line to `width` columns. Continuation lines get `indent` (default: the line's own leading
 * spaces plus two). A word wider than the room left is cut; colour codes are kept. A line that needs wrapping
 * comes back in Unicode normal form C (wrap-ansi normalises), which looks the same.
 */
export function wrapLine(line: string, width: number, indent?: string): string[] {
  if (width === UNLIMITED || textWidth(line) <= width) return [line]
  const lead = /^ */.exec(line)![0]
  const hang = indent ?? lead + '  '
  // One width for every line (the continuation lines'), so a word cut by the hard wrap is never rejoined.
  const room = Math.max(1, width - Math.max(lead.length, hang.length))
  const lines = wrapAnsi(line.slice(lead.length), room, {hard: true, trim: true}).split('\n')
  return lines.map((l, i) => (i === 0 ? lead : hang) + l)
}

/** Every line of `text` wrapped to `width` (`wrapLine`); unchanged when unlimited. */
export function fitText(text: string, width: number): string {
  if (width === UNLIMITED || text === '') return text
  return text
    .split('\n')
    .flatMap((l) => wrapLine(l, width))
    .join('\n')
}

/** The width prose is wrapped to when nothing bounds the output (a pipe, a file): prose is only moved to new lines, never cut. */
export const PROSE_WIDTH = 80

/** The width to wrap prose to: `width`, or `PROSE_WIDTH` when it is unlimited. */
export function proseWidth(width: number): number {
  return width === UNLIMITED ? PROSE_WIDTH : width
}

/** A part of a line that is never broken (a path, a command to paste): when it does not fit, it starts a line of its own. */
export interface Whole {
  whole: string
}

/**
 * One line of prose made of `parts` (text, and `Whole` parts that stay whole), in lines of at most `width`
 * columns: unchanged when it fits; else broken at the spaces of the text parts only, continuation lines
 * indented by `hang` (default: the line's own leading spaces plus two). Text that touches a `Whole` part
 * (`path:`) stays with it. A part wider than the room stands whole on a line of its own, wider than `width`.
 */
export function fitParts(parts: ReadonlyArray<string | Whole>, width: number, hang?: string): string[] {
  const text = parts.map((p) => (typeof p === 'string' ? p : p.whole)).join('')
  if (width === UNLIMITED || textWidth(text) <= width) return [text]
  const first = parts.find((p) => typeof p === 'string' && p !== '')
  const lead = typeof first === 'string' && text.startsWith(first) ? /^ */.exec(first)![0] : ''
  // The unbreakable units, each with the spaces before it (kept between two units on one line).
  const units: Array<{text: string; sep: string}> = []
  let unit = {text: '', sep: ''}
  let started = false
  for (const p of parts) {
    if (typeof p !== 'string') {
      unit.text += p.whole
      continue
    }
    const pieces = (started ? p : p.slice(lead.length)).split(/( +)/)
    for (let i = 0; i < pieces.length; i += 2) {
      if (i > 0) {
        if (unit.text !== '') units.push(unit)
        unit = {text: '', sep: unit.text !== '' ? pieces[i - 1] : unit.sep + pieces[i - 1]}
      }
      unit.text += pieces[i]
    }
    started = true
  }
  if (unit.text !== '') units.push(unit)
  const indent = hang ?? lead + '  '
  const lines: string[] = []
  let line = ''
  for (const u of units) {
    if (line === '') line = lead + u.text
    else if (textWidth(line + u.sep + u.text) <= width) line += u.sep + u.text
    else {
      lines.push(line)
      line = indent + u.text
    }
  }
  lines.push(line)
  return lines
}

/**
 * The words of a shell command line: split at spaces outside quotes (`'…'`, `"…"`, `$'…'`) and not escaped by
 * a backslash. Each word comes back as written (its quotes kept).
 */
export function shellWords(command: string): string[] {
  const words: string[] = []
  let word = ''
  let quote: "'" | '"' | null = null
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]
    if (quote === null && ch === ' ') {
      if (word !== '') words.push(word)
      word = ''
      continue
    }
    word += ch
    if (ch === '\\' && quote !== "'" && i + 1 < command.length) word += command[++i]
    else if (ch === '\\' && quote === "'" && word.startsWith("$'") && i + 1 < command.length) word += command[++i]
    else if (quote === null && (ch === "'" || ch === '"')) quote = ch
    else if (ch === quote) quote = null
  }
  if (word !== '') words.push(word)
  return words
}

/**
 * A command line (after its leading spaces) in lines of at most `width` columns, so that it still pastes as
 * one command: unchanged when it fits; else broken between its shell words, each line but the last ending
 * in ` \`, continuation lines indented four more; a flag stays on the line of the word after it. A word is never
 * broken: one wider than the room stands on a line of its own.
 */
export function fitCommand(line: string, width: number): string[] {
  if (width === UNLIMITED || textWidth(line) <= width) return [line]
  const lead = /^ */.exec(line)![0]
  const indent = lead + '    '
  const lines: string[] = []
  let cur = ''
  // A flag stays with the word after it (`-o chat.tar.gz`), unless that is a flag too.
  const units: string[] = []
  for (const w of shellWords(line.slice(lead.length))) {
    const prev = units.at(-1)
    if (prev !== undefined && /^-/.test(prev) && !prev.includes(' ') && !w.startsWith('-')) units[units.length - 1] = `${prev} ${w}`
    else units.push(w)
  }
  for (const w of units) {
    if (cur === '') cur = (lines.length === 0 ? lead : indent) + w
    else if (textWidth(`${cur} ${w} \\`) <= width) cur += ` ${w}`
    else {
      lines.push(`${cur} \\`)
      cur = indent + w
    }
  }
  lines.push(cur)
  return lines
}
