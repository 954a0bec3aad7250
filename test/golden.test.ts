/**
 * Golden outputs: the whole `--json` output (and exit status) of `scan`, `repair --dry-run`, `inspect` and
 * `check` over every scenario, the examples, the real stores of every agent, damaged copies of them and bundles
 * made by `bundle` (test/helpers/golden-inputs.ts), compared byte for byte with `test/golden/<case>.txt`.
 * Only what depends on the run is normalised: the temp root of each case is written `<root>` (inputs get
 * fixed mtimes, so times need no normalising), in redacted bundles the sha256 of redacted bytes (their key
 * is random per bundle), and the sha256 of an index's repaired rows (they name the store's path, under <root>).
 *
 * A change in any verdict, finding, message, path or field shows here. When it is intended, rewrite the files
 * with `UPDATE_GOLDEN=1 npm test` and review the diff (`git diff test/golden`) line by line before committing:
 * a golden file copied from buggy output is a defect.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {after, test} from 'node:test'
import {REPO_ROOT, cleanup, tempDir} from './helpers/fixtures.js'
import {GOLDEN_CASES} from './helpers/golden-inputs.js'

const GOLDEN = path.join(REPO_ROOT, 'test', 'golden')
const UPDATE = process.env.UPDATE_GOLDEN === '1'
const RUNNER = path.join(REPO_ROOT, 'dist', 'test', 'helpers', 'golden-run.js')

const work = tempDir('chatdoctor-golden-')
after(() => cleanup(work))

test('golden: --json of scan, repair --dry-run, inspect and check over every case, byte for byte', () => {
  const out = path.join(work, 'out')
  const stdoutFile = path.join(work, 'stdout')
  const fd = openSync(stdoutFile, 'w')
  let r
  try {
    r = spawnSync(process.execPath, [RUNNER], {
      cwd: REPO_ROOT,
      env: {...process.env, GOLDEN_WORK: path.join(work, 'cases'), GOLDEN_OUT: out, GOLDEN_STDOUT: stdoutFile},
      stdio: ['ignore', fd, 'pipe'],
      encoding: 'utf8',
    })
  } finally {
    closeSync(fd)
  }
  assert.equal(r.status, 0, `the golden runner failed:\n${r.stderr}`)
  const names = GOLDEN_CASES.map((c) => `${c.name}.txt`)
  assert.equal(new Set(names).size, names.length, 'case names are unique')
  if (UPDATE) {
    rmSync(GOLDEN, {recursive: true, force: true})
    mkdirSync(GOLDEN, {recursive: true})
    for (const n of names) writeFileSync(path.join(GOLDEN, n), readFileSync(path.join(out, n)))
    return
  }
  assert.ok(existsSync(GOLDEN), 'no test/golden: run UPDATE_GOLDEN=1 npm test and review the files')
  assert.deepEqual(readdirSync(GOLDEN).sort(), [...names].sort(), 'one golden file per case, no stale ones')
  const differ: string[] = []
  for (const n of names) {
    const want = readFileSync(path.join(GOLDEN, n), 'utf8')
    const got = readFileSync(path.join(out, n), 'utf8')
    if (got !== want) differ.push(`${n}: ${firstDifference(want, got)}`)
  }
  assert.deepEqual(differ, [], 'golden outputs differ')
})

/** Where two texts first differ: line number and both lines. */
function firstDifference(a: string, b: string): string {
  const x = a.split('\n')
  const y = b.split('\n')
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] !== y[i]) return `line ${i + 1}: want ${JSON.stringify(x[i]?.slice(0, 200))}, got ${JSON.stringify(y[i]?.slice(0, 200))}`
  }
  return 'equal'
}
