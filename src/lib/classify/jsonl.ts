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
 * - Bytes are never joined across a NUL run: a line holding NULs is split at its runs into pieces, each
 *   classified on its own; a piece's whole records of the format are kept byte for byte, any other piece is
 *   dropped (`torn-interior` on a line that keeps records; a line keeping none is dropped). A record whose
 *   middle NULs overwrote is lost, never written back with the bytes around the run joined.
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
 * One line loop (`classifyLines`) serves two readers: the lines of a buffer (`classifyJsonlBytes`), and the
 * lines of a source read in chunks (`classifyJsonlSource`, `classifyJsonlFile`: a log too large to hold), the
 * bytes of a record spread over lines read again by offset. Same rules, same verdict; the streamed result keeps
 * no bytes of clean lines and, with `keep`, only part of each record's value. Both keep the lines in a column
 * table (`LineTable`: a clean record or blank line is a row of typed arrays, any other line an object); the
 * in-memory result also lists every line and record as objects, the streamed one makes them on demand. Readers
 * that walk a whole log use the table's accessors (`linesOf`, `recordValues`, `cleanRecords`).
 *
 * Two rules keep an object nested in a record from being written back as a record of its own. Structure: a
 * record behind a cut piece is looked for only where the scanner hit an error, and the rest of the line must
 * be complete objects, so a line that is a valid prefix of one value (a torn tail cut right after a nested
 * object's `}`, `…"usage":{"input_tokens":3}`) stays one cut record. Format: a piece carved out of a damaged
 * line (after a BOM is stripped, between NUL runs, before or after a cut record, a record spread over lines) is a
 * record only when the format says it is a whole record of it (`JsonlClassifyOptions.isRecord`); a complete
 * object it refuses is a piece like a cut one. A line that is one JSON object as it stands is a record whatever
 * its keys (it is a line as the writer wrote it; keeping it never invents one).
 */
import {createHash} from 'node:crypto'
import {closeSync, constants as fsConstants, fstatSync, openSync, readSync} from 'node:fs'
import type {DamageLocation, FileClass, LineCounts, Reason} from '../model/report.js'
import {asBuffer, checkUtf8, decodeUtf8Strict, hasBom, isAllNul, isBlank, isJsonWhitespace} from './bytes.js'
import {scanValue, skipWhitespace} from './json.js'
import {loneSurrogatePath} from './surrogates.js'

export {hasLoneSurrogate, loneSurrogatePath} from './surrogates.js'

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
  /**
   * The record's exact bytes as they will be written (a view of the file for a clean line); null for a clean
   * line of a file classified by streaming (`classifyJsonlFile`): its bytes are the file's `[offset, offset +
   * length)`, read again when needed.
   */
  bytes: Uint8Array | null
  /** The length of those bytes. */
  length: number
  /** Byte offset of the record in the file; null on a line holding NULs (a piece between NUL runs). */
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
  // One search for `\u`, the letter after it looked at: one pass over a line without escapes, not two.
  for (let i = b.indexOf(BACKSLASH_U); i >= 0; i = b.indexOf(BACKSLASH_U, i + 2)) if ((b[i + 2] | 0x20) === 0x64) return true
  return false
}

/** The bytes of `\u`. */
const BACKSLASH_U = Buffer.from('\\u')

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
 * One physical line as a reader hands it to the classifier: `[start, end)` content, `next` after the line
 * ending, and the content's bytes. A line longer than the streaming reader's long-line size that holds NUL
 * bytes comes with each run of NULs as one NUL byte (`stripped`: whether its raw bytes start with a BOM, and the
 * file offset of its first NUL), so a run of NULs is skipped without being held and the pieces between runs are
 * those of the file. `bytes` may be memory the reader reuses for the next
 * line: whatever the classifier keeps of it is copied (`copy`).
 */
interface RawLine {
  start: number
  end: number
  next: number
  eol: JsonlLine['eol']
  bytes: Uint8Array
  stripped?: {bom: boolean; firstNul: number}
}

/**
 * Classifies one line's content on the slow path (the fast path failed). NUL bytes at or after `nulTailFrom`
 * are the file's NUL tail (`nul-tail`), any others a `nul-run`. Bytes are never joined across a NUL run: NULs
 * stand where the writer's bytes did not reach the disk (or were overwritten), so what lies on either side of a
 * run are separate pieces (`nonNulPieces`), each classified on its own; only whole records of a piece are kept.
 */
function classifyLine(raw: RawLine, nulTailFrom: number, isRecord: (v: Record<string, unknown>) => boolean): LineFacts {
  const reasons: LineReason[] = []
  let content: Uint8Array = raw.bytes
  let base = raw.start // file offset of content[0]
  if (raw.stripped ? raw.stripped.bom : hasBom(content)) {
    reasons.push('bom')
    content = content.subarray(3)
    base += 3
  }
  const z = raw.stripped ? -1 : content.indexOf(0)
  const firstNul = raw.stripped ? raw.stripped.firstNul : z < 0 ? -1 : base + z
  if (firstNul < 0) return classifyContent(content, base, reasons, isRecord)
  reasons.push(firstNul >= nulTailFrom ? 'nul-tail' : 'nul-run')
  const pieces = nonNulPieces(content)
  if (pieces.length === 0) return {kind: 'damaged', reasons, action: 'drop', records: [], prefix: false, nulOnly: true}
  // Records carved out from between NULs have no offset: a streamed long line holds its NUL runs as one byte each.
  if (pieces.length === 1) return classifyContent(pieces[0], null, reasons, isRecord)
  return classifyPieces(pieces, reasons, isRecord)
}

/** Whether `b` ends in a run of NUL bytes right after a `\r` (a CRLF with NULs inside it). */
function crBeforeTrailingNuls(b: Uint8Array): boolean {
  let k = b.length - 1
  if (k < 0 || b[k] !== 0) return false
  while (k >= 0 && b[k] === 0) k--
  return k >= 0 && b[k] === 0x0d
}

/**
 * The pieces of a line's content between its NUL runs that hold more than whitespace, as views of it. A NUL run
 * of any length separates two pieces the same way (a streamed long line keeps each run as one NUL byte).
 */
function nonNulPieces(content: Uint8Array): Uint8Array[] {
  const b = asBuffer(content)
  const out: Uint8Array[] = []
  for (let s = 0; s <= b.length; ) {
    const z = b.indexOf(0, s)
    const e = z < 0 ? b.length : z
    if (e > s && !isBlank(b.subarray(s, e))) out.push(b.subarray(s, e))
    if (z < 0) break
    s = z + 1
  }
  return out
}

/**
 * A line of several pieces between NUL runs: each piece classified on its own, the whole records of the format
 * they hold kept as they are, anything else dropped. A piece that keeps no record beside kept ones makes the
 * line `torn-interior` too (a cut record is dropped from it); a line keeping no record is dropped (the line loop
 * names it). Bad UTF-8 in a piece before the last is `invalid-utf8`: only the line's end can cut a character.
 */
function classifyPieces(pieces: Uint8Array[], reasons: LineReason[], isRecord: (v: Record<string, unknown>) => boolean): LineFacts {
  const records: LineFacts['records'] = []
  let cut = false
  pieces.forEach((p, k) => {
    const f = classifyContent(p, null, [], isRecord)
    for (const r0 of f.reasons) {
      const r = r0 === 'torn-utf8' && k < pieces.length - 1 ? 'invalid-utf8' : r0
      if (!reasons.includes(r)) reasons.push(r)
    }
    if (f.action === 'drop') cut = true
    records.push(...f.records)
  })
  if (records.length === 0) return {kind: 'damaged', reasons, action: 'drop', records, prefix: false}
  if (cut && !reasons.includes('torn-interior')) reasons.push('torn-interior')
  return {kind: 'damaged', reasons, action: 'rewrite', records, prefix: false}
}

/**
 * The verdict on content holding no NUL (a line's, after a BOM; or one piece of a line between NUL runs).
 * `base` is the file offset of `content[0]` when it is a view of the file as it lies there, else null;
 * `reasons` are the line's so far (a BOM, a NUL run), added to.
 */
function classifyContent(content: Uint8Array, base: number | null, reasons: LineReason[], isRecord: (v: Record<string, unknown>) => boolean): LineFacts {
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
    if (reasons.length === 0 && whole) return {kind: 'record', reasons, action: 'keep', records: [{value, bytes, offset: base}], prefix: false}
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
  for (const l of bufferLines(buf)) out.push({start: l.start, end: l.end, next: l.next, eol: l.eol})
  return out
}

/** The physical lines of a buffer, as views of it. */
function* bufferLines(buf: Uint8Array): Generator<RawLine> {
  const b = asBuffer(buf)
  let s = 0
  while (s < b.length) {
    const lf = b.indexOf(0x0a, s)
    if (lf < 0) {
      yield {start: s, end: b.length, next: b.length, eol: 'none', bytes: b.subarray(s)}
      break
    }
    const cr = lf > s && b[lf - 1] === 0x0d
    const end = cr ? lf - 1 : lf
    yield {start: s, end, next: lf + 1, eol: cr ? 'crlf' : 'lf', bytes: b.subarray(s, end)}
    s = lf + 1
  }
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

const isNulReason = (r: LineReason): boolean => r === 'nul-run' || r === 'nul-tail'

/**
 * The record that lines `i` through `k` make when joined, each raw line break between them (LF, or the CR LF the
 * line split took for a line ending) replaced by its JSON escape when it lies inside a string, and removed when
 * it lies between tokens (JSON whitespace); null when a break follows a backslash inside a string, or the join is
 * not one JSON object of valid UTF-8 that `isRecord` takes for a whole record of the format. A line holding a NUL
 * byte never joins (a raw NUL is no JSON text anywhere), so its bytes are never read for it.
 */
function joinedRecord(source: ByteSource, t: LineTable, i: number, k: number, isRecord: (v: Record<string, unknown>) => boolean): {value: Record<string, unknown>; bytes: Buffer} | null {
  for (let j = i; j <= k; j++) if (t.held.get(j)?.reasons.some(isNulReason)) return null
  const at = t.start(i)
  const buf = source.read(at, t.end(k))
  const parts: Buffer[] = []
  let state: StringState = 'outside'
  for (let j = i; j <= k; j++) {
    const start = t.start(j)
    const end = t.end(j)
    parts.push(Buffer.from(buf.buffer, buf.byteOffset + start - at, end - start))
    state = stringStateAfter(buf, start - at, end - at, state)
    if (j === k) break
    if (state === 'escape') return null
    // Inside a string the break becomes its escape; between tokens it is JSON whitespace, and goes.
    let esc = ''
    if (state === 'inside') for (let b = end; b < t.next(j); b++) esc += BREAK_ESCAPE[buf[b - at]] ?? ''
    parts.push(Buffer.from(esc, 'latin1'))
  }
  const bytes = Buffer.concat(parts)
  if (!checkUtf8(bytes).ok) return null
  const value = parseRecord(bytes, isRecord)
  return value === undefined ? null : {value, bytes}
}

/**
 * Random access to the bytes a log's lines are read from: a buffer (`bufferSource`), an open file read by
 * ranges (the streaming path, `fileSource`), or a repair's output made of pieces of another source
 * (`piecesSource`).
 */
export interface ByteSource {
  readonly size: number
  /** The bytes `[start, end)`: a view for a buffer, a fresh read otherwise (fewer bytes at the end). */
  read(start: number, end: number): Uint8Array
  /** Copies up to `length` bytes from `position` into `buf` at `offset`; the count copied (0 at the end). */
  readInto(buf: Uint8Array, offset: number, length: number, position: number): number
}

/** A buffer as a byte source (reads are views of it). */
export function bufferSource(buf: Uint8Array): ByteSource {
  return {
    size: buf.length,
    read: (s, e) => buf.subarray(s, e),
    readInto(out, offset, length, position) {
      const n = Math.max(0, Math.min(length, buf.length - position))
      out.set(buf.subarray(position, position + n), offset)
      return n
    },
  }
}

/** Reads `[start, end)` of a source into a fresh buffer through `readInto` (fewer bytes at its end). */
export function readFresh(src: Pick<ByteSource, 'readInto' | 'size'>, s: number, e: number): Buffer {
  const out = Buffer.allocUnsafe(Math.max(0, Math.min(e, src.size) - s))
  let got = 0
  while (got < out.length) {
    const n = src.readInto(out, got, out.length - got, s + got)
    if (n === 0) break
    got += n
  }
  return got === out.length ? out : out.subarray(0, got)
}

/** An open file of `size` bytes as a byte source. */
export function fileSource(fd: number, size: number): ByteSource {
  const src: ByteSource = {
    size,
    read: (s, e) => readFresh(src, s, e),
    readInto: (buf, offset, length, position) => readSync(fd, buf, offset, length, position),
  }
  return src
}

/** A piece of a repair's output: bytes of its own, or the range `[start, end)` of the source it repairs. */
export type Piece = Uint8Array | {start: number; end: number}

/** The concatenation of `pieces` (ranges of `base`, or bytes) as a byte source. */
export function piecesSource(pieces: readonly Piece[], base: ByteSource): ByteSource {
  const at: number[] = []
  let size = 0
  for (const p of pieces) {
    at.push(size)
    size += p instanceof Uint8Array ? p.length : p.end - p.start
  }
  const src: ByteSource = {
    size,
    read: (s, e) => readFresh(src, s, e),
    readInto(buf, offset, length, position) {
      // The piece holding `position` (binary search), then as much of it as fits.
      let lo = 0
      let hi = pieces.length - 1
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1
        if (at[mid] <= position) lo = mid
        else hi = mid - 1
      }
      if (position >= size || pieces.length === 0) return 0
      const p = pieces[lo]
      const into = position - at[lo]
      if (p instanceof Uint8Array) {
        const n = Math.min(length, p.length - into)
        buf.set(p.subarray(into, into + n), offset)
        return n
      }
      const n = Math.min(length, p.end - p.start - into)
      let got = 0
      while (got < n) {
        const k = base.readInto(buf, offset + got, n - got, p.start + into + got)
        if (k === 0) break
        got += k
      }
      return got
    },
  }
  return src
}

/** How many bytes the backward and forward probes of a source read at a time. */
const PROBE_BYTES = 1 << 16

/**
 * Offset where the file's trailing run of NUL bytes and JSON whitespace starts when that run holds a NUL (the
 * unwritten end of an append), else the file's size. Reads the source backwards from its end.
 */
function nulTailFrom(src: ByteSource): number {
  let nul = false
  let firstNul = -1
  for (let hi = src.size; hi > 0; ) {
    const lo = Math.max(0, hi - PROBE_BYTES)
    const b = src.read(lo, hi)
    let j = b.length
    while (j > 0 && (b[j - 1] === 0 || isJsonWhitespace(b[j - 1]))) {
      if (b[j - 1] === 0) {
        nul = true
        firstNul = lo + j - 1
      }
      j--
    }
    if (j > 0) break
    hi = lo
  }
  // The run starts at its first NUL: line breaks before it end the last line, they are not part of the tail.
  return nul ? firstNul : src.size
}

/** True when the file's first byte of content (after a BOM and whitespace) is not a record's `{` nor a NUL. */
function startsForeign(src: ByteSource): boolean {
  const head = src.read(0, Math.min(src.size, 3))
  let i = hasBom(head) ? 3 : 0
  for (let at = i; at < src.size; at += PROBE_BYTES) {
    const b = src.read(at, Math.min(src.size, at + PROBE_BYTES))
    for (let j = 0; j < b.length; j++) if (!isJsonWhitespace(b[j])) return b[j] !== 0x7b && b[j] !== 0
  }
  return false
}

/** What of a record's value the classification keeps (`JsonlClassifyStreamOptions.keep`); the whole value by default. */
export type KeepRecord = (value: Record<string, unknown>) => Record<string, unknown>

/**
 * Kept values held in a format's own columns (`JsonlClassifyStreamOptions.columns`), not as an object per record:
 * a streamed log's table offers each clean line's kept value (`keep`'s output) to `put`, and asks `get` for it
 * whenever it is read. One store per classification (line indices are its table's).
 */
export interface KeptColumns {
  /** Takes the kept value of clean line `line`; false when it does not fit the columns (the table holds it then). */
  put(line: number, kept: Record<string, unknown>): boolean
  /** The kept value of a line `put` took: an object equal to the one it was given (same keys, same order), made for this call. */
  get(line: number): Record<string, unknown>
  /** The store the rows are in, when this one hands them to another (a reader of rows reads that one). */
  holder?(): KeptColumns | null
}

/** How the line loop keeps what it finds. */
interface CoreOptions {
  isRecord: (v: Record<string, unknown>) => boolean
  keep?: KeepRecord
  /** Where clean lines' kept values go when they fit (streamed only). */
  columns?: KeptColumns
  /** The lines' bytes are reused by the reader: records of clean lines keep no bytes, others a copy. */
  streamed: boolean
}

/** A record being made: the lone-surrogate path is found on the whole value, before `keep` slims it. */
type Made = JsonlRecord & {lone?: string}

/** The kind of a line in the table's code byte (low two bits): a clean record, a blank line, or one held as an object. */
const CLEAN = 0
const BLANK = 1
const HELD = 2
/** A line ending's code (the code byte's next two bits) and back. */
const EOL_CODE = {none: 0, lf: 4, crlf: 8} as const
const EOL_OF: ReadonlyArray<JsonlLine['eol']> = ['none', 'lf', 'crlf']
const EOL_BYTES = [0, 1, 2]
/** The code byte's bit of a clean line whose kept value is in the table's `columns`. */
const IN_COLUMNS = 16

/**
 * The lines of a log as columns: per line its start, length and a code (kind and line ending) in typed arrays
 * (13 bytes a line), and the kept value of a clean line's record; only a line that is neither a clean record nor
 * blank (a damaged line, a record holding a lone surrogate) is held as a `JsonlLine` object. The records are a
 * column of line indices (4 bytes a record) and the objects of the held lines' records. Objects are made on
 * demand (`line`, `record`), for that line only: a log of many small records holds no object per line.
 */
export class LineTable {
  /** Number of lines. */
  n = 0
  private starts = new Float64Array(256)
  private lens = new Uint32Array(256)
  private codes = new Uint8Array(256)
  /**
   * The kept value of each clean line's record (undefined for the others), in blocks of `VALUE_BLOCK` lines: a
   * growing list of hundreds of thousands would be copied into ever larger arrays, each garbage in the
   * large-object space until the next full collection.
   */
  private vals: Array<Array<Record<string, unknown> | undefined>> = []
  /** The lines held as objects, by index. */
  readonly held = new Map<number, JsonlLine>()
  /** Record index → line index. */
  private recLine = new Int32Array(0)
  /** The records of held lines, by record index. */
  private recHeld = new Map<number, JsonlRecord>()
  /** Number of records. */
  recordCount = 0

  constructor(
    /** The bytes clean records are views of (a log in memory); null when clean lines keep no bytes (streamed). */
    private readonly buf: Uint8Array | null,
    /** A format's columns for the kept values of clean lines (`KeptColumns`); those they refuse are held in `vals`. */
    private readonly columns: KeptColumns | null = null,
  ) {}

  private grow(): void {
    const size = this.starts.length * 2
    const s = new Float64Array(size)
    s.set(this.starts)
    this.starts = s
    const l = new Uint32Array(size)
    l.set(this.lens)
    this.lens = l
    const c = new Uint8Array(size)
    c.set(this.codes)
    this.codes = c
  }

  private push(start: number, end: number, eol: JsonlLine['eol'], kind: number): number {
    if (this.n === this.starts.length) this.grow()
    const i = this.n++
    this.starts[i] = start
    this.lens[i] = end - start
    this.codes[i] = kind | EOL_CODE[eol]
    return i
  }

  pushClean(start: number, end: number, eol: JsonlLine['eol'], value: Record<string, unknown>): void {
    const i = this.push(start, end, eol, CLEAN)
    if (this.columns !== null && this.columns.put(i, value)) {
      this.codes[i] |= IN_COLUMNS
      return
    }
    const b = i >> VALUE_BLOCK_BITS
    if (b === this.vals.length) this.vals.push([])
    this.vals[b][i & VALUE_BLOCK_MASK] = value
  }

  /** True when kept values are in a format's columns (each read makes an object for that read). */
  get columnar(): boolean {
    return this.columns !== null
  }

  get keptColumns(): KeptColumns | null {
    return this.columns
  }

  /** The line of record `k` when its kept value is in the columns (its row there), else -1. */
  columnRow(k: number): number {
    // A held line's records are never in the columns (`own` clears the bit).
    const i = this.recLine[k]
    return (this.codes[i] & IN_COLUMNS) !== 0 ? i : -1
  }

  private val(i: number): Record<string, unknown> | undefined {
    if ((this.codes[i] & IN_COLUMNS) !== 0) return this.columns!.get(i)
    return this.vals[i >> VALUE_BLOCK_BITS]?.[i & VALUE_BLOCK_MASK]
  }

  pushBlank(start: number, end: number, eol: JsonlLine['eol']): void {
    this.push(start, end, eol, BLANK)
  }

  pushHeld(line: JsonlLine): void {
    const i = this.push(line.start, line.end, line.eol, HELD)
    this.held.set(i, line)
  }

  kind(i: number): JsonlLine['kind'] {
    const k = this.codes[i] & 3
    return k === CLEAN ? 'record' : k === BLANK ? 'blank' : this.held.get(i)!.kind
  }

  /** True for a line kept as it is that is one clean record (what a repair keeps byte for byte). */
  isClean(i: number): boolean {
    const k = this.codes[i] & 3
    return k === CLEAN || (k === HELD && isCleanLine(this.held.get(i)!))
  }

  start(i: number): number {
    return this.starts[i]
  }

  end(i: number): number {
    return this.starts[i] + this.lens[i]
  }

  next(i: number): number {
    const h = this.codes[i] & 3
    return h === HELD ? this.held.get(i)!.next : this.end(i) + EOL_BYTES[(this.codes[i] >> 2) & 3]
  }

  eol(i: number): JsonlLine['eol'] {
    return (this.codes[i] & 3) === HELD ? this.held.get(i)!.eol : EOL_OF[(this.codes[i] >> 2) & 3]
  }

  /** The kept value of a clean line's record. */
  cleanValue(i: number): Record<string, unknown> {
    return this.val(i) ?? this.held.get(i)!.records[0].value
  }

  /** The line as an object: the held one, or one made for this call. */
  line(i: number): JsonlLine {
    const h = this.held.get(i)
    if (h !== undefined) return h
    const start = this.starts[i]
    const end = start + this.lens[i]
    const eol = EOL_OF[(this.codes[i] >> 2) & 3]
    const next = end + EOL_BYTES[(this.codes[i] >> 2) & 3]
    if ((this.codes[i] & 3) === BLANK) return {index: i, start, end, next, eol, kind: 'blank', reasons: [], action: 'keep', records: []}
    return {index: i, start, end, next, eol, kind: 'record', reasons: NO_REASONS, action: 'keep', records: [this.cleanRecord(i)]}
  }

  private cleanRecord(i: number): JsonlRecord {
    const start = this.starts[i]
    const length = this.lens[i]
    return {line: i, value: this.val(i)!, bytes: this.buf === null ? null : this.buf.subarray(start, start + length), length, offset: start}
  }

  /** The line held as an object from now on (a blank line a split record spans is changed by the line loop). */
  own(i: number): JsonlLine {
    const h = this.held.get(i)
    if (h !== undefined) return h
    const l = this.line(i)
    this.held.set(i, l)
    this.codes[i] = (this.codes[i] & ~3 & ~IN_COLUMNS) | HELD
    const b = this.vals[i >> VALUE_BLOCK_BITS]
    if (b !== undefined) b[i & VALUE_BLOCK_MASK] = undefined
    return l
  }

  /** The held lines' indices, in order. */
  heldIndices(): number[] {
    return [...this.held.keys()].sort((a, b) => a - b)
  }

  /** Makes the record column from the lines (after the line loop: records are in line order). */
  indexRecords(): void {
    let n = 0
    for (let i = 0; i < this.n; i++) {
      const k = this.codes[i] & 3
      if (k === CLEAN) n++
      else if (k === HELD) n += this.held.get(i)!.records.length
    }
    const recLine = new Int32Array(n)
    let r = 0
    for (let i = 0; i < this.n; i++) {
      const k = this.codes[i] & 3
      if (k === CLEAN) recLine[r++] = i
      else if (k === HELD) {
        for (const rec of this.held.get(i)!.records) {
          this.recHeld.set(r, rec)
          recLine[r++] = i
        }
      }
    }
    this.recLine = recLine
    this.recordCount = n
  }

  recordLine(k: number): number {
    return this.recLine[k]
  }

  value(k: number): Record<string, unknown> {
    const h = this.recHeld.get(k)
    return h !== undefined ? h.value : this.val(this.recLine[k])!
  }

  /** True when record `k` is on a line that is a clean record (`kind` `record`). */
  recordIsClean(k: number): boolean {
    const i = this.recLine[k]
    return (this.codes[i] & 3) === CLEAN || this.held.get(i)!.kind === 'record'
  }

  record(k: number): JsonlRecord {
    return this.recHeld.get(k) ?? this.cleanRecord(this.recLine[k])
  }

  /** Every line as objects (the in-memory classification's `lines`), each record object shared with `records`. */
  materialise(): {lines: JsonlLine[]; records: JsonlRecord[]} {
    const lines: JsonlLine[] = []
    const records: JsonlRecord[] = []
    for (let i = 0; i < this.n; i++) {
      const l = this.line(i)
      lines.push(l)
      for (const r of l.records) records.push(r)
    }
    return {lines, records}
  }
}

/** Lines per block of kept values (`LineTable.vals`): 8,192 slots, a regular heap object. */
const VALUE_BLOCK_BITS = 13
const VALUE_BLOCK_MASK = (1 << VALUE_BLOCK_BITS) - 1

/** The table a classification's `lines` or `records` list was made from. */
const TABLES = new WeakMap<object, LineTable>()

/**
 * A read-only array whose elements are made on demand by `at` (a streamed classification's `lines` and `records`:
 * an object per element only while a caller holds it). Array methods work on it; the hot readers use the table.
 */
function lazyList<T>(length: number, at: (i: number) => T): T[] {
  const index = (p: string | symbol): number => {
    if (typeof p !== 'string' || p.length === 0) return -1
    const c = p.charCodeAt(0)
    if (c < 48 || c > 57) return -1
    const i = Number(p)
    return Number.isInteger(i) && String(i) === p ? i : -1
  }
  return new Proxy([] as T[], {
    get(t, p, r) {
      if (p === 'length') return length
      const i = index(p)
      if (i >= 0) return i < length ? at(i) : undefined
      return Reflect.get(t, p, r)
    },
    has(t, p) {
      const i = index(p)
      return i >= 0 ? i < length : Reflect.has(t, p)
    },
    ownKeys(t) {
      const keys: Array<string | symbol> = []
      for (let i = 0; i < length; i++) keys.push(String(i))
      return [...keys, ...Reflect.ownKeys(t)]
    },
    getOwnPropertyDescriptor(t, p) {
      if (p === 'length') return {value: length, writable: true, enumerable: false, configurable: false}
      const i = index(p)
      if (i >= 0) return i < length ? {value: at(i), writable: false, enumerable: true, configurable: true} : undefined
      return Reflect.getOwnPropertyDescriptor(t, p)
    },
    set: () => false,
    deleteProperty: () => false,
    defineProperty: () => false,
  })
}

/** The lines and records lists of a table: made whole (in memory) or on demand (streamed). */
function listsOf(t: LineTable, eager: boolean): {lines: JsonlLine[]; records: JsonlRecord[]} {
  const lists = eager ? t.materialise() : {lines: lazyList(t.n, (i) => t.line(i)), records: lazyList(t.recordCount, (k) => t.record(k))}
  TABLES.set(lists.lines, t)
  TABLES.set(lists.records, t)
  return lists
}

/**
 * The records' values of a classification, in file order (what the agents' analyses read): from its table
 * without making a record object, or from `records` when that list is not the table's (a caller's own list).
 * A table whose kept values are in columns gives a read-only list that makes each value when it is read (a
 * caller that walks it holds one value at a time, not one per record).
 */
export function recordValues(cls: JsonlClassification): Array<Record<string, unknown>> {
  const t = TABLES.get(cls.records)
  if (t === undefined) return cls.records.map((r) => r.value)
  if (t.columnar) return listOfView(valuesOf(cls))
  const out = new Array<Record<string, unknown>>(t.recordCount)
  for (let k = 0; k < t.recordCount; k++) out[k] = t.value(k)
  return out
}

/** The views the lists of `listOfView` were made of. */
const VIEWS = new WeakMap<object, ValueView>()

/** A read-only list of a view's values, made when read; `viewOfValues` gives the view back. */
function listOfView(view: ValueView): Array<Record<string, unknown>> {
  const list = lazyList(view.count, (k) => view.at(k))
  VIEWS.set(list, view)
  return list
}

/**
 * A list of values as a `ValueView`: the view a list of `recordValues` or `cleanRecords` was made of (with its
 * columns), or the list read by index.
 */
export function viewOfValues(list: ReadonlyArray<Record<string, unknown>>): ValueView {
  return VIEWS.get(list) ?? {count: list.length, at: (k) => list[k]}
}

/** The records' values of a classification by index (`valuesOf`). */
export interface ValueView {
  readonly count: number
  /** The value of record `k` (made for this read when the table's kept values are in columns). */
  at(k: number): Record<string, unknown>
  /** The columns holding kept values (a reader that knows them may read a row there instead of `at`). */
  readonly columns?: KeptColumns | null
  /** The row (line index) of record `k` in `columns`, or -1 when its value is not there. */
  row?(k: number): number
}

/**
 * The records' values of a classification by index, all of them or those on clean lines only (`cleanRecords`),
 * for readers that walk every record without a list of every value: from a table whose kept values are in
 * columns, each value is made when read and is garbage once the reader moves on.
 */
export function valuesOf(cls: JsonlClassification, cleanOnly = false): ValueView {
  const t = TABLES.get(cls.records)
  if (t === undefined || TABLES.get(cls.lines) !== t || !t.columnar) {
    const list = cleanOnly ? cleanRecords(cls, false).values : recordValues(cls)
    return {count: list.length, at: (k) => list[k]}
  }
  const columns = t.keptColumns?.holder?.() ?? t.keptColumns
  if (!cleanOnly) return {count: t.recordCount, at: (k) => t.value(k), columns, row: (k) => t.columnRow(k)}
  let n = 0
  for (let k = 0; k < t.recordCount; k++) if (t.recordIsClean(k)) n++
  const at = new Int32Array(n)
  n = 0
  for (let k = 0; k < t.recordCount; k++) if (t.recordIsClean(k)) at[n++] = k
  return {count: n, at: (j) => t.value(at[j]), columns, row: (j) => t.columnRow(at[j])}
}

/**
 * The records on clean lines (a line that is one record as written: what an agent's loader reads), in file order:
 * their values and their lines' indices.
 */
export function cleanRecords(cls: JsonlClassification): {values: Array<Record<string, unknown>>; lines: number[]}
/** The values of the records on clean lines only (`cleanRecords` without their lines). */
export function cleanRecords(cls: JsonlClassification, withLines: false): {values: Array<Record<string, unknown>>; lines: null}
export function cleanRecords(cls: JsonlClassification, withLines = true): {values: Array<Record<string, unknown>>; lines: number[] | null} {
  const values: Array<Record<string, unknown>> = []
  const lines: number[] | null = withLines ? [] : null
  const t = TABLES.get(cls.records)
  if (t !== undefined && TABLES.get(cls.lines) === t && t.columnar && !withLines) {
    // Values made when read (`recordValues`).
    return {values: listOfView(valuesOf(cls, true)), lines: null}
  }
  if (t !== undefined && TABLES.get(cls.lines) === t) {
    for (let k = 0; k < t.recordCount; k++) {
      if (!t.recordIsClean(k)) continue
      values.push(t.value(k))
      lines?.push(t.recordLine(k))
    }
    return {values, lines}
  }
  for (const r of cls.records) {
    if (cls.lines[r.line].kind !== 'record') continue
    values.push(r.value)
    lines?.push(r.line)
  }
  return {values, lines}
}

/** The lines of a classification by index, for readers that walk every line without making an object per line. */
export interface LineView {
  readonly count: number
  kind(i: number): JsonlLine['kind']
  /** True for a clean record line (made on demand only when a caller asks for its object). */
  isClean(i: number): boolean
  start(i: number): number
  end(i: number): number
  next(i: number): number
  eol(i: number): JsonlLine['eol']
  /** The value of the one record of a clean line. */
  cleanValue(i: number): Record<string, unknown>
  line(i: number): JsonlLine
  /** The indices of the lines that are neither clean records nor blank (the damaged lines), in order. */
  others(): number[]
}

/** The lines of `cls` as a view: its table, or its `lines` list. */
export function linesOf(cls: JsonlClassification): LineView {
  const t = TABLES.get(cls.lines)
  if (t !== undefined) return {count: t.n, kind: (i) => t.kind(i), isClean: (i) => t.isClean(i), start: (i) => t.start(i), end: (i) => t.end(i), next: (i) => t.next(i), eol: (i) => t.eol(i), cleanValue: (i) => t.cleanValue(i), line: (i) => t.line(i), others: () => t.heldIndices().filter((i) => !t.isClean(i))}
  const ls = cls.lines
  const clean = isCleanLine
  return {
    count: ls.length,
    kind: (i) => ls[i].kind,
    isClean: (i) => clean(ls[i]),
    start: (i) => ls[i].start,
    end: (i) => ls[i].end,
    next: (i) => ls[i].next,
    eol: (i) => ls[i].eol,
    cleanValue: (i) => ls[i].records[0].value,
    line: (i) => ls[i],
    others: () => ls.flatMap((l, i) => (l.kind === 'blank' && l.action === 'keep') || clean(l) ? [] : [i]),
  }
}

/** A line that is one clean record kept as it is. */
function isCleanLine(l: JsonlLine): boolean {
  return l.kind === 'record' && l.action === 'keep' && l.records.length === 1 && l.reasons.length === 0
}

/** No reasons (shared by the clean lines; a damaged line gets its own list). */
const NO_REASONS: LineReason[] = []

function makeRecord(line: number, value: Record<string, unknown>, bytes: Uint8Array, offset: number | null, clean: boolean, o: CoreOptions): Made {
  const own = o.streamed ? (clean ? null : Buffer.from(bytes)) : bytes
  const rec: Made = {line, value: o.keep ? o.keep(value) : value, bytes: own, length: bytes.length, offset}
  if (mayHoldSurrogateEscape(bytes)) {
    const at = loneSurrogatePath(value)
    if (at !== null) rec.lone = at
  }
  return rec
}

/**
 * The line rules over a sequence of lines (a buffer's, or a file's read by streaming): the same rules, the
 * same verdicts, whichever reader gives the lines. `source` gives the bytes of lines a record spread over
 * several lines is rejoined from; `tailFrom` is where the file's NUL tail starts; `foreign` whether its first
 * byte of content is other content (`startsForeign`). The lines go into a `LineTable`: a clean record or blank
 * line as columns, any other line as an object.
 */
function classifyLines(lines0: Iterable<RawLine>, source: ByteSource, tailFrom: number, foreign: () => boolean, o: CoreOptions, inMemory: Uint8Array | null): JsonlClassification {
  const isRecord = o.isRecord
  const t = new LineTable(inMemory, o.columns ?? null)
  let crlf = 0
  let ended = 0
  for (const raw of lines0) {
    const i = t.n
    const {start, end, next, eol} = raw
    if (eol === 'crlf') crlf++
    if (eol !== 'none') ended++
    if (!raw.stripped && raw.bytes.length > 0) {
      // Fast path: a line of valid UTF-8 without NULs that parses as one object is a record as it stands.
      let s: string | null
      try {
        s = decodeUtf8Strict(raw.bytes)
      } catch {
        s = null
      }
      if (s !== null && !s.includes('\u0000')) {
        try {
          const v: unknown = JSON.parse(s)
          if (isPlainObject(v)) {
            const rec = makeRecord(i, v, raw.bytes, start, true, o)
            // A clean line is a row of the table (unless it holds a lone surrogate: held apart, to be listed).
            if (rec.lone === undefined) t.pushClean(start, end, eol, rec.value)
            else t.pushHeld({index: i, start, end, next, eol, kind: 'record', reasons: NO_REASONS, action: 'keep', records: [rec]})
            continue
          }
        } catch {
          // slow path below
        }
      }
    }
    const f = classifyLine(raw, tailFrom, isRecord)
    if (f.kind === 'blank' && f.records.length === 0 && !f.prefix && !f.nulOnly) {
      t.pushBlank(start, end, eol)
      continue
    }
    const line: JsonlLine = {index: i, start, end, next, eol, kind: f.kind, reasons: f.reasons, action: f.action, records: f.records.map((r) => makeRecord(i, r.value, r.bytes, r.offset, f.kind === 'record', o))}
    if (f.prefix) (line as Scratch).prefix = true
    if (f.nulOnly) (line as Scratch).nulOnly = true
    // NULs between a line's `\r` and its `\n` stand inside its CRLF: the records it keeps end it with `\r\n`,
    // so a repair removes the NULs only.
    if (eol === 'lf' && f.records.length > 0 && crBeforeTrailingNuls(raw.bytes)) line.eol = 'crlf'
    t.pushHeld(line)
  }

  // The final line is the last one that is neither blank nor only the NULs of the tail.
  const tailNuls = (i: number): boolean => {
    const h = t.held.get(i) as Scratch | undefined
    return h !== undefined && h.nulOnly === true && h.reasons.includes('nul-tail')
  }
  let last = t.n - 1
  while (last >= 0 && (t.kind(last) === 'blank' || tailNuls(last))) last--

  // Cut records: a torn tail at the end, a record spread over lines, or a torn interior line.
  let skipTo = -1
  for (const i of t.heldIndices()) {
    if (i <= skipTo) continue
    const line = t.held.get(i) as Scratch
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
      for (let j = i + 1; j < t.n && j <= i + MAX_SPLIT_LINES; j++) {
        if (t.kind(j) === 'record') break
        const r = joinedRecord(source, t, i, j, isRecord)
        if (r) {
          joined = {k: j, ...r}
          break
        }
      }
      if (joined) {
        const rec = makeRecord(i, joined.value, joined.bytes, null, false, {...o, streamed: false})
        for (let j = i; j <= joined.k; j++) {
          const l = t.own(j)
          l.kind = 'damaged'
          l.action = j === i ? 'rewrite' : 'drop'
          l.records = j === i ? [rec] : []
          l.reasons = ['split-record']
          l.partOf = i
          delete (l as Scratch).prefix
        }
        line.joinedThrough = joined.k
        skipTo = joined.k
        continue
      }
    }
    if (!line.reasons.includes('invalid-utf8')) line.reasons.push('torn-interior')
  }
  const held = t.heldIndices()
  for (const i of held) {
    const l = t.held.get(i)!
    delete (l as Scratch).prefix
    delete (l as Scratch).nulOnly
  }
  t.indexRecords()

  // Not a log at all: no record anywhere, and the first byte is not where a record would start.
  if (t.recordCount === 0 && foreign()) {
    for (const i of held) {
      const l = t.held.get(i)!
      if (l.kind === 'damaged') l.reasons = ['foreign-content']
    }
  }

  const counts = emptyCounts()
  const reasons = new Set<LineReason>()
  const loneSurrogates: LoneSurrogate[] = []
  const damaged: JsonlLine[] = []
  counts.total = t.n
  let h = 0
  for (let i = 0; i < t.n; i++) {
    if (h < held.length && held[h] === i) {
      h++
      const l = t.held.get(i)!
      if (l.kind === 'blank') counts.blank++
      else if (l.kind === 'record') counts.intact++
      else {
        counts.damaged++
        damaged.push(l)
        for (const r of l.reasons) {
          reasons.add(r)
          counts.byReason[r] = (counts.byReason[r] ?? 0) + 1
        }
        if (counts.firstDamaged.length < 20) counts.firstDamaged.push({line: l.index + 1, offset: l.start, length: l.next - l.start, reasons: [...l.reasons]})
      }
      for (const r of l.records as Made[]) {
        if (r.lone === undefined) continue
        loneSurrogates.push({line: l.index, path: r.lone})
        delete r.lone
      }
    } else if (t.isClean(i)) counts.intact++
    else counts.blank++
  }
  counts.records = t.recordCount
  let cls: JsonlClassification['class'] = 'intact'
  if (damaged.length > 0) {
    // Truncated: the only cut is the final record's, and nothing but the NUL tail follows it.
    const torn = damaged.filter((l) => l.reasons.includes('torn-tail'))
    const onlyTail = torn.length === 1 && torn[0].index === last && damaged.every((l) => (l === torn[0] ? l.reasons.every((r) => r === 'torn-tail' || r === 'torn-utf8' || r === 'nul-tail') : l.index > last && l.reasons.every((r) => r === 'nul-tail')))
    cls = onlyTail ? 'truncated' : 'corrupt'
  }
  const first = damaged[0]
  const {lines, records} = listsOf(t, inMemory !== null)
  return {
    class: cls,
    reasons: REASON_ORDER.filter((r) => reasons.has(r)),
    lines,
    records,
    counts,
    damage: first ? {offset: first.start, length: first.next - first.start} : undefined,
    eol: crlf > 0 && crlf * 2 >= ended ? 'crlf' : 'lf',
    loneSurrogates,
  }
}

/**
 * One line of a repair's result as its planner makes it: a line of the log kept as it is (`from`, whose verdict
 * is known: a clean record or a blank line), or new content (`bytes`: a record the repair rewrote, split out,
 * rejoined, re-linked or amended). `eol` is the line ending the result gives it.
 */
export interface ResultLine {
  /** The index of the log's line kept as it is; null for new content. */
  from: number | null
  /** The new content (no line ending); null for a kept line. */
  bytes: Uint8Array | null
  /** The content's length. */
  length: number
  eol: JsonlLine['eol']
}

/**
 * The classification of a repair's result made from its lines instead of reading and classifying the result
 * again, for a log read by streaming (`streamed` records: no bytes of clean lines kept). Exact: a line's verdict
 * depends on its own bytes only when it is a clean record or blank, so a line kept as it is keeps the verdict
 * and the kept record value the log's classification gave it (and its lone-surrogate path), and new content is
 * put through the same line rules (the fast path of `classifyLines`: strict UTF-8, no NUL, one JSON object).
 * Null, for the caller to classify the result in full, when that is not enough to know: new content that is not
 * one clean record on its own, a kept line whose line ending the repair changed, content ending in a CR before
 * an LF (the result would read them as a CR LF), or a result holding no record.
 */
export function classifyResult(result: readonly ResultLine[], before: JsonlClassification, opts: JsonlClassifyOptions & Pick<JsonlClassifyStreamOptions, 'keep' | 'columns'> = {}): JsonlClassification | null {
  const o: CoreOptions = {isRecord: opts.isRecord ?? anyObject, keep: opts.keep, streamed: true}
  const lone = new Map<number, string>()
  for (const x of before.loneSurrogates) lone.set(x.line, x.path)
  const was = linesOf(before)
  const t = new LineTable(null, opts.columns?.() ?? null)
  const loneSurrogates: LoneSurrogate[] = []
  const counts = emptyCounts()
  let at = 0
  let crlf = 0
  let ended = 0
  for (const r of result) {
    const i = t.n
    const start = at
    const end = start + r.length
    const next = end + (r.eol === 'crlf' ? 2 : r.eol === 'lf' ? 1 : 0)
    at = next
    if (r.eol === 'crlf') crlf++
    if (r.eol !== 'none') ended++
    counts.total++
    if (r.from !== null) {
      const f = r.from
      if (was.eol(f) !== r.eol || was.end(f) - was.start(f) !== r.length) return null
      const kind = was.kind(f)
      if (kind === 'blank') {
        counts.blank++
        t.pushBlank(start, end, r.eol)
        continue
      }
      let value: Record<string, unknown>
      if (was.isClean(f)) value = was.cleanValue(f)
      else {
        const l = was.line(f)
        if (l.kind !== 'record' || l.records.length !== 1) return null
        value = l.records[0].value
      }
      const path = lone.get(f)
      if (path === undefined) t.pushClean(start, end, r.eol, value)
      else {
        t.pushHeld({index: i, start, end, next, eol: r.eol, kind: 'record', reasons: NO_REASONS, action: 'keep', records: [{line: i, value, bytes: null, length: r.length, offset: start}]})
        loneSurrogates.push({line: i, path})
      }
      counts.intact++
      continue
    }
    const bytes = r.bytes
    if (bytes === null || bytes.length !== r.length || bytes.length === 0) return null
    if (r.eol === 'lf' && bytes[bytes.length - 1] === 0x0d) return null
    let v: unknown
    try {
      const s = decodeUtf8Strict(bytes)
      if (s.includes('\u0000')) return null
      v = JSON.parse(s)
    } catch {
      return null
    }
    if (!isPlainObject(v)) return null
    const rec = makeRecord(i, v, bytes, start, true, o)
    if (rec.lone === undefined) t.pushClean(start, end, r.eol, rec.value)
    else {
      loneSurrogates.push({line: i, path: rec.lone})
      delete rec.lone
      t.pushHeld({index: i, start, end, next, eol: r.eol, kind: 'record', reasons: NO_REASONS, action: 'keep', records: [rec]})
    }
    counts.intact++
  }
  t.indexRecords()
  if (t.recordCount === 0) return null
  counts.records = t.recordCount
  const {lines, records} = listsOf(t, false)
  return {class: 'intact', reasons: [], lines, records, counts, damage: undefined, eol: crlf > 0 && crlf * 2 >= ended ? 'crlf' : 'lf', loneSurrogates}
}

const emptyCounts = (): LineCounts => ({total: 0, intact: 0, blank: 0, damaged: 0, records: 0, byReason: {}, firstDamaged: []})

function emptyClass(size: number, cls: 'empty' | 'zero-filled'): JsonlClassification {
  return {class: cls, reasons: [], lines: [], records: [], counts: emptyCounts(), ...(cls === 'zero-filled' ? {damage: {offset: 0, length: size}} : {}), eol: 'lf', loneSurrogates: []}
}

/**
 * Classifies the bytes of a JSONL file line by line. Fast path per line: a strict UTF-8 decode, then
 * `JSON.parse`; the slow path runs only for lines that fail. `opts.isRecord` is the format's record rule for
 * what the slow path carves out of damaged lines; `opts.keep` what of each record's value is kept. Never throws.
 */
export function classifyJsonlBytes(buf: Uint8Array, opts: JsonlClassifyOptions & {keep?: KeepRecord} = {}): JsonlClassification {
  if (isBlank(buf)) return emptyClass(buf.length, 'empty')
  if (isAllNul(buf)) return emptyClass(buf.length, 'zero-filled')
  const src = bufferSource(buf)
  return classifyLines(bufferLines(buf), src, nulTailFrom(src), () => startsForeign(src), {isRecord: opts.isRecord ?? anyObject, keep: opts.keep, streamed: false}, buf)
}

/** Bytes the streaming reader reads at a time. */
const CHUNK_BYTES = 1 << 20

/**
 * A line longer than this is read without its NUL bytes (they are counted, never held): a crash's run of NULs
 * runs into the next record as one line of hundreds of MB. Its other bytes are held, so the memory a file
 * takes grows with its longest line's bytes other than NUL, never with the file.
 */
export const LONG_LINE_BYTES = 1 << 24

/** Options of the streaming classification (`classifyJsonlFile`). */
export interface JsonlClassifyStreamOptions extends JsonlClassifyOptions {
  /**
   * What of a record's value the classification keeps (default: all of it). The streaming path exists to keep
   * little: a format's `keep` keeps what its analysis, acceptance and repair rules read, nothing else.
   */
  keep?: KeepRecord
  /**
   * A fresh store for the kept values of clean lines (`KeptColumns`, a format's own), made once per
   * classification; kept values it refuses are held as objects.
   */
  columns?: () => KeptColumns
  /** Bytes per read (tests use small ones). */
  chunkBytes?: number
  /** Override of `LONG_LINE_BYTES` (tests use a small one). */
  longLineBytes?: number
}

/** What streaming a log gave: its classification, the sha256 and the count of the bytes read. */
export interface JsonlFileVerdict {
  cls: JsonlClassification
  sha256: string
  /** Bytes read (the size when the file did not change meanwhile). */
  bytes: number
}

/** A run of 64 KiB of NULs, to skip NUL runs with a native compare. */
const ZEROS = Buffer.alloc(1 << 16)

/**
 * A line over the long-line size, read with each run of NULs held as one NUL byte: the run is skipped, never
 * held, and the pieces on either side of it stay apart as they are in the file.
 */
class LongLine {
  acc: Buffer
  len = 0
  firstNul = -1
  lastRaw = -1
  /** The last byte fed was a NUL (a run may go on in the next segment). */
  private inNul = false
  constructor(
    readonly start: number,
    readonly bom: boolean,
  ) {
    this.acc = Buffer.allocUnsafe(1 << 16)
  }

  /** Adds raw bytes of the line at file offset `at`: each NUL run kept as one NUL, the rest as it is. */
  feed(seg: Buffer, at: number): void {
    if (seg.length === 0) return
    this.lastRaw = seg[seg.length - 1]
    let i = 0
    while (i < seg.length) {
      const z = seg.indexOf(0, i)
      const stop = z < 0 ? seg.length : z
      if (stop > i) {
        this.put(seg, i, stop)
        this.inNul = false
      }
      if (z < 0) break
      if (this.firstNul < 0) this.firstNul = at + z
      if (!this.inNul) {
        this.put(ZEROS, 0, 1)
        this.inNul = true
      }
      let j = z
      while (j + ZEROS.length <= seg.length && seg.subarray(j, j + ZEROS.length).equals(ZEROS)) j += ZEROS.length
      while (j < seg.length && seg[j] === 0) j++
      i = j
    }
  }

  private put(seg: Buffer, from: number, to: number): void {
    const n = to - from
    if (n <= 0) return
    if (this.len + n > this.acc.length) {
      const next = Buffer.allocUnsafe(Math.max(this.acc.length * 2, this.len + n))
      this.acc.copy(next, 0, 0, this.len)
      this.acc = next
    }
    seg.copy(this.acc, this.len, from, to)
    this.len += n
  }

  /** The line, ended by an LF at `lf` (file offset), or by the end of the file at `lf` (`ended` false). */
  line(lf: number, ended: boolean): RawLine {
    const cr = ended && this.lastRaw === 0x0d
    if (cr) this.len--
    const end = cr ? lf - 1 : lf
    const bytes = this.acc.subarray(0, this.len)
    return {start: this.start, end, next: ended ? lf + 1 : lf, eol: ended ? (cr ? 'crlf' : 'lf') : 'none', bytes, ...(this.firstNul >= 0 ? {stripped: {bom: this.bom, firstNul: this.firstNul}} : {})}
  }
}

/**
 * The physical lines of a source, read in chunks of `chunkBytes`; `onChunk` sees every byte read, once, in
 * order. A line is handed over as a view of the reader's buffer (valid until the next line); one longer than
 * `longLineBytes` is gathered without its NULs (`LongLine`).
 */
function* sourceLines(src: ByteSource, onChunk: (b: Buffer) => void, chunkBytes: number, longLineBytes: number): Generator<RawLine> {
  let buf = Buffer.allocUnsafe(chunkBytes * 2)
  let base = 0 // file offset of buf[0]
  let have = 0 // bytes of buf in use
  let s = 0 // start of the current line in buf
  let at = 0 // file offset read up to
  let long: LongLine | null = null
  for (;;) {
    if (have + chunkBytes > buf.length) {
      const next = Buffer.allocUnsafe(have + chunkBytes)
      buf.copy(next, 0, 0, have)
      buf = next
    }
    const n = src.readInto(buf, have, chunkBytes, at)
    if (n === 0) break
    onChunk(buf.subarray(have, have + n))
    const fresh = have
    have += n
    at += n
    const view = buf.subarray(0, have)
    let from = fresh
    if (long) {
      const lf = view.indexOf(0x0a, fresh)
      if (lf < 0) {
        long.feed(view.subarray(fresh, have), base + fresh)
        base += have
        have = 0
        s = 0
        continue
      }
      long.feed(view.subarray(fresh, lf), base + fresh)
      yield long.line(base + lf, true)
      long = null
      s = lf + 1
      from = s
    }
    for (;;) {
      const lf = view.indexOf(0x0a, from)
      if (lf < 0) break
      const cr = lf > s && view[lf - 1] === 0x0d
      const end = cr ? lf - 1 : lf
      yield {start: base + s, end: base + end, next: base + lf + 1, eol: cr ? 'crlf' : 'lf', bytes: view.subarray(s, end)}
      s = lf + 1
      from = s
    }
    if (have - s > longLineBytes) {
      long = new LongLine(base + s, hasBom(view.subarray(s, s + 3)))
      long.feed(view.subarray(s, have), base + s)
      s = have
    }
    // Keep only the current line's bytes, at the front.
    if (s > 0) {
      buf.copy(buf, 0, s, have)
      base += s
      have -= s
      s = 0
    }
  }
  if (long) yield long.line(base + have, false)
  else if (have > s) yield {start: base + s, end: base + have, next: base + have, eol: 'none', bytes: buf.subarray(s, have)}
}

/**
 * Classifies a JSONL log by streaming it from a source: read in chunks, never as one buffer; the same line rules
 * and the same verdict as `classifyJsonlBytes` on its bytes. What is kept per line is its place and verdict and,
 * per record, what `opts.keep` keeps of its value; the bytes of a clean line are not kept (they are the
 * source's own, at `offset`), those of a damaged line's records are. Throws what reading the source throws.
 */
export function classifyJsonlSource(src: ByteSource, opts: JsonlClassifyStreamOptions = {}): JsonlFileVerdict {
  const hash = createHash('sha256')
  let bytes = 0
  let blank = true
  let allNul = true
  const onChunk = (b: Buffer) => {
    hash.update(b)
    bytes += b.length
    if (blank && !isBlank(b)) blank = false
    if (allNul && !isAllNul(b)) allNul = false
  }
  const lines = sourceLines(src, onChunk, Math.max(1, opts.chunkBytes ?? CHUNK_BYTES), Math.max(1, opts.longLineBytes ?? LONG_LINE_BYTES))
  const cls = classifyLines(lines, src, nulTailFrom(src), () => startsForeign(src), {isRecord: opts.isRecord ?? anyObject, keep: opts.keep, columns: opts.columns?.(), streamed: true}, null)
  const sha256 = hash.digest('hex')
  if (blank) return {cls: emptyClass(bytes, 'empty'), sha256, bytes}
  if (allNul) return {cls: emptyClass(bytes, 'zero-filled'), sha256, bytes}
  return {cls, sha256, bytes}
}

/** Opens a file for reading without following a symbolic link or blocking on a FIFO; its descriptor and size. */
export function openLog(file: string): {fd: number; size: number} {
  const fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK)
  try {
    return {fd, size: fstatSync(fd).size}
  } catch (e) {
    closeSync(fd)
    throw e
  }
}

/** `classifyJsonlSource` of a file by its path. Throws what opening or reading it throws. */
export function classifyJsonlFile(file: string, opts: JsonlClassifyStreamOptions = {}): JsonlFileVerdict {
  const {fd, size} = openLog(file)
  try {
    return classifyJsonlSource(fileSource(fd, size), opts)
  } finally {
    closeSync(fd)
  }
}
