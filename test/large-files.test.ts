/**
 * Run-states above V8's largest string (`buffer.constants.MAX_STRING_LENGTH`, about 512 MiB): they cannot be
 * decoded to one string, so `JSON.parse` cannot judge them; issue #6 requires they be classified by streaming,
 * with bounded memory. The streaming classifier is issue #7's (performance); this test states what it must do
 * and is skipped, with the reason, until the module exists (and, because it writes a ~600 MB file, unless
 * `CHATDOCTOR_LARGE=1`).
 *
 * Expected contract (adapt the import when the module lands): `src/lib/classify/stream.ts` exports
 * `classifyFileStreaming(path: string): Promise<Classification>` giving the same class and reasons as
 * `classifyJsonBytes` on the same bytes.
 */
import assert from 'node:assert/strict'
import {constants} from 'node:buffer'
import {closeSync, existsSync, openSync, readFileSync, truncateSync, writeSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {REALDATA, REAL_CHATS, REPO_ROOT, cleanup, tempDir} from './helpers/fixtures.js'

const STREAM_MODULE = path.join(REPO_ROOT, 'dist', 'src', 'lib', 'classify', 'stream.js')
const skip = !existsSync(STREAM_MODULE)
  ? 'no streaming classifier yet (src/lib/classify/stream.ts, issue #7): a run-state above V8\'s largest string cannot be classified with bounded memory'
  : process.env.CHATDOCTOR_LARGE !== '1'
    ? 'writes a ~600 MB run-state: set CHATDOCTOR_LARGE=1 (the 1 GB case belongs to npm run bench)'
    : false

test("a run-state above V8's largest string is classified by streaming, with bounded memory: whole = intact, cut = truncated, NUL tail", {skip}, async () => {
  const {classifyFileStreaming} = (await import(STREAM_MODULE)) as {classifyFileStreaming: (p: string) => Promise<{class: string; reasons: string[]}>}
  const root = tempDir('chatdoctor-large-')
  try {
    // A real run-state whose message history is repeated until the file passes MAX_STRING_LENGTH bytes.
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
    const before = process.memoryUsage().rss
    const whole = await classifyFileStreaming(file)
    const peak = process.memoryUsage().rss - before
    assert.equal(whole.class, 'intact')
    assert.ok(peak < 256 << 20, `bounded memory: ${peak} bytes more RSS`)
    // Cut it: truncated; then NULs up to the old size (delayed allocation): truncated, nul-tail.
    truncateSync(file, size - 1000)
    const cut = await classifyFileStreaming(file)
    assert.deepEqual([cut.class, cut.reasons], ['truncated', ['unexpected-end']])
    truncateSync(file, size)
    const padded = await classifyFileStreaming(file)
    assert.deepEqual([padded.class, [...padded.reasons].sort()], ['truncated', ['nul-tail', 'unexpected-end']])
  } finally {
    cleanup(root)
  }
})
