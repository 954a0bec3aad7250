/**
 * Classification of one JSON file's bytes: bytes first, then syntax. Shape (does the value hold what its
 * role needs?) is the format adapter's business and comes after this.
 *
 * Rules (README "Classes"; issue #2):
 * - `empty`: 0 bytes or whitespace only.
 * - `zero-filled`: every byte is NUL.
 * - `truncated`: a proper prefix of a JSON document (`unexpected-end`), optionally cut inside a multi-byte
 *   character (`torn-utf8`) and/or padded to its size with NULs (`nul-tail`).
 * - `corrupt`: anything else the loader rejects or only loads by replacing bad bytes: `bom`, `invalid-utf8`,
 *   `nul-tail` after a complete document, `trailing-garbage`, `concatenated`, `nul-run`, `syntax-error`.
 * - `intact`: parses strictly. (The adapter may still turn it into `contextless` or `corrupt`/`wrong-shape`.)
 */
import type {Classification, Reason} from '../model.js'
import {checkUtf8, decodeUtf8Strict, hasBom, indexOfByte, isAllNul, isBlank, isJsonWhitespace, nulTailStart} from './bytes.js'
import {scanValue, skipWhitespace} from './json.js'

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

/** The slow path: the bytes do not parse strictly; find the class, the reasons and the first damaged byte. */
function explainFailure(buf: Uint8Array): Classification {
  const reasons: Reason[] = []
  const bom = hasBom(buf)
  const start = bom ? 3 : 0
  if (bom) reasons.push('bom')
  const tail = nulTailStart(buf)
  const hasNulTail = tail < buf.length
  const end = tail
  const firstNul = indexOfByte(buf, 0, start, end)
  const utf8 = checkUtf8(buf, start, firstNul >= 0 ? firstNul : end)
  // A character cut by the end of the written bytes. It is a truncation only if the scanner (which takes every
  // byte >= 0x80 as string content) finds it inside a string; anywhere else no JSON document could go on.
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
  if (invalidAt >= 0) reasons.push('invalid-utf8')
  if (firstNul >= 0) reasons.push('nul-run')
  // The first damaged byte: a BOM is at 0; otherwise the earliest of the byte-level damage and `fallback`.
  const damageFrom = (fallback: number) => (bom ? 0 : firstDamage(invalidAt, firstNul, fallback))
  const located = (at: number): Classification['damage'] => ({offset: at, length: buf.length - at})

  const scan = scanValue(buf, start, end)
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
    if (buf[scan.at] !== 0 && scan.at !== invalidAt) reasons.push('syntax-error')
    return {class: 'corrupt', reasons: uniq(reasons), damage: located(damageFrom(scan.at))}
  }
  // A complete document ends at scan.end; look at what follows it.
  const after = skipWhitespace(buf, scan.end, end)
  if (after < end) {
    reasons.push(isConcatenation(buf, after, end) ? 'concatenated' : 'trailing-garbage')
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
