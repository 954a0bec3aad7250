/**
 * A strict JSON (RFC 8259) syntax scanner over raw bytes that tells a complete document from a proper prefix
 * of one from an error, and where. It accepts exactly what `JSON.parse` accepts (bytes ≥ 0x80 are taken as
 * string content; UTF-8 validity is checked separately in `bytes.ts`). Iterative with an explicit stack, so a
 * hostile file of a million `[` cannot overflow the call stack.
 */
import {isJsonWhitespace} from './bytes.js'

/** Outcome of scanning one JSON value from a start offset. */
export type ScanResult =
  /** A whole value ends at `end` (exclusive byte offset; trailing whitespace not included). */
  | {kind: 'complete'; end: number}
  /** The bytes run out before the value closes: a proper prefix of some JSON document. */
  | {kind: 'eof'}
  /** The byte at `at` can continue no JSON document. */
  | {kind: 'error'; at: number}

const enum Ctx {
  Array = 1,
  Object = 2,
}

const enum Want {
  Value, // any value
  ValueOrArrayEnd, // just after `[`
  KeyOrObjectEnd, // just after `{`
  Key, // after `,` inside an object
  Colon,
  CommaOrEnd, // after a value inside a container
}

const Q = 0x22 // "
const BS = 0x5c // \

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39
}

function isHex(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
}

/**
 * Scans a string body starting just after its opening quote. Returns the offset just after the closing quote,
 * `-1` for end of input inside the string, or `-(at + 2)` for an error at `at`.
 */
function scanString(buf: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const b = buf[i]
    if (b === Q) return i + 1
    if (b === BS) {
      if (i + 1 >= end) return -1
      const e = buf[i + 1]
      if (e === 0x75 /* u */) {
        for (let k = 2; k < 6; k++) {
          if (i + k >= end) return -1
          if (!isHex(buf[i + k])) return -(i + k + 2)
        }
        i += 6
        continue
      }
      if (e === Q || e === BS || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i += 2
        continue
      }
      return -(i + 1 + 2)
    }
    if (b < 0x20) return -(i + 2)
    i++
  }
  return -1
}

/**
 * Scans a number. Returns the offset just after it, `-1` if input ends where the number cannot yet be
 * complete, or `-(at + 2)` for an error at `at`. `atTop` allows a number that ends exactly at `end`.
 */
function scanNumber(buf: Uint8Array, i: number, end: number): number {
  if (buf[i] === 0x2d) {
    i++
    if (i >= end) return -1
  }
  if (buf[i] === 0x30) i++
  else if (buf[i] >= 0x31 && buf[i] <= 0x39) {
    while (i < end && isDigit(buf[i])) i++
  } else return -(i + 2)
  if (i < end && buf[i] === 0x2e) {
    i++
    if (i >= end) return -1
    if (!isDigit(buf[i])) return -(i + 2)
    while (i < end && isDigit(buf[i])) i++
  }
  if (i < end && (buf[i] === 0x65 || buf[i] === 0x45)) {
    i++
    if (i >= end) return -1
    if (buf[i] === 0x2b || buf[i] === 0x2d) {
      i++
      if (i >= end) return -1
    }
    if (!isDigit(buf[i])) return -(i + 2)
    while (i < end && isDigit(buf[i])) i++
  }
  return i
}

const TRUE = [0x74, 0x72, 0x75, 0x65]
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65]
const NULL = [0x6e, 0x75, 0x6c, 0x6c]

function scanLiteral(buf: Uint8Array, i: number, end: number, lit: number[]): number {
  for (let k = 0; k < lit.length; k++) {
    if (i + k >= end) return -1
    if (buf[i + k] !== lit[k]) return -(i + k + 2)
  }
  return i + lit.length
}

/**
 * Scans one JSON value in `buf[start, end)`, skipping leading whitespace.
 *
 * A top-level number that runs into `end` counts as complete (as `JSON.parse("12")` would), but the same
 * number inside a container is a prefix. Empty or whitespace-only input is `eof`.
 */
export function scanValue(buf: Uint8Array, start = 0, end = buf.length): ScanResult {
  const stack: Ctx[] = []
  let want: Want = Want.Value
  let i = start
  for (;;) {
    while (i < end && isJsonWhitespace(buf[i])) i++
    if (i >= end) return {kind: 'eof'}
    const b = buf[i]
    switch (want) {
      case Want.Colon:
        if (b !== 0x3a) return {kind: 'error', at: i}
        i++
        want = Want.Value
        continue
      case Want.CommaOrEnd: {
        const top = stack[stack.length - 1]
        if (b === 0x2c) {
          i++
          want = top === Ctx.Array ? Want.Value : Want.Key
          continue
        }
        if ((b === 0x5d && top === Ctx.Array) || (b === 0x7d && top === Ctx.Object)) {
          i++
          stack.pop()
          if (stack.length === 0) return {kind: 'complete', end: i}
          want = Want.CommaOrEnd
          continue
        }
        return {kind: 'error', at: i}
      }
      case Want.KeyOrObjectEnd:
      case Want.Key: {
        if (b === 0x7d && want === Want.KeyOrObjectEnd) {
          i++
          stack.pop()
          if (stack.length === 0) return {kind: 'complete', end: i}
          want = Want.CommaOrEnd
          continue
        }
        if (b !== Q) return {kind: 'error', at: i}
        const r = scanString(buf, i + 1, end)
        if (r === -1) return {kind: 'eof'}
        if (r < 0) return {kind: 'error', at: -r - 2}
        i = r
        want = Want.Colon
        continue
      }
      case Want.ValueOrArrayEnd:
        if (b === 0x5d) {
          i++
          stack.pop()
          if (stack.length === 0) return {kind: 'complete', end: i}
          want = Want.CommaOrEnd
          continue
        }
      // falls through: a value
      case Want.Value: {
        let r: number
        if (b === 0x7b) {
          stack.push(Ctx.Object)
          i++
          want = Want.KeyOrObjectEnd
          continue
        }
        if (b === 0x5b) {
          stack.push(Ctx.Array)
          i++
          want = Want.ValueOrArrayEnd
          continue
        }
        if (b === Q) r = scanString(buf, i + 1, end)
        else if (b === 0x2d || isDigit(b)) {
          r = scanNumber(buf, i, end)
          if (r === end && stack.length > 0) return {kind: 'eof'}
        } else if (b === 0x74) r = scanLiteral(buf, i, end, TRUE)
        else if (b === 0x66) r = scanLiteral(buf, i, end, FALSE)
        else if (b === 0x6e) r = scanLiteral(buf, i, end, NULL)
        else return {kind: 'error', at: i}
        if (r === -1) return {kind: 'eof'}
        if (r < 0) return {kind: 'error', at: -r - 2}
        i = r
        if (stack.length === 0) return {kind: 'complete', end: i}
        want = Want.CommaOrEnd
        continue
      }
    }
  }
}

/** Offset of the first non-whitespace byte at or after `i` (or `end`). */
export function skipWhitespace(buf: Uint8Array, i: number, end = buf.length): number {
  while (i < end && isJsonWhitespace(buf[i])) i++
  return i
}
