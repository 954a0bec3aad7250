/**
 * The byte-cut sweep of the real Claude Code and Codex session logs (shared/realdata: the public logs and
 * those the real binaries wrote in their homes): a log cut short (a crash mid-append) is diagnosed by the
 * format's adapter and planned for repair exactly as `scan` and `repair` do (adapter `diagnose`, `planChat`).
 *
 * The rule checked for every cut: what a repair writes is a prefix of the original that ends at a record
 * boundary (the start of a line, or the end of a line's record), so never a line that was not a line of the
 * original: a nested object that happens to close right before the cut is not a record of the format. A cut
 * that falls inside a record is never `healthy`; a cut at a record boundary is left as it is.
 *
 * Which cuts:
 * - every byte cut of the logs up to `FULL_SWEEP_MAX` bytes, the whole cut file diagnosed;
 * - for every log, every cut right after a `}` byte (the only cuts that can leave a complete JSON value at
 *   the end of the cut line). A cut inside line L leaves the lines before L whole, and what a repair makes of
 *   the cut line depends on that line and on the format (fixed by the first line, the session's header);
 *   so each of these is diagnosed as the first line followed by the cut line, which keeps large logs to a
 *   few seconds;
 * - for every log, a seeded sample of other cuts and of line boundaries, the whole cut file diagnosed.
 */
import assert from 'node:assert/strict'
import path from 'node:path'
import {describe, test} from 'node:test'
import type {ChatDirSnapshot} from '../src/lib/model/adapter.js'
import {adapterByName} from '../src/lib/formats/index.js'
import {planChat} from '../src/lib/pipeline/plan.js'
import {seededRandom} from './helpers/fixtures.js'
import {allRealSessionLogs, read} from './helpers/sessions.js'

/** Logs up to this size are cut at every byte, each cut diagnosed whole. */
const FULL_SWEEP_MAX = 16 * 1024
/** Other cuts per log diagnosed whole (seeded), at most; fewer for large logs (`SAMPLED_BYTES`). */
const SAMPLED_CUTS = 120
/** Line-boundary cuts per log diagnosed whole (seeded), at most. */
const SAMPLED_BOUNDARIES = 40
/** Bytes the sampled whole-log diagnoses of one log may read in all (keeps the 1.7 MB log to about two seconds). */
const SAMPLED_BYTES = 16 * 1024 * 1024

/** What scan and repair make of one session log: its status and the bytes a repair would write (null: none). */
function outcome(name: string, data: Buffer, format: 'claude-code' | 'codex'): {status: string; written: Buffer | null} {
  const adapter = adapterByName(format)!
  const dir = '/sweep'
  const snapshot: ChatDirSnapshot = {dir, unit: {dir, path: path.join(dir, name), files: [name]}, dirMtimeMs: 1, files: [{name, kind: 'file', bytes: data.length, mtimeMs: 1, data}]}
  const d = adapter.diagnose(snapshot)
  if (d.kind === 'skipped') return {status: `skipped (${d.reason})`, written: null}
  const report = {path: snapshot.unit.path, ...d.report}
  const plan = planChat({report, snapshot, adapter}, {})
  const rewrite = plan.refusal || plan.problem ? undefined : plan.actions.find((a) => a.type === 'rewrite')
  return {status: report.status, written: rewrite?.data ? Buffer.from(rewrite.data) : null}
}

/**
 * Record boundaries of a log: offsets where a prefix holds only whole records: 0, after each LF, and at the
 * end of each line's content (a complete final record without its line ending; for CR LF, also before the LF).
 */
function boundaries(buf: Buffer): Set<number> {
  const out = new Set<number>([0, buf.length])
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] !== 0x0a) continue
    out.add(i + 1)
    out.add(i)
    if (i > 0 && buf[i - 1] === 0x0d) out.add(i - 1)
  }
  return out
}

interface Sweep {
  cuts: number
  bad: string[]
}

/** Checks one cut `k` of `doc` (whose record boundaries are `bounds`) and records what is wrong. */
function checkCut(name: string, doc: Buffer, bounds: Set<number>, k: number, format: 'claude-code' | 'codex', sweep: Sweep, label: string): void {
  sweep.cuts++
  const cut = doc.subarray(0, k)
  const r = outcome(name, cut, format)
  const problems: string[] = []
  if (r.written !== null) {
    const n = r.written.length
    if (!(n <= k && bounds.has(n) && doc.subarray(0, n).equals(r.written))) {
      const tail = r.written.subarray(Math.max(0, n - 80)).toString('utf8')
      problems.push(`repair writes ${n} bytes that are not the original up to a record boundary (ends ${JSON.stringify(tail)})`)
    }
  }
  if (bounds.has(k)) {
    if (r.written !== null) problems.push('a cut at a record boundary is rewritten')
  } else if (r.status === 'healthy') problems.push('a cut inside a record is called healthy')
  if (problems.length > 0 && sweep.bad.length < 8) sweep.bad.push(`${label} cut at ${k} (status ${r.status}): ${problems.join('; ')}`)
  else if (problems.length > 0) sweep.bad.push('')
}

const LOGS = allRealSessionLogs()

describe('every real session log cut short: a repair keeps whole original records only', () => {
  test('the sweep covers the public logs and the homes the real binaries wrote', () => {
    const where = (f: string) => (f.includes(`${path.sep}public${path.sep}`) ? 'public' : 'home')
    assert.ok(LOGS.filter((l) => l.format === 'claude-code' && where(l.file) === 'public').length >= 4)
    assert.ok(LOGS.filter((l) => l.format === 'claude-code' && where(l.file) === 'home').length >= 4)
    assert.ok(LOGS.filter((l) => l.format === 'codex' && where(l.file) === 'public').length >= 2)
    assert.ok(LOGS.filter((l) => l.format === 'codex' && where(l.file) === 'home').length >= 2)
  })

  for (const {file, format} of LOGS) {
    const doc = read(file)
    const name = path.basename(file)
    const label = `${format} ${path.relative(path.dirname(path.dirname(path.dirname(file))), file)}`
    test(`${label} (${doc.length} bytes)`, (t) => {
      const bounds = boundaries(doc)
      const sweep: Sweep = {cuts: 0, bad: []}
      // Uncut, the log is healthy and left alone.
      assert.deepEqual(outcome(name, doc, format), {status: 'healthy', written: null})
      if (doc.length <= FULL_SWEEP_MAX) {
        for (let k = 1; k < doc.length; k++) checkCut(name, doc, bounds, k, format, sweep, 'whole')
      } else {
        // Cuts right after a `}`: the first line, then the cut line.
        const firstEnd = doc.indexOf(0x0a) + 1
        for (let k = 1; k < doc.length; k++) {
          if (doc[k - 1] !== 0x7d) continue
          const lineStart = doc.lastIndexOf(0x0a, k - 1) + 1
          if (lineStart === 0) {
            checkCut(name, doc, bounds, k, format, sweep, 'first line')
            continue
          }
          const window = Buffer.concat([doc.subarray(0, firstEnd), doc.subarray(lineStart)])
          checkCut(name, window, boundaries(window), firstEnd + (k - lineStart), format, sweep, `header + line at byte ${lineStart},`)
        }
        // A seeded sample of other cuts and of line boundaries, the whole cut log diagnosed.
        const rnd = seededRandom(doc.length)
        const samples = Math.max(8, Math.min(SAMPLED_CUTS, Math.floor(SAMPLED_BYTES / doc.length)))
        for (let i = 0; i < samples; i++) checkCut(name, doc, bounds, 1 + Math.floor(rnd() * (doc.length - 1)), format, sweep, 'sampled')
        const lineBounds = [...bounds].filter((b) => b > 0 && b < doc.length).sort((a, b) => a - b)
        const nb = Math.min(SAMPLED_BOUNDARIES, samples)
        const pick = lineBounds.length <= nb ? lineBounds : Array.from({length: nb}, () => lineBounds[Math.floor(rnd() * lineBounds.length)])
        for (const k of pick) checkCut(name, doc, bounds, k, format, sweep, 'boundary')
      }
      t.diagnostic(`${label}: ${sweep.cuts} cuts checked, ${sweep.bad.length} wrong`)
      assert.ok(sweep.cuts > 0)
      assert.deepEqual(sweep.bad.filter((b) => b !== ''), [], `${sweep.bad.length} of ${sweep.cuts} cuts wrong`)
    })
  }
})
