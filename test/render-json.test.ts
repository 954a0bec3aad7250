/**
 * The `--json` writer (`src/lib/render/json.ts`): its pieces join to exactly `JSON.stringify(value, null, 2)`,
 * on a real scan report and on the shapes JSON.stringify treats specially; and the CLI's stdout is that text.
 */
import assert from 'node:assert/strict'
import {test} from 'node:test'
import {HeldArray, jsonPieces, writeJson} from '../src/lib/render/json.js'
import {buildReport} from '../src/lib/pipeline/report.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {spawnSync} from 'node:child_process'
import path from 'node:path'
import {cleanup, copyRealChat, REAL_CHATS, REPO_ROOT, runCli, tempDir} from './helpers/fixtures.js'

const same = (v: unknown, label: string) => assert.equal([...jsonPieces(v)].join(''), JSON.stringify(v, null, 2), label)

test('jsonPieces joins to JSON.stringify(value, null, 2) for every shape JSON.stringify treats specially', () => {
  same({}, 'empty object')
  same({a: [], b: {}, c: [[]], d: [{}]}, 'empty containers')
  same({a: undefined, b: () => 1, c: Symbol('s'), d: 1}, 'left-out values')
  same({a: [undefined, () => 1, Symbol('s'), NaN, -0, Infinity]}, 'array holes become null')
  same({when: new Date(0), list: [new Date(1)], nested: {d: new Date(2)}}, 'toJSON')
  same({s: 'line\nbreak "q" \\ \u2028 日本 🎉 \ud800', n: null, t: true, x: 1.5e-7}, 'strings and scalars')
  same({deep: {a: [{b: [1, {c: [2, 3]}]}]}, chats: [{x: {y: [1, 2]}}, {z: 'w'}]}, 'nesting')
  same([1, {a: 2}], 'top-level array')
  same('text', 'top-level string')
  same(null, 'null')
  same({toJSON: () => ({replaced: [1, 2]})}, 'top-level toJSON')
  assert.deepEqual([...jsonPieces(undefined)], [], 'undefined has no text')
})

test('jsonPieces on a real scan report: same text, one piece per chat', async () => {
  const root = tempDir()
  try {
    for (const id of [REAL_CHATS.tenTurns, REAL_CHATS.small]) copyRealChat(id, root)
    const r = await scanPaths([root], {home: '/nonexistent-home', env: {}, keepData: false})
    const report = buildReport({command: 'scan', version: '0.0.0', chats: r.chats.map((c) => c.report), skipped: r.skipped, errors: r.errors})
    assert.equal(report.chats.length, 2)
    same(report, 'scan report')
    const pieces = [...jsonPieces(report)]
    assert.ok(pieces.filter((p) => String(p).startsWith('\n    {')).length >= 2, 'each chat is its own piece')
    // Chunked writing gives the same text plus a newline, whatever the chunk size.
    for (const chunk of [1, 64, 1 << 20]) {
      let out = ''
      let writes = 0
      writeJson(report, (t) => ((out += t), writes++), chunk)
      assert.equal(out, JSON.stringify(report, null, 2) + '\n')
      if (chunk === 1) assert.ok(writes > pieces.length / 2)
      if (chunk === 1 << 20) assert.equal(writes, 1)
    }
  } finally {
    cleanup(root)
  }
})

test('a HeldArray in place of an array writes the same text: empty, one pending chunk, many deflated ones, non-ASCII', async () => {
  const root = tempDir()
  try {
    for (const id of [REAL_CHATS.tenTurns, REAL_CHATS.small]) copyRealChat(id, root)
    const r = await scanPaths([root], {home: '/nonexistent-home', env: {}, keepData: false})
    const chats = [...r.chats.map((c) => c.report), {note: 'naïve \u2028 ✓ \ud83d\ude00', nothing: undefined, list: [1, [], {}]}, ...r.chats.map((c) => c.report)]
    for (const n of [0, 1, chats.length]) {
      for (const chunkChars of [1, 300, 1 << 16]) {
        const report = {schemaVersion: 1, chats: chats.slice(0, n), roots: ['~']}
        const held = new HeldArray(chunkChars)
        for (const c of report.chats) held.push(c)
        assert.equal(held.count, n)
        let out = ''
        writeJson({...report, chats: held}, (t) => (out += typeof t === 'string' ? t : Buffer.from(t).toString('utf8')), 64)
        assert.equal(out, JSON.stringify(report, null, 2) + '\n', `${n} elements, chunks of ${chunkChars}`)
      }
    }
    // Deflated, what is held is a fraction of the text (chats are alike), counting the whole buffer each chunk
    // keeps (zlib's own output is a view into a 16 KiB buffer: kept as it is, that was 4 times the deflated bytes).
    const many = new HeldArray()
    for (let i = 0; i < 4000; i++) many.push(r.chats[i % r.chats.length].report)
    const text = 2000 * (JSON.stringify(r.chats[0].report, null, 2).length + JSON.stringify(r.chats[1].report, null, 2).length)
    assert.ok(many.heldBytes < text / 8, `${many.heldBytes} bytes held for about ${text}`)
    assert.ok(many.count === 4000)
  } finally {
    cleanup(root)
  }
})

test('a HeldArray is written through one lent buffer, whatever the number of chunks: no buffer per chunk', async () => {
  const root = tempDir()
  try {
    copyRealChat(REAL_CHATS.tenTurns, root)
    const r = await scanPaths([root], {home: '/nonexistent-home', env: {}, keepData: false})
    const report = r.chats[0].report
    for (const n of [50, 2000]) {
      const held = new HeldArray(4096)
      for (let i = 0; i < n; i++) held.push({...report, id: `chat-${i}`, note: i % 7 === 0 ? 'naïve ✓' : undefined})
      const buffers = new Set<ArrayBufferLike>()
      let bytes = 0
      let out = ''
      for (const piece of held.pieces()) {
        if (typeof piece === 'string') out += piece
        else {
          buffers.add(piece.buffer)
          bytes += piece.length
          out += Buffer.from(piece).toString('utf8')
        }
      }
      assert.ok(bytes > 40 * 4096, `${bytes} bytes inflated from ${n} elements`)
      // The inflate's buffer grows at most once, to fit a larger chunk (chunks are at least 4096 bytes, at most one
      // element more); the chunk not deflated yet is the gathering buffer.
      assert.ok(buffers.size <= 3, `${buffers.size} buffers for ${n} elements`)
      const expected = JSON.stringify({chats: Array.from({length: n}, (_, i) => ({...report, id: `chat-${i}`, note: i % 7 === 0 ? 'naïve ✓' : undefined}))}, null, 2)
      assert.equal(`{\n  "chats": [${out}\n  ]\n}`, expected)
    }
  } finally {
    cleanup(root)
  }
})

test('scan --json prints exactly JSON.stringify of the report it describes', () => {
  const root = tempDir()
  try {
    copyRealChat(REAL_CHATS.tenTurns, root)
    const r = runCli(['scan', '--json', root])
    assert.equal(r.status, 0, r.stderr)
    assert.equal(r.stdout, JSON.stringify(JSON.parse(r.stdout), null, 2) + '\n')
  } finally {
    cleanup(root)
  }
})

test('scan --json into a pipe whose reader is slow or gone: the whole report, or a quiet stop; exit status kept', () => {
  const root = tempDir()
  try {
    // Enough chats for a report several times a pipe's 64 KiB buffer, so the writer has to wait for the reader.
    for (let i = 0; i < 90; i++) copyRealChat(REAL_CHATS.small, root, undefined, `2026-01-01T00-00-${String(i).padStart(2, '0')}.000Z`)
    const direct = runCli(['scan', '--json', root])
    assert.equal(direct.status, 0, direct.stderr)
    assert.ok(direct.stdout.length > 2 * 65536, `report of ${direct.stdout.length} chars`)
    const bin = path.join(REPO_ROOT, 'bin', 'run.js')
    const sh = (pipeline: string) => spawnSync('bash', ['-c', pipeline], {encoding: 'utf8', maxBuffer: 1 << 28, env: {...process.env, NO_COLOR: '1', SCAN_BIN: bin, SCAN_ROOT: root, NODE: process.execPath}})
    const slow = sh('set -o pipefail; "$NODE" "$SCAN_BIN" scan --json "$SCAN_ROOT" | (sleep 1; cat)')
    assert.equal(slow.status, 0, slow.stderr)
    assert.equal(slow.stdout, direct.stdout)
    const gone = sh('"$NODE" "$SCAN_BIN" scan --json "$SCAN_ROOT" | head -c 10; echo " scan-exit=${PIPESTATUS[0]}"')
    assert.equal(gone.stdout, direct.stdout.slice(0, 10) + ' scan-exit=0\n')
    assert.equal(gone.stderr, '', 'no error when the reader goes away')
  } finally {
    cleanup(root)
  }
})
