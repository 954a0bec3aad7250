/**
 * Line-level classification of a JSONL log (one JSON object per line), format-independent. The agents' own
 * record rules (headers, parent links, tool calls) are the format adapters' business and come after this.
 *
 * Rules (docs/diagnosis.md "Session logs"):
 * - Lines are split on LF; a single CR before the LF is part of the line ending (older Codex files use CRLF).
 *   The empty piece after a final LF is not a line.
 * - The file is `intact` when every line is a complete record (a whitespace-only line is skipped by every
 *   reader and counts as blank, not damage; a complete final record without its LF is intact), `truncated`
 *   when only the final line is damaged and that damage is a tear (`torn-tail`, maybe `torn-utf8`, NULs after
 *   it), `corrupt` otherwise. 0 bytes or whitespace only is `empty`; every byte NUL is `zero-filled`.
 * - Per line reasons: `bom`, `nul-run`, `nul-tail`, `invalid-utf8`, `torn-utf8`, `torn-tail`, `torn-interior`,
 *   `interleaved-line`, `split-record`, `foreign-content`.
 * - NUL bytes from where the file's trailing run of NULs and line breaks starts to its end are a `nul-tail`
 *   (the unwritten end of an append: no record was cut there unless the content before them is a cut record,
 *   `torn-tail`); NULs anywhere else are a `nul-run`.
 * - A record spread over several lines by raw line breaks (`split-record`) is rejoined: the fragments whose
 *   join, each raw line break inside a string replaced by its JSON escape (one between tokens removed), is one
 *   whole record become that record (a byte change the repair reports).
 * - A file holding no record at all whose first byte is not a record's `{` is other content (`foreign-content`),
 *   not a log torn line after line.
 * - A record holding a lone surrogate escape (`\ud83c` without its other half) is a record: `JSON.parse` and the
 *   agents accept it. It is listed in `loneSurrogates` (a warning: the model API rejects such text), never damage.
 *
 * Each line gets a verdict saying what a repair may do with it (`keep` as is, `rewrite` from the records it
 * holds, `drop`), so the repair planner and the classifier cannot disagree. Uses the byte checks of
 * `bytes.ts` and the JSON scanner of `json.ts`; never throws.
 *
 * Two rules keep an object nested in a record from being written back as a record of its own. Structure: a
 * record behind a cut piece is looked for only where the scanner hit an error, and the rest of the line must
 * be complete objects, so a line that is a valid prefix of one value (a torn tail cut right after a nested
 * object's `}`, `…"usage":{"input_tokens":3}`) stays one cut record. Format: a piece carved out of a damaged
 * line (after a BOM or NUL run is stripped, before or after a cut record, a record spread over lines) is a
 * record only when the format says it is a whole record of it (`JsonlClassifyOptions.isRecord`); a complete
 * object it refuses is a piece like a cut one. A line that is one JSON object as it stands is a record whatever
 * its keys (it is a line as the writer wrote it; keeping it never invents one).
 */
import type {DamageLocation, FileClass, LineCounts, Reason} from '../model/report.js'
import {asBuffer, checkUtf8, decodeUtf8Strict, hasBom, isAllNul, isBlank, isJsonWhitespace} from './bytes.js'
import {scanValue, skipWhitespace} from './json.js'

/** The line-level reason codes (a subset of the model's REASONS). */
export type LineReason = Extract<Reason, 'torn-tail' | 'torn-interior' | 'nul-run' | 'nul-tail' | 'interleaved-line' | 'bom' | 'invalid-utf8' | 'torn-utf8' | 'split-record' | 'foreign-content'>

/**
 * What a repair may do with a line:
 * - `keep`: byte-identical (a clean record, or a blank line);
 * - `rewrite`: replace the line by the records it holds (`records[].bytes`, one per line): strips a BOM or NUL
 *   runs, drops the cut record of an interleaved line, splits two records run together; for the first line of
 *   a split record, its record rejoined from this line and the next ones (`partOf`), which are `drop`;
 * - `drop`: remove the line and its line ending (torn, fragment, bad encoding, NUL only).
 */
export type LineAction = 'keep' | 'rewrite' | 'drop'

/** One complete record found on a line. */
export interface JsonlRecord {
  /** 0-based index of the physical line it is on. */
  line: number
  /** The parsed object. */
  value: Record<string, unknown>
  /** The record's exact bytes as they will be written (a view of the file for a clean line). */
  bytes: Uint8Array
  /** Byte offset of the record in the file when its bytes are contiguous there (not after NUL stripping). */
  offset: number | null
}

/** One physical line and its verdict. Offsets are byte offsets into the file; `end` bounds are exclusive. */
export interface JsonlLine {
  /** 0-based line index. */
  index: number
  start: number
  /** End of the line's content (before CR LF / LF). */
  end: number
  /** Start of the next line (after the LF), or the file size. */
  next: number
  eol: 'lf' | 'crlf' | 'none'
  kind: 'record' | 'blank' | 'damaged'
  reasons: LineReason[]
  action: LineAction
  /** The complete records this line holds (one for a clean line; none for a dropped line). */
  records: JsonlRecord[]
  /** For `split-record`: the index of the first line of the spread record. */
  partOf?: number
  /** For the first line of a rejoined `split-record`: the index of its last line. */
  joinedThrough?: number
}

/** A record that holds a lone surrogate escape: where, and the path of the first string holding one. */
export interface LoneSurrogate {
  /** 0-based index of the line. */
  line: number
  /** Path of the string (or key) holding it, e.g. `message.content` or `payload.content[0].text`. */
  path: string
}

/** What the format says about records (the classifier itself knows no format). */
export interface JsonlClassifyOptions {
  /**
   * True when a parsed object is a whole record of the format (e.g. has the keys every record of it has at
   * top level). Applied to every record carved out of a damaged line; default: any object.
   */
  isRecord?: (value: Record<string, unknown>) => boolean
}

/** Any JSON object counts as a record (no format known). */
const anyObject = (): boolean => true

/** The verdict on one JSONL file. */
export interface JsonlClassification {
  class: Exclude<FileClass, 'missing' | 'contextless'>
  /** Union of the line reasons, in a stable order. */
  reasons: LineReason[]
  lines: JsonlLine[]
  /** Every complete record, in file order (those a repair keeps). */
  records: JsonlRecord[]
  counts: LineCounts
  /** The first damaged byte and the length of that line. */
  damage?: DamageLocation
  /** The file's dominant line ending (what a split inserts). */
  eol: 'lf' | 'crlf'
  /** Records holding a lone surrogate escape (kept; a warning), in file order. */
  loneSurrogates: LoneSurrogate[]
}

const REASON_ORDER: LineReason[] = ['bom', 'nul-run', 'nul-tail', 'invalid-utf8', 'torn-utf8', 'torn-tail', 'torn-interior', 'interleaved-line', 'split-record', 'foreign-content']
/** How many `{` positions are tried when looking for a complete record inside a damaged line. */
const MAX_SUFFIX_TRIES = 64
/** How many following lines a split record may span. */
const MAX_SPLIT_LINES = 64

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * True when the bytes may hold a surrogate escape (`\ud800`–`\udfff`, either case): a native search, so the value
 * is walked only for the rare record that holds one.
 */
function mayHoldSurrogateEscape(bytes: Uint8Array): boolean {
  const b = asBuffer(bytes)
  return b.indexOf('\\ud') >= 0 || b.indexOf('\\uD') >= 0
}

/** True when some string (or key) in the value holds an unpaired UTF-16 surrogate. */
export function hasLoneSurrogate(value: unknown): boolean {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'string') {
      if (!(v as string & {isWellFormed(): boolean}).isWellFormed()) return true
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]) // not push(...v): a long array would overflow the call stack
    }
    else if (isPlainObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (!(k as string & {isWellFormed(): boolean}).isWellFormed()) return true
        stack.push(x)
      }
    }
  }
  return false
}

/** The path of the first string (or key) in the value holding an unpaired surrogate, or null. */
export function loneSurrogatePath(value: unknown): string | null {
  const stack: Array<{v: unknown; path: string}> = [{v: value, path: ''}]
  const wellFormed = (s: string) => (s as string & {isWellFormed(): boolean}).isWellFormed()
  while (stack.length > 0) {
    const {v, path} = stack.pop()!
    if (typeof v === 'string') {
      if (!wellFormed(v)) return path
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({v: v[i], path: `${path}[${i}]`})
    } else if (isPlainObject(v)) {
      const entries = Object.entries(v)
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, x] = entries[i]
        const p = path === '' ? k : `${path}.${k}`
        if (!wellFormed(k)) return p
        stack.push({v: x, path: p})
      }
    }
  }
  return null
}

/** Parses bytes that are known to be valid UTF-8 as one JSON object, or returns undefined. */
function parseObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(decodeUtf8Strict(bytes))
    return isPlainObject(v) ? v : undefined
  } catch {
    return undefined
  }
}

/** A piece of a damaged line: a complete record or a cut one, in `content` coordinates. */
interface Segment {
  start: number
  end: number
  value?: Record<string, unknown>
}

/** The object in `bytes` when it parses and is a record of the format, else undefined. */
function parseRecord(bytes: Uint8Array, isRecord: (v: Record<string, unknown>) => boolean): Record<string, unknown> | undefined {
  const v = parseObject(bytes)
  return v !== undefined && isRecord(v) ? v : undefined
}

/**
 * Splits a line's content into complete records and cut pieces. A cut record followed directly by the next
 * record is found by trying the `{` positions before the scanner's error (nearest first): the cut piece is a
 * proper prefix of a record, the rest must scan as complete objects. Where the line splits is a matter of
 * structure; which pieces are records is the format's (`isRecord`): a complete object it does not accept is a
 * piece like a cut one, so it is dropped while the records after it are kept.
 */
function segments(buf: Uint8Array, start: number, end: number, isRecord: (v: Record<string, unknown>) => boolean): Segment[] {
  const out: Segment[] = []
  let s = skipWhitespace(buf, start, end)
  while (s < end) {
    const r = scanValue(buf, s, end)
    if (r.kind === 'complete') {
      const value = parseRecord(buf.subarray(s, r.end), isRecord)
      out.push({start: s, end: r.end, value})
      s = skipWhitespace(buf, r.end, end)
      continue
    }
    // A cut piece: find where a complete record starts after it. Only when the scanner hit an error: when the whole
    // rest of the line is a valid prefix of one value, an object closing at the line's end is a value nested in the
    // cut record (a message of a cut `messages` array), never known to be a record of its own.
    const limit = r.kind === 'error' ? r.at : end
    const canEnd = r.kind === 'error'
    let found = -1
    if (canEnd) {
      let tries = 0
      for (let p = Math.min(limit, end - 1); p > s && tries < MAX_SUFFIX_TRIES; p--) {
        if (buf[p] !== 0x7b) continue
        tries++
        const q = scanValue(buf, p, end)
        if (q.kind === 'complete' && parseObject(buf.subarray(p, q.end)) && restIsRecords(buf, q.end, end)) {
          found = p
          break
        }
      }
    }
    if (found < 0) {
      out.push({start: s, end})
      break
    }
    out.push({start: s, end: found})
    s = found
  }
  return out
}

/**
 * True when `buf[from, end)` holds only whitespace and complete objects: the rest of a
 * line after a record found behind a cut piece. Without this check a value nested inside the cut record (a message inside a cut `messages`
 * array) would be taken for a record of its own.
 */
function restIsRecords(buf: Uint8Array, from: number, end: number): boolean {
  for (let i = skipWhitespace(buf, from, end); i < end; i = skipWhitespace(buf, i, end)) {
    if (buf[i] !== 0x7b) return false
    const r = scanValue(buf, i, end)
    if (r.kind !== 'complete' || !parseObject(buf.subarray(i, r.end))) return false
    i = r.end
  }
  return true
}

interface LineFacts {
  kind: 'record' | 'blank' | 'damaged'
  reasons: LineReason[]
  action: LineAction
  records: Array<{value: Record<string, unknown>; bytes: Uint8Array; offset: number | null}>
  /** The line's content is a proper prefix of a record (a candidate for torn-tail or split-record). */
  prefix: boolean
  /** The line holds only NUL bytes (and whitespace). */
  nulOnly?: boolean
}

/** A line with the classifier's working flags (removed before returning). */
type Scratch = JsonlLine & {prefix?: boolean; nulOnly?: boolean}

/**
 * Classifies one line's content `[start, end)` on the slow path (the fast path failed). NUL bytes at or after
 * `nulTailFrom` are the file's NUL tail (`nul-tail`), any others a `nul-run`.
 */
function classifyLine(buf: Uint8Array, start: number, end: number, nulTailFrom: number, isRecord: (v: Record<string, unknown>) => boolean): LineFacts {
  const reasons: LineReason[] = []
  let content: Uint8Array = buf.subarray(start, end)
  let base: number | null = start // file offset of content[0] while content is a view of the file
  if (hasBom(content)) {
    reasons.push('bom')
    content = content.subarray(3)
    base = start + 3
  }
  const firstNul = content.indexOf(0)
  if (firstNul >= 0) {
    reasons.push((base ?? start) + firstNul >= nulTailFrom ? 'nul-tail' : 'nul-run')
    content = Uint8Array.from(content.filter((b) => b !== 0))
    base = null
    if (isBlank(content)) return {kind: 'damaged', reasons, action: 'drop', records: [], prefix: false, nulOnly: true}
  }
  if (isBlank(content)) return {kind: reasons.length > 0 ? 'damaged' : 'blank', reasons, action: reasons.length > 0 ? 'drop' : 'keep', records: [], prefix: false}
  const utf8 = checkUtf8(content)
  if (!utf8.ok) {
    // Any bad byte makes the line unloadable for a strict reader (Codex fails the whole stream).
    reasons.push(utf8.kind === 'torn' ? 'torn-utf8' : 'invalid-utf8')
    const prefix = utf8.kind === 'torn' && scanValue(content, 0, utf8.offset).kind === 'eof'
    return {kind: 'damaged', reasons, action: 'drop', records: [], prefix}
  }
  const segs = segments(content, 0, content.length, isRecord)
  const complete = segs.filter((s) => s.value !== undefined)
  if (complete.length === 1 && segs.length === 1) {
    const s = segs[0]
    const value = s.value!
    const bytes = content.subarray(s.start, s.end)
    const whole = s.start === 0 && s.end === content.length
    if (reasons.length === 0 && whole) return {kind: 'record', reasons, action: 'keep', records: [{value, bytes, offset: start}], prefix: false}
    return {kind: 'damaged', reasons, action: 'rewrite', records: [{value, bytes, offset: base === null ? null : base + s.start}], prefix: false}
  }
  if (complete.length === 0) {
    const prefix = segs.length === 1 && scanValue(content, 0, content.length).kind === 'eof'
    return {kind: 'damaged', reasons, action: 'drop', records: [], prefix}
  }
  // Several pieces: records run together, maybe with cut ones between them.
  reasons.push('interleaved-line')
  const records: LineFacts['records'] = complete.map((s) => ({value: s.value!, bytes: content.subarray(s.start, s.end), offset: base === null ? null : base + s.start}))
  return {kind: 'damaged', reasons, action: 'rewrite', records, prefix: false}
}

/** Splits a buffer into physical lines: `[start, end)` content, `next` after the line ending. */
export function splitLines(buf: Uint8Array): Array<{start: number; end: number; next: number; eol: JsonlLine['eol']}> {
  const out: Array<{start: number; end: number; next: number; eol: JsonlLine['eol']}> = []
  let s = 0
  while (s < buf.length) {
    const lf = buf.indexOf(0x0a, s)
    if (lf < 0) {
      out.push({start: s, end: buf.length, next: buf.length, eol: 'none'})
      break
    }
    const cr = lf > s && buf[lf - 1] === 0x0d
    out.push({start: s, end: cr ? lf - 1 : lf, next: lf + 1, eol: cr ? 'crlf' : 'lf'})
    s = lf + 1
  }
  return out
}

/** Where a JSON text's scan stands at the end of a piece: outside strings, inside one, or right after a backslash in one. */
type StringState = 'outside' | 'inside' | 'escape'

/** The string state after scanning `buf[start, end)` from `state` (quotes and backslashes only). */
function stringStateAfter(buf: Uint8Array, start: number, end: number, state: StringState): StringState {
  let st = state
  for (let i = start; i < end; i++) {
    const b = buf[i]
    if (st === 'escape') st = 'inside'
    else if (st === 'inside') {
      if (b === 0x5c) st = 'escape'
      else if (b === 0x22) st = 'outside'
    } else if (b === 0x22) st = 'inside'
  }
  return st
}

/** JSON escapes of the raw line-break bytes a split record's fragments lost between them. */
const BREAK_ESCAPE: Record<number, string> = {0x0a: '\\n', 0x0d: '\\r'}

/**
 * The record that lines `i` through `k` make when joined, each raw line break between them (LF, or the CR LF the
 * line split took for a line ending) replaced by its JSON escape when it lies inside a string, and removed when
 * it lies between tokens (JSON whitespace); null when a break follows a backslash inside a string, or the join is
 * not one JSON object of valid UTF-8 that `isRecord` takes for a whole record of the format.
 */
function joinedRecord(buf: Uint8Array, lines: Array<{start: number; end: number; next: number}>, i: number, k: number, isRecord: (v: Record<string, unknown>) => boolean): {value: Record<string, unknown>; bytes: Buffer} | null {
  const parts: Buffer[] = []
  let state: StringState = 'outside'
  for (let j = i; j <= k; j++) {
    const l = lines[j]
    parts.push(Buffer.from(buf.buffer, buf.byteOffset + l.start, l.end - l.start))
    state = stringStateAfter(buf, l.start, l.end, state)
    if (j === k) break
    if (state === 'escape') return null
    // Inside a string the break becomes its escape; between tokens it is JSON whitespace, and goes.
    let esc = ''
    if (state === 'inside') for (let b = l.end; b < l.next; b++) esc += BREAK_ESCAPE[buf[b]] ?? ''
    parts.push(Buffer.from(esc, 'latin1'))
  }
  const bytes = Buffer.concat(parts)
  if (!checkUtf8(bytes).ok) return null
  const value = parseRecord(bytes, isRecord)
  return value === undefined ? null : {value, bytes}
}

/**
 * Offset where the file's trailing run of NUL bytes and JSON whitespace starts when that run holds a NUL (the
 * unwritten end of an append), else the file's size.
 */
function nulTailFrom(buf: Uint8Array): number {
  let i = buf.length
  let nul = false
  while (i > 0 && (buf[i - 1] === 0 || isJsonWhitespace(buf[i - 1]))) {
    if (buf[i - 1] === 0) nul = true
    i--
  }
  if (!nul) return buf.length
  // The run starts at its first NUL: line breaks before it end the last line, they are not part of the tail.
  while (buf[i] !== 0) i++
  return i
}

/** True when the file's first byte of content (after a BOM and whitespace) is not a record's `{` nor a NUL. */
function startsForeign(buf: Uint8Array): boolean {
  let i = hasBom(buf) ? 3 : 0
  while (i < buf.length && isJsonWhitespace(buf[i])) i++
  return i < buf.length && buf[i] !== 0x7b && buf[i] !== 0
}

/**
 * Classifies the bytes of a JSONL file line by line. Fast path: a strict UTF-8 decode of the whole file, then
 * `JSON.parse` per line; the slow path runs only for lines that fail. `opts.isRecord` is the format's record
 * rule for what the slow path carves out of damaged lines. Never throws.
 */
export function classifyJsonlBytes(buf: Uint8Array, opts: JsonlClassifyOptions = {}): JsonlClassification {
  const isRecord = opts.isRecord ?? anyObject
  const emptyCounts = (): LineCounts => ({total: 0, intact: 0, blank: 0, damaged: 0, records: 0, byReason: {}, firstDamaged: []})
  if (isBlank(buf)) return {class: 'empty', reasons: [], lines: [], records: [], counts: emptyCounts(), eol: 'lf', loneSurrogates: []}
  if (isAllNul(buf)) return {class: 'zero-filled', reasons: [], lines: [], records: [], counts: emptyCounts(), damage: {offset: 0, length: buf.length}, eol: 'lf', loneSurrogates: []}

  const raw = splitLines(buf)
  const tailFrom = nulTailFrom(buf)
  let text: string[] | null = null
  try {
    // One native pass; LF is never part of a multi-byte sequence, so string and byte lines correspond.
    const whole = decodeUtf8Strict(buf)
    text = whole.split('\n')
  } catch {
    text = null
  }
  const lines: JsonlLine[] = []
  let crlf = 0
  for (let i = 0; i < raw.length; i++) {
    const {start, end, next, eol} = raw[i]
    if (eol === 'crlf') crlf++
    const line: JsonlLine = {index: i, start, end, next, eol, kind: 'record', reasons: [], action: 'keep', records: []}
    if (text !== null) {
      let s = text[i]
      if (eol === 'crlf') s = s.slice(0, -1)
      if (s.length > 0 && !s.includes('\u0000')) {
        try {
          const v: unknown = JSON.parse(s)
          if (isPlainObject(v)) {
            line.records = [{line: i, value: v, bytes: buf.subarray(start, end), offset: start}]
            lines.push(line)
            continue
          }
        } catch {
          // slow path below
        }
      }
    }
    const f = classifyLine(buf, start, end, tailFrom, isRecord)
    line.kind = f.kind
    line.reasons = f.reasons
    line.action = f.action
    line.records = f.records.map((r) => ({line: i, ...r}))
    if (f.prefix) (line as Scratch).prefix = true
    if (f.nulOnly) (line as Scratch).nulOnly = true
    lines.push(line)
  }

  // The final line is the last one that is neither blank nor only the NULs of the tail.
  let last = lines.length - 1
  while (last >= 0 && (lines[last].kind === 'blank' || ((lines[last] as Scratch).nulOnly && lines[last].reasons.includes('nul-tail')))) last--

  // Cut records: a torn tail at the end, a record spread over lines, or a torn interior line.
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as Scratch
    if (line.kind !== 'damaged' || line.action !== 'drop') continue
    const tearOnly = line.reasons.every((r) => r === 'torn-utf8' || r === 'nul-run' || r === 'nul-tail')
    if (line.nulOnly) {
      // A line of NULs inside the log, or part of its NUL tail: no record was cut there.
      continue
    }
    if (i === last && line.prefix && tearOnly) {
      line.reasons.push('torn-tail')
      continue
    }
    if (i !== last && line.prefix && line.reasons.length === 0) {
      // A record spread over several lines by raw line breaks?
      let joined: {k: number; value: Record<string, unknown>; bytes: Buffer} | null = null
      for (let j = i + 1; j < lines.length && j <= i + MAX_SPLIT_LINES; j++) {
        if (lines[j].kind === 'record') break
        const r = joinedRecord(buf, raw, i, j, isRecord)
        if (r) {
          joined = {k: j, ...r}
          break
        }
      }
      if (joined) {
        for (let j = i; j <= joined.k; j++) {
          const l = lines[j]
          l.kind = 'damaged'
          l.action = j === i ? 'rewrite' : 'drop'
          l.records = j === i ? [{line: i, value: joined.value, bytes: joined.bytes, offset: null}] : []
          l.reasons = ['split-record']
          l.partOf = i
          delete (l as Scratch).prefix
        }
        line.joinedThrough = joined.k
        i = joined.k
        continue
      }
    }
    if (!line.reasons.includes('invalid-utf8')) line.reasons.push('torn-interior')
  }
  for (const l of lines) {
    delete (l as Scratch).prefix
    delete (l as Scratch).nulOnly
  }

  const records: JsonlRecord[] = []
  for (const l of lines) records.push(...l.records)

  // Not a log at all: no record anywhere, and the first byte is not where a record would start.
  if (records.length === 0 && startsForeign(buf)) {
    for (const l of lines) if (l.kind === 'damaged') l.reasons = ['foreign-content']
  }

  const counts = emptyCounts()
  const reasons = new Set<LineReason>()
  const loneSurrogates: LoneSurrogate[] = []
  for (const l of lines) {
    counts.total++
    if (l.kind === 'blank') counts.blank++
    else if (l.kind === 'record') counts.intact++
    else {
      counts.damaged++
      for (const r of l.reasons) {
        reasons.add(r)
        counts.byReason[r] = (counts.byReason[r] ?? 0) + 1
      }
      if (counts.firstDamaged.length < 20) counts.firstDamaged.push({line: l.index + 1, offset: l.start, length: l.next - l.start, reasons: [...l.reasons]})
    }
    for (const r of l.records) {
      if (!mayHoldSurrogateEscape(r.bytes)) continue
      const at = loneSurrogatePath(r.value)
      if (at !== null) loneSurrogates.push({line: l.index, path: at})
    }
  }
  counts.records = records.length
  const damaged = lines.filter((l) => l.kind === 'damaged')
  let cls: JsonlClassification['class'] = 'intact'
  if (damaged.length > 0) {
    // Truncated: the only cut is the final record's, and nothing but the NUL tail follows it.
    const torn = damaged.filter((l) => l.reasons.includes('torn-tail'))
    const onlyTail = torn.length === 1 && torn[0].index === last && damaged.every((l) => l === torn[0] ? l.reasons.every((r) => r === 'torn-tail' || r === 'torn-utf8' || r === 'nul-tail') : l.index > last && l.reasons.every((r) => r === 'nul-tail'))
    cls = onlyTail ? 'truncated' : 'corrupt'
  }
  const first = damaged[0]
  return {
    class: cls,
    reasons: REASON_ORDER.filter((r) => reasons.has(r)),
    lines,
    records,
    counts,
    damage: first ? {offset: first.start, length: first.next - first.start} : undefined,
    eol: crlf > 0 && crlf * 2 >= raw.filter((l) => l.eol !== 'none').length ? 'crlf' : 'lf',
    loneSurrogates,
  }
}
