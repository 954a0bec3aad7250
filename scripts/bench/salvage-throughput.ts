/**
 * Bench child: salvage throughput against `JSON.parse` on the same bytes. For every `run-state.json` under the
 * folder (the bench's truncated states), times `salvageJson` on the torn bytes and `JSON.parse` on the
 * salvaged document (the bytes a salvage keeps, closed), each the fastest of `--runs` in-process runs after a
 * warm-up. Prints one JSON line: `{files, bytes, salvageSeconds, parseBytes, parseSeconds}` (sums).
 */
import {readdirSync, readFileSync, statSync} from 'node:fs'
import path from 'node:path'
import {RUN_STATE_REQUIRED_KEYS, RUN_STATE_SPINE} from '../../src/lib/formats/codebuff/salvage.js'
import {salvageBytes, salvageJson} from '../../src/lib/salvage/index.js'

const args = process.argv.slice(2)
const runsAt = args.indexOf('--runs')
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 5
const root = args.filter((a, i) => a !== '--runs' && i !== runsAt + 1)[0]

function files(dir: string): string[] {
  const out: string[] = []
  for (const n of readdirSync(dir)) {
    const p = path.join(dir, n)
    if (statSync(p).isDirectory()) out.push(...files(p))
    else if (n === 'run-state.json') out.push(p)
  }
  return out
}

function fastest(fn: () => void): number {
  fn()
  let best = Infinity
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint()
    fn()
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9)
  }
  return best
}

const sum = {files: 0, bytes: 0, salvageSeconds: 0, parseBytes: 0, parseSeconds: 0}
for (const f of files(root)) {
  const buf = readFileSync(f)
  const opts = {spine: RUN_STATE_SPINE, required: RUN_STATE_REQUIRED_KEYS, donors: []}
  const out = salvageJson(buf, opts)
  if (!out.ok) throw new Error(`${f}: ${out.reason}`)
  const salvaged = salvageBytes(out.salvage)
  const text = salvaged.toString('utf8')
  sum.files++
  sum.bytes += buf.length
  sum.salvageSeconds += fastest(() => salvageJson(buf, opts))
  sum.parseBytes += salvaged.length
  sum.parseSeconds += fastest(() => JSON.parse(text))
}
console.log(JSON.stringify(sum))
