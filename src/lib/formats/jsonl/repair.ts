/**
 * The repair planner for JSONL session logs (Claude Code, Codex, Gemini CLI). Pure: bytes in, repaired bytes and
 * the list of changes out; writes nothing (the repair command writes the result through `fsio/`).
 *
 * The only byte changes it makes:
 * - `drop-torn-tail`: remove the cut final line;
 * - `strip-nul`: remove NUL runs (a line of only NULs is removed with its line ending);
 * - `strip-bom`: remove a UTF-8 BOM in front of a record (Codex refuses a BOM before its header; peer-formats §3.6);
 * - `split-line`: a line holding a cut record and the next record (run together, or apart only by a NUL run)
 *   keeps the complete record(s), each on its own line, and drops the cut bytes and the NULs;
 * - `rejoin-lines`: a record spread over several lines by raw line breaks inside its strings becomes one line
 *   again, each raw line break replaced by its JSON escape (`\n`, `\r`): the only bytes added, `bytesAdded`;
 * - `drop-line`: remove an unrecoverable line (a cut interior record, bad UTF-8, other content);
 * - `relink-parent` (Claude Code): the record after a dropped one gets the `parentUuid` of the record before it,
 *   so the agent's chain walk crosses the gap (the value bytes of that one key change, nothing else);
 * - `set-ordinal` (Codex): a paginated rollout's last records that lack their `ordinal` get the one Codex's
 *   writer would have given them (one member inserted, nothing else); see `rules.amend`.
 * - `add-newline` (agents that append a record without first checking that the file ends in a line end, e.g.
 *   Gemini CLI): a complete final record without its line end gets one, so the next append starts a new line
 *   instead of running onto the record;
 * - `drop-trailing` (made by a format's own rules on top of this plan, e.g. Gemini CLI's unfinished resume):
 *   whole lines at the end of the log that leave the agent's loader with nothing, removed.
 * Every other line stays byte-identical, in order. The result is classified again and checked with the agent's
 * own acceptance rules (`rules.accept`, e.g. Codex's header first).
 */
import {createHash} from 'node:crypto'
import {bufferSource, classifyJsonlBytes, classifyJsonlSource, classifyResult, piecesSource, readFresh, type ByteSource, linesOf, recordValues, type JsonlClassification, type JsonlLine, type KeepRecord, type KeptColumns, type LineReason, type LineView, type Piece, type ResultLine, type ValueView} from '../../classify/jsonl.js'
import {scanValue, skipWhitespace} from '../../classify/json.js'

/** Kinds of byte change a JSONL repair may make. */
export type JsonlChangeKind = 'drop-torn-tail' | 'strip-nul' | 'strip-bom' | 'split-line' | 'rejoin-lines' | 'drop-line' | 'relink-parent' | 'set-ordinal' | 'add-newline' | 'drop-trailing'

/** One change of a planned repair. Offsets are into the original file. */
export interface JsonlChange {
  kind: JsonlChangeKind
  /** 1-based line number in the original file. */
  line: number
  /** Byte offset of the line in the original file. */
  offset: number
  /** Bytes of the original line (with its line ending); for `rejoin-lines`, of all the lines joined. */
  length: number
  reasons: LineReason[]
  /** Bytes removed by this change (0 for `relink-parent` when the ids are of equal length, and for `add-newline`). */
  bytesRemoved: number
  /** Bytes added by this change (`rejoin-lines`: the escapes of the raw line breaks; `relink-parent`: a longer id). */
  bytesAdded?: number
  /** (`rejoin-lines`) How many physical lines became one. */
  linesJoined?: number
  /** Complete records the line still holds after the change. */
  recordsKept: number
  /** sha256 of the original line's bytes (for `relink-parent`: of the record's bytes before the change); evidence. */
  sha256: string
  /** For `relink-parent`: the old and new parent ids (ids only, never content). */
  relink?: {from: string; to: string}
  /** For `set-ordinal`: the ordinal given. */
  ordinal?: number
}

/** One record the agent's rules amend after the line changes: its new bytes and value, the change to report. */
export interface RecordAmendment {
  /** Index of the record among the records the repair keeps, in file order. */
  index: number
  bytes: Uint8Array
  value: Record<string, unknown>
  kind: Extract<JsonlChangeKind, 'set-ordinal'>
  note: {ordinal: number}
}

/** The agent's rules a plan is made and checked with. */
export interface JsonlRepairRules {
  /**
   * Claude Code: re-link `parentUuid`s that point to no record of the repaired file. `main` re-links every such
   * record that has a record before it; `sidechain` only a record whose parent was on a line the repair drops
   * or the first record after such a line (a side-chain's first parents live in its parent session).
   */
  relink?: 'main' | 'sidechain'
  /**
   * The agent appends whole lines without checking the file's last byte: the repaired log must end in a line end
   * (a final record without one gets the file's line ending, change `add-newline`).
   */
  finalNewline?: boolean
  /** The agent's acceptance rules over the repaired records, in order: problems found (empty: accepted). */
  accept?(records: Array<Record<string, unknown>>): string[]
  /**
   * The agent's amendments to the records the repair keeps (e.g. Codex's missing ordinals), given their values
   * in order and the bytes of the `i`th when asked (a streamed log's clean records are read again); none by default.
   */
  amend?(values: ValueView, bytesOf: (i: number) => Uint8Array): RecordAmendment[]
  /**
   * The format's record rule (`JsonlClassifyOptions.isRecord`): only objects it accepts are kept out of a
   * damaged line, so a nested object closing right before a cut is never written back as a line.
   */
  isRecord?(value: Record<string, unknown>): boolean
}

/** A planned repair. */
export interface JsonlRepairPlan {
  /**
   * The repaired file's bytes (equal to the input when `changes` is empty), made from `pieces` when first read:
   * for a log read by streaming, write `pieces` instead (`writePieces`), never this.
   */
  readonly bytes: Buffer
  /** The repaired file as pieces: ranges of the input kept byte for byte, and the few bytes a change makes. */
  pieces: Piece[]
  /** The input the ranges of `pieces` are of. */
  source: ByteSource
  /** The repaired file's size. */
  size: number
  /** sha256 of the repaired file (computed from `pieces` when first read). */
  readonly sha256: string
  changes: JsonlChange[]
  /** The classification of the input. */
  before: JsonlClassification
  /** The classification of the result. */
  after: JsonlClassification
  /** True when the result is `intact` and passes the agent's acceptance rules. */
  accepted: boolean
  /** Why the result is not accepted (empty when accepted). */
  problems: string[]
}

/**
 * A log to plan the repair of, as a source: a buffer's bytes, or a file read by streaming (`streamed`: its
 * classification keeps no bytes of clean lines and, with `keep`, only part of each record's value).
 */
export interface JsonlLog {
  source: ByteSource
  streamed: boolean
  keep?: KeepRecord
  /** Where the kept values of clean lines go, one store per classification (`KeptColumns`). */
  columns?: () => KeptColumns
}

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex')
}

const EOL = {lf: Buffer.from('\n'), crlf: Buffer.from('\r\n'), none: Buffer.alloc(0)}

/**
 * Locates the value of a top-level key of the JSON object in `buf[start, end)`: `[valueStart, valueEnd)`, or
 * null when the key is absent or the bytes are not one object. Uses the strict scanner of `classify/json.ts`.
 */
export function topLevelValueSpan(buf: Uint8Array, key: string, start = 0, end = buf.length): {start: number; end: number} | null {
  let i = skipWhitespace(buf, start, end)
  if (buf[i] !== 0x7b) return null
  i = skipWhitespace(buf, i + 1, end)
  if (buf[i] === 0x7d) return null
  const want = JSON.stringify(key)
  for (;;) {
    const k = scanValue(buf, i, end)
    if (k.kind !== 'complete' || buf[i] !== 0x22) return null
    const keyText = Buffer.from(buf.subarray(i, k.end)).toString('utf8')
    i = skipWhitespace(buf, k.end, end)
    if (buf[i] !== 0x3a) return null
    i = skipWhitespace(buf, i + 1, end)
    const v = scanValue(buf, i, end)
    if (v.kind !== 'complete') return null
    let matches = keyText === want
    if (!matches && keyText.includes('\\')) {
      try {
        matches = JSON.parse(keyText) === key
      } catch {
        matches = false
      }
    }
    if (matches) return {start: i, end: v.end}
    i = skipWhitespace(buf, v.end, end)
    if (buf[i] === 0x2c) {
      i = skipWhitespace(buf, i + 1, end)
      continue
    }
    return null
  }
}

interface Out {
  /** The index of the line of the original file this piece comes from. */
  line: number
  /** The record's value, when the piece is a record. */
  value?: Record<string, unknown>
  /** The piece's bytes; null while they are the line's own content, `[line.start, line.end)` of the source. */
  bytes: Uint8Array | null
  eol: Uint8Array
  /** True when a line before this record (since the previous record) was dropped. */
  afterDrop: boolean
}

/**
 * The planner's pieces in order, as columns: a clean record kept as it is (most of a log) is its line's index and
 * whether a line before it was dropped, in typed arrays; any other piece (a record rewritten, a blank line, one a
 * rule changes) is an `Out` object. A log of many records holds no object per record while its repair is planned.
 */
class OutList {
  n = 0
  private lines = new Int32Array(256)
  private drops = new Uint8Array(256)
  private readonly objs = new Map<number, Out>()
  constructor(private readonly view: LineView) {}

  private slot(line: number, afterDrop: boolean): number {
    if (this.n === this.lines.length) {
      const l = new Int32Array(this.n * 2)
      l.set(this.lines)
      this.lines = l
      const d = new Uint8Array(this.n * 2)
      d.set(this.drops)
      this.drops = d
    }
    const k = this.n++
    this.lines[k] = line
    this.drops[k] = afterDrop ? 1 : 0
    return k
  }

  /** A clean record of line `line` kept as it is. */
  pushClean(line: number, afterDrop: boolean): void {
    this.slot(line, afterDrop)
  }

  push(o: Out): void {
    this.objs.set(this.slot(o.line, o.afterDrop), o)
  }

  line(k: number): number {
    return this.lines[k]
  }

  /** Piece `k` as an object, held from now on (a rule changing it). */
  own(k: number): Out {
    let o = this.objs.get(k)
    if (o === undefined) {
      const i = this.lines[k]
      o = {line: i, value: this.view.cleanValue(i), bytes: null, eol: EOL[this.view.eol(i)], afterDrop: this.drops[k] === 1}
      this.objs.set(k, o)
    }
    return o
  }

  /** True when piece `k` is a record (a clean one, or an object with a value). */
  isRecord(k: number): boolean {
    const o = this.objs.get(k)
    return o === undefined || o.value !== undefined
  }

  value(k: number): Record<string, unknown> | undefined {
    const o = this.objs.get(k)
    return o === undefined ? this.view.cleanValue(this.lines[k]) : o.value
  }

  bytes(k: number): Uint8Array | null {
    return this.objs.get(k)?.bytes ?? null
  }

  eol(k: number): Uint8Array {
    return this.objs.get(k)?.eol ?? EOL[this.view.eol(this.lines[k])]
  }

  afterDrop(k: number): boolean {
    return this.drops[k] === 1
  }
}

const isNul = (r: LineReason) => r === 'nul-run' || r === 'nul-tail'

function changeKindFor(line: JsonlLine): JsonlChangeKind {
  if (line.reasons.includes('torn-tail')) return 'drop-torn-tail'
  if (line.joinedThrough !== undefined) return 'rejoin-lines'
  if (line.action === 'drop') return line.reasons.every(isNul) ? 'strip-nul' : 'drop-line'
  if (line.reasons.includes('interleaved-line') || line.reasons.includes('torn-interior')) return 'split-line'
  if (line.reasons.some(isNul)) return 'strip-nul'
  return 'strip-bom'
}

/** Bytes per read when hashing or materialising ranges of a source. */
const READ_BYTES = 1 << 22

/**
 * The bytes of `pieces` in order, ranges of `source` read a chunk at a time into one reused buffer: a chunk is
 * valid until the next one is asked for. A range the source no longer holds (the file got shorter) ends the
 * chunks early: the bytes are then not the planned ones, which the writer's hash shows.
 */
export function* pieceChunks(pieces: readonly Piece[], source: ByteSource): Generator<Uint8Array> {
  let buf: Buffer | null = null
  for (const p of pieces) {
    if (p instanceof Uint8Array) {
      yield p
      continue
    }
    buf ??= Buffer.allocUnsafe(Math.min(READ_BYTES, Math.max(1, p.end - p.start)))
    for (let at = p.start; at < p.end; ) {
      if (buf.length < Math.min(READ_BYTES, p.end - at)) buf = Buffer.allocUnsafe(Math.min(READ_BYTES, p.end - at))
      const n = source.readInto(buf, 0, Math.min(buf.length, p.end - at), at)
      if (n === 0) return
      yield buf.subarray(0, n)
      at += n
    }
  }
}

function eachPieceChunk(pieces: readonly Piece[], source: ByteSource, each: (b: Uint8Array) => void): void {
  for (const b of pieceChunks(pieces, source)) each(b)
}

/** The lines of the repaired file from the kept pieces, as `classifyResult` takes them. */
function resultLines(out: OutList, lines: LineView): ResultLine[] {
  const r: ResultLine[] = []
  for (let k = 0; k < out.n; k++) {
    const bytes = out.bytes(k)
    const line = out.line(k)
    const eol = out.eol(k)
    r.push({from: bytes === null ? line : null, bytes, length: bytes === null ? lines.end(line) - lines.start(line) : bytes.length, eol: eol.length === 2 ? 'crlf' : eol.length === 1 ? 'lf' : 'none'})
  }
  return r
}

/** The pieces of the repaired file from the kept pieces: a kept line with its own line ending is one range. */
function piecesOf(out: OutList, lines: LineView): Piece[] {
  const pieces: Piece[] = []
  const push = (p: Piece) => {
    if (p instanceof Uint8Array) {
      if (p.length > 0) pieces.push(p)
      return
    }
    const prev = pieces[pieces.length - 1]
    if (prev && !(prev instanceof Uint8Array) && prev.end === p.start) prev.end = p.end
    else if (p.end > p.start) pieces.push({...p})
  }
  for (let k = 0; k < out.n; k++) {
    const line = out.line(k)
    const bytes = out.bytes(k)
    const eol = out.eol(k)
    if (bytes === null && eol === EOL[lines.eol(line)]) push({start: lines.start(line), end: lines.next(line)})
    else {
      push(bytes ?? {start: lines.start(line), end: lines.end(line)})
      push(eol)
    }
  }
  return pieces
}

/**
 * Plans the repair of a JSONL log. Never throws for a buffer (a streamed source throws what reading it throws).
 * With nothing to change, the result is the input and `changes` is empty (the plan is still checked against the
 * acceptance rules). `given` is the input's classification with `rules.isRecord` when the caller has it.
 */
export function planJsonlRepair(input: Uint8Array | JsonlLog, rules: JsonlRepairRules = {}, given?: JsonlClassification): JsonlRepairPlan {
  const log: JsonlLog = input instanceof Uint8Array ? {source: bufferSource(input), streamed: false} : input
  const src = log.source
  const classify = (s: ByteSource): JsonlClassification => (log.streamed ? classifyJsonlSource(s, {isRecord: rules.isRecord, keep: log.keep, columns: log.columns}).cls : classifyJsonlBytes(s.read(0, s.size), {isRecord: rules.isRecord}))
  const before = given ?? classify(src)
  const lines = linesOf(before)
  const changes: JsonlChange[] = []
  const out = new OutList(lines)
  let dropped = false
  const droppedText: string[] = []
  for (let i = 0; i < lines.count; i++) {
    if (lines.isClean(i)) {
      // A clean record kept as it is: read from the table, no line object made.
      out.pushClean(i, dropped)
      dropped = false
      continue
    }
    const line = lines.line(i)
    if (line.partOf !== undefined && line.partOf !== line.index) continue // a later piece of a rejoined record
    const lastLine = line.joinedThrough !== undefined ? lines.line(line.joinedThrough) : line
    if (line.action === 'keep') {
      if (line.kind === 'record') out.push({line: i, value: line.records[0].value, bytes: null, eol: EOL[line.eol], afterDrop: dropped})
      else out.push({line: i, bytes: null, eol: EOL[line.eol], afterDrop: false})
      if (line.kind === 'record') dropped = false
      continue
    }
    const whole = {start: line.start, end: lastLine.next}
    const kept = line.records.length
    let keptBytes = 0
    if (line.action === 'rewrite') {
      line.records.forEach((r, j) => {
        const last = j === line.records.length - 1
        const eol = last ? EOL[lastLine.eol] : EOL[line.eol === 'none' ? before.eol : line.eol]
        out.push({line: i, value: r.value, bytes: r.bytes ?? src.read(r.offset!, r.offset! + r.length), eol, afterDrop: dropped || line.reasons.includes('interleaved-line') || line.reasons.includes('torn-interior')})
        keptBytes += r.length + eol.length
        dropped = false
      })
    } else {
      dropped = true
      // A line of NULs holds no parent id: its bytes (maybe hundreds of MB) are hashed, never held.
      if (!line.reasons.every(isNul)) droppedText.push(Buffer.from(src.read(whole.start, whole.end)).toString('latin1'))
    }
    const change: JsonlChange = {
      kind: changeKindFor(line),
      line: line.index + 1,
      offset: line.start,
      length: whole.end - whole.start,
      reasons: [...line.reasons],
      bytesRemoved: Math.max(0, whole.end - whole.start - keptBytes),
      recordsKept: kept,
      sha256: rangeSha256(src, whole.start, whole.end),
    }
    if (line.joinedThrough !== undefined) {
      // The raw line breaks between the pieces go, their escapes come in: nothing else changes.
      let breaks = 0
      for (let j = line.index; j < line.joinedThrough; j++) breaks += lines.next(j) - lines.end(j)
      change.bytesRemoved = breaks
      change.bytesAdded = keptBytes - (whole.end - whole.start - breaks)
      change.linesJoined = line.joinedThrough - line.index + 1
    }
    changes.push(change)
  }

  const bytesOf = (k: number): Uint8Array => out.bytes(k) ?? src.read(lines.start(out.line(k)), lines.end(out.line(k)))
  if (rules.relink) relinkParents(out, changes, rules.relink, droppedText.join('\n'), bytesOf, lines)
  if (rules.amend) amendRecords(out, changes, rules.amend, bytesOf, lines)
  if (rules.finalNewline) addFinalNewline(out, changes, before.eol, bytesOf, lines)

  const pieces: Piece[] = changes.length === 0 ? (src.size > 0 ? [{start: 0, end: src.size}] : []) : piecesOf(out, lines)
  const outSrc = piecesSource(pieces, src)
  let made: Buffer | undefined
  // A streamed log's result is classified from the planned lines (exact; the log is not read and classified again),
  // in full only when that cannot tell (`classifyResult`).
  const after = changes.length === 0 ? before : log.streamed ? (classifyResult(resultLines(out, lines), before, {isRecord: rules.isRecord, keep: log.keep, columns: log.columns}) ?? classify(outSrc)) : classifyJsonlBytes((made = Buffer.from(readFresh(outSrc, 0, outSrc.size))), {isRecord: rules.isRecord})
  return planOf(pieces, src, outSrc, changes, before, after, rules, made)
}

/**
 * The plan object (its own function: the getters close over the pieces and the result's source only, never the
 * planner's per-line list, which would otherwise stay alive with the plan).
 */
function planOf(pieces: Piece[], src: ByteSource, outSrc: ByteSource, changes: JsonlChange[], before: JsonlClassification, after: JsonlClassification, rules: JsonlRepairRules, bytes: Buffer | undefined): JsonlRepairPlan {
  let made = bytes
  let hash: string | undefined
  const materialise = (): Buffer => (made ??= Buffer.from(readFresh(outSrc, 0, outSrc.size)))
  const problems: string[] = []
  if (after.class !== 'intact') problems.push(`the result is ${after.class} (${after.reasons.join(', ') || 'no complete record'})`)
  if (after.records.length === 0 && after.class === 'intact') problems.push('the result holds no complete record')
  if (rules.accept && after.records.length > 0) problems.push(...rules.accept(recordValues(after)))
  return {
    get bytes() {
      return materialise()
    },
    get sha256() {
      if (hash === undefined) {
        const h = createHash('sha256')
        eachPieceChunk(pieces, src, (b) => h.update(b))
        hash = h.digest('hex')
      }
      return hash
    },
    pieces,
    source: src,
    size: outSrc.size,
    changes,
    before,
    after,
    accepted: problems.length === 0,
    problems,
  }
}

/** sha256 of `[start, end)` of a source, read a chunk at a time. */
function rangeSha256(src: ByteSource, start: number, end: number): string {
  const h = createHash('sha256')
  eachPieceChunk([{start, end}], src, (b) => h.update(b))
  return h.digest('hex')
}

/** A plan whose result is `bytes` (a format's own rule on top of `planJsonlRepair`, e.g. Gemini CLI's `drop-trailing`). */
export function planFromBytes(bytes: Buffer, p: Pick<JsonlRepairPlan, 'changes' | 'before' | 'after' | 'accepted' | 'problems'>): JsonlRepairPlan {
  const source = bufferSource(bytes)
  return {...p, bytes, pieces: bytes.length > 0 ? [bytes] : [], source, size: bytes.length, sha256: sha256(bytes)}
}

/** Applies the agent's amendments to the kept records (`rules.amend`), each reported as a change of its line. */
function amendRecords(out: OutList, changes: JsonlChange[], amend: NonNullable<JsonlRepairRules['amend']>, bytesOf: (k: number) => Uint8Array, lines: LineView): void {
  // The pieces that are records, by index; their values read when the rules ask (no list of every value).
  const kept: number[] = []
  for (let k = 0; k < out.n; k++) if (out.isRecord(k)) kept.push(k)
  const values: ValueView = {count: kept.length, at: (i) => out.value(kept[i])!}
  // Bytes are read only for the records the rules amend (a streamed log's clean lines are not in memory).
  for (const a of amend(values, (i) => bytesOf(kept[i]))) {
    const k = kept[a.index]
    if (k === undefined) continue
    const original = Buffer.from(bytesOf(k))
    const o = out.own(k)
    o.bytes = a.bytes
    o.value = a.value
    const line = lines.line(o.line)
    changes.push({
      kind: a.kind,
      line: line.index + 1,
      offset: line.start,
      length: line.next - line.start,
      reasons: [...line.reasons],
      bytesRemoved: 0,
      bytesAdded: Math.max(0, a.bytes.length - original.length),
      recordsKept: 1,
      sha256: sha256(original),
      ordinal: a.note.ordinal,
    })
  }
  changes.sort((x, y) => x.line - y.line)
}

/** Gives the last piece its line ending when it has none (the file ends mid-line after a complete record). */
function addFinalNewline(out: OutList, changes: JsonlChange[], eol: 'lf' | 'crlf', bytesOf: (k: number) => Uint8Array, lines: LineView): void {
  const k = out.n - 1
  if (k < 0 || !out.value(k) || out.eol(k).length > 0) return
  out.own(k).eol = EOL[eol]
  const line = lines.line(out.line(k))
  changes.push({kind: 'add-newline', line: line.index + 1, offset: line.start, length: line.next - line.start, reasons: [...line.reasons], bytesRemoved: 0, recordsKept: 1, sha256: sha256(Buffer.from(bytesOf(k)))})
}

/** Re-points dangling `parentUuid`s to the nearest record before them on the same (side-)chain. */
function relinkParents(out: OutList, changes: JsonlChange[], mode: 'main' | 'sidechain', droppedText: string, bytesOf: (k: number) => Uint8Array, lines: LineView): void {
  const uuids = new Set<string>()
  for (let k = 0; k < out.n; k++) {
    const v = out.value(k)
    if (v && typeof v.uuid === 'string') uuids.add(v.uuid)
  }
  const lastUuid = {main: null as string | null, side: null as string | null}
  for (let k = 0; k < out.n; k++) {
    const v = out.value(k)
    if (!v) continue
    const side = v.isSidechain === true ? 'side' : 'main'
    const parent = v.parentUuid
    const prev = lastUuid[side]
    if (typeof parent === 'string' && !uuids.has(parent) && prev !== null) {
      const lostHere = out.afterDrop(k) || (droppedText.length > 0 && droppedText.includes(parent))
      if (mode === 'main' || lostHere) {
        const own = bytesOf(k)
        const span = topLevelValueSpan(own, 'parentUuid')
        if (span) {
          const newValue = Buffer.from(JSON.stringify(prev))
          const bytes = Buffer.concat([own.subarray(0, span.start), newValue, own.subarray(span.end)])
          const line = lines.line(out.line(k))
          const original = Buffer.from(own)
          const o = out.own(k)
          o.bytes = bytes
          o.value = {...v, parentUuid: prev}
          changes.push({
            kind: 'relink-parent',
            line: line.index + 1,
            offset: line.start,
            length: line.next - line.start,
            reasons: [...line.reasons],
            bytesRemoved: Math.max(0, original.length - bytes.length),
            recordsKept: 1,
            sha256: sha256(original),
            relink: {from: parent, to: prev},
          })
        }
      }
    }
    const u = out.value(k)!.uuid
    if (typeof u === 'string') lastUuid[side] = u
  }
  changes.sort((a, b) => a.line - b.line || (a.kind === 'relink-parent' ? 1 : 0) - (b.kind === 'relink-parent' ? 1 : 0))
}
