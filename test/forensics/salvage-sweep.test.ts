/**
 * The byte-cut salvage sweep (): real run states cut at every offset (files up to ~64 KB) or at
 * a seeded sample of offsets (the 5.5 MB one), with copies carrying multi-byte text and escapes in every
 * message text. At every cut: the salvaged message count equals the number of messages whose closing brace
 * lies before the cut, the kept bytes are the original's, and @streamparser/json (an independent streaming
 * parser) agrees.
 */
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {TokenParser, Tokenizer} from '@streamparser/json'
import {RUN_STATE_REQUIRED_KEYS, RUN_STATE_SPINE} from '../../src/lib/formats/codebuff/salvage.js'
import {salvageBytes, salvageJson, type Donor} from '../../src/lib/salvage/index.js'
import {REALDATA, REAL_CHATS, TEN_TURN_TEMP, nulPadded, nulTailAt, seededRandom} from '../helpers/fixtures.js'

const HISTORY_PATH = '$.sessionState.mainAgentState.messageHistory.*'
/** Text with 2-, 3- and 4-byte characters and every kind of escape, as raw JSON string content. */
const MULTI = 'h\u00e9llo \u2014 \u65e5\u672c\u8a9e \ud83c\udf89 \\"q\\" \\\\ \\n \\t \\u00e9 \\ud83c\\udf89 end'

function realFile(chat: string, name: string): Buffer {
  return readFileSync(path.join(REALDATA, 'codebuff', chat, name))
}

/** Inserts `MULTI` at the start of every message text (compact `"text":"` and pretty `"text": "`). */
function withMultiByteText(buf: Buffer): Buffer {
  const text = buf.toString('utf8').replace(/"text": ?"/g, (m) => m + MULTI)
  const out = Buffer.from(text, 'utf8')
  JSON.parse(text) // still valid
  assert.ok(out.length > buf.length)
  return out
}

/** Oracle: the end offset (exclusive) of every message of messageHistory, from @streamparser/json's tokens. */
function oracleEnds(buf: Uint8Array): {ends: number[]; values: unknown[]} {
  const tokenizer = new Tokenizer()
  const parser = new TokenParser({paths: [HISTORY_PATH], keepStack: false})
  let last = -1
  const ends: number[] = []
  const values: unknown[] = []
  tokenizer.onToken = (t) => {
    last = t.offset
    parser.write(t)
  }
  parser.onValue = ({value}) => {
    ends.push(last + 1)
    values.push(value)
  }
  parser.onEnd = () => {}
  tokenizer.onEnd = () => {}
  try {
    tokenizer.write(buf)
  } catch {
    // A truncated input can end in the middle of a token; what was emitted before stands.
  }
  return {ends, values}
}

/** Offsets of `"messageHistory":[`'s bracket and of the array's closing bracket in a complete document. */
function historyBounds(buf: Buffer): {open: number; close: number} {
  const v = JSON.parse(buf.toString('utf8'))
  const key = buf.indexOf('"messageHistory"')
  const open = buf.indexOf('[', key)
  const ends = oracleEnds(buf).ends
  const close = buf.indexOf(']', ends[ends.length - 1])
  assert.equal(ends.length, v.sessionState.mainAgentState.messageHistory.length)
  return {open, close}
}

function countBefore(ends: number[], cut: number): number {
  let n = 0
  while (n < ends.length && ends[n] <= cut) n++
  return n
}

const opts = (donors: Donor[]) => ({spine: RUN_STATE_SPINE, required: RUN_STATE_REQUIRED_KEYS, donors})

/** Checks one cut; `deep` also runs the oracle on the cut bytes themselves and compares parsed messages. */
function checkCut(full: Buffer, cutBuf: Buffer, cut: number, ends: number[], bounds: {open: number; close: number}, donors: Donor[], deep: boolean): void {
  const out = salvageJson(cutBuf, opts(donors))
  const expected = countBefore(ends, cut)
  if (cut <= bounds.open) {
    assert.equal(out.ok, false, `cut ${cut}: before messageHistory, nothing to salvage`)
    return
  }
  assert.ok(out.ok, `cut ${cut}: ${out.ok ? '' : out.reason}`)
  const d = out.salvage.description
  assert.equal(d.elementsKept, expected, `cut ${cut}: messages kept`)
  if (cut <= bounds.close) assert.equal(d.bytesKept, expected > 0 ? ends[expected - 1] : bounds.open + 1, `cut ${cut}: kept up to the last complete message`)
  // The salvaged document starts with exactly the original's first `bytesKept` bytes.
  const head = out.salvage.parts[0]
  assert.equal(head.length, d.bytesKept)
  assert.equal(Buffer.compare(head, full.subarray(0, d.bytesKept)), 0, `cut ${cut}: kept bytes are original`)
  const history = (out.salvage.value as {sessionState: {mainAgentState: {messageHistory: unknown[]}}}).sessionState.mainAgentState.messageHistory
  assert.equal(history.length, expected)
  assert.deepEqual(d.keysMissing, [], `cut ${cut}: the donor lends every lost member`)
  if (deep) {
    const oracle = oracleEnds(cutBuf)
    assert.equal(oracle.values.length, expected, `cut ${cut}: @streamparser/json on the cut bytes`)
    assert.deepEqual(history, oracle.values)
  }
}

/** Every offset of a file (and of its multi-byte copy); the oracle re-runs on every 97th cut. */
function sweepAll(name: string, full: Buffer): number {
  const {ends} = oracleEnds(full)
  const bounds = historyBounds(full)
  const donors = [{name: 'donor', bytes: full}]
  for (let cut = 0; cut < full.length; cut++) checkCut(full, full.subarray(0, cut), cut, ends, bounds, donors, cut % 97 === 0)
  // The whole file with NULs after it: kept whole.
  const padded = salvageJson(nulPadded(full, 4096), opts(donors))
  assert.ok(padded.ok, name)
  assert.equal(padded.salvage.description.kind, 'tail')
  assert.equal(padded.salvage.description.elementsKept, ends.length)
  assert.equal(Buffer.compare(salvageBytes(padded.salvage), full), 0)
  return full.length
}

// Every offset of each real run state up to 64 KB. The backup and the temp are earlier and later saves of
// the 10-turn primary (same structure, nearly the same bytes), so they are swept in their multi-byte form only
// (which is itself every offset of a file ≤ 64 KB); this keeps the sweep near 10 s of CPU.
const SMALL_FILES: Array<[string, string, boolean]> = [
  [REAL_CHATS.small, 'run-state.json', true],
  [REAL_CHATS.tenTurns, 'run-state.json', true],
  [REAL_CHATS.tenTurns, 'run-state.json.bak', false],
  [REAL_CHATS.tenTurns, TEN_TURN_TEMP, false],
]

for (const [chat, file, plainToo] of SMALL_FILES) {
  test(`salvage sweep: every cut of ${chat}/${file}${plainToo ? ', as is and' : ''} with multi-byte text and escapes`, () => {
    const full = realFile(chat, file)
    assert.ok(full.length <= 64 * 1024)
    if (plainToo) sweepAll(file, full)
    const multi = withMultiByteText(full)
    assert.ok(multi.length <= 64 * 1024)
    sweepAll(`${file} (multi-byte)`, multi)
  })
}

test('salvage sweep: NUL tails at a stride of cuts keep the same messages as plain cuts', () => {
  const full = withMultiByteText(realFile(REAL_CHATS.tenTurns, 'run-state.json'))
  const {ends} = oracleEnds(full)
  const bounds = historyBounds(full)
  const donors = [{name: 'donor', bytes: full}]
  for (let cut = bounds.open + 1; cut < full.length; cut += 7) {
    const torn = nulTailAt(full, cut)
    checkCut(full, torn, cut, ends, bounds, donors, false)
  }
})


test('salvage sweep: a seeded sample of cuts of the 5.5 MB run state (180 turns), plain and NUL-tailed', () => {
  const full = realFile(REAL_CHATS.large, 'run-state.json')
  const {ends} = oracleEnds(full)
  const bounds = historyBounds(full)
  const donors = [{name: 'donor', bytes: full}]
  const next = seededRandom(20260705)
  const cuts = [bounds.open, bounds.open + 1, ends[0] - 1, ends[0], ends[0] + 1, ends[ends.length - 1], bounds.close, bounds.close + 1, full.length - 1]
  for (let k = 0; k < 24; k++) cuts.push(Math.floor(next() * full.length))
  for (const cut of cuts) checkCut(full, full.subarray(0, cut), cut, ends, bounds, donors, false)
  for (const cut of cuts.slice(-4)) checkCut(full, nulTailAt(full, cut), cut, ends, bounds, donors, true)
})
