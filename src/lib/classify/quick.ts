/**
 * Quick classification (`scan --quick`): a verdict from a file's size, its first `QUICK_HEAD_BYTES` and its
 * last `QUICK_TAIL_BYTES` only, so its cost does not grow with the file (like SQLite's `quick_check`). A file no
 * larger than the two windows is read whole and gets the full classifier's verdict (`classifyQuick`, verified).
 * From the ends of a larger one it finds: empty, all NUL (`zero-filled`), a BOM, a NUL tail, an unclosed end (a
 * `{`/`[` document whose last byte is not the matching closer). It cannot see damage in the middle of such a
 * file (a NUL run, invalid UTF-8, a syntax error, a cut that happens to end in the closer): `intact` from the
 * ends is never verified, it only means the ends look whole.
 */
import type {Classification, Reason} from '../model/report.js'
import {hasBom, isBlank, isJsonWhitespace} from './bytes.js'
import {classifyJsonBytes} from './index.js'

/** Bytes read from the start of each file. */
export const QUICK_HEAD_BYTES = 4096
/** Bytes read from the end of each file. */
export const QUICK_TAIL_BYTES = 64 * 1024

/** What `--quick` reads of one file: its size and the bytes at both ends (offsets in bytes). */
export interface FileEnds {
  /** Size in bytes. */
  size: number
  /** The first `min(size, QUICK_HEAD_BYTES)` bytes, or the whole file when it is no larger than head + tail. */
  head: Uint8Array
  /** The last bytes of the file (may overlap `head`); equal to `head` when the whole file was read. */
  tail: Uint8Array
}

/** How much of each file quick mode reads. */
export interface QuickWindow {
  headBytes: number
  tailBytes: number
}

/** The windows `scan --quick` reads. */
export const QUICK_WINDOW: QuickWindow = {headBytes: QUICK_HEAD_BYTES, tailBytes: QUICK_TAIL_BYTES}

/** True when `ends` holds the whole file. */
function whole(ends: FileEnds): boolean {
  return ends.head.length === ends.size
}

/**
 * What quick mode reads of a file whose bytes are `buf` (the same as `readEnds` reads from disk): the whole file
 * when it is no larger than the two windows, else its head and tail.
 */
export function endsOf(buf: Uint8Array, window: QuickWindow = QUICK_WINDOW): FileEnds {
  if (buf.length <= window.headBytes + window.tailBytes) return {size: buf.length, head: buf, tail: buf}
  return {size: buf.length, head: buf.subarray(0, window.headBytes), tail: buf.subarray(buf.length - window.tailBytes)}
}

/** A quick verdict, and whether it was made from the whole file. */
export interface QuickVerdict extends Classification {
  /** True when the whole file was read and classified; false when only its ends were. */
  verified: boolean
}

/**
 * The quick verdict on one file: the full classifier's (`classifyJsonBytes`, without the parsed value) when
 * `ends` holds the whole file, else `classifyEnds` with `verified: false`. Never throws.
 */
export function classifyQuick(ends: FileEnds): QuickVerdict {
  if (whole(ends)) {
    const {value: _value, ...c} = classifyJsonBytes(ends.head)
    return {...c, verified: true}
  }
  return {...classifyEnds(ends), verified: false}
}

/**
 * Classifies a file from its ends. Returns `intact` (meaning: no damage seen at either end), `empty`,
 * `zero-filled`, `truncated` (`unexpected-end`, plus `nul-tail`) or `corrupt` (`bom`; `nul-tail` after a
 * closed end). Damage offsets of a NUL tail longer than the tail window are a lower bound (the window's
 * start). Never throws.
 */
export function classifyEnds(ends: FileEnds): Classification {
  const {size, head, tail} = ends
  if (size === 0 || (whole(ends) && isBlank(head))) return {class: 'empty', reasons: []}
  const tailStart = size - tail.length
  const allNul = (b: Uint8Array) => b.every((x) => x === 0)
  if (allNul(head) && allNul(tail)) return {class: 'zero-filled', reasons: [], damage: {offset: 0, length: size}}
  if (hasBom(head)) return {class: 'corrupt', reasons: ['bom'], damage: {offset: 0, length: size}}
  // Trailing NUL run inside the tail window.
  let end = tail.length
  while (end > 0 && tail[end - 1] === 0) end--
  const nulTailAt = tailStart + end
  // Last byte that is neither NUL nor whitespace.
  let last = end - 1
  while (last >= 0 && isJsonWhitespace(tail[last])) last--
  let first = 0
  while (first < head.length && isJsonWhitespace(head[first])) first++
  const opener = head[first]
  const closer = opener === 0x7b ? 0x7d : opener === 0x5b ? 0x5d : -1
  const closed = closer < 0 || (last >= 0 && tail[last] === closer && tailStart + last > first)
  const reasons: Reason[] = []
  if (!closed) reasons.push('unexpected-end')
  if (nulTailAt < size) reasons.push('nul-tail')
  if (reasons.length === 0) return {class: 'intact', reasons: []}
  if (!closed) {
    const at = nulTailAt < size ? nulTailAt : size
    return {class: 'truncated', reasons, damage: {offset: at, length: size - at}}
  }
  return {class: 'corrupt', reasons, damage: {offset: nulTailAt, length: size - nulTailAt}}
}
