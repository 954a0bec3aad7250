/**
 * Run-states too large for one string (over V8's ~512 MiB limit; here: above a lowered streaming threshold)
 * are measured from their bytes, member by member: an intact one is `intact` with its turns, exactly as in
 * memory, and never called lost because it is large; a torn one beside an intact large generation is
 * repairable, and `repair` restores that generation's exact bytes.
 */
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {skipValue} from '../src/lib/json/walk.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {REAL_CHATS, cleanup, copyRealChat, cutAt, runCli, sha256, tempDir} from './helpers/fixtures.js'

const P = 'run-state.json'

test('an intact run-state above the streaming threshold is intact with its turns, as in memory', async () => {
  const root = tempDir()
  try {
    const dir = copyRealChat(REAL_CHATS.large, root)
    const size = readFileSync(path.join(dir, P)).length
    const opts = {home: root, env: {}, keepData: false}
    const mem = await scanPaths([root], opts)
    const str = await scanPaths([root], {...opts, streamThresholdBytes: size - 1})
    assert.deepEqual(str.errors, [], 'a measured large state is not an unreadable file')
    const a = mem.chats[0].report
    const b = str.chats[0].report
    assert.equal(b.status, 'healthy')
    assert.ok((b.contextTurns ?? 0) > 0)
    assert.deepEqual({status: b.status, winner: b.winner, contextTurns: b.contextTurns, transcriptTurns: b.transcriptTurns, findings: b.findings, ranking: b.ranking}, {status: a.status, winner: a.winner, contextTurns: a.contextTurns, transcriptTurns: a.transcriptTurns, findings: a.findings, ranking: a.ranking})
    assert.deepEqual(b.generations.find((g) => g.file === P), a.generations.find((g) => g.file === P), 'same class, hash, turns and measure')
  } finally {
    cleanup(root)
  }
})

test('a torn primary beside an intact large backup: repairable, and repair restores the backup byte for byte', async () => {
  const root = tempDir()
  try {
    const dir = copyRealChat(REAL_CHATS.large, root)
    const whole = readFileSync(path.join(dir, P))
    writeFileSync(path.join(dir, `${P}.bak`), whole)
    writeFileSync(path.join(dir, P), cutAt(whole, Math.floor(whole.length * 0.6)))
    // Above the transcript (read whole), below both states (the torn one too: streamed).
    const threshold = String(readFileSync(path.join(dir, 'chat-messages.json')).length + 1)
    const env = {CHATDOCTOR_STREAM_THRESHOLD: threshold}
    const str = await scanPaths([root], {home: root, env, keepData: false})
    const r = str.chats[0].report
    assert.equal(r.status, 'repairable')
    assert.equal(r.winner, `${P}.bak`)
    assert.deepEqual(str.errors, [])
    const torn = readFileSync(path.join(dir, P))
    const rep = runCli(['repair', '--yes', dir], {env: {...env, HOME: root}})
    assert.equal(rep.status, 1, rep.stderr + rep.stdout) // 1: repaired
    assert.equal(sha256(readFileSync(path.join(dir, P))), sha256(whole), 'the primary is now the intact generation')
    // Undo puts the torn primary back, byte for byte.
    const id = /chatdoctor undo (\S+)/.exec(rep.stdout + rep.stderr)?.[1]
    assert.ok(id, rep.stdout)
    const un = runCli(['undo', id], {env: {...env, HOME: root}})
    assert.equal(un.status, 0, un.stderr + un.stdout)
    assert.equal(sha256(readFileSync(path.join(dir, P))), sha256(torn), 'undo restored the torn primary')
  } finally {
    cleanup(root)
  }
})

const large = process.env.CHATDOCTOR_LARGE === '1' ? false : 'writes ~200 MB of run-states: set CHATDOCTOR_LARGE=1 (the 1 GiB chat belongs to npm run bench)'

test('a torn 80 MB state beside its intact generation, both streamed: repair and undo copy the files in chunks, byte for byte', {skip: large}, () => {
  const root = tempDir()
  try {
    const dir = copyRealChat(REAL_CHATS.large, root)
    // The real state with its message history repeated to about 80 MB (above the 64 MiB of chunked copies).
    const doc = readFileSync(path.join(dir, P))
    const marker = Buffer.from('"messageHistory":[')
    const at = doc.indexOf(marker) + marker.length
    const close = skipValue(doc, at - 1, doc.length) - 1 // the history's closing bracket
    const body = doc.subarray(at, close)
    const parts = [doc.subarray(0, at)]
    for (let n = 0; n < 15; n++) parts.push(n > 0 ? Buffer.from(',') : Buffer.alloc(0), body)
    parts.push(doc.subarray(close))
    const whole = Buffer.concat(parts)
    assert.ok(whole.length > 80e6)
    JSON.parse(whole.toString('utf8'))
    writeFileSync(path.join(dir, `${P}.bak`), whole)
    const torn = cutAt(whole, Math.floor(whole.length * 0.7))
    writeFileSync(path.join(dir, P), torn)
    const env = {CHATDOCTOR_STREAM_THRESHOLD: String(70e6), HOME: root}
    const rep = runCli(['repair', '--yes', dir], {env})
    assert.equal(rep.status, 1, rep.stderr + rep.stdout)
    assert.equal(sha256(readFileSync(path.join(dir, P))), sha256(whole))
    const id = /chatdoctor undo (\S+)/.exec(rep.stdout + rep.stderr)?.[1]
    assert.ok(id)
    const un = runCli(['undo', id], {env})
    assert.equal(un.status, 0, un.stderr + un.stdout)
    assert.equal(sha256(readFileSync(path.join(dir, P))), sha256(torn))
  } finally {
    cleanup(root)
  }
})
