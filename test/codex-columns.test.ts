/**
 * A streamed rollout's kept values in columns (`CodexColumns`): each line's kept value read back is the one
 * `keepCodexRecord` kept (same keys, same order), the facts Codex's rules read of a row equal those of its value,
 * and a rollout classified with the columns gets the analysis, findings and repair of its bytes in memory, on
 * random damage of real Codex rollouts (the 0.169.0 paginated one with ordinals, and the 0.135.0 one).
 */
import assert from 'node:assert/strict'
import path from 'node:path'
import {test} from 'node:test'
import fc from 'fast-check'
import {bufferSource, classifyJsonlSource, valuesOf} from '../src/lib/classify/jsonl.js'
import {CodexColumns} from '../src/lib/formats/codex/columns.js'
import {factsOfRow, factsOfValue, keepCodexRecord, newFacts} from '../src/lib/formats/codex/session.js'
import {dialectByName} from '../src/lib/formats/jsonl/dialects.js'
import {sessionRules} from '../src/lib/formats/jsonl/session.js'
import {REALDATA} from './helpers/fixtures.js'
import {REAL_SESSIONS, lineDamage, read} from './helpers/sessions.js'

const PAGINATED = path.join(REALDATA, 'codex', '0.169.0', 'home', '.codex', 'sessions', '2026', '12', '01', 'rollout-2026-12-01T08-58-21-01a230d3-910e-7ab3-9c7f-f7f164ff1ff1.jsonl')

function valuesOfLines(buf: Buffer): Array<Record<string, unknown>> {
  return buf
    .toString('utf8')
    .split(/\r?\n/)
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

/** Variants of a rollout line that the columns must refuse or give back exactly. */
function variants(v: Record<string, unknown>): Array<Record<string, unknown>> {
  const p = (v.payload ?? {}) as Record<string, unknown>
  return [
    v,
    {...v, timestamp: '2026-12-01T08:58:21Z'},
    {...v, timestamp: '2026-12-01T08:58:21.1234Z'},
    {...v, timestamp: '2026-12-01 08:58:21.123Z'},
    {...v, timestamp: '+010000-01-01T00:00:00.000Z'},
    {...v, timestamp: '1969-12-31T23:59:59.999Z'},
    {...v, timestamp: 1764579501000},
    {...v, ordinal: '7'},
    {...v, ordinal: 2.5},
    {...v, ordinal: -1},
    {...v, ordinal: undefined},
    {...v, record_type: 'state'},
    {...v, sessionId: 'x'},
    {...v, type: 'x'.repeat(65)},
    {...v, type: 7},
    {...v, payload: {...p, type: 'function_call', call_id: 'call_1'}},
    {...v, payload: {...p, call_id: 5}},
    {...v, payload: {...p, role: 'user', content: 'hello'}},
    {...v, type: 'response_item', payload: {type: 'message', role: 'user'}},
    {...v, type: 'response_item', payload: {type: 'message', role: 'user', content: null}},
    {...v, type: 'response_item', payload: {type: 'function_call_output', call_id: 'call_1', output: 'x'}},
    {...v, type: 'message', payload: {type: 'message', role: 'user'}},
    {...v, payload: {...p, id: 'x'}},
    {...v, payload: null},
    {...v, payload: []},
  ]
}

test('CodexColumns give back what keepCodexRecord kept, key for key, and the facts of its value', () => {
  const lines = [...valuesOfLines(read(PAGINATED)), ...valuesOfLines(read(REAL_SESSIONS.codex.kvsankar))]
  const cols = new CodexColumns()
  let row = 0
  let taken = 0
  let real = 0
  for (const [j, v] of lines.entries()) {
    for (const [k, x] of variants(v).entries()) {
      const kept = keepCodexRecord(x)
      const line = row++
      if (!cols.put(line, kept)) continue
      taken++
      if (k === 0) real++
      const back = cols.get(line)
      assert.equal(JSON.stringify(back), JSON.stringify(kept), `line ${j} variant ${k}: the same keys in the same order`)
      assert.deepStrictEqual(back, kept)
      assert.deepStrictEqual(factsOfRow(cols, line, newFacts()), factsOfValue(back, newFacts()), `line ${j} variant ${k}: the row's facts are its value's`)
      assert.deepStrictEqual(factsOfRow(cols, line, newFacts()), factsOfValue(x, newFacts()), `line ${j} variant ${k}: and the whole record's`)
    }
  }
  // Most lines of a real rollout are rows (the header and user messages are not).
  assert.ok(real > lines.length * 0.6, `${real} of ${lines.length} real lines in columns`)
  assert.ok(taken > real, 'some variants are rows too')
})

test('a rollout streamed with its columns reads its rows from them: no value made per row', () => {
  const buf = read(PAGINATED)
  const dialect = dialectByName('codex')!
  const cls = classifyJsonlSource(bufferSource(buf), {keep: dialect.keep, columns: dialect.columns}).cls
  const view = valuesOf(cls)
  assert.ok(view.columns instanceof CodexColumns)
  let rows = 0
  for (let k = 0; k < view.count; k++) if (view.row!(k) >= 0) rows++
  assert.ok(rows > view.count * 0.6, `${rows} of ${view.count} records are rows`)
})

type Damage = {kind: 'nul' | 'break' | 'join' | 'bad' | 'crlf' | 'cut-ordinal' | 'repeat'; at: number}

/** `buf` with one damage at relative place `at` (0–1). */
function damage(buf: Buffer, d: Damage): Buffer {
  const at = Math.min(buf.length - 1, Math.floor(d.at * buf.length))
  const lf = buf.indexOf(0x0a, at)
  const next = lf < 0 ? -1 : buf.indexOf(0x0a, lf + 1)
  switch (d.kind) {
    case 'nul':
    case 'break':
    case 'join':
    case 'bad':
    case 'crlf':
      return lineDamage(buf, d.kind, d.at)
    case 'cut-ordinal': {
      // A line's ordinal taken out (a paginated rollout's record without one).
      const o = buf.indexOf(',"ordinal":', at)
      if (o < 0) return buf
      let e = o + 11
      while (e < buf.length && buf[e] >= 0x30 && buf[e] <= 0x39) e++
      return Buffer.concat([buf.subarray(0, o), buf.subarray(e)])
    }
    case 'repeat':
      // A line written twice (a repeated ordinal).
      return next < 0 ? buf : Buffer.concat([buf.subarray(0, next + 1), buf.subarray(lf + 1, next + 1), buf.subarray(next + 1)])
  }
}

const damages = fc.array(fc.record({kind: fc.constantFrom('nul', 'break', 'join', 'bad', 'crlf', 'cut-ordinal', 'repeat'), at: fc.double({min: 0, max: 1, noNaN: true})}), {maxLength: 4}) as fc.Arbitrary<Damage[]>

for (const [name, file] of [
  ['rollout-2026-12-01T08-58-21-01a230d3-910e-7ab3-9c7f-f7f164ff1ff1.jsonl', PAGINATED],
  ['rollout-2025-01-01T00-00-00-00000000-0000-0000-0000-000000000000.jsonl', REAL_SESSIONS.codex.kvsankar],
] as const) {
  test(`codex ${path.basename(file)}: streamed with columns, the analysis and repair of its bytes in memory, on random damage`, () => {
    const original = read(file)
    const dialect = dialectByName('codex')!
    fc.assert(
      fc.property(damages, fc.option(fc.double({min: 0.05, max: 1, noNaN: true})), (ds, cut) => {
        let buf: Buffer = Buffer.from(original)
        for (const d of ds) buf = damage(buf, d)
        if (cut !== null) buf = buf.subarray(0, Math.max(1, Math.floor(cut * buf.length)))
        const a = sessionRules(dialect, name, buf)
        const b = sessionRules(dialect, name, {source: bufferSource(buf), streamed: true, keep: dialect.keep, columns: dialect.columns})
        assert.deepEqual(b.analysis.measure, a.analysis.measure, 'the same measure')
        assert.deepEqual(b.analysis.findings, a.analysis.findings, 'the same findings')
        assert.equal(b.analysis.refused, a.analysis.refused, 'the same loader verdict')
        assert.deepEqual(b.plan.changes, a.plan.changes, 'the same changes')
        assert.equal(b.plan.sha256, a.plan.sha256, 'the same repaired bytes')
        assert.deepEqual([b.plan.accepted, b.plan.problems, b.plan.after.class, b.plan.after.records.length], [a.plan.accepted, a.plan.problems, a.plan.after.class, a.plan.after.records.length], 'the same verdict on the result')
      }),
      {numRuns: 150, seed: 19},
    )
  })
}
