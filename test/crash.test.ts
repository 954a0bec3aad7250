/**
 * Crash injection for `repair` and `undo`: every prefix of the real operation trace, under three
 * persistence models (test/helpers/crash-sim.ts), checked against the invariants of test/helpers/crash-suite.ts,
 * each state re-run to convergence. Then the same suite against deliberately broken write paths must fail.
 */
import assert from 'node:assert/strict'
import {readFileSync, unlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {BROKEN_WRITERS} from './helpers/broken-fs.js'
import {describeViolations, runCrashSuite, type SuiteOptions, type SuiteResult} from './helpers/crash-suite.js'
import {crashStates, snapshotTree} from './helpers/crash-sim.js'
import {cleanup, cutAt, tempDir} from './helpers/fixtures.js'
import {durableWrite} from '../src/lib/fsio/durable-write.js'
import {RecordingFileSystem, nodeFileSystem} from '../src/lib/fsio/fs.js'

const P = 'run-state.json'
const truncate = (d: string) => writeFileSync(path.join(d, P), cutAt(readFileSync(path.join(d, P)), 4096))
const remove = (d: string) => unlinkSync(path.join(d, P))
const behind = (d: string) => writeFileSync(path.join(d, P), readFileSync(path.join(d, 'run-state.json.bak')))

const CASES: Array<{name: string} & SuiteOptions> = [
  {name: 'repair: truncated primary (evidence by hard link)', kind: 'repair', damage: truncate},
  {name: 'repair: truncated primary, links refused (EXDEV: evidence by copy + fsync)', kind: 'repair', damage: truncate, injections: [{op: 'link', code: 'EXDEV'}]},
  {name: 'repair: missing primary (created, nothing to preserve)', kind: 'repair', damage: remove},
  {name: 'repair: primary behind (an intact older generation replaced)', kind: 'repair', damage: behind},
  {name: 'undo: of a repaired truncated primary', kind: 'undo', damage: truncate},
  {name: 'undo: of a repair that created the primary (undo removes it)', kind: 'undo', damage: remove},
]

const totals: SuiteResult = {checked: 0, distinct: 0, generated: 0, byModel: {ordered: 0, 'unsynced-lost': 0, 'unsynced-scrambled': 0}, ops: 0, violations: []}

for (const c of CASES) {
  test(`crash states: ${c.name}`, async (t) => {
    const r = await runCrashSuite(c)
    t.diagnostic(`${r.ops} mutating ops; ${r.checked} crash states checked (${r.distinct} distinct trees; ${r.generated} built): ordered ${r.byModel.ordered}, unsynced-lost ${r.byModel['unsynced-lost']}, unsynced-scrambled ${r.byModel['unsynced-scrambled']}`)
    assert.ok(r.ops >= 10, `a real trace (${r.ops} ops)`)
    assert.ok(r.byModel.ordered >= 5 && r.byModel['unsynced-lost'] > 0 && r.byModel['unsynced-scrambled'] > 0, JSON.stringify(r.byModel))
    assert.deepEqual(r.violations, [], describeViolations(r.violations))
    totals.checked += r.checked
    totals.distinct += r.distinct
    totals.generated += r.generated
    totals.ops += r.ops
    for (const m of Object.keys(r.byModel) as Array<keyof SuiteResult['byModel']>) totals.byModel[m] += r.byModel[m]
  })
}

test('crash states: totals', (t) => {
  t.diagnostic(`crash states checked: ${totals.checked}, ${totals.distinct} distinct trees (ordered ${totals.byModel.ordered}, unsynced-lost ${totals.byModel['unsynced-lost']}, unsynced-scrambled ${totals.byModel['unsynced-scrambled']}) over ${CASES.length} runs, ${totals.ops} mutating ops`)
  assert.ok(totals.checked > 0)
})

// The suite must be able to fail: each broken write path is caught.
const EXPECT: Record<string, RegExp> = {
  skipFsync: /primary is neither the old nor the new bytes/,
  skipDirFsync: /evidence|repair log/,
  inPlace: /primary is neither the old nor the new bytes \(absent\)|primary is neither/,
}
for (const [name, wrap] of Object.entries(BROKEN_WRITERS)) {
  test(`the crash suite fails for a broken write path: ${name}`, async () => {
    const r = await runCrashSuite({kind: 'repair', damage: truncate, wrap, stopAfter: 1})
    assert.ok(r.violations.length > 0, `the suite found no violation for ${name} after ${r.checked} states`)
    assert.match(r.violations[0].problem, EXPECT[name], describeViolations(r.violations))
  })
}

// The model itself: a temp written without fsync and renamed over a file (the 2009 ext4 class, prior-art.md
// §2.3–2.4) must come back empty, short, zero-filled or garbage in some crash state; the durable recipe never.
test('crash model: rename of an unsynced temp can leave the target empty, short, NUL-filled or garbage; the durable recipe cannot', async () => {
  const root = tempDir('chatdoctor-crash-model-')
  try {
    const target = path.join(root, 'f.json')
    writeFileSync(target, 'old')
    const start = snapshotTree(root)
    const data = Buffer.alloc(9000, 'n')
    const naive = new RecordingFileSystem(nodeFileSystem())
    const fd = await naive.open(target + '.tmp', 'wx', 0o644)
    await naive.write(fd, data)
    await naive.close(fd)
    await naive.rename(target + '.tmp', target)
    const seen = new Set<string>()
    for (const s of crashStates(start, naive.trace, root).states) {
      const n = s.tree.get(target)
      const b = n?.kind === 'file' ? n.data : null
      seen.add(b === null ? 'absent' : b.equals(Buffer.from('old')) ? 'old' : b.equals(data) ? 'new' : b.length === 0 ? 'empty' : b.every((x) => x === 0) ? 'zero' : b.length < data.length ? 'short' : 'garbage')
    }
    assert.deepEqual([...seen].sort(), ['empty', 'garbage', 'new', 'old', 'short', 'zero'])

    writeFileSync(target, 'old')
    const before = snapshotTree(root)
    const durable = new RecordingFileSystem(nodeFileSystem())
    await durableWrite(durable, target, data, {tag: 't'})
    const outcomes = new Set(crashStates(before, durable.trace, root).states.map((s) => {
      const n = s.tree.get(target)
      return n?.kind === 'file' && n.data.equals(data) ? 'new' : n?.kind === 'file' && n.data.equals(Buffer.from('old')) ? 'old' : 'other'
    }))
    assert.deepEqual([...outcomes].sort(), ['new', 'old'])
  } finally {
    cleanup(root)
  }
})
