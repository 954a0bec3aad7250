/**
 * `scan --quick` over every byte cut of two real run-states (the 1-turn pretty one and the 10-turn compact
 * one), and on the 5.5 MB one through the CLI. The rules:
 * - a file quick mode reads whole (no larger than the head and tail windows) gets the full classifier's verdict
 *   (`verified: true`): a cut is never `intact`, whatever its last byte;
 * - a file read only at its ends is never verified: its ends may look whole (`intact`, `verified: false`,
 *   "ends look whole"), and a chat whose status rests on it is `verified: false`;
 * - a quick scan exits 0 only when nothing it called healthy rests on a file it did not read whole, unless the
 *   user accepts that trade (`--trust-ends`).
 * The sweep runs the pure part of quick mode (`quickDiagnose` over the ends `readEnds` would read, `endsOf`)
 * with the real windows and with small ones (so that every cut but the shortest is read at its ends only).
 */
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'
import {isBlank} from '../src/lib/classify/bytes.js'
import {classifyJsonBytes} from '../src/lib/classify/index.js'
import {QUICK_WINDOW, classifyEnds, endsOf, type QuickWindow} from '../src/lib/classify/quick.js'
import {codebuff} from '../src/lib/formats/codebuff/index.js'
import {quickDiagnose, quickExitCode, readEnds} from '../src/lib/pipeline/quick.js'
import {REAL_CHATS, REALDATA, cleanup, copyRealChat, cutAt, runCli, tempDir} from './helpers/fixtures.js'

const real = (chat: string, file: string) => readFileSync(path.join(REALDATA, 'codebuff', chat, file))
const RUN_STATES = {'1-turn (pretty)': real(REAL_CHATS.small, 'run-state.json'), '10-turn (compact)': real(REAL_CHATS.tenTurns, 'run-state.json')}
const LARGE = real(REAL_CHATS.large, 'run-state.json')
/** Windows small enough that every cut over 1.25 KiB is read at its ends only. */
const SMALL_WINDOW: QuickWindow = {headBytes: 256, tailBytes: 1024}

/** Length of the document without its trailing JSON whitespace. */
function trimmedLength(buf: Buffer): number {
  let n = buf.length
  while (n > 0 && (buf[n - 1] === 0x20 || buf[n - 1] === 0x0a || buf[n - 1] === 0x0d || buf[n - 1] === 0x09)) n--
  return n
}

/** A chat dir holding only this primary, as quick mode reads it with `window`. */
function quickOf(primary: Buffer, window: QuickWindow) {
  const d = quickDiagnose('/chat', [{name: 'run-state.json', isFile: true, size: primary.length, mtimeMs: 1, ends: endsOf(primary, window)}], codebuff)
  assert.ok(d)
  return d.report
}

describe('scan --quick over every byte cut of two real run-states', () => {
  for (const [name, doc] of Object.entries(RUN_STATES)) {
    test(`${name}, ${doc.length} bytes: read whole, every cut gets the full verdict; read at its ends, none is verified`, (t) => {
      const whole = trimmedLength(doc)
      let endsLookWhole = 0
      let unverifiedIntact = 0
      const bad: string[] = []
      const fail = (k: number, what: string) => void (bad.length < 8 ? bad.push(`cut at ${k}: ${what}`) : bad.push(''))
      for (let k = 0; k <= doc.length; k++) {
        const cut = doc.subarray(0, k)
        const complete = k >= whole
        if (!complete && classifyEnds(endsOf(cut)).class === 'intact') endsLookWhole++
        // The real windows: these run-states are read whole.
        const r = quickOf(cut, QUICK_WINDOW)
        const g = r.generations[0]
        const full = classifyJsonBytes(cut)
        if (g.verified !== true) fail(k, `read whole but verified ${g.verified}`)
        if (g.class !== full.class || JSON.stringify(g.reasons) !== JSON.stringify(full.reasons)) fail(k, `class ${g.class} (${g.reasons}), the full classifier says ${full.class} (${full.reasons})`)
        if (g.class === 'intact' && !complete) fail(k, 'a cut is intact')
        const code = quickExitCode([r], [], false)
        if ((code === 0) !== (complete && !isBlank(cut))) fail(k, `exit ${code}`)
        // Small windows: every cut larger than them is read at its ends only.
        const s = quickOf(cut, SMALL_WINDOW)
        const sg = s.generations[0]
        const atEnds = k > SMALL_WINDOW.headBytes + SMALL_WINDOW.tailBytes
        if (sg.verified !== !atEnds) fail(k, `small windows: verified ${sg.verified}`)
        if (atEnds && sg.class === 'intact') {
          unverifiedIntact++
          if (s.verified !== false || !s.findings.some((f) => f.id === 'unverified')) fail(k, 'small windows: a healthy chat on ends that look whole is not marked unverified')
          if ((quickExitCode([s], [], false) & 8) === 0) fail(k, 'small windows: exit without bit 8 on ends that look whole')
          if (quickExitCode([s], [], true) !== 0) fail(k, 'small windows: --trust-ends does not accept ends that look whole')
        }
        if (!complete && quickExitCode([s], [], false) === 0) fail(k, 'small windows: a cut exits 0')
      }
      t.diagnostic(`${name}: ${doc.length + 1} cuts; ${endsLookWhole} end in a closing brace (their ends look whole); read at their ends, ${unverifiedIntact} cuts look whole and none exits 0 without --trust-ends`)
      assert.ok(endsLookWhole > 0, 'some cuts end in a closing brace')
      assert.deepEqual(bad.filter((b) => b !== ''), [], `${bad.length} cuts wrong`)
    })
  }

  test('readEnds reads the same bytes endsOf describes, with either windows', () => {
    const root = tempDir()
    try {
      for (const [i, buf] of [RUN_STATES['10-turn (compact)'], LARGE].entries()) {
        const p = path.join(root, `f${i}.json`)
        writeFileSync(p, buf)
        for (const w of [QUICK_WINDOW, SMALL_WINDOW]) {
          const a = readEnds(p, w)
          const b = endsOf(buf, w)
          assert.equal(a.size, b.size)
          assert.ok(Buffer.from(a.head).equals(Buffer.from(b.head)) && Buffer.from(a.tail).equals(Buffer.from(b.tail)))
        }
      }
    } finally {
      cleanup(root)
    }
  })
})

describe('scan --quick through the CLI on a file larger than the windows', () => {
  test('the 5.5 MB run-state cut right after a closing brace: "ends look whole", unverified, exit 8; --trust-ends exits 0; a full scan sees the tear', () => {
    const root = tempDir()
    try {
      const dir = copyRealChat(REAL_CHATS.large, root)
      const at = LARGE.indexOf(0x7d, Math.floor(LARGE.length * 0.7)) + 1
      writeFileSync(path.join(dir, 'run-state.json'), cutAt(LARGE, at))
      const r = runCli(['scan', '--quick', '--json', root])
      const report = JSON.parse(r.stdout)
      assert.equal(r.status, 8, r.stderr)
      assert.equal(report.exitCode, 8)
      assert.deepEqual({trustEnds: report.quick.trustEnds, unverified: report.quick.unverified}, {trustEnds: false, unverified: 1})
      const chat = report.chats[0]
      const primary = chat.generations.find((g: {role: string}) => g.role === 'primary')
      assert.deepEqual([primary.class, primary.verified, chat.status, chat.verified], ['intact', false, 'healthy', false])
      assert.ok(chat.findings.some((f: {id: string; file: string}) => f.id === 'unverified' && f.file === 'run-state.json'))
      const human = runCli(['scan', '--quick', root])
      assert.equal(human.status, 8)
      assert.match(human.stdout, /ends look whole/)
      assert.match(human.stdout, /unverified/)
      assert.match(human.stderr, /exit bit 8; a full scan verifies them, --trust-ends accepts/)
      const trusted = runCli(['scan', '--quick', '--trust-ends', '--json', root])
      assert.equal(trusted.status, 0, trusted.stderr)
      assert.equal(JSON.parse(trusted.stdout).quick.trustEnds, true)
      const full = runCli(['scan', '--json', root])
      assert.notEqual(JSON.parse(full.stdout).chats[0].status, 'healthy')
      // --trust-ends means nothing without --quick.
      assert.equal(runCli(['scan', '--trust-ends', root]).status, 16)
    } finally {
      cleanup(root)
    }
  })
})
