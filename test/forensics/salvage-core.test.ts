/**
 * The generic salvager and the byte-level JSON helpers on small hand-made documents: what is kept, closed,
 * borrowed, dropped, and never invented.
 */
import assert from 'node:assert/strict'
import {test} from 'node:test'
import {locateEmbeddedRunStates, embeddedGenerationBytes, parseEmbeddedName} from '../../src/lib/formats/codebuff/embedded.js'
import fc from 'fast-check'
import {eachMember, keyIs, objectMembers, skipStringBody, skipValue, INCOMPLETE} from '../../src/lib/json/walk.js'
import {salvageBytes, salvageJson} from '../../src/lib/salvage/index.js'

const SPINE = ['s', 'm', 'h']
const b = (s: string) => Buffer.from(s, 'utf8')
const text = (o: {ok: true; salvage: {parts: Uint8Array[]}} | {ok: false}) => (o.ok ? salvageBytes(o.salvage).toString('utf8') : null)

const DOC = '{"s":{"m":{"id":"x","h":[{"n":12345678901234567890,"t":"é\\"}"},{"n":-0,"t":"b"},{"n":1.0e3}],"after":1},"ctx":{"big":[1,2]}},"out":{"k":true}}'

test('salvage keeps whole elements byte-identical, drops the torn one and closes the brackets', () => {
  const cut = DOC.indexOf('{"n":1.0e3') + 8 // inside the number 1.0e3
  const out = salvageJson(b(DOC.slice(0, cut)), {spine: SPINE})
  assert.ok(out.ok)
  assert.equal(text(out), '{"s":{"m":{"id":"x","h":[{"n":12345678901234567890,"t":"é\\"}"},{"n":-0,"t":"b"}]}}}')
  assert.equal(out.salvage.description.elementsKept, 2)
  assert.equal(out.salvage.description.tornElementDropped, true)
  // Nothing was required and no donor was given: the lost keys are simply not there.
  assert.deepEqual(out.salvage.description.keysBorrowed, [])
})

test('salvage borrows each lost member from the newest donor that has it, as the donor wrote it', () => {
  const cut = DOC.indexOf('{"n":-0')
  const newer = '{"s":{"m":{"h":[],"after":2},"ctx":{"big":[9]}}}'
  const older = '{"out":{"k":false},"s":{"m":{"h":[],"after":3,"extra":"z"},"ctx":{}}}'
  const out = salvageJson(b(DOC.slice(0, cut)), {
    spine: SPINE,
    required: {'': ['s', 'out'], s: ['m', 'ctx'], 's.m': ['h', 'after', 'need']},
    donors: [
      {name: 'newer', bytes: b(newer)},
      {name: 'older', bytes: b(older)},
    ],
  })
  assert.ok(out.ok)
  assert.equal(text(out), '{"s":{"m":{"id":"x","h":[{"n":12345678901234567890,"t":"é\\"}"}],"after":2},"ctx":{"big":[9]}},"out":{"k":false}}')
  const d = out.salvage.description
  assert.deepEqual(d.keysBorrowed, [
    {key: 's.m.after', from: 'newer'},
    {key: 's.ctx', from: 'newer'},
    {key: 'out', from: 'older'},
  ])
  // `extra` is not in the newest donor's object, so not taken; `need` is required and nobody has it.
  assert.deepEqual(d.keysMissing, ['s.m.need'])
  assert.deepEqual(d.keysDropped, [])
})

test('a member torn mid-value is dropped (or borrowed), never completed', () => {
  const cut = DOC.indexOf('"after":1') + 8 // `"after":` then the cut: the value is missing
  const out = salvageJson(b(DOC.slice(0, cut)), {spine: SPINE})
  assert.ok(out.ok)
  assert.equal(out.salvage.description.elementsKept, 3)
  assert.deepEqual(out.salvage.description.keysDropped, ['s.m.after'])
  assert.ok(!text(out)!.includes('after'))
  // A complete number before the cut is not trusted either: `"after":1` may have been `"after":12`.
  const cut2 = DOC.indexOf('"after":1') + 9
  const out2 = salvageJson(b(DOC.slice(0, cut2)), {spine: SPINE})
  assert.ok(out2.ok)
  assert.deepEqual(out2.salvage.description.keysDropped, ['s.m.after'])
})

test('a cut after the spine array keeps the complete members that follow it', () => {
  const cut = DOC.indexOf('"ctx"') + 3
  const out = salvageJson(b(DOC.slice(0, cut)), {spine: SPINE})
  assert.ok(out.ok)
  assert.equal(text(out), '{"s":{"m":{"id":"x","h":[{"n":12345678901234567890,"t":"é\\"}"},{"n":-0,"t":"b"},{"n":1.0e3}],"after":1}}}')
  assert.equal(out.salvage.description.elementsKept, 3)
  assert.equal(out.salvage.description.tornElementDropped, false)
})

test('NUL padding: after a complete document it is dropped; inside, it is a tear', () => {
  const padded = Buffer.concat([b(DOC), Buffer.alloc(100)])
  const out = salvageJson(padded, {spine: SPINE})
  assert.ok(out.ok)
  assert.equal(out.salvage.description.kind, 'tail')
  assert.equal(text(out), DOC)
  assert.equal(out.salvage.description.bytesDropped, 100)
  const holed = b(DOC)
  const at = DOC.indexOf('{"n":-0') + 3
  holed.fill(0, at, at + 5)
  const out2 = salvageJson(holed, {spine: SPINE})
  assert.ok(out2.ok)
  assert.equal(out2.salvage.description.kind, 'prefix')
  assert.equal(out2.salvage.description.elementsKept, 1)
  assert.equal(out2.salvage.description.tearOffset, at)
})

test('invalid UTF-8 inside a message makes that message the tear', () => {
  const buf = b(DOC)
  const at = buf.indexOf(b('"b"')) + 1
  buf[at] = 0xff
  const out = salvageJson(buf, {spine: SPINE})
  assert.ok(out.ok)
  assert.equal(out.salvage.description.elementsKept, 1)
  assert.equal(out.salvage.description.tearOffset, at)
})

test('nothing to salvage: no object, a tear before the spine array, garbage before the tear', () => {
  for (const bad of ['', '   ', '[1,2]', '{"s":{"m":{"id":"x"', '{"s":{"m":{"h":[{"a":1}}}']) {
    const out = salvageJson(b(bad), {spine: SPINE})
    assert.equal(out.ok, false, bad)
  }
  const garbage = salvageJson(b('{"s":{"m":{"h":[{"a":1},{"b":tru}, {"c":'), {spine: SPINE})
  assert.equal(garbage.ok, false)
  assert.match(garbage.ok ? '' : garbage.reason, /not valid JSON/)
})

test('byte helpers: skipValue, objectMembers, eachMember, keyIs', () => {
  const buf = b(DOC)
  assert.equal(skipValue(buf, 0, buf.length), buf.length)
  assert.equal(skipValue(buf, 0, buf.length - 1), INCOMPLETE)
  assert.equal(skipValue(b('12'), 0, 2), INCOMPLETE) // may continue
  assert.equal(skipValue(b('12,'), 0, 3), 2)
  const top = objectMembers(buf, 0, buf.length)!
  assert.deepEqual(top.members.map((m) => m.key), ['s', 'out'])
  assert.equal(top.end, buf.length)
  const out = top.members[1]
  assert.equal(buf.subarray(out.valueStart, out.valueEnd).toString(), '{"k":true}')
  assert.equal(objectMembers(buf, 0, buf.length - 1), null, 'an object cut before its end')
  assert.equal(objectMembers(b('[1]'), 0, 3), null, 'not an object')
  // Duplicate keys are listed as written (JSON.parse keeps the last).
  assert.deepEqual(objectMembers(b('{"a":1,"a":2}'), 0, 13)!.members.map((m) => m.valueStart), [5, 11])
  // eachMember visits each member once, in order, and stops on what its callback cannot skip.
  const seen: string[] = []
  const dup = b('{"a":1, "b" : [2] ,"c":{}}')
  assert.equal(eachMember(dup, 0, dup.length, (k0, k1, v0) => (seen.push(dup.subarray(k0, k1).toString()), skipValue(dup, v0, dup.length))), dup.length)
  assert.deepEqual(seen, ['"a"', '"b"', '"c"'])
  assert.equal(eachMember(dup, 0, dup.length, () => INCOMPLETE), null)
  // keyIs compares as JSON.parse reads keys: escapes decoded, near misses rejected.
  const keys = b('"runState" "r\\u0075nState" "runStates" "runStat"')
  assert.deepEqual([[0, 10], [11, 27], [28, 39], [40, 49]].map(([s0, s1]) => keyIs(keys, s0, s1, 'runState')), [true, true, false, false])
})

/** The reference string skip: one byte at a time, a backslash takes the next byte with it. */
function skipStringReference(buf: Uint8Array, i: number, end: number): number {
  while (i < end) {
    if (buf[i] === 0x22) return i + 1
    i += buf[i] === 0x5c ? 2 : 1
  }
  return INCOMPLETE
}

test('skipStringBody (indexOf jumps after the first bytes) ends every string where a byte-by-byte skip does', () => {
  // Bodies dense in quotes and backslash runs, long enough to pass the short-string loop; every `end`.
  const body = fc.array(fc.constantFrom('"', '\\', '\\', 'a', 'é', '\\u0022', ' '), {minLength: 0, maxLength: 60}).map((parts) => '"' + parts.join(''))
  fc.assert(
    fc.property(body, (s) => {
      const buf = Buffer.from(s, 'utf8')
      const plain = new Uint8Array(buf)
      for (let end = 1; end <= buf.length; end++) {
        const want = skipStringReference(buf, 1, end)
        assert.equal(skipStringBody(buf, 1, end), want, `Buffer, end ${end}: ${JSON.stringify(s)}`)
        assert.equal(skipStringBody(plain, 1, end), want, `Uint8Array, end ${end}`)
      }
    }),
    {numRuns: 400, seed: 7},
  )
  // A quote after 40 backslashes (20 escaped backslashes) closes; after 41 it is escaped.
  assert.equal(skipStringBody(b('"' + 'x'.repeat(20) + '\\'.repeat(40) + '"z'), 1, 63), 62)
  assert.equal(skipStringBody(b('"' + 'x'.repeat(20) + '\\'.repeat(41) + '"z'), 1, 64), INCOMPLETE)
})

test('embedded copies are located byte-exactly; repeated and missing ids get unique names', () => {
  const t = '[{"id":"user-1","variant":"user"},{"id":"ai-5-x","metadata":{"runState":{"a":"\\"}"}}},{"id":"ai-5-x","metadata":{"runState" : [1] }},{"metadata":{"runState":2,"runState":3}}]'
  const buf = b(t)
  const found = locateEmbeddedRunStates(buf)
  assert.deepEqual(found.map((e) => [e.id, e.index, buf.subarray(e.start, e.end).toString(), e.idTimeMs]), [
    ['ai-5-x', 1, '{"a":"\\"}"}', 5],
    ['ai-5-x~2', 2, '[1]', 5],
    ['[3]', 3, '3', null],
  ])
  assert.equal(embeddedGenerationBytes(buf, 'ai-5-x~2')!.toString(), '[1]')
  assert.equal(embeddedGenerationBytes(buf, 'ai-6'), null)
  assert.deepEqual(locateEmbeddedRunStates(b('[{"id":"ai-1","metadata":{"runState":{')), [])
  assert.deepEqual(parseEmbeddedName('chat-messages.json#ai-5-x'), {file: 'chat-messages.json', id: 'ai-5-x'})
  assert.equal(parseEmbeddedName('run-state.json'), null)
})

test('embedded copies resolve keys as JSON.parse does: escaped spellings, a later metadata replacing an earlier one', () => {
  const t = [
    '{"id":"ai-1","me\\u0074adata":{"r\\u0075nState":{"k":1}}}', // escaped keys are the same keys
    '{"id":"ai-2","metadata":{"runState":{"k":2}},"metadata":{"other":1}}', // the last metadata has no runState
    '{"id":"ai-3","metadata":{"runState":{"k":3}},"metadata":"x"}', // the last metadata is not an object
    '{"metadata":{"runState":{"k":4}},"id":"ai-4","id":"ai-4b"}', // the last id names it
    '{"id":"ai-5","metadata":{"runStates":{"k":5},"runStat":0}}', // near-miss keys
    '"not a message"',
  ]
  const buf = b('[' + t.join(',') + ']')
  const found = locateEmbeddedRunStates(buf)
  assert.deepEqual(found.map((e) => [e.id, e.index, buf.subarray(e.start, e.end).toString()]), [
    ['ai-1', 0, '{"k":1}'],
    ['ai-4b', 3, '{"k":4}'],
  ])
  // The oracle: JSON.parse finds a runState in exactly the same messages.
  const parsed = JSON.parse(buf.toString()) as Array<{metadata?: {runState?: unknown}}>
  assert.deepEqual(parsed.flatMap((m, i) => (typeof m === 'object' && m.metadata?.runState !== undefined ? [i] : [])), [0, 3])
})
