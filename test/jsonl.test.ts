/**
 * Line-level classification (classify/jsonl.ts) and the JSONL repair planner (formats/jsonl/repair.ts) on the real
 * public session logs, damaged here in every way the bug reports describe.
 */
import assert from 'node:assert/strict'
import {describe, test} from 'node:test'
import {classifyJsonlBytes} from '../src/lib/classify/jsonl.js'
import {planJsonlRepair, topLevelValueSpan} from '../src/lib/formats/jsonl/repair.js'
import {redactJsonlBytes} from '../src/lib/formats/jsonl/redact.js'
import {makeRedactor} from '../src/lib/json/redact.js'
import {analyzeClaude} from '../src/lib/formats/claude-code/session.js'
import {analyzeCodex, codexAcceptance} from '../src/lib/formats/codex/session.js'
import {classifySession, sessionRules} from '../src/lib/formats/jsonl/session.js'
import {claudeDialect} from '../src/lib/formats/claude-code/session.js'
import {codexDialect} from '../src/lib/formats/codex/session.js'
import {LF, REAL_SESSIONS, body, join, linesOf, read} from './helpers/sessions.js'

const short = read(REAL_SESSIONS.claude.short)
const S = linesOf(short) // 15 lines
const cxBuf = read(REAL_SESSIONS.codex.kvsankar)
const CX = linesOf(cxBuf) // 11 lines
const claudeRules = {relink: 'main' as const}
const codexRules = {accept: codexAcceptance}
const uuidOf = (line: Buffer) => (JSON.parse(body(line).toString()) as {uuid: string}).uuid
const parentOf = (line: Buffer) => (JSON.parse(body(line).toString()) as {parentUuid: string}).parentUuid

/** Asserts that every line of `expected` appears in `actual`, byte-identical and in order, and nothing else. */
function assertLines(actual: Buffer, expected: Buffer[]): void {
  assert.deepEqual(linesOf(actual).map((b) => b.toString('latin1')), expected.map((b) => b.toString('latin1')))
}

describe('real session logs as written', () => {
  for (const [name, p] of Object.entries({...REAL_SESSIONS.claude, ...{codexKvsankar: REAL_SESSIONS.codex.kvsankar, codexLegacy: REAL_SESSIONS.codex.legacy}})) {
    test(`${name} is intact, every line one record, and a repair plan changes nothing`, () => {
      const buf = read(p)
      const c = classifyJsonlBytes(buf)
      assert.equal(c.class, 'intact')
      assert.deepEqual(c.reasons, [])
      assert.equal(c.counts.damaged, 0)
      assert.equal(c.counts.intact, c.counts.total)
      assert.equal(c.counts.records, c.counts.total)
      const rules = name.startsWith('codex') ? analyzeCodex(p, c).rules : analyzeClaude(p.split('/').pop()!, c).rules
      const plan = planJsonlRepair(buf, rules)
      assert.deepEqual(plan.changes, [])
      assert.ok(plan.bytes.equals(buf))
      assert.equal(plan.accepted, true, plan.problems.join('; '))
    })
  }

  test('the pre-session_meta Codex log has CRLF endings and 1,370 records; the CR is part of the line ending', () => {
    const c = classifyJsonlBytes(read(REAL_SESSIONS.codex.legacy))
    assert.equal(c.eol, 'crlf')
    assert.equal(c.counts.total, 1370)
    assert.ok(c.lines.every((l) => l.eol === 'crlf'))
  })

  test('a complete final record without its LF is intact', () => {
    const c = classifyJsonlBytes(short.subarray(0, short.length - 1))
    assert.equal(c.class, 'intact')
    assert.equal(c.counts.total, 15)
    assert.equal(c.lines[14].eol, 'none')
  })

  test('measures of the real logs: user turns, assistant messages, tool calls, chain reach', () => {
    const a = analyzeClaude('marot-spotter__short.jsonl', classifyJsonlBytes(short))
    assert.equal(a.transcriptTurns, 1)
    assert.equal(a.measure.turns, 1)
    assert.equal(a.measure.assistantMessages, 1)
    assert.equal(a.measure.toolCalls, 2)
    assert.equal(a.measure.toolCallsWithResult, 2)
    assert.equal(a.measure.records, 15)
    // Line 11's tool result hangs off the first tool_use (a parallel branch): not on the chain from the last record.
    assert.equal(a.measure.reachableRecords, 13)
    assert.equal(a.measure.lastActivityAt, Date.parse('2026-02-10T21:16:12.381Z'))
    const open = analyzeClaude('x.jsonl', classifyJsonlBytes(read(REAL_SESSIONS.claude.openTool)))
    assert.equal(open.measure.toolCallsOpen, 1)
    assert.deepEqual(open.findings.map((f) => [f.id, f.severity]), [['open-tool-call', 'info']])
    const side = analyzeClaude('agent-acompact-e1f845.jsonl', classifyJsonlBytes(read(REAL_SESSIONS.claude.sidechain)))
    assert.equal(side.sidechain, true)
    assert.deepEqual(side.findings.map((f) => [f.id, f.severity]), [['dangling-parent', 'info']])
    const cx = analyzeCodex('x.jsonl', classifyJsonlBytes(cxBuf))
    assert.equal(cx.transcriptTurns, 1)
    assert.equal(cx.measure.turns, 1)
    assert.equal(cx.measure.assistantMessages, 1)
    assert.equal(cx.threadId, '019e9625-802f-7e91-840a-cfe88d14117a')
    assert.equal(cx.refused, null)
    const legacy = analyzeCodex('x.jsonl', classifyJsonlBytes(read(REAL_SESSIONS.codex.legacy)))
    assert.equal(legacy.legacy, true)
    assert.equal(legacy.transcriptTurns, 45)
    assert.equal(legacy.measure.toolCalls, 246)
    assert.equal(legacy.measure.toolCallsOpen, 0)
    assert.deepEqual(legacy.findings, [])
  })
})

describe('damage, classification and planned repair', () => {
  test('torn last line (crash mid-append): truncated, torn-tail; the repair drops it and nothing else', () => {
    const buf = join([...S.slice(0, 14), body(S[14]).subarray(0, 100)])
    const c = classifyJsonlBytes(buf)
    assert.equal(c.class, 'truncated')
    assert.deepEqual(c.reasons, ['torn-tail'])
    assert.deepEqual({total: c.counts.total, intact: c.counts.intact, damaged: c.counts.damaged, records: c.counts.records}, {total: 15, intact: 14, damaged: 1, records: 14})
    assert.deepEqual(c.counts.firstDamaged, [{line: 15, offset: join(S.slice(0, 14)).length, length: 100, reasons: ['torn-tail']}])
    const plan = planJsonlRepair(buf, claudeRules)
    assert.deepEqual(plan.changes.map((x) => [x.kind, x.line, x.bytesRemoved]), [['drop-torn-tail', 15, 100]])
    assertLines(plan.bytes, S.slice(0, 14))
    assert.equal(plan.accepted, true)
  })

  test('torn last line padded with NULs (delayed allocation): truncated, torn-tail + nul-tail', () => {
    const buf = join([...S.slice(0, 14), body(S[14]).subarray(0, 300), Buffer.alloc(700)])
    const c = classifyJsonlBytes(buf)
    assert.equal(c.class, 'truncated')
    assert.deepEqual(c.reasons, ['nul-tail', 'torn-tail'])
    const plan = planJsonlRepair(buf, claudeRules)
    assert.deepEqual(plan.changes.map((x) => x.kind), ['drop-torn-tail'])
    assertLines(plan.bytes, S.slice(0, 14))
  })

  test('NULs after the last complete line (B08): nul-tail, no record cut; the repair strips them and the log is whole again', () => {
    for (const tail of [Buffer.alloc(1728), join([Buffer.alloc(100), LF, Buffer.alloc(50)]), join([Buffer.alloc(100), LF])]) {
      const buf = join([short, tail])
      const c = classifyJsonlBytes(buf)
      assert.deepEqual([c.class, c.reasons, c.counts.records], ['corrupt', ['nul-tail'], 15])
      assert.ok(c.lines.filter((l) => l.kind === 'damaged').every((l) => l.reasons.join() === 'nul-tail' && l.action === 'drop'))
      const plan = planJsonlRepair(buf, claudeRules)
      assert.ok(plan.changes.every((x) => x.kind === 'strip-nul'))
      assert.ok(plan.bytes.equals(short))
    }
    // A complete last record without its LF, then NULs: the record is kept, the NULs stripped.
    const noLf = join([short.subarray(0, short.length - 1), Buffer.alloc(64)])
    const c = classifyJsonlBytes(noLf)
    assert.deepEqual([c.class, c.reasons, c.counts.records], ['corrupt', ['nul-tail'], 15])
    assert.ok(planJsonlRepair(noLf, claudeRules).bytes.equals(short.subarray(0, short.length - 1)))
    // NULs inside the log are a nul-run, those at its end a nul-tail.
    const both = classifyJsonlBytes(join([...S.slice(0, 6), Buffer.alloc(512), LF, ...S.slice(6), Buffer.alloc(512)]))
    assert.deepEqual([both.class, both.reasons], ['corrupt', ['nul-run', 'nul-tail']])
  })

  test('last line cut inside a multi-byte character: truncated, torn-utf8 + torn-tail', () => {
    const J = linesOf(read(REAL_SESSIONS.claude.openTool))
    const line = body(J[8])
    const cut = line.findIndex((b) => b >= 0xe0) + 1 // one byte into a 3- or 4-byte character
    const buf = join([...J.slice(0, 8), line.subarray(0, cut)])
    const c = classifyJsonlBytes(buf)
    assert.equal(c.class, 'truncated')
    assert.deepEqual(c.reasons, ['torn-utf8', 'torn-tail'])
    const plan = planJsonlRepair(buf, claudeRules)
    assert.deepEqual(plan.changes.map((x) => x.kind), ['drop-torn-tail'])
    assertLines(plan.bytes, J.slice(0, 8))
  })

  test('interior line cut inside a multi-byte character: corrupt, torn-utf8 + torn-interior; dropped and the chain re-linked', () => {
    const J = linesOf(read(REAL_SESSIONS.claude.openTool))
    const line = body(J[8])
    const cut = line.findIndex((b) => b >= 0xe0) + 2
    const buf = join([...J.slice(0, 8), line.subarray(0, cut), LF, ...J.slice(9)])
    const c = classifyJsonlBytes(buf)
    assert.equal(c.class, 'corrupt')
    assert.deepEqual(c.reasons, ['torn-utf8', 'torn-interior'])
    assert.equal(c.counts.records, 13)
    const plan = planJsonlRepair(buf, claudeRules)
    assert.deepEqual(plan.changes.map((x) => [x.kind, x.line]), [['drop-line', 9], ['relink-parent', 10]])
    assert.deepEqual(plan.changes[1].relink, {from: uuidOf(J[8]), to: uuidOf(J[7])})
    const out = linesOf(plan.bytes)
    assert.equal(out.length, 13)
    assertLines(Buffer.concat(out.slice(0, 8)), J.slice(0, 8))
    assertLines(Buffer.concat(out.slice(9)), J.slice(10))
    assert.equal(out[8].toString(), J[9].toString().replace(uuidOf(J[8]), uuidOf(J[7])))
    assert.equal(plan.accepted, true)
  })

  test('a line of NULs inside the log (B06): corrupt, nul-run; the repair removes that line and the file is the original again', () => {
    const buf = join([...S.slice(0, 6), Buffer.alloc(512), LF, ...S.slice(6)])
    const c = classifyJsonlBytes(buf)
    assert.equal(c.class, 'corrupt')
    assert.deepEqual(c.reasons, ['nul-run'])
    assert.deepEqual({total: c.counts.total, intact: c.counts.intact, damaged: c.counts.damaged, records: c.counts.records}, {total: 16, intact: 15, damaged: 1, records: 15})
    const plan = planJsonlRepair(buf, claudeRules)
    assert.deepEqual(plan.changes.map((x) => [x.kind, x.line, x.bytesRemoved]), [['strip-nul', 7, 513]])
    assert.ok(plan.bytes.equals(short))
  })

  test('NUL padding after a record on the same line (B07): the NULs are stripped, the record kept byte-identical', () => {
    const buf = join([...S.slice(0, 6), body(S[6]), Buffer.alloc(900), LF, ...S.slice(7)])
    const c = classifyJsonlBytes(buf)
    assert.equal(c.class, 'corrupt')
    assert.deepEqual(c.reasons, ['nul-run'])
    assert.equal(c.counts.records, 15)
    const plan = planJsonlRepair(buf, claudeRules)
    assert.deepEqual(plan.changes.map((x) => [x.kind, x.recordsKept, x.bytesRemoved]), [['strip-nul', 1, 900]])
    assert.ok(plan.bytes.equals(short))
  })

  test('a record overwritten by NULs: the line is dropped and the next record re-linked to the one before', () => {
    const buf = join([...S.slice(0, 5), Buffer.alloc(S[5].length - 1), LF, ...S.slice(6)])
    const before = analyzeClaude('x.jsonl', classifyJsonlBytes(buf))
    assert.equal(before.measure.turns, 0) // the loader's walk stops at the hole, before the only prompt
    assert.equal(before.transcriptTurns, 1)
    assert.deepEqual(before.findings.map((f) => [f.id, f.severity]), [['dangling-parent', 'error']])
    const plan = planJsonlRepair(buf, claudeRules)
    assert.deepEqual(plan.changes.map((x) => [x.kind, x.line]), [['strip-nul', 6], ['relink-parent', 7]])
    assert.deepEqual(plan.changes[1].relink, {from: uuidOf(S[5]), to: uuidOf(S[4])})
    assertLines(plan.bytes, [...S.slice(0, 5), Buffer.from(S[6].toString().replace(uuidOf(S[5]), uuidOf(S[4]))), ...S.slice(7)])
    assert.equal(analyzeClaude('x.jsonl', plan.after).measure.turns, 1)
  })

  test('a partial record and the next record on one line (B13): interleaved-line; the cut bytes go, the record is kept and re-linked', () => {
    const buf = join([...S.slice(0, 6), body(S[6]).subarray(0, 70), ...S.slice(7)])
    const c = classifyJsonlBytes(buf)
    assert.equal(c.class, 'corrupt')
    assert.deepEqual(c.reasons, ['interleaved-line'])
    assert.deepEqual({total: c.counts.total, intact: c.counts.intact, damaged: c.counts.damaged, records: c.counts.records}, {total: 14, intact: 13, damaged: 1, records: 14})
    const plan = planJsonlRepair(buf, claudeRules)
    assert.deepEqual(plan.changes.map((x) => [x.kind, x.line, x.recordsKept]), [['split-line', 7, 1], ['relink-parent', 7, 1]])
    assert.deepEqual(plan.changes[1].relink, {from: uuidOf(S[6]), to: uuidOf(S[5])})
    assertLines(plan.bytes, [...S.slice(0, 6), Buffer.from(S[7].toString().replace(uuidOf(S[6]), uuidOf(S[5]))), ...S.slice(8)])
    assert.equal(plan.accepted, true)
  })

  test("a torn tail cut right after a nested object's closing brace: a torn tail, not an interleaved line; the nested object is never written as a record", () => {
    // S[7] is an assistant record: `…"usage":{…,"cache_creation":{"ephemeral_5m_input_tokens":0,…}…`.
    const line = body(S[7])
    const inner = line.indexOf(Buffer.from('{"ephemeral_5m_input_tokens"'))
    assert.ok(inner > 0)
    const cut = line.indexOf(0x7d, inner) + 1 // right after the nested object's `}`
    const buf = join([...S.slice(0, 7), line.subarray(0, cut)])
    const {cls, rules} = sessionRules(claudeDialect, 'x.jsonl', buf)
    assert.deepEqual([cls.class, cls.reasons, cls.counts.records], ['truncated', ['torn-tail'], 7])
    const plan = planJsonlRepair(buf, rules)
    assert.deepEqual(plan.changes.map((x) => x.kind), ['drop-torn-tail'])
    assertLines(plan.bytes, S.slice(0, 7))
    assert.equal(classifySession(buf).format?.name, 'claude-code')
  })

  test("a cut record, an object that is no record of the format, then a record, on one line: the object is dropped, never written as a line; the record is kept", () => {
    // A Claude Code record cut inside a string, then a stray object and the next record appended on the same line.
    const line = body(S[6])
    const cut = line.indexOf(Buffer.from('"text":"')) + 12
    assert.ok(cut > 12)
    const stray = Buffer.from('{"ephemeral_5m_input_tokens":0}')
    const buf = join([...S.slice(0, 6), line.subarray(0, cut), stray, S[7], ...S.slice(8)])
    // Without a format any object counts, and the stray one would become a line of its own.
    assert.deepEqual(classifyJsonlBytes(buf).lines[6].records.map((r) => r.length), [stray.length, body(S[7]).length])
    const {cls, rules} = sessionRules(claudeDialect, 'x.jsonl', buf)
    assert.deepEqual(cls.lines[6].reasons, ['interleaved-line'])
    assert.deepEqual(cls.lines[6].records.map((r) => Buffer.from(r.bytes!).toString()), [body(S[7]).toString()])
    const plan = planJsonlRepair(buf, rules)
    assert.ok(!plan.bytes.includes(stray), 'the stray object is not written')
    assert.equal(linesOf(plan.bytes).length, 14, 'the record after it is kept, on its own line')
    assert.ok(linesOf(plan.bytes).some((l) => uuidOf(l) === uuidOf(S[7])), 'the record after it is kept (its parent re-linked over the dropped piece)')
  })

  test('Codex: a header cut right after its payload is a torn header (the payload has the shape of the old-format header, and must not pass for one)', () => {
    const header = body(CX[0])
    const cut = header.lastIndexOf(0x7d) // the payload's `}`, before the line's own
    const buf = join([header.subarray(0, cut), LF, ...CX.slice(1)])
    const {cls, rules} = sessionRules(codexDialect, 'x.jsonl', buf)
    assert.equal(cls.lines[0].records.length, 0)
    assert.deepEqual(cls.lines[0].reasons, ['torn-interior'])
    const plan = planJsonlRepair(buf, rules)
    assert.equal(plan.accepted, false)
    assert.deepEqual(plan.problems, ['the first record is not the session_meta header'])
  })

  test('two complete records on one line (a lost LF): interleaved-line; split back into the original lines', () => {
    const buf = join([...S.slice(0, 6), body(S[6]), ...S.slice(7)])
    const c = classifyJsonlBytes(buf)
    assert.deepEqual([c.class, c.reasons, c.counts.records], ['corrupt', ['interleaved-line'], 15])
    const plan = planJsonlRepair(buf, claudeRules)
    assert.deepEqual(plan.changes.map((x) => [x.kind, x.recordsKept]), [['split-line', 2]])
    assert.ok(plan.bytes.equals(short))
  })

  test('a torn interior record (B12): torn-interior, never truncated; dropped, the next record re-linked', () => {
    const buf = join([...S.slice(0, 6), body(S[6]).subarray(0, 70), LF, ...S.slice(7)])
    const c = classifyJsonlBytes(buf)
    assert.deepEqual([c.class, c.reasons], ['corrupt', ['torn-interior']])
    const plan = planJsonlRepair(buf, claudeRules)
    assert.deepEqual(plan.changes.map((x) => [x.kind, x.line]), [['drop-line', 7], ['relink-parent', 8]])
    assert.equal(parentOf(linesOf(plan.bytes)[6]), uuidOf(S[5]))
  })

  test('a record spread over lines by raw line breaks (B22): split-record on each piece; rejoined with the breaks escaped', () => {
    const line = body(S[6]).toString()
    const at = line.indexOf('"text":"') + 12
    const buf = join([...S.slice(0, 6), Buffer.from(line.slice(0, at) + '\n' + line.slice(at, at + 5) + '\r\n' + line.slice(at + 5) + '\n'), ...S.slice(7)])
    const c = classifyJsonlBytes(buf)
    assert.deepEqual([c.class, c.reasons, c.counts.damaged, c.counts.records], ['corrupt', ['split-record'], 3, 15])
    assert.deepEqual(c.lines.slice(6, 9).map((l) => [l.action, l.partOf]), [['rewrite', 6], ['drop', 6], ['drop', 6]])
    const plan = planJsonlRepair(buf, claudeRules)
    assert.deepEqual(plan.changes.map((x) => [x.kind, x.line, x.linesJoined, x.bytesRemoved, x.bytesAdded]), [['rejoin-lines', 7, 3, 3, 6]])
    assertLines(plan.bytes, [...S.slice(0, 6), Buffer.from(line.slice(0, at) + '\\n' + line.slice(at, at + 5) + '\\r\\n' + line.slice(at + 5) + '\n'), ...S.slice(7)])
    assert.equal(plan.accepted, true)
    // A break between tokens is JSON whitespace: rejoined without it, the original line again.
    const between = line.indexOf(',"uuid"') + 1
    const outside = join([...S.slice(0, 6), Buffer.from(line.slice(0, between) + '\n' + line.slice(between) + '\n'), ...S.slice(7)])
    assert.deepEqual(classifyJsonlBytes(outside).reasons, ['split-record'])
    const p2 = planJsonlRepair(outside, claudeRules)
    assert.deepEqual(p2.changes.map((x) => [x.kind, x.bytesRemoved, x.bytesAdded]), [['rejoin-lines', 1, 0]])
    assert.ok(p2.bytes.equals(short))
    // Redacted, the record stays spread over the same lines, its keys kept and none of its text.
    const red = redactJsonlBytes(buf, makeRedactor())
    const rc = classifyJsonlBytes(red)
    assert.deepEqual([rc.class, rc.reasons, rc.counts.damaged, rc.counts.records], ['corrupt', ['split-record'], 3, 15])
    assert.equal(linesOf(red).length, linesOf(buf).length)
    const text = (JSON.parse(body(S[6]).toString()) as {message: {content: Array<{text: string}>}}).message.content[0].text
    const redJoined = red.toString().split('\n').slice(6, 9).join('')
    assert.ok(redJoined.includes('"text":"') && redJoined.includes('"uuid"'), 'the keys are kept')
    for (const w of text.split(/\s+/).filter((x) => x.length > 4)) assert.ok(!red.toString().includes(w), `redacted: ${w}`)
  })

  test('a lone surrogate escape (B20): JSON.parse and the agents accept it; the record is kept, listed as a warning, never damage', () => {
    const line = body(S[6]).toString()
    const at = line.indexOf('"text":"') + 8
    const buf = join([...S.slice(0, 6), Buffer.from(line.slice(0, at) + '\\ud83c' + line.slice(at) + '\n'), ...S.slice(7)])
    const c = classifyJsonlBytes(buf)
    assert.deepEqual([c.class, c.reasons, c.counts.records], ['intact', [], 15])
    assert.deepEqual(c.loneSurrogates, [{line: 6, path: 'message.content[0].text'}])
    assert.deepEqual(planJsonlRepair(buf, claudeRules).changes, [])
    // A proper pair is nothing to report.
    assert.deepEqual(classifyJsonlBytes(join([...S.slice(0, 6), Buffer.from(line.slice(0, at) + '\\ud83c\\udf89' + line.slice(at) + '\n')])).loneSurrogates, [])
  })

  test('other content from the first byte (B27): foreign-content, not a log torn line after line', () => {
    const js = Buffer.from('/*! highlight.js v11 */\nvar hljs=function(){"use strict";return{name:"x"}}();\n'.repeat(40))
    const c = classifyJsonlBytes(js)
    assert.deepEqual([c.class, c.reasons, c.counts.records, c.counts.damaged], ['corrupt', ['foreign-content'], 0, 80])
    // A first record torn (the file starts like a record) stays a tear.
    assert.deepEqual(classifyJsonlBytes(body(S[0]).subarray(0, 40)).reasons, ['torn-tail'])
  })

  test('an invalid byte inside a record: invalid-utf8; dropped (Node would silently read it as U+FFFD)', () => {
    const b = Buffer.from(S[6])
    b[b.indexOf('"text":"') + 9] = 0xff
    const c = classifyJsonlBytes(join([...S.slice(0, 6), b, ...S.slice(7)]))
    assert.deepEqual([c.class, c.reasons], ['corrupt', ['invalid-utf8']])
  })

  test('a broken parentUuid chain (B33): every line parses, so the file is intact, but the chain walk stops; the repair re-links', () => {
    const ghost = '00000000-0000-4000-8000-000000000000'
    const buf = join([...S.slice(0, 6), Buffer.from(S[6].toString().replace(parentOf(S[6]), ghost)), ...S.slice(7)])
    assert.equal(classifyJsonlBytes(buf).class, 'intact')
    const a = analyzeClaude('x.jsonl', classifyJsonlBytes(buf))
    assert.equal(a.measure.turns, 0)
    assert.equal(a.transcriptTurns, 1)
    assert.deepEqual(a.findings.map((f) => [f.id, f.severity]), [['dangling-parent', 'error']])
    const plan = planJsonlRepair(buf, claudeRules)
    assert.deepEqual(plan.changes.map((x) => [x.kind, x.line, x.relink]), [['relink-parent', 7, {from: ghost, to: uuidOf(S[5])}]])
    assert.ok(plan.bytes.equals(short))
  })

  test('a side-chain file is never re-linked where its parents live in the parent session', () => {
    const side = read(REAL_SESSIONS.claude.sidechain)
    assert.deepEqual(planJsonlRepair(side, {relink: 'sidechain'}).changes, [])
  })

  test('BOM before the Codex header (B18): corrupt, bom; Codex refuses it; the repair strips 3 bytes and Codex accepts the result', () => {
    const buf = join([Buffer.from([0xef, 0xbb, 0xbf]), cxBuf])
    const c = classifyJsonlBytes(buf)
    assert.deepEqual([c.class, c.reasons, c.counts.damaged, c.counts.records], ['corrupt', ['bom'], 1, 11])
    const a = analyzeCodex('x.jsonl', c)
    assert.equal(a.measure.turns, 0)
    assert.equal(a.transcriptTurns, 1)
    assert.deepEqual(a.findings.map((f) => f.id), ['loader-refuses'])
    const plan = planJsonlRepair(buf, codexRules)
    assert.deepEqual(plan.changes.map((x) => [x.kind, x.line, x.bytesRemoved]), [['strip-bom', 1, 3]])
    assert.ok(plan.bytes.equals(cxBuf))
    assert.equal(plan.accepted, true)
  })

  test('Codex header missing or torn: missing-header; the repair is refused by the acceptance rules', () => {
    const noHeader = join(CX.slice(1))
    const a = analyzeCodex('x.jsonl', classifyJsonlBytes(noHeader))
    assert.deepEqual(a.findings.map((f) => f.id), ['missing-header'])
    assert.equal(a.measure.turns, 0)
    const torn = join([body(CX[0]).subarray(0, 50), LF, ...CX.slice(1)])
    const plan = planJsonlRepair(torn, codexRules)
    assert.equal(plan.accepted, false)
    assert.deepEqual(plan.problems, ['the first record is not the session_meta header'])
  })

  test('Codex: a partial record and its complete twin on one line (B15); the legacy CRLF log keeps CRLF when split', () => {
    const buf = join([...CX.slice(0, 6), body(CX[6]).subarray(0, 60), ...CX.slice(6)])
    const plan = planJsonlRepair(buf, codexRules)
    assert.deepEqual(plan.changes.map((x) => [x.kind, x.recordsKept]), [['split-line', 1]])
    assert.ok(plan.bytes.equals(cxBuf))
    const L = linesOf(read(REAL_SESSIONS.codex.legacy))
    const crlf = join([...L.slice(0, 20), body(L[20]), ...L.slice(21)])
    const p2 = planJsonlRepair(crlf, codexRules)
    assert.deepEqual(p2.changes.map((x) => [x.kind, x.recordsKept]), [['split-line', 2]])
    assert.ok(p2.bytes.equals(read(REAL_SESSIONS.codex.legacy)))
  })

  test('Codex: invalid UTF-8 anywhere makes the loader refuse the whole rollout (B19)', () => {
    const b = Buffer.from(CX[7])
    b[b.indexOf('"message":"') + 12] = 0xe6
    const c = classifyJsonlBytes(join([...CX.slice(0, 7), b, ...CX.slice(8)]))
    const a = analyzeCodex('x.jsonl', c)
    assert.equal(a.measure.turns, 0)
    assert.match(a.refused ?? '', /UTF-8/)
  })

  test('empty and zero-filled logs hold no record; a plan over them is refused', () => {
    assert.equal(classifyJsonlBytes(Buffer.alloc(0)).class, 'empty')
    assert.equal(classifyJsonlBytes(Buffer.alloc(4096)).class, 'zero-filled')
    assert.equal(planJsonlRepair(Buffer.alloc(4096), claudeRules).accepted, false)
  })

  test('topLevelValueSpan finds the top-level key only, not a nested one', () => {
    const b = Buffer.from('{"a":{"parentUuid":"x"}, "parentUuid" : "y","z":1}')
    const s = topLevelValueSpan(b, 'parentUuid')!
    assert.equal(b.subarray(s.start, s.end).toString(), '"y"')
    assert.equal(topLevelValueSpan(Buffer.from('{"a":1}'), 'parentUuid'), null)
  })
})

describe('a cut that ends right after a nested object', () => {
  test('the nested object is never taken for a record of its own, at the tail or inside the log', () => {
    // A record cut just after an element of one of its arrays: `{…,"content":[{"type":"text",…}`.
    const rec = body(S[4])
    const close = rec.indexOf(Buffer.from('}]')) + 1
    assert.ok(close > 0 && rec[close] === 0x5d, 'the record has an array of objects')
    const cut = rec.subarray(0, close)
    const tail = classifyJsonlBytes(join([...S.slice(0, 4), cut]))
    assert.equal(tail.class, 'truncated')
    assert.deepEqual(tail.lines[4].records, [])
    const inner = classifyJsonlBytes(join([...S.slice(0, 4), cut, LF, ...S.slice(5)]))
    assert.deepEqual(inner.lines[4].reasons, ['torn-interior'])
    assert.deepEqual(inner.lines[4].records, [])
    const plan = planJsonlRepair(join([...S.slice(0, 4), cut]))
    assertLines(plan.bytes, S.slice(0, 4))
  })
})
