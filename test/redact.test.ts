/**
 * The byte-level redactor (src/lib/json/redact.ts): damage keeps its class and reasons under any cut, NUL
 * run, bad byte or garbage (property test over a real run-state), prompt keys map to the same placeholder on
 * both sides, equal values stay equal and different ones different.
 */
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import fc from 'fast-check'
import {makeRedactor} from '../src/lib/json/redact.js'
import {redactCodebuffBytes as redactJsonBytes, redactPromptText} from '../src/lib/formats/codebuff/redact.js'
import {classifyJsonBytes} from '../src/lib/classify/index.js'
import {unwrapPrompt} from '../src/lib/formats/codebuff/turns.js'
import {REALDATA, REAL_CHATS, cutAt, invalidByteAt, nulPadded, nulRunAt, nulTailAt, withBom} from './helpers/fixtures.js'

const TEN = path.join(REALDATA, 'codebuff', REAL_CHATS.tenTurns)
const r = makeRedactor(Buffer.alloc(32, 1))

function verdict(b: Buffer) {
  const c = classifyJsonBytes(b)
  return {class: c.class, reasons: c.reasons}
}

test('damage keeps its class and reasons after redaction (property, real run-state and transcript)', () => {
  for (const file of ['run-state.json', 'chat-messages.json']) {
    const orig = readFileSync(path.join(TEN, file))
    const role = file === 'chat-messages.json' ? 'transcript' : 'state'
    const damage = fc.oneof(
      fc.integer({min: 0, max: orig.length - 1}).map((n) => cutAt(orig, n)),
      fc.tuple(fc.integer({min: 0, max: orig.length - 1}), fc.integer({min: 1, max: 600})).map(([at, k]) => nulRunAt(orig, at, Math.min(k, orig.length - at))),
      fc.integer({min: 0, max: orig.length - 1}).map((at) => invalidByteAt(orig, at)),
      fc.integer({min: 1, max: orig.length - 1}).map((n) => nulTailAt(orig, n)),
      fc.integer({min: 1, max: 64}).map((k) => nulPadded(orig, k)),
      fc.integer({min: 0, max: orig.length - 1}).map((at) => Buffer.concat([orig, orig.subarray(at)])),
      fc.constant(withBom(orig)),
      // A multi-byte character cut at the end of the file.
      fc.integer({min: 0, max: orig.length - 1}).map((n) => Buffer.concat([cutAt(orig, n), Buffer.from([0xe6, 0x97])])),
    )
    fc.assert(
      fc.property(damage, (bytes) => {
        assert.deepEqual(verdict(redactJsonBytes(bytes, role, r)), verdict(bytes))
      }),
      {numRuns: 150, seed: 4},
    )
  }
})

/** The structural bytes outside strings, plus a final `"` when the bytes end inside a string. */
function skeleton(b: Buffer): string {
  let out = ''
  let inString = false
  for (let i = 0; i < b.length; i++) {
    const c = b[i]
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if ('{}[]:,'.includes(String.fromCharCode(c))) out += String.fromCharCode(c)
  }
  return inString ? out + '"' : out
}

test('a torn file stays torn at the same structural point', () => {
  const orig = readFileSync(path.join(TEN, 'run-state.json'))
  const marker = orig.indexOf(Buffer.from('"messageHistory"'))
  const torn = cutAt(orig, marker + 40)
  const red = redactJsonBytes(torn, 'state', r)
  // The same structure (brackets, colons, commas outside strings) up to the same cut, ending inside a string.
  assert.equal(skeleton(red), skeleton(torn))
  assert.equal(skeleton(red).endsWith('"'), skeleton(torn).endsWith('"'))
  assert.deepEqual(verdict(red), {class: 'truncated', reasons: ['unexpected-end']})
  for (const cut of [1000, 5000, 12345, 20000]) assert.equal(skeleton(redactJsonBytes(cutAt(orig, cut), 'state', r)), skeleton(cutAt(orig, cut)))
  // NUL runs and invalid bytes are kept (count), and no other NUL or invalid byte is added.
  const nul = nulRunAt(orig, 3000, 77)
  const rn = redactJsonBytes(nul, 'state', r)
  assert.equal(rn.filter((b) => b === 0).length, 77)
  const bad = invalidByteAt(orig, 3000)
  assert.equal(redactJsonBytes(bad, 'state', r).filter((b) => b === 0xff).length, 1)
})

test('prompt text and transcript content map to the same placeholder (unwrapPrompt on both sides)', () => {
  const cases: Array<[string, string]> = [
    ['<user_message>Fix the bug</user_message>', 'Fix the bug'],
    ['  <user_message>\r\nFix the bug\r\n</user_message>  ', '  Fix the bug\n'],
    ['<user_message><user_terminal_commands>$ ls\nsrc</user_terminal_commands>\nrun it\n\n[Pasted Text]\nsecret paste</user_message>', 'run it'],
    ['<user_message>look\n[File: /home/dev/a.ts]\ncontent</user_message>', 'look'],
    ['<user_message>See attached image(s)</user_message>', ''],
    ['no wrapper at all\n[Directory: /x]', 'no wrapper at all'],
    ['<user_message>unclosed', '<user_message>unclosed'],
    ['before <user_message>x</user_message> after', 'x'],
  ]
  for (const [history, transcript] of cases) {
    assert.equal(unwrapPrompt(history).replace(/\r\n/g, '\n').trim(), transcript.replace(/\r\n/g, '\n').trim(), `fixture: ${history}`)
    const red = redactPromptText(history, r)
    const key = transcript.replace(/\r\n/g, '\n').trim()
    assert.equal(unwrapPrompt(red), r.placeholder(key), history)
    assert.equal(red.trimStart().startsWith('<user_message>'), history.trimStart().startsWith('<user_message>'), history)
    for (const secret of ['Fix the bug', 'secret paste', '/home/dev', 'unclosed', 'run it']) if (history.includes(secret)) assert.equal(red.includes(secret), false, secret)
  }
  // Equal values stay equal, different ones stay different; the key is what makes them.
  assert.equal(r.placeholder('a'), r.placeholder('a'))
  assert.notEqual(r.placeholder('a'), r.placeholder('b'))
  assert.notEqual(makeRedactor(Buffer.alloc(32, 2)).placeholder('a'), r.placeholder('a'))
  assert.equal(r.placeholder(''), '')
})

test('ids, roles, tags, numbers and fixed SDK messages are kept; keys that are paths are not', () => {
  const doc = Buffer.from(
    JSON.stringify({
      sessionState: {
        fileContext: {knowledgeFiles: {'/home/dev/demo-app/knowledge.md': 'secret knowledge'}, fileTokenScores: {'src/a.ts': {mySecretFn: 3}}},
        mainAgentState: {messageHistory: [{role: 'user', content: [{type: 'text', text: '<user_message>hi there</user_message>'}], tags: ['USER_PROMPT'], sentAt: 1762264920000}]},
      },
      traceSessionId: 'c7e25b0f-9d14-4a3e-8f6b-2b9a0d5e1c48',
      output: {type: 'error', message: 'Previous run state could not be restored.'},
    }),
  )
  const red = redactJsonBytes(doc, 'state', r).toString('utf8')
  const v = JSON.parse(red)
  assert.equal(v.traceSessionId, 'c7e25b0f-9d14-4a3e-8f6b-2b9a0d5e1c48')
  assert.equal(v.output.message, 'Previous run state could not be restored.')
  const m = v.sessionState.mainAgentState.messageHistory[0]
  assert.deepEqual([m.role, m.tags, m.sentAt, m.content[0].type], ['user', ['USER_PROMPT'], 1762264920000, 'text'])
  for (const secret of ['hi there', 'knowledge.md', '/home/dev', 'secret knowledge', 'src/a.ts', 'mySecretFn']) assert.equal(red.includes(secret), false, secret)
})
