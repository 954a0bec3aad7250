/**
 * What the members of the JSON-lines session family (Claude Code, Codex) share: one-file JSONL sessions,
 * found by name, told apart by content, diagnosed line by line (`classify/jsonl.ts`), measured by the
 * agent's own rules (its dialect, `dialects.ts`) and planned for repair (`repair.ts`).
 *
 * A session's generations: the log itself (`primary`); for Codex, the same rollout compressed beside it
 * (`<name>.jsonl.zst`, role `compressed`; Codex loads the plain file when both exist, peer-formats §3.3); the
 * copies people and tools leave beside a log (`<name>.jsonl.bak`, `.orig`, `.old`, `.backup.<n>`, `.<n>`, `~`:
 * role `backup`; `<name>.jsonl.tmp`, `.tmp.<x>`: role `temp`), each a candidate ranked by the records and turns
 * it holds like the log itself; and chatdoctor's stored snapshots of it (`snapshot:<time>`, role `snapshot`, from
 * `ChatDirSnapshot.snapshots`).
 */
import {createHash} from 'node:crypto'
import path from 'node:path'
import {closeSync, openSync, readSync} from 'node:fs'
import {createRequire} from 'node:module'
import {bufferSource, classifyJsonlBytes, classifyJsonlSource, cleanRecords, linesOf, readFresh, type ByteSource, type JsonlClassification, type JsonlLine, type KeepRecord, type KeptColumns} from '../../classify/jsonl.js'
import {finding} from './findings.js'
import {answerCutBy, lostAnswerText} from './answer.js'
import {planJsonlRepair, type JsonlChange, type JsonlChangeKind, type JsonlLog, type JsonlRepairPlan, type JsonlRepairRules} from './repair.js'
import type {ChatStatus, Finding, Generation, LostAnswer} from '../../model/report.js'
import {rankCandidates, type Candidate} from '../../rank/index.js'
import type {ChatDirSnapshot, Diagnosis, FileEntry} from '../../model/adapter.js'
import type {SessionAnalysis, SessionDialect} from './dialect.js'
import {SESSION_DIALECTS} from './dialects.js'
import {sessionNameOf} from './names.js'

export {isSessionName, sessionChatsIn, sessionNameOf, streamsSessionFile, type SessionName} from './names.js'

/** The zstd frame magic (RFC 8878 §3.1.1), little-endian 0xFD2FB528. */
const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])

/**
 * Which member of the family wrote these records, by content; null when none. Looks at the first 50 complete
 * records; each counts for the first dialect that knows it, and a tie goes to the earlier dialect.
 */
export function sniffFormat(cls: JsonlClassification): SessionDialect | null {
  const values: Array<Record<string, unknown>> = []
  for (let k = 0; k < Math.min(SNIFF_RECORDS, cls.records.length); k++) values.push(cls.records[k].value)
  return sniffValues(values)
}

/** How many first records content detection reads (`sniffFormat`). */
const SNIFF_RECORDS = 50

/** `sniffFormat` of the first records' values. */
function sniffValues(values: ReadonlyArray<Record<string, unknown>>): SessionDialect | null {
  const counts = SESSION_DIALECTS.map(() => 0)
  for (const v of values.slice(0, SNIFF_RECORDS)) {
    const i = SESSION_DIALECTS.findIndex((d) => d.isRecord(v))
    if (i >= 0) counts[i]++
  }
  let best = -1
  for (let i = 0; i < counts.length; i++) if (counts[i] > 0 && (best < 0 || counts[i] > counts[best])) best = i
  return best < 0 ? null : SESSION_DIALECTS[best]
}

/** A record of any member of the family, in any of its layouts (the rule before the format is known). */
function isAnySessionRecord(v: Record<string, unknown>): boolean {
  return SESSION_DIALECTS.some((d) => d.recordRule()(v))
}

/**
 * The record rule of a dialect for one log (`JsonlClassifyOptions.isRecord`), its layout read from the log's
 * clean lines only (a nested object carved out of a damaged line must not decide it: a Codex `session_meta`
 * payload has the shape of the older layout's header).
 */
function recordRule(format: SessionDialect, cls: JsonlClassification): (v: Record<string, unknown>) => boolean {
  return format.recordRule(cleanRecords(cls, false).values)
}

/**
 * What of a record the family's rules read, before the format is known: every member's `keep`, merged (a key
 * one member keeps for its presence only, null, takes another member's value). Records kept whole when a member
 * has no `keep`.
 */
export function keepForFamily(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const d of SESSION_DIALECTS) {
    if (!d.keep) return v
    for (const [k, x] of Object.entries(d.keep(v))) if (!(k in out) || out[k] === null || out[k] === '') out[k] = x
  }
  return out
}

/**
 * The keep of a log read by streaming before its member is known: the family's (`keepForFamily`) for the first
 * `SNIFF_RECORDS` records kept (what content detection reads), then the keep of the member those records show
 * only (a third of the work and of the garbage of merging every member's), or the family's still when they
 * show none. `fits` says whether a classification made with it is the one `keepForFamily` would give as far as
 * content detection and `format`'s rules read (format null: content detection only): its first records are
 * the ones kept by the family's keep (a record rejoined from several lines is kept after the lines are read,
 * maybe after the first `SNIFF_RECORDS`), and the member kept for later is `format`.
 */
export function familyKeeper(): {keep: KeepRecord; columns: () => KeptColumns; fits: (cls: JsonlClassification, format: SessionDialect | null) => boolean} {
  const head: Array<Record<string, unknown>> = []
  let member: SessionDialect | null = null
  let later = false
  const keep: KeepRecord = (v) => {
    if (head.length < SNIFF_RECORDS) {
      const k = keepForFamily(v)
      head.push(k)
      if (head.length === SNIFF_RECORDS) member = sniffValues(head)
      return k
    }
    later = true
    if (member === null) return keepForFamily(v)
    return member.keep ? member.keep(v) : v
  }
  // The member's columns take only what its own keep kept (never the family's first records, which `fits` compares).
  const columns = (): KeptColumns => {
    let mine: KeptColumns | null | undefined
    return {
      put(line, kept) {
        if (!later || member === null) return false
        if (mine === undefined) mine = member.columns ? member.columns() : null
        return mine !== null && mine.put(line, kept)
      },
      get: (line) => mine!.get(line),
      holder: () => mine ?? null,
    }
  }
  const fits = (cls: JsonlClassification, format: SessionDialect | null): boolean => {
    if (!later || member === null) return true
    if (format !== null && format !== member) return false
    const n = Math.min(SNIFF_RECORDS, cls.records.length)
    for (let i = 0; i < n; i++) if (cls.records[i].value !== head[i]) return false
    return true
  }
  return {keep, columns, fits}
}

/** A session file of `size` bytes read by ranges, opened for each read (never following a symbolic link). */
export function pathSource(file: string, size: number): ByteSource {
  const src: ByteSource = {
    size,
    read: (s, e) => readFresh(src, s, e),
    readInto(buf, offset, length, position) {
      const fd = openSync(file, 'r')
      try {
        return readSync(fd, buf, offset, Math.min(length, Math.max(0, size - position)), position)
      } finally {
        closeSync(fd)
      }
    },
  }
  return src
}

/** A log in memory as the planner's input. */
export function logOfBytes(bytes: Uint8Array): JsonlLog {
  return {source: bufferSource(bytes), streamed: false}
}

/**
 * A log read by streaming as the planner's input: its records kept as the family's rules read them, or as
 * `keep` does (the keep of its member when that is known; records whole for a member without one).
 */
export function logOfFile(file: string, size: number, keep: KeepRecord | undefined = keepForFamily, columns?: () => KeptColumns): JsonlLog {
  return {source: pathSource(file, size), streamed: true, keep, columns}
}

/** Classifies a log with a record rule: its bytes in memory, or streamed from its source. */
function classifyLog(log: JsonlLog, isRecord: (v: Record<string, unknown>) => boolean): {cls: JsonlClassification; sha256?: string; bytes?: number} {
  if (!log.streamed) return {cls: classifyJsonlBytes(log.source.read(0, log.source.size), {isRecord})}
  return classifyJsonlSource(log.source, {isRecord, keep: log.keep, columns: log.columns})
}

/** A log classified with any member's record rule, and the carved-out objects that rule took for records. */
interface FirstPass {
  cls: JsonlClassification
  accepted: Array<Record<string, unknown>>
  /** (streamed) sha256 and count of the bytes read. */
  sha256?: string
  bytes?: number
}

function firstPass(log: JsonlLog): FirstPass {
  const accepted: Array<Record<string, unknown>> = []
  const r = classifyLog(log, (v) => {
    if (!isAnySessionRecord(v)) return false
    accepted.push(v)
    return true
  })
  return {cls: r.cls, accepted, sha256: r.sha256, bytes: r.bytes}
}

/**
 * The first pass's classification when the format's own rule accepts every object the first pass took for a
 * record (the rule is consulted at the same points, so the result would be the same); else the log classified
 * again with the format's rule. A log with no damaged line never consults the rule. `rule` is the format's
 * rule the result is the classification by.
 */
function narrowed(format: SessionDialect, log: JsonlLog, first: FirstPass): {cls: JsonlClassification; rule: (v: Record<string, unknown>) => boolean} {
  const rule = recordRule(format, first.cls)
  return {cls: first.accepted.every(rule) ? first.cls : classifyLog(log, rule).cls, rule}
}

/**
 * The line classification of a session log by its format's record rule: first with any member's rule (enough
 * to tell the formats apart), then narrowed to the rule of `format`, or of the format its records show
 * (`narrowed`). `format` is null when the records are no member's.
 */
export function classifySession(bytes: Uint8Array, format?: SessionDialect): {cls: JsonlClassification; format: SessionDialect | null} {
  const log = logOfBytes(bytes)
  const first = firstPass(log)
  const fmt = format ?? sniffFormat(first.cls)
  return {cls: fmt === null ? first.cls : narrowed(fmt, log, first).cls, format: fmt}
}

/**
 * A session log classified by its format's record rule, with the agent's analysis and its rules for planning
 * its repair (what `diagnoseSession` made of it, for `repair` and `inspect` to plan from the same bytes), and
 * the plan. `input` is the bytes, or a file read by streaming (`logOfFile`; `sha256` is then of the bytes read).
 */
export function sessionRules(format: SessionDialect, name: string, input: Uint8Array | JsonlLog): {cls: JsonlClassification; analysis: SessionAnalysis; rules: JsonlRepairRules; plan: JsonlRepairPlan; sha256?: string} {
  const log = input instanceof Uint8Array ? logOfBytes(input) : input
  const first = firstPass(log)
  const {cls, rule} = narrowed(format, log, first)
  const analysis = format.analyze(name, cls)
  const plan = planJsonlRepair(log, analysis.rules, analysis.rules.isRecord === rule ? cls : undefined)
  return {cls, analysis, rules: analysis.rules, plan, sha256: first.sha256}
}

/**
 * The repair a scan planned for a log it read by streaming, kept for `repair` to write without reading and
 * classifying the log again: what the write needs (the pieces, their source, the changes), never the
 * classifications. Only a plan the agent accepts, with changes; by the session's member.
 */
export interface StreamedPlan {
  format: string
  pieces: JsonlRepairPlan['pieces']
  source: ByteSource
  size: number
  changes: JsonlRepairPlan['changes']
}

/** The plans kept by the scanned file entry they were made from (gone with the scan's result). */
const STREAMED_PLANS = new WeakMap<FileEntry, StreamedPlan>()

/** The repair the scan planned for this entry of `format`'s session, read by streaming; undefined when none was kept. */
export function streamedPlanOf(entry: FileEntry, format: string): StreamedPlan | undefined {
  const p = STREAMED_PLANS.get(entry)
  return p?.format === format ? p : undefined
}

/** The bytes of a generation: the file's own, or the decoded log of a `.zst`. */
type Decoded = {ok: true; bytes: Buffer} | {ok: false; why: 'unexpected-end' | 'syntax-error'; message: string}

/** Decodes a zstd file (fzstd, pure JS, loaded on first use: most scans and every hook run of a plain log never need it). A cut frame is `unexpected-end`; anything else `syntax-error`. */
export function decodeZstd(data: Buffer): Decoded {
  if (data.length < 4 || !data.subarray(0, 4).equals(ZSTD_MAGIC)) return {ok: false, why: 'syntax-error', message: 'not a zstd frame (bad magic)'}
  try {
    return {ok: true, bytes: Buffer.from((createRequire(import.meta.url)('fzstd') as typeof import('fzstd')).decompress(data))}
  } catch (e) {
    const msg = (e as Error).message ?? String(e)
    return {ok: false, why: /EOF/i.test(msg) ? 'unexpected-end' : 'syntax-error', message: `zstd: ${msg}`}
  }
}

function sha256(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex')
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/** One generation's verdict with what a repair would make of it. */
interface GenState {
  gen: Generation
  entry: FileEntry
  cls: JsonlClassification | null
  analysis: SessionAnalysis | null
  plan: JsonlRepairPlan | null
  /** The measure after the planned repair (what the agent would reach then). */
  repaired: SessionAnalysis | null
  /** The log (its bytes, decoded for a `.zst`; or the file read by streaming). */
  log: JsonlLog | null
  /** The first pass over the log's lines (`firstPass`), until the format is known. */
  first: FirstPass | null
  /** The final answer the repair's cut takes (its turn not counted in `repaired`), when it takes one. */
  lostAnswer?: LostAnswer | null
  /** (streamed) The keep its records were kept by (`familyKeeper`). */
  keeper?: ReturnType<typeof familyKeeper>
}

/** Counts of a plan's changes by kind, as words ("drop 1 line, strip NULs from 1"). */
export function describeChanges(plan: JsonlRepairPlan): string {
  const by = new Map<string, number>()
  for (const c of plan.changes) by.set(c.kind, (by.get(c.kind) ?? 0) + 1)
  return [...by].map(([k, n]) => `${k} ×${n}`).join(', ')
}

/** A log's damaged lines in brief ("1 damaged line of 57 (torn-tail ×1), first at line 57, byte 36051"). */
export function describeLines(cls: JsonlClassification): string {
  const rs = Object.entries(cls.counts.byReason)
    .map(([r, n]) => `${r} ×${n}`)
    .join(', ')
  const first = cls.counts.firstDamaged[0]
  return `${plural(cls.counts.damaged, 'damaged line')} of ${cls.counts.total} (${rs})${first ? `, first at line ${first.line}, byte ${first.offset}` : ''}`
}

/** What a file's line classification says, in words, for its finding. */
function describeClassification(cls: JsonlClassification): string {
  if (cls.class === 'empty' || cls.class === 'zero-filled') return cls.class
  if (cls.reasons.includes('foreign-content')) return `${cls.class}: no record in any of its ${plural(cls.counts.total, 'line')}; other content from its first byte (foreign-content), not a log torn line after line`
  const what = `${cls.class}: ${describeLines(cls)}`
  if (cls.reasons.includes('nul-tail') && !cls.reasons.includes('torn-tail')) return `${what}; the NUL bytes at its end are an append that never reached the disk, no record was cut`
  return what
}

/**
 * Where the bytes of a damaged line that are no complete record lie (a dropped line whole; the pieces of an
 * interleaved line around the records it keeps): byte ranges of the file; none for a line whose pieces were
 * rejoined into a record. A line holding NULs is read a chunk at a time for its pieces between NUL runs
 * (`piecesAround`): a run, maybe hundreds of MB, is never held, and a line of NUL bytes only holds no prompt.
 */
function fragmentRanges(src: ByteSource, line: JsonlLine): Array<[number, number]> {
  if (line.kind !== 'damaged' || line.partOf !== undefined) return []
  const nul = (r: string) => r === 'nul-run' || r === 'nul-tail'
  if (line.reasons.some(nul)) {
    // Only NULs (a dropped line of NULs), or pieces that are all whole records: nothing else to look through.
    if (line.reasons.every(nul)) return []
    return piecesAround(src, line)
  }
  if (line.action === 'drop') return [[line.start, line.end]]
  if (line.records.some((r) => r.offset === null)) return []
  const out: Array<[number, number]> = []
  let at = line.start
  for (const r of line.records) {
    if (r.offset! > at) out.push([at, r.offset!])
    at = r.offset! + r.length
  }
  if (line.end > at) out.push([at, line.end])
  return out
}

/** Bytes read at a time when a line holding NULs is looked through. */
const PIECE_READ_BYTES = 1 << 20

/**
 * The ranges of a line holding NULs that are neither NUL nor a record the line keeps: its pieces between NUL
 * runs (the classifier's pieces), each without the kept records found in it. Reads the line a chunk at a time.
 */
function piecesAround(src: ByteSource, line: JsonlLine): Array<[number, number]> {
  const pieces: Array<[number, number]> = []
  let open = -1
  for (let at = line.start; at < line.end; at += PIECE_READ_BYTES) {
    const r = src.read(at, Math.min(line.end, at + PIECE_READ_BYTES))
    const b = Buffer.from(r.buffer, r.byteOffset, r.length)
    for (let i = 0; i < b.length; ) {
      if (open < 0) {
        const k = firstNonNul(b, i)
        if (k < 0) break
        open = at + k
        i = k
      }
      const z = b.indexOf(0, i)
      if (z < 0) break
      pieces.push([open, at + z])
      open = -1
      i = z
    }
  }
  if (open >= 0) pieces.push([open, line.end])
  const kept = line.records.filter((r) => r.bytes !== null).map((r) => Buffer.from(r.bytes!))
  const out: Array<[number, number]> = []
  for (const [s, e] of pieces) {
    let parts: Array<[number, number]> = [[s, e]]
    if (kept.length > 0) {
      const bytes = Buffer.from(src.read(s, e))
      for (const k of kept) {
        const i = bytes.indexOf(k)
        if (i < 0) continue
        parts = parts.flatMap(([a, b]): Array<[number, number]> => (s + i >= a && s + i + k.length <= b ? [[a, s + i], [s + i + k.length, b]] : [[a, b]]))
      }
      parts = parts.filter(([a, b]) => b > a && bytes.subarray(a - s, b - s).some((x) => x !== 0x20 && x !== 0x09 && x !== 0x0d && x !== 0x0a))
    }
    out.push(...parts)
  }
  return out
}

/** 4 KiB of NULs, to skip NUL runs with a native compare. */
const ZERO = Buffer.alloc(4096)

/** Index of the first byte that is not NUL in `b` from `i`, or -1 (runs of NULs skipped by native compares). */
function firstNonNul(b: Buffer, i: number): number {
  let j = i
  while (j + ZERO.length <= b.length && b.compare(ZERO, 0, ZERO.length, j, j + ZERO.length) === 0) j += ZERO.length
  while (j < b.length && b[j] === 0) j++
  return j < b.length ? j : -1
}

/** User prompts whose start a damaged line of the log still shows (each cut record counted once). */
export function promptsInDamagedLines(log: JsonlLog, cls: JsonlClassification, dialect: SessionDialect): number {
  let n = 0
  const lines = linesOf(cls)
  for (const i of lines.others()) for (const [s, e] of fragmentRanges(log.source, lines.line(i))) if (dialect.promptInFragment(Buffer.from(log.source.read(s, e)).toString('utf8'))) n++
  return n
}

/**
 * The turns (1-based, in the order of the log's prompts) whose prompt only a damaged line shows: a turn's number
 * counts the user turns of the complete records on the lines before it (by the agent's rules) and the prompts of
 * the damaged lines before it.
 */
export function turnsInDamagedLines(name: string, log: JsonlLog, cls: JsonlClassification, dialect: SessionDialect): number[] {
  const out: number[] = []
  const lines = linesOf(cls)
  for (const i of lines.others()) {
    for (const [s, e] of fragmentRanges(log.source, lines.line(i))) {
      if (!dialect.promptInFragment(Buffer.from(log.source.read(s, e)).toString('utf8'))) continue
      const before = dialect.analyze(name, {...cls, records: cls.records.filter((r) => r.line < i)}).transcriptTurns
      out.push(before + out.length + 1)
    }
  }
  return out
}

/** The byte changes that lose what a line held: a dropped line, a torn final line, the cut record of a split line. */
const LOSSY_CHANGES: ReadonlySet<JsonlChangeKind> = new Set(['drop-line', 'drop-torn-tail', 'split-line'])

/** A plan's changes that lose records (`LOSSY_CHANGES`). */
function lossyChanges(plan: JsonlRepairPlan): JsonlChange[] {
  return plan.changes.filter((c) => LOSSY_CHANGES.has(c.kind))
}

/** What another copy of the session holds of what a lossy repair drops. */
interface Held {
  /** The lines (1-based) the repair drops whose place in the copy holds a record the repair does not keep. */
  lines: number[]
  /** Every record the repair keeps is in the copy. */
  all: boolean
}

/**
 * What `other` (a copy of the session whose repair drops nothing) holds of what the repair of `lossy` drops,
 * by the dialect's record keys: a dropped line is held when, in `other`, between the records the repair keeps
 * on either side of it (the start or the end of the log when there is none), lies a record the repair does not
 * keep. Null when the dialect names no records.
 */
function heldBy(fmt: SessionDialect, lossy: JsonlRepairPlan, other: JsonlRepairPlan): Held | null {
  const key = fmt.recordKey
  if (!key) return null
  const kept = lossy.before.records
  const keptKeys = kept.map((r) => key(r.value))
  const keptSet = new Set(keptKeys)
  const theirs = other.after.records.map((r) => key(r.value))
  const first = new Map<string, number>()
  const count = new Map<string, number>()
  theirs.forEach((k, i) => {
    if (!first.has(k)) first.set(k, i)
    count.set(k, (count.get(k) ?? 0) + 1)
  })
  let all = true
  for (const k of keptKeys) {
    const n = count.get(k) ?? 0
    if (n === 0) {
      all = false
      break
    }
    count.set(k, n - 1)
  }
  const lines: number[] = []
  for (const c of lossyChanges(lossy)) {
    const at = c.line - 1
    let prev = -1
    let next = theirs.length
    for (let i = 0; i < kept.length; i++) {
      if (kept[i].line < at) prev = first.get(keptKeys[i]) ?? prev
      else if (kept[i].line > at) {
        next = first.get(keptKeys[i]) ?? theirs.length
        break
      }
    }
    for (let i = prev + 1; i < next; i++) {
      if (!keptSet.has(theirs[i])) {
        lines.push(c.line)
        break
      }
    }
  }
  return {lines, all}
}

/** What a copy holds of dropped lines, in words. */
function heldWords(lines: readonly number[]): string {
  return lines.length === 1 ? 'its record' : 'their records'
}

/** Lines by number, in words ("line 24", "lines 24, 31"). */
function linesWords(lines: readonly number[]): string {
  return `line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}`
}

/** Lines (1-based) and paths of the records holding a lone surrogate escape, in words. */
function describeLoneSurrogates(cls: JsonlClassification): string {
  const at = cls.loneSurrogates.slice(0, 5).map((x) => `line ${x.line + 1} (${x.path})`)
  const more = cls.loneSurrogates.length > 5 ? ` and ${cls.loneSurrogates.length - 5} more` : ''
  return `${at.join(', ')}${more}`
}

/**
 * Diagnoses one JSONL session (the log and its siblings). `hint` is the format discovery guessed from the
 * name; the content decides (a file whose records are neither agent's is skipped). Pure; never throws.
 *
 * N (`contextTurns`) is the winner's: the user turns the agent reaches in the log a repair leaves (the log as it
 * is when it needs none); null when no generation gives a log the agent accepts. M (`transcriptTurns`) is every
 * prompt the session is known to have held: the most any of its generations holds, prompts whose start a damaged
 * line still shows included, so N < M shows what a repair drops.
 */
export function diagnoseSession(snapshot: ChatDirSnapshot, hint: SessionDialect): Diagnosis {
  const states: GenState[] = []
  const findings: Finding[] = []
  let format: SessionDialect | null = null
  let undecided = true
  // A folder that merely carries a session log's name holds no session: nothing to diagnose, nothing lost.
  if (snapshot.files.length > 0 && snapshot.files.every((e) => e.kind === 'directory' && e.name.endsWith('.jsonl'))) {
    return {kind: 'skipped', reason: `${snapshot.files[0].name} is a folder, not a session log`}
  }
  for (const entry of snapshot.files) {
    const role = sessionNameOf(entry.name)?.role ?? 'primary'
    const gen: Generation = {file: entry.name, role, class: null, reasons: [], bytes: entry.bytes, mtimeMs: entry.mtimeMs, sha256: null, turns: null}
    const st: GenState = {gen, entry, cls: null, analysis: null, plan: null, repaired: null, log: null, first: null}
    states.push(st)
    if (entry.kind !== 'file') continue
    if (entry.data === undefined && entry.path !== undefined && role !== 'compressed') {
      // Above the streaming threshold: classified a chunk at a time, keeping what the family's rules read.
      const keeper = familyKeeper()
      let log = logOfFile(entry.path, entry.bytes, keeper.keep, keeper.columns)
      try {
        st.first = firstPass(log)
        // Content detection must read what the family's keep keeps (a record rejoined late may be among the first).
        if (!keeper.fits(st.first.cls, null)) st.first = firstPass((log = logOfFile(entry.path, entry.bytes)))
        else st.keeper = keeper
      } catch (e) {
        gen.class = 'corrupt'
        gen.reasons = ['unreadable']
        findings.push(finding('unreadable', entry.name, `could not read ${entry.name} (${(e as Error).message})`))
        continue
      }
      gen.sha256 = st.first.sha256 ?? null
      gen.bytes = st.first.bytes ?? entry.bytes
      if (gen.bytes !== entry.bytes) findings.push(finding('session-live', entry.name, `${entry.name} changed size while it was read (${entry.bytes} → ${gen.bytes} bytes): the agent is probably writing it`))
      st.log = log
      st.cls = st.first.cls
    } else {
      if (entry.data === undefined) {
        gen.class = 'corrupt'
        gen.reasons = ['unreadable']
        findings.push(finding('unreadable', entry.name, `could not read ${entry.name}`))
        continue
      }
      gen.sha256 = sha256(entry.data)
      gen.bytes = entry.data.length
      if (entry.data.length !== entry.bytes) findings.push(finding('session-live', entry.name, `${entry.name} changed size while it was read (${entry.bytes} → ${entry.data.length} bytes): the agent is probably writing it`))
      let bytes = entry.data
      if (role === 'compressed') {
        const d = decodeZstd(entry.data)
        if (!d.ok) {
          gen.class = d.why === 'unexpected-end' ? 'truncated' : 'corrupt'
          gen.reasons = [d.why]
          findings.push(finding('compressed-damaged', entry.name, `${entry.name} cannot be decoded (${d.message})`))
          continue
        }
        bytes = d.bytes
      }
      st.log = logOfBytes(bytes)
      st.first = firstPass(st.log)
      st.cls = st.first.cls
    }
    if (undecided && role !== 'backup' && role !== 'temp') {
      const f = sniffFormat(st.cls)
      if (f !== null) {
        format = f
        undecided = false
      }
    }
  }
  // chatdoctor's stored snapshots of the session: generations of role `snapshot`, ranked with the log.
  for (const snap of snapshot.snapshots ?? []) {
    if (snap.data === undefined || snap.header.kind !== 'generation') continue
    const mtimeMs = Date.parse(snap.header.time)
    const gen: Generation = {file: snap.name, role: 'snapshot', class: null, reasons: [], bytes: snap.data.length, mtimeMs, sha256: snap.header.sha256, turns: null}
    // Classified like the logs: any member's record rule first, narrowed to the format's once it is known.
    const log = logOfBytes(snap.data)
    const first = firstPass(log)
    const cls = first.cls
    states.push({gen, entry: {name: snap.name, kind: 'file', bytes: snap.data.length, mtimeMs, data: snap.data}, cls, analysis: null, plan: null, repaired: null, log, first})
    if (undecided) {
      const f = sniffFormat(cls)
      if (f !== null) {
        format = f
        undecided = false
      }
    }
  }
  if (format === null) {
    // The log and its compressed copy hold no record: a copy beside them may still tell whose session it is.
    for (const st of states) {
      if (!st.cls || (st.gen.role !== 'backup' && st.gen.role !== 'temp')) continue
      format = sniffFormat(st.cls)
      if (format !== null) break
    }
  }
  const anyRecords = states.some((s) => s.cls !== null && s.cls.records.length > 0)
  if (format === null) {
    if (anyRecords) return {kind: 'skipped', reason: 'a .jsonl file whose records are neither Claude Code nor Codex session records'}
    format = hint
  }
  const fmt: SessionDialect = format
  if (fmt.ownDiagnosis !== undefined) return {kind: 'skipped', reason: fmt.ownDiagnosis}

  for (const st of states) {
    if (!st.cls || !st.log) continue
    if (st.keeper && !st.keeper.fits(st.cls, fmt) && st.entry.path !== undefined) {
      // Its later records were kept for another member than the session's: read again with the family's keep.
      try {
        st.log = logOfFile(st.entry.path, st.entry.bytes)
        st.first = firstPass(st.log)
        st.cls = st.first.cls
      } catch (e) {
        st.gen.class = 'corrupt'
        st.gen.reasons = ['unreadable']
        findings.push(finding('unreadable', st.entry.name, `could not read ${st.entry.name} (${(e as Error).message})`))
        st.cls = null
        st.log = null
        continue
      }
    }
    let rule: ((v: Record<string, unknown>) => boolean) | null = null
    if (st.first) ({cls: st.cls, rule} = narrowed(fmt, st.log, st.first))
    st.first = null
    const cls = st.cls
    st.analysis = fmt.analyze(st.entry.name, cls)
    // The classification is reused when it was made by the rule the plan classifies with.
    st.plan = planJsonlRepair(st.log, st.analysis.rules, rule !== null && st.analysis.rules.isRecord === rule ? cls : undefined)
    if (st.log.streamed && st.plan.accepted && st.plan.changes.length > 0) STREAMED_PLANS.set(st.entry, {format: fmt.name, pieces: st.plan.pieces, source: st.plan.source, size: st.plan.size, changes: st.plan.changes})
    st.repaired = st.plan.changes.length === 0 ? st.analysis : fmt.analyze(st.entry.name, st.plan.after)
    // A cut inside the last turn that leaves it unanswered: that turn is not a whole turn.
    st.lostAnswer = answerCutBy(fmt, st.gen.file, st.plan, st.plan.after, st.repaired.measure.turns)
    if (st.lostAnswer) st.repaired = {...st.repaired, measure: {...st.repaired.measure, turns: st.repaired.measure.turns - 1}}
    const g = st.gen
    g.class = cls.class
    g.reasons = [...cls.reasons]
    if (cls.damage) g.damage = cls.damage
    g.lines = cls.counts
    g.measure = {...st.analysis.measure}
    g.turns = st.lostAnswer ? st.repaired.measure.turns : st.analysis.measure.turns
  }

  // The generation the agent loads: the plain log when it exists (Codex: "plain wins").
  const loaded = states.find((s) => s.gen.role === 'primary' && s.entry.kind === 'file') ?? states.find((s) => s.gen.role === 'compressed')
  // Usable candidates: a repair (or nothing) gives an intact log the agent accepts. Failing those, a log whose
  // records are all intact but which only a person can make acceptable (`manual`).
  const candidatesOf = (ok: (st: GenState) => boolean): Array<Candidate & {st: GenState}> =>
    states.filter((st) => st.plan && st.repaired && ok(st)).map((st) => ({file: st.gen.file, measure: {...st.repaired!.measure}, mtimeMs: st.gen.mtimeMs, st}))
  let candidates = candidatesOf((st) => st.plan!.accepted)
  let manual = false
  let asIs = false
  if (candidates.length === 0) {
    candidates = candidatesOf((st) => st.repaired!.manual !== null && st.plan!.after.class === 'intact' && st.plan!.after.records.length > 0)
    manual = candidates.length > 0
  }
  if (candidates.length === 0 && loaded?.analysis && loaded.cls && loaded.analysis.refused === null && loaded.analysis.measure.turns > 0) {
    // No repair the agent accepts, but the agent loads the log as it is, without its damaged lines.
    candidates = [{file: loaded.gen.file, measure: {...loaded.analysis.measure}, mtimeMs: loaded.gen.mtimeMs, st: loaded}]
    asIs = true
  }
  const keep = loaded && candidates.some((c) => c.st === loaded) ? loaded.gen.file : undefined
  let {order, entries: ranking} = rankCandidates(candidates, keep)
  let best = order[0] as (Candidate & {st: GenState}) | undefined
  // A repair that loses records never beats a copy that holds them and every record the repair keeps: that
  // copy is kept as the winner instead (it covers at least the same turns). A copy holding the lost records but
  // not the repair's newer ones leaves the winner as it is, and the report names it.
  const lostHeld: Array<{file: string; lines: number[]}> = []
  let keptOver: {lossy: Candidate & {st: GenState}; lines: number[]} | null = null
  const lossy = best && !manual && !asIs && best.st.plan ? lossyChanges(best.st.plan) : []
  if (best && lossy.length > 0) {
    for (const c of order.slice(1) as Array<Candidate & {st: GenState}>) {
      if (!c.st.plan || lossyChanges(c.st.plan).length > 0) continue
      const held = heldBy(fmt, best.st.plan!, c.st.plan)
      if (!held || held.lines.length === 0) continue
      if (held.all && held.lines.length === lossy.length && c.measure.turns >= best.measure.turns) {
        const lines = held.lines
        const because = `a repair of ${best.file} drops ${linesWords(lines)}, whose records it holds with every record that repair keeps`
        const lossyBest = best
        ;({order, entries: ranking} = rankCandidates(candidates, c.file, because))
        best = order[0] as Candidate & {st: GenState}
        const entry = ranking.find((e) => e.file === lossyBest.file)
        if (entry && best === c) {
          entry.lostBecause = `a repair of it drops ${linesWords(lines)}; ${c.file} holds ${heldWords(lines)} and every record the repair keeps`
          keptOver = {lossy: lossyBest, lines}
        }
        lostHeld.length = 0
        break
      }
      lostHeld.push({file: c.file, lines: held.lines})
    }
  }

  let status: ChatStatus
  if (!best) status = 'unrecoverable'
  else if (asIs) status = 'degraded'
  else if (manual || best.st !== loaded || best.st.plan!.changes.length > 0) status = 'repairable'
  else status = 'healthy'

  // Findings: line damage of each generation, then the agent's structural findings for the loaded one.
  for (const st of states) {
    const cls = st.cls
    if (!cls || st.gen.role === 'snapshot') continue
    const repairWords = st.plan && st.plan.changes.length > 0 ? `; a repair would ${st.plan.accepted ? '' : 'not be accepted: '}${st.plan.accepted ? describeChanges(st.plan) : st.plan.problems.join('; ')}` : ''
    const what = describeClassification(cls)
    if (st.gen.role === 'compressed') {
      if (cls.class !== 'intact') findings.push(finding('compressed-damaged', st.gen.file, `the decoded log is ${what}${repairWords}`))
      continue
    }
    if (st.gen.role === 'backup' || st.gen.role === 'temp') {
      if (cls.class !== 'intact') findings.push(finding(st.gen.role === 'backup' ? 'backup-damaged' : 'temp-damaged', st.gen.file, `this ${st.gen.role === 'backup' ? 'copy' : 'temp'} of the log is ${what}`))
      continue
    }
    if (cls.class === 'truncated') findings.push(finding('session-truncated', st.gen.file, `${what}${repairWords}`))
    else if (cls.class !== 'intact') findings.push(finding('session-corrupt', st.gen.file, `${what}${repairWords}`))
  }
  const main = loaded ?? states.find((s) => s.analysis !== null) ?? states[0]
  if (main?.analysis) for (const f of main.analysis.findings) findings.push({...f, file: main.gen.file})
  if (main?.cls && main.cls.loneSurrogates.length > 0) {
    findings.push(
      finding(
        'lone-surrogate',
        main.gen.file,
        `${plural(main.cls.loneSurrogates.length, 'record')} hold${main.cls.loneSurrogates.length === 1 ? 's' : ''} a lone surrogate escape (a \\uD800–\\uDFFF without its other half, e.g. text cut between the halves of an emoji): ${describeLoneSurrogates(main.cls)}. JSON.parse and the agent accept it, but the model API rejects a request holding it ("no low surrogate in string"); chatdoctor keeps the records as they are`,
      ),
    )
  }
  if (best?.st.lostAnswer) findings.push(finding('answer-lost', best.st.gen.file, lostAnswerText(best.st.lostAnswer)))
  if (keptOver) {
    findings.push(finding('lost-lines-held', keptOver.lossy.file, `a repair of ${keptOver.lossy.file} would drop ${linesWords(keptOver.lines)}; ${best!.file} holds ${heldWords(keptOver.lines)} and every record that repair keeps, so it is the winner (covers ${plural(best!.measure.turns, 'user turn')})`))
  } else if (best) {
    for (const h of lostHeld) findings.push(finding('lost-lines-held', best.file, `a repair of ${best.file} drops ${linesWords(h.lines)}; ${h.file} holds ${heldWords(h.lines)} but not every record ${best.file} keeps (it has records ${h.file} lacks), so the repair keeps ${best.file}: the dropped records are only in ${h.file}`))
  }
  if (best && loaded && best.st !== loaded && loaded.repaired && keptOver?.lossy.st !== loaded) {
    findings.push(finding('primary-behind', loaded.gen.file, `${loaded.gen.file} reaches ${loaded.plan?.accepted || loaded.repaired.manual !== null ? loaded.repaired.measure.turns : 0} user turns even after repair; ${best.file} reaches ${best.measure.turns}`))
  }
  if (best && !loaded) findings.push(finding('primary-missing', null, `the log the agent reads is missing; ${best.file} holds ${plural(best.measure.turns, 'user turn')}`))
  if (status === 'unrecoverable') {
    const why = main?.plan && main.plan.problems.length > 0 ? main.plan.problems.join('; ') : 'no complete record survives'
    findings.push(finding('context-lost', null, `no generation gives a log the agent accepts (${why})`))
  }

  // M: the prompts the session is known to have held, the most any generation holds (damaged lines included).
  const held = states.flatMap((st) => (st.analysis && st.log && st.cls ? [st.analysis.transcriptTurns + promptsInDamagedLines(st.log, st.cls, fmt)] : []))
  const transcriptTurns = held.length > 0 ? Math.max(...held) : null
  const contextTurns = best ? best.measure.turns : null
  // Which of M the winner's repair drops, when its damaged lines hold every prompt it lacks.
  const dropped = best?.st.log && best.st.cls && best.st.plan && best.st.plan.changes.length > 0 ? turnsInDamagedLines(best.st.gen.file, best.st.log, best.st.cls, fmt) : []
  const droppedTurns = contextTurns !== null && transcriptTurns !== null && dropped.length > 0 && contextTurns + dropped.length === transcriptTurns - (best?.st.lostAnswer ? 1 : 0) ? dropped : []
  const id = main?.analysis?.id ?? idFromName(sessionNameOf(main?.gen.file ?? '')?.plain ?? path.basename(snapshot.unit.path))
  return {
    kind: 'chat',
    report: {
      format: fmt.name,
      id,
      status,
      winner: best ? best.file : null,
      transcriptTurns,
      contextTurns,
      findings,
      generations: states.map((s) => s.gen),
      ranking,
      ...(best?.st.lostAnswer ? {lostAnswer: best.st.lostAnswer} : {}),
      ...(droppedTurns.length > 0 ? {droppedTurns} : {}),
    },
  }
}

/** The session id from a file name: `<sessionId>.jsonl`, or the uuid at the end of `rollout-<ts>-<uuid>.jsonl`. */
function idFromName(name: string): string {
  const base = name.replace(/\.zst$/, '').replace(/\.jsonl$/, '')
  const m = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(base)
  return m ? m[1] : base
}
