/**
 * The fast check of large JSON files (`classify/fast.ts`) never changes a verdict: on real files and damaged
 * copies (torn at many cuts, inside multi-byte characters and escapes, NUL-filled, NUL tails and runs,
 * invalid UTF-8, a BOM, concatenated documents, empty), streamed in any chunking, the result is exactly the
 * in-memory classifier's (class, reasons, damage, sha256), and the fast check itself decides the cases it is
 * for (intact and cleanly cut files) instead of always handing over to the exact path. The measurable value
 * it builds of a run-state measures as the parsed document does, and a chat diagnosed from it (the value
 * threshold lowered, or the streaming threshold) gets the report the in-memory diagnosis gives.
 */
import assert from 'node:assert/strict'
import {readFileSync, readdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import fc from 'fast-check'
import {fastCheckBytes} from '../src/lib/classify/fast.js'
import {hasLoneSurrogate} from '../src/lib/classify/jsonl.js'
import {classifyJsonBytes} from '../src/lib/classify/index.js'
import {FastFileCheck, classifyJsonFileSync} from '../src/lib/classify/stream.js'
import {codebuff} from '../src/lib/formats/codebuff/index.js'
import {RUN_STATE_VALUE} from '../src/lib/formats/codebuff/large.js'
import {measureRunState} from '../src/lib/formats/codebuff/measure.js'
import {runStateShape} from '../src/lib/formats/codebuff/schema.js'
import {ReadArena, readChatSync} from '../src/lib/pipeline/inventory.js'
import {REAL_CHATS, REALDATA, TEN_TURN_TEMP, cleanup, copyRealChat, cutAt, insertIntoFirstText, invalidByteAt, nulRunAt, nulTailAt, sha256, tempDir, withBom, zeroFill} from './helpers/fixtures.js'

const real = (chat: string, file: string) => readFileSync(path.join(REALDATA, 'codebuff', chat, file))

function inMemory(buf: Uint8Array) {
  const c = classifyJsonBytes(buf)
  return {class: c.class, reasons: c.reasons, damage: c.damage}
}

/** The fast pass alone over `buf` in `chunk`-byte reads: its verdict, or null when it is unsure. */
function fastChunked(buf: Buffer, chunk: number) {
  const fast = new FastFileCheck(chunk)
  while (fast.push(buf.copy(fast.buf, fast.at, fast.position, Math.min(buf.length, fast.position + chunk))));
  const r = fast.result()
  if (!r) return null
  assert.equal(r.sha256, sha256(buf))
  assert.equal(r.bytes, buf.length)
  return {class: r.classification.class, reasons: r.classification.reasons, damage: r.classification.damage}
}

/** Damaged copies of one document, with whether the fast check is meant to decide them itself. */
function variants(doc: Buffer): Array<[string, Buffer, boolean]> {
  const {buf: multi, at} = insertIntoFirstText(doc)
  const n = doc.length
  const out: Array<[string, Buffer, boolean]> = [
    ['intact', doc, true],
    ['multi-byte text', multi, true],
    ['empty', Buffer.alloc(0), false],
    ['whitespace', Buffer.from(' \n\t '), false],
    ['zero-filled', zeroFill(doc), false],
    ['BOM', withBom(doc), false],
    ['nul-run', nulRunAt(doc, Math.floor(n / 2), 16), false],
    ['invalid byte', invalidByteAt(doc, Math.floor(n / 2)), false],
    ['invalid byte in the text', invalidByteAt(multi, at + 3), false],
    ['concatenated', Buffer.concat([doc, Buffer.from('\n'), doc]), false],
    ['trailing garbage', Buffer.concat([doc, Buffer.from(' x')]), false],
    ['syntax error', Buffer.concat([doc.subarray(0, 10), Buffer.from('}'), doc.subarray(11)]), false],
    ['control byte in a string', Buffer.concat([multi.subarray(0, at + 2), Buffer.from([0x01]), multi.subarray(at + 3)]), false],
    ['trailing whitespace', Buffer.concat([doc, Buffer.from(' \n')]), true],
  ]
  for (let k = 1; k < 24; k++) {
    const cut = Math.max(1, Math.floor((n * k) / 24) + k)
    out.push([`cut at ${cut}`, cutAt(doc, cut), true], [`nul tail at ${cut}`, nulTailAt(doc, cut), false])
  }
  // Cuts inside multi-byte characters and escapes.
  for (let k = at; k < at + 40; k++) out.push([`multi-byte cut at ${k}`, cutAt(multi, k), true])
  return out
}

test('the fast check gives the in-memory verdict on damaged real files in any chunking, and decides intact and cut files itself', () => {
  const docs = [real(REAL_CHATS.small, 'run-state.json'), real(REAL_CHATS.tenTurns, 'run-state.json'), real(REAL_CHATS.tenTurns, 'chat-messages.json'), real(REAL_CHATS.small, 'chat-messages.json')]
  let decided = 0
  for (const doc of docs) {
    for (const [label, buf, fastDecides] of variants(doc)) {
      const want = inMemory(buf)
      const whole = fastCheckBytes(buf)
      if (whole.kind === 'unsure') assert.ok(!fastDecides, `${label}: the fast check should decide it`)
      else {
        const got = whole.kind === 'intact' ? {class: 'intact', reasons: [], damage: undefined} : {class: whole.classification.class, reasons: whole.classification.reasons, damage: whole.classification.damage}
        assert.deepEqual(got, want, `${label}, in memory`)
      }
      for (const chunk of [7, 4093, 65_536]) {
        const got = fastChunked(buf, chunk)
        if (got === null) assert.ok(!fastDecides, `${label}, chunks of ${chunk}: the fast check should decide it`)
        else {
          decided++
          assert.deepEqual(got, want, `${label}, chunks of ${chunk}`)
        }
      }
    }
  }
  assert.ok(decided > 300, `the fast check decided only ${decided} cases`)
})

test('the fast check agrees with the in-memory verdict on random cuts and byte edits (property)', () => {
  const doc = insertIntoFirstText(real(REAL_CHATS.tenTurns, 'run-state.json')).buf
  const edit = fc.record({
    cut: fc.integer({min: 0, max: doc.length}),
    edits: fc.array(fc.tuple(fc.integer({min: 0, max: doc.length - 1}), fc.constantFrom(0x00, 0x01, 0xff, 0x22, 0x5c, 0x7d, 0x5d, 0x2c, 0x20, 0x0a, 0xe6, 0x80, 0x31, 0x2d, 0x65, 0x75)), {maxLength: 3}),
    chunk: fc.integer({min: 1, max: 5000}),
  })
  fc.assert(
    fc.property(edit, ({cut, edits, chunk}) => {
      const b = Buffer.from(doc)
      for (const [at, byte] of edits) b[at] = byte
      const buf = b.subarray(0, cut)
      const got = fastChunked(buf, chunk)
      if (got !== null) assert.deepEqual(got, inMemory(buf))
    }),
    {numRuns: 400, seed: 11},
  )
})

test('classifyJsonFileSync: the fast verdict, or the exact one when the fast check is unsure, from disk', () => {
  const root = tempDir()
  try {
    const doc = real(REAL_CHATS.large, 'run-state.json')
    const cases: Array<[string, Buffer]> = [
      ['intact', doc],
      ['truncated', cutAt(doc, 4_000_001)],
      ['nul-run', nulRunAt(doc, 3_000_000, 4096)],
      ['nul tail', nulTailAt(doc, 5_000_000)],
      ['invalid', invalidByteAt(doc, 2_000_000)],
      ['concatenated', Buffer.concat([doc, doc])],
    ]
    for (const [label, buf] of cases) {
      const file = path.join(root, `${label}.json`)
      writeFileSync(file, buf)
      const r = classifyJsonFileSync(file, 64 * 1024)
      assert.equal(r.bytes, buf.length)
      assert.equal(r.sha256, sha256(buf))
      assert.deepEqual({class: r.classification.class, reasons: r.classification.reasons, damage: r.classification.damage}, inMemory(buf), label)
    }
  } finally {
    cleanup(root)
  }
})

/** A run-state whose history holds what the value builder must not lose. */
function trickyRunState(): Buffer {
  const v = JSON.parse(real(REAL_CHATS.tenTurns, 'run-state.json').toString('utf8')) as {sessionState: {mainAgentState: {messageHistory: unknown[]}}}
  const h = v.sessionState.mainAgentState.messageHistory
  const text = JSON.stringify(h.find((m) => (m as {role: string}).role === 'user'))
  // A user message spelled with escapes, one whose role comes last, a lone surrogate in a tool message, a
  // non-object element.
  const escaped = text.replace('"role":"user"', '"r\\u006fle":"\\u0075ser"')
  const roleLast = JSON.stringify({...(JSON.parse(text) as object), role: undefined}).replace(/}$/, ',"role":"user"}')
  const surrogate = '{"role":"tool","content":"x\\ud800y"}'
  const body = JSON.stringify(v).replace('"messageHistory":[', `"messageHistory":[${escaped},${roleLast},${surrogate},7,`)
  return Buffer.from(body.replace('{"sessionState"', '{"__proto__":{"a":1},"sessionState"'))
}

test('the value built while checking measures as the parsed run-state does', () => {
  const docs = [real(REAL_CHATS.small, 'run-state.json'), real(REAL_CHATS.tenTurns, 'run-state.json'), real(REAL_CHATS.tenTurns, 'run-state.json.bak'), real(REAL_CHATS.tenTurns, TEN_TURN_TEMP), real(REAL_CHATS.large, 'run-state.json'), trickyRunState()]
  const turns = null
  for (const doc of docs) {
    const parsed: unknown = JSON.parse(doc.toString('utf8'))
    for (const chunk of [0, 7, 4093]) {
      let value: unknown
      if (chunk === 0) {
        const v = fastCheckBytes(doc, RUN_STATE_VALUE)
        assert.equal(v.kind, 'intact')
        value = v.kind === 'intact' ? v.value : undefined
      } else {
        const fast = new FastFileCheck(chunk, RUN_STATE_VALUE)
        while (fast.push(doc.copy(fast.buf, fast.at, fast.position, Math.min(doc.length, fast.position + chunk))));
        value = fast.result()?.value
      }
      assert.notEqual(value, undefined)
      assert.deepEqual(runStateShape(value), runStateShape(parsed))
      assert.deepEqual(measureRunState(value, turns), measureRunState(parsed, turns))
      // Everything outside the history is the parsed document's.
      const strip = (x: unknown) => JSON.stringify({...(x as object), sessionState: {...(x as {sessionState: object}).sessionState, mainAgentState: {...(x as {sessionState: {mainAgentState: object}}).sessionState.mainAgentState, messageHistory: null}}})
      assert.equal(strip(value), strip(parsed))
    }
  }
  // A key named __proto__ is a member, as JSON.parse makes it.
  const v = fastCheckBytes(trickyRunState(), RUN_STATE_VALUE)
  assert.ok(v.kind === 'intact' && Object.getPrototypeOf(v.value) === Object.prototype && Object.hasOwn(v.value as object, '__proto__'))
})

/** Real chats with each run-state generation damaged one way; the directory of each. */
function damagedChats(root: string): string[] {
  const parent = path.join('.config', 'manicode', 'projects', 'demo-app', 'chats')
  const dirs: string[] = []
  let i = 0
  const add = (chat: string, edit?: (dir: string) => void) => {
    const dir = copyRealChat(chat, root, parent, `2026-03-01T00-${String(Math.floor(i / 60)).padStart(2, '0')}-${String(i % 60).padStart(2, '0')}.000Z`)
    i++
    edit?.(dir)
    dirs.push(dir)
  }
  for (const chat of [REAL_CHATS.small, REAL_CHATS.tenTurns, REAL_CHATS.large]) add(chat)
  const damage = (file: string, f: (b: Buffer) => Buffer) => (dir: string) => writeFileSync(path.join(dir, file), f(readFileSync(path.join(dir, file))))
  const P = 'run-state.json'
  for (const chat of [REAL_CHATS.tenTurns, REAL_CHATS.large]) {
    const n = real(chat, P).length
    for (const frac of [0.05, 0.3, 0.62, 0.97]) add(chat, damage(P, (b) => cutAt(b, Math.floor(n * frac))))
    add(chat, damage(P, (b) => nulTailAt(b, Math.floor(n * 0.5))))
    add(chat, damage(P, zeroFill))
    add(chat, damage(P, (b) => invalidByteAt(b, Math.floor(n * 0.4))))
    add(chat, damage(P, (b) => Buffer.concat([b, b])))
    add(chat, damage(P, () => Buffer.alloc(0)))
    add(chat, damage(P, withBom))
  }
  add(REAL_CHATS.tenTurns, (dir) => writeFileSync(path.join(dir, P), trickyRunState())) // a lone surrogate, escaped roles
  add(REAL_CHATS.tenTurns, damage(`${P}.bak`, (b) => cutAt(b, 9000)))
  add(REAL_CHATS.tenTurns, damage(TEN_TURN_TEMP, (b) => nulRunAt(b, 5000, 64)))
  return dirs
}

test('a chat whose run-states get their value from the fast check (value threshold lowered) gets the in-memory report', () => {
  const root = tempDir()
  let surrogates = 0
  try {
    for (const dir of damagedChats(root)) {
      const unit = {dir, path: dir}
      const mem = codebuff.diagnose(readChatSync(unit, codebuff, {}))
      const snap = readChatSync(unit, codebuff, {valueThresholdBytes: 1})
      const fast = codebuff.diagnose(snap)
      assert.deepEqual(fast, mem, dir)
      if (mem.kind === 'chat' && mem.report.findings.some((f) => f.id === 'lone-surrogate')) surrogates++
      // The fast path really ran for every intact run-state.
      for (const f of snap.files) if (codebuff.streamValue?.(f.name) && classifyJsonBytes(f.data!).class === 'intact') assert.ok(f.large, `${f.name} has no built value`)
    }
    assert.equal(surrogates, 1, 'the lone surrogate is found from the built value too')
  } finally {
    cleanup(root)
  }
})

test('run-states streamed above a lowered streaming threshold get the in-memory verdicts, turns and rankings', () => {
  const root = tempDir()
  try {
    let intactChats = 0
    for (const dir of damagedChats(root)) {
      const unit = {dir, path: dir}
      const memSnap = readChatSync(unit, codebuff, {})
      // Every run-state streamed (in 1 MiB chunks, the value built on the way), the other files read whole.
      const strSnap = readChatSync(unit, codebuff, {streamThresholdBytes: 1, arena: new ReadArena()})
      strSnap.files = strSnap.files.map((f) => (codebuff.streamValue?.(f.name) ? f : memSnap.files.find((m) => m.name === f.name)!))
      for (const f of strSnap.files) if (codebuff.streamValue?.(f.name) && f.bytes > 1) assert.equal(f.data, undefined, 'streamed, not read whole')
      const mem = codebuff.diagnose(memSnap)
      const str = codebuff.diagnose(strSnap)
      assert.ok(mem.kind === 'chat' && str.kind === 'chat')
      const verdicts = (r: typeof mem) => (r.kind === 'chat' ? r.report.generations.filter((g) => g.role !== 'embedded' && !g.file.includes('@')).map((g) => ({file: g.file, class: g.class, reasons: g.reasons, damage: g.damage, bytes: g.bytes, sha256: g.sha256, turns: g.class === 'intact' ? g.turns : null})) : null)
      assert.deepEqual(verdicts(str), verdicts(mem), dir)
      if (mem.report.generations.every((g) => !codebuff.streamValue?.(g.file) || g.class === 'intact')) {
        // No damaged run-state (whose salvage needs its bytes): the same report.
        intactChats++
        assert.deepEqual(str, mem, dir)
      }
    }
    assert.ok(intactChats >= 3)
  } finally {
    cleanup(root)
  }
})

test('every run-state in the real data is decided by the fast check', () => {
  for (const chat of readdirSync(path.join(REALDATA, 'codebuff')).filter((n) => /^\d{4}-/.test(n))) {
    for (const name of readdirSync(path.join(REALDATA, 'codebuff', chat)).filter((n) => codebuff.streamValue?.(n))) {
      assert.equal(fastCheckBytes(real(chat, name), RUN_STATE_VALUE).kind, 'intact', `${chat}/${name}`)
    }
  }
})

test('the lone-surrogate walk takes a history of any length (a large state holds hundreds of thousands of messages)', () => {
  const history: unknown[] = Array.from({length: 500_000}, () => ({role: 'tool'}))
  assert.equal(hasLoneSurrogate({messageHistory: history}), false)
  history.push({role: 'user', content: 'x\ud800'})
  assert.equal(hasLoneSurrogate({messageHistory: history}), true)
})
