/**
 * Salvage of a torn JSON document at whole-element granularity (prior-art.md §3.4): keep the original bytes up
 * to the last complete element of the spine array (and the complete members around it), close the open
 * brackets, fill the members the tear cut off with the *exact bytes* of the same members in donor
 * generations, and validate the result by parsing it. Every kept byte is an original byte; a torn element is
 * dropped, never completed; nothing is invented (what no donor holds is reported missing).
 *
 * Also handles a complete document followed by other bytes (NULs after a crash under delayed allocation, a
 * stale tail of a longer earlier write): the document is kept whole and the tail dropped.
 *
 * Format-independent: the spine, the required keys and the donors come from the format adapter.
 */
import {isUtf8} from 'node:buffer'
import {createHash} from 'node:crypto'
import type {ContextMeasure, Finding, SalvageReport} from '../model/report.js'
import {SALVAGE_MORE_TURNS, finding} from '../model/findings.js'
import {checkUtf8, hasBom, indexOfByte} from '../classify/bytes.js'
import {onlyPaddingFrom} from '../classify/documents.js'
import {lastMember, skipWs, type MemberRange} from '../json/walk.js'
import {isSpineError, scanSpine, type SpineLevel, type SpineScan} from './spine.js'

/** A complete generation that may lend the members a tear cut off. */
export interface Donor {
  /** Its name as reported (file name, or `<file>#<id>` for an embedded copy). */
  name: string
  /** Its bytes (the whole document; for an embedded copy, exactly the embedded value). */
  bytes: Uint8Array
}

/** Options of `salvageJson`. */
export interface SalvageOptions {
  /** Object keys from the root to the array whose elements are kept whole (e.g. `['sessionState', 'mainAgentState', 'messageHistory']`). */
  spine: readonly string[]
  /** Keys each object on the spine must end up with for its reader to accept the result, by dotted path (`''` for the root). */
  required?: Readonly<Record<string, readonly string[]>>
  /** Donors, newest first: a lost member is taken from the first donor that has it. */
  donors?: readonly Donor[]
  /** Offset of the first damaged byte, when the caller knows it (e.g. the classifier's `damage.offset`). */
  end?: number
  /**
   * With an empty spine: the root is the array kept element by element (`array`, the default), or an object
   * kept member by member (`object`: a record whose complete members survive the tear).
   */
  root?: 'array' | 'object'
}

/** A member taken from a donor. */
export interface BorrowedKey {
  /** Dotted path of the member, e.g. `sessionState.fileContext`. */
  key: string
  /** The donor's name. */
  from: string
}

/** What a salvage kept, dropped and borrowed. Byte counts are of the original file. */
export interface SalvageDescription {
  /**
   * `prefix`: a torn document cut back and closed; `tail`: a complete document with the bytes after it dropped;
   * `bom`: a complete document behind a UTF-8 BOM, the BOM dropped (`bytesKept` then counts the bytes after it).
   */
  kind: 'prefix' | 'tail' | 'bom'
  /** Complete elements of the spine array kept. */
  elementsKept: number
  /** True when a partial element of the spine array was dropped. */
  tornElementDropped: boolean
  /** Offset of the first byte that could not be used (the tear, the first NUL, the first invalid byte). */
  tearOffset: number
  /** Original bytes kept: `[0, bytesKept)`. */
  bytesKept: number
  /** Original bytes dropped: `file size − bytesKept`. */
  bytesDropped: number
  /** Members cut off by the tear and filled from donors, per key. */
  keysBorrowed: BorrowedKey[]
  /** Required members cut off that no donor holds: the result would be rejected by its reader. */
  keysMissing: string[]
  /** Optional members cut off that no donor holds: left out. */
  keysDropped: string[]
  /**
   * True when nothing that was written is lost: a complete document with only trailing bytes after it
   * (`tail`), or a prefix whose every element and member is kept byte for byte, none borrowed, missing or
   * dropped, followed only by whitespace or NULs (the tear cut off closing syntax and nothing else).
   */
  lossless: boolean
}

/**
 * A successful salvage: the exact bytes to write, as pieces (views of the original and donor buffers, in
 * order: concatenate them with `salvageBytes`), their total size, their parsed value (for measuring) and the
 * description.
 */
export interface Salvage {
  parts: Uint8Array[]
  /** Total size of `parts` in bytes. */
  size: number
  value: unknown
  description: SalvageDescription
}

/**
 * The report entry of a salvage: its description's figures, the size and sha256 of its bytes, and what the
 * format says of it (`messages` kept, `turns` of the result, whether a repair could use it).
 */
export function salvageReport(s: Salvage, what: {messages: number; turns: number | null; candidate: boolean}): SalvageReport {
  const d = s.description
  const hash = createHash('sha256')
  for (const p of s.parts) hash.update(p)
  return {
    kind: d.kind,
    messages: what.messages,
    turns: what.turns,
    tearOffset: d.tearOffset,
    bytesKept: d.bytesKept,
    bytesDropped: d.bytesDropped,
    tornElementDropped: d.tornElementDropped,
    keysBorrowed: d.keysBorrowed,
    keysMissing: d.keysMissing,
    keysDropped: d.keysDropped,
    bytes: s.size,
    sha256: hash.digest('hex'),
    candidate: what.candidate,
    lossless: d.lossless,
  }
}

/**
 * The rule for a lossy salvage, the same for every agent: it never changes a chat's status (plain `repair`
 * does not write it), but when it reaches more turns than every usable generation (`best`: their N, null when
 * none is usable) the chat says so, as an urgent warning, and every human output gives the exact
 * `repair --salvage` command. `how`: what makes it lossy, in words ("by dropping the torn message"). Null when
 * it reaches no more turns.
 */
export function salvageMoreTurns(file: string, reaches: number, transcriptTurns: number | null, best: number | null, how: string): Finding | null {
  if (reaches <= (best ?? 0)) return null
  const now = best === null ? 'no usable generation remains' : `the best intact generation covers turn ${best}`
  return finding(SALVAGE_MORE_TURNS, file, `a salvage of ${file} reaches turn ${reaches}${transcriptTurns !== null ? ` of ${transcriptTurns}` : ''} (${now}) only ${how}; plain repair does not use it, repair --salvage does`)
}

/** The label of salvaged bytes as reports and actions name them: `salvage:<torn file>`. */
export function salvageLabel(file: string): string {
  return `salvage:${file}`
}

/** The torn file a `salvage:<file>` label names; null for any other name. */
export function salvagedFileOf(label: string): string | null {
  return label.startsWith('salvage:') ? label.slice('salvage:'.length) : null
}

/** The salvaged document as one buffer (a copy). */
export function salvageBytes(s: Pick<Salvage, 'parts'>): Buffer {
  return Buffer.concat(s.parts)
}

/**
 * A salvaged generation of a chat, as a format adapter hands it to `repair --salvage`: the torn file's name,
 * the exact bytes a restore writes (in pieces: `salvageBytes`), the report entry, and the measure used to rank
 * it against intact candidates (null when it holds no agent context).
 */
export interface SalvagedGeneration {
  file: string
  parts: Uint8Array[]
  summary: SalvageReport
  measure: ContextMeasure | null
}

/** `salvageJson`'s answer: a salvage, or why there is none. */
export type SalvageOutcome = {ok: true; salvage: Salvage} | {ok: false; reason: string}

const dotted = (path: readonly string[]): string => path.join('.')

/** Spine scans of donor bytes, cached per buffer and spine (a chat's donors serve several salvages). */
const donorScans = new WeakMap<Uint8Array, Map<string, Map<string, MemberRange[]> | null>>()

/** Lazily scanned donors: each donor's spine objects' members, by dotted path. */
class DonorIndex {
  private scans = new Map<number, Map<string, MemberRange[]> | null>()
  constructor(
    private readonly donors: readonly Donor[],
    private readonly spine: readonly string[],
    private readonly root: 'array' | 'object' = 'array',
  ) {}

  private membersOf(k: number): Map<string, MemberRange[]> | null {
    if (!this.scans.has(k)) {
      const bytes = this.donors[k].bytes
      const spineKey = `${this.root}\u0000${this.spine.join('\u0000')}`
      let perBuf = donorScans.get(bytes)
      if (!perBuf) donorScans.set(bytes, (perBuf = new Map()))
      if (!perBuf.has(spineKey)) {
        const r = scanSpine(bytes, this.spine, bytes.length, this.root)
        let m: Map<string, MemberRange[]> | null = null
        if (!isSpineError(r) && r.complete) {
          m = new Map()
          for (const l of r.levels) if (l.kind === 'object') m.set(dotted(l.path), l.members)
        }
        perBuf.set(spineKey, m)
      }
      this.scans.set(k, perBuf.get(spineKey)!)
    }
    return this.scans.get(k)!
  }

  /** Keys of the object at `path` in the newest donor that has that object, in its order (no duplicates). */
  keysAt(path: string): string[] {
    for (let k = 0; k < this.donors.length; k++) {
      const members = this.membersOf(k)?.get(path)
      if (members) return [...new Set(members.map((m) => m.key))]
    }
    return []
  }

  /** The newest donor holding member `key` of the object at `path`, with its bytes `"key":value`. */
  find(path: string, key: string): {from: string; bytes: Uint8Array[]} | null {
    for (let k = 0; k < this.donors.length; k++) {
      const members = this.membersOf(k)?.get(path)
      const m = members && lastMember(members, key)
      if (!m) continue
      const b = this.donors[k].bytes
      return {from: this.donors[k].name, bytes: [b.subarray(m.keyStart, m.keyEnd), COLON, b.subarray(m.valueStart, m.valueEnd)]}
    }
    return null
  }
}

const COLON = Buffer.from(':')
const COMMA = Buffer.from(',')
const CLOSE_OBJECT = Buffer.from('}')
const CLOSE_ARRAY = Buffer.from(']')

function toText(p: Uint8Array): string {
  return Buffer.from(p.buffer, p.byteOffset, p.length).toString('utf8')
}

/** The first offset that cannot be part of a usable prefix because of a NUL byte (or `end`). */
function firstNulBefore(buf: Uint8Array, end: number): number {
  const at = indexOfByte(buf, 0, 0, end)
  return at < 0 ? end : at
}

/**
 * Salvages a torn or NUL-padded JSON document. Pure; never throws. Returns `ok: false` with a one-line reason
 * when nothing can be kept: the spine array was never reached (or holds no complete element and no donor
 * helps), or the bytes before the tear are not JSON.
 *
 * Cost: one structural byte pass over the file, one strict UTF-8 decode and one `JSON.parse` of the result
 * (≥ 100 MB/s on the reference machine: `scripts/salvage-speed.ts`).
 */
export function salvageJson(buf: Uint8Array, opts: SalvageOptions): SalvageOutcome {
  if (hasBom(buf)) return withoutBom(buf, opts)
  let end = firstNulBefore(buf, Math.min(opts.end ?? buf.length, buf.length))
  const first = attempt(buf, end, opts)
  if (first.ok || first.retryAt === undefined) return first.ok ? first : {ok: false, reason: first.reason}
  // Invalid UTF-8 inside what would be kept: treat the first bad byte as the tear and try once more.
  end = first.retryAt
  const second = attempt(buf, end, opts)
  return second.ok ? second : {ok: false, reason: second.reason}
}

/**
 * A document behind a UTF-8 BOM (an editor re-saved the file): salvaged only when everything after the BOM is
 * one complete document, which is then kept whole (`kind: 'bom'`, lossless: only the 3 BOM bytes dropped).
 */
function withoutBom(buf: Uint8Array, opts: SalvageOptions): SalvageOutcome {
  const rest = buf.subarray(3)
  const inner = attempt(rest, rest.length, {...opts, end: undefined})
  if (!inner.ok) return {ok: false, reason: `after the BOM: ${inner.reason}`}
  const d = inner.salvage.description
  if (d.kind !== 'tail' || !onlyPaddingFrom(rest, d.bytesKept) || d.bytesKept !== skipWsBack(rest)) return {ok: false, reason: 'a BOM and further damage after it'}
  return {ok: true, salvage: {...inner.salvage, description: {...d, kind: 'bom', tearOffset: 0, bytesKept: d.bytesKept, bytesDropped: buf.length - d.bytesKept, lossless: true}}}
}

/** The offset just after the last non-whitespace byte. */
function skipWsBack(buf: Uint8Array): number {
  let i = buf.length
  while (i > 0 && (buf[i - 1] === 0x20 || buf[i - 1] === 0x0a || buf[i - 1] === 0x0d || buf[i - 1] === 0x09)) i--
  return i
}

type Attempt = {ok: true; salvage: Salvage} | {ok: false; reason: string; retryAt?: number}

function attempt(buf: Uint8Array, end: number, opts: SalvageOptions): Attempt {
  const scan = scanSpine(buf, opts.spine, end, opts.root)
  if (isSpineError(scan)) return {ok: false, reason: `${scan.error} at byte ${scan.at}`}
  const target = scan.levels.find((l) => l.kind === 'array')
  let parts: Uint8Array[]
  let description: SalvageDescription
  if (scan.complete) {
    const docEnd = scan.docEnd!
    if (skipWs(buf, docEnd, end) < end) return {ok: false, reason: `bytes after the end of the document at byte ${docEnd}`}
    parts = [buf.subarray(0, docEnd)]
    description = {
      kind: 'tail',
      elementsKept: target?.elements.length ?? 0,
      tornElementDropped: false,
      tearOffset: end,
      bytesKept: docEnd,
      bytesDropped: buf.length - docEnd,
      keysBorrowed: [],
      keysMissing: [],
      keysDropped: [],
      lossless: true,
    }
  } else {
    if (!scan.reachedTarget) return {ok: false, reason: `the tear at byte ${end} comes before ${dotted(opts.spine)} begins`}
    const closed = closeOpen(buf, scan, opts)
    parts = closed.parts
    const tornElementDropped = target !== undefined && target.end === null && skipWs(buf, scan.keepEnd, end) < end
    const nothingLost = !tornElementDropped && closed.borrowed.length === 0 && closed.missing.length === 0 && closed.dropped.length === 0
    description = {
      kind: 'prefix',
      elementsKept: target?.elements.length ?? 0,
      tornElementDropped,
      tearOffset: end,
      bytesKept: scan.keepEnd,
      bytesDropped: buf.length - scan.keepEnd,
      keysBorrowed: closed.borrowed,
      keysMissing: closed.missing,
      keysDropped: closed.dropped,
      lossless: nothingLost && onlyPaddingFrom(buf, scan.keepEnd),
    }
  }
  // Validate: strict UTF-8 (native check of each piece; every piece boundary is a structural byte, so no
  // character is split between pieces), then JSON.parse of the decoded text.
  let size = 0
  for (let k = 0; k < parts.length; k++) {
    if (!isUtf8(parts[k])) {
      if (k > 0) return {ok: false, reason: 'a borrowed member is not valid UTF-8'}
      const bad = checkUtf8(buf, 0, description.bytesKept)
      return {ok: false, reason: `invalid UTF-8 at byte ${bad.ok ? 0 : bad.offset}`, retryAt: bad.ok ? undefined : bad.offset}
    }
    size += parts[k].length
  }
  let value: unknown
  try {
    value = JSON.parse(toText(parts.length === 1 ? parts[0] : Buffer.concat(parts, size)))
  } catch (e) {
    return {ok: false, reason: `the bytes before the tear are not valid JSON (${(e as Error).message.split('\n')[0]})`}
  }
  return {ok: true, salvage: {parts, size, value, description}}
}

/** The closers for the containers open at `keepEnd`, with lost members filled from donors. */
function closeOpen(buf: Uint8Array, scan: SpineScan, opts: SalvageOptions): {parts: Uint8Array[]; borrowed: BorrowedKey[]; missing: string[]; dropped: string[]} {
  const parts: Uint8Array[] = [buf.subarray(0, scan.keepEnd)]
  const borrowed: BorrowedKey[] = []
  const missing: string[] = []
  const dropped: string[] = []
  const donors = new DonorIndex(opts.donors ?? [], opts.spine, opts.root)
  for (let k = scan.open.length - 1; k >= 0; k--) {
    const level: SpineLevel = scan.open[k]
    if (level.kind === 'array') {
      parts.push(CLOSE_ARRAY)
      continue
    }
    const path = dotted(level.path)
    const childKey = k < scan.open.length - 1 ? scan.open[k + 1].path[level.path.length] : null
    const kept = new Set(level.members.map((m) => m.key))
    if (childKey !== null) kept.add(childKey)
    const innermost = k === scan.open.length - 1
    const wanted = [...donors.keysAt(path), ...(opts.required?.[path] ?? [])]
    if (innermost && scan.tornKey !== null) wanted.push(scan.tornKey)
    let needComma = kept.size > 0
    for (const key of new Set(wanted)) {
      if (kept.has(key)) continue
      const name = path === '' ? key : `${path}.${key}`
      const found = donors.find(path, key)
      if (found) {
        if (needComma) parts.push(COMMA)
        parts.push(...found.bytes)
        needComma = true
        borrowed.push({key: name, from: found.from})
      } else if ((opts.required?.[path] ?? []).includes(key)) missing.push(name)
      else dropped.push(name)
    }
    parts.push(CLOSE_OBJECT)
  }
  return {parts, borrowed, missing, dropped}
}
