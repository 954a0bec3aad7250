/**
 * Edge cases a new user hit (the trial before the first landing): a state file's name taken by a symbolic
 * link, a `check` that finds nothing, an empty PATH, a transcript of the wrong shape, oclif usage messages kept
 * whole. Each through the built CLI, with its exact verdict.
 */
import assert from 'node:assert/strict'
import {mkdirSync, renameSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {REAL_CHATS, cleanup, copyRealChat, hashTree, runCli, tempDir} from './helpers/fixtures.js'

interface Gen {
  file: string
  role: string
  class: string | null
  reasons: string[]
}
interface Chat {
  status: string
  findings: Array<{id: string; message: string}>
  generations: Gen[]
  repair?: {outcome: string; message: string | null}
}
interface Report {
  exitCode: number
  errors: Array<{path: string; message: string}>
  chats: Chat[]
  error?: string
}

test('a symbolic link named run-state.json: corrupt/not-a-file, and the dry run already says the repair is a manual step (bit 2, nothing refused)', () => {
  const root = tempDir()
  try {
    const dir = copyRealChat(REAL_CHATS.tenTurns, root)
    renameSync(path.join(dir, 'run-state.json'), path.join(dir, 'real-state'))
    symlinkSync('real-state', path.join(dir, 'run-state.json'))
    const before = hashTree(root)
    const scan = runCli(['scan', '--json', dir])
    const chat = (JSON.parse(scan.stdout) as Report).chats[0]
    const primary = chat.generations.find((g) => g.role === 'primary')!
    assert.deepEqual([primary.file, primary.class, primary.reasons], ['run-state.json', 'corrupt', ['not-a-file']])
    assert.equal(chat.status, 'repairable')
    const dry = runCli(['repair', '--dry-run', '--json', dir])
    const planned = (JSON.parse(dry.stdout) as Report).chats[0]
    assert.equal(planned.repair!.outcome, 'manual')
    assert.match(planned.repair!.message!, /run-state\.json is a symbolic link/)
    assert.equal(dry.status, 2)
    const real = runCli(['repair', '--json', dir])
    assert.equal(real.status, 2)
    assert.deepEqual(hashTree(root), before, 'nothing written, the link untouched')
  } finally {
    cleanup(root)
  }
})

test('check over a folder with nothing to check fails (exit 8), so a CI job pointed at the wrong folder cannot pass', () => {
  const root = tempDir()
  try {
    mkdirSync(path.join(root, 'empty'))
    const r = runCli(['check', '--json', path.join(root, 'empty')])
    assert.equal(r.status, 8)
    const report = JSON.parse(r.stdout) as Report
    assert.equal(report.exitCode, 8)
    assert.match(report.errors[0].message, /^no chats or bundles found to check/)
  } finally {
    cleanup(root)
  }
})

test("an empty PATH ('' from an unset variable) is an error, not the working directory", () => {
  const r = runCli(['scan', '--json', ''])
  assert.equal(r.status, 8)
  const report = JSON.parse(r.stdout) as Report
  assert.equal(report.chats.length, 0)
  assert.match(report.errors[0].message, /^an empty PATH names nothing/)
})

test('a transcript that parses but is not an array of message objects is corrupt (wrong-shape)', () => {
  const root = tempDir()
  try {
    const dir = copyRealChat(REAL_CHATS.small, root)
    writeFileSync(path.join(dir, 'chat-messages.json'), '[[[1]],[2]]')
    const chat = (JSON.parse(runCli(['scan', '--json', dir]).stdout) as Report).chats[0]
    const t = chat.generations.find((g) => g.role === 'transcript')!
    assert.deepEqual([t.class, t.reasons], ['corrupt', ['wrong-shape']])
    assert.ok(chat.findings.some((f) => f.id === 'transcript-damaged'))
  } finally {
    cleanup(root)
  }
})

test("usage errors keep oclif's reason, not only its first line", () => {
  const r = runCli(['bundle', 'somewhere'])
  assert.equal(r.status, 16)
  assert.match(r.stderr, /^chatdoctor: Missing required flag output/)
  const j = runCli(['bundle', 'somewhere', '--json'])
  assert.equal(j.status, 16)
  assert.match((JSON.parse(j.stdout) as Report).error!, /Missing required flag output/)
})
