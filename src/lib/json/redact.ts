/**
 * The byte-level JSON lexer of `bundle --redact`: replaces string tokens of a JSON file with keyed-hash
 * placeholders, working on the bytes (nothing is parsed and re-serialized), by an agent's rules (a
 * `RedactProfile`, from the agent's folder), so that:
 *
 * - structure, the ids the profile names, numbers and whitespace are kept byte for byte;
 * - damage stays where it was: a torn file stays torn inside the same token, NUL runs, control bytes, invalid
 *   UTF-8 bytes and bad escapes are kept (a character cut by the tear is replaced by a same-length cut one);
 * - equal values get equal placeholders and different values different ones (a keyed hash, HMAC-SHA-256, with
 *   a random key per bundle that is never stored), so the redacted chat diagnoses the same.
 *
 * Object keys that look like identifiers are kept (outside maps the profile says are keyed by path or
 * symbol); values of the profile's structural keys that look like ids (no `/`, `\`, newline; at most 100
 * characters) are kept; everything else becomes `[redacted:<24 hex>]` (the empty string stays empty) unless
 * the profile's value rule says otherwise. After the first irregular byte (damage, garbage, text after the
 * document) every string is replaced, keys included: nothing there is read by a diagnosis.
 */
import {createHmac, randomBytes} from 'node:crypto'
import {utf8SequenceAt} from '../classify/bytes.js'
import type {BundleFile, Redactor} from '../model/adapter.js'
import type {ChatReport, Role} from '../model/report.js'

export type {Redactor} from '../model/adapter.js'

/** A redactor with a fresh random 32-byte key (never stored anywhere). `key` is for tests only. */
export function makeRedactor(key: Buffer = randomBytes(32)): Redactor {
  const memo = new Map<string, string>()
  return {
    placeholder(value: string): string {
      if (value === '') return ''
      let p = memo.get(value)
      if (p === undefined) {
        p = `[redacted:${createHmac('sha256', key).update(Buffer.from(value, 'utf16le')).digest('hex').slice(0, 24)}]`
        memo.set(value, p)
      }
      return p
    },
  }
}

/** What a kept structural value may look like: no path separators, no newlines, short. */
const SAFE_VALUE = /^[\w .:@+#-]{0,100}$/
/** Object keys kept as they are. */
const SAFE_KEY = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/

/**
 * An agent's rules for `redactJsonBytes`: which keys hold structure (their values are kept when they look
 * like ids), which keys hold maps keyed by paths or symbols (the keys below them are redacted too), and an
 * optional rule for other string values (undefined: the default placeholder). `depth` is the nesting depth
 * of the value (1 inside the root container).
 */
export interface RedactProfile {
  structuralKeys: ReadonlySet<string>
  pathMapKeys?: ReadonlySet<string>
  value?(value: string, key: string | null, r: Redactor, depth: number): string | undefined
  /**
   * NUL bytes outside strings are padding (kept as they are, like whitespace) instead of the first irregular
   * byte: JSONL readers strip NUL runs from a line and read the record around them (classify/jsonl.ts).
   */
  nulIsPadding?: boolean
  /**
   * A raw line break (LF, CR) inside a string is kept where it is and is no damage: the string's text on each side
   * of it is redacted on its own. JSONL readers split on LF, so a record spread over lines by raw breaks inside its
   * strings (classify/jsonl.ts `split-record`) stays the same record over the same lines, its keys kept.
   */
  lineBreaksInStrings?: boolean
}

// ---- the byte-level lexer ------------------------------------------------------------------------------

interface Frame {
  kind: 'object' | 'array'
  /** The key this container is the value of (null at the root or in an array). */
  key: string | null
  /** In an object: the last key read. */
  lastKey: string | null
  expectKey: boolean
  /** Inside a map keyed by paths or symbols: keys are redacted. */
  pathMap: boolean
}

const Q = 0x22
const BS = 0x5c

function isHex(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
}

/**
 * A cut character with the same length and kind as the original cut one, carrying none of its bits. `next` is
 * the byte that followed the cut one (undefined at the end): a lead byte is chosen that it cannot continue
 * either, so the cut stays a cut (E0 takes only A0–BF second, ED only 80–9F; F0 only 90–BF, F4 only 80–8F).
 */
function canonicalCut(need: number, len: number, next?: number): Buffer {
  const full = need === 1 ? [0xc3, 0xa9] : need === 2 ? [0xe3, 0x81, 0x82] : [0xf0, 0x9f, 0x98, 0x80]
  if (len === 1 && next !== undefined && next >= 0x80 && next <= 0xbf) {
    if (need === 2) full[0] = next <= 0x9f ? 0xe0 : 0xed
    if (need === 3) full[0] = next <= 0x8f ? 0xf0 : 0xf4
  }
  return Buffer.from(full.slice(0, len))
}

/** One piece of a string token's body: clean JSON string content (raw bytes) or damage kept as it is. */
type Piece = {clean: true; raw: Buffer} | {clean: false; raw: Buffer}

/**
 * Splits a string body starting at `i` (just after the opening quote) into clean runs and damage, up to the
 * closing quote or `end`. Returns the pieces, the offset after the token and whether it was closed.
 */
function lexString(buf: Buffer, i: number, end: number): {pieces: Piece[]; next: number; closed: boolean} {
  const pieces: Piece[] = []
  let runStart = i
  const flush = (to: number) => {
    if (to > runStart) pieces.push({clean: true, raw: buf.subarray(runStart, to)})
  }
  const damage = (raw: Buffer, from: number, to: number) => {
    flush(from)
    pieces.push({clean: false, raw})
    runStart = to
  }
  while (i < end) {
    const b = buf[i]
    if (b === Q) {
      flush(i)
      return {pieces, next: i + 1, closed: true}
    }
    if (b === BS) {
      if (i + 1 >= end) {
        damage(buf.subarray(i, i + 1), i, i + 1)
        i++
        continue
      }
      const e = buf[i + 1]
      if (e === 0x75) {
        let k = 2
        while (k < 6 && i + k < end && isHex(buf[i + k])) k++
        if (k === 6) {
          i += 6
          continue
        }
        damage(buf.subarray(i, i + k), i, i + k)
        i += k
        continue
      }
      if (e === Q || e === BS || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i += 2
        continue
      }
      damage(buf.subarray(i, i + 1), i, i + 1)
      i++
      continue
    }
    if (b < 0x20) {
      damage(buf.subarray(i, i + 1), i, i + 1)
      i++
      continue
    }
    if (b >= 0x80) {
      const u = utf8SequenceAt(buf, i, end)
      if (u === null) {
        damage(buf.subarray(i, i + 1), i, i + 1)
        i++
      } else if (!u.complete) {
        damage(canonicalCut(u.need, u.len, i + u.len < end ? buf[i + u.len] : undefined), i, i + u.len)
        i += u.len
      } else i += u.len
      continue
    }
    i++
  }
  flush(end)
  return {pieces, next: end, closed: false}
}

/**
 * The redacted string, with a lone surrogate appended when the original held one (an unpaired UTF-16 half
 * is damage a diagnosis reports, and it carries no content).
 */
function keepLoneSurrogate(original: string, redacted: string): string {
  const wellFormed = (x: string) => (x as string & {isWellFormed(): boolean}).isWellFormed()
  return wellFormed(original) || !wellFormed(redacted) ? redacted : redacted + '\ud800'
}

function decodeClean(raw: Buffer): string {
  return JSON.parse('"' + raw.toString('utf8') + '"') as string
}

function encode(s: string): string {
  return JSON.stringify(s).slice(1, -1)
}

const LITERALS = ['true', 'false', 'null']

/** A bare word outside strings (garbage, or a torn literal): literals and their prefixes kept, the rest `x`. */
function redactWord(word: string): {out: string; irregular: boolean} {
  for (const lit of LITERALS) {
    if (word === lit) return {out: word, irregular: false}
    if (word.startsWith(lit)) return {out: lit + 'x'.repeat(word.length - lit.length), irregular: true}
    if (lit.startsWith(word)) return {out: word, irregular: true}
  }
  return {out: 'x'.repeat(word.length), irregular: true}
}

function isWordByte(b: number): boolean {
  return (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b === 0x5f || b === 0x24
}

/** What a redaction of a chat's files kept, and what it left out with why. */
export interface RedactedFiles {
  files: BundleFile[]
  omitted: Array<{path: string; reason: string}>
}

/**
 * Redacts a chat's files one by one by their role in its report (`other` when the report does not name the
 * file): `redactOne` gives the redacted bytes, or `{omit}` with the one-line reason the file is left out.
 */
export function redactByRole(files: readonly BundleFile[], report: Pick<ChatReport, 'generations'>, redactOne: (f: BundleFile, role: Role) => Buffer | {omit: string}): RedactedFiles {
  const roles = new Map(report.generations.map((g) => [g.file, g.role] as const))
  const out: RedactedFiles = {files: [], omitted: []}
  for (const f of files) {
    const data = redactOne(f, roles.get(f.rel) ?? 'other')
    if (Buffer.isBuffer(data)) out.files.push({...f, data})
    else out.omitted.push({path: f.rel, reason: data.omit})
  }
  return out
}

/**
 * Redacts the bytes of one JSON file (any bytes: damaged, torn, garbage) by an agent's `profile`. Never throws.
 */
export function redactJsonBytes(buf: Buffer, r: Redactor, profile: RedactProfile): Buffer {
  const out: Buffer[] = []
  let pending = ''
  const emit = (s: string) => {
    pending += s
    if (pending.length > 65536) {
      out.push(Buffer.from(pending, 'utf8'))
      pending = ''
    }
  }
  const emitRaw = (b: Buffer) => {
    if (pending) {
      out.push(Buffer.from(pending, 'utf8'))
      pending = ''
    }
    out.push(b)
  }
  const end = buf.length
  const stack: Frame[] = []
  let strict = false
  let rootDone = false
  let i = 0
  if (end >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
    emitRaw(buf.subarray(0, 3))
    i = 3
    strict = true
  }
  while (i < end) {
    const b = buf[i]
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) {
      emit(String.fromCharCode(b))
      i++
      continue
    }
    if (b === 0 && profile.nulIsPadding) {
      emitRaw(buf.subarray(i, i + 1))
      i++
      continue
    }
    if (rootDone) strict = true
    const top = stack[stack.length - 1]
    if (b === 0x7b || b === 0x5b) {
      if (top && top.kind === 'object' && top.expectKey) strict = true
      const key = top ? (top.kind === 'object' ? top.lastKey : top.key) : null
      const pathMap = Boolean(top && (top.pathMap || (top.kind === 'object' && key !== null && profile.pathMapKeys?.has(key) === true)))
      stack.push({kind: b === 0x7b ? 'object' : 'array', key, lastKey: null, expectKey: b === 0x7b, pathMap})
      emit(b === 0x7b ? '{' : '[')
      i++
      continue
    }
    if (b === 0x7d || b === 0x5d) {
      if (!top || top.kind !== (b === 0x7d ? 'object' : 'array')) strict = true
      if (top) stack.pop()
      if (stack.length === 0) rootDone = true
      emit(b === 0x7d ? '}' : ']')
      i++
      continue
    }
    if (b === 0x2c) {
      if (!top) strict = true
      else if (top.kind === 'object') top.expectKey = true
      emit(',')
      i++
      continue
    }
    if (b === 0x3a) {
      if (!top || top.kind !== 'object') strict = true
      else top.expectKey = false
      emit(':')
      i++
      continue
    }
    if (b === Q) {
      const {pieces, next, closed} = lexString(buf, i + 1, end)
      const isBreak = (p: Piece) => !p.clean && profile.lineBreaksInStrings === true && p.raw.length === 1 && (p.raw[0] === 0x0a || p.raw[0] === 0x0d)
      const damaged = !closed || pieces.some((p) => !p.clean && !isBreak(p))
      if (damaged) strict = true
      const isKey = Boolean(top && top.kind === 'object' && top.expectKey)
      emit('"')
      if (!damaged && !strict && !isKey && pieces.some(isBreak)) {
        // A string holding raw line breaks: the breaks kept, the text between them redacted piece by piece.
        const key = top ? (top.kind === 'object' ? top.lastKey : top.key) : null
        let first = true
        for (const p of pieces) {
          if (isBreak(p)) {
            emitRaw(p.raw)
            continue
          }
          const v = decodeClean(p.raw)
          emit(encode(keepLoneSurrogate(v, first ? redactValue(v, key, profile, r, stack.length) : r.placeholder(v))))
          first = false
        }
      } else if (damaged || strict) {
        for (const p of pieces) {
          if (p.clean) {
            const v = decodeClean(p.raw)
            emit(encode(keepLoneSurrogate(v, r.placeholder(v))))
          } else emitRaw(p.raw)
        }
        if (isKey && top) top.lastKey = null
      } else {
        const value = pieces.length === 0 ? '' : decodeClean(Buffer.concat(pieces.map((p) => p.raw)))
        if (isKey) {
          top!.lastKey = value
          emit(encode(SAFE_KEY.test(value) && !top!.pathMap ? value : keepLoneSurrogate(value, r.placeholder(value))))
        } else {
          const key = top ? (top.kind === 'object' ? top.lastKey : top.key) : null
          emit(encode(keepLoneSurrogate(value, redactValue(value, key, profile, r, stack.length))))
        }
      }
      if (closed) emit('"')
      if (!top) rootDone = true
      i = next
      continue
    }
    if (b === 0x2d || (b >= 0x30 && b <= 0x39)) {
      let k = i + 1
      while (k < end && ((buf[k] >= 0x30 && buf[k] <= 0x39) || buf[k] === 0x2e || buf[k] === 0x65 || buf[k] === 0x45 || buf[k] === 0x2b || buf[k] === 0x2d)) k++
      emit(buf.subarray(i, k).toString('latin1'))
      if (!top) rootDone = true
      i = k
      continue
    }
    if (isWordByte(b)) {
      let k = i + 1
      while (k < end && isWordByte(buf[k])) k++
      const w = redactWord(buf.subarray(i, k).toString('latin1'))
      if (w.irregular) strict = true
      emit(w.out)
      if (!top) rootDone = true
      i = k
      continue
    }
    strict = true
    if (b >= 0x80) {
      const u = utf8SequenceAt(buf, i, end)
      if (u === null) {
        emitRaw(buf.subarray(i, i + 1))
        i++
      } else if (!u.complete) {
        emitRaw(canonicalCut(u.need, u.len, i + u.len < end ? buf[i + u.len] : undefined))
        i += u.len
      } else {
        emit('x')
        i += u.len
      }
      continue
    }
    // NUL, other control bytes, other ASCII punctuation: kept.
    emitRaw(buf.subarray(i, i + 1))
    i++
  }
  if (pending) out.push(Buffer.from(pending, 'utf8'))
  return Buffer.concat(out)
}

/** A string value in a regular region, by the profile: a structural id kept, else the profile's rule or a placeholder. */
function redactValue(value: string, key: string | null, profile: RedactProfile, r: Redactor, depth: number): string {
  if (key !== null && profile.structuralKeys.has(key) && SAFE_VALUE.test(value)) return value
  return profile.value?.(value, key, r, depth) ?? r.placeholder(value)
}
