/** `chatdoctor inspect` and the `degraded` status end to end, through the built CLI. */
import assert from 'node:assert/strict'
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {REALDATA, REAL_CHATS, TEN_TURN_TEMP, cleanup, copyRealChat, nulTailAt, runCli, setMtime, tempDir} from '../helpers/fixtures.js'

test('inspect: a primary torn at a block boundary with a NUL tail: timeline, tear, ranking, salvage, account', () => {
  const home = tempDir()
  try {
    const dir = copyRealChat(REAL_CHATS.tenTurns, home)
    const full = readFileSync(path.join(REALDATA, 'codebuff', REAL_CHATS.tenTurns, 'run-state.json'))
    writeFileSync(path.join(dir, 'run-state.json'), nulTailAt(full, 8192))
    setMtime(path.join(dir, 'run-state.json'), Date.UTC(2026, 7, 30, 9, 0, 4))
    const r = runCli(['inspect', '--json', dir], {env: {HOME: home}})
    assert.equal(r.status, 2, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.equal(out.command, 'inspect')
    assert.equal(out.exitCode, 2)
    assert.equal(out.chats.length, 1)
    const x = out.inspection
    assert.equal(x.status, 'repairable')
    assert.equal(x.winner, TEN_TURN_TEMP)
    assert.equal(x.timeline.length, 15) // 5 files (meta included) + 10 embedded copies
    assert.equal(x.timeline[0].file, 'chat-meta.json') // oldest first
    assert.equal(x.timeline[x.timeline.length - 1].file, 'run-state.json')
    assert.deepEqual(x.tears, [
      {file: 'run-state.json', class: 'truncated', reasons: ['unexpected-end', 'nul-tail'], bytes: full.length, offset: 8192, length: full.length - 8192, blockAligned: true, offsetInBlock: 0, nulRuns: [{offset: 8192, length: full.length - 8192}], nulBytes: full.length - 8192},
    ])
    assert.equal(x.ranking[0].file, TEN_TURN_TEMP)
    assert.equal(x.salvage.length, 1)
    assert.equal(x.salvage[0].file, 'run-state.json')
    assert.ok(x.salvage[0].messages > 0)
    // The file kept its full size (zeros after byte 8192): the one intact generation of that size whose bytes
    // begin with the surviving 8192 is the transcript's turn-10 copy, so the save was of turn 10 (its salvage
    // reaches only turn 4: the tear is among older messages).
    assert.match(x.account, /^The process most likely died while saving the state after turn 10 \(its surviving bytes are the start of chat-messages\.json#ai-1762265497000-d81188ed9dfc1\): run-state\.json stops at byte 8192 \(a 4096-byte block boundary\) and zeros fill the rest of its 26966 bytes/)
    assert.match(x.account, /A salvage of run-state\.json would keep 21 whole messages \(turn 4 of 10\)\./)
    assert.match(x.account, /The save before it completed \(the backup is intact\)\./)
    assert.match(x.account, new RegExp(`The newest complete state is a leftover temp ${TEN_TURN_TEMP.replace(/\./g, '\\.')} \\(turn 10 of 10\\)\\.`))
    // Human output: the same facts, no file contents.
    const h = runCli(['inspect', dir], {env: {HOME: home}})
    assert.equal(h.status, 2)
    for (const s of ['Timeline', 'Tears', 'on a 4096-byte boundary', `NUL runs: ${full.length - 8192} at 8192`, 'Ranking', 'Salvage', 'What most likely happened']) assert.ok(h.stdout.includes(s), s)
    assert.ok(!h.stdout.includes('TodoStore'), 'no message text in the output')
  } finally {
    cleanup(home)
  }
})

test('inspect: a folder with several chats, or none, is a usage error (exit 16)', () => {
  const many = runCli(['inspect', path.join(REALDATA, 'codebuff')])
  assert.equal(many.status, 16)
  assert.match(many.stderr, /holds 3 chats; give one chat dir/)
  const home = tempDir()
  try {
    const none = runCli(['inspect', '--json', home], {env: {HOME: home}})
    assert.equal(none.status, 16)
    assert.match(JSON.parse(none.stdout).error, /no chat found/)
  } finally {
    cleanup(home)
  }
})

test('scan: a degraded chat sets exit bit 4, summary.degraded, and the table says degraded', () => {
  const home = tempDir()
  try {
    const dir = copyRealChat(REAL_CHATS.tenTurns, home)
    const p = JSON.parse(readFileSync(path.join(dir, 'run-state.json'), 'utf8'))
    p.traceSessionId = 'bbbbbbbb-0000-4000-8000-000000000002'
    writeFileSync(path.join(dir, 'run-state.json'), JSON.stringify(p))
    const b = JSON.parse(readFileSync(path.join(dir, 'run-state.json.bak'), 'utf8'))
    b.traceSessionId = 'aaaaaaaa-0000-4000-8000-000000000001'
    writeFileSync(path.join(dir, 'run-state.json.bak'), JSON.stringify(b))
    rmSync(path.join(dir, TEN_TURN_TEMP))
    setMtime(path.join(dir, 'run-state.json.bak'), Date.UTC(2026, 7, 30, 9, 0, 1))
    setMtime(path.join(dir, 'run-state.json'), Date.UTC(2026, 7, 30, 9, 0, 4))
    const r = runCli(['scan', '--json', dir], {env: {HOME: home}})
    assert.equal(r.status, 4, r.stderr)
    const report = JSON.parse(r.stdout)
    assert.deepEqual(report.summary, {chats: 1, healthy: 0, repairable: 0, unrecoverable: 0, degraded: 1, skipped: 0})
    assert.equal(report.chats[0].status, 'degraded')
    const h = runCli(['scan', dir], {env: {HOME: home}})
    assert.equal(h.status, 4)
    assert.match(h.stdout, /│ degraded │/)
    assert.match(h.stdout, /1 chat: 0 healthy, 0 repairable, 0 unrecoverable, 1 degraded \(exit 4\)/)
  } finally {
    cleanup(home)
  }
})

test('inspect: a tear among prompts older than the 100-message transcript window says it cannot tell the turn, never "turn 0"', () => {
  const home = tempDir()
  try {
    const dir = copyRealChat(REAL_CHATS.large, home)
    const full = readFileSync(path.join(REALDATA, 'codebuff', REAL_CHATS.large, 'run-state.json'))
    writeFileSync(path.join(dir, 'run-state.json'), full.subarray(0, full.length >> 1))
    const r = runCli(['inspect', '--json', dir], {env: {HOME: home}})
    const x = JSON.parse(r.stdout).inspection
    const p = JSON.parse(r.stdout).chats[0].generations.find((g: {file: string}) => g.file === 'run-state.json')
    assert.deepEqual(p.save, {basis: 'unknown', turns: null, sameAs: null, note: "the prompts in its surviving bytes are older than the transcript's first turn, and the transcript keeps only its last 100 messages"})
    assert.match(x.account, /^The process most likely died while saving the state \(which turn, it cannot tell: the prompts in its surviving bytes are older than the transcript's first turn/)
    assert.doesNotMatch(x.account, /turn 0\b/)
    assert.match(x.account, /would keep \d+ whole messages \(none of the transcript's 50 turns\)/)
    assert.doesNotMatch(runCli(['inspect', dir], {env: {HOME: home}}).stdout, /from byte (\d+) of \1 \(0 bytes\)/)
  } finally {
    cleanup(home)
  }
})
