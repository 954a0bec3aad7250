/**
 * Byte-level facts about a file, checked before any JSON syntax: blank, all NUL, BOM, NUL runs, UTF-8.
 * All offsets are byte offsets into the buffer; `end` bounds are exclusive.
 */
import {isAscii, isUtf8} from 'node:buffer'

/** The UTF-8 byte order mark EF BB BF. */
export const UTF8_BOM = Uint8Array.of(0xef, 0xbb, 0xbf)

/** True for the four JSON whitespace bytes (RFC 8259 §2): space, tab, LF, CR. */
export function isJsonWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09
}

/** True when the buffer is 0 bytes or holds only JSON whitespace (class `empty`). */
export function isBlank(buf: Uint8Array): boolean {
  for (let i = 0; i < buf.length; i++) if (!isJsonWhitespace(buf[i])) return false
  return true
}

/** True when the buffer is non-empty and every byte is NUL (class `zero-filled`). */
export function isAllNul(buf: Uint8Array): boolean {
  if (buf.length === 0) return false
  for (let i = 0; i < buf.length; i++) if (buf[i] !== 0) return false
  return true
}

/** True when the buffer starts with the UTF-8 BOM. */
export function hasBom(buf: Uint8Array): boolean {
  return buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf
}

/**
 * Offset where the trailing run of NUL bytes starts (equal to `buf.length` when the last byte is not NUL).
 * The unwritten tail that delayed allocation leaves after a crash looks like this.
 */
export function nulTailStart(buf: Uint8Array): number {
  let end = buf.length
  while (end > 0 && buf[end - 1] === 0) end--
  return end
}

/** A run of NUL bytes: offset and length in bytes. */
export interface NulRun {
  offset: number
  length: number
}

/** Every run of NUL bytes in `[start, end)`, in order. Stops after `limit` runs (default 1000). */
export function nulRuns(buf: Uint8Array, start = 0, end = buf.length, limit = 1000): NulRun[] {
  const runs: NulRun[] = []
  let i = start
  while (i < end && runs.length < limit) {
    const at = indexOfByte(buf, 0, i, end)
    if (at < 0) break
    let j = at
    while (j < end && buf[j] === 0) j++
    runs.push({offset: at, length: j - at})
    i = j
  }
  return runs
}

/** First index of `byte` in `[start, end)`, or -1. */
export function indexOfByte(buf: Uint8Array, byte: number, start: number, end: number): number {
  const at = buf.indexOf(byte, start)
  return at >= 0 && at < end ? at : -1
}

/** A Buffer view of the same bytes (no copy). */
export function asBuffer(buf: Uint8Array): Buffer {
  return Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength)
}

/**
 * Decodes strictly: throws `TypeError` (code `ERR_ENCODING_INVALID_ENCODED_DATA`, as `TextDecoder` with
 * `fatal` does) on any invalid UTF-8, where Node's default decoding silently turns bad bytes into U+FFFD. A
 * leading BOM is kept as U+FEFF.
 *
 * Speed: pure-ASCII bytes, the common case for agent state (JSON.stringify output of English text
 * and code), are decoded as ASCII, which is a plain copy (~12 GB/s here); V8's UTF-8 decoder and a fatal
 * `TextDecoder` both run at ~300 MB/s on the same bytes, more than `JSON.parse` itself takes. Other input is
 * validated by `buffer.isUtf8` (simdutf) and then decoded as UTF-8: the same strings as before.
 */
export function decodeUtf8Strict(buf: Uint8Array): string {
  const b = asBuffer(buf)
  if (isAscii(b)) return b.toString('ascii')
  if (!isUtf8(b)) {
    const err = new TypeError('The encoded data was not valid for encoding utf-8') as TypeError & {code: string}
    err.code = 'ERR_ENCODING_INVALID_ENCODED_DATA'
    throw err
  }
  return b.toString('utf8')
}

/** The result of a UTF-8 check over a byte range. */
export type Utf8Check =
  | {ok: true}
  /** The range is valid except for an incomplete multi-byte sequence that runs into `end` (a cut inside a character). */
  | {ok: false; kind: 'torn'; offset: number}
  /** An invalid byte or sequence at `offset`. */
  | {ok: false; kind: 'invalid'; offset: number}

/**
 * Validates UTF-8 over `[start, end)` (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF) and
 * locates the first problem. Uses the native validator (`buffer.isUtf8`) first, so valid input costs one
 * native pass.
 */
export function checkUtf8(buf: Uint8Array, start = 0, end = buf.length): Utf8Check {
  if (isUtf8(buf.subarray(start, end))) return {ok: true}
  let i = start
  while (i < end) {
    if (buf[i] < 0x80) {
      i++
      continue
    }
    const u = utf8SequenceAt(buf, i, end)
    if (u === null) return {ok: false, kind: 'invalid', offset: i}
    if (!u.complete) return {ok: false, kind: i + u.len >= end ? 'torn' : 'invalid', offset: i}
    i += u.len
  }
  return {ok: true}
}

/** A multi-byte UTF-8 sequence as found at an offset (see `utf8SequenceAt`). */
export interface Utf8Sequence {
  /** Bytes of the sequence found: the whole character when `complete`, else the valid prefix. */
  len: number
  /** True for a whole valid character. */
  complete: boolean
  /** Continuation bytes the lead byte calls for (1–3). */
  need: number
}

/**
 * The UTF-8 sequence whose lead byte (≥ 0x80) is at `i` (RFC 3629: no overlongs, no surrogates, nothing above
 * U+10FFFF): `{len, complete: true}` for a valid character, `{len, complete: false}` for a valid prefix cut by
 * `end` or by a byte that cannot continue it (len = bytes of the prefix), or null when the byte at `i` cannot
 * start a character.
 */
export function utf8SequenceAt(buf: Uint8Array, i: number, end: number): Utf8Sequence | null {
  const b = buf[i]
  let need: number
  let lo = 0x80
  let hi = 0xbf
  if (b >= 0xc2 && b <= 0xdf) need = 1
  else if (b >= 0xe0 && b <= 0xef) {
    need = 2
    if (b === 0xe0) lo = 0xa0
    if (b === 0xed) hi = 0x9f
  } else if (b >= 0xf0 && b <= 0xf4) {
    need = 3
    if (b === 0xf0) lo = 0x90
    if (b === 0xf4) hi = 0x8f
  } else return null
  for (let k = 1; k <= need; k++) {
    if (i + k >= end) return {len: k, complete: false, need}
    const c = buf[i + k]
    if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return {len: k, complete: false, need}
  }
  return {len: need + 1, complete: true, need}
}

/** Bytes at the start of a file that `looksForeign` looks at. */
export const FOREIGN_HEAD_BYTES = 256

/**
 * True when the bytes at a file's start are no JSON state at all (another program's text, binary or encrypted
 * data), judged from its first `FOREIGN_HEAD_BYTES`: the first non-whitespace byte (at `first`) is neither a
 * container's opening bracket nor a NUL, and it is a printable ASCII character (text, code, a log line), or an
 * eighth or more of the head is not UTF-8 (binary). One damaged byte before a document is not foreign.
 */
export function looksForeign(head: Uint8Array, first: number): boolean {
  if (first >= head.length) return false
  const b = head[first]
  if (b === 0x7b || b === 0x5b || b === 0x00) return false
  if (b >= 0x21 && b <= 0x7e) return true
  let bad = 0
  for (let i = first; i < head.length; ) {
    if (head[i] < 0x80) {
      i++
      continue
    }
    const u = utf8SequenceAt(head, i, head.length)
    if (u === null || !u.complete) {
      bad++
      i += u === null ? 1 : Math.max(1, u.len)
    } else i += u.len
  }
  return bad * 8 >= head.length - first
}
