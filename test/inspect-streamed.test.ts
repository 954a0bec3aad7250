/**
 * `inspect` of a file the scan streamed instead of holding (a session log above its streaming threshold) lists
 * the same NUL runs as when the file is held in memory: they are read from disk a chunk at a time.
 */
import assert from 'node:assert/strict'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {nulRuns} from '../src/lib/classify/bytes.js'
import {nulRunsOfFile} from '../src/lib/classify/stream.js'
import {inspectChat} from '../src/lib/pipeline/inspect.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {cleanup, tempDir} from './helpers/fixtures.js'
import {REAL_SESSIONS, linesOf} from './helpers/sessions.js'

test('nulRunsOfFile gives what nulRuns gives over the held bytes, whatever the chunk size (runs across chunk ends, at the start, at the end, the limit)', (t) => {
  const root = tempDir('nulruns-file')
  t.after(() => cleanup(root))
  let seed = 7
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n)
  for (let k = 0; k < 60; k++) {
    const buf = Buffer.alloc(200 + rnd(3000), 0x61)
    for (let r = rnd(12); r > 0; r--) {
      const at = rnd(buf.length)
      buf.fill(0, at, Math.min(buf.length, at + 1 + rnd(300)))
    }
    if (k % 5 === 0) buf.fill(0, 0, rnd(50) + 1)
    if (k % 7 === 0) buf.fill(0, buf.length - rnd(50) - 1)
    const file = path.join(root, `f${k}`)
    writeFileSync(file, buf)
    for (const chunk of [1, 3, 64, 1000, 1 << 20]) {
      for (const limit of [1, 3, 1000]) assert.deepEqual(nulRunsOfFile(file, limit, chunk), nulRuns(buf, 0, buf.length, limit), `file ${k}, chunk ${chunk}, limit ${limit}`)
    }
  }
})

test('inspect of a streamed session log lists its NUL runs as inspect of the same log held in memory does', async (t) => {
  const root = tempDir('inspect-streamed')
  t.after(() => cleanup(root))
  const dir = path.join(root, '.claude', 'projects', '-home-dev-app')
  mkdirSync(dir, {recursive: true})
  const real = readFileSync(REAL_SESSIONS.claude.short)
  const L = linesOf(real)
  const k = L.length >> 1
  // 5,000 NULs between two records in the middle of the real log.
  writeFileSync(path.join(dir, 'marot-spotter__short.jsonl'), Buffer.concat([...L.slice(0, k), Buffer.alloc(5000), ...L.slice(k)]))
  const tears = async (env: Record<string, string>) => {
    const scanned = await scanPaths([root], {home: root, env, keepData: true})
    assert.equal(scanned.chats.length, 1)
    return inspectChat(scanned.chats[0]).tears
  }
  const held = await tears({})
  const streamed = await tears({CHATDOCTOR_LOG_STREAM_THRESHOLD: '1'})
  assert.ok(held.length > 0 && held[0].nulRuns.length > 0, 'the held log has its NUL run in the inspection')
  assert.equal(held[0].nulBytes, 5000)
  assert.deepEqual(streamed, held)
})
