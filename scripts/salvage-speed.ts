/**
 * Measures the salvager's throughput on the real 5.5 MB run state cut at a few offsets (the benchmark proper
 * is `npm run bench`). Usage: `node dist/scripts/salvage-speed.js [realdata dir]`. Prints MB/s per case.
 */
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {salvageJson} from '../src/lib/salvage/index.js'
import {RUN_STATE_REQUIRED_KEYS, RUN_STATE_SPINE} from '../src/lib/formats/codebuff/salvage.js'
import {REALDATA, REAL_CHATS} from '../test/helpers/fixtures.js'

const dir = process.argv[2] ?? path.join(REALDATA, 'codebuff', REAL_CHATS.large)
const full = readFileSync(path.join(dir, 'run-state.json'))
const cases: Array<[string, Buffer]> = [
  ['cut at 50%', full.subarray(0, Math.floor(full.length * 0.5))],
  ['cut at 97%', full.subarray(0, Math.floor(full.length * 0.97))],
  ['NUL tail from 60%', Buffer.concat([full.subarray(0, Math.floor(full.length * 0.6)), Buffer.alloc(full.length - Math.floor(full.length * 0.6))])],
  ['complete + 4096 NULs', Buffer.concat([full, Buffer.alloc(4096)])],
]
for (const [name, buf] of cases) {
  const opts = {spine: RUN_STATE_SPINE, required: RUN_STATE_REQUIRED_KEYS, donors: [{name: 'donor', bytes: full}]}
  for (let w = 0; w < 3; w++) salvageJson(buf, opts)
  // The fastest of 15 runs: the reference machine is shared, and the minimum is the least disturbed run.
  let s = Infinity
  let kept = 0
  for (let r = 0; r < 15; r++) {
    const t0 = process.hrtime.bigint()
    const out = salvageJson(buf, opts)
    s = Math.min(s, Number(process.hrtime.bigint() - t0) / 1e9)
    if (!out.ok) throw new Error(out.reason)
    kept = out.salvage.description.elementsKept
  }
  console.log(`${name.padEnd(22)} ${(buf.length / 1e6).toFixed(2)} MB  ${(buf.length / 1e6 / s).toFixed(0)} MB/s  (${kept} messages kept)`)
}
