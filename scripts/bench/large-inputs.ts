/**
 * Large inputs in bounded memory (part of `npm run bench`; alone: `node dist/scripts/bench/large-inputs.js`):
 * `check` of a 2 MB `.tar.gz` that inflates to 2 GiB of zeros (32 members of 64 MiB named `run-state.json`,
 * so a reader keeping what a diagnosis reads would hold them), and `bundle` of a real Codebuff chat holding a
 * sparse 2.1 GB file (past the 2 GiB a whole-file read allows), to `.tar.gz` and `.zip`. Each runs once as
 * its own `node` process under `/usr/bin/time` (wall, peak RSS). The target: peak RSS ≤ 256 MB for each, and
 * the expected outcome (the bomb refused as `archive-too-large`, exit 8; the bundles written, exit 0), so a
 * run that fails fast cannot pass.
 *
 * Environment: `BENCH_LARGE_BYTES` (the sparse file's size, default 2100 MiB), `BENCH_KEEP=1` keeps the inputs.
 */
import {spawnSync} from 'node:child_process'
import {cpSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {pathToFileURL} from 'node:url'
import {writeZeroBomb} from '../../test/helpers/archives.js'
import {REALDATA, REAL_CHATS, REPO_ROOT} from '../../test/helpers/fixtures.js'

const MiB = 2 ** 20
const BIN = path.join(REPO_ROOT, 'bin', 'run.js')
const SPARSE = Number(process.env.BENCH_LARGE_BYTES ?? 2100 * MiB)

export interface LargeInputRow {
  input: string
  command: string
  /** Bytes the input expands to (the bomb) or holds (the chat). */
  bytes: number
  wallSeconds: number
  peakRssBytes: number
  exitCode: number | null
  /** The outcome was the expected one (see the module's doc). */
  expected: boolean
}

function timed(args: string[], work: string): {wall: number; rss: number; code: number | null; stdout: string} {
  const out = path.join(work, 'time.txt')
  const t0 = process.hrtime.bigint()
  const r = spawnSync('/usr/bin/time', ['-f', '%M', '-o', out, process.execPath, BIN, ...args], {env: {...process.env, NO_COLOR: '1'}, encoding: 'utf8', maxBuffer: 1 << 28})
  const wall = Number(process.hrtime.bigint() - t0) / 1e9
  const rssK = Number(readFileSync(out, 'utf8').trim().split('\n').pop())
  return {wall, rss: rssK * 1024, code: r.status, stdout: r.stdout}
}

export async function benchLargeInputs(): Promise<LargeInputRow[]> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'chatdoctor-bench-large-'))
  const rows: LargeInputRow[] = []
  try {
    const bomb = path.join(work, 'bomb.tar.gz')
    const onDisk = await writeZeroBomb(bomb, 32, 64 * MiB, (i) => `${REAL_CHATS.small}-${i}/run-state.json`)
    const c = timed(['check', '--json', bomb], work)
    const refused = c.code === 8 && (JSON.parse(c.stdout) as {errors: Array<{id: string}>}).errors.some((e) => e.id === 'archive-too-large')
    rows.push({input: `tar.gz bomb (${(onDisk / MiB).toFixed(1)} MiB → 2 GiB)`, command: 'check --json', bytes: 2 * 1024 * MiB, wallSeconds: c.wall, peakRssBytes: c.rss, exitCode: c.code, expected: refused})

    const chat = path.join(work, 'chats', REAL_CHATS.small)
    cpSync(path.join(REALDATA, 'codebuff', REAL_CHATS.small), chat, {recursive: true})
    const big = path.join(chat, 'attachment.bin')
    writeFileSync(big, '')
    truncateSync(big, SPARSE)
    for (const kind of ['tar.gz', 'zip']) {
      const out = path.join(work, `out.${kind}`)
      const b = timed(['bundle', '--json', chat, '-o', out], work)
      rows.push({input: `chat with a ${(SPARSE / MiB).toFixed(0)} MiB file`, command: `bundle --json -o out.${kind}`, bytes: SPARSE, wallSeconds: b.wall, peakRssBytes: b.rss, exitCode: b.code, expected: b.code === 0})
      rmSync(out, {force: true})
    }
  } finally {
    if (process.env.BENCH_KEEP === '1') console.log(`inputs kept in ${work}`)
    else rmSync(work, {recursive: true, force: true})
  }
  return rows
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await benchLargeInputs()) console.log(JSON.stringify(r))
}
