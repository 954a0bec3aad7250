/**
 * NUL runs written over the records of every real Claude Code and Codex session log in shared/realdata (copies,
 * damaged by code): over the middle of a record's text, over a record boundary (the end of one record, its line
 * end and the start of the next), over a line ending alone, and over a line's first and last bytes. Each damaged
 * log is diagnosed by the format's adapter and planned for repair as `scan` and `repair` do.
 *
 * The rule checked: bytes are never joined across a NUL run. What a repair writes holds only lines of the
 * original, in order (a Claude Code record re-linked past a dropped one differs from its original line by its
 * `parentUuid` value alone, and the plan names that change); every record the NULs touched is gone, every record
 * they did not touch is kept; the report counts the loss (the damaged line, the records the change keeps).
 */
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'
import {classifyJsonlBytes} from '../src/lib/classify/jsonl.js'
import {isClaudeRecordShape} from '../src/lib/formats/claude-code/session.js'
import {isLegacyRecordShape, isLegacyRollout, isRolloutRecordShape} from '../src/lib/formats/codex/session.js'
import {adapterByName} from '../src/lib/formats/index.js'
import type {ChatDirSnapshot} from '../src/lib/model/adapter.js'
import type {ChatReport, LineChangeReport as LineChange} from '../src/lib/model/report.js'
import {planChat} from '../src/lib/pipeline/plan.js'
import {REAL_CHATS, cleanup, copyRealChat, runCli, tempDir} from './helpers/fixtures.js'
import {REAL_SESSIONS, agentProgress, allRealSessionLogs, nulOverNestedHead, read} from './helpers/sessions.js'

type Format = 'claude-code' | 'codex'

/** What scan and repair make of one session log: the report, and the bytes and changes a repair would write. */
function outcome(name: string, data: Buffer, format: Format): {report: Omit<ChatReport, 'path'>; written: Buffer | null; changes: LineChange[]} {
  const adapter = adapterByName(format)!
  const dir = '/nul'
  const snapshot: ChatDirSnapshot = {dir, unit: {dir, path: path.join(dir, name), files: [name]}, dirMtimeMs: 1, files: [{name, kind: 'file', bytes: data.length, mtimeMs: 1, data}]}
  const d = adapter.diagnose(snapshot)
  assert.notEqual(d.kind, 'skipped', `${name}: diagnosed`)
  if (d.kind === 'skipped') throw new Error('skipped')
  const report = {path: snapshot.unit.path, ...d.report}
  const plan = planChat({report, snapshot, adapter}, {})
  const rewrite = plan.refusal || plan.problem ? undefined : plan.actions.find((a) => a.type === 'rewrite')
  return {report: d.report, written: rewrite?.data ? Buffer.from(rewrite.data) : null, changes: (rewrite?.changes ?? []) as LineChange[]}
}

interface Line {
  start: number
  /** End of the content (before CR LF / LF). */
  end: number
  next: number
  text: string
}

function lines(buf: Buffer): Line[] {
  const out: Line[] = []
  for (let s = 0; s < buf.length; ) {
    const lf = buf.indexOf(0x0a, s)
    const next = lf < 0 ? buf.length : lf + 1
    const end = lf < 0 ? buf.length : lf > s && buf[lf - 1] === 0x0d ? lf - 1 : lf
    out.push({start: s, end, next, text: buf.subarray(s, end).toString('latin1')})
    s = next
  }
  return out
}

/** One place NULs are written over: `[from, to)` of the log. */
interface Damage {
  shape: string
  line: number
  from: number
  to: number
}

/** The places to damage on line `i`: each shape that fits the line. */
function damagesOf(L: Line[], i: number): Damage[] {
  const l = L[i]
  const out: Damage[] = []
  // The middle of a text: words with spaces between them lie inside a string; 4 bytes of the first such run.
  const prose = /[A-Za-z]{3,}(?: [A-Za-z]{2,}){2,}/.exec(l.text)
  if (prose) out.push({shape: 'mid-text', line: i, from: l.start + prose.index + 2, to: l.start + prose.index + 6})
  if (l.end - l.start > 20) {
    out.push({shape: 'line-start', line: i, from: l.start, to: l.start + 6})
    out.push({shape: 'line-end', line: i, from: l.end - 6, to: l.end})
  }
  if (i + 1 < L.length && L[i + 1].end - L[i + 1].start > 20 && l.end - l.start > 20) {
    out.push({shape: 'record-boundary', line: i, from: l.end - 4, to: L[i + 1].start + 4})
    out.push({shape: 'line-ending-only', line: i, from: l.end, to: l.next})
  }
  return out
}

/** Up to `n` line indexes spread evenly over `total` lines. */
function spread(total: number, n: number): number[] {
  if (total <= n) return [...Array(total).keys()]
  return [...new Set([...Array(n).keys()].map((k) => Math.floor((k * (total - 1)) / (n - 1))))]
}

/**
 * The original line a written line is, the first after line `after`: itself, or one re-linked by a change of
 * the plan (its `parentUuid` value only).
 */
function originalOf(text: string, originals: ReadonlyMap<string, number[]>, changes: LineChange[], after: number): number | undefined {
  const first = (t: string) => originals.get(t)?.find((k) => k > after)
  const own = first(text)
  if (own !== undefined) return own
  for (const c of changes) {
    if (c.kind !== 'relink-parent' || !c.relink) continue
    const at = first(text.replace(`"parentUuid":${JSON.stringify(c.relink.to)}`, `"parentUuid":${JSON.stringify(c.relink.from)}`))
    if (at !== undefined) return at
  }
  return undefined
}

/** Checks one damage of one log; the problems found, in words. */
function check(name: string, doc: Buffer, L: Line[], format: Format, d: Damage): string[] {
  const buf = Buffer.from(doc)
  buf.fill(0, d.from, d.to)
  const touched = new Set(L.map((_, k) => k).filter((k) => L[k].start < d.to && d.from < L[k].end))
  const r = outcome(name, buf, format)
  const problems: string[] = []
  if (r.report.status === 'healthy') problems.push('called healthy')
  const primary = r.report.generations.find((g) => g.role === 'primary')
  if (!primary?.lines || primary.lines.damaged < 1) problems.push('no damaged line counted')
  if (r.written === null) return problems
  const originals = new Map<string, number[]>()
  L.forEach((l, k) => originals.set(l.text, [...(originals.get(l.text) ?? []), k]))
  const kept: number[] = []
  for (const w of lines(r.written)) {
    // Each written line is the next original line (in order) or a re-link of it.
    const k = originalOf(w.text, originals, r.changes, kept.length > 0 ? kept[kept.length - 1] : -1)
    if (k === undefined) problems.push(`writes a line that is not a line of the original (or not in its order): ${JSON.stringify(w.text.slice(0, 120))}`)
    else kept.push(k)
  }
  // The lines lost are the lines the NULs touched (compared by text: a log may hold the same line twice).
  const lost = L.map((_, k) => k).filter((k) => !kept.includes(k) && L[k].end > L[k].start)
  const want = [...touched]
  const texts = (ks: number[]) => ks.map((k) => L[k].text).sort()
  if (texts(lost).join('\n') !== texts(want).join('\n')) problems.push(`lost lines ${lost.map((k) => k + 1).join(',')}; the NULs touched ${want.map((k) => k + 1).join(',')}`)
  // The report counts the loss: the line holding the NULs is a change, keeping only the records they did not touch.
  const at = L.findIndex((l) => l.start <= d.from && d.from < l.next)
  const change = r.changes.find((c) => c.kind !== 'relink-parent' && c.line === at + 1)
  const untouchedOnIt = (d.shape === 'line-ending-only' ? 2 : 0) // only a NUL over the line ending leaves the records on its line whole
  if (!change) problems.push(`no change listed for line ${at + 1}`)
  else if (change.recordsKept !== untouchedOnIt) problems.push(`line ${at + 1}: ${change.kind} keeps ${change.recordsKept} records, ${untouchedOnIt} are whole`)
  return problems
}

const LOGS = allRealSessionLogs()

/** Lines damaged per log (each diagnosed whole, once per shape): fewer in a log of MB. */
const linesPerLog = (doc: Buffer): number => (doc.length > 512 * 1024 ? 5 : 12)

describe('NUL runs inside the records of every real session log: never joined across', () => {
  for (const {file, format} of LOGS) {
    const doc = read(file)
    const name = path.basename(file)
    const label = `${format} ${path.relative(path.dirname(path.dirname(path.dirname(file))), file)}`
    test(`${label}: NULs over text, a record boundary, a line ending, a line's start and end`, (t) => {
      const L = lines(doc)
      const bad: string[] = []
      let checked = 0
      const shapes = new Set<string>()
      for (const i of spread(L.length, linesPerLog(doc))) {
        for (const d of damagesOf(L, i)) {
          checked++
          shapes.add(d.shape)
          const p = check(name, doc, L, format, d)
          if (p.length > 0 && bad.length < 6) bad.push(`${d.shape} at line ${i + 1} (bytes ${d.from}–${d.to}): ${p.join('; ')}`)
        }
      }
      t.diagnostic(`${checked} damaged copies (${[...shapes].join(', ')})`)
      assert.deepEqual(bad, [], `${bad.length} of ${checked} damaged copies`)
      assert.ok(checked >= 4 && shapes.has('line-start') && shapes.has('line-end'), `${checked} damaged copies (${[...shapes].join(', ')})`)
    })
  }

  test('every shape is checked on some log, and mid-text NULs on logs of both formats', () => {
    const by = new Map<string, Set<Format>>()
    for (const {file, format} of LOGS) {
      const L = lines(read(file))
      for (const i of spread(L.length, linesPerLog(read(file)))) for (const d of damagesOf(L, i)) by.set(d.shape, (by.get(d.shape) ?? new Set()).add(format))
    }
    assert.deepEqual([...by.keys()].sort(), ['line-end', 'line-ending-only', 'line-start', 'mid-text', 'record-boundary'])
    assert.deepEqual([...by.get('mid-text')!].sort(), ['claude-code', 'codex'])
  })
})

describe('a record NULs were written over is lost, and said to be', () => {
  test('NULs over the middle of a prompt: the record is dropped, never kept with the bytes around the run joined, and the lost turn is reported', () => {
    const doc = read(REAL_SESSIONS.claude.short)
    const text = doc.toString('latin1')
    const at = text.indexOf('doesnt seem')
    assert.ok(at > 0)
    const buf = Buffer.from(doc)
    buf.fill(0, at + 2, at + 8) // "do\0\0\0\0\0\0em": joined, "doem" would parse
    const joined = Buffer.concat([buf.subarray(0, at + 2), buf.subarray(at + 8)])
    assert.equal(classifyJsonlBytes(joined).class, 'intact', 'the bytes around the run, joined, parse as a record')
    const cls = classifyJsonlBytes(buf, {isRecord: isClaudeRecordShape})
    const line = cls.lines.find((l) => l.start <= at && at < l.next)!
    assert.deepEqual([line.reasons, line.action, line.records.length], [['nul-run', 'torn-interior'], 'drop', 0])
    assert.ok(!cls.records.some((r) => Buffer.from(r.bytes ?? doc.subarray(r.offset!, r.offset! + r.length)).includes('doem')))

    const r = outcome('s.jsonl', buf, 'claude-code')
    assert.equal(r.report.status, 'repairable')
    assert.ok(r.written && !r.written.includes('doem') && !r.written.includes('mix phx.server do'), 'the cut prompt is not written back')
    assert.deepEqual(r.changes.map((c) => c.kind), ['drop-line', 'relink-parent'])
    // The prompt of turn 1 went with the record: the repaired log reaches no turn of the 1 the session held.
    assert.deepEqual([r.report.contextTurns, r.report.transcriptTurns], [0, 1])
  })

  test('NULs over the end of a prompt and its line break: the next record is kept, and the prompt still counts as held (N < M)', () => {
    const doc = read(REAL_SESSIONS.claude.short)
    const L = lines(doc)
    const k = L.findIndex((l) => l.text.includes('mix phx.server doesnt seem'))
    assert.ok(k > 0)
    const buf = Buffer.from(doc)
    buf.fill(0, L[k].end - 10, L[k].next)
    const r = outcome('s.jsonl', buf, 'claude-code')
    const c = r.changes.find((x) => x.line === k + 1)!
    assert.deepEqual([c.kind, c.recordsKept, c.reasons], ['split-line', 1, ['nul-run', 'torn-interior']])
    const next = (JSON.parse(L[k + 1].text) as {uuid: string}).uuid
    assert.ok(r.written && r.written.includes(`"uuid":"${next}"`) && !r.written.includes('mix phx.server doesnt seem'), 'the next record kept (re-linked), the cut prompt not')
    // The prompt's start is still on the damaged line: the session held turn 1, the repaired log reaches none.
    assert.deepEqual([r.report.contextTurns, r.report.transcriptTurns], [0, 1])
  })

  test('a record between two NUL runs is kept as it is; the cut pieces beside it are dropped and counted (split-line)', () => {
    const doc = read(REAL_SESSIONS.codex.kvsankar)
    const L = lines(doc)
    // NULs over the end of line 5 and the start of line 7: line 6 stays whole between the two runs.
    const buf = Buffer.from(doc)
    buf.fill(0, L[4].end - 5, L[4].next)
    buf.fill(0, L[6].start - 1, L[6].start + 5)
    const cls = classifyJsonlBytes(buf, {isRecord: isRolloutRecordShape})
    const line = cls.lines.find((l) => l.start === L[4].start)!
    assert.deepEqual([line.reasons, line.action, line.records.length], [['nul-run', 'torn-interior'], 'rewrite', 1])
    assert.equal(Buffer.from(line.records[0].bytes!).toString('latin1'), L[5].text)
    assert.equal(line.records[0].offset, null, 'a record carved out from between NUL runs has no offset')
  })
})

/** Every object nested in `v` (not `v` itself), depth first. */
function nestedObjects(v: unknown, out: Array<Record<string, unknown>> = [], top = true): Array<Record<string, unknown>> {
  if (Array.isArray(v)) for (const x of v) nestedObjects(x, out, false)
  else if (typeof v === 'object' && v !== null) {
    if (!top) out.push(v as Record<string, unknown>)
    for (const x of Object.values(v)) nestedObjects(x, out, false)
  }
  return out
}

describe('a record after a NUL run is a record only by the top-level keys of its format', () => {
  test('every record of every real log passes its format\'s rule; every nested object with a type fails it', () => {
    let nested = 0
    let withId = 0
    for (const {file, format} of LOGS) {
      const values = lines(read(file)).filter((l) => l.text.trim() !== '').map((l) => JSON.parse(l.text) as Record<string, unknown>)
      const rule = format === 'claude-code' ? isClaudeRecordShape : isLegacyRollout(values) ? isLegacyRecordShape : isRolloutRecordShape
      for (const v of values) {
        assert.ok(rule(v), `${path.basename(file)}: record ${JSON.stringify(v).slice(0, 100)} passes`)
        for (const n of nestedObjects(v)) {
          if (!('type' in n)) continue
          nested++
          if ('uuid' in n || 'id' in n) withId++
          assert.ok(!rule(n), `${path.basename(file)}: nested ${JSON.stringify(n).slice(0, 100)} is no record`)
          assert.ok(!isClaudeRecordShape(n) && !isRolloutRecordShape(n), `${path.basename(file)}: nested ${JSON.stringify(n).slice(0, 100)} is no record of either`)
        }
      }
    }
    assert.ok(nested > 1000 && withId > 100, `${nested} nested objects with a type checked, ${withId} of them with an id`)
    // The nested shapes of Claude Code that the real logs lack: a subagent's message in a progress record.
    const o = JSON.parse(lines(read(REAL_SESSIONS.claude.short))[2].text) as Record<string, unknown>
    const p = JSON.parse(agentProgress(o).toString()) as Record<string, unknown>
    assert.ok(isClaudeRecordShape(p))
    const inner = (p.data as {message: Record<string, unknown>}).message
    assert.ok(typeof inner.uuid === 'string' && !isClaudeRecordShape(inner), 'a progress record\'s data.message is no record')
  })

  test('NULs over a progress record\'s head up to its nested message: the line is dropped, the message never written as a line', () => {
    const doc = read(REAL_SESSIONS.claude.short)
    const {buf, line} = nulOverNestedHead(doc, 2)
    const cls = classifyJsonlBytes(buf, {isRecord: isClaudeRecordShape})
    const l = cls.lines[line]
    assert.deepEqual([l.reasons, l.action, l.records.length], [['nul-run', 'torn-interior'], 'drop', 0])
    const r = outcome('s.jsonl', buf, 'claude-code')
    assert.equal(r.report.status, 'repairable')
    assert.ok(r.written && !r.written.includes('SUBAGENT STEP'), 'the nested message is not written back')
    assert.deepEqual(r.written, doc, 'the repair writes the original log: the progress line is the only loss')
    const c = r.changes.find((x) => x.line === line + 1)!
    assert.deepEqual([c.kind, c.recordsKept], ['drop-line', 0])
  })
})

describe('a JSON document (Codebuff run-state) with NULs over a message text', () => {
  test('is not read across the run either: corrupt (nul-run), and its salvage keeps no byte past the first NUL', (t) => {
    const root = tempDir('chatdoctor-nul-doc-')
    t.after(() => cleanup(root))
    const home = path.join(root, 'home')
    const dir = copyRealChat(REAL_CHATS.tenTurns, home)
    const file = path.join(dir, 'run-state.json')
    const doc = readFileSync(file)
    const at = doc.lastIndexOf('<user_message>') + '<user_message>'.length + 3
    assert.ok(at > 100)
    const buf = Buffer.from(doc)
    buf.fill(0, at, at + 6)
    writeFileSync(file, buf)
    const r = JSON.parse(runCli(['scan', '--json', dir], {env: {HOME: home, XDG_STATE_HOME: path.join(root, 'state')}}).stdout) as {chats: Array<{generations: Array<{file: string; class: string; reasons: string[]; salvage?: {bytesKept: number; tearOffset: number; tornElementDropped: boolean} | null}>}>}
    const g = r.chats[0].generations.find((x) => x.file === 'run-state.json')!
    assert.equal(g.class, 'corrupt')
    assert.ok(g.reasons.includes('nul-run'), g.reasons.join(', '))
    // The salvage cuts back to the last whole message before the run; the message the NULs cut is dropped.
    assert.ok(g.salvage && g.salvage.bytesKept <= at && g.salvage.tearOffset === at && g.salvage.tornElementDropped, JSON.stringify(g.salvage))
  })
})

describe('NULs inside a CRLF line ending (between \\r and \\n): only the NULs are removed', () => {
  for (const {file, format} of LOGS) {
    const raw = read(file)
    // Every log as CRLF (a CRLF log as it is): the shape needs a CRLF to fall inside.
    const doc = raw.includes('\r\n') ? raw : Buffer.from(raw.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1')
    const name = path.basename(file)
    test(`${format} ${name}${doc === raw ? '' : ' (as CRLF)'}: the repaired log is the original, byte for byte`, () => {
      const L = lines(doc)
      const bad: string[] = []
      let checked = 0
      for (const i of spread(L.length, 4)) {
        const l = L[i]
        if (l.next - l.end !== 2 || l.end === l.start) continue
        for (const n of [1, 64]) {
          checked++
          const buf = Buffer.concat([doc.subarray(0, l.end + 1), Buffer.alloc(n), doc.subarray(l.end + 1)])
          const r = outcome(name, buf, format)
          const change = r.changes.find((c) => c.line === i + 1)
          if (r.written === null) bad.push(`line ${i + 1}, ${n} NULs: no repair planned`)
          else if (!r.written.equals(doc)) bad.push(`line ${i + 1}, ${n} NULs: the repaired log is not the original (${r.written.length} bytes, the original ${doc.length})`)
          else if (change?.bytesRemoved !== n) bad.push(`line ${i + 1}, ${n} NULs: ${change?.bytesRemoved} bytes removed`)
        }
      }
      assert.deepEqual(bad, [], `${bad.length} of ${checked}`)
      assert.ok(checked >= 2, `${checked} damaged copies`)
    })
  }
})
