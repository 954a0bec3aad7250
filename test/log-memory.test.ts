/**
 * The bounded-memory paths of a large session log, by the path they take (never by time or memory): `undo` of a
 * repair streams the evidence copy back (read, hashed and written a chunk at a time) instead of reading it
 * whole once the copy is over its threshold (lowered here so a small real log takes that path), and a
 * streamed repair plan derives the classification of its result from the log's instead of reading and
 * classifying the result again, with the same result as that second classification.
 */
import assert from 'node:assert/strict'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {RecordingFileSystem, nodeFileSystem} from '../src/lib/fsio/fs.js'
import {applyChat} from '../src/lib/pipeline/apply.js'
import {planChat} from '../src/lib/pipeline/plan.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {undoRepair} from '../src/lib/pipeline/undo.js'
import {cleanup, cutAt, tempDir} from './helpers/fixtures.js'
import {REAL_SESSIONS, linesOf} from './helpers/sessions.js'

test('undo of a streamed log repair copies the evidence back in chunks, never reading it whole, and restores its exact bytes', async (t) => {
  const root = tempDir('logmem-undo')
  t.after(() => cleanup(root))
  const dir = path.join(root, '.claude', 'projects', '-home-dev-app')
  mkdirSync(dir, {recursive: true})
  const real = readFileSync(REAL_SESSIONS.claude.short)
  const L = linesOf(real)
  const lastStart = real.length - L[L.length - 1].length
  const torn = cutAt(real, lastStart + Math.floor(L[L.length - 1].length / 2))
  const file = path.join(dir, 'marot-spotter__short.jsonl')
  writeFileSync(file, torn)
  const env = {CHATDOCTOR_LOG_STREAM_THRESHOLD: '1'}
  const scanned = await scanPaths([root], {home: root, env, keepData: true})
  assert.equal(scanned.chats.length, 1)
  assert.equal(scanned.chats[0].report.status, 'repairable')
  const repairId = '20260605T120000Z-0d0e0f'
  const stateDir = path.join(root, 'state')
  const out = await applyChat(planChat(scanned.chats[0]), {fs: nodeFileSystem(), repairId, version: 'test', stateDir, force: false})
  assert.equal(out.outcome, 'repaired', out.message ?? '')
  assert.notDeepEqual(readFileSync(file), torn)

  const fs = new RecordingFileSystem(nodeFileSystem())
  const u = await undoRepair(repairId, {fs, stateDir, version: 'test', force: false, chunkedBytes: 1024})
  assert.deepEqual(u.files.map((f) => [path.basename(f.file), f.outcome]), [['marot-spotter__short.jsonl', 'restored']])
  assert.ok(readFileSync(file).equals(torn), 'the torn log is back byte for byte')
  assert.ok(torn.length > 1024, `the log (${torn.length} bytes) is over the lowered threshold`)
  const evidence = path.join(dir, '.chatdoctor', repairId)
  const readWhole = fs.trace.filter((e) => e.op === 'readFile' && String(e.args[0]).startsWith(evidence) && !String(e.args[0]).endsWith('manifest.json'))
  assert.deepEqual(readWhole.map((e) => e.args[0]), [], 'no evidence copy is read whole')
  // The streamed path writes the copy through chatdoctor's own temp beside the log and renames it over the log.
  const renamed = fs.trace.filter((e) => e.op === 'rename' && e.args[1] === file)
  assert.equal(renamed.length, 1)
  assert.match(path.basename(String(renamed[0].args[0])), /^\.chatdoctor-undo-.*\.tmp$/)
})
