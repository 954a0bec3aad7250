/**
 * A verdict-only scan (plain `scan`) leaves out the embedded RunState copies when none can change the verdict,
 * and says so in `unmeasured`. These tests hold it to the full diagnosis: over a real-shaped fleet with every
 * damage tier, and over chats where a copy does matter (an older trace session, a primary behind its copies),
 * the status, winner, turns and findings are the same as with every copy measured, and the generations left
 * out are exactly the embedded ones.
 */
import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import type {ChatReport} from '../src/lib/model/report.js'
import {makeFleet} from '../scripts/bench/generate.js'
import {REAL_CHATS, cleanup, copyRealChat, keepEmbeddedRunStates, tempDir} from './helpers/fixtures.js'

async function both(root: string): Promise<{lean: ChatReport[]; full: ChatReport[]}> {
  const opts = {home: root, env: {CHATDOCTOR_WORKERS: '0'}, keepData: false}
  const lean = (await scanPaths([root], {...opts, verdictOnly: true})).chats.map((c) => c.report)
  const full = (await scanPaths([root], opts)).chats.map((c) => c.report)
  return {lean, full}
}

/** The verdict of a report: what must not depend on whether the copies were measured. */
const verdict = (r: ChatReport) => ({id: r.id, status: r.status, winner: r.winner, transcriptTurns: r.transcriptTurns, contextTurns: r.contextTurns, findings: r.findings, amnesia: r.amnesia ?? null, transcriptRestore: r.transcriptRestore ?? null})

function assertSameVerdicts(lean: ChatReport[], full: ChatReport[]): number {
  assert.equal(lean.length, full.length)
  let leftOut = 0
  for (let i = 0; i < lean.length; i++) {
    assert.deepEqual(verdict(lean[i]), verdict(full[i]), `chat ${full[i].id}`)
    assert.equal(full[i].unmeasured, undefined, 'a full diagnosis measures every copy')
    if (lean[i].unmeasured) {
      leftOut++
      assert.equal(lean[i].status, 'healthy')
      const kept = full[i].generations.filter((g) => g.role !== 'embedded')
      assert.ok(full[i].generations.length > kept.length, 'left out only when there were copies')
      // The transcript holding them is read and checked but not hashed: its sha256 is the one difference left.
      const unhashed = lean[i].unmeasured!.unhashed ?? []
      assert.deepEqual(unhashed, ['chat-messages.json'])
      for (const file of unhashed) assert.match(kept.find((g) => g.file === file)!.sha256 ?? '', /^[0-9a-f]{64}$/, 'a full diagnosis hashes it')
      const unhashedKept = kept.map((g) => (unhashed.includes(g.file) ? {...g, sha256: null} : g))
      assert.deepEqual(lean[i].generations, unhashedKept, 'only the embedded copies and the hash of their file are left out')
    } else assert.deepEqual(lean[i], full[i])
  }
  return leftOut
}

test('a verdict-only scan of a real-shaped fleet (every damage tier) gives the verdicts of a full one', async () => {
  const root = tempDir()
  try {
    const info = makeFleet(path.join(root, 'fleet'), 7, 240)
    const {lean, full} = await both(root)
    assert.equal(full.length, info.chats)
    const leftOut = assertSameVerdicts(lean, full)
    const healthy = full.filter((r) => r.status === 'healthy').length
    assert.ok(leftOut > 0 && leftOut <= healthy, `copies left out in ${leftOut} of ${healthy} healthy chats`)
    assert.ok(full.some((r) => r.status !== 'healthy'), 'the fleet holds damaged chats')
  } finally {
    cleanup(root)
  }
})

test('copies are measured when one could change the verdict: an older trace session, a primary behind', async () => {
  const root = tempDir()
  try {
    // An embedded copy from an older trace session: the primary (covering every turn) is degraded by a trace break.
    const trace = copyRealChat(REAL_CHATS.tenTurns, root, undefined, '2025-11-04T15-00-00.000Z')
    const t = JSON.parse(readFileSync(path.join(trace, 'chat-messages.json'), 'utf8')) as Array<{metadata?: {runState?: {traceSessionId?: string}}}>
    const first = t.find((m) => m.metadata?.runState)!
    first.metadata!.runState!.traceSessionId = 'trace-older'
    writeFileSync(path.join(trace, 'chat-messages.json'), JSON.stringify(t))
    const p = JSON.parse(readFileSync(path.join(trace, 'run-state.json'), 'utf8')) as {traceSessionId?: string}
    p.traceSessionId = 'trace-newer'
    writeFileSync(path.join(trace, 'run-state.json'), JSON.stringify(p))
    // The primary one turn behind (the .bak in its place) while the transcript's copies hold every turn.
    const behind = copyRealChat(REAL_CHATS.tenTurns, root, undefined, '2025-11-04T16-00-00.000Z')
    writeFileSync(path.join(behind, 'run-state.json'), readFileSync(path.join(behind, 'run-state.json.bak')))
    // Fewer copies than turns: still left out when the primary covers every turn.
    const fewer = copyRealChat(REAL_CHATS.tenTurns, root, undefined, '2025-11-04T17-00-00.000Z')
    writeFileSync(path.join(fewer, 'chat-messages.json'), keepEmbeddedRunStates(readFileSync(path.join(fewer, 'chat-messages.json')), 3))
    const {lean, full} = await both(root)
    assertSameVerdicts(lean, full)
    const byId = (id: string) => lean.find((r) => r.id === id)!
    assert.equal(byId('2025-11-04T15-00-00.000Z').unmeasured, undefined, 'another trace id in the transcript: every copy measured')
    assert.equal(byId('2025-11-04T16-00-00.000Z').unmeasured, undefined, 'a primary behind: every copy measured')
    assert.notEqual(byId('2025-11-04T17-00-00.000Z').unmeasured, undefined)
  } finally {
    cleanup(root)
  }
})

test('a chat whose folder a repair left unfinished is diagnosed in full: every file hashed, its repair found interrupted', async () => {
  const root = tempDir()
  try {
    const dir = copyRealChat(REAL_CHATS.tenTurns, root, undefined, '2025-11-04T18-00-00.000Z')
    copyRealChat(REAL_CHATS.tenTurns, root, undefined, '2025-11-04T19-00-00.000Z')
    const state = path.join(root, 'state')
    mkdirSync(state)
    // The log of a repair that restored the transcript (its bytes now on disk) and was killed before it put the
    // folder's mtime back: the scan must compare the transcript's sha256 with what that repair wrote.
    const sha = createHash('sha256').update(readFileSync(path.join(dir, 'chat-messages.json'))).digest('hex')
    const entry = {type: 'repair', repairId: '20260903T100000Z-0e0e0e', time: '2026-09-03T10:00:00.000Z', chatdoctorVersion: 'test', chatDir: dir, evidenceDir: path.join(dir, '.chatdoctor', '20260903T100000Z-0e0e0e'), actions: [{type: 'restore', from: 'chat-messages.json.tmp', to: 'chat-messages.json', sha256: sha, previousSha256: null}], dirMtimeMs: 1_700_000_000_000, dirAtimeMs: 1_700_000_000_000}
    writeFileSync(path.join(state, 'repairs.jsonl'), JSON.stringify(entry) + '\n')
    const opts = {home: root, env: {CHATDOCTOR_WORKERS: '0'}, keepData: false, stateDir: state}
    const lean = (await scanPaths([root], {...opts, verdictOnly: true})).chats.map((c) => c.report)
    const full = (await scanPaths([root], opts)).chats.map((c) => c.report)
    const [a, b] = [lean.find((r) => r.id === '2025-11-04T18-00-00.000Z')!, full.find((r) => r.id === '2025-11-04T18-00-00.000Z')!]
    assert.equal(a.unmeasured, undefined, 'diagnosed in full')
    assert.equal(a.generations.find((g) => g.file === 'chat-messages.json')!.sha256, sha)
    assert.ok(a.findings.some((f) => f.id === 'repair-interrupted'), JSON.stringify(a.findings.map((f) => f.id)))
    assert.deepEqual(a, b)
    // The same on a worker thread (it takes the first chat in order, this one, the moment it starts).
    const par = await scanPaths([root], {...opts, verdictOnly: true, workers: 1, parallelAfterMs: 0})
    assert.ok(par.chatsInWorkers >= 1)
    assert.deepEqual(par.chats.map((c) => c.report), lean)
    // The other chat of the same scan still leaves its copies out, and its transcript unhashed.
    const other = lean.find((r) => r.id === '2025-11-04T19-00-00.000Z')!
    assert.deepEqual(other.unmeasured?.unhashed, ['chat-messages.json'])
    assert.equal(other.generations.find((g) => g.file === 'chat-messages.json')!.sha256, null)
  } finally {
    cleanup(root)
  }
})
