/**
 * Streaming classification: the verdict of `classifyJsonBytes` (class, reasons, damage) from a file read in
 * chunks, in memory bounded by the chunk size, for files too large to hold as one string (V8's limit is about
 * 512 MiB) or to parse in memory. It gathers the same `FailureFacts` as the in-memory slow path, byte by byte
 * and resumable at any chunk boundary (a string, an escape, a number, a literal or a UTF-8 character may be
 * cut anywhere), and decides with the same `decideFailure`. It gives no parsed value.
 *
 * Deferred bytes: a run of NULs may turn out to be the file's NUL tail (then it is not part of the document)
 * and the bytes of an unfinished UTF-8 character may turn out to be a torn end (then the syntax scan stops
 * before them), so both are held back until the next byte or the end decides what they were.
 */
import {createHash} from 'node:crypto'
import {closeSync, constants as fsConstants, openSync, readSync} from 'node:fs'
import {open} from 'node:fs/promises'
import type {Classification} from '../model/report.js'
import {FOREIGN_HEAD_BYTES, isJsonWhitespace} from './bytes.js'
import type {StreamValueSpec} from '../model/adapter.js'
import {FastScan, fastVerdict, MAX_CARRY, Utf8Stream} from './fast.js'
import {decideFailure, type FailureFacts} from './index.js'
import type {ScanResult} from './json.js'

const enum Want {
  Value,
  ValueOrArrayEnd,
  KeyOrObjectEnd,
  Key,
  Colon,
  CommaOrEnd,
}

const enum Tok {
  None, // between tokens
  Str, // inside a string
  StrEsc, // after a backslash
  StrHex, // inside \uXXXX (hexLeft digits to go)
  Num, // inside a number (numPhase)
  Lit, // inside true/false/null
}

const enum NumPhase {
  Minus, // after '-': a digit must follow
  Zero, // after a leading 0
  Int, // in integer digits
  Dot, // after '.': a digit must follow
  Frac, // in fraction digits
  Exp, // after e/E: sign or digit
  ExpSign, // after the exponent's sign: a digit must follow
  ExpDigits, // in exponent digits
}

const LITERALS: Record<number, number[]> = {
  0x74: [0x74, 0x72, 0x75, 0x65],
  0x66: [0x66, 0x61, 0x6c, 0x73, 0x65],
  0x6e: [0x6e, 0x75, 0x6c, 0x6c],
}

function isHex(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
}

/**
 * The resumable JSON syntax scan of one range, in the same terms as `scanValue` (json.ts), followed by the
 * checks on what comes after a complete document (whitespace, further documents: `isConcatenation`).
 */
class SyntaxScan {
  private stack: number[] = [] // 1 array, 2 object
  private want: Want = Want.Value
  private tok: Tok = Tok.None
  private isKey = false
  private hexLeft = 0
  private numPhase: NumPhase = NumPhase.Int
  private lit: number[] = []
  private litAt = 0
  /**
   * 0: the first document; 1: after it, skipping whitespace; 2: scanning a further document; 3: after a further
   * document, skipping whitespace.
   */
  private phase = 0
  result: ScanResult | null = null
  blank = true
  /** Offset of the first non-whitespace byte of the range, or -1 while none was fed. */
  firstAt = -1
  after = -1
  concatOk = true
  /** No more bytes can change anything. */
  done = false

  /** The byte the first document's scan stopped on (`result.kind === 'error'`), or -1. */
  errorByte = -1

  feed(b: number, at: number): void {
    if (this.done) return
    if (this.phase === 0 && !isJsonWhitespace(b)) {
      if (this.blank) this.firstAt = at
      this.blank = false
    }
    for (;;) {
      const r = this.step(b, at)
      if (r !== 'again') break
    }
    if (this.errorByte < 0 && this.result?.kind === 'error') this.errorByte = b
  }

  /** Processes one byte; 'again' when the byte ended a number and must be looked at as the next token. */
  private step(b: number, at: number): 'ok' | 'again' {
    switch (this.tok) {
      case Tok.Str:
        if (b === 0x22) {
          this.tok = Tok.None
          if (this.isKey) this.want = Want.Colon
          else this.valueDone(at + 1)
        } else if (b === 0x5c) this.tok = Tok.StrEsc
        else if (b < 0x20) this.fail(at)
        return 'ok'
      case Tok.StrEsc:
        if (b === 0x75) {
          this.tok = Tok.StrHex
          this.hexLeft = 4
        } else if (b === 0x22 || b === 0x5c || b === 0x2f || b === 0x62 || b === 0x66 || b === 0x6e || b === 0x72 || b === 0x74) this.tok = Tok.Str
        else this.fail(at)
        return 'ok'
      case Tok.StrHex:
        if (!isHex(b)) this.fail(at)
        else if (--this.hexLeft === 0) this.tok = Tok.Str
        return 'ok'
      case Tok.Lit:
        if (b !== this.lit[this.litAt]) this.fail(at)
        else if (++this.litAt === this.lit.length) {
          this.tok = Tok.None
          this.valueDone(at + 1)
        }
        return 'ok'
      case Tok.Num:
        return this.stepNumber(b, at)
      case Tok.None:
        this.stepToken(b, at)
        return 'ok'
    }
  }

  private stepNumber(b: number, at: number): 'ok' | 'again' {
    const digit = b >= 0x30 && b <= 0x39
    switch (this.numPhase) {
      case NumPhase.Minus:
        if (b === 0x30) this.numPhase = NumPhase.Zero
        else if (digit) this.numPhase = NumPhase.Int
        else this.fail(at)
        return 'ok'
      case NumPhase.Zero:
      case NumPhase.Int:
        if (digit && this.numPhase === NumPhase.Int) return 'ok'
        if (b === 0x2e) this.numPhase = NumPhase.Dot
        else if (b === 0x65 || b === 0x45) this.numPhase = NumPhase.Exp
        else return this.endNumber(at)
        return 'ok'
      case NumPhase.Dot:
        if (digit) this.numPhase = NumPhase.Frac
        else this.fail(at)
        return 'ok'
      case NumPhase.Frac:
        if (digit) return 'ok'
        if (b === 0x65 || b === 0x45) this.numPhase = NumPhase.Exp
        else return this.endNumber(at)
        return 'ok'
      case NumPhase.Exp:
        if (b === 0x2b || b === 0x2d) this.numPhase = NumPhase.ExpSign
        else if (digit) this.numPhase = NumPhase.ExpDigits
        else this.fail(at)
        return 'ok'
      case NumPhase.ExpSign:
        if (digit) this.numPhase = NumPhase.ExpDigits
        else this.fail(at)
        return 'ok'
      case NumPhase.ExpDigits:
        if (digit) return 'ok'
        return this.endNumber(at)
    }
  }

  private endNumber(at: number): 'again' | 'ok' {
    this.tok = Tok.None
    this.valueDone(at)
    return this.done ? 'ok' : 'again'
  }

  private stepToken(b: number, at: number): void {
    if (this.phase === 1 || this.phase === 3) {
      if (isJsonWhitespace(b)) return
      if (this.phase === 1) this.after = at
      this.phase = 2
      this.stack = []
      this.want = Want.Value
    }
    if (isJsonWhitespace(b)) return
    switch (this.want) {
      case Want.Colon:
        if (b !== 0x3a) return this.fail(at)
        this.want = Want.Value
        return
      case Want.CommaOrEnd: {
        const top = this.stack[this.stack.length - 1]
        if (b === 0x2c) {
          this.want = top === 1 ? Want.Value : Want.Key
          return
        }
        if ((b === 0x5d && top === 1) || (b === 0x7d && top === 2)) {
          this.stack.pop()
          return this.valueDone(at + 1)
        }
        return this.fail(at)
      }
      case Want.KeyOrObjectEnd:
      case Want.Key:
        if (b === 0x7d && this.want === Want.KeyOrObjectEnd) {
          this.stack.pop()
          return this.valueDone(at + 1)
        }
        if (b !== 0x22) return this.fail(at)
        this.tok = Tok.Str
        this.isKey = true
        return
      case Want.ValueOrArrayEnd:
        if (b === 0x5d) {
          this.stack.pop()
          return this.valueDone(at + 1)
        }
      // falls through: a value
      case Want.Value:
        if (b === 0x7b) {
          this.stack.push(2)
          this.want = Want.KeyOrObjectEnd
        } else if (b === 0x5b) {
          this.stack.push(1)
          this.want = Want.ValueOrArrayEnd
        } else if (b === 0x22) {
          this.tok = Tok.Str
          this.isKey = false
        } else if (b === 0x2d || (b >= 0x30 && b <= 0x39)) {
          this.tok = Tok.Num
          this.numPhase = b === 0x2d ? NumPhase.Minus : b === 0x30 ? NumPhase.Zero : NumPhase.Int
        } else if (LITERALS[b]) {
          this.tok = Tok.Lit
          this.lit = LITERALS[b]
          this.litAt = 1
        } else this.fail(at)
    }
  }

  /** A value ended just before `end`. */
  private valueDone(end: number): void {
    if (this.stack.length > 0) {
      this.want = Want.CommaOrEnd
      return
    }
    if (this.phase === 0) {
      this.result = {kind: 'complete', end}
      this.phase = 1
      this.want = Want.Value
      return
    }
    // A further complete document: skip whitespace to the next one.
    this.phase = 3
    this.want = Want.Value
  }

  private fail(at: number): void {
    if (this.phase === 0) this.result = {kind: 'error', at}
    else this.concatOk = false
    this.done = true
  }

  /** The end of the range: a value still open is a prefix (`eof`), except a top-level number that can end here. */
  finish(end: number): void {
    if (this.done) return
    const numberCanEnd = this.tok === Tok.Num && (this.numPhase === NumPhase.Zero || this.numPhase === NumPhase.Int || this.numPhase === NumPhase.Frac || this.numPhase === NumPhase.ExpDigits)
    if (numberCanEnd && this.stack.length === 0) {
      this.tok = Tok.None
      this.valueDone(end)
    } else if (this.phase === 0) this.result = {kind: 'eof'}
    else if (this.phase === 2) this.concatOk = false
    this.done = true
  }
}

/**
 * Classifies a JSON file from its chunks, as `classifyJsonBytes` would from its whole bytes, minus the parsed
 * value: `push` each chunk in order, then `finish()`. Also hashes the bytes (sha256), since a caller that
 * streams a file will not read it twice.
 */
export class StreamClassifier {
  private length = 0
  private allWs = true
  private allNul = true
  private head: number[] = []
  /** The file's first bytes, for `looksForeign`. */
  private lead: number[] = []
  private started = false
  private bom = false
  // NULs not yet known to be interior or the tail.
  private nulRunStart = -1
  private nulRunLen = 0
  private firstNul = -1
  // UTF-8 state.
  private invalidAt = -1
  private need = 0
  private seqStart = -1
  private lo = 0x80
  private hi = 0xbf
  private held: number[] = []
  private readonly syntax = new SyntaxScan()
  private readonly hash = createHash('sha256')

  /** Feeds the next chunk of the file. */
  push(chunk: Uint8Array): void {
    this.hash.update(chunk)
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]
      const at = this.length++
      if (at < FOREIGN_HEAD_BYTES) this.lead.push(b)
      if (this.allWs && !isJsonWhitespace(b)) this.allWs = false
      if (this.allNul && b !== 0) this.allNul = false
      if (!this.started) {
        this.head.push(b)
        if (this.head.length === 3) this.begin()
        continue
      }
      this.byte(b, at)
    }
  }

  /** Decides the BOM once the first 3 bytes (or the whole, shorter file) are in, then replays them. */
  private begin(): void {
    this.started = true
    const h = this.head
    this.bom = h.length >= 3 && h[0] === 0xef && h[1] === 0xbb && h[2] === 0xbf
    if (!this.bom) for (let k = 0; k < h.length; k++) this.byte(h[k], k)
  }

  private byte(b: number, at: number): void {
    if (b === 0) {
      if (this.nulRunLen === 0) this.nulRunStart = at
      this.nulRunLen++
      return
    }
    if (this.nulRunLen > 0) this.flushNuls()
    this.utf8(b, at)
  }

  /** A non-NUL byte follows a NUL run: the run is interior. */
  private flushNuls(): void {
    if (this.firstNul < 0) this.firstNul = this.nulRunStart
    for (let k = 0; k < this.nulRunLen; k++) {
      this.utf8(0, this.nulRunStart + k)
      if (this.syntax.done && (this.invalidAt >= 0 || this.need === 0)) break
    }
    this.nulRunLen = 0
  }

  /** UTF-8 validation (first problem only), then the byte goes to the syntax scan unless held back. */
  private utf8(b: number, at: number): void {
    if (this.invalidAt >= 0) {
      this.syntax.feed(b, at)
      return
    }
    if (this.need > 0) {
      const min = this.held.length === 1 ? this.lo : 0x80
      const max = this.held.length === 1 ? this.hi : 0xbf
      if (b < min || b > max) {
        this.invalidAt = this.seqStart
        this.releaseHeld()
        this.syntax.feed(b, at)
        return
      }
      this.held.push(b)
      if (--this.need === 0) this.releaseHeld()
      return
    }
    if (b < 0x80) {
      this.syntax.feed(b, at)
      return
    }
    let need = 0
    this.lo = 0x80
    this.hi = 0xbf
    if (b >= 0xc2 && b <= 0xdf) need = 1
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2
      if (b === 0xe0) this.lo = 0xa0
      if (b === 0xed) this.hi = 0x9f
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3
      if (b === 0xf0) this.lo = 0x90
      if (b === 0xf4) this.hi = 0x8f
    } else {
      this.invalidAt = at
      this.syntax.feed(b, at)
      return
    }
    this.need = need
    this.seqStart = at
    this.held = [b]
  }

  private releaseHeld(): void {
    const start = this.seqStart
    for (let k = 0; k < this.held.length; k++) this.syntax.feed(this.held[k], start + k)
    this.held = []
    this.need = 0
  }

  /** The verdict and the sha256 (hex) of all bytes pushed. */
  finish(): {classification: Classification; sha256: string} {
    const sha256 = this.hash.digest('hex')
    if (!this.started) this.begin()
    const length = this.length
    if (this.allWs) return {classification: {class: 'empty', reasons: []}, sha256}
    if (this.allNul) return {classification: {class: 'zero-filled', reasons: [], damage: {offset: 0, length}}, sha256}
    const start = this.bom ? 3 : 0
    const tail = this.nulRunLen > 0 ? this.nulRunStart : length
    const end = tail
    let tornAt = -1
    if (this.need > 0 && this.invalidAt < 0) {
      // A character cut by the end of the bytes (or by the NUL tail): scanned like any byte >= 0x80, so it is
      // a truncation only inside a string (as in the in-memory path).
      if (this.firstNul < 0) tornAt = this.seqStart
      this.releaseHeld()
    }
    this.syntax.finish(end)
    const scan = this.syntax.result ?? {kind: 'eof'}
    const facts: FailureFacts = {
      length,
      bom: this.bom,
      start,
      tail,
      firstNul: this.firstNul,
      invalidAt: this.invalidAt,
      tornAt,
      end,
      scan,
      errorOnReportedByte: scan.kind === 'error' && (this.syntax.errorByte === 0 || scan.at === this.invalidAt),
      firstAt: this.syntax.firstAt < 0 ? end : this.syntax.firstAt,
      head: Uint8Array.from(this.lead),
      after: scan.kind === 'complete' && this.syntax.after >= 0 ? this.syntax.after : end,
      concatenated: this.syntax.after >= 0 && this.syntax.concatOk,
    }
    const clean = !this.bom && tail === length && this.firstNul < 0 && this.invalidAt < 0 && tornAt < 0 && scan.kind === 'complete' && facts.after >= end
    if (clean) return {classification: {class: 'intact', reasons: []}, sha256}
    return {classification: decideFailure(facts), sha256}
  }
}

/** Chunk size of `classifyJsonFile` (bytes). */
export const STREAM_CHUNK_BYTES = 1 << 20

/** What streaming a file found: its verdict, sha256 and size, and the value `spec` asked for (intact files only). */
export interface StreamedFile {
  classification: Classification
  sha256: string
  bytes: number
  /** The measurable value (`StreamValueSpec`) of an intact file, when a spec was given and it could be built. */
  value?: unknown
  /** With `value`: a string of the file holds a `\u` escape of something other than a control character. */
  escapes?: boolean
}

/**
 * The fast pass over a file's chunks (`fast.ts`: native UTF-8 validation, a tight syntax loop, the sha256
 * and the value on the same pass). The reader reads `len` bytes at file offset `position` into `buf` at
 * `at`, then calls `push` with the count (0 at the end) until it returns false; `result()` is then the
 * verdict, or null when the fast check is unsure (then the exact classifier runs over the file again).
 */
export class FastFileCheck {
  readonly buf: Buffer
  private readonly hash = createHash('sha256')
  private readonly utf8 = new Utf8Stream()
  private readonly scan: FastScan
  private readonly head = Buffer.alloc(FOREIGN_HEAD_BYTES)
  private headLen = 0
  private pos = 0 // file offset of buf[0]
  private kept = 0 // bytes carried at the start of buf
  private length = 0

  constructor(
    readonly chunkBytes: number,
    spec?: StreamValueSpec,
  ) {
    this.buf = Buffer.allocUnsafe(chunkBytes + MAX_CARRY)
    this.scan = new FastScan(spec)
  }

  get at(): number {
    return this.kept
  }

  get position(): number {
    return this.pos + this.kept
  }

  push(got: number): boolean {
    const {buf, kept} = this
    if (got > 0) {
      this.hash.update(buf.subarray(kept, kept + got))
      this.utf8.push(buf, kept, kept + got, this.pos + kept)
      if (this.headLen < FOREIGN_HEAD_BYTES) this.headLen += buf.copy(this.head, this.headLen, kept, kept + Math.min(got, FOREIGN_HEAD_BYTES - this.headLen))
      this.length += got
    }
    const n = kept + got
    const used = this.scan.run(buf, 0, n, this.pos, got === 0)
    if (got === 0 || this.utf8.bad || this.scan.unsure) return false
    buf.copyWithin(0, used, n)
    this.pos += used
    this.kept = n - used
    return true
  }

  result(): StreamedFile | null {
    const v = this.utf8.bad ? null : fastVerdict(this.scan, this.utf8.finish(), this.length, this.head.subarray(0, this.headLen))
    if (v === null || v.kind === 'unsure') return null
    const sha256 = this.hash.digest('hex')
    if (v.kind === 'torn') return {classification: v.classification, sha256, bytes: this.length}
    return {classification: {class: 'intact', reasons: []}, sha256, bytes: this.length, ...(v.value !== undefined ? {value: v.value, escapes: v.escapes} : {})}
  }
}

/**
 * Classifies a file by streaming it in `chunkBytes` chunks (memory bounded by one chunk and by what `spec`
 * keeps). Same verdict as `classifyJsonBytes` on its bytes; with `spec`, the measurable value of an intact
 * file instead of the parsed one. The fast check first; when it is unsure (damage other than a clean cut), the
 * exact classifier reads the file again. Throws on I/O errors.
 */
export async function classifyJsonFile(file: string, chunkBytes = STREAM_CHUNK_BYTES, spec?: StreamValueSpec): Promise<StreamedFile> {
  const fh = await open(file, 'r')
  try {
    const fast = new FastFileCheck(chunkBytes, spec)
    while (fast.push((await fh.read(fast.buf, fast.at, chunkBytes, fast.position)).bytesRead));
    const r = fast.result()
    if (r) return r
    const c = new StreamClassifier()
    const buf = fast.buf.subarray(0, chunkBytes)
    let bytes = 0
    for (;;) {
      const {bytesRead} = await fh.read(buf, 0, chunkBytes, bytes)
      if (bytesRead === 0) break
      c.push(buf.subarray(0, bytesRead))
      bytes += bytesRead
    }
    return {...c.finish(), bytes}
  } finally {
    await fh.close()
  }
}

/** `classifyJsonFile`, synchronously (for the synchronous inventory). Same contract. */
export function classifyJsonFileSync(file: string, chunkBytes = STREAM_CHUNK_BYTES, spec?: StreamValueSpec): StreamedFile {
  const fd = openSync(file, 'r')
  try {
    const fast = new FastFileCheck(chunkBytes, spec)
    while (fast.push(readSync(fd, fast.buf, fast.at, chunkBytes, fast.position)));
    const r = fast.result()
    if (r) return r
    const c = new StreamClassifier()
    const buf = fast.buf.subarray(0, chunkBytes)
    let bytes = 0
    for (;;) {
      const n = readSync(fd, buf, 0, chunkBytes, bytes)
      if (n === 0) break
      c.push(buf.subarray(0, n))
      bytes += n
    }
    return {...c.finish(), bytes}
  } finally {
    closeSync(fd)
  }
}

/**
 * Every run of NUL bytes in the file at `p`, in order, read 1 MiB at a time (a run may span chunks): what
 * `nulRuns` gives over the bytes of a file held in memory, for one that is not (a streamed log or state). Stops
 * after `limit` runs. Opens without following a symbolic link or blocking on a FIFO; throws what reading throws.
 */
export function nulRunsOfFile(p: string, limit: number, chunkBytes = 1 << 20): Array<{offset: number; length: number}> {
  const runs: Array<{offset: number; length: number}> = []
  const fd = openSync(p, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK)
  try {
    const buf = Buffer.allocUnsafe(chunkBytes)
    let pos = 0
    let runStart = -1
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, pos)
      if (n === 0) break
      let i = 0
      while (i < n) {
        if (runStart < 0) {
          const at = buf.indexOf(0, i)
          if (at < 0 || at >= n) break
          runStart = pos + at
          i = at
        }
        while (i < n && buf[i] === 0) i++
        if (i < n) {
          runs.push({offset: runStart, length: pos + i - runStart})
          runStart = -1
          if (runs.length >= limit) return runs
        }
      }
      pos += n
    }
    if (runStart >= 0) runs.push({offset: runStart, length: pos - runStart})
    return runs
  } finally {
    closeSync(fd)
  }
}
