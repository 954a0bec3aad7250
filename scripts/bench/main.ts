/**
 * `npm run bench`: generates the inputs (./generate.ts, ./generate-logs.ts) in a temp folder from a seed, runs
 * chatdoctor and the baselines side by side, each as its own child process (so process start-up counts the
 * same for all), and records for every run the wall time, the child's CPU time (user + sys) and its peak RSS;
 * a row gives the medians, and its ratios to the floor (wall and CPU) are the medians of the per-run ratios of
 * interleaved runs. Writes `bench-results/latest.json` and `bench-results/latest.md` (and a timestamped copy
 * of each). Not part of `npm test`: timings depend on the machine.
 *
 * Environment: `BENCH_SEED` (default 7), `BENCH_RUNS` (default 3), `BENCH_HUGE=1` adds the 200 MB state (`big`), the ~1 GiB run-states
 * (intact and torn) and the bounded-memory inputs (a ≥ 2 GiB file to bundle, a gzip bomb to check, a 500 MB
 * torn log to repair, a 400 MB mostly-NUL log), `BENCH_KEEP=1` keeps the generated inputs (their folder is
 * printed), `BENCH_ONLY=startup` measures only the start-up figures and the snapshot hook's, `BENCH_ONLY=fleets`
 * only the real-shaped fleet (no jq) and the 20,000-chat fleet (each scan variant interleaved with the floor),
 * `BENCH_ONLY=logs` only the session logs (the 200 MB Claude Code and Codex logs; the 500 MB torn log's scan,
 * repair and undo).
 */
import {spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {REAL_CHATS, REALDATA, REPO_ROOT} from '../../test/helpers/fixtures.js'
import {makeBig, makeFleet, makeFleetLinks, makeLarge, makeSalvage, type InputInfo} from './generate.js'
import {benchFind} from './find.js'
import {benchLargeInputs, type LargeInputRow} from './large-inputs.js'
import {makeBomb, makeClaudeLog, makeCodexLog, makeNulLog, makeTornLog} from './generate-logs.js'
import {makeHookSession} from './snapshot-hook.js'

const SEED = Number(process.env.BENCH_SEED ?? 7)
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3))
const HUGE = process.env.BENCH_HUGE === '1'
const KEEP = process.env.BENCH_KEEP === '1'
/** `BENCH_ONLY=startup`: only the start-up figures and the snapshot hook's (no generated inputs). */
const STARTUP_ONLY = process.env.BENCH_ONLY === 'startup'
/** `BENCH_ONLY=fleets`: only the real-shaped fleet and the 20,000-chat fleet. */
const FLEETS_ONLY = process.env.BENCH_ONLY === 'fleets'
/** `BENCH_ONLY=logs`: only the session-log rows (the 200 MB logs, and the 500 MB torn log's scan, repair and undo). */
const LOGS_ONLY = process.env.BENCH_ONLY === 'logs'
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
  /** Median CPU time of the child (user + sys), seconds (scaled like `seconds`); null when unknown. */
  cpuSeconds: number | null
  cpuRuns: number[]
  /** Peak RSS of the child, bytes (max over runs); null when unknown. */
  rssBytes: number | null
  /** Bytes of generation files the input holds, for MB/s. */
  bytes: number
  exitCode: number | null
  /** The time was measured on a 1/scale sample and multiplied by scale. */
  scale?: number
  /** Median of the per-run ratios of wall time to the floor's wall time (interleaved runs). */
  ratioToFloor?: number
  /** Median of the per-run ratios of CPU time to the floor's CPU time. */
  cpuRatioToFloor?: number
  note?: string
}

const rows: Row[] = []
/** The large-input runs (`large-inputs.ts`), for their targets. */
const largeInputs: LargeInputRow[] = []
/** The last run's stdout of each row measured by `measure` (for checks on what a tool said). */
const outputs = new Map<Row, string>()
const work = mkdtempSync(path.join(os.tmpdir(), 'chatdoctor-bench-'))
const rssFile = path.join(work, 'rss.txt')
/** CPU seconds (user + sys) of every measured child so far: what the bench costs the machine, whatever its load. */
let childCpu = 0

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** Runs one command once: wall seconds, CPU seconds (user + sys), peak RSS in bytes (or null), exit code, stdout. */
function runOnce(cmd: string, args: string[], isNode: boolean, extraEnv: NodeJS.ProcessEnv = {}): {seconds: number; cpu: number | null; rss: number | null; code: number | null; stdout: string} {
  rmSync(rssFile, {force: true})
  let file = cmd
  let argv = args
  const env: NodeJS.ProcessEnv = {...process.env, NO_COLOR: '1', ...extraEnv}
  if (TIME) {
    file = TIME
    argv = ['-f', '%M %U %S', '-o', rssFile, cmd, ...args]
  } else if (isNode) {
    argv = ['--import', path.join(SCRIPTS, 'rss-probe.js'), ...args]
    env.BENCH_RSS_OUT = rssFile
  }
  const t0 = process.hrtime.bigint()
  const r = spawnSync(file, argv, {env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30, encoding: 'utf8'})
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9
  let rss: number | null = null
  let cpu: number | null = null
  if (existsSync(rssFile)) {
    // `/usr/bin/time` and the probe both write "<peak RSS KiB> <user s> <sys s>" (time may print a status line first).
    const [k, u, sy] = (readFileSync(rssFile, 'utf8').trim().split('\n').pop() ?? '').split(' ').map(Number)
    if (Number.isFinite(k) && k > 0) rss = k * 1024
    if (Number.isFinite(u) && Number.isFinite(sy)) cpu = u + sy
  }
  if (cpu !== null) childCpu += cpu
  return {seconds, cpu, rss, code: r.status, stdout: r.stdout}
}

const fmt = (x: number | null, d = 3) => (x === null ? '?' : x.toFixed(d))

function logRow(row: Row): void {
  const mbps = row.bytes > 0 ? ` ${(row.bytes / MB / row.seconds).toFixed(0)} MB/s` : ''
  const ratios = row.ratioToFloor !== undefined ? `  ×floor wall ${row.ratioToFloor.toFixed(2)} cpu ${row.cpuRatioToFloor === undefined ? '?' : row.cpuRatioToFloor.toFixed(2)}` : ''
  console.log(`  ${row.input.padEnd(14)} ${row.tool.padEnd(36)} ${row.seconds.toFixed(3)} s cpu ${fmt(row.cpuSeconds, 2)} s${mbps}${ratios}  RSS ${row.rssBytes === null ? '?' : (row.rssBytes / MB).toFixed(0) + ' MB'}  exit ${row.exitCode}`)
}

function measure(input: InputInfo | {name: string; bytes: number}, tool: string, cmd: string, args: string[], opts: {runs?: number; scale?: number; note?: string; isNode?: boolean; env?: NodeJS.ProcessEnv} = {}): Row {
  const runs: number[] = []
  const cpus: number[] = []
  let rss: number | null = null
  let code: number | null = null
  let stdout = ''
  const n = opts.runs ?? RUNS
  for (let i = 0; i < n; i++) {
    const r = runOnce(cmd, args, opts.isNode ?? cmd === process.execPath, opts.env)
    runs.push(r.seconds * (opts.scale ?? 1))
    if (r.cpu !== null) cpus.push(r.cpu * (opts.scale ?? 1))
    if (r.rss !== null) rss = Math.max(rss ?? 0, r.rss)
    code = r.code
    stdout = r.stdout
  }
  const row: Row = {input: input.name, tool, seconds: median(runs), runs, cpuSeconds: cpus.length ? median(cpus) : null, cpuRuns: cpus, rssBytes: rss, bytes: input.bytes, exitCode: code, ...(opts.scale ? {scale: opts.scale} : {}), ...(opts.note ? {note: opts.note} : {})}
  rows.push(row)
  outputs.set(row, stdout)
  logRow(row)
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
 * per-round ratios (wall and CPU alike). Adds one row per spec.
 */
function measureInterleaved(input: InputInfo, specs: Spec[], runs = RUNS): Row[] {
  const times = specs.map(() => [] as number[])
  const cpus = specs.map(() => [] as Array<number | null>)
  const rss = specs.map(() => null as number | null)
  const codes = specs.map(() => null as number | null)
  for (let round = 0; round < runs; round++) {
    specs.forEach((spec, k) => {
      const r = runOnce(spec.cmd, spec.args, spec.cmd === process.execPath, spec.env)
      times[k].push(r.seconds)
      cpus[k].push(r.cpu)
      if (r.rss !== null) rss[k] = Math.max(rss[k] ?? 0, r.rss)
      codes[k] = r.code
    })
  }
  return specs.map((spec, k) => {
    const cpuRuns = cpus[k].filter((c): c is number => c !== null)
    const row: Row = {input: input.name, tool: spec.tool, seconds: median(times[k]), runs: times[k], cpuSeconds: cpuRuns.length ? median(cpuRuns) : null, cpuRuns, rssBytes: rss[k], bytes: input.bytes, exitCode: codes[k], ...(spec.note ? {note: spec.note} : {})}
    row.ratioToFloor = median(times[k].map((t, i) => t / times[0][i]))
    const cpuRatios = cpus[k].flatMap((c, i) => (c !== null && cpus[0][i] ? [c / cpus[0][i]!] : []))
    if (cpuRatios.length) row.cpuRatioToFloor = median(cpuRatios)
    rows.push(row)
    logRow(row)
    return row
  })
}

/** `jqEvery`: run jq on every n-th chat (0: not at all). */
function benchInput(input: InputInfo, opts: {jqEvery?: number; mainThread?: boolean} = {}): void {
  // Warm the page cache (the targets are for a warm cache); not recorded.
  runOnce(node, [path.join(SCRIPTS, 'floor.js'), input.dir], true)
  const [floor] = measureInterleaved(input, [
    {tool: 'floor (read + JSON.parse)', cmd: node, args: [path.join(SCRIPTS, 'floor.js'), input.dir]},
    {tool: 'chatdoctor scan --json', cmd: node, args: scan(input.dir), env: {CHATDOCTOR_WORKERS: undefined}},
    ...(opts.mainThread === false ? [] : [{tool: 'chatdoctor scan --json, main thread only', cmd: node, args: scan(input.dir), env: {CHATDOCTOR_WORKERS: '0'}, note: 'CHATDOCTOR_WORKERS=0: no worker threads (the default adds one per extra core the machine leaves idle once a scan runs long)'}]),
    {tool: 'chatdoctor scan --json --quick', cmd: node, args: scan(input.dir, '--quick')},
    {tool: "agents' recovery loop", cmd: node, args: [path.join(SCRIPTS, 'recovery.js'), input.dir]},
  ])
  if (JQ && opts.jqEvery !== 0) {
    const every = opts.jqEvery ?? 1
    const args = [path.join(SCRIPTS, 'jq-each.js'), ...(every > 1 ? ['--every', String(every)] : []), input.dir]
    const batched = 'a batched `jq empty a b c` is no check: it stops at the first damaged file'
    const r = measure(input, 'jq empty (one call per file)', node, args, {runs: 1, scale: every > 1 ? every : undefined, note: `${every > 1 ? `1 run on every ${every}th chat, time ×${every}` : '1 run'}; ${batched}`})
    r.ratioToFloor = r.seconds / floor.seconds
    if (r.cpuSeconds !== null && floor.cpuSeconds) r.cpuRatioToFloor = r.cpuSeconds / floor.cpuSeconds
  }
}

/**
 * A JSON-lines log input: the streaming line floor and chatdoctor's scan interleaved, then inspect (one run:
 * it has no time target, only its peak RSS) and jq over the file.
 */
function benchLog(input: InputInfo, logFile: string): void {
  const lineFloor = [path.join(SCRIPTS, 'line-floor.js'), input.dir]
  runOnce(node, lineFloor, true)
  const [floor] = measureInterleaved(input, [
    {tool: 'line floor (readline + JSON.parse)', cmd: node, args: lineFloor},
    {tool: 'chatdoctor scan --json', cmd: node, args: scan(input.dir)},
  ])
  const i = measure(input, 'chatdoctor inspect --json', node, [BIN, 'inspect', '--json', logFile], {runs: 1, note: '1 run'})
  i.ratioToFloor = i.seconds / floor.seconds
  if (i.cpuSeconds !== null && floor.cpuSeconds) i.cpuRatioToFloor = i.cpuSeconds / floor.cpuSeconds
  if (JQ) {
    const r = measure(input, 'jq empty (the file)', 'jq', ['empty', logFile], {runs: 1, note: '1 run; jq reads the lines as one stream of values'})
    r.ratioToFloor = r.seconds / floor.seconds
    if (r.cpuSeconds !== null && floor.cpuSeconds) r.cpuRatioToFloor = r.cpuSeconds / floor.cpuSeconds
  }
}

/**
 * The 500 MB torn log: `scan`, then `repair --yes` of a copy (drops the torn last record), then `undo` of that
 * repair (the evidence copy streamed back), one run each.
 */
function benchTornLog(tornLog: InputInfo): void {
  const tornCopy = path.join(work, 'torn-log-copy')
  cpSync(tornLog.dir, tornCopy, {recursive: true})
  measure(tornLog, 'chatdoctor scan --json', node, scan(tornLog.dir), {runs: 1})
  const repaired = measure(tornLog, 'chatdoctor repair --yes', node, [BIN, 'repair', '--yes', tornCopy], {runs: 1, note: 'on a copy; drops the torn last record'})
  const undoId = /chatdoctor undo (\S+)/.exec(outputs.get(repaired) ?? '')?.[1]
  if (undoId) measure(tornLog, 'chatdoctor undo', node, [BIN, 'undo', undoId], {runs: 1, note: 'puts the torn 500 MB log back from its evidence copy, streamed'})
  rmSync(tornCopy, {recursive: true, force: true})
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
    rows.push({input: input.name, tool, seconds, runs: [seconds], cpuSeconds: null, cpuRuns: [], rssBytes: r.rss, bytes, exitCode: 0, note})
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
  // CPU time (user + system) of each run, by /usr/bin/time when there is one: on a loaded machine the wall time is mostly waiting.
  const cpus: number[] = []
  for (let i = 0; i < Math.max(5, RUNS); i++) {
    rmSync(s.store, {recursive: true, force: true})
    let t0 = process.hrtime.bigint()
    const [cmd, argv] = TIME ? [TIME, ['-f', '%U %S', node, BIN, 'snapshot', '--hook', 'claude-code']] : [node, [BIN, 'snapshot', '--hook', 'claude-code']]
    const r = spawnSync(cmd, argv, {env: {...process.env, ...s.env}, input: s.stdin, stdio: ['pipe', 'pipe', 'pipe'], encoding: 'utf8'})
    runs.push(Number(process.hrtime.bigint() - t0) / 1e9)
    const [u, sy] = (r.stderr.trim().split('\n').pop() ?? '').split(' ').map(Number)
    if (TIME && Number.isFinite(u) && Number.isFinite(sy)) cpus.push(u + sy)
    if (r.status !== 0 || !s.stored()) stored = false
    t0 = process.hrtime.bigint()
    spawnSync(node, ['-e', ''], {stdio: 'ignore'})
    bare.push(Number(process.hrtime.bigint() - t0) / 1e9)
  }
  const startup = median(bare)
  const row: Row = {input: 'hook', tool: 'chatdoctor snapshot --hook claude-code (Stop)', seconds: median(runs), runs, cpuSeconds: cpus.length ? median(cpus) : null, cpuRuns: cpus, rssBytes: null, bytes: s.bytes, exitCode: stored ? 0 : 1, note: `a ${(s.bytes / MB).toFixed(1)} MB session (the real Claude Code log, its last answer grown); a fresh process and an empty store each run; \`node -e ''\` interleaved: ${startup.toFixed(3)} s${stored ? '' : '; a run stored NO snapshot'}`}
  rows.push(row)
  hookStartup = startup
  console.log(`  hook         ${row.tool.padEnd(28)} ${row.seconds.toFixed(3)} s cpu ${fmt(row.cpuSeconds)} s (node -e '': ${startup.toFixed(3)} s)${stored ? '' : ' (a run stored nothing)'}`)
}

/**
 * The snapshot hook as OpenCode's plugin runs it on `session.idle` for a session of its 1.2+ database: a fresh
 * process reads a private copy of the real OpenCode 1.18.33 store (`opencode.db` with its 0.7 MB `-wal`), builds
 * the session's export document from a second private copy, seals and writes it. The store is emptied before
 * each run; a run that stored nothing fails the figure.
 */
function hookBudgetDatabase(): void {
  const home = path.join(work, 'hook-db')
  const data = path.join(home, '.local', 'share', 'opencode')
  mkdirSync(path.dirname(data), {recursive: true})
  cpSync(path.join(REALDATA, 'opencode', '1.18.33', 'data', 'opencode'), data, {recursive: true})
  const env = {HOME: home, XDG_STATE_HOME: path.join(home, '.local', 'state'), XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share')}
  const store = path.join(env.XDG_STATE_HOME, 'chatdoctor', 'snapshots')
  const arg = JSON.stringify({type: 'session.idle', sessionID: 'ses_dd624f00affeLQd9JRo5aavtt0'})
  const args = [BIN, 'snapshot', '--hook', 'opencode', arg]
  const bytes = ['opencode.db', 'opencode.db-wal', 'opencode.db-shm'].reduce((n, f) => n + (existsSync(path.join(data, f)) ? readFileSync(path.join(data, f)).length : 0), 0)
  // One run first, not counted: it makes the key.
  spawnSync(node, args, {env: {...process.env, ...env}, stdio: 'ignore'})
  const runs: number[] = []
  const cpus: number[] = []
  let stored = true
  for (let i = 0; i < Math.max(5, RUNS); i++) {
    rmSync(store, {recursive: true, force: true})
    const t0 = process.hrtime.bigint()
    const [cmd, argv] = TIME ? [TIME, ['-f', '%U %S', node, ...args]] : [node, args]
    const r = spawnSync(cmd, argv, {env: {...process.env, ...env}, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8'})
    runs.push(Number(process.hrtime.bigint() - t0) / 1e9)
    const [u, sy] = (r.stderr.trim().split('\n').pop() ?? '').split(' ').map(Number)
    if (TIME && Number.isFinite(u) && Number.isFinite(sy)) cpus.push(u + sy)
    if (r.status !== 0 || !existsSync(store)) stored = false
  }
  const row: Row = {input: 'hook', tool: 'chatdoctor snapshot --hook opencode (session.idle, opencode.db)', seconds: median(runs), runs, cpuSeconds: cpus.length ? median(cpus) : null, cpuRuns: cpus, rssBytes: null, bytes, exitCode: stored ? 0 : 1, note: `the real OpenCode 1.18.33 store (${(bytes / MB).toFixed(1)} MB with its WAL), one session's export document; a fresh process and an empty store each run${stored ? '' : '; a run stored NO snapshot'}`}
  rows.push(row)
  console.log(`  hook         ${row.tool.padEnd(28)} ${row.seconds.toFixed(3)} s cpu ${fmt(row.cpuSeconds)} s${stored ? '' : ' (a run stored nothing)'}`)
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
  if (FLEETS_ONLY) {
    const fleet = makeFleet(path.join(work, 'fleet'), SEED)
    const fleet20k = makeFleet(path.join(work, 'fleet-20k'), SEED, 20_000, 'stripped', 'fleet-20k')
    inputs.push(fleet, fleet20k)
    console.log('fleet (real shape: embedded RunState copies kept)')
    benchInput(fleet, {jqEvery: 0})
    console.log('fleet-20k (memory against the number of chats)')
    benchInput(fleet20k, {jqEvery: 0})
    throw new SkipInputs()
  }
  // ---- start-up ----
  console.log('start-up')
  const one = {name: 'one chat', bytes: 0}
  const oneChat = path.join(REALDATA, 'codebuff', REAL_CHATS.tenTurns)
  const startupRuns = Math.max(5, RUNS)
  measure(one, "node -e '' (no chatdoctor)", node, ['-e', ''], {runs: startupRuns})
  measure(one, 'minimal oclif command', node, [path.join(SCRIPTS, 'min-oclif.js')], {runs: startupRuns, note: 'loads @oclif/core and runs a command that prints one line'})
  measure(one, 'chatdoctor --version', node, [BIN, '--version'], {runs: startupRuns})
  measure(one, 'chatdoctor scan <one chat>', node, [BIN, 'scan', oneChat], {runs: startupRuns})
  measure(one, 'chatdoctor scan --json <one chat>', node, [BIN, 'scan', '--json', oneChat], {runs: startupRuns})
  console.log('snapshot hook')
  hookBudget()
  hookBudgetDatabase()

  // ---- inputs ----
  if (STARTUP_ONLY) throw new SkipInputs()
  if (LOGS_ONLY) {
    const claude = makeClaudeLog(path.join(work, 'claude-log'), 200 * MB)
    const codex = makeCodexLog(path.join(work, 'codex-log'), 200 * MB)
    const tornLog = makeTornLog(path.join(work, 'torn-log'), 500 * MB)
    inputs.push(claude, codex, tornLog)
    console.log('claude-log (200 MB Claude Code session log)')
    benchLog(claude, path.join(claude.dir, '.claude', 'projects', '-home-dev-demo-app', 'd9527693-b315-4674-9957-32bc6697096e.jsonl'))
    console.log('codex-log (200 MB Codex rollout)')
    benchLog(codex, path.join(codex.dir, '.codex', 'sessions', '2026', '12', '01', 'rollout-2026-12-01T08-58-21-01a230d3-910e-7ab3-9c7f-f7f164ff1ff1.jsonl'))
    console.log('torn-log (500 MB, last record cut: scan, repair, undo)')
    benchTornLog(tornLog)
    throw new SkipInputs()
  }
  let t = Date.now()
  const fleet = makeFleet(path.join(work, 'fleet'), SEED)
  const stripped = makeFleet(path.join(work, 'fleet-stripped'), SEED, 5000, 'stripped', 'fleet-stripped')
  const fleet20k = makeFleet(path.join(work, 'fleet-20k'), SEED, 20_000, 'stripped', 'fleet-20k')
  const links = makeFleetLinks(path.join(work, 'fleet-links'))
  const large = makeLarge(path.join(work, 'large'), SEED)
  const state100 = makeBig(path.join(work, 'state-100'), 'state-100', 100 * MB)
  const torn100 = makeBig(path.join(work, 'torn-100'), 'torn-100', 100 * MB, 60 * MB)
  const salvage = makeSalvage(path.join(work, 'salvage'), SEED)
  const claude = makeClaudeLog(path.join(work, 'claude-log'), 200 * MB)
  const codex = makeCodexLog(path.join(work, 'codex-log'), 200 * MB)
  inputs.push(fleet, stripped, fleet20k, links, large, state100, torn100, salvage, claude, codex)
  let big: InputInfo | null = null
  let huge: InputInfo | null = null
  let hugeTorn: InputInfo | null = null
  let bigLog: InputInfo | null = null
  let bomb: (InputInfo & {file: string}) | null = null
  let tornLog: InputInfo | null = null
  let nulLog: InputInfo | null = null
  if (HUGE) {
    inputs.push((big = makeBig(path.join(work, 'big'), 'big', 200 * MB)))
    inputs.push((huge = makeBig(path.join(work, 'huge'), 'huge', 1024 * 2 ** 20)))
    inputs.push((hugeTorn = makeBig(path.join(work, 'huge-torn'), 'huge-torn', 1024 * 2 ** 20, 700 * 2 ** 20)))
    inputs.push((bigLog = makeClaudeLog(path.join(work, 'log-2g'), 2.1 * 2 ** 30, 'log-2g')))
    inputs.push((bomb = await makeBomb(path.join(work, 'bomb'), 2 * 2 ** 30)))
    inputs.push((tornLog = makeTornLog(path.join(work, 'torn-log'), 500 * MB)))
    inputs.push((nulLog = makeNulLog(path.join(work, 'nul-log'), 400 * MB)))
  }
  console.log(`generated ${inputs.length} inputs in ${((Date.now() - t) / 1000).toFixed(1)} s`)
  for (const i of inputs) console.log(`  ${i.name}: ${i.chats} chats, ${i.files} files, ${(i.bytes / MB).toFixed(0)} MB, largest ${(i.largestFile / MB).toFixed(1)} MB (${i.note ?? ''})`)

  t = Date.now()
  console.log('fleet (real shape: embedded RunState copies kept)')
  benchInput(fleet, {jqEvery: 100})
  console.log('fleet-stripped (transcripts without embedded copies)')
  benchInput(stripped, {jqEvery: 0, mainThread: false})
  console.log('fleet-20k (memory against the number of chats)')
  measure(fleet20k, 'chatdoctor scan --json', node, scan(fleet20k.dir), {runs: 1})
  console.log('fleet-links (quick only)')
  measure(links, 'chatdoctor scan --json --quick', node, scan(links.dir, '--quick'))
  console.log('large')
  benchInput(large, {mainThread: false})
  for (const input of [...(big ? [big] : []), state100, torn100]) {
    console.log(input.name)
    benchInput(input, {mainThread: false})
  }
  console.log('salvage input (truncated states)')
  benchInput(salvage, {mainThread: false})
  salvageThroughput(salvage)
  console.log('claude-log (200 MB Claude Code session log)')
  benchLog(claude, path.join(claude.dir, '.claude', 'projects', '-home-dev-demo-app', 'd9527693-b315-4674-9957-32bc6697096e.jsonl'))
  console.log('codex-log (200 MB Codex rollout)')
  benchLog(codex, path.join(codex.dir, '.codex', 'sessions', '2026', '12', '01', 'rollout-2026-12-01T08-58-21-01a230d3-910e-7ab3-9c7f-f7f164ff1ff1.jsonl'))
  if (huge && hugeTorn && bigLog && bomb && tornLog && nulLog) {
    for (const input of [huge, hugeTorn]) {
      console.log(input.name)
      runOnce(node, [path.join(SCRIPTS, 'floor.js'), input.dir], true)
      measure(input, 'chatdoctor scan --json', node, scan(input.dir), {runs: 1})
      measure(input, 'chatdoctor scan --json --quick', node, scan(input.dir, '--quick'), {runs: 1})
      measure(input, 'floor (read + JSON.parse)', node, [path.join(SCRIPTS, 'floor.js'), input.dir], {runs: 1, note: 'V8 cannot hold a string this long: the floor itself fails'})
      if (JQ) measure(input, 'jq empty (one call per file)', node, [path.join(SCRIPTS, 'jq-each.js'), input.dir], {runs: 1, note: '1 run'})
    }
    console.log('huge-torn repair (from its intact generation)')
    const repaired = measure(hugeTorn, 'chatdoctor repair --yes', node, [BIN, 'repair', '--yes', hugeTorn.dir], {runs: 1, note: 'restores the intact 1 GiB .bak over the torn primary'})
    const undoId = /chatdoctor undo (\S+)/.exec(outputs.get(repaired) ?? '')?.[1]
    if (undoId) measure(hugeTorn, 'chatdoctor undo', node, [BIN, 'undo', undoId], {runs: 1, note: 'puts the torn 734 MB primary back from the evidence'})
    console.log('bounded memory (large files)')
    const out = path.join(work, 'out')
    mkdirSync(out, {recursive: true})
    const bigLogFile = path.join(bigLog.dir, '.claude', 'projects', '-home-dev-demo-app', 'd9527693-b315-4674-9957-32bc6697096e.jsonl')
    measure(bigLog, 'chatdoctor bundle (≥ 2 GiB file)', node, [BIN, 'bundle', bigLogFile, '-o', path.join(out, 'log-2g.tar.gz'), '--force'], {runs: 1})
    rmSync(path.join(out, 'log-2g.tar.gz'), {force: true})
    measure(bomb, 'chatdoctor check (gzip bomb)', node, [BIN, 'check', '--json', bomb.file], {runs: 1, note: 'must refuse: more than the archive cap of uncompressed bytes'})
    benchTornLog(tornLog)
    measure(nulLog, 'chatdoctor scan --json', node, scan(nulLog.dir), {runs: 1})
  }
  console.log('find (a fleet of real-shaped sessions of every agent: scripts/bench/find.ts)')
  for (const f of benchFind()) {
    childCpu += f.cpuRuns.reduce((a, b) => a + b, 0)
    rows.push({input: 'find fleet', tool: `chatdoctor find "${f.query}" --json`, seconds: f.wallSeconds, runs: f.runs, cpuSeconds: f.cpuSeconds, cpuRuns: f.cpuRuns, rssBytes: f.peakRssBytes, bytes: f.bytes, exitCode: 0, note: `${f.files} sessions, ${f.sessions} matched; CPU ${f.cpuSeconds.toFixed(2)} s (${f.mbPerCpuSecond.toFixed(0)} MB per CPU-second)`})
  }
  if (HUGE) {
    console.log('large inputs (a many-member archive bomb for check, a 2.1 GB file bundled to tar.gz and zip: scripts/bench/large-inputs.ts)')
    for (const l of await benchLargeInputs()) {
      rows.push({input: l.input, tool: `chatdoctor ${l.command}`, seconds: l.wallSeconds, runs: [l.wallSeconds], cpuSeconds: null, cpuRuns: [], rssBytes: l.peakRssBytes, bytes: l.bytes, exitCode: l.exitCode, note: l.expected ? 'bounded memory' : 'unexpected outcome'})
      largeInputs.push(l)
    }
  }
  console.log(`measured in ${((Date.now() - t) / 1000).toFixed(1)} s (${childCpu.toFixed(0)} s of CPU in the measured commands)`)
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
const sizeOf = (name: string) => inputs.find((i) => i.name === name)?.largestFile ?? 0
const mb = (b: number | null) => (b === null ? '?' : `${(b / MB).toFixed(0)} MB`)
const x = (r: number | undefined) => (r === undefined ? '?' : `${r.toFixed(2)}×`)
/** The chats of a `scan --json` document, or [] when the output is not one. */
function chatsOf(stdout: string | undefined): Array<{status?: string; contextTurns?: number | null; winner?: string | null}> {
  try {
    return (JSON.parse(stdout ?? '') as {chats?: Array<{status?: string; contextTurns?: number | null}>}).chats ?? []
  } catch {
    return []
  }
}
{
  const node0 = row('one chat', "node -e '' (no chatdoctor)")
  const oclif = row('one chat', 'minimal oclif command')
  const v = row('one chat', 'chatdoctor --version')
  const s = row('one chat', 'chatdoctor scan <one chat>')
  if (v && node0) checks.push({target: "`--version` ≤ 1.3× `node -e ''`", measured: `${(v.seconds / node0.seconds).toFixed(2)}× (${v.seconds.toFixed(3)} s vs ${node0.seconds.toFixed(3)} s)`, ok: v.seconds <= 1.3 * node0.seconds})
  if (s && oclif) checks.push({target: '`scan <one chat>` ≤ 1.4× a minimal oclif command', measured: `${(s.seconds / oclif.seconds).toFixed(2)}× (${s.seconds.toFixed(3)} s vs ${oclif.seconds.toFixed(3)} s)`, ok: s.seconds <= 1.4 * oclif.seconds})
  const f = row('fleet', 'chatdoctor scan --json')
  if (f) {
    checks.push({target: 'real-shaped fleet (5,000 chats): CPU ≤ 1.25× the floor', measured: `${x(f.cpuRatioToFloor)} (${fmt(f.cpuSeconds, 2)} s CPU)`, ok: f.cpuRatioToFloor === undefined ? null : f.cpuRatioToFloor <= 1.25})
    checks.push({target: 'real-shaped fleet (5,000 chats): wall ≤ 1.15× the floor', measured: `${x(f.ratioToFloor)} (${f.seconds.toFixed(2)} s)`, ok: f.ratioToFloor! <= 1.15})
  }
  const k = row('fleet-20k', 'chatdoctor scan --json')
  if (k) checks.push({target: '20,000-chat fleet: peak RSS ≤ 150 MB', measured: mb(k.rssBytes), ok: k.rssBytes === null ? null : k.rssBytes <= 150 * MB})
  const h = row('state-100', 'chatdoctor scan --json')
  if (h) checks.push({target: '100 MB state: CPU ≤ 1.2× the floor', measured: `${x(h.cpuRatioToFloor)} (${fmt(h.cpuSeconds, 2)} s CPU; wall ${x(h.ratioToFloor)})`, ok: h.cpuRatioToFloor === undefined ? null : h.cpuRatioToFloor <= 1.2})
  for (const name of ['state-100', 'torn-100', 'big', 'large', 'salvage', 'fleet', 'fleet-stripped']) {
    const r = row(name, 'chatdoctor scan --json')
    if (!r || r.rssBytes === null) continue
    const limit = 2 * sizeOf(name) + 80 * MB
    checks.push({target: `${name}: peak RSS ≤ 2× its largest file + 80 MB (${mb(limit)})`, measured: mb(r.rssBytes), ok: r.rssBytes <= limit})
  }
  for (const name of ['claude-log', 'codex-log']) {
    const floor = row(name, 'line floor (readline + JSON.parse)')
    const r = row(name, 'chatdoctor scan --json')
    if (!r || !floor) continue
    checks.push({target: `${name} (200 MB): time ≤ 1.3× the streaming line floor`, measured: `${x(r.ratioToFloor)} (${r.seconds.toFixed(2)} s; CPU ${x(r.cpuRatioToFloor)})`, ok: r.ratioToFloor! <= 1.3})
    // CPU time: what holds on a shared machine, where a wall ratio measures the load.
    checks.push({target: `${name} (200 MB): CPU ≤ 1.3× the streaming line floor's`, measured: `${x(r.cpuRatioToFloor)} (${fmt(r.cpuSeconds, 2)} s vs ${fmt(floor.cpuSeconds, 2)} s)`, ok: r.cpuRatioToFloor === undefined ? null : r.cpuRatioToFloor <= 1.3})
    checks.push({target: `${name} (200 MB): peak RSS ≤ 128 MB`, measured: mb(r.rssBytes), ok: r.rssBytes === null ? null : r.rssBytes <= 128 * MB})
    const i = row(name, 'chatdoctor inspect --json')
    if (i) checks.push({target: `${name}: inspect peak RSS ≤ 128 MB`, measured: `${mb(i.rssBytes)} (${i.seconds.toFixed(2)} s)`, ok: i.rssBytes === null ? null : i.rssBytes <= 128 * MB})
  }
  const hg = row('huge', 'chatdoctor scan --json')
  if (hg) {
    const c = chatsOf(outputs.get(hg))[0]
    checks.push({target: '1 GiB state: intact (healthy) with its turns', measured: c ? `${c.status}, ${c.contextTurns ?? '?'} turns` : `no report (exit ${hg.exitCode})`, ok: c?.status === 'healthy' && typeof c.contextTurns === 'number' && c.contextTurns > 0})
    const jq = row('huge', 'jq empty (one call per file)')
    // CPU time when both have it (a wall ratio on a shared machine measures the load), else wall time.
    const cpu = hg.cpuSeconds !== null && jq?.cpuSeconds !== null && jq?.cpuSeconds !== undefined
    if (jq) checks.push({target: '1 GiB state: ≤ 0.7× the time of `jq empty`', measured: cpu ? `${(hg.cpuSeconds! / jq.cpuSeconds!).toFixed(2)}× CPU (${hg.cpuSeconds!.toFixed(1)} s vs ${jq.cpuSeconds!.toFixed(1)} s; wall ${hg.seconds.toFixed(1)} s vs ${jq.seconds.toFixed(1)} s)` : `${(hg.seconds / jq.seconds).toFixed(2)}× (${hg.seconds.toFixed(1)} s vs ${jq.seconds.toFixed(1)} s)`, ok: cpu ? hg.cpuSeconds! <= 0.7 * jq.cpuSeconds! : hg.seconds <= 0.7 * jq.seconds})
    checks.push({target: '1 GiB state: peak RSS ≤ 128 MB', measured: mb(hg.rssBytes), ok: hg.rssBytes === null ? null : hg.rssBytes <= 128 * MB})
  }
  const ht = row('huge-torn', 'chatdoctor scan --json')
  if (ht) {
    const c = chatsOf(outputs.get(ht))[0]
    checks.push({target: 'torn 1 GiB chat: repairable from its intact generation', measured: c ? `${c.status}, winner ${c.winner ?? 'none'}` : `no report (exit ${ht.exitCode})`, ok: c?.status === 'repairable'})
    const rp = row('huge-torn', 'chatdoctor repair --yes')
    if (rp) checks.push({target: 'torn 1 GiB chat: repair succeeds', measured: `exit ${rp.exitCode}, ${rp.seconds.toFixed(1)} s, ${mb(rp.rssBytes)}`, ok: rp.exitCode === 1 /* 1: repaired */})
    const un = row('huge-torn', 'chatdoctor undo')
    if (un) checks.push({target: 'torn 1 GiB chat: undo of the repair, peak RSS ≤ 256 MB', measured: `exit ${un.exitCode}, ${un.seconds.toFixed(1)} s, ${mb(un.rssBytes)}`, ok: un.exitCode === 0 && (un.rssBytes === null || un.rssBytes <= 256 * MB)})
  }
  for (const [input, tool] of [['log-2g', 'chatdoctor bundle (≥ 2 GiB file)'], ['bomb', 'chatdoctor check (gzip bomb)'], ['torn-log', 'chatdoctor repair --yes'], ['torn-log', 'chatdoctor scan --json'], ['torn-log', 'chatdoctor undo'], ['nul-log', 'chatdoctor scan --json']] as const) {
    const r = row(input, tool)
    if (r) checks.push({target: `${input}: ${tool.replace('chatdoctor ', '')} peak RSS ≤ 256 MB, no crash`, measured: `${mb(r.rssBytes)}, exit ${r.exitCode}, ${r.seconds.toFixed(1)} s`, ok: r.rssBytes === null ? null : r.rssBytes <= 256 * MB && (r.exitCode ?? 99) < 64})
  }
  const q1 = row('fleet-stripped', 'chatdoctor scan --json --quick')
  const q2 = row('fleet-links', 'chatdoctor scan --json --quick')
  if (q1 && q2) checks.push({target: '`--quick`: 20 MB states within 20% of 20 KB states', measured: `${q2.seconds.toFixed(2)} s vs ${q1.seconds.toFixed(2)} s (${((q2.seconds / q1.seconds - 1) * 100).toFixed(0)}%)`, ok: Math.abs(q2.seconds / q1.seconds - 1) <= 0.2})
  const fr = rows.find((r) => r.input === 'find fleet' && !r.tool.includes('todostore'))
  if (fr) checks.push({target: '`find` over a 1 GiB fleet ≥ 300 MB/s, peak RSS ≤ 200 MB', measured: `${(fr.bytes / MB / fr.seconds).toFixed(0)} MB/s wall, ${fr.cpuSeconds === null ? '?' : (fr.bytes / MB / fr.cpuSeconds).toFixed(0)} MB per CPU-second, ${mb(fr.rssBytes)}`, ok: fr.bytes / MB / fr.seconds >= 300 && (fr.rssBytes ?? 0) <= 200 * MB})
  const hk = row('hook', 'chatdoctor snapshot --hook claude-code (Stop)')
  // The budget is CPU time (what the hook costs the machine; a loaded machine's wall time is mostly waiting), wall time beside it.
  if (hk) checks.push({target: 'snapshot hook ≤ 150 ms CPU for a 1 MB session', measured: `${hk.cpuSeconds === null ? '? ms' : (hk.cpuSeconds * 1000).toFixed(0) + ' ms'} CPU; wall ${(hk.seconds * 1000).toFixed(0)} ms (${((hk.seconds - hookStartup) * 1000).toFixed(0)} ms over a bare node start-up)${hk.exitCode === 0 ? '' : '; a run stored nothing'}`, ok: hk.exitCode === 0 && (hk.cpuSeconds ?? hk.seconds) <= 0.15})
  const hd = row('hook', 'chatdoctor snapshot --hook opencode (session.idle, opencode.db)')
  if (hd) checks.push({target: 'snapshot hook ≤ 150 ms CPU for a session of a 1 MB OpenCode database', measured: `${hd.cpuSeconds === null ? '? ms' : (hd.cpuSeconds * 1000).toFixed(0) + ' ms'} CPU; wall ${(hd.seconds * 1000).toFixed(0)} ms${hd.exitCode === 0 ? '' : '; a run stored nothing'}`, ok: hd.exitCode === 0 && (hd.cpuSeconds ?? hd.seconds) <= 0.15})
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
  /** CPU seconds of the measured children (not the generating): the bench's cost on an idle machine, about. */
  childCpuSeconds: Math.round(childCpu),
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
    `Measured ${result.date.slice(0, 10)} on ${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}; load average ${m.loadAverage.join(' ')} at start, ${m.loadAverageAtEnd.join(' ')} at end. Seed ${SEED}, median of ${RUNS} runs (start-up: ${Math.max(5, RUNS)}), the tools of an input interleaved run by run, × floor the median of the per-run ratios (wall, and CPU = user + sys of the child); warm page cache; whole bench ${result.durationSeconds} s of wall, ${result.childCpuSeconds} s of CPU in the measured commands.`,
    '',
    '| input | tool | median s | CPU s | MB/s | peak RSS MB | × floor (wall) | × floor (CPU) | note |',
    '|---|---|---:|---:|---:|---:|---:|---:|---|',
  ]
  for (const r of rows) {
    const mbps = r.bytes > 0 ? (r.bytes / MB / r.seconds).toFixed(0) : ''
    lines.push(`| ${r.input} | ${r.tool} | ${r.seconds.toFixed(3)} | ${r.cpuSeconds === null ? '' : r.cpuSeconds.toFixed(2)} | ${mbps} | ${r.rssBytes === null ? '?' : (r.rssBytes / MB).toFixed(0)} | ${r.ratioToFloor !== undefined ? r.ratioToFloor.toFixed(2) : ''} | ${r.cpuRatioToFloor !== undefined ? r.cpuRatioToFloor.toFixed(2) : ''} | ${r.note ?? ''} |`)
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
