/**
 * A live agent during `repair` and `undo`: its write injected between every pair of the tool's file operations
 * (test/helpers/concurrent-suite.ts), in every interleaving its new bytes survive and the evidence says exactly
 * what the tool replaced. Plus the single cases each fix is about, as the user meets them.
 */
import assert from 'node:assert/strict'
import {readFileSync, renameSync, writeFileSync, mkdirSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {applyChat} from '../src/lib/pipeline/apply.js'
import {RecordingFileSystem, nodeFileSystem} from '../src/lib/fsio/fs.js'
import {planChat} from '../src/lib/pipeline/plan.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {undoRepair} from '../src/lib/pipeline/undo.js'
import {runConcurrentSuite, type ConcurrentScenario} from './helpers/concurrent-suite.js'
import {REAL_CHATS, TEN_TURN_TEMP, cleanup, copyRealChat, cutAt, tempDir} from './helpers/fixtures.js'
import {REAL_SESSIONS, body, join, linesOf, read} from './helpers/sessions.js'

const P = 'run-state.json'
const T = 'chat-messages.json'
const CODEX_NAME = 'rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl'

/** The 10-turn real chat with a torn primary (its complete leftover temp wins). */
function codebuffChat(home: string) {
  const dir = copyRealChat(REAL_CHATS.tenTurns, home)
  writeFileSync(path.join(dir, P), cutAt(readFileSync(path.join(dir, P)), 4096))
  return dir
}

/** A new complete generation of a JSON file: its winner's bytes and one more byte (still whole JSON, other bytes). */
const newGeneration = (dir: string, from: string) => Buffer.concat([readFileSync(path.join(dir, from)), Buffer.from('\n')])

const claudeLines = () => linesOf(read(REAL_SESSIONS.claude.short))
const codexLines = () => linesOf(read(REAL_SESSIONS.codex.kvsankar))

function claudeSession(home: string) {
  const proj = path.join(home, '.claude', 'projects', '-work-demo')
  mkdirSync(proj, {recursive: true})
  const S = claudeLines()
  writeFileSync(path.join(proj, 'torn.jsonl'), join([...S.slice(0, 14), body(S[14]).subarray(0, 100)]))
  return proj
}

function codexSession(home: string) {
  const dir = path.join(home, '.codex', 'sessions', '2026', '06', '05')
  mkdirSync(dir, {recursive: true})
  const S = codexLines()
  writeFileSync(path.join(dir, CODEX_NAME), join([...S.slice(0, S.length - 1), body(S[S.length - 1]).subarray(0, 40)]))
  return dir
}

const at = (dir: string, file: string) => ({scan: dir, dir, file})

const SCENARIOS: ConcurrentScenario[] = [
  {name: 'repair, Codebuff saves run-state.json', kind: 'repair', agent: 'save', build: (h) => at(codebuffChat(h), P), agentBytes: (d) => newGeneration(d, TEN_TURN_TEMP)},
  {name: 'repair, Codebuff saves chat-messages.json', kind: 'repair', agent: 'save', build: (h) => at(codebuffChat(h), T), agentBytes: (d) => newGeneration(d, T)},
  {name: 'repair, Claude Code appends to the session log', kind: 'repair', agent: 'append', build: (h) => at(claudeSession(h), 'torn.jsonl'), agentBytes: () => Buffer.concat([body(claudeLines()[14]), Buffer.from('\n')])},
  {name: 'repair, Codex holds its rollout open and appends', kind: 'repair', agent: 'append-held', build: (h) => at(codexSession(h), CODEX_NAME), agentBytes: () => Buffer.concat([body(codexLines().at(-1)!), Buffer.from('\n')])},
  {name: 'undo, Codebuff saves run-state.json', kind: 'undo', agent: 'save', build: (h) => at(codebuffChat(h), P), agentBytes: (d) => newGeneration(d, TEN_TURN_TEMP)},
  {name: 'undo, Claude Code appends to the session log', kind: 'undo', agent: 'append', build: (h) => at(claudeSession(h), 'torn.jsonl'), agentBytes: () => Buffer.concat([body(claudeLines()[14]), Buffer.from('\n')])},
]

const totals = {interleavings: 0, scenarios: 0}
for (const sc of SCENARIOS) {
  test(`concurrent writer: ${sc.name}: in every interleaving the agent's bytes survive and the evidence is exactly what was replaced`, async (t) => {
    const r = await runConcurrentSuite(sc)
    t.diagnostic(`${r.interleavings} interleavings over ${r.ops} file operations; outcomes ${JSON.stringify(r.outcomes)}; the tool replaced a file in ${r.replacedRuns}; ${r.broken} broke an invariant`)
    assert.ok(r.ops >= 20, `a real run (${r.ops} operations)`)
    assert.ok(r.replacedRuns > 0, 'some interleavings let the tool replace the file (the agent wrote after it)')
    assert.ok(Object.keys(r.outcomes).some((o) => o.includes('refused')), 'some interleavings are refused (the agent wrote first)')
    assert.deepEqual(r.violations.slice(0, 5), [])
    totals.interleavings += r.interleavings
    totals.scenarios++
  })
}

test('concurrent writer: totals', (t) => {
  t.diagnostic(`interleavings checked: ${totals.interleavings} over ${totals.scenarios} scenarios`)
  assert.equal(totals.scenarios, SCENARIOS.length)
})

// ---- the single cases --------------------------------------------------------------------------------

/** A seam on which Codebuff saves `agent` (temp + rename) right before chatdoctor's first rename over the primary. */
function saveBeforeRename(dir: string, agent: Buffer): {fs: RecordingFileSystem; saved: () => boolean} {
  let saved = false
  const fs = new RecordingFileSystem(nodeFileSystem(), [], (op, args) => {
    if (!saved && op === 'rename' && args[1] === path.join(dir, P)) {
      saved = true
      writeFileSync(path.join(dir, `${P}.777.tmp`), agent)
      renameSync(path.join(dir, `${P}.777.tmp`), path.join(dir, P))
    }
  })
  return {fs, saved: () => saved}
}

test("an agent save between the evidence and the rename over run-state.json: refused (the agent wrote during the repair), the agent's bytes stay the primary, no evidence of a replacement", async () => {
  const root = tempDir()
  try {
    const dir = codebuffChat(root)
    const scan = await scanPaths([dir], {home: root, env: {}, stateDir: path.join(root, 'state')})
    const plan = planChat(scan.chats[0])
    const agent = newGeneration(dir, TEN_TURN_TEMP)
    const {fs, saved} = saveBeforeRename(dir, agent)
    const out = await applyChat(plan, {fs, repairId: '20260901T100000Z-aaaaaa', version: 'test', stateDir: path.join(root, 'state'), force: false, isAgentProcess: () => false})
    assert.ok(saved())
    assert.equal(out.outcome, 'refused', out.message ?? '')
    assert.match(out.message!, /the agent wrote run-state\.json during the repair/)
    assert.ok(readFileSync(path.join(dir, P)).equals(agent), "the agent's save is the primary")
    assert.equal(out.evidenceDir, null)
    // --force does not put the old plan over it: the primary changed since the scan the plan was made from.
    const stale = await applyChat(plan, {fs: nodeFileSystem(), repairId: '20260901T100000Z-cccccc', version: 'test', stateDir: path.join(root, 'state'), force: true, isAgentProcess: () => false})
    assert.equal(stale.outcome, 'refused', stale.message ?? '')
    assert.match(stale.message!, /run-state\.json changed since the scan.*not even with --force/)
    assert.ok(readFileSync(path.join(dir, P)).equals(agent), "the agent's save is still the primary")
  } finally {
    cleanup(root)
  }
})

test("an agent save between undo's check and its rename: undo refuses, the agent's bytes stay the primary", async () => {
  const root = tempDir()
  try {
    const dir = codebuffChat(root)
    const stateDir = path.join(root, 'state')
    const scan = await scanPaths([dir], {home: root, env: {}, stateDir})
    const id = '20260901T100000Z-cccccc'
    assert.equal((await applyChat(planChat(scan.chats[0]), {fs: nodeFileSystem(), repairId: id, version: 'test', stateDir, force: false, isAgentProcess: () => false})).outcome, 'repaired')
    const agent = newGeneration(dir, TEN_TURN_TEMP)
    const {fs, saved} = saveBeforeRename(dir, agent)
    const u = await undoRepair(id, {fs, stateDir, version: 'test', force: false})
    assert.ok(saved())
    assert.ok(u.files.some((f) => f.outcome === 'refused' && /the agent wrote run-state\.json during the undo/.test(f.message ?? '')), JSON.stringify(u.files))
    assert.ok(readFileSync(path.join(dir, P)).equals(agent), "the agent's save is the primary")
  } finally {
    cleanup(root)
  }
})
