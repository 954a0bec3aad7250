/**
 * The byte-cut sweep of real Codebuff files cut at EVERY byte offset (files up to ~64 KB; a seeded
 * sample of offsets for larger ones), compact and pretty, plus copies with multi-byte text and escapes
 * inserted. No proper prefix other than the whole document minus trailing whitespace is ever `intact`, and
 * every cut gets exactly the verdict the rules give:
 * - 0 bytes (or whitespace only): `empty`;
 * - the whole document minus trailing whitespace: `intact`;
 * - otherwise `truncated` (`unexpected-end`, plus `torn-utf8` when the cut falls inside a character), damaged
 *   from the cut (from the first byte of the cut character when torn) to the end.
 * NUL-tail variants (written up to the cut, NULs to the original size) at sampled offsets get `nul-tail` too;
 * written up to or past the document's end, they are `corrupt` (`nul-tail`).
 */
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'
import {isBlank} from '../src/lib/classify/bytes.js'
import {classifyJsonBytes} from '../src/lib/classify/index.js'
import {REALDATA, REAL_CHATS, TEN_TURN_TEMP, insertIntoFirstText, nulTailAt, seededRandom} from './helpers/fixtures.js'
import {buildTask, realTurns, taskId, taskFiles} from './helpers/vscode-tasks.js'

/** Files cut at every offset up to this size; larger ones are sampled. */
const FULL_SWEEP_MAX = 64 * 1024

const real = (chat: string, file: string) => readFileSync(path.join(REALDATA, 'codebuff', chat, file))


/** `count` distinct offsets in [1, len), seeded, plus the ends, sorted. */
function sampleOffsets(len: number, count: number, seed: number): number[] {
  const r = seededRandom(seed)
  const set = new Set<number>([1, 2, len - 2, len - 1].filter((k) => k > 0 && k < len))
  while (set.size < Math.min(count, len - 1)) set.add(1 + Math.floor(r() * (len - 1)))
  return [...set].sort((a, b) => a - b)
}

/** Length of the document without its trailing JSON whitespace. */
function trimmedLength(buf: Buffer): number {
  let n = buf.length
  while (n > 0 && (buf[n - 1] === 0x20 || buf[n - 1] === 0x0a || buf[n - 1] === 0x0d || buf[n - 1] === 0x09)) n--
  return n
}

/** Start of the character that byte `k` falls inside (k itself when `k` starts a character). */
function charStart(buf: Buffer, k: number): number {
  let s = k
  while (s > 0 && (buf[s] & 0xc0) === 0x80) s--
  return s
}

type Verdict = {class: string; reasons: string[]; damage?: {offset: number; length: number}}

/** What the rules say of the first `k` bytes of `doc`. */
function expectedCut(doc: Buffer, k: number): Verdict {
  const cut = doc.subarray(0, k)
  if (isBlank(cut)) return {class: 'empty', reasons: []}
  if (k >= trimmedLength(doc)) return {class: 'intact', reasons: []}
  const torn = k < doc.length && (doc[k] & 0xc0) === 0x80
  const at = torn ? charStart(doc, k) : k
  return {class: 'truncated', reasons: torn ? ['unexpected-end', 'torn-utf8'] : ['unexpected-end'], damage: {offset: at, length: k - at}}
}

/** What the rules say of `doc` written up to byte `k` and NUL to its size. */
function expectedNulTail(doc: Buffer, k: number): Verdict {
  const len = doc.length
  if (k === 0) return {class: 'zero-filled', reasons: [], damage: {offset: 0, length: len}}
  const written = doc.subarray(0, k)
  if (isBlank(written)) return {class: 'truncated', reasons: ['unexpected-end', 'nul-tail'], damage: {offset: k, length: len - k}}
  if (k >= trimmedLength(doc)) return {class: 'corrupt', reasons: ['nul-tail'], damage: {offset: k, length: len - k}}
  const torn = (doc[k] & 0xc0) === 0x80
  const at = torn ? charStart(doc, k) : k
  return {class: 'truncated', reasons: torn ? ['unexpected-end', 'torn-utf8', 'nul-tail'] : ['unexpected-end', 'nul-tail'], damage: {offset: at, length: len - at}}
}

function verdictOf(buf: Uint8Array): Verdict {
  const {value: _v, ...rest} = classifyJsonBytes(buf)
  return rest
}

/**
 * Cuts `doc` at each offset and compares with the rules. Collects mismatches (at most a few reported) so one
 * failure does not hide the pattern. Returns how many cuts were checked.
 */
function sweep(doc: Buffer, offsets: Iterable<number>, expect: (doc: Buffer, k: number) => Verdict, damage: (doc: Buffer, k: number) => Buffer): number {
  const bad: string[] = []
  let n = 0
  let intactPrefixes = 0
  const whole = trimmedLength(doc)
  for (const k of offsets) {
    n++
    const got = verdictOf(damage(doc, k))
    if (got.class === 'intact' && k < whole) intactPrefixes++
    const want = expect(doc, k)
    if (JSON.stringify(got) !== JSON.stringify(want) && bad.length < 5) bad.push(`at ${k}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`)
  }
  assert.equal(intactPrefixes, 0, 'a proper prefix was classified intact')
  assert.deepEqual(bad, [])
  return n
}

const cut = (doc: Buffer, k: number) => doc.subarray(0, k)

/** The documents of the sweep: real files as they are, re-serialized the other way, and with text inserted. */
function corpus(): Array<{name: string; buf: Buffer}> {
  const out: Array<{name: string; buf: Buffer}> = []
  const add = (name: string, buf: Buffer) => out.push({name, buf})
  const small = real(REAL_CHATS.small, 'run-state.json')
  const ten = real(REAL_CHATS.tenTurns, 'run-state.json')
  add('small run-state.json (pretty)', small)
  add('small chat-messages.json (pretty)', real(REAL_CHATS.small, 'chat-messages.json'))
  add('10-turn run-state.json (compact)', ten)
  add('10-turn run-state.json.bak (compact)', real(REAL_CHATS.tenTurns, 'run-state.json.bak'))
  add('10-turn leftover temp (compact)', real(REAL_CHATS.tenTurns, TEN_TURN_TEMP))
  add('10-turn chat-meta.json', real(REAL_CHATS.tenTurns, 'chat-meta.json'))
  add('small run-state.json re-serialized compact', Buffer.from(JSON.stringify(JSON.parse(small.toString('utf8')))))
  add('small run-state.json pretty with a trailing newline', Buffer.concat([small, Buffer.from('\n')]))
  add('small run-state.json + multi-byte text and escapes (pretty)', insertIntoFirstText(small).buf)
  add('10-turn run-state.json + multi-byte text and escapes (compact)', insertIntoFirstText(ten).buf)
  add(
    'small run-state.json + dense multi-byte text (pretty)',
    insertIntoFirstText(small, 'ÿ€𝄞'.repeat(200) + '\\u00e9\\ud83d\\ude00\\ud800\\"\\\\\\/\\b\\f\\n\\r\\t').buf,
  )
  // The extensions' task files (built from the real Cline CLI conversation, serialized as the extensions do).
  for (const v of ['roo', 'cline'] as const) {
    const files = taskFiles(buildTask(v, taskId(v, 0), realTurns('A')))
    for (const name of ['api_conversation_history.json', 'ui_messages.json', 'task_metadata.json']) add(`${v} task ${name}`, files[name])
  }
  return out
}

describe('byte-cut sweep over real run-states', () => {
  for (const {name, buf} of corpus()) {
    test(`${name} (${buf.length} bytes): every offset`, () => {
      assert.ok(buf.length <= FULL_SWEEP_MAX, 'a full sweep is for files up to ~64 KB')
      assert.equal(verdictOf(buf).class, 'intact', 'the uncut document is intact')
      const offsets = Array.from({length: buf.length}, (_, k) => k)
      assert.equal(sweep(buf, offsets, expectedCut, cut), buf.length)
    })
  }

  test('every document of the corpus has multi-byte characters where it should (the torn cuts are exercised)', () => {
    const multi = corpus().filter((d) => d.buf.some((b) => b >= 0x80))
    assert.equal(multi.length, 3)
  })

  for (const {name, buf} of corpus()) {
    test(`${name}: NUL tail at sampled offsets`, () => {
      sweep(buf, [0, ...sampleOffsets(buf.length, 400, buf.length)], expectedNulTail, nulTailAt)
    })
  }
})

describe('seeded sample of offsets for the large files', () => {
  const large = real(REAL_CHATS.large, 'run-state.json')
  const transcript = real(REAL_CHATS.tenTurns, 'chat-messages.json')

  test(`the ${(large.length / 1e6).toFixed(1)} MB run-state: 40 seeded offsets plus the ends, cut and NUL-tailed`, () => {
    assert.ok(large.length > FULL_SWEEP_MAX)
    const offsets = sampleOffsets(large.length, 40, 1)
    sweep(large, offsets, expectedCut, cut)
    sweep(large, offsets.slice(0, 12), expectedNulTail, nulTailAt)
  })

  test(`the 10-turn transcript (${transcript.length} bytes): 300 seeded offsets`, () => {
    assert.ok(transcript.length > FULL_SWEEP_MAX)
    sweep(transcript, sampleOffsets(transcript.length, 300, 2), expectedCut, cut)
  })

  test('the large run-state with multi-byte text inserted: cut inside each inserted character', () => {
    const {buf, at} = insertIntoFirstText(large)
    const offsets: number[] = []
    for (let k = at; k < at + 40; k++) offsets.push(k)
    sweep(buf, offsets, expectedCut, cut)
  })
})
