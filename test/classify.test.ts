/**
 * The classifier as a spec (): every class and every reason code, each with its exact
 * class, reasons and damage offset, on real Codebuff files damaged here, plus `JSON.parse` as an oracle for
 * the syntax scanner (it must accept exactly what `JSON.parse` accepts).
 */
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'
import fc from 'fast-check'
import {checkUtf8} from '../src/lib/classify/bytes.js'
import {classifyJsonBytes} from '../src/lib/classify/index.js'
import {scanValue, skipWhitespace} from '../src/lib/classify/json.js'
import {diagnoseChat} from '../src/lib/formats/codebuff/index.js'
import {INTERRUPTION_MESSAGE, PLACEHOLDER_MESSAGE, runStateShape} from '../src/lib/formats/codebuff/schema.js'
import type {Classification, Generation} from '../src/lib/model/report.js'
import {REALDATA, REAL_CHATS, TEN_TURN_TEMP, cutAt, insertIntoFirstText, invalidByteAt, nulPadded, nulRunAt, nulTailAt, withBom, zeroFill} from './helpers/fixtures.js'
import {snapshotOf} from './helpers/snapshot.js'

const real = (chat: string, file: string) => readFileSync(path.join(REALDATA, 'codebuff', chat, file))
/** Pretty (2-space) real run-state, 1 turn. */
const SMALL = real(REAL_CHATS.small, 'run-state.json')
/** Compact real run-state, 10 turns. */
const TEN = real(REAL_CHATS.tenTurns, 'run-state.json')
const TEN_TRANSCRIPT = real(REAL_CHATS.tenTurns, 'chat-messages.json')
const TEN_META = real(REAL_CHATS.tenTurns, 'chat-meta.json')
const TEN_BAK = real(REAL_CHATS.tenTurns, 'run-state.json.bak')
const TEN_TEMP = real(REAL_CHATS.tenTurns, TEN_TURN_TEMP)

/** The verdict without the parsed value, for exact comparison. */
function verdict(buf: Uint8Array): Omit<Classification, 'value'> {
  const {value: _value, ...rest} = classifyJsonBytes(buf)
  return rest
}

/** Expected verdict; damage runs from `offset` to the end of the file. */
function expected(cls: Classification['class'], reasons: Classification['reasons'], buf: Uint8Array, offset?: number): Omit<Classification, 'value'> {
  return offset === undefined ? {class: cls, reasons} : {class: cls, reasons, damage: {offset, length: buf.length - offset}}
}

function check(buf: Buffer, cls: Classification['class'], reasons: Classification['reasons'], offset?: number): void {
  assert.deepEqual(verdict(buf), expected(cls, reasons, buf, offset))
}

/** Byte offset of the first occurrence of `needle` (must exist). */
function offsetOf(buf: Buffer, needle: string, from = 0): number {
  const at = buf.indexOf(needle, from)
  assert.ok(at >= 0, `${needle} not found`)
  return at
}

describe('empty and zero-filled', () => {
  test('0 bytes is empty, with no damage offset', () => check(Buffer.alloc(0), 'empty', []))
  test('whitespace only (space, tab, CR, LF) is empty', () => check(Buffer.from(' \t\r\n  \n'), 'empty', []))
  test('a non-JSON whitespace (form feed, NBSP) is not empty but a syntax error at byte 0', () => {
    check(Buffer.from('\f'), 'corrupt', ['syntax-error'], 0)
    check(Buffer.from('\u00a0', 'utf8'), 'corrupt', ['syntax-error'], 0)
  })
  test('a real run-state zero-filled at its own size is zero-filled, damaged from byte 0', () => {
    const z = zeroFill(TEN)
    check(z, 'zero-filled', [], 0)
    check(Buffer.alloc(1), 'zero-filled', [], 0)
  })
  test('whitespace then NULs is a document never written: truncated, damage at the first NUL', () => {
    const b = Buffer.from('  \n\0\0\0')
    check(b, 'truncated', ['unexpected-end', 'nul-tail'], 3)
  })
})

describe('truncated', () => {
  test('a real compact run-state cut at assorted offsets: unexpected-end, damage at the cut (length 0)', () => {
    for (const n of [1, 2, 15, 16, 17, 100, 4096, TEN.length >> 1, TEN.length - 2, TEN.length - 1]) {
      check(cutAt(TEN, n), 'truncated', ['unexpected-end'], n)
    }
  })
  test('a real pretty run-state cut inside whitespace, a key, a string, a number, a literal', () => {
    const inKey = offsetOf(SMALL, '"messageHistory"') + 5
    const inLiteral = offsetOf(SMALL, 'null') + 2
    const inIndent = offsetOf(SMALL, '\n    "mainAgentState"') + 3
    for (const n of [inKey, inLiteral, inIndent]) check(cutAt(SMALL, n), 'truncated', ['unexpected-end'], n)
  })
  test('a number cut inside a container is a prefix (`[12` could go on), a literal cut likewise', () => {
    check(Buffer.from('{"a":12'), 'truncated', ['unexpected-end'], 7)
    check(Buffer.from('[1.'), 'truncated', ['unexpected-end'], 3)
    check(Buffer.from('[1e+'), 'truncated', ['unexpected-end'], 4)
    check(Buffer.from('[-'), 'truncated', ['unexpected-end'], 2)
    check(Buffer.from('[tr'), 'truncated', ['unexpected-end'], 3)
    check(Buffer.from('["\\u00'), 'truncated', ['unexpected-end'], 6)
    check(Buffer.from('["\\'), 'truncated', ['unexpected-end'], 3)
  })

  describe('torn-utf8: cut inside a multi-byte character', () => {
    // The default insertion holds é (2 bytes), — and 日本語 (3 bytes each) and 🎉 (4 bytes).
    for (const [name, base] of [
      ['compact', TEN],
      ['pretty', SMALL],
    ] as const) {
      const {buf, at} = insertIntoFirstText(base)
      for (const [ch, size] of [
        ['é', 2],
        ['—', 3],
        ['日', 3],
        ['🎉', 4],
      ] as const) {
        test(`${name}: inside ${ch} (${size} bytes) at every inner offset`, () => {
          const start = offsetOf(buf, ch, at)
          assert.equal(Buffer.byteLength(ch), size)
          for (let k = 1; k < size; k++) {
            const cut = cutAt(buf, start + k)
            // Damage starts at the first byte of the cut character.
            check(cut, 'truncated', ['unexpected-end', 'torn-utf8'], start)
          }
          // Cut just before and just after the character: a plain tear.
          check(cutAt(buf, start), 'truncated', ['unexpected-end'], start)
          check(cutAt(buf, start + size), 'truncated', ['unexpected-end'], start + size)
        })
      }
    }
    test('a torn character then NUL padding: torn-utf8 and nul-tail, damage from the character', () => {
      const {buf, at} = insertIntoFirstText(TEN)
      const start = offsetOf(buf, '🎉', at)
      check(nulTailAt(buf, start + 3), 'truncated', ['unexpected-end', 'torn-utf8', 'nul-tail'], start)
    })
    test('a cut character where no string is open is no prefix of any JSON: corrupt, syntax-error', () => {
      // `{"a":` then the first byte of 日: a character can only appear inside a string.
      const b = Buffer.concat([Buffer.from('{"a":'), Buffer.from('日').subarray(0, 1)])
      check(b, 'corrupt', ['syntax-error'], 5)
      // After a complete document the bytes of a cut character are trailing garbage.
      const c = Buffer.concat([Buffer.from('{"a":1}'), Buffer.from('日').subarray(0, 2)])
      check(c, 'corrupt', ['trailing-garbage'], 7)
    })
  })

  describe('nul-tail: the rest of the file is NUL (delayed allocation)', () => {
    test('a real run-state written up to byte n, NULs to its size', () => {
      for (const n of [1, 40, TEN.length >> 1, TEN.length - 1]) check(nulTailAt(TEN, n), 'truncated', ['unexpected-end', 'nul-tail'], n)
    })
    test('nulTailAt at 0 leaves only NULs: zero-filled', () => check(nulTailAt(TEN, 0), 'zero-filled', [], 0))
  })
})

describe('corrupt', () => {
  test('bom: a complete real document behind a UTF-8 BOM; damage from byte 0', () => {
    check(withBom(TEN), 'corrupt', ['bom'], 0)
    check(withBom(SMALL), 'corrupt', ['bom'], 0)
  })
  test('bom before a truncated document or before nothing: bom and unexpected-end, damage from byte 0', () => {
    check(withBom(cutAt(TEN, 500)), 'corrupt', ['bom', 'unexpected-end'], 0)
    check(withBom(Buffer.alloc(0)), 'corrupt', ['bom', 'unexpected-end'], 0)
  })
  test('invalid-utf8 at the start (outside any string): damage at byte 0', () => {
    check(invalidByteAt(TEN, 0), 'corrupt', ['invalid-utf8'], 0)
  })
  test('invalid-utf8 in the middle, inside a string (only the fatal decoder sees it)', () => {
    const at = offsetOf(TEN, '"text":"') + 12
    check(invalidByteAt(TEN, at), 'corrupt', ['invalid-utf8'], at)
    // A lone continuation byte and an overlong encoding, both inside strings.
    const {buf, at: ins} = insertIntoFirstText(TEN, 'ab')
    const cont = Buffer.from(buf)
    cont[ins] = 0x80
    check(cont, 'corrupt', ['invalid-utf8'], ins)
    const overlong = Buffer.concat([buf.subarray(0, ins), Buffer.from([0xc0, 0xaf]), buf.subarray(ins)])
    check(overlong, 'corrupt', ['invalid-utf8'], ins)
    // UTF-8-encoded surrogate (ED A0 80) is invalid UTF-8, though an escaped lone surrogate is valid JSON.
    const surrogate = Buffer.concat([buf.subarray(0, ins), Buffer.from([0xed, 0xa0, 0x80]), buf.subarray(ins)])
    check(surrogate, 'corrupt', ['invalid-utf8'], ins)
  })
  test('invalid-utf8 at the end: after the document it is also trailing garbage', () => {
    const b = Buffer.concat([TEN, Buffer.from([0xff])])
    check(b, 'corrupt', ['invalid-utf8', 'trailing-garbage'], TEN.length)
    // The last byte of the document replaced.
    check(invalidByteAt(TEN, TEN.length - 1), 'corrupt', ['invalid-utf8'], TEN.length - 1)
  })
  test('invalid-utf8 plus a separate syntax error: both reasons, damage at the first', () => {
    const b = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('" x}')])
    check(b, 'corrupt', ['invalid-utf8', 'syntax-error'], 6)
  })
  test('invalid-utf8 in a truncated document: corrupt (invalid-utf8, unexpected-end)', () => {
    const at = offsetOf(TEN, '"text":"') + 12
    check(cutAt(invalidByteAt(TEN, at), at + 100), 'corrupt', ['invalid-utf8', 'unexpected-end'], at)
  })
  test('nul-tail after a complete document: corrupt, damage at the first NUL', () => {
    check(nulPadded(TEN, 4096), 'corrupt', ['nul-tail'], TEN.length)
    const ws = Buffer.concat([TEN, Buffer.from('\n')])
    check(nulPadded(ws, 10), 'corrupt', ['nul-tail'], ws.length)
  })
  test('trailing-garbage: bytes after the document that are no document', () => {
    const b = Buffer.concat([TEN, Buffer.from('\n}}')])
    check(b, 'corrupt', ['trailing-garbage'], TEN.length + 1)
    // Another document cut short is garbage, not a concatenation.
    const c = Buffer.concat([TEN, cutAt(TEN_BAK, 300)])
    check(c, 'corrupt', ['trailing-garbage'], TEN.length)
  })
  test('concatenated: a second (and third) whole document after the first', () => {
    check(Buffer.concat([TEN, TEN_BAK]), 'corrupt', ['concatenated'], TEN.length)
    check(Buffer.concat([SMALL, Buffer.from('\n'), SMALL, Buffer.from(' '), Buffer.from('[]'), Buffer.from('\n')]), 'corrupt', ['concatenated'], SMALL.length + 1)
  })
  test('nul-run: NULs inside the document (between tokens, inside a string), damage at the run', () => {
    const between = offsetOf(TEN, ',"subagents"')
    check(nulRunAt(TEN, between, 8), 'corrupt', ['nul-run'], between)
    const inString = offsetOf(TEN, '"text":"') + 10
    check(nulRunAt(TEN, inString, 4096), 'corrupt', ['nul-run'], inString)
  })
  test('nul-run and nul-tail together: the interior run decides (corrupt, nul-run)', () => {
    const at = 1000
    const b = nulTailAt(nulRunAt(TEN, at, 16), TEN.length - 100)
    check(b, 'corrupt', ['nul-run'], at)
  })
  test('syntax-error: a byte no JSON can continue with, damage at that byte', () => {
    const colon = offsetOf(TEN, '"agentId":') + '"agentId"'.length
    const b = Buffer.from(TEN)
    b[colon] = 0x3b // ;
    check(b, 'corrupt', ['syntax-error'], colon)
    check(Buffer.from("{'a':1}"), 'corrupt', ['syntax-error'], 1)
    check(Buffer.from('{"a":1,}'), 'corrupt', ['syntax-error'], 7)
    check(Buffer.from('[1,]'), 'corrupt', ['syntax-error'], 3)
    check(Buffer.from('{"a":"x\ty"}'), 'corrupt', ['syntax-error'], 7)
    check(Buffer.from('[01]'), 'corrupt', ['syntax-error'], 2)
  })
})

/** Classifies one file of a synthetic chat dir through the Codebuff adapter (bytes, then shape). */
function classifyAs(name: string, data: Buffer | null, others: Record<string, Buffer> = {}): Generation {
  const d = diagnoseChat(snapshotOf({...others, [name]: data}))
  assert.equal(d.kind, 'chat')
  const g = d.kind === 'chat' ? d.report.generations.find((x) => x.file === name) : undefined
  assert.ok(g)
  return g
}

const shape = (g: Generation) => ({class: g.class, reasons: g.reasons, damage: g.damage})

describe('shape: contextless, wrong-shape, unreadable (Codebuff adapter)', () => {
  // codebuff-format.md §6.7 and §6.8, byte for byte.
  const PLACEHOLDER = Buffer.from('{"output":{"type":"error","message":"Previous run state could not be restored."},"traceSessionId":"e41c7a90-55d2-4b8e-b3f1-0c9d8e7f6a5b"}')
  const FRESH = Buffer.from('{"traceSessionId":"5b8f1d2e-7c44-4e0a-9a61-2f3d8c0b9e17","output":{"type":"error","message":"The session ended before this response completed. Partial progress has been preserved."}}')

  test('the constants are the format doc strings', () => {
    assert.equal(PLACEHOLDER_MESSAGE, 'Previous run state could not be restored.')
    assert.equal(INTERRUPTION_MESSAGE, 'The session ended before this response completed. Partial progress has been preserved.')
  })
  test('§6.7 amnesia placeholder: contextless (no-session-state, placeholder)', () => {
    assert.deepEqual(shape(classifyAs('run-state.json', PLACEHOLDER)), {class: 'contextless', reasons: ['no-session-state', 'placeholder'], damage: undefined})
  })
  test('§6.8 fresh-chat pre-run save: contextless (no-session-state, fresh-chat)', () => {
    assert.deepEqual(shape(classifyAs('run-state.json', FRESH)), {class: 'contextless', reasons: ['no-session-state', 'fresh-chat'], damage: undefined})
  })
  test('the stand-ins are recognised in any key order and as .bak or temp too', () => {
    const reordered = Buffer.from(JSON.stringify({traceSessionId: 'x', output: {message: PLACEHOLDER_MESSAGE, type: 'error'}}))
    assert.deepEqual(classifyAs('run-state.json.bak', reordered).reasons, ['no-session-state', 'placeholder'])
    assert.deepEqual(classifyAs('run-state.json.77.tmp', FRESH).reasons, ['no-session-state', 'fresh-chat'])
  })
  test('an interruption output WITH a sessionState but no messageHistory is no fresh-chat stand-in', () => {
    const b = Buffer.from(JSON.stringify({sessionState: {mainAgentState: {}}, output: {type: 'error', message: INTERRUPTION_MESSAGE}}))
    assert.deepEqual(shape(classifyAs('run-state.json', b)), {class: 'contextless', reasons: ['no-session-state'], damage: undefined})
  })
  test('other messages or output types are plain no-session-state', () => {
    for (const v of [{}, {output: {type: 'error', message: 'x'}}, {output: {type: 'lastMessage', message: PLACEHOLDER_MESSAGE}}, {sessionState: {mainAgentState: {messageHistory: {}}}}]) {
      assert.deepEqual(runStateShape(v), {class: 'contextless', reasons: ['no-session-state']})
    }
  })
  test('a run-state that is not an object: contextless (no-session-state, wrong-shape)', () => {
    for (const text of ['null', '[]', '42', '"run state"', 'true']) {
      assert.deepEqual(shape(classifyAs('run-state.json', Buffer.from(text))), {class: 'contextless', reasons: ['no-session-state', 'wrong-shape'], damage: undefined}, text)
    }
  })
  test('intact: any object with sessionState.mainAgentState.messageHistory an array, whatever else it holds', () => {
    assert.deepEqual(shape(classifyAs('run-state.json', TEN)), {class: 'intact', reasons: [], damage: undefined})
    const odd = Buffer.from(JSON.stringify({sessionState: {mainAgentState: {messageHistory: []}}, traceSessionId: 42, output: null}))
    assert.deepEqual(shape(classifyAs('run-state.json', odd)), {class: 'intact', reasons: [], damage: undefined})
  })
  test('transcript: intact when an array, corrupt (wrong-shape) otherwise', () => {
    assert.deepEqual(shape(classifyAs('chat-messages.json', TEN_TRANSCRIPT, {'run-state.json': TEN})), {class: 'intact', reasons: [], damage: undefined})
    assert.deepEqual(shape(classifyAs('chat-messages.json', Buffer.from('{"messages":[]}'), {'run-state.json': TEN})), {class: 'corrupt', reasons: ['wrong-shape'], damage: undefined})
    assert.deepEqual(shape(classifyAs('chat-messages.json.123.tmp', Buffer.from('null'), {'run-state.json': TEN})), {class: 'corrupt', reasons: ['wrong-shape'], damage: undefined})
  })
  test('meta: intact when it has the four fields, corrupt (wrong-shape) otherwise', () => {
    assert.deepEqual(shape(classifyAs('chat-meta.json', TEN_META, {'run-state.json': TEN})), {class: 'intact', reasons: [], damage: undefined})
    assert.deepEqual(shape(classifyAs('chat-meta.json', Buffer.from('{"messageCount":"21"}'), {'run-state.json': TEN})), {class: 'corrupt', reasons: ['wrong-shape'], damage: undefined})
  })
  test('a file that could not be read: corrupt (unreadable)', () => {
    assert.deepEqual(shape(classifyAs('run-state.json', null)), {class: 'corrupt', reasons: ['unreadable'], damage: undefined})
  })
  test('byte damage wins over shape: a torn temp is truncated, not contextless', () => {
    assert.deepEqual(shape(classifyAs(TEN_TURN_TEMP, cutAt(TEN_TEMP, 77), {'run-state.json': TEN})), {class: 'truncated', reasons: ['unexpected-end'], damage: {offset: 77, length: 0}})
  })
})

describe('intact, and JSON.parse as the oracle', () => {
  test('real files are intact; a trailing newline is fine', () => {
    for (const b of [TEN, SMALL, TEN_BAK, TEN_TEMP, TEN_TRANSCRIPT, TEN_META, Buffer.concat([TEN, Buffer.from('\n')])]) check(b, 'intact', [])
  })

  const strictParse = (buf: Uint8Array): boolean => {
    try {
      JSON.parse(new TextDecoder('utf-8', {fatal: true, ignoreBOM: true}).decode(buf))
      return true
    } catch {
      return false
    }
  }
  /** The slow path alone: the scanner finds one complete value followed only by whitespace. */
  const scannerAccepts = (buf: Uint8Array): boolean => {
    const r = scanValue(buf)
    return r.kind === 'complete' && skipWhitespace(buf, r.end) === buf.length
  }

  const EDGE = [
    // numbers
    '0', '-0', '1', '-1', '10', '1.5', '-1.5e10', '1E+2', '1e-2', '0.0', '1e400', '-', '+1', '01', '-01', '1.', '.5', '1e', '1e+', '0x10', 'Infinity', 'NaN', '1_0', '[1,2.0,-3e3]', '[-]', '[1.e1]',
    // literals
    'true', 'false', 'null', 'tru', 'nul', 'True', 'nulll', '[true,false,null]',
    // strings and escapes
    '""', '"a"', '"\\""', '"\\\\"', '"\\/"', '"\\b\\f\\n\\r\\t"', '"\\u00e9"', '"\\uD83D\\uDE00"', '"\\ud800"', '"\\udc00\\ud800"', '"\\x41"', "\"\\'\"", '"\\u12"', '"\\u12G4"', '"\\U0041"', '"a\tb"', '"a\nb"', '"\u007f"', '"\u2028"', '"é日🎉"', '"\\',
    // structure
    '{}', '[]', '{"a":1}', '{"a":1,}', '{,}', '[,]', '[1,]', '{"a"}', '{"a":}', '{1:2}', '{"a" : [ {} , [ ] ] }', '[[[]]]', ' \n{}\t\r\n', '{}{}', '{} {}', '[] x', '{"a":1}}', ']', '}', ':', '',
    // whitespace outside JSON's four
    '\u00a0{}', '{}\u00a0', '\f1', '{}\v',
    // NUL and control bytes
    '\u0000', '{}\u0000', '"\u0000"', '[1,\u00002]',
  ]

  test('edge inputs: classifier intact ⇔ scanner accepts ⇔ JSON.parse accepts', () => {
    for (const s of EDGE) {
      const buf = Buffer.from(s, 'utf8')
      const ok = strictParse(buf)
      assert.equal(scannerAccepts(buf), ok, `scanner on ${JSON.stringify(s)}`)
      assert.equal(classifyJsonBytes(buf).class === 'intact', ok, `classifier on ${JSON.stringify(s)}`)
    }
  })

  test('random token soup: the scanner accepts exactly what JSON.parse accepts', () => {
    const tokens = ['{', '}', '[', ']', '"', ':', ',', '\\', 'u', '0', '1', '9', 'a', 'F', '-', '+', '.', 'e', 'E', 'true', 'false', 'null', ' ', '\n', '\t', 'é', '日', '🎉', '\u0000', '\u001f', '"k":', '"v"', '\\u00e9', '\\ud800', '\\n']
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...tokens), {maxLength: 24}), (parts) => {
        const buf = Buffer.from(parts.join(''), 'utf8')
        const ok = strictParse(buf)
        return scannerAccepts(buf) === ok && (classifyJsonBytes(buf).class === 'intact') === ok
      }),
      {numRuns: 20000, seed: 20260830},
    )
  })

  test('random JSON values, compact and pretty: intact; every proper prefix that is not the whole value is truncated', () => {
    fc.assert(
      fc.property(fc.jsonValue({maxDepth: 4}), fc.boolean(), (v, pretty) => {
        const text = JSON.stringify(v, null, pretty ? 2 : undefined)
        const buf = Buffer.from(text, 'utf8')
        if (classifyJsonBytes(buf).class !== 'intact' || !scannerAccepts(buf)) return false
        // A top-level number is also a prefix of a longer number: only containers, strings and literals have proper prefixes.
        if (typeof v === 'number') return true
        for (let k = 1; k < buf.length; k++) {
          const c = classifyJsonBytes(buf.subarray(0, k))
          if (c.class !== 'truncated') return false
          const torn = (buf[k] & 0xc0) === 0x80
          if (torn !== c.reasons.includes('torn-utf8')) return false
        }
        return true
      }),
      {numRuns: 300, seed: 7},
    )
  })

  test('random bytes: never intact unless JSON.parse accepts; every non-intact verdict says why and where', () => {
    fc.assert(
      fc.property(fc.uint8Array({maxLength: 40}), (bytes) => {
        const c = classifyJsonBytes(bytes)
        if ((c.class === 'intact') !== strictParse(bytes)) return false
        if (c.class === 'intact' || c.class === 'empty') return c.damage === undefined && c.reasons.length === 0
        if (c.class === 'zero-filled') return c.reasons.length === 0 && c.damage?.offset === 0
        return c.reasons.length > 0 && c.damage !== undefined && c.damage.offset <= bytes.length && c.damage.offset + c.damage.length === bytes.length
      }),
      {numRuns: 20000, seed: 42},
    )
  })

  test('100 000 nested `[` : truncated, no stack overflow; closed: intact; then garbage: trailing-garbage', () => {
    const n = 100_000
    const open = Buffer.from('['.repeat(n))
    check(open, 'truncated', ['unexpected-end'], n)
    const closed = Buffer.from('['.repeat(n) + ']'.repeat(n))
    assert.equal(scannerAccepts(closed), true)
    assert.equal(classifyJsonBytes(closed).class, 'intact')
    check(Buffer.concat([closed, Buffer.from('x')]), 'corrupt', ['trailing-garbage'], 2 * n)
    const objects = Buffer.from('{"a":'.repeat(n))
    check(objects, 'truncated', ['unexpected-end'], 5 * n)
    check(Buffer.concat([objects, Buffer.from('x')]), 'corrupt', ['syntax-error'], 5 * n)
  })
})

describe('checkUtf8 locates the first problem', () => {
  test('torn at the end vs invalid in the middle', () => {
    const b = Buffer.from('ab日', 'utf8')
    assert.deepEqual(checkUtf8(b.subarray(0, 3)), {ok: false, kind: 'torn', offset: 2})
    assert.deepEqual(checkUtf8(b.subarray(0, 4)), {ok: false, kind: 'torn', offset: 2})
    assert.deepEqual(checkUtf8(b), {ok: true})
    assert.deepEqual(checkUtf8(Buffer.from([0x61, 0xe6, 0x61])), {ok: false, kind: 'invalid', offset: 1})
    assert.deepEqual(checkUtf8(Buffer.from([0xf4, 0x90, 0x80, 0x80])), {ok: false, kind: 'invalid', offset: 0})
    assert.deepEqual(checkUtf8(Buffer.from([0xe0, 0x80, 0x80])), {ok: false, kind: 'invalid', offset: 0})
  })
})
