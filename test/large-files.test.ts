/**
 * Run-states above V8's largest string (`buffer.constants.MAX_STRING_LENGTH`, about 512 MiB) cannot be decoded
 * to one string, so `JSON.parse` cannot judge them: they must be classified by streaming, with
 * bounded memory (`classifyJsonFile`, src/lib/classify/stream.ts). This test writes a ~600 MB
 * run-state (a real one with its message history grown), so it runs only with `CHATDOCTOR_LARGE=1`; the 1 GB
 * case belongs to `npm run bench`.
 */
import assert from 'node:assert/strict'
import {constants} from 'node:buffer'
import {closeSync, openSync, readFileSync, truncateSync, writeSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {classifyJsonFile} from '../src/lib/classify/stream.js'
import {REALDATA, REAL_CHATS, cleanup, tempDir} from './helpers/fixtures.js'

const skip = process.env.CHATDOCTOR_LARGE === '1' ? false : 'writes a ~600 MB run-state: set CHATDOCTOR_LARGE=1 (the 1 GB case belongs to npm run bench)'

test("a run-state above V8's largest string is classified by streaming, in bounded memory: whole = intact, cut = truncated, NUL tail", {skip}, async () => {
  const root = tempDir('chatdoctor-large-')
  try {
    // A real run-state whose message history gets 1 MiB messages until the file passes MAX_STRING_LENGTH bytes.
    const doc = readFileSync(path.join(REALDATA, 'codebuff', REAL_CHATS.large, 'run-state.json'))
    const marker = Buffer.from('"messageHistory":[')
    const at = doc.indexOf(marker) + marker.length
    assert.ok(at > marker.length)
    const chunk = Buffer.from('{"role":"user","content":"' + 'x'.repeat(1 << 20) + '"},')
    const file = path.join(root, 'run-state.json')
    const fd = openSync(file, 'w')
    writeSync(fd, doc.subarray(0, at))
    let size = at
    while (size < constants.MAX_STRING_LENGTH + (64 << 20)) size += writeSync(fd, chunk)
    size += writeSync(fd, doc.subarray(at))
    closeSync(fd)
    assert.ok(size > constants.MAX_STRING_LENGTH)
    const before = process.memoryUsage().rss
    const whole = await classifyJsonFile(file)
    const grown = process.memoryUsage().rss - before
    assert.equal(whole.bytes, size)
    assert.deepEqual([whole.classification.class, whole.classification.reasons], ['intact', []])
    assert.ok(grown < 256 << 20, `bounded memory: RSS grew by ${grown} bytes`)
    // Cut it: truncated; then NULs up to the old size (delayed allocation): truncated, nul-tail.
    truncateSync(file, size - 1000)
    const cut = (await classifyJsonFile(file)).classification
    assert.deepEqual([cut.class, cut.reasons], ['truncated', ['unexpected-end']])
    truncateSync(file, size)
    const padded = (await classifyJsonFile(file)).classification
    assert.deepEqual([padded.class, [...padded.reasons].sort()], ['truncated', ['nul-tail', 'unexpected-end']])
  } finally {
    cleanup(root)
  }
})
