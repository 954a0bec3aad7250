/**
 * The durable copy (`durableCopy`, fsio/durable-write.ts): a restore of a file too large to hold, copied in
 * chunks through the write seam. The recipe's order (own temp, writes, fsync, close, guarded rename, fsync of
 * the folder), the bytes exactly the source's, and a source that no longer hashes as planned refused before
 * anything is renamed (target untouched, temp removed).
 */
import assert from 'node:assert/strict'
import {existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {durableCopy, ownTempName, readFileChunks} from '../src/lib/fsio/durable-write.js'
import {ChangedError, RecordingFileSystem, nodeFileSystem} from '../src/lib/fsio/fs.js'
import {cleanup, sha256, tempDir} from './helpers/fixtures.js'

/** Reads a file in chunks of `n` bytes (many writes for a small file). */
const smallChunks = (n: number) => async function* (file: string) {
  const data = readFileSync(file)
  for (let i = 0; i < data.length; i += n) yield data.subarray(i, i + n)
}

test('durable copy: chunks written to its own temp, fsync, close, rename, fsync dir, read back; the bytes are the source', async () => {
  const root = tempDir()
  try {
    const source = path.join(root, 'run-state.json.bak')
    const target = path.join(root, 'run-state.json')
    const bytes = Buffer.from('{"sessionState":{"mainAgentState":{"messageHistory":[]}},"output":{}}'.repeat(50))
    writeFileSync(source, bytes)
    writeFileSync(target, 'torn')
    const fs = new RecordingFileSystem(nodeFileSystem())
    const r = await durableCopy(fs, target, source, {tag: 'c1', sha256: sha256(bytes), bytes: bytes.length, readChunks: smallChunks(1000)})
    assert.equal(r.sha256, sha256(bytes))
    assert.deepEqual(readFileSync(target), bytes)
    const temp = path.join(root, ownTempName(target, 'c1'))
    const ops = fs.trace.map((t) => t.op)
    assert.equal(ops.filter((o) => o === 'write').length, Math.ceil(bytes.length / 1000))
    assert.deepEqual(ops.filter((o) => o !== 'write'), ['open', 'fsync', 'close', 'lstat', 'rename', 'fsyncDir'])
    assert.equal(fs.trace[0].args[0], temp)
    assert.equal(fs.trace[0].args[1], 'wx')
    assert.ok(!existsSync(temp))
  } finally {
    cleanup(root)
  }
})

test('durable copy: a source that changed since the scan is refused before the rename; the target is untouched and the temp removed', async () => {
  const root = tempDir()
  try {
    const source = path.join(root, 'big.json')
    const target = path.join(root, 'run-state.json')
    writeFileSync(source, 'planned bytes')
    const planned = sha256(Buffer.from('planned bytes'))
    writeFileSync(source, 'other bytes!!') // same length, new bytes
    writeFileSync(target, 'torn')
    const fs = new RecordingFileSystem(nodeFileSystem())
    await assert.rejects(durableCopy(fs, target, source, {tag: 'c2', sha256: planned, bytes: 13, readChunks: readFileChunks}), ChangedError)
    assert.equal(readFileSync(target, 'utf8'), 'torn')
    assert.ok(!fs.trace.some((t) => t.op === 'rename'))
    assert.deepEqual(readdirSync(root).sort(), ['big.json', 'run-state.json'])
    // A caller's own error for a mismatch (undo: the evidence copy no longer has its recorded bytes).
    await assert.rejects(durableCopy(fs, target, source, {tag: 'c3', sha256: planned, bytes: 13, readChunks: readFileChunks, mismatch: () => new Error('evidence changed')}), /evidence changed/)
  } finally {
    cleanup(root)
  }
})
