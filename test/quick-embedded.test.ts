/**
 * `scan --quick` and the copies of the agent context embedded in a Codebuff transcript: quick mode never calls a
 * chat lost on a source it did not look at. A transcript it read whole is looked into (its newest embedded copy
 * that holds context is the winner, as a full scan finds it repairable); one read only at its ends makes the
 * chat `repairable` and unverified (exit bit 8), never `unrecoverable`. The chats are real (shared/realdata),
 * copied, their run-state.json cut by code.
 */
import assert from 'node:assert/strict'
import {cpSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {REALDATA, cleanup, runCli, tempDir} from './helpers/fixtures.js'

interface Chat {
  status: string
  winner: string | null
  verified?: boolean
  findings: Array<{id: string; message: string}>
}

/** A copy of a real Codebuff chat with only run-state.json and the transcript, run-state.json cut to 3,000 bytes. */
function cutChat(root: string, id: string): string {
  const dir = path.join(root, id)
  cpSync(path.join(REALDATA, 'codebuff', id), dir, {recursive: true})
  for (const f of ['run-state.json.bak', 'run-state.json.41231.c7e25b0f-9d14-4a3e-8f6b-2b9a0d5e1c48.tmp']) rmSync(path.join(dir, f), {force: true})
  const rs = path.join(dir, 'run-state.json')
  writeFileSync(rs, readFileSync(rs).subarray(0, 3000))
  return dir
}

function scan(dir: string, quick: boolean): {status: number; chat: Chat} {
  const r = runCli(['scan', dir, '--json', ...(quick ? ['--quick'] : [])])
  return {status: r.status ?? -1, chat: JSON.parse(r.stdout).chats[0] as Chat}
}

test('scan --quick: a cut run-state.json beside a transcript read whole is repairable from its embedded copy, as a full scan says', () => {
  const root = tempDir('chatdoctor-quickemb-')
  try {
    const dir = cutChat(root, '2025-11-03T09-14-30.000Z')
    const full = scan(dir, false)
    assert.equal(full.chat.status, 'repairable')
    assert.match(full.chat.winner ?? '', /^chat-messages\.json#/)
    const quick = scan(dir, true)
    assert.equal(quick.chat.status, 'repairable', 'never unrecoverable while an embedded copy holds the context')
    assert.match(quick.chat.winner ?? '', /^chat-messages\.json#/)
    assert.equal(quick.chat.verified, true, 'the transcript was read whole')
    assert.equal(quick.chat.findings.some((f) => f.id === 'context-lost'), false)
    assert.equal(quick.status, 2)
  } finally {
    cleanup(root)
  }
})

test('scan --quick: a cut run-state.json beside a transcript read only at its ends is repairable and unverified, never lost', () => {
  const root = tempDir('chatdoctor-quickemb-')
  try {
    const dir = cutChat(root, '2025-11-04T14-01-15.000Z')
    assert.equal(scan(dir, false).chat.status, 'repairable')
    const quick = scan(dir, true)
    assert.notEqual(quick.chat.status, 'unrecoverable')
    assert.equal(quick.chat.status, 'repairable')
    assert.equal(quick.chat.verified, false)
    const f = quick.chat.findings.find((x) => x.id === 'unverified')
    assert.match(f?.message ?? '', /chat-messages\.json was read only at its ends.*a full scan/)
    assert.equal(quick.chat.findings.some((x) => x.id === 'context-lost'), false)
    assert.equal(quick.status & 8, 8, 'exit bit 8: the verdict rests on a file it did not read whole')
    assert.equal(quick.status & 4, 0, 'no exit bit 4: nothing was found lost')
  } finally {
    cleanup(root)
  }
})

test('scan --quick: with no embedded copy holding context, a chat whose state files are all torn is still unrecoverable', () => {
  const root = tempDir('chatdoctor-quickemb-')
  try {
    const dir = cutChat(root, '2025-11-03T09-14-30.000Z')
    const t = path.join(dir, 'chat-messages.json')
    writeFileSync(t, readFileSync(t, 'utf8').replaceAll('"runState"', '"runStatX"'))
    assert.equal(scan(dir, false).chat.status, 'unrecoverable')
    const quick = scan(dir, true)
    assert.equal(quick.chat.status, 'unrecoverable')
    assert.ok(quick.chat.findings.some((x) => x.id === 'context-lost'))
  } finally {
    cleanup(root)
  }
})
