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
import {createRequire} from 'node:module'
import {classifyJsonlBytes, type JsonlClassification, type JsonlLine} from '../../classify/jsonl.js'
import {finding} from './findings.js'
import {planJsonlRepair, type JsonlRepairPlan, type JsonlRepairRules} from './repair.js'
import type {ChatStatus, Finding, Generation} from '../../model/report.js'
import {rankCandidates, type Candidate} from '../../rank/index.js'
import type {ChatDirSnapshot, ChatUnit, Diagnosis, FileEntry, FolderChats} from '../../model/adapter.js'
import type {SessionAnalysis, SessionDialect} from './dialect.js'
import {SESSION_DIALECTS} from './dialects.js'

/** JSONL files the agents keep that are not sessions (prompt history, indexes, Codebuff's logs). */
const NOT_SESSIONS = new Set(['history.jsonl', 'session_index.jsonl', 'log.jsonl', 'trace.jsonl'])

/** The zstd frame magic (RFC 8878 §3.1.1), little-endian 0xFD2FB528. */
const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])

/** Suffixes after `.jsonl` that name a copy of the log someone kept (a backup), or a temp of a rewrite. */
const BACKUP_SUFFIX = /^\.(?:bak|backup|old|orig|prev|save|saved|copy)(?:[.\-_].*)?$|^\.\d+$|^~$/i
const TEMP_SUFFIX = /^\.tmp(?:[.\-_].*)?$/i

/** A session file's name split into the plain log's name and the role the name gives it. */
export interface SessionName {
  /** The plain log's name, `<x>.jsonl`. */
  plain: string
  role: 'primary' | 'compressed' | 'backup' | 'temp'
}

/**
 * What a name is in the family: the plain log `<x>.jsonl` (`primary`), its compressed copy `<x>.jsonl.zst`, a
 * backup or a temp beside it; null for any other name, for dot-files and for the known non-session logs.
 */
export function sessionNameOf(name: string): SessionName | null {
  if (name.startsWith('.')) return null
  const at = name.lastIndexOf('.jsonl')
  if (at <= 0) return null
  const plain = name.slice(0, at + 6)
  if (NOT_SESSIONS.has(plain)) return null
  const rest = name.slice(at + 6)
  if (rest === '') return {plain, role: 'primary'}
  if (rest === '.zst') return {plain, role: 'compressed'}
  if (BACKUP_SUFFIX.test(rest)) return {plain, role: 'backup'}
  if (TEMP_SUFFIX.test(rest)) return {plain, role: 'temp'}
  return null
}

/** True for a name that may be a session log or a generation of one (see `sessionNameOf`). */
export function isSessionName(name: string): boolean {
  return sessionNameOf(name) !== null
}

/** A Codebuff chat dir holds JSONL logs that are not sessions (log.jsonl, trace.jsonl). */
function isCodebuffChatDir(names: string[]): boolean {
  return names.some((n) => n.startsWith('run-state.json') || n.startsWith('chat-messages.json'))
}

/**
 * Groups the session files of a folder into chats: `<x>.jsonl` and `<x>.jsonl.zst` are one chat (named by the
 * plain file when it exists). `me` takes the (plain) names it claims (`claimsName`), or, without a
 * `claimsName`, those no other dialect of the family claims.
 */
export function sessionChatsIn(dir: string, names: string[], me: SessionDialect): FolderChats | null {
  if (isCodebuffChatDir(names)) return null
  const zstPlains = new Set(names.filter((n) => n.endsWith('.jsonl.zst')).map((n) => n.slice(0, -4)))
  const claimedBy = (d: SessionDialect, name: string) => d.claimsName?.(dir, name, zstPlains.has(name)) ?? false
  const claim = me.claimsName ? (name: string) => claimedBy(me, name) : (name: string) => !SESSION_DIALECTS.some((d) => d !== me && claimedBy(d, name))
  const groups = new Map<string, string[]>()
  for (const n of names) {
    const s = sessionNameOf(n)
    if (s === null || !claim(s.plain)) continue
    const g = groups.get(s.plain) ?? []
    g.push(n)
    groups.set(s.plain, g)
  }
  if (groups.size === 0) return {chats: [], descend: true}
  const chats: ChatUnit[] = []
  for (const [plain, files] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // Named by the plain log, else its compressed copy, else the first other generation.
    const named = files.includes(plain) ? plain : (files.find((f) => f === `${plain}.zst`) ?? files.sort()[0])
    chats.push({dir, path: path.join(dir, named), files: files.sort()})
  }
  return {chats, descend: true}
}

/**
 * Which member of the family wrote these records, by content; null when none. Looks at the first 50 complete
 * records; each counts for the first dialect that knows it, and a tie goes to the earlier dialect.
 */
export function sniffFormat(cls: JsonlClassification): SessionDialect | null {
  const counts = SESSION_DIALECTS.map(() => 0)
  for (const r of cls.records.slice(0, 50)) {
    const i = SESSION_DIALECTS.findIndex((d) => d.isRecord(r.value))
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
  return format.recordRule(cls.records.filter((r) => cls.lines[r.line].kind === 'record').map((r) => r.value))
}

/** A log classified with any member's record rule, and the carved-out objects that rule took for records. */
interface FirstPass {
  cls: JsonlClassification
  accepted: Array<Record<string, unknown>>
}

function firstPass(bytes: Uint8Array): FirstPass {
  const accepted: Array<Record<string, unknown>> = []
  const cls = classifyJsonlBytes(bytes, {
    isRecord: (v) => {
      if (!isAnySessionRecord(v)) return false
      accepted.push(v)
      return true
    },
  })
  return {cls, accepted}
}

/**
 * The first pass's classification when the format's own rule accepts every object the first pass took for a
 * record (the rule is consulted at the same points, so the result would be the same); else the log classified
 * again with the format's rule. A log with no damaged line never consults the rule.
 */
function narrowed(format: SessionDialect, bytes: Uint8Array, first: FirstPass): JsonlClassification {
  const rule = recordRule(format, first.cls)
  return first.accepted.every(rule) ? first.cls : classifyJsonlBytes(bytes, {isRecord: rule})
}

/**
 * The line classification of a session log by its format's record rule: first with any member's rule (enough
 * to tell the formats apart), then narrowed to the rule of `format`, or of the format its records show
 * (`narrowed`). `format` is null when the records are no member's.
 */
export function classifySession(bytes: Uint8Array, format?: SessionDialect): {cls: JsonlClassification; format: SessionDialect | null} {
  const first = firstPass(bytes)
  const fmt = format ?? sniffFormat(first.cls)
  return {cls: fmt === null ? first.cls : narrowed(fmt, bytes, first), format: fmt}
}

/**
 * A session log classified by its format's record rule, with the agent's analysis and its rules for planning its repair (what
 * `diagnoseSession` made of it, for `repair` and `inspect` to plan from the same bytes).
 */
export function sessionRules(format: SessionDialect, name: string, bytes: Uint8Array): {cls: JsonlClassification; analysis: SessionAnalysis; rules: JsonlRepairRules} {
  const {cls} = classifySession(bytes, format)
  const analysis = format.analyze(name, cls)
  return {cls, analysis, rules: analysis.rules}
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
  /** The log's bytes (decoded for a `.zst`). */
  bytes: Buffer | null
  /** The first pass over the log's lines (`firstPass`), until the format is known. */
  first: FirstPass | null
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
 * The bytes of a damaged line that are no complete record (a dropped line whole; the pieces of an interleaved
 * line around the records it keeps), as text; nothing for a line whose pieces were rejoined into a record.
 */
function fragmentsOf(buf: Buffer, line: JsonlLine): string[] {
  if (line.kind !== 'damaged' || line.partOf !== undefined) return []
  if (line.action === 'drop') return [buf.toString('utf8', line.start, line.end)]
  const spans = line.records.map((r) => r.offset)
  if (spans.some((o) => o === null)) return []
  const out: string[] = []
  let at = line.start
  line.records.forEach((r) => {
    if (r.offset! > at) out.push(buf.toString('utf8', at, r.offset!))
    at = r.offset! + r.bytes.length
  })
  if (line.end > at) out.push(buf.toString('utf8', at, line.end))
  return out
}

/** User prompts whose start a damaged line of the log still shows (each cut record counted once). */
export function promptsInDamagedLines(buf: Buffer, cls: JsonlClassification, dialect: SessionDialect): number {
  let n = 0
  for (const l of cls.lines) for (const f of fragmentsOf(buf, l)) if (dialect.promptInFragment(f)) n++
  return n
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
    const st: GenState = {gen, entry, cls: null, analysis: null, plan: null, repaired: null, bytes: null, first: null}
    states.push(st)
    if (entry.kind !== 'file') continue
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
    st.bytes = bytes
    st.first = firstPass(bytes)
    st.cls = st.first.cls
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
    const first = firstPass(snap.data)
    const cls = first.cls
    states.push({gen, entry: {name: snap.name, kind: 'file', bytes: snap.data.length, mtimeMs, data: snap.data}, cls, analysis: null, plan: null, repaired: null, bytes: snap.data, first})
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
    if (!st.cls || !st.bytes) continue
    if (st.first) st.cls = narrowed(fmt, st.bytes, st.first)
    st.first = null
    const cls = st.cls
    st.analysis = fmt.analyze(st.entry.name, cls)
    st.plan = planJsonlRepair(st.bytes, st.analysis.rules)
    st.repaired = st.plan.changes.length === 0 ? st.analysis : fmt.analyze(st.entry.name, st.plan.after)
    const g = st.gen
    g.class = cls.class
    g.reasons = [...cls.reasons]
    if (cls.damage) g.damage = cls.damage
    g.lines = cls.counts
    g.measure = {...st.analysis.measure}
    g.turns = st.analysis.measure.turns
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
  const {order, entries: ranking} = rankCandidates(candidates, keep)
  const best = order[0] as (Candidate & {st: GenState}) | undefined

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
  if (best && loaded && best.st !== loaded && loaded.repaired) {
    findings.push(finding('primary-behind', loaded.gen.file, `${loaded.gen.file} reaches ${loaded.plan?.accepted || loaded.repaired.manual !== null ? loaded.repaired.measure.turns : 0} user turns even after repair; ${best.file} reaches ${best.measure.turns}`))
  }
  if (best && !loaded) findings.push(finding('primary-missing', null, `the log the agent reads is missing; ${best.file} holds ${plural(best.measure.turns, 'user turn')}`))
  if (status === 'unrecoverable') {
    const why = main?.plan && main.plan.problems.length > 0 ? main.plan.problems.join('; ') : 'no complete record survives'
    findings.push(finding('context-lost', null, `no generation gives a log the agent accepts (${why})`))
  }

  // M: the prompts the session is known to have held, the most any generation holds (damaged lines included).
  const held = states.flatMap((st) => (st.analysis && st.bytes && st.cls ? [st.analysis.transcriptTurns + promptsInDamagedLines(st.bytes, st.cls, fmt)] : []))
  const transcriptTurns = held.length > 0 ? Math.max(...held) : null
  const contextTurns = best ? best.measure.turns : null
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
    },
  }
}

/** The session id from a file name: `<sessionId>.jsonl`, or the uuid at the end of `rollout-<ts>-<uuid>.jsonl`. */
function idFromName(name: string): string {
  const base = name.replace(/\.zst$/, '').replace(/\.jsonl$/, '')
  const m = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(base)
  return m ? m[1] : base
}
