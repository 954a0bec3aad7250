/**
 * The chat lock's own temps: a process killed while taking the lock leaves `lock.<pid>.<hex>.tmp` (its body
 * before the link) or `lock.<pid>.stale` (a dead lock moved aside) in `.chatdoctor/`. The next process that
 * takes the lock removes those of processes that no longer run, and never those of a live one.
 */
import assert from 'node:assert/strict'
import {mkdirSync, readdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {acquireLock, releaseLock} from '../src/lib/fsio/lock.js'
import {nodeFileSystem} from '../src/lib/fsio/fs.js'
import {cleanup, tempDir} from './helpers/fixtures.js'

test("taking the lock removes the lock temps of dead processes, keeps a live one's and every other file", async () => {
  const root = tempDir()
  try {
    const own = path.join(root, '.chatdoctor')
    mkdirSync(own)
    const dead = 4_000_001
    const live = 4_000_002
    for (const n of [`lock.${dead}.0badf00d.tmp`, `lock.${dead}.stale`, `lock.${live}.12345678.tmp`, 'lock.notapid.tmp', '20261201T000000Z-abcdef']) writeFileSync(path.join(own, n), '{}')
    const me = {pid: process.pid, startedAtMs: null, purpose: 'repair test', time: new Date().toISOString()}
    const got = await acquireLock(nodeFileSystem(), root, me, (h) => h.pid === live || h.pid === process.pid)
    assert.ok(got.ok)
    assert.deepEqual(readdirSync(own).sort(), ['20261201T000000Z-abcdef', 'lock', `lock.${live}.12345678.tmp`, 'lock.notapid.tmp'])
    await releaseLock(nodeFileSystem(), got.path, got.ino)
    assert.deepEqual(readdirSync(own).sort(), ['20261201T000000Z-abcdef', `lock.${live}.12345678.tmp`, 'lock.notapid.tmp'])
  } finally {
    cleanup(root)
  }
})
