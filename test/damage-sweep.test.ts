/**
 * Damage sweeps beyond the plain byte-cut sweep (test/sweep.test.ts), NUL fill and NUL tails,
 * block-aligned cuts (512 and 4096 bytes), a BOM, invalid UTF-8 at both ends, garbage 512-byte sectors,
 * concatenated documents, and property-based mutants (fast-check) over real run-states.
 *
 * The expected verdict of every mutant is derived here from the mutation applied and the classification rules (never
 * from the classifier): a proper prefix is `truncated` (`unexpected-end`, `torn-utf8` when the cut splits a
 * character, `nul-tail` when NULs pad it), a complete document with something after it is `corrupt`
 * (`nul-tail`, `trailing-garbage`, `concatenated`), a BOM is `corrupt` (`bom`), bytes the strict UTF-8
 * decoder rejects are `invalid-utf8`, NULs inside are `nul-run`. And never a false `intact`.
 */
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import fc from 'fast-check'
import {classifyJsonBytes} from '../src/lib/classify/index.js'
import {REALDATA, REAL_CHATS, TEN_TURN_TEMP, insertIntoFirstText, seededRandom} from './helpers/fixtures.js'
import {buildTask, realTurns, taskFiles, taskId} from './helpers/vscode-tasks.js'

const real = (chat: string, file: string) => readFileSync(path.join(REALDATA, 'codebuff', chat, file))

/** The corpus: real run-states (compact and pretty), and copies with multi-byte text and escapes inserted. */
const DOCS: Record<string, Buffer> = {
  'small (pretty)': real(REAL_CHATS.small, 'run-state.json'),
  'ten-turn primary': real(REAL_CHATS.tenTurns, 'run-state.json'),
  'ten-turn backup': real(REAL_CHATS.tenTurns, 'run-state.json.bak'),
  'ten-turn temp': real(REAL_CHATS.tenTurns, TEN_TURN_TEMP),
  'ten-turn primary + multi-byte text': insertIntoFirstText(real(REAL_CHATS.tenTurns, 'run-state.json')).buf,
  'small + multi-byte text': insertIntoFirstText(real(REAL_CHATS.small, 'run-state.json')).buf,
  // An extension's task: its model context and transcript, arrays at the root.
  'Kilo Code task model context': taskFiles(buildTask('kilo', taskId('kilo', 0), realTurns('A')))['api_conversation_history.json'],
  'Cline task transcript': taskFiles(buildTask('cline', taskId('cline', 0), realTurns('A')))['ui_messages.json'],
}
const LARGE = real(REAL_CHATS.large, 'run-state.json')

// ---- the expected verdict, from the mutation and the rules --------------------------------------------

interface Expected {
  class: string
  /** The exact reason set (order ignored) … */
  reasons: string[]
  /** … or, when `atLeast`, reasons that must be among the classifier's. */
  atLeast?: boolean
}

const isWs = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09
/** Where the document's last value byte ends (its trailing JSON whitespace excluded). */
function closeEnd(doc: Buffer): number {
  let n = doc.length
  while (n > 0 && isWs(doc[n - 1])) n--
  return n
}
/** True when cutting before byte `n` splits a multi-byte UTF-8 character (byte n is a continuation byte). */
const splitsChar = (doc: Buffer, n: number) => n > 0 && n < doc.length && (doc[n] & 0xc0) === 0x80
const strictUtf8 = new TextDecoder('utf-8', {fatal: true})
function validUtf8(b: Uint8Array): boolean {
  try {
    strictUtf8.decode(b)
    return true
  } catch {
    return false
  }
}
const blank = (b: Uint8Array) => b.every(isWs)

/** The first `n` bytes of a whole document. */
function expectCut(doc: Buffer, n: number): Expected {
  if (blank(doc.subarray(0, n))) return {class: 'empty', reasons: []}
  if (n >= closeEnd(doc)) return {class: 'intact', reasons: []}
  return {class: 'truncated', reasons: ['unexpected-end', ...(splitsChar(doc, n) ? ['torn-utf8'] : [])]}
}
/** The first `n` bytes, then NULs up to `size` (≥ n). */
function expectNulTail(doc: Buffer, n: number, size: number): Expected {
  if (size === 0) return {class: 'empty', reasons: []}
  if (n === 0) return {class: 'zero-filled', reasons: []}
  if (n >= closeEnd(doc)) return size > n ? {class: 'corrupt', reasons: ['nul-tail']} : expectCut(doc, n)
  return {class: 'truncated', reasons: ['unexpected-end', ...(splitsChar(doc, n) ? ['torn-utf8'] : []), ...(size > n ? ['nul-tail'] : [])]}
}

// ---- the mutations -----------------------------------------------------------------------------------

interface Mutant {
  name: string
  bytes: Buffer
  expect: Expected
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf])
const cut = (doc: Buffer, n: number): Mutant => ({name: `cut@${n}`, bytes: doc.subarray(0, n), expect: expectCut(doc, n)})
const nulTail = (doc: Buffer, n: number, size = doc.length): Mutant => ({
  name: `nul-tail@${n}/${size}`,
  bytes: Buffer.concat([doc.subarray(0, n), Buffer.alloc(size - n)]),
  expect: expectNulTail(doc, n, size),
})
const withBom = (doc: Buffer, n = doc.length): Mutant => {
  const e = expectCut(doc, n)
  // Behind a BOM nothing is a JSON document or a prefix of one (the loader rejects the BOM): corrupt.
  const reasons = e.class === 'intact' ? ['bom'] : ['bom', 'unexpected-end', ...(splitsChar(doc, n) ? ['torn-utf8'] : [])]
  return {name: `bom+cut@${n}`, bytes: Buffer.concat([BOM, doc.subarray(0, n)]), expect: {class: 'corrupt', reasons}}
}
/** A garbage 512-byte sector (seeded random bytes) at sector `s`, size kept; the last sector is left alone. */
function garbageSector(doc: Buffer, s: number, rnd: () => number): Mutant {
  const b = Buffer.from(doc)
  for (let i = s * 512; i < Math.min(b.length, (s + 1) * 512); i++) b[i] = Math.floor(rnd() * 256)
  // Random bytes inside a document: corrupt. What the rules make certain: NULs inside are a nul-run, bytes the
  // strict decoder rejects are invalid-utf8. (Other reasons depend on which bytes came up.)
  const reasons: string[] = []
  if (b.subarray(0, closeEnd(doc)).includes(0)) reasons.push('nul-run')
  if (!validUtf8(b)) reasons.push('invalid-utf8')
  return {name: `garbage-sector@${s}`, bytes: b, expect: {class: 'corrupt', reasons, atLeast: true}}
}

/** Offsets of ASCII letters (inside keys, strings or literals): a byte there replaced by 0xFF is invalid UTF-8 only. */
function letterOffsets(doc: Buffer): number[] {
  const out: number[] = []
  for (let i = 0; i < doc.length; i++) if ((doc[i] >= 0x61 && doc[i] <= 0x7a) || (doc[i] >= 0x41 && doc[i] <= 0x5a)) out.push(i)
  return out
}

// ---- the checker, with counters for docs/reliability.md -----------------------------------------------

const stats = {mutants: 0, falseIntact: 0, covered: new Set<string>()}

function check(m: Mutant, where: string): void {
  const got = classifyJsonBytes(m.bytes)
  stats.mutants++
  stats.covered.add(`${got.class}${got.reasons.length ? ` (${[...got.reasons].sort().join(', ')})` : ''}`)
  const msg = `${where} ${m.name}: got ${got.class} [${got.reasons.join(', ')}], expected ${m.expect.class} [${m.expect.reasons.join(', ')}]`
  if (got.class === 'intact' && m.expect.class !== 'intact') stats.falseIntact++
  assert.equal(got.class, m.expect.class, msg)
  if (m.expect.atLeast) for (const r of m.expect.reasons) assert.ok(got.reasons.includes(r as never), msg)
  else assert.deepEqual([...got.reasons].sort(), [...m.expect.reasons].sort(), msg)
}

// ---- deterministic sweeps ------------------------------------------------------------------------------

for (const [name, doc] of Object.entries(DOCS)) {
  test(`${name} (${doc.length} bytes): NUL fill, NUL tails, block-aligned cuts, BOM, invalid UTF-8 at both ends, garbage sectors, concatenation`, () => {
    check({name: 'zero-filled', bytes: Buffer.alloc(doc.length), expect: {class: 'zero-filled', reasons: []}}, name)
    check({name: 'nul-padded', bytes: Buffer.concat([doc, Buffer.alloc(4096)]), expect: {class: 'corrupt', reasons: ['nul-tail']}}, name)
    // NUL tails: every offset in the first and last KiB, every 7th elsewhere, and the NULs padding to the next
    // 4096-byte block (delayed allocation) as well as to the original size.
    for (let n = 0; n <= doc.length; n += n < 1024 || n > doc.length - 1024 ? 1 : 7) {
      check(nulTail(doc, n), name)
      if (n % 97 === 0) check(nulTail(doc, n, Math.ceil((n + 1) / 4096) * 4096), name)
    }
    // Block-aligned cuts (what a flush of whole blocks leaves), with and without a NUL-filled last block.
    for (const block of [512, 4096]) {
      for (let n = 0; n <= doc.length; n += block) {
        check(cut(doc, n), `${name} ${block}-block`)
        check(nulTail(doc, n, Math.min(doc.length, n + block)), `${name} ${block}-block`)
      }
    }
    // A BOM before the whole document, before a cut, before nothing.
    check(withBom(doc), name)
    for (const n of [0, 1, 512, Math.floor(doc.length / 2), closeEnd(doc) - 1]) check(withBom(doc, n), name)
    // Invalid UTF-8 at the start (outside any string) and at the end (after the document).
    check({name: '0xFF first', bytes: Buffer.concat([Buffer.from([0xff]), doc]), expect: {class: 'corrupt', reasons: ['invalid-utf8']}}, name)
    check({name: '0xFF last', bytes: Buffer.concat([doc, Buffer.from([0xff])]), expect: {class: 'corrupt', reasons: ['invalid-utf8', 'trailing-garbage']}}, name)
    check({name: 'lone continuation byte first', bytes: Buffer.concat([Buffer.from([0x80]), doc]), expect: {class: 'corrupt', reasons: ['invalid-utf8']}}, name)
    check({name: 'overlong "/" last', bytes: Buffer.concat([doc, Buffer.from([0xc0, 0xaf])]), expect: {class: 'corrupt', reasons: ['invalid-utf8', 'trailing-garbage']}}, name)
    check({name: 'surrogate in the first letter', bytes: Buffer.concat([doc.subarray(0, letterOffsets(doc)[0]), Buffer.from([0xed, 0xa0, 0x80]), doc.subarray(letterOffsets(doc)[0] + 1)]), expect: {class: 'corrupt', reasons: ['invalid-utf8']}}, name)
    // Garbage sectors: every 512-byte sector but the last, seeded.
    const rnd = seededRandom(doc.length)
    for (let s = 0; (s + 1) * 512 < closeEnd(doc); s++) check(garbageSector(doc, s, rnd), name)
    // Concatenated documents, and a document followed by a cut copy of itself (no second document: garbage).
    check({name: 'doc+doc', bytes: Buffer.concat([doc, doc]), expect: {class: 'corrupt', reasons: ['concatenated']}}, name)
    check({name: 'doc\\ndoc\\n', bytes: Buffer.concat([doc, Buffer.from('\n'), doc, Buffer.from('\n')]), expect: {class: 'corrupt', reasons: ['concatenated']}}, name)
    check({name: 'doc 42 true', bytes: Buffer.concat([doc, Buffer.from(' 42 true')]), expect: {class: 'corrupt', reasons: ['concatenated']}}, name)
    check({name: 'doc+half a doc', bytes: Buffer.concat([doc, doc.subarray(0, doc.length >> 1)]), expect: {class: 'corrupt', reasons: ['trailing-garbage']}}, name)
    check({name: 'doc+NULs+doc', bytes: Buffer.concat([doc, Buffer.alloc(100), doc]), expect: {class: 'corrupt', reasons: ['nul-run', 'trailing-garbage']}}, name)
  })
}

test(`the ${(LARGE.length / 1e6).toFixed(1)} MB run-state: 24 seeded 4096-aligned cuts (with and without a NUL block), BOM, garbage sectors`, () => {
  const rnd = seededRandom(7)
  const blocks = Math.floor(LARGE.length / 4096)
  for (let i = 0; i < 24; i++) {
    const n = (1 + Math.floor(rnd() * blocks)) * 4096
    check(cut(LARGE, n), 'large')
    check(nulTail(LARGE, n, Math.min(LARGE.length, n + 4096)), 'large')
  }
  check(withBom(LARGE), 'large')
  for (let i = 0; i < 4; i++) check(garbageSector(LARGE, Math.floor(rnd() * (blocks * 8 - 1)), rnd), 'large')
})

// ---- property-based mutants ----------------------------------------------------------------------------

const docNames = Object.keys(DOCS)
/** A mutation, as fast-check builds it: a kind and numbers in [0, 1) scaled to the document. */
const arbMutation = fc.record({
  doc: fc.constantFrom(...docNames),
  kind: fc.constantFrom('cut', 'nul-tail', 'nul-block-tail', 'nul-run', 'letter-0xff', 'bom-cut', 'garbage-sector', 'append-garbage', 'append-doc', 'torn-char'),
  a: fc.double({min: 0, max: 1, maxExcluded: true, noNaN: true}),
  b: fc.double({min: 0, max: 1, maxExcluded: true, noNaN: true}),
  seed: fc.integer({min: 1, max: 2 ** 31 - 1}),
})

function mutate(m: {doc: string; kind: string; a: number; b: number; seed: number}): Mutant {
  const doc = DOCS[m.doc]
  const len = doc.length
  const at = Math.floor(m.a * len)
  switch (m.kind) {
    case 'cut':
      return cut(doc, at)
    case 'nul-tail':
      return nulTail(doc, at)
    case 'nul-block-tail':
      return nulTail(doc, at, Math.min(len, Math.ceil((at + 1) / 4096) * 4096))
    case 'nul-run': {
      // NULs over [s, s + k) strictly inside the document's value bytes.
      const end = closeEnd(doc)
      const s = Math.floor(m.a * (end - 2))
      const k = 1 + Math.floor(m.b * Math.min(600, end - 1 - s))
      const b = Buffer.from(doc)
      b.fill(0, s, s + k)
      return {name: `nul-run@${s}+${k}`, bytes: b, expect: {class: 'corrupt', reasons: ['nul-run', ...(validUtf8(b) ? [] : ['invalid-utf8'])]}}
    }
    case 'letter-0xff': {
      const letters = letterOffsets(doc)
      const i = letters[Math.floor(m.a * letters.length)]
      const b = Buffer.from(doc)
      b[i] = 0xff
      return {name: `0xFF@${i}`, bytes: b, expect: {class: 'corrupt', reasons: ['invalid-utf8']}}
    }
    case 'bom-cut':
      return withBom(doc, at)
    case 'garbage-sector': {
      const sectors = Math.max(1, Math.floor((closeEnd(doc) - 1) / 512))
      return garbageSector(doc, Math.floor(m.a * sectors), seededRandom(m.seed))
    }
    case 'append-garbage': {
      // Printable ASCII that starts no JSON value (a letter other than t/f/n), then anything printable.
      const junk = 'xyzXYZ#%&'[Math.floor(m.a * 9)] + String(m.seed).repeat(1 + Math.floor(m.b * 5))
      return {name: `+garbage`, bytes: Buffer.concat([doc, Buffer.from(junk)]), expect: {class: 'corrupt', reasons: ['trailing-garbage']}}
    }
    case 'append-doc': {
      const other = DOCS[docNames[Math.floor(m.a * docNames.length)]]
      const sep = [' ', '\n', '\r\n', ''][Math.floor(m.b * 4)]
      return {name: `+doc`, bytes: Buffer.concat([doc, Buffer.from(sep), other]), expect: {class: 'corrupt', reasons: ['concatenated']}}
    }
    case 'torn-char': {
      // Multi-byte text inserted into the first message text, then the file cut inside one of its characters.
      const {buf, at: ins} = insertIntoFirstText(doc, `é—日本🎉${String(m.seed)}€`)
      const inner: number[] = []
      for (let i = ins; i < ins + 24; i++) if ((buf[i] & 0xc0) === 0x80) inner.push(i)
      return cut(buf, inner[Math.floor(m.a * inner.length)])
    }
  }
  throw new Error(`unknown mutation ${m.kind}`)
}

const PROPERTY_RUNS = 4000

test(`property: ${PROPERTY_RUNS} fast-check mutants of real run-states get the verdict their mutation implies, never a false intact`, () => {
  fc.assert(
    fc.property(arbMutation, (m) => {
      check(mutate(m), `${m.doc}/${m.kind}`)
    }),
    {numRuns: PROPERTY_RUNS, seed: 20260830},
  )
})

test('damage sweep totals', (t) => {
  t.diagnostic(`mutants tried: ${stats.mutants}; false intact: ${stats.falseIntact}; verdicts covered: ${stats.covered.size}`)
  t.diagnostic(`verdicts: ${[...stats.covered].sort().join('; ')}`)
  assert.equal(stats.falseIntact, 0)
  for (const c of ['empty', 'zero-filled', 'truncated', 'corrupt', 'intact']) assert.ok([...stats.covered].some((v) => v.startsWith(c)), `class ${c} produced`)
  for (const r of ['bom', 'invalid-utf8', 'torn-utf8', 'nul-tail', 'nul-run', 'unexpected-end', 'trailing-garbage', 'concatenated']) {
    assert.ok([...stats.covered].some((v) => v.includes(r)), `reason ${r} produced`)
  }
})
