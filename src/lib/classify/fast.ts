/**
 * The fast check of a JSON document's bytes, for the common case: a document that is valid, or a valid
 * prefix cut off at the end (a torn write), with nothing else wrong. It validates UTF-8 with the native
 * validator (`buffer.isUtf8`, simdutf) and scans the syntax with one tight loop (a string's content is
 * skipped to its next quote, backslash or control byte; no per-byte state machine), so it runs several times
 * faster than the exact scanners (`json.ts`, `stream.ts`) and than `JSON.parse`. It never guesses: on
 * anything else (a BOM, a NUL, a control byte in a string, invalid UTF-8, a syntax error, bytes after the
 * document, a top-level scalar, hostile nesting or token lengths) it answers `unsure` and the caller runs
 * the exact path, so the verdict is always the exact path's.
 *
 * While scanning it can build the measurable value of the document without parsing the whole of it
 * (`StreamValueSpec`, `model/adapter.ts`): the top object's members parsed one by one, descending along a spine of keys to
 * an array whose elements are handed over one at a time as bytes. Memory: the largest single member or
 * element, never the file.
 *
 * Resumable at chunk boundaries: `FastScan.run` reports how many bytes of its buffer it consumed; the bytes
 * of an unfinished number, literal, escape or spine key (at most `MAX_CARRY`) are fed again at the start of
 * the next buffer.
 */
import {isUtf8} from 'node:buffer'
import type {StreamValueSpec} from '../model/adapter.js'
import type {Classification} from '../model/report.js'
import {FOREIGN_HEAD_BYTES, utf8SequenceAt} from './bytes.js'
import {decideFailure} from './index.js'

/** What the fast check found: a verdict, or `unsure` (run the exact path). */
export type FastVerdict =
  /** `escapes`: a string holds a `\u` escape of something other than a control character. */
  | {kind: 'intact'; value?: unknown; escapes: boolean}
  | {kind: 'torn'; classification: Classification}
  | {kind: 'unsure'}

/** The most bytes of an unfinished token carried into the next buffer; a longer token is `unsure`. */
export const MAX_CARRY = 1 << 16
/** Deeper nesting than this is `unsure` (the exact path decides). */
const MAX_DEPTH = 1 << 16

const enum W {
  Value,
  ValueOrArrayEnd,
  KeyOrObjectEnd,
  Key,
  Colon,
  CommaOrEnd,
  After,
}

const ARRAY = 1
const OBJECT = 2

function isHex(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
}

function isSimpleEscape(e: number): boolean {
  return e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74
}

const TRUE = [0x74, 0x72, 0x75, 0x65]
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65]
const NULL = [0x6e, 0x75, 0x6c, 0x6c]

/** Sets an own member as `JSON.parse` would (a `__proto__` key is a member, not the prototype). */
function setMember(o: Record<string, unknown>, key: string, v: unknown): void {
  Object.defineProperty(o, key, {value: v, writable: true, enumerable: true, configurable: true})
}

/** A value being captured: where it starts in the current buffer, the bytes of earlier buffers, its depth. */
interface Capture {
  start: number
  parts: Buffer[]
  depth: number
  key: string | null
  /** `FastScan.escapes` when it started. */
  escapes: number
}

/** UTF-8 validation of a byte stream, chunk by chunk, carrying a character cut by a chunk's end. */
export class Utf8Stream {
  private pend: number[] = []
  /** File offset of the carried incomplete character, or -1. */
  pendAt = -1
  bad = false

  /** Checks `buf[i, n)`, the bytes at file offset `base + i` on. */
  push(buf: Uint8Array, i: number, n: number, base: number): void {
    if (this.bad) return
    if (this.pend.length > 0) {
      const need = seqLength(this.pend[0])
      while (this.pend.length < need && i < n) this.pend.push(buf[i++])
      if (this.pend.length < need) return
      if (!isUtf8(Uint8Array.from(this.pend))) {
        this.bad = true
        return
      }
      this.pend = []
      this.pendAt = -1
    }
    let k = n
    for (let j = n - 1; j >= i && j >= n - 3; j--) {
      const c = buf[j]
      if (c < 0x80) break
      if (c >= 0xc0) {
        if (j + seqLength(c) > n) k = j
        break
      }
    }
    if (!isUtf8(buf.subarray(i, k))) {
      this.bad = true
      return
    }
    if (k < n) {
      this.pend = Array.from(buf.subarray(k, n))
      this.pendAt = base + k
    }
  }

  /** At the end: -1 when all was valid, the offset of a valid prefix of a character cut by the end, or -2 (invalid). */
  finish(): number {
    if (this.bad) return -2
    if (this.pend.length === 0) return -1
    const p = Uint8Array.from(this.pend)
    const u = utf8SequenceAt(p, 0, p.length)
    return u !== null && !u.complete && u.len === p.length ? this.pendAt : -2
  }
}

function seqLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2
}

/** The resumable syntax scan (and value builder) of the fast check. */
export class FastScan {
  /** Something the fast check does not decide: run the exact path. */
  unsure = false
  /** File offset of the first non-whitespace byte, or -1. */
  firstAt = -1
  private stack = new Uint8Array(64)
  private depth = 0
  private want: W = W.Value
  private inStr = false
  private strIsKey = false
  private complete = false
  /** Offset in the current buffer of a spine key's opening quote while it is read (else -1). */
  private keyAt = -1
  private words: Uint32Array | null = null
  // The value being built (spec only): the open containers on the spine, the last spine key, a capture.
  private readonly spec: StreamValueSpec | undefined
  private levels: Array<Record<string, unknown> | unknown[]> = []
  private key: string | null = null
  private cap: Capture | null = null
  private valueFailed = false
  private value: unknown = undefined
  /** `\u` escapes seen of anything but a control character. */
  private escapes = 0

  constructor(spec?: StreamValueSpec) {
    this.spec = spec
  }

  /**
   * Scans `buf[from, n)`, the bytes at file offset `base + from` on; `final` when no bytes follow. Returns
   * the offset in `buf` up to which the bytes were consumed: the caller feeds `buf[ret, n)` again, first,
   * with the next bytes (never more than `MAX_CARRY`; `unsure` otherwise). The state lives in locals while
   * the loop runs (a field per byte costs), written back on every way out.
   */
  run(buf: Buffer, from: number, n: number, base: number, final: boolean): number {
    const words = this.wordsOf(buf)
    const spec = this.spec
    let p = from
    let depth = this.depth
    let want = this.want
    let inStr = this.inStr
    let stack = this.stack
    let unsure = false
    let stop = -1 // where to stop for a carry
    scan: while (p < n) {
      if (inStr) {
        // The string's content: skip to the next quote, backslash or control byte.
        p = stringStop(buf, words, p, n)
        if (p >= n) break
        const c = buf[p]
        if (c === 0x22) {
          inStr = false
          p++
          if (this.strIsKey) {
            want = W.Colon
            if (this.keyAt >= 0) {
              this.key = decodeKey(buf, this.keyAt, p)
              this.keyAt = -1
            }
          } else want = this.valueDone(buf, p, depth)
          continue
        }
        if (c === 0x5c) {
          if (p + 1 >= n) {
            if (!final) stop = p
            break
          }
          const e = buf[p + 1]
          if (e === 0x75) {
            if (p + 6 > n) {
              if (!final) stop = p
              else for (let k = p + 2; k < n; k++) if (!isHex(buf[k])) unsure = true
              break
            }
            if (!isHex(buf[p + 2]) || !isHex(buf[p + 3]) || !isHex(buf[p + 4]) || !isHex(buf[p + 5])) {
              unsure = true
              break
            }
            // Anything but a control character (\u0000–\u001f, what JSON.stringify escapes so) is counted.
            if (buf[p + 2] !== 0x30 || buf[p + 3] !== 0x30 || (buf[p + 4] !== 0x30 && buf[p + 4] !== 0x31)) this.escapes++
            p += 6
          } else if (isSimpleEscape(e)) p += 2
          else {
            unsure = true
            break
          }
          continue
        }
        unsure = true // a control byte inside a string
        break
      }
      const c = buf[p]
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        p++
        continue
      }
      if (this.firstAt < 0) this.firstAt = base + p
      switch (want) {
        case W.Colon:
          if (c !== 0x3a) {
            unsure = true
            break scan
          }
          want = W.Value
          p++
          continue
        case W.CommaOrEnd: {
          const top = stack[depth - 1]
          if (c === 0x2c) {
            want = top === ARRAY ? W.Value : W.Key
            p++
            continue
          }
          if ((c === 0x5d && top === ARRAY) || (c === 0x7d && top === OBJECT)) {
            p++
            depth--
            if (spec !== undefined) this.closed(depth)
            want = this.valueDone(buf, p, depth)
            continue
          }
          unsure = true
          break scan
        }
        case W.KeyOrObjectEnd:
        case W.Key:
          if (c === 0x7d && want === W.KeyOrObjectEnd) {
            p++
            depth--
            if (spec !== undefined) this.closed(depth)
            want = this.valueDone(buf, p, depth)
            continue
          }
          if (c !== 0x22) {
            unsure = true
            break scan
          }
          this.keyAt = -1
          if (spec !== undefined && this.cap === null && depth === this.levels.length) {
            // A key of an object on the spine: kept, so the whole key must be in this buffer.
            if (keyEnd(buf, p + 1, n) >= 0) this.keyAt = p
            else if (!final) {
              stop = p
              break scan
            }
          }
          inStr = true
          this.strIsKey = true
          p++
          continue
        case W.After:
          unsure = true // bytes after the document: the exact path says what they are
          break scan
        case W.ValueOrArrayEnd:
          if (c === 0x5d) {
            p++
            depth--
            if (spec !== undefined) this.closed(depth)
            want = this.valueDone(buf, p, depth)
            continue
          }
        // falls through: a value
        case W.Value: {
          if (depth === 0 && c !== 0x7b && c !== 0x5b) {
            unsure = true // a top-level scalar: rare; the exact path decides
            break scan
          }
          if (spec !== undefined && this.cap === null && depth <= this.levels.length) this.valueStarts(p, c, depth)
          if (c === 0x7b || c === 0x5b) {
            if (depth >= MAX_DEPTH) {
              unsure = true
              break scan
            }
            if (depth === stack.length) {
              const grown = new Uint8Array(stack.length * 2)
              grown.set(stack)
              stack = this.stack = grown
            }
            stack[depth++] = c === 0x7b ? OBJECT : ARRAY
            want = c === 0x7b ? W.KeyOrObjectEnd : W.ValueOrArrayEnd
            p++
            continue
          }
          if (c === 0x22) {
            inStr = true
            this.strIsKey = false
            p++
            continue
          }
          if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
            const e = numberEnd(buf, p, n)
            if (e === -2) {
              unsure = true
              break scan
            }
            if (e === -1) {
              if (final) p = n
              else stop = p
              break scan
            }
            p = e
            want = this.valueDone(buf, p, depth)
            continue
          }
          const lit = c === 0x74 ? TRUE : c === 0x66 ? FALSE : c === 0x6e ? NULL : null
          if (lit === null) {
            unsure = true
            break scan
          }
          let k = 0
          while (k < lit.length && p + k < n && buf[p + k] === lit[k]) k++
          if (k === lit.length) {
            p += k
            want = this.valueDone(buf, p, depth)
            continue
          }
          if (p + k < n) unsure = true
          else if (final) p = n
          else stop = p
          break scan
        }
      }
    }
    this.depth = depth
    this.want = want
    this.inStr = inStr
    if (unsure) {
      this.unsure = true
      return n
    }
    if (stop >= 0) {
      if (n - stop > MAX_CARRY) {
        this.unsure = true
        return n
      }
      this.keep(buf, stop)
      return stop
    }
    this.keep(buf, n)
    return n
  }

  /** The 32-bit words of `buf`'s memory, for `stringStop` (one view per memory block, reused). */
  private wordsOf(buf: Buffer): Uint32Array {
    if (this.words === null || this.words.buffer !== buf.buffer) this.words = new Uint32Array(buf.buffer, 0, buf.buffer.byteLength >>> 2)
    return this.words
  }

  /** The end of a buffer: a capture's bytes so far are copied out (the buffer is reused). */
  private keep(buf: Buffer, upTo: number): void {
    const cap = this.cap
    if (cap === null) return
    if (upTo > cap.start) cap.parts.push(Buffer.from(buf.subarray(cap.start, upTo)))
    cap.start = 0
  }

  /** A value starts at `p` (its first byte `c`) in a container at `depth` on the spine: descend into it or capture it. */
  private valueStarts(p: number, c: number, depth: number): void {
    if (this.valueFailed) return
    const spine = this.spec!.spine
    if (depth === 0) {
      if (c === 0x7b) this.levels.push({})
      else this.valueFailed = true
      return
    }
    if (depth !== this.levels.length) return
    const k = depth - 1 // the level of the container the value is in
    if (k < spine.length && this.key === spine[k] && c === (k === spine.length - 1 ? 0x5b : 0x7b)) {
      this.levels.push(c === 0x5b ? [] : {})
      return
    }
    this.cap = {start: p, parts: [], depth, key: k < spine.length ? this.key : null, escapes: this.escapes}
  }

  /** A container closed, leaving `depth` open: a spine container's value goes to its parent. */
  private closed(depth: number): void {
    if (this.valueFailed || this.cap !== null || depth + 1 !== this.levels.length) return
    const done = this.levels.pop()!
    if (this.levels.length === 0) this.value = done
    else setMember(this.levels[this.levels.length - 1] as Record<string, unknown>, this.spec!.spine[this.levels.length - 1], done)
  }

  /** A value ended just before `end`, in a container at `depth`: what comes next, and a capture's end. */
  private valueDone(buf: Buffer, end: number, depth: number): W {
    if (depth === 0) {
      this.complete = true
      return W.After
    }
    const cap = this.cap
    if (cap !== null && depth === cap.depth) {
      this.cap = null
      const tail = buf.subarray(cap.start, end)
      const bytes = cap.parts.length === 0 ? tail : Buffer.concat([...cap.parts, tail])
      const top = this.levels[this.levels.length - 1]
      if (Array.isArray(top)) top.push(this.spec!.element(bytes, this.escapes !== cap.escapes))
      else if (cap.key !== null) {
        try {
          setMember(top, cap.key, JSON.parse(bytes.toString('utf8')))
        } catch {
          this.valueFailed = true // too large for one string
        }
      }
    }
    return W.CommaOrEnd
  }

  /** After the last bytes: the verdict's syntax part. */
  result(): {complete: boolean; inString: boolean; value: unknown; escapes: boolean} {
    return {complete: this.complete, inString: this.inStr, value: this.spec && !this.valueFailed ? this.value : undefined, escapes: this.escapes > 0}
  }
}

function stopsString(c: number): boolean {
  return c === 0x22 || c === 0x5c || c < 0x20
}

/**
 * The first offset in `buf[p, n)` of a quote, a backslash or a control byte (`n` when none): four bytes at a
 * time where the memory is aligned (`words`: the 32-bit words of `buf.buffer`), with the byte tests done on
 * the whole word at once (a word has a byte equal to `b` when `w ^ b×0x01010101` has a zero byte; a byte
 * below 0x20 when `(w - 0x20202020) & ~w & 0x80808080` is not 0; both exact, for any byte order), then byte
 * by byte inside the word that holds one.
 */
function stringStop(buf: Buffer, words: Uint32Array, p: number, n: number): number {
  const off = buf.byteOffset
  while (p < n && ((off + p) & 3) !== 0) {
    if (stopsString(buf[p])) return p
    p++
  }
  let k = (off + p) / 4
  const end = Math.floor((off + n) / 4)
  while (k < end) {
    const w = words[k]
    const q = w ^ 0x22222222
    const b = w ^ 0x5c5c5c5c
    if ((((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b) | ((w - 0x20202020) & ~w)) & 0x80808080) break
    k++
  }
  p = k * 4 - off
  while (p < n) {
    if (stopsString(buf[p])) return p
    p++
  }
  return n
}

/** The offset just after the closing quote of the string whose content starts at `i`, or -1 when it runs past `n`. */
function keyEnd(buf: Buffer, i: number, n: number): number {
  while (i < n) {
    const c = buf[i]
    if (c === 0x22) return i + 1
    if (c === 0x5c) i += 2
    else i++
  }
  return -1
}

/** A key's text from its bytes `buf[start, end)` (quotes included; valid JSON). */
function decodeKey(buf: Buffer, start: number, end: number): string {
  for (let k = start + 1; k < end - 1; k++) if (buf[k] === 0x5c) return JSON.parse(buf.toString('utf8', start, end)) as string
  return buf.toString('utf8', start + 1, end - 1)
}

/** The end of the number at `i`: its offset, -1 when it runs into `n`, -2 when it is malformed. */
function numberEnd(buf: Buffer, i: number, n: number): number {
  const digit = (k: number) => k < n && buf[k] >= 0x30 && buf[k] <= 0x39
  if (buf[i] === 0x2d) i++
  if (i >= n) return -1
  if (buf[i] === 0x30) i++
  else if (digit(i)) while (digit(i)) i++
  else return -2
  if (i >= n) return -1
  if (buf[i] === 0x2e) {
    i++
    if (i >= n) return -1
    if (!digit(i)) return -2
    while (digit(i)) i++
    if (i >= n) return -1
  }
  if (buf[i] === 0x65 || buf[i] === 0x45) {
    i++
    if (i >= n) return -1
    if (buf[i] === 0x2b || buf[i] === 0x2d) i++
    if (i >= n) return -1
    if (!digit(i)) return -2
    while (digit(i)) i++
    if (i >= n) return -1
  }
  return i
}

/**
 * The verdict from a finished scan: intact, a torn prefix (the exact path's `truncated` facts), or unsure.
 * `tornAt` is `Utf8Stream.finish()`; `head` the file's first `FOREIGN_HEAD_BYTES` bytes.
 */
export function fastVerdict(scan: FastScan, tornAt: number, length: number, head: Uint8Array): FastVerdict {
  if (scan.unsure || tornAt === -2 || scan.firstAt < 0) return {kind: 'unsure'}
  const r = scan.result()
  if (r.complete) return tornAt === -1 ? {kind: 'intact', value: r.value, escapes: r.escapes} : {kind: 'unsure'}
  // A character cut by the end is a truncation only inside a string.
  if (tornAt >= 0 && !r.inString) return {kind: 'unsure'}
  const classification = decideFailure({
    length, bom: false, start: 0, tail: length, firstNul: -1, invalidAt: -1, tornAt, end: length, scan: {kind: 'eof'},
    errorOnReportedByte: false, firstAt: scan.firstAt, head: head.subarray(0, FOREIGN_HEAD_BYTES), after: length, concatenated: false,
  })
  return {kind: 'torn', classification}
}

/** The fast check of a whole document in memory (`buf`); `unsure` sends the caller to `classifyJsonBytes`. */
export function fastCheckBytes(buf: Buffer, spec?: StreamValueSpec): FastVerdict {
  const utf8 = new Utf8Stream()
  utf8.push(buf, 0, buf.length, 0)
  if (utf8.bad) return {kind: 'unsure'}
  const scan = new FastScan(spec)
  scan.run(buf, 0, buf.length, 0, true)
  return fastVerdict(scan, utf8.finish(), buf.length, buf)
}
