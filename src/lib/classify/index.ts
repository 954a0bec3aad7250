/**
 * Classification of one JSON file's bytes: bytes first, then syntax. Shape (does the value hold what its
 * role needs?) is the format adapter's business and comes after this.
 *
 * Rules (README "Classes"):
 * - `empty`: 0 bytes or whitespace only.
 * - `zero-filled`: every byte is NUL.
 * - `truncated`: a proper prefix of a JSON document (`unexpected-end`), optionally cut inside a multi-byte
 *   character (`torn-utf8`) and/or padded to its size with NULs (`nul-tail`).
 * - `corrupt`: anything else the loader rejects or only loads by replacing bad bytes: `bom`, `invalid-utf8`,
 *   `nul-tail` after a complete document, `trailing-garbage`, `concatenated`, `nul-run`, `syntax-error`, and
 *   `foreign-content` when the file is other content from its first byte (text, code, binary data: `looksForeign`).
 * - `intact`: parses strictly. (The adapter may still turn it into `contextless` or `corrupt`/`wrong-shape`.)
 */
import type {Classification, Reason} from '../model/report.js'
import {FOREIGN_HEAD_BYTES, checkUtf8, decodeUtf8Strict, hasBom, indexOfByte, isAllNul, isBlank, isJsonWhitespace, looksForeign, nulTailStart} from './bytes.js'
import {scanValue, skipWhitespace, type ScanResult} from './json.js'

/**
 * Classifies the bytes of a file that should hold one JSON document.
 *
 * Fast path: a strict UTF-8 decode and `JSON.parse` (one native pass each). Only when that fails does the
 * byte scanner run to say why and where. Returns the parsed value for `intact`. Never throws.
 */
export function classifyJsonBytes(buf: Uint8Array): Classification {
  if (isBlank(buf)) return {class: 'empty', reasons: []}
  if (isAllNul(buf)) return {class: 'zero-filled', reasons: [], damage: {offset: 0, length: buf.length}}
  if (!hasBom(buf) && buf[buf.length - 1] !== 0 && mayBeWhole(buf)) {
    try {
      return {class: 'intact', reasons: [], value: JSON.parse(decodeUtf8Strict(buf))}
    } catch {
      // Not strictly valid: work out why below.
    }
  }
  return explainFailure(buf)
}

/**
 * A necessary condition for a whole document, checked in O(1) before `JSON.parse`: an object must end in `}`,
 * an array in `]`, a string in `"` (ignoring JSON whitespace). A failing `JSON.parse` costs several times a
 * successful one in V8, and a torn file almost never passes this check, so the slow path is not paid twice.
 */
function mayBeWhole(buf: Uint8Array): boolean {
  const first = buf[skipWhitespace(buf, 0)]
  let last = buf.length - 1
  while (last > 0 && isJsonWhitespace(buf[last])) last--
  const close = first === 0x7b ? 0x7d : first === 0x5b ? 0x5d : first === 0x22 ? 0x22 : -1
  return close < 0 || buf[last] === close
}

function uniq(reasons: Reason[]): Reason[] {
  return [...new Set(reasons)]
}

/**
 * What the slow path establishes about a file's bytes before it decides the class. The in-memory path
 * (`gatherFacts`) and the streaming path (`stream.ts`) both produce these, and `decideFailure` turns them into
 * the verdict, so the two paths cannot disagree on the rules. Offsets in bytes from the start of the file.
 */
export interface FailureFacts {
  /** File size in bytes. */
  length: number
  bom: boolean
  /** Where the document may start: 3 after a BOM, else 0. */
  start: number
  /** Start of the trailing run of NULs (`length` when the last byte is not NUL). */
  tail: number
  /** First NUL in `[start, tail)`, or -1. */
  firstNul: number
  /** First invalid UTF-8 sequence, or -1. */
  invalidAt: number
  /**
   * Start of a multi-byte character cut by the end of the written bytes (the NUL tail or EOF), when nothing
   * else is wrong with UTF-8 before it; -1 otherwise. It is a truncation only if the scanner (which takes every
   * byte >= 0x80 as string content) finds it inside a string; anywhere else no JSON document could go on.
   */
  tornAt: number
  /** End of the range the syntax scan covered: `tail`. */
  end: number
  /** The syntax scan of `[start, end)`. */
  scan: ScanResult
  /** For an `error` scan: the scanner stopped on a byte already reported (a NUL, or the invalid UTF-8 byte). */
  errorOnReportedByte: boolean
  /** Offset of the first non-whitespace byte in `[start, end)` (`end` when there is none). */
  firstAt: number
  /** The file's first `FOREIGN_HEAD_BYTES` bytes (fewer for a shorter file). */
  head: Uint8Array
  /** For a complete scan: the first non-whitespace byte after the document in `[scan.end, end)`, or `end`. */
  after: number
  /** For a complete scan with `after < end`: `[after, end)` is one or more further complete documents. */
  concatenated: boolean
}

/** The in-memory fact gathering of the slow path. */
function gatherFacts(buf: Uint8Array): FailureFacts {
  const bom = hasBom(buf)
  const start = bom ? 3 : 0
  const tail = nulTailStart(buf)
  const end = tail
  const firstNul = indexOfByte(buf, 0, start, end)
  const utf8 = checkUtf8(buf, start, firstNul >= 0 ? firstNul : end)
  let tornAt = -1
  let invalidAt = -1
  if (!utf8.ok) {
    if (utf8.kind === 'torn' && firstNul < 0) tornAt = utf8.offset
    else invalidAt = utf8.offset
  }
  // UTF-8 problems after an interior NUL run matter too.
  if (invalidAt < 0 && firstNul >= 0) {
    const rest = checkUtf8(buf, firstNul, end)
    if (!rest.ok && rest.kind === 'invalid') invalidAt = rest.offset
  }
  const scan = scanValue(buf, start, end)
  const errorOnReportedByte = scan.kind === 'error' && (buf[scan.at] === 0 || scan.at === invalidAt)
  const firstAt = skipWhitespace(buf, start, end)
  let after = end
  let concatenated = false
  if (scan.kind === 'complete') {
    after = skipWhitespace(buf, scan.end, end)
    if (after < end) concatenated = isConcatenation(buf, after, end)
  }
  const head = buf.subarray(0, FOREIGN_HEAD_BYTES)
  return {length: buf.length, bom, start, tail, firstNul, invalidAt, tornAt, end, scan, errorOnReportedByte, firstAt, head, after, concatenated}
}

/** The slow path: the bytes do not parse strictly; find the class, the reasons and the first damaged byte. */
function explainFailure(buf: Uint8Array): Classification {
  return decideFailure(gatherFacts(buf))
}

/** The verdict of the slow path from its facts (shared by the in-memory and streaming paths). */
export function decideFailure(f: FailureFacts): Classification {
  const {length, bom, tail, firstNul, invalidAt, tornAt, end, scan} = f
  const reasons: Reason[] = []
  if (bom) reasons.push('bom')
  const hasNulTail = tail < length
  if (invalidAt >= 0) reasons.push('invalid-utf8')
  if (firstNul >= 0) reasons.push('nul-run')
  // The first damaged byte: a BOM is at 0; otherwise the earliest of the byte-level damage and `fallback`.
  const damageFrom = (fallback: number) => (bom ? 0 : firstDamage(invalidAt, firstNul, fallback))
  const located = (at: number): Classification['damage'] => ({offset: at, length: length - at})

  if (scan.kind === 'eof') {
    const cutAt = tornAt >= 0 ? tornAt : end
    if (!bom && invalidAt < 0 && firstNul < 0) {
      const r: Reason[] = ['unexpected-end']
      if (tornAt >= 0) r.push('torn-utf8')
      if (hasNulTail) r.push('nul-tail')
      return {class: 'truncated', reasons: r, damage: located(cutAt)}
    }
    reasons.push('unexpected-end')
    if (tornAt >= 0) reasons.push('torn-utf8')
    return {class: 'corrupt', reasons: uniq(reasons), damage: located(damageFrom(cutAt))}
  }
  if (scan.kind === 'error') {
    // A syntax error of its own, unless the scanner stopped on the NUL or invalid byte already reported.
    if (!f.errorOnReportedByte) reasons.push('syntax-error')
    // Not a damaged document but other content from the first byte on (text, code, binary data).
    if (looksForeign(f.head, f.firstAt)) reasons.push('foreign-content')
    return {class: 'corrupt', reasons: uniq(reasons), damage: located(damageFrom(scan.at))}
  }
  // A complete document ends at scan.end; look at what follows it.
  const after = f.after
  if (after < end) {
    reasons.push(f.concatenated ? 'concatenated' : 'trailing-garbage')
    return {class: 'corrupt', reasons: uniq(reasons), damage: located(damageFrom(after))}
  }
  if (hasNulTail) reasons.push('nul-tail')
  return {class: 'corrupt', reasons: uniq(reasons), damage: located(damageFrom(tail))}
}

function firstDamage(...offsets: number[]): number {
  return Math.min(...offsets.filter((o) => o >= 0))
}

/** True when `buf[start, end)` is one or more further complete JSON documents separated by whitespace. */
function isConcatenation(buf: Uint8Array, start: number, end: number): boolean {
  let i = start
  let docs = 0
  while (i < end) {
    const r = scanValue(buf, i, end)
    if (r.kind !== 'complete') return false
    docs++
    i = skipWhitespace(buf, r.end, end)
  }
  return docs > 0
}
