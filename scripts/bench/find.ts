/**
 * The `find` benchmark (part of `npm run bench`; alone: `node dist/scripts/bench/find.js`): builds a fleet of
 * real-shaped sessions of every agent that writes large logs (copies of the agents' own files in
 * shared/realdata, ids rewritten per copy) up to `BENCH_FIND_BYTES` (default 1 GiB), plants one rare phrase in
 * the middle of one session per agent, and times `chatdoctor find` over the whole fleet as a child process:
 * wall time, user and system CPU time and peak RSS (`/usr/bin/time`), for the rare phrase (the target: ≥ 300
 * MB/s) and for a word said in nearly every session (every matching line decoded). Checks that each planted
 * session is found, so a fast run that finds nothing cannot pass. Prints one JSON line per query last.
 *
 * Environment: `BENCH_FIND_BYTES`, `BENCH_RUNS` (default 3 here), `BENCH_KEEP=1` keeps the fleet.
 */
import {spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {REALDATA, REAL_CHATS, REPO_ROOT} from '../../test/helpers/fixtures.js'

const TARGET = Number(process.env.BENCH_FIND_BYTES ?? 2 ** 30)
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3))
const KEEP = process.env.BENCH_KEEP === '1'
const BIN = path.join(REPO_ROOT, 'bin', 'run.js')
const MB = 1e6
/** The phrase planted once per agent, said nowhere else. */
export const NEEDLE = 'quokka marmalade protocol'

interface Template {
  agent: string
  /** Where copy `k` goes, relative to the home. */
  place(k: number): string
  bytes: Buffer
  /** The id inside the bytes that each copy replaces with its own. */
  id: string
  newId(k: number): string
  /** A phrase of a middle prompt, replaced by the needle in one copy. */
  middle: string
}

const hex = (k: number, n: number) => k.toString(16).padStart(n, '0')
const read = (...p: string[]) => readFileSync(path.join(REALDATA, ...p))

function templates(): Template[] {
  const claude = path.join('claude-code', '2.1.328', 'home', '.claude', 'projects', '-home-dev-demo-app')
  const codex = path.join('codex', '0.169.0', 'home', '.codex', 'sessions', '2026', '12', '01')
  const gemini = path.join('gemini-cli', '0.61.0', 'home', '.gemini', 'tmp', 'demo-app', 'chats')
  const uuid = (k: number, tail: string) => `${hex(k, 8)}-${tail}`
  return [
    {
      agent: 'Claude Code',
      bytes: read(claude, '3306629b-a8aa-4dc1-8716-233d3cbaea4c.jsonl'),
      id: '3306629b-a8aa-4dc1-8716-233d3cbaea4c',
      newId: (k) => uuid(k, 'a8aa-4dc1-8716-233d3cbaea4c'),
      place: (k) => path.join('.claude', 'projects', `-home-dev-app-${k % 40}`, `${uuid(k, 'a8aa-4dc1-8716-233d3cbaea4c')}.jsonl`),
      middle: 'Add a remove(id) method to TodoStore.',
    },
    {
      agent: 'Claude Code',
      bytes: read(claude, 'd9527693-b315-4674-9957-32bc6697096e.jsonl'),
      id: 'd9527693-b315-4674-9957-32bc6697096e',
      newId: (k) => uuid(k, 'b315-4674-9957-32bc6697096e'),
      place: (k) => path.join('.claude', 'projects', `-home-dev-app-${k % 40}`, `${uuid(k, 'b315-4674-9957-32bc6697096e')}.jsonl`),
      middle: 'Add a clear() method to TodoStore.',
    },
    {
      agent: 'Codex',
      bytes: read(codex, 'rollout-2026-12-01T08-58-21-01a230d3-910e-7ab3-9c7f-f7f164ff1ff1.jsonl'),
      id: '01a230d3-910e-7ab3-9c7f-f7f164ff1ff1',
      newId: (k) => uuid(k, '910e-7ab3-9c7f-f7f164ff1ff1'),
      place: (k) => path.join('.codex', 'sessions', '2026', '12', String(1 + (k % 28)).padStart(2, '0'), `rollout-2026-12-01T08-58-21-${uuid(k, '910e-7ab3-9c7f-f7f164ff1ff1')}.jsonl`),
      middle: 'Add a remove(id) method to TodoStore.',
    },
    {
      agent: 'Gemini CLI',
      bytes: read(gemini, 'session-2026-12-01T09-42-6e65aa12.jsonl'),
      id: '6e65aa12-18d1-407e-a443-edb605205841',
      newId: (k) => uuid(k, '18d1-407e-a443-edb605205841'),
      place: (k) => path.join('.gemini', 'tmp', `app-${k % 40}`, 'chats', `session-2026-12-01T09-42-${hex(k, 8)}.jsonl`),
      middle: 'Where is TodoStore used?',
    },
    {
      agent: 'Codebuff',
      bytes: read('codebuff', REAL_CHATS.tenTurns, 'chat-messages.json'),
      id: REAL_CHATS.tenTurns,
      newId: (k) => `2025-11-04T14-${hex(k, 8)}.000Z`,
      place: (k) => path.join('.config', 'manicode', 'projects', `app-${k % 40}`, 'chats', `2025-11-04T14-${hex(k, 8)}.000Z`, 'chat-messages.json'),
      middle: 'Rename MAX_TODOS to TODO_LIMIT.',
    },
  ]
}

/** Writes the fleet into `home`; returns its size and the planted sessions' ids by agent. */
export function makeFindFleet(home: string, target = TARGET): {bytes: number; files: number; planted: Array<{agent: string; id: string}>} {
  const ts = templates()
  let bytes = 0
  let files = 0
  const planted: Array<{agent: string; id: string}> = []
  const total = ts.reduce((n, t) => n + t.bytes.length, 0)
  const rounds = Math.max(1, Math.ceil(target / total))
  for (let k = 0; k < rounds; k++) {
    for (const t of ts) {
      let text = t.bytes.toString('latin1').replaceAll(t.id, t.newId(k))
      if (k === Math.floor(rounds / 2) && text.includes(t.middle)) {
        text = text.replaceAll(t.middle, `${t.middle.slice(0, -1)} using the ${NEEDLE}.`)
        planted.push({agent: t.agent, id: t.newId(k)})
      }
      const p = path.join(home, t.place(k))
      mkdirSync(path.dirname(p), {recursive: true})
      const buf = Buffer.from(text, 'latin1')
      writeFileSync(p, buf)
      bytes += buf.length
      files++
    }
  }
  return {bytes, files, planted}
}

interface Run {
  wall: number
  user: number
  sys: number
  rss: number
  code: number | null
  stdout: string
}

function runFind(home: string, args: string[]): Run {
  const out = path.join(os.tmpdir(), `chatdoctor-find-bench-${process.pid}.time`)
  const t0 = process.hrtime.bigint()
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', '-o', out, process.execPath, BIN, 'find', ...args, '--json'], {
    env: {...process.env, HOME: home, NO_COLOR: '1', XDG_DATA_HOME: '', XDG_CONFIG_HOME: '', CODEX_HOME: '', CLAUDE_CONFIG_DIR: '', GEMINI_CLI_HOME: '', CLINE_DIR: '', CLINE_DATA_DIR: ''},
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  })
  const wall = Number(process.hrtime.bigint() - t0) / 1e9
  const [rssK, user, sys] = readFileSync(out, 'utf8').trim().split('\n').pop()!.split(' ').map(Number)
  rmSync(out, {force: true})
  return {wall, user, sys, rss: rssK * 1024, code: r.status, stdout: r.stdout}
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

export interface FindBenchRow {
  query: string
  bytes: number
  files: number
  sessions: number
  wallSeconds: number
  cpuSeconds: number
  mbPerSecond: number
  mbPerCpuSecond: number
  peakRssBytes: number
  runs: number[]
  /** CPU time (user + sys) of each run, seconds. */
  cpuRuns: number[]
}

/** Runs the benchmark; returns one row per query. */
export function benchFind(): FindBenchRow[] {
  const home = mkdtempSync(path.join(os.tmpdir(), 'chatdoctor-find-bench-'))
  try {
    const t = Date.now()
    const fleet = makeFindFleet(home)
    console.log(`find: fleet of ${fleet.files} sessions, ${(fleet.bytes / MB).toFixed(0)} MB, built in ${((Date.now() - t) / 1000).toFixed(1)} s in ${home}`)
    // Warm the page cache (the target is for a warm cache); not recorded.
    runFind(home, [NEEDLE])
    const rows: FindBenchRow[] = []
    for (const query of [NEEDLE, 'todostore']) {
      const runs: Run[] = []
      for (let i = 0; i < RUNS; i++) runs.push(runFind(home, [query]))
      const last = runs[runs.length - 1]
      const report = JSON.parse(last.stdout) as {sessions: Array<{agent: string; sessionId: string}>; searched: {bytes: number; files: number}}
      if (query === NEEDLE) {
        for (const p of fleet.planted) if (!report.sessions.some((s) => s.agent === p.agent && s.sessionId === p.id)) throw new Error(`find missed the planted ${p.agent} session ${p.id}`)
        if (report.sessions.length !== fleet.planted.length) throw new Error(`find matched ${report.sessions.length} sessions, ${fleet.planted.length} planted`)
      }
      const wall = median(runs.map((r) => r.wall))
      const cpu = median(runs.map((r) => r.user + r.sys))
      const row: FindBenchRow = {
        query,
        bytes: report.searched.bytes,
        files: report.searched.files,
        sessions: report.sessions.length,
        wallSeconds: wall,
        cpuSeconds: cpu,
        mbPerSecond: report.searched.bytes / MB / wall,
        mbPerCpuSecond: report.searched.bytes / MB / cpu,
        peakRssBytes: Math.max(...runs.map((r) => r.rss)),
        runs: runs.map((r) => r.wall),
        cpuRuns: runs.map((r) => r.user + r.sys),
      }
      rows.push(row)
      console.log(`  find "${query}": ${row.sessions} sessions, ${(row.bytes / MB).toFixed(0)} MB in ${wall.toFixed(2)} s wall (${row.mbPerSecond.toFixed(0)} MB/s), ${cpu.toFixed(2)} s CPU (${row.mbPerCpuSecond.toFixed(0)} MB/CPU-s), peak RSS ${(row.peakRssBytes / MB).toFixed(0)} MB`)
    }
    return rows
  } finally {
    if (!KEEP) rmSync(home, {recursive: true, force: true})
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}`)
  for (const row of benchFind()) console.log(JSON.stringify(row))
}
