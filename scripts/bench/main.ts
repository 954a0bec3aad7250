/**
 * `npm run bench`: generates the inputs (./generate.ts) in a temp folder from a seed, runs chatdoctor and the
 * baselines side by side, each as its own child process (so process start-up counts the same for all),
 * takes the median wall time of several runs and the peak RSS, and writes `bench-results/latest.json` and
 * `bench-results/latest.md` (and a timestamped copy of each). Not part of `npm test`: timings depend on the
 * machine.
 *
 * Environment: `BENCH_SEED` (default 7), `BENCH_RUNS` (default 5), `BENCH_HUGE=1` adds the ~1 GiB run-state,
 * `BENCH_KEEP=1` keeps the generated inputs (their folder is printed), `BENCH_ONLY=startup` measures only the
 * start-up figures and the snapshot hook's.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {REAL_CHATS, REALDATA, REPO_ROOT} from '../../test/helpers/fixtures.js'
import {makeBig, makeFleet, makeFleetLinks, makeLarge, makeSalvage, type InputInfo} from './generate.js'
import {benchFind} from './find.js'
import {benchLargeInputs, type LargeInputRow} from './large-inputs.js'
import {makeHookSession} from './snapshot-hook.js'

const SEED = Number(process.env.BENCH_SEED ?? 7)
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5))
const HUGE = process.env.BENCH_HUGE === '1'
const KEEP = process.env.BENCH_KEEP === '1'
/** `BENCH_ONLY=startup`: only the start-up figures and the snapshot hook's (no generated inputs). */
const STARTUP_ONLY = process.env.BENCH_ONLY === 'startup'
const MB = 1e6
const BIN = path.join(REPO_ROOT, 'bin', 'run.js')
const SCRIPTS = path.join(REPO_ROOT, 'dist', 'scripts', 'bench')
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null
const JQ = spawnSync('jq', ['--version'], {encoding: 'utf8'}).status === 0 ? 'jq' : null

interface Row {
  input: string
  tool: string
  /** Median wall time of the runs, seconds (scaled when `scale` > 1). */
  seconds: number
  runs: number[]
  /** Peak RSS of the child, bytes (max over runs); null when unknown. */
  rssBytes: number | null
  /** Bytes of generation files the input holds, for MB/s. */
  bytes: number
  exitCode: number | null
  /** The time was measured on a 1/scale sample and multiplied by scale. */
  scale?: number
  ratioToFloor?: number
  note?: string
}

const rows: Row[] = []
/** The large-input runs (`large-inputs.ts`), for their targets. */
const largeInputs: LargeInputRow[] = []
const work = mkdtempSync(path.join(os.tmpdir(), 'chatdoctor-bench-'))
const rssFile = path.join(work, 'rss.txt')

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** Runs one command once: wall seconds, peak RSS in bytes (or null), exit code, stdout. */
function runOnce(cmd: string, args: string[], isNode: boolean, extraEnv: NodeJS.ProcessEnv = {}): {seconds: number; rss: number | null; code: number | null; stdout: string} {
  rmSync(rssFile, {force: true})
  let file = cmd
  let argv = args
  const env: NodeJS.ProcessEnv = {...process.env, NO_COLOR: '1', ...extraEnv}
  if (TIME) {
    file = TIME
    argv = ['-f', '%M', '-o', rssFile, cmd, ...args]
  } else if (isNode) {
    argv = ['--import', path.join(SCRIPTS, 'rss-probe.js'), ...args]
    env.BENCH_RSS_OUT = rssFile
  }
  const t0 = process.hrtime.bigint()
  const r = spawnSync(file, argv, {env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30, encoding: 'utf8'})
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9
  let rss: number | null = null
  if (existsSync(rssFile)) {
    const text = readFileSync(rssFile, 'utf8').trim().split('\n').pop() ?? ''
    const n = Number(text)
    if (Number.isFinite(n) && n > 0) rss = TIME ? n * 1024 : n
  }
  return {seconds, rss, code: r.status, stdout: r.stdout}
}

function measure(input: InputInfo | {name: string; bytes: number}, tool: string, cmd: string, args: string[], opts: {runs?: number; scale?: number; note?: string; isNode?: boolean; env?: NodeJS.ProcessEnv} = {}): Row {
  const runs: number[] = []
  let rss: number | null = null
  let code: number | null = null
  const n = opts.runs ?? RUNS
  for (let i = 0; i < n; i++) {
    const r = runOnce(cmd, args, opts.isNode ?? cmd === process.execPath, opts.env)
    runs.push(r.seconds * (opts.scale ?? 1))
    if (r.rss !== null) rss = Math.max(rss ?? 0, r.rss)
    code = r.code
  }
  const row: Row = {input: input.name, tool, seconds: median(runs), runs, rssBytes: rss, bytes: input.bytes, exitCode: code, ...(opts.scale ? {scale: opts.scale} : {}), ...(opts.note ? {note: opts.note} : {})}
  rows.push(row)
  const mbps = row.bytes > 0 ? ` ${(row.bytes / MB / row.seconds).toFixed(0)} MB/s` : ''
  console.log(`  ${input.name.padEnd(12)} ${tool.padEnd(28)} ${row.seconds.toFixed(3)} s${mbps}  RSS ${rss === null ? '?' : (rss / MB).toFixed(0) + ' MB'}  exit ${code}`)
  return row
}

const node = process.execPath
const scan = (dir: string, ...flags: string[]) => [BIN, 'scan', '--json', ...flags, dir]

/** One command of an interleaved set: a row's tool name, command, arguments and options. */
interface Spec {
  tool: string
  cmd: string
  args: string[]
  note?: string
  env?: NodeJS.ProcessEnv
}

/**
 * Runs the specs interleaved — run 1 of each, then run 2 of each, … — so a machine whose speed drifts (a shared
 * box) slows all of them alike, and gives each spec's ratio to the first (the floor) as the median of the
 * per-round ratios. Adds one row per spec.
 */
function measureInterleaved(input: InputInfo, specs: Spec[]): Row[] {
  const times = specs.map(() => [] as number[])
  const rss = specs.map(() => null as number | null)
  const codes = specs.map(() => null as number | null)
  for (let round = 0; round < RUNS; round++) {
    specs.forEach((spec, k) => {
      const r = runOnce(spec.cmd, spec.args, spec.cmd === process.execPath, spec.env)
      times[k].push(r.seconds)
      if (r.rss !== null) rss[k] = Math.max(rss[k] ?? 0, r.rss)
      codes[k] = r.code
    })
  }
  return specs.map((spec, k) => {
    const row: Row = {input: input.name, tool: spec.tool, seconds: median(times[k]), runs: times[k], rssBytes: rss[k], bytes: input.bytes, exitCode: codes[k], ...(spec.note ? {note: spec.note} : {})}
    row.ratioToFloor = median(times[k].map((t, i) => t / times[0][i]))
    rows.push(row)
    const mbps = row.bytes > 0 ? ` ${(row.bytes / MB / row.seconds).toFixed(0)} MB/s` : ''
    console.log(`  ${input.name.padEnd(12)} ${spec.tool.padEnd(28)} ${row.seconds.toFixed(3)} s${mbps}  ×floor ${row.ratioToFloor.toFixed(2)}  RSS ${rss[k] === null ? '?' : (rss[k]! / MB).toFixed(0) + ' MB'}  exit ${codes[k]}`)
    return row
  })
}

function benchInput(input: InputInfo, opts: {jqEvery?: number; full?: boolean} = {}): void {
  // Warm the page cache (the targets are for a warm cache); not recorded.
  runOnce(node, [path.join(SCRIPTS, 'floor.js'), input.dir], true)
  const [floor] = measureInterleaved(input, [
    {tool: 'floor (read + JSON.parse)', cmd: node, args: [path.join(SCRIPTS, 'floor.js'), input.dir]},
    {tool: 'chatdoctor scan --json', cmd: node, args: scan(input.dir), env: {CHATDOCTOR_WORKERS: undefined}},
    {tool: 'chatdoctor scan --json, main thread only', cmd: node, args: scan(input.dir), env: {CHATDOCTOR_WORKERS: '0'}, note: 'CHATDOCTOR_WORKERS=0: no worker threads (the default adds one per extra core once a scan runs long)'},
    {tool: 'chatdoctor scan --json --quick', cmd: node, args: scan(input.dir, '--quick')},
    {tool: "agents' recovery loop", cmd: node, args: [path.join(SCRIPTS, 'recovery.js'), input.dir]},
  ])
  if (JQ) {
    const every = opts.jqEvery ?? 1
    const args = [path.join(SCRIPTS, 'jq-each.js'), ...(every > 1 ? ['--every', String(every)] : []), input.dir]
    const r = measure(input, 'jq empty (one call per file)', node, args, {runs: 1, scale: every > 1 ? every : undefined, note: every > 1 ? `1 run on every ${every}th chat, time ×${every}` : '1 run'})
    r.ratioToFloor = r.seconds / floor.seconds
  }
}

/**
 * Salvage throughput against `JSON.parse` on the same bytes, measured in one child process
 * (`salvage-throughput.js`: fastest of RUNS in-process runs per file, summed); adds two rows.
 */
function salvageThroughput(input: InputInfo): void {
  const r = runOnce(node, [path.join(SCRIPTS, 'salvage-throughput.js'), '--runs', String(Math.max(3, RUNS)), input.dir], true)
  if (r.code !== 0) {
    console.log(`  salvage throughput: child failed (exit ${r.code})`)
    return
  }
  const m = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as {files: number; bytes: number; salvageSeconds: number; parseBytes: number; parseSeconds: number}
  for (const [tool, seconds, bytes, note] of [
    ['salvage (in process)', m.salvageSeconds, m.bytes, `${m.files} torn states; fastest of ${Math.max(3, RUNS)} runs each, summed`],
    ['JSON.parse of the salvaged bytes (in process)', m.parseSeconds, m.parseBytes, 'same bytes, parsed once'],
  ] as const) {
    rows.push({input: input.name, tool, seconds, runs: [seconds], rssBytes: r.rss, bytes, exitCode: 0, note})
    console.log(`  ${input.name.padEnd(12)} ${tool.padEnd(28)} ${seconds.toFixed(3)} s ${(bytes / MB / seconds).toFixed(0)} MB/s`)
  }
}

/**
 * The snapshot hook as Claude Code runs it after a turn: `chatdoctor snapshot --hook claude-code` with the
 * `Stop` input on stdin, for a 1 MB session, in a fresh process each run. The store is emptied before each run,
 * so every run seals and writes a snapshot (an unchanged session would be skipped by its sha256, which is
 * cheaper); a run that stored nothing fails the figure.
 */
/** Thrown to leave out the generated inputs (`BENCH_ONLY=startup`). */
class SkipInputs extends Error {}

let hookStartup = 0
function hookBudget(): void {
  const s = makeHookSession(path.join(work, 'hook'), MB)
  const runs: number[] = []
  let stored = true
  // One run first, not counted: it makes the key (once per machine, not per turn).
  spawnSync(node, [BIN, 'snapshot', '--hook', 'claude-code'], {env: {...process.env, ...s.env}, input: s.stdin, stdio: ['pipe', 'pipe', 'pipe']})
  // A bare `node -e ''` interleaved run by run: what of the time is the process start-up on this machine now.
  const bare: number[] = []
  for (let i = 0; i < Math.max(5, RUNS); i++) {
    rmSync(s.store, {recursive: true, force: true})
    let t0 = process.hrtime.bigint()
    const r = spawnSync(node, [BIN, 'snapshot', '--hook', 'claude-code'], {env: {...process.env, ...s.env}, input: s.stdin, stdio: ['pipe', 'pipe', 'pipe'], encoding: 'utf8'})
    runs.push(Number(process.hrtime.bigint() - t0) / 1e9)
    if (r.status !== 0 || !s.stored()) stored = false
    t0 = process.hrtime.bigint()
    spawnSync(node, ['-e', ''], {stdio: 'ignore'})
    bare.push(Number(process.hrtime.bigint() - t0) / 1e9)
  }
  const startup = median(bare)
  const row: Row = {input: 'hook', tool: 'chatdoctor snapshot --hook claude-code (Stop)', seconds: median(runs), runs, rssBytes: null, bytes: s.bytes, exitCode: stored ? 0 : 1, note: `a ${(s.bytes / MB).toFixed(1)} MB session (the real Claude Code log, its last answer grown); a fresh process and an empty store each run; \`node -e ''\` interleaved: ${startup.toFixed(3)} s${stored ? '' : '; a run stored NO snapshot'}`}
  rows.push(row)
  hookStartup = startup
  console.log(`  hook         ${row.tool.padEnd(28)} ${row.seconds.toFixed(3)} s (node -e '': ${startup.toFixed(3)} s)${stored ? '' : ' (a run stored nothing)'}`)
}

function machine() {
  const cpus = os.cpus()
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    loadAverage: os.loadavg().map((x) => Number(x.toFixed(2))),
  }
}


const started = Date.now()
const machineAtStart = machine()
console.log(`chatdoctor bench: seed ${SEED}, ${RUNS} runs each, inputs in ${work}`)
console.log(`machine: ${machineAtStart.cores} × ${machineAtStart.cpu}, ${machineAtStart.memoryGiB} GiB, load ${machineAtStart.loadAverage.join(' ')}`)
const inputs: InputInfo[] = []
try {
  // ---- start-up ----
  console.log('start-up')
  const one = {name: 'one chat', bytes: 0}
  const oneChat = path.join(REALDATA, 'codebuff', REAL_CHATS.tenTurns)
  const startupRuns = Math.max(5, RUNS)
  measure(one, "node -e '' (no chatdoctor)", node, ['-e', ''], {runs: startupRuns})
  measure(one, 'chatdoctor --version', node, [BIN, '--version'], {runs: startupRuns})
  measure(one, 'chatdoctor scan <one chat>', node, [BIN, 'scan', oneChat], {runs: startupRuns})
  measure(one, 'chatdoctor scan --json <one chat>', node, [BIN, 'scan', '--json', oneChat], {runs: startupRuns})
  console.log('snapshot hook')
  hookBudget()

  // ---- inputs ----
  if (STARTUP_ONLY) throw new SkipInputs()
  let t = Date.now()
  const fleet = makeFleet(path.join(work, 'fleet'), SEED)
  const links = makeFleetLinks(path.join(work, 'fleet-links'))
  const large = makeLarge(path.join(work, 'large'), SEED)
  const big = makeBig(path.join(work, 'big'), 'big', 200 * MB)
  const salvage = makeSalvage(path.join(work, 'salvage'), SEED)
  inputs.push(fleet, links, large, big, salvage)
  let huge: InputInfo | null = null
  if (HUGE) inputs.push((huge = makeBig(path.join(work, 'huge'), 'huge', 1024 * 2 ** 20)))
  console.log(`generated ${inputs.length} inputs in ${((Date.now() - t) / 1000).toFixed(1)} s`)
  for (const i of inputs) console.log(`  ${i.name}: ${i.chats} chats, ${i.files} files, ${(i.bytes / MB).toFixed(0)} MB, largest ${(i.largestFile / MB).toFixed(1)} MB (${i.note ?? ''})`)

  t = Date.now()
  console.log('fleet')
  benchInput(fleet, {jqEvery: 100})
  console.log('fleet-links (quick only)')
  measure(links, 'chatdoctor scan --json --quick', node, scan(links.dir, '--quick'))
  console.log('large')
  benchInput(large)
  console.log('big')
  benchInput(big)
  console.log('salvage input (truncated states)')
  benchInput(salvage)
  salvageThroughput(salvage)
  if (huge) {
    console.log('huge')
    runOnce(node, [path.join(SCRIPTS, 'floor.js'), huge.dir], true)
    measure(huge, 'chatdoctor scan --json', node, scan(huge.dir), {runs: 1})
    measure(huge, 'chatdoctor scan --json --quick', node, scan(huge.dir, '--quick'), {runs: 1})
    measure(huge, 'floor (read + JSON.parse)', node, [path.join(SCRIPTS, 'floor.js'), huge.dir], {runs: 1, note: 'V8 cannot hold a string this long: the floor itself fails'})
  }
  console.log('find (a fleet of real-shaped sessions of every agent: scripts/bench/find.ts)')
  for (const f of benchFind()) {
    rows.push({input: 'find fleet', tool: `chatdoctor find "${f.query}" --json`, seconds: f.wallSeconds, runs: f.runs, rssBytes: f.peakRssBytes, bytes: f.bytes, exitCode: 0, note: `${f.files} sessions, ${f.sessions} matched; CPU ${f.cpuSeconds.toFixed(2)} s (${f.mbPerCpuSecond.toFixed(0)} MB per CPU-second)`})
  }
  console.log('large inputs (an archive bomb for check, a 2.1 GB file for bundle: scripts/bench/large-inputs.ts)')
  for (const l of await benchLargeInputs()) {
    rows.push({input: l.input, tool: `chatdoctor ${l.command}`, seconds: l.wallSeconds, runs: [l.wallSeconds], rssBytes: l.peakRssBytes, bytes: l.bytes, exitCode: l.exitCode, note: l.expected ? 'bounded memory' : 'unexpected outcome'})
    largeInputs.push(l)
  }
  console.log(`measured in ${((Date.now() - t) / 1000).toFixed(1)} s`)
} catch (e) {
  if (!(e instanceof SkipInputs)) throw e
} finally {
  if (!KEEP) rmSync(work, {recursive: true, force: true})
}

// ---- targets ----
interface Check {
  target: string
  measured: string
  ok: boolean | null
}
const checks: Check[] = []
for (const l of largeInputs) checks.push({target: `${l.input}: chatdoctor ${l.command} peak RSS ≤ 256 MiB`, measured: `${(l.peakRssBytes / 2 ** 20).toFixed(0)} MiB, exit ${l.exitCode}${l.expected ? '' : ' (not the expected outcome)'}`, ok: l.expected && l.peakRssBytes <= 256 * 2 ** 20})
const row = (input: string, tool: string) => rows.find((r) => r.input === input && r.tool === tool)
const largestOf = (name: string) => inputs.find((i) => i.name === name)?.largestFile ?? 0
{
  const v = row('one chat', 'chatdoctor --version')
  const s = row('one chat', 'chatdoctor scan <one chat>')
  if (v) checks.push({target: '`--version` ≤ 0.35 s', measured: `${v.seconds.toFixed(3)} s`, ok: v.seconds <= 0.35})
  if (s) checks.push({target: '`scan <one chat>` ≤ 0.45 s', measured: `${s.seconds.toFixed(3)} s`, ok: s.seconds <= 0.45})
  const f = row('fleet', 'chatdoctor scan --json')
  if (f?.ratioToFloor) checks.push({target: 'fleet scan ≤ 1.5× floor', measured: `${f.ratioToFloor.toFixed(2)}× (${f.seconds.toFixed(2)} s)`, ok: f.ratioToFloor <= 1.5})
  for (const name of ['large', 'big']) {
    const l = row(name, 'chatdoctor scan --json')
    if (l) checks.push({target: `${name}: read+validate ≥ 150 MB/s`, measured: `${(l.bytes / MB / l.seconds).toFixed(0)} MB/s`, ok: l.bytes / MB / l.seconds >= 150})
  }
  const q1 = row('fleet', 'chatdoctor scan --json --quick')
  const q2 = row('fleet-links', 'chatdoctor scan --json --quick')
  if (q1 && q2) checks.push({target: '`--quick`: 20 MB states within 20% of 20 KB states', measured: `${q2.seconds.toFixed(2)} s vs ${q1.seconds.toFixed(2)} s (${((q2.seconds / q1.seconds - 1) * 100).toFixed(0)}%)`, ok: Math.abs(q2.seconds / q1.seconds - 1) <= 0.2})
  for (const r of rows.filter((x) => x.tool.startsWith('chatdoctor scan') && inputs.some((i) => i.name === x.input))) {
    if (r.rssBytes === null) continue
    const limit = 6 * largestOf(r.input) + 80 * MB
    checks.push({target: `memory ${r.input} ${r.tool.replace('chatdoctor ', '')} ≤ 6× largest + 80 MB (${(limit / MB).toFixed(0)} MB)`, measured: `${(r.rssBytes / MB).toFixed(0)} MB`, ok: r.rssBytes <= limit})
  }
  const fr = rows.find((r) => r.input === 'find fleet' && !r.tool.includes('todostore'))
  if (fr) checks.push({target: '`find` over a 1 GiB fleet ≥ 300 MB/s, peak RSS ≤ 200 MB', measured: `${(fr.bytes / MB / fr.seconds).toFixed(0)} MB/s, ${((fr.rssBytes ?? 0) / MB).toFixed(0)} MB`, ok: fr.bytes / MB / fr.seconds >= 300 && (fr.rssBytes ?? 0) <= 200 * MB})
  const h = row('hook', 'chatdoctor snapshot --hook claude-code (Stop)')
  if (h) checks.push({target: 'snapshot hook ≤ 150 ms for a 1 MB session', measured: `${(h.seconds * 1000).toFixed(0)} ms (${((h.seconds - hookStartup) * 1000).toFixed(0)} ms over a bare node start-up)${h.exitCode === 0 ? '' : '; a run stored nothing'}`, ok: h.exitCode === 0 && h.seconds <= 0.15})
  const sv = row('salvage', 'salvage (in process)')
  const jp = row('salvage', 'JSON.parse of the salvaged bytes (in process)')
  if (sv) {
    const rate = sv.bytes / MB / sv.seconds
    const vs = jp ? ` (JSON.parse on the same bytes: ${(jp.bytes / MB / jp.seconds).toFixed(0)} MB/s)` : ''
    checks.push({target: 'salvage ≥ 100 MB/s', measured: `${rate.toFixed(0)} MB/s${vs}`, ok: rate >= 100})
  }
}

// ---- output ----
const result = {
  date: new Date(started).toISOString(),
  durationSeconds: Math.round((Date.now() - started) / 1000),
  seed: SEED,
  runs: RUNS,
  machine: {...machineAtStart, loadAverageAtEnd: os.loadavg().map((x) => Number(x.toFixed(2)))},
  rssSource: TIME ? '/usr/bin/time %M' : 'process.resourceUsage().maxRSS (node children only)',
  inputs: inputs.map((i) => ({...i, dir: undefined})),
  rows,
  checks,
}

function markdown(): string {
  const m = result.machine
  const lines = [
    `Measured ${result.date.slice(0, 10)} on ${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}; load average ${m.loadAverage.join(' ')} at start, ${m.loadAverageAtEnd.join(' ')} at end. Seed ${SEED}, median of ${RUNS} runs (start-up: ${Math.max(5, RUNS)}), the tools of an input interleaved run by run, × floor the median of the per-run ratios; warm page cache; whole bench ${result.durationSeconds} s.`,
    '',
    '| input | tool | median s | MB/s | peak RSS MB | × floor | note |',
    '|---|---|---:|---:|---:|---:|---|',
  ]
  for (const r of rows) {
    const mbps = r.bytes > 0 ? (r.bytes / MB / r.seconds).toFixed(0) : ''
    lines.push(`| ${r.input} | ${r.tool} | ${r.seconds.toFixed(3)} | ${mbps} | ${r.rssBytes === null ? '?' : (r.rssBytes / MB).toFixed(0)} | ${r.ratioToFloor !== undefined ? r.ratioToFloor.toFixed(2) : ''} | ${r.note ?? ''} |`)
  }
  lines.push('', 'Inputs:', '')
  for (const i of inputs) lines.push(`- \`${i.name}\`: ${i.chats} chats, ${i.files} files, ${(i.bytes / MB).toFixed(0)} MB, largest file ${(i.largestFile / MB).toFixed(1)} MB (${i.note ?? ''})`)
  lines.push('', '| target | measured | met |', '|---|---|---|')
  for (const c of checks) lines.push(`| ${c.target} | ${c.measured} | ${c.ok === null ? 'skipped' : c.ok ? 'yes' : '**no**'} |`)
  return lines.join('\n') + '\n'
}

const outDir = path.join(REPO_ROOT, 'bench-results')
mkdirSync(outDir, {recursive: true})
const stamp = result.date.replace(/[:.]/g, '-')
const md = markdown()
for (const name of ['latest', stamp]) {
  writeFileSync(path.join(outDir, `${name}.json`), JSON.stringify(result, null, 2) + '\n')
  writeFileSync(path.join(outDir, `${name}.md`), md)
}
console.log('\n' + md)
console.log(`wrote bench-results/latest.json and bench-results/latest.md${KEEP ? `; inputs kept in ${work}` : ''}`)
