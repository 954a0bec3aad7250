/**
 * Benchmark inputs for JSON-lines session logs and for the bounded-memory large inputs, generated from the
 * real logs in `shared/realdata` (written by the real Claude Code and Codex CLI binaries). A large log is the
 * real one's records repeated; on each repetition every id-shaped value (a UUID, other than the session's own
 * id) is rewritten to a fresh one and the first record's null parent is linked to the previous repetition's
 * last record, so the parent chain holds end to end (one conversation, not copies of one).
 */
import {closeSync, createWriteStream, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, statSync, writeSync} from 'node:fs'
import {Readable} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import {createGzip} from 'node:zlib'
import path from 'node:path'
import {REALDATA} from '../../test/helpers/fixtures.js'
import type {InputInfo} from './generate.js'

const CLAUDE_LOG = path.join(REALDATA, 'claude-code', '2.1.328', 'home', '.claude', 'projects', '-home-dev-demo-app', 'd9527693-b315-4674-9957-32bc6697096e.jsonl')
const CODEX_DIR = path.join(REALDATA, 'codex', '0.169.0', 'home', '.codex', 'sessions', '2026', '12', '01')
const CODEX_LOG = 'rollout-2026-12-01T08-58-21-01a230d3-910e-7ab3-9c7f-f7f164ff1ff1.jsonl'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The UUID `u` of repetition `rep`: the last 12 hex digits mixed with the repetition (deterministic). */
function rewriteId(u: string, rep: number): string {
  const tail = ((parseInt(u.slice(24), 16) + rep * 0x9e3779b1) % 2 ** 48).toString(16).padStart(12, '0')
  return u.slice(0, 24) + tail
}

/** A deep copy of `v` with every UUID string except those in `keep` rewritten for repetition `rep`. */
function rewrite(v: unknown, rep: number, keep: ReadonlySet<string>): unknown {
  if (typeof v === 'string') return UUID.test(v) && !keep.has(v) ? rewriteId(v, rep) : v
  if (Array.isArray(v)) return v.map((x) => rewrite(x, rep, keep))
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) out[k] = rewrite(x, rep, keep)
    return out
  }
  return v
}

interface LogPlan {
  /** Lines written once, before the repeated body. */
  head: string[]
  /** Parsed records repeated. */
  body: Array<Record<string, unknown>>
  /** Ids never rewritten (the session's own id). */
  keep: Set<string>
}

/** Writes `head`, then `body` repeated (ids rewritten per repetition) until about `target` bytes. */
function writeRepeated(file: string, plan: LogPlan, target: number, link: (rec: Record<string, unknown>, rep: number, last: string | null) => string | null): {bytes: number; records: number} {
  const fd = openSync(file, 'w')
  let bytes = 0
  let records = 0
  const put = (line: string) => {
    bytes += writeSync(fd, line + '\n')
    records++
  }
  for (const l of plan.head) put(l)
  let last: string | null = null
  for (let rep = 0; bytes < target; rep++) {
    for (const rec of plan.body) {
      const r = (rep === 0 ? rec : rewrite(rec, rep, plan.keep)) as Record<string, unknown>
      const id = link(r, rep, last)
      if (id) last = id
      put(JSON.stringify(r))
    }
  }
  closeSync(fd)
  return {bytes, records}
}

/** A Claude Code session log of about `target` bytes at `<root>/.claude/projects/-home-dev-demo-app/`. */
export function makeClaudeLog(root: string, target: number, name = 'claude-log'): InputInfo {
  const lines = readFileSync(CLAUDE_LOG, 'utf8').split('\n').filter((l) => l.length > 0)
  const recs = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
  const session = String(recs.find((r) => typeof r.sessionId === 'string')?.sessionId)
  const dir = path.join(root, '.claude', 'projects', '-home-dev-demo-app')
  mkdirSync(dir, {recursive: true})
  const file = path.join(dir, `${session}.jsonl`)
  const {bytes, records} = writeRepeated(file, {head: [], body: recs, keep: new Set([session])}, target, (r, rep, last) => {
    if (rep > 0 && 'parentUuid' in r && r.parentUuid === null && last) r.parentUuid = last
    return typeof r.uuid === 'string' ? r.uuid : null
  })
  return {name, dir: root, chats: 1, files: 1, bytes, largestFile: bytes, note: `${records} records, the real ${Math.round(readFileSync(CLAUDE_LOG).length / 1000)} KB log repeated with its uuid chain rewritten`}
}

/** A Codex rollout of about `target` bytes at `<root>/.codex/sessions/2026/12/01/` (one `session_meta`). */
export function makeCodexLog(root: string, target: number, name = 'codex-log'): InputInfo {
  const lines = readFileSync(path.join(CODEX_DIR, CODEX_LOG), 'utf8').split(/\r?\n/).filter((l) => l.length > 0)
  const recs = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
  const meta = recs.findIndex((r) => r.type === 'session_meta')
  const payload = recs[meta]?.payload as {id?: string} | undefined
  const keep = new Set([payload?.id ?? ''])
  const dir = path.join(root, '.codex', 'sessions', '2026', '12', '01')
  mkdirSync(dir, {recursive: true})
  // Each repetition of the body continues the ordinals where the previous one ended (the header is not repeated).
  const ordinals = recs.slice(meta + 1).filter((r) => typeof r.ordinal === 'number').length
  const {bytes, records} = writeRepeated(path.join(dir, CODEX_LOG), {head: lines.slice(0, meta + 1), body: recs.slice(meta + 1), keep}, target, (r, rep) => {
    if (typeof r.ordinal === 'number') r.ordinal = r.ordinal + rep * ordinals
    return null
  })
  return {name, dir: root, chats: 1, files: 1, bytes, largestFile: bytes, note: `${records} records, the real ${Math.round(readFileSync(path.join(CODEX_DIR, CODEX_LOG)).length / 1000)} KB rollout repeated with its ids rewritten`}
}

/**
 * A Claude Code log of about `target` bytes that is mostly NUL: the real log, then a NUL run to `target`
 * (blocks the filesystem allocated but the crash never wrote), then the real log's records again (the agent
 * appended after restarting).
 */
export function makeNulLog(root: string, target: number, name = 'nul-log'): InputInfo {
  const real = readFileSync(CLAUDE_LOG)
  const session = 'd9527693-b315-4674-9957-32bc6697096e'
  const dir = path.join(root, '.claude', 'projects', '-home-dev-demo-app')
  mkdirSync(dir, {recursive: true})
  const fd = openSync(path.join(dir, `${session}.jsonl`), 'w')
  let bytes = writeSync(fd, real)
  const zeros = Buffer.alloc(1 << 20)
  while (bytes < target - real.length) bytes += writeSync(fd, zeros, 0, Math.min(zeros.length, target - real.length - bytes))
  bytes += writeSync(fd, real)
  closeSync(fd)
  return {name, dir: root, chats: 1, files: 1, bytes, largestFile: bytes, note: 'the real log, a NUL run, the log again'}
}

/**
 * A Claude Code log of about `target` bytes whose last record is cut in half (a save killed mid-append): the
 * repair input. Built as `makeClaudeLog`, then truncated inside its last line.
 */
export function makeTornLog(root: string, target: number, name = 'torn-log'): InputInfo {
  const info = makeClaudeLog(root, target, name)
  const file = path.join(root, '.claude', 'projects', '-home-dev-demo-app', 'd9527693-b315-4674-9957-32bc6697096e.jsonl')
  const fd = openSync(file, 'r+')
  // The last line starts after the last newline but one; cut it at its middle.
  const tailSize = 1 << 20
  const tail = Buffer.alloc(Math.min(tailSize, info.bytes))
  readSync(fd, tail, 0, tail.length, info.bytes - tail.length)
  const lastStart = tail.lastIndexOf(0x0a, tail.length - 2) + 1
  const cut = info.bytes - tail.length + lastStart + Math.floor((tail.length - lastStart) / 2)
  ftruncateSync(fd, cut)
  closeSync(fd)
  return {...info, bytes: cut, largestFile: cut, note: `${info.note}; the last record cut at its middle`}
}

/**
 * A `.tar.gz` of one member holding `size` zero bytes (about 2 MB compressed for 2 GiB): a bomb `check` must
 * refuse while streaming, before the bytes are held. Streamed through gzip, never held.
 */
export async function makeBomb(root: string, size: number, name = 'bomb'): Promise<InputInfo & {file: string}> {
  mkdirSync(root, {recursive: true})
  const file = path.join(root, 'chats.tar.gz')
  const header = Buffer.alloc(512)
  const put = (s: string, at: number, len: number) => header.write(s.slice(0, len), at, 'ascii')
  put('chats/run-state.json', 0, 100)
  put('0000644\0', 100, 8)
  put('0000000\0', 108, 8)
  put('0000000\0', 116, 8)
  put(size.toString(8).padStart(11, '0') + '\0', 124, 12)
  put('00000000000\0', 136, 12)
  put('        ', 148, 8)
  put('0', 156, 1)
  put('ustar\0', 257, 6)
  put('00', 263, 2)
  let sum = 0
  for (const b of header) sum += b
  put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8)
  const zeros = Buffer.alloc(1 << 20)
  const padded = Math.ceil(size / 512) * 512
  async function* body(): AsyncGenerator<Buffer> {
    yield header
    for (let left = padded; left > 0; left -= zeros.length) yield left >= zeros.length ? zeros : zeros.subarray(0, left)
    yield Buffer.alloc(1024)
  }
  await pipeline(Readable.from(body()), createGzip({level: 9}), createWriteStream(file))
  const bytes = statSync(file).size
  return {name, dir: root, file, chats: 1, files: 1, bytes, largestFile: bytes, note: `${(bytes / 1e6).toFixed(1)} MB tar.gz of one ${(size / 2 ** 30).toFixed(0)} GiB member of zeros`}
}
