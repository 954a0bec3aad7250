/**
 * The streaming classifier (`classify/stream.ts`) must give exactly the in-memory verdict (`classifyJsonBytes`):
 * class, reasons and damage, on real files damaged every way the classifier knows, whatever the chunk
 * boundaries (1 byte, odd sizes, whole file).
 */
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import fc from 'fast-check'
import {classifyJsonBytes} from '../src/lib/classify/index.js'
import {StreamClassifier, classifyJsonFile} from '../src/lib/classify/stream.js'
import {REAL_CHATS, REALDATA, cleanup, cutAt, insertIntoFirstText, invalidByteAt, nulPadded, nulRunAt, nulTailAt, sha256, tempDir, withBom, zeroFill} from './helpers/fixtures.js'

const real = (chat: string, file: string) => readFileSync(path.join(REALDATA, 'codebuff', chat, file))

function inMemory(buf: Uint8Array) {
  const c = classifyJsonBytes(buf)
  return {class: c.class, reasons: c.reasons, damage: c.damage}
}

function streamed(buf: Uint8Array, chunk: number) {
  const s = new StreamClassifier()
  for (let i = 0; i < buf.length; i += chunk) s.push(buf.subarray(i, Math.min(buf.length, i + chunk)))
  const {classification: c, sha256: h} = s.finish()
  assert.equal(h, sha256(buf))
  return {class: c.class, reasons: c.reasons, damage: c.damage}
}

function same(buf: Uint8Array, label: string, chunks = [1, 3, 4093, buf.length || 1]) {
  const want = inMemory(buf)
  for (const chunk of chunks) assert.deepEqual(streamed(buf, chunk), want, `${label}, chunks of ${chunk}`)
  return want
}

/** Every kind of damage, on one document. */
function variants(doc: Buffer): Array<[string, Buffer]> {
  const {buf: multi, at} = insertIntoFirstText(doc)
  const n = doc.length
  const out: Array<[string, Buffer]> = [
    ['intact', doc],
    ['multi-byte text', multi],
    ['empty', Buffer.alloc(0)],
    ['whitespace', Buffer.from(' \n\t\r ')],
    ['zero-filled', zeroFill(doc)],
    ['whitespace then NULs', Buffer.concat([Buffer.from('  \n'), Buffer.alloc(50)])],
    ['BOM', withBom(doc)],
    ['BOM only', Buffer.from([0xef, 0xbb, 0xbf])],
    ['nul-padded', nulPadded(doc, 64)],
    ['nul-run', nulRunAt(doc, Math.floor(n / 2), 16)],
    ['nul-run and nul-tail', nulTailAt(nulRunAt(doc, Math.floor(n / 3), 8), Math.floor((2 * n) / 3))],
    ['invalid byte', invalidByteAt(doc, Math.floor(n / 2))],
    ['concatenated', Buffer.concat([doc, Buffer.from('\n'), doc])],
    ['concatenated then cut', Buffer.concat([doc, Buffer.from(' '), cutAt(doc, 100)])],
    ['trailing garbage', Buffer.concat([doc, Buffer.from(' x')])],
    ['trailing number', Buffer.concat([doc, Buffer.from(' 12')])],
    ['syntax error', Buffer.concat([doc.subarray(0, 10), Buffer.from('}'), doc.subarray(11)])],
    ['top-level number', Buffer.from('-12.5e+3')],
    ['top-level number cut', Buffer.from('-12.')],
    ['top-level literal cut', Buffer.from('tru')],
  ]
  for (const frac of [0.001, 0.1, 0.37, 0.5, 0.9, 0.999]) {
    const k = Math.max(1, Math.floor(n * frac))
    out.push([`cut at ${k}`, cutAt(doc, k)], [`nul tail at ${k}`, nulTailAt(doc, k)])
  }
  // Cuts inside the multi-byte characters and escapes (torn UTF-8, with and without a NUL tail).
  for (let k = at; k < at + 40; k++) out.push([`multi-byte cut at ${k}`, cutAt(multi, k)], [`multi-byte nul tail at ${k}`, nulTailAt(multi, k)])
  // A cut character followed by an interior NUL run.
  out.push(['torn char then NULs then text', Buffer.concat([multi.subarray(0, at + 8), Buffer.alloc(5), multi.subarray(at + 20)])])
  return out
}

test('streaming classification equals the in-memory one on damaged real run-states and transcripts, any chunking', () => {
  const docs = [real(REAL_CHATS.small, 'run-state.json'), real(REAL_CHATS.tenTurns, 'run-state.json'), real(REAL_CHATS.small, 'chat-messages.json')]
  const seen = new Set<string>()
  for (const doc of docs) {
    for (const [label, buf] of variants(doc)) {
      const v = same(buf, label, buf.length > 20_000 ? [7, 4093, buf.length || 1] : undefined)
      seen.add(`${v.class}:${v.reasons.join('+')}`)
    }
  }
  // The variants reach every syntax-level verdict the classifier has.
  for (const v of ['intact:', 'empty:', 'zero-filled:', 'truncated:unexpected-end', 'truncated:unexpected-end+nul-tail', 'truncated:unexpected-end+torn-utf8', 'corrupt:bom', 'corrupt:nul-tail', 'corrupt:nul-run', 'corrupt:invalid-utf8', 'corrupt:concatenated', 'corrupt:trailing-garbage', 'corrupt:syntax-error']) {
    assert.ok(seen.has(v), `no variant reached ${v}; reached: ${[...seen].join(', ')}`)
  }
})

test('streaming classification equals the in-memory one on random cuts and byte edits of a real transcript (property)', () => {
  const doc = insertIntoFirstText(real(REAL_CHATS.small, 'chat-messages.json')).buf
  const edit = fc.record({
    cut: fc.integer({min: 0, max: doc.length}),
    edits: fc.array(fc.tuple(fc.integer({min: 0, max: doc.length - 1}), fc.constantFrom(0x00, 0xff, 0x22, 0x5c, 0x7d, 0x5d, 0x2c, 0x20, 0xe6, 0x80, 0x31)), {maxLength: 3}),
    nulTail: fc.integer({min: 0, max: 20}),
    chunk: fc.integer({min: 1, max: 5000}),
  })
  fc.assert(
    fc.property(edit, ({cut, edits, nulTail, chunk}) => {
      const b = Buffer.from(doc)
      for (const [at, byte] of edits) b[at] = byte
      const buf = Buffer.concat([b.subarray(0, cut), Buffer.alloc(nulTail)])
      assert.deepEqual(streamed(buf, chunk), inMemory(buf))
    }),
    {numRuns: 300, seed: 7},
  )
})

test('classifyJsonFile streams a damaged 5.5 MB real run-state from disk in small chunks with the in-memory verdict', async () => {
  const root = tempDir()
  try {
    const doc = real(REAL_CHATS.large, 'run-state.json')
    const cases: Array<[string, Buffer]> = [
      ['intact', doc],
      ['truncated', cutAt(doc, 4_000_001)],
      ['nul-run', nulRunAt(doc, 3_000_000, 4096)],
      ['nul tail', nulTailAt(doc, 5_000_000)],
    ]
    for (const [label, buf] of cases) {
      const file = path.join(root, `${label}.json`)
      writeFileSync(file, buf)
      const r = await classifyJsonFile(file, 64 * 1024)
      assert.equal(r.bytes, buf.length)
      assert.equal(r.sha256, sha256(buf))
      assert.deepEqual({class: r.classification.class, reasons: r.classification.reasons, damage: r.classification.damage}, inMemory(buf), label)
    }
  } finally {
    cleanup(root)
  }
})

test('a scan with a small streaming threshold gives the same report as in memory for damaged files above it', async () => {
  const {scanPaths} = await import('../src/lib/pipeline/scan.js')
  const {copyRealChat} = await import('./helpers/fixtures.js')
  const root = tempDir()
  try {
    const transcript = real(REAL_CHATS.tenTurns, 'chat-messages.json') // 203 KB: above the 100 KB threshold
    const damages: Array<[string, (b: Buffer) => Buffer]> = [
      ['nul-tail', (b) => nulTailAt(b, 150_000)],
      ['nul-run', (b) => nulRunAt(b, 120_000, 300)],
      ['invalid', (b) => invalidByteAt(b, 110_000)],
      ['bom', withBom],
      ['zero', zeroFill],
      ['cut', (b) => cutAt(b, 180_000)],
    ]
    const parent = path.join('.config', 'manicode', 'projects', 'demo-app', 'chats')
    damages.forEach(([, f], i) => {
      const dir = copyRealChat(REAL_CHATS.tenTurns, root, parent, `2026-02-01T00-00-0${i}.000Z`)
      writeFileSync(path.join(dir, 'chat-messages.json'), f(transcript))
    })
    const opts = {home: '/nonexistent-home', env: {}, keepData: false}
    const mem = await scanPaths([root], opts)
    const str = await scanPaths([root], {...opts, streamThresholdBytes: 100_000})
    assert.equal(mem.chats.length, damages.length)
    // Every file gets the same verdict (class, reasons, damage, size, hash) either way.
    const verdicts = (r: typeof mem) => r.chats.map((c) => c.report.generations.filter((g) => g.role !== 'embedded').map((g) => ({file: g.file, role: g.role, class: g.class, reasons: g.reasons, damage: g.damage, bytes: g.bytes, sha256: g.sha256})))
    assert.deepEqual(verdicts(str), verdicts(mem))
    assert.deepEqual(str.errors, [])
    // A salvage needs the bytes in memory: a torn transcript read whole is restorable from its own salvage, one
    // too large to read whole (here: above the lowered threshold) is not, and its damage is then an error only.
    const restoreOf = (r: typeof mem) => r.chats.map((c) => c.report.transcriptRestore?.from ?? null)
    assert.deepEqual(restoreOf(mem), ['salvage:chat-messages.json', 'salvage:chat-messages.json', 'salvage:chat-messages.json', 'salvage:chat-messages.json', null, 'salvage:chat-messages.json'])
    assert.deepEqual(restoreOf(str), [null, null, null, null, null, null])
    const classes = mem.chats.map((c) => c.report.generations.find((g) => g.role === 'transcript')!.class)
    assert.deepEqual(classes, ['truncated', 'corrupt', 'corrupt', 'corrupt', 'zero-filled', 'truncated'])
    // The streamed path really ran: an intact file above the threshold cannot be measured and says so.
    const intact = tempDir()
    try {
      copyRealChat(REAL_CHATS.tenTurns, intact)
      const r = await scanPaths([intact], {...opts, streamThresholdBytes: 100_000})
      assert.equal(r.errors.length, 1)
      assert.match(r.errors[0].message, /intact JSON of 203337 bytes, too large to parse for measuring/)
    } finally {
      cleanup(intact)
    }
  } finally {
    cleanup(root)
  }
})
