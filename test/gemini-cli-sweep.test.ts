/**
 * The byte-cut sweep of the real Gemini CLI session files (shared/realdata/gemini-cli/0.61.0): each file cut at
 * every byte offset. A cut is what a crash mid-append leaves (the CLI appends each record as one line, with no
 * fsync). For every cut:
 * - the line classification is never `intact` unless the cut falls on a line end, or just before one (a whole
 *   final record without its line end: then a repair adds it, and the chat is never `healthy`);
 * - the repair keeps only whole original lines, in order: exactly the bytes up to the last line end before the
 *   cut (plus the line end of a whole final record), or nothing is planned when the CLI could not load the result;
 * - the diagnosis (for every offset of the smaller files, and for every line end ±1 and a seeded sample of the
 *   session of 58 lines) agrees: `healthy` only on a line end, and the plan a repair writes (with Gemini CLI's
 *   own rule of dropping a resumed start left without its full checkpoint) keeps whole original lines only.
 */
import assert from 'node:assert/strict'
import {test} from 'node:test'
import {classifyJsonlBytes} from '../src/lib/classify/jsonl.js'
import {readStates} from '../src/lib/formats/gemini-cli/diagnose.js'
import {geminiCli} from '../src/lib/formats/gemini-cli/index.js'
import {GEMINI_RULES} from '../src/lib/formats/gemini-cli/session.js'
import {planJsonlRepair} from '../src/lib/formats/jsonl/repair.js'
import type {ChatReport} from '../src/lib/model/report.js'
import {seededRandom} from './helpers/fixtures.js'
import {ORPHAN_B, SESSION_A, SESSION_B, damageFile, realSession} from './helpers/gemini-cli.js'

const LF = 0x0a

function diagnose(name: string, data: Buffer): ChatReport | null {
  const d = geminiCli.diagnose({dir: '/sweep/chats', unit: {dir: '/sweep/chats', path: `/sweep/chats/${name}`, files: [name]}, dirMtimeMs: 0, files: [{name, kind: 'file', bytes: data.length, mtimeMs: 0, data}]})
  return d.kind === 'chat' ? {path: name, ...d.report} : null
}

/** What a repair of the first `k` bytes must give: whole lines up to the cut, a whole final record with its LF. */
function expectedRepair(buf: Buffer, k: number): Buffer {
  if (k === 0 || buf[k - 1] === LF) return buf.subarray(0, k)
  if (buf[k] === LF) return buf.subarray(0, k + 1)
  return buf.subarray(0, buf.lastIndexOf(LF, k - 1) + 1)
}

function checkCut(buf: Buffer, k: number, stats: {intact: number; repaired: number; refused: number}): void {
  const cut = buf.subarray(0, k)
  const onLineEnd = k === 0 || buf[k - 1] === LF
  const beforeLineEnd = buf[k] === LF
  const cls = classifyJsonlBytes(cut)
  if (cls.class === 'intact') {
    assert.ok(onLineEnd || beforeLineEnd, `cut at ${k}: intact although it ends mid-record`)
    stats.intact++
  }
  const plan = planJsonlRepair(cut, GEMINI_RULES)
  if (!plan.accepted) {
    // Only when no metadata line survives (the cut falls in the first line) or nothing is left.
    assert.ok(k <= buf.indexOf(LF) + 1, `cut at ${k}: a repair refused though the metadata line is whole`)
    stats.refused++
    return
  }
  assert.deepEqual(plan.bytes, expectedRepair(buf, k), `cut at ${k}: the repair keeps whole original lines only`)
  if (plan.changes.length > 0) stats.repaired++
}

/** True when `out` is the original's first whole lines (a prefix ending at a line end), or those plus a final LF. */
function wholeLines(buf: Buffer, k: number, out: Buffer): boolean {
  if (out.length === 0) return true
  return buf.subarray(0, out.length).equals(out) && out[out.length - 1] === LF && (out.length <= k || (out.length === k + 1 && buf[k] === LF))
}

function checkDiagnosis(name: string, buf: Buffer, k: number): void {
  // The plan a repair writes (the Gemini rules on top of the JSON-lines planner) keeps whole original lines only.
  const [st] = readStates({dir: '/sweep/chats', unit: {dir: '/sweep/chats', path: `/sweep/chats/${name}`, files: [name]}, dirMtimeMs: 0, files: [{name, kind: 'file', bytes: k, mtimeMs: 0, data: buf.subarray(0, k)}]})
  if (st.plan?.accepted) assert.ok(wholeLines(buf, k, st.plan.bytes), `cut at ${k}: the planned repair keeps whole original lines only`)
  const r = diagnose(name, buf.subarray(0, k))
  assert.ok(r, `cut at ${k}: diagnosed`)
  const onLineEnd = k === 0 || buf[k - 1] === LF
  if (r.status === 'healthy') assert.ok(onLineEnd, `cut at ${k}: healthy although it ends mid-line`)
  if (!onLineEnd) assert.notEqual(r.status, 'healthy', `cut at ${k}`)
  assert.equal(r.format, 'gemini-cli')
}

const FILES: Array<[string, Buffer, 'every' | 'sampled']> = [
  [SESSION_B, realSession(SESSION_B), 'every'],
  [ORPHAN_B, damageFile('control-resume-next-minute', '1-resume', ORPHAN_B), 'every'],
  [SESSION_A, realSession(SESSION_A), 'sampled'],
]

for (const [name, buf, mode] of FILES) {
  test(`${name} (${buf.length} bytes): every byte cut classified and repaired with whole original lines only`, () => {
    const stats = {intact: 0, repaired: 0, refused: 0}
    for (let k = 0; k < buf.length; k++) checkCut(buf, k, stats)
    // The sweep exercised every branch.
    assert.ok(stats.intact > 0 && stats.refused > 0, JSON.stringify(stats))
    if (name !== ORPHAN_B) assert.ok(stats.repaired > buf.length / 2, JSON.stringify(stats))
  })
  test(`${name}: the diagnosis of ${mode === 'every' ? 'every byte cut' : 'every line end ±1 and 400 seeded cuts'} is healthy only on a line end`, () => {
    const offsets = new Set<number>()
    if (mode === 'every') for (let k = 0; k < buf.length; k++) offsets.add(k)
    else {
      for (let i = buf.indexOf(LF); i >= 0; i = buf.indexOf(LF, i + 1)) for (const k of [i, i + 1, i + 2]) if (k < buf.length) offsets.add(k)
      const rnd = seededRandom(0x6e65aa12)
      while (offsets.size < 58 * 3 + 400) offsets.add(Math.floor(rnd() * buf.length))
    }
    for (const k of offsets) checkDiagnosis(name, buf, k)
  })
}
