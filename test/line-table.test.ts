/**
 * The column table of a classified log (`LineTable`: lines as typed arrays, objects only for lines that are
 * neither a clean record nor blank) answers what the line objects answer. Property test over random damage of
 * real Claude Code and Codex logs (NUL runs, raw line breaks, joined lines, bad bytes, CR LF, blank lines, lone
 * surrogates, a BOM, a cut end): the streamed classification (read in small chunks, lists made on demand) and the
 * in-memory one (lists made whole) against the same questions asked of plain line objects; and the agents'
 * analysis and repair plan of the log streamed (with the member's keep) against those of its bytes in memory.
 */
import assert from 'node:assert/strict'
import {test} from 'node:test'
import fc from 'fast-check'
import {bufferSource, classifyJsonlBytes, classifyJsonlSource, cleanRecords, linesOf, recordValues, type JsonlClassification} from '../src/lib/classify/jsonl.js'
import {isClaudeRecordShape} from '../src/lib/formats/claude-code/session.js'
import {isLegacyRecordShape, isRolloutRecordShape} from '../src/lib/formats/codex/session.js'
import {dialectByName} from '../src/lib/formats/jsonl/dialects.js'
import {sessionRules} from '../src/lib/formats/jsonl/session.js'
import {withBom} from './helpers/fixtures.js'
import {REAL_SESSIONS, lineDamage, read} from './helpers/sessions.js'

/** The same classification with lists that are no table's: every question answered from the line objects. */
function asObjects(c: JsonlClassification): JsonlClassification {
  return {...c, lines: [...c.lines], records: [...c.records]}
}

/** Every question a reader asks the table, asked of `c`. */
function answers(c: JsonlClassification): unknown {
  const v = linesOf(c)
  const lines = []
  for (let i = 0; i < v.count; i++) lines.push([v.kind(i), v.isClean(i), v.start(i), v.end(i), v.next(i), v.eol(i), v.isClean(i) ? v.cleanValue(i) : null, v.line(i).index])
  return {lines, others: v.others(), values: recordValues(c), clean: cleanRecords(c), count: c.lines.length, records: c.records.length}
}

type Damage = {kind: 'nul' | 'break' | 'join' | 'bad' | 'crlf' | 'blank' | 'lone'; at: number} | {kind: 'bom'; at: number}

/** `buf` with one damage at relative place `at` (0–1). */
function damage(buf: Buffer, d: Damage): Buffer {
  const at = Math.min(buf.length - 1, Math.floor(d.at * buf.length))
  const lf = buf.indexOf(0x0a, at)
  switch (d.kind) {
    case 'nul':
    case 'break':
    case 'join':
    case 'bad':
    case 'crlf':
      return lineDamage(buf, d.kind, d.at)
    case 'blank':
      return lf < 0 ? buf : Buffer.concat([buf.subarray(0, lf + 1), Buffer.from(at % 2 ? '\n' : '  \n'), buf.subarray(lf + 1)])
    case 'lone': {
      const q = buf.indexOf('"timestamp":"', at)
      return q < 0 ? buf : Buffer.concat([buf.subarray(0, q + 13), Buffer.from('\\ud83c'), buf.subarray(q + 13)])
    }
    case 'bom':
      return withBom(buf)
  }
}

const damages = fc.array(fc.record({kind: fc.constantFrom('nul', 'break', 'join', 'bad', 'crlf', 'blank', 'lone', 'bom'), at: fc.double({min: 0, max: 1, noNaN: true})}), {maxLength: 4}) as fc.Arbitrary<Damage[]>

const LOGS = [
  {name: 'short.jsonl', buf: read(REAL_SESSIONS.claude.short), format: 'claude-code', rules: [isClaudeRecordShape]},
  {name: 'openTool.jsonl', buf: read(REAL_SESSIONS.claude.openTool), format: 'claude-code', rules: [isClaudeRecordShape]},
  {name: 'rollout-2025-01-01T00-00-00-00000000-0000-0000-0000-000000000000.jsonl', buf: read(REAL_SESSIONS.codex.kvsankar), format: 'codex', rules: [isRolloutRecordShape, isLegacyRecordShape]},
] as const

for (const log of LOGS) {
  test(`${log.format} ${log.name}: the column table answers what the line objects answer, streamed and in memory, on random damage`, () => {
    fc.assert(
      fc.property(damages, fc.integer({min: 0, max: 1}), fc.integer({min: 64, max: 4096}), fc.option(fc.double({min: 0.05, max: 1, noNaN: true})), (ds, r, chunk, cut) => {
        let buf: Buffer = Buffer.from(log.buf)
        for (const d of ds) buf = damage(buf, d)
        if (cut !== null) buf = buf.subarray(0, Math.max(1, Math.floor(cut * buf.length)))
        const isRecord = log.rules[Math.min(r, log.rules.length - 1)]
        const whole = classifyJsonlBytes(buf, {isRecord})
        const streamed = classifyJsonlSource(bufferSource(buf), {isRecord, chunkBytes: chunk, longLineBytes: 600}).cls
        const expected = answers(asObjects(whole))
        assert.deepEqual(answers(whole), expected, 'in memory: table and objects agree')
        assert.deepEqual(answers(streamed), expected, 'streamed: table and objects agree')
        assert.deepEqual(answers(asObjects(streamed)), expected, 'streamed lists made on demand: the same objects')

        // The agent's analysis and plan: streamed with the member's keep, and in memory.
        const dialect = dialectByName(log.format)!
        const a = sessionRules(dialect, log.name, buf)
        const b = sessionRules(dialect, log.name, {source: bufferSource(buf), streamed: true, keep: dialect.keep})
        assert.deepEqual(b.analysis.measure, a.analysis.measure, 'the same measure')
        assert.deepEqual(b.analysis.findings, a.analysis.findings, 'the same findings')
        assert.deepEqual(b.plan.changes, a.plan.changes, 'the same changes')
        assert.equal(b.plan.sha256, a.plan.sha256, 'the same repaired bytes')
        assert.deepEqual([b.plan.accepted, b.plan.problems, b.plan.after.class, b.plan.after.records.length], [a.plan.accepted, a.plan.problems, a.plan.after.class, a.plan.after.records.length], 'the same verdict on the result')
      }),
      {numRuns: 300, seed: 19},
    )
  })
}
