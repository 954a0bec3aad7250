/**
 * `repair` and `undo` end to end, through the built CLI as a user runs it (HOME and XDG_STATE_HOME pointed at
 * temp dirs). Every repairable scenario: dry run is read-only and its plan equals the executed actions; the
 * new primary is the winner's exact bytes; the evidence manifest is complete; the chat dir's mtime is put back;
 * a second run writes nothing and exits with the first code minus bits 1 and 2; undo restores every file.
 */
import assert from 'node:assert/strict'
import {spawn, spawnSync} from 'node:child_process'
import {existsSync, lstatSync, readFileSync, renameSync, unlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {Ajv2020} from 'ajv/dist/2020.js'
import {
  REAL_CHATS,
  REPO_ROOT,
  TEN_TURN_TEMP,
  cleanup,
  copyRealChat,
  cutAt,
  hashTree,
  keepEmbeddedRunStates,
  nulTailAt,
  runCli,
  setMtime,
  sha256,
  tempDir,
  withBom,
  zeroFill,
  assertSameTree,
} from './helpers/fixtures.js'
import {processStartMs} from '../src/lib/pipeline/live.js'

interface Action {
  type: string
  from: string | null
  to: string
  sha256: string | null
  evidence: string | null
}
interface Chat {
  path: string
  status: string
  winner: string | null
  contextTurns: number | null
  transcriptTurns: number | null
  generations: Array<{file: string; role: string; class: string | null; sha256: string | null}>
  actions: Action[]
  repair: {outcome: string; message: string | null; evidence: string | null; undo: string | null; warnings: string[]}
}
interface RepairReport {
  exitCode: number
  repairId: string | null
  dryRun: boolean
  chats: Chat[]
}

const validate = new Ajv2020({allErrors: true, strict: false}).compile(JSON.parse(readFileSync(path.join(REPO_ROOT, 'schemas', 'report.schema.json'), 'utf8')))

/** A sandbox: HOME with one or more chats under the Codebuff config root, and a state dir. */
function sandbox() {
  const root = tempDir()
  const home = path.join(root, 'home')
  const env = {HOME: home, XDG_STATE_HOME: path.join(root, 'state')}
  return {root, home, env, state: path.join(root, 'state', 'chatdoctor')}
}

function run(args: string[], env: NodeJS.ProcessEnv): {status: number; report: RepairReport; stdout: string; stderr: string} {
  const r = runCli(args, {env})
  let report: RepairReport
  try {
    report = JSON.parse(r.stdout) as RepairReport
  } catch {
    report = undefined as unknown as RepairReport
  }
  if (report) {
    assert.ok(validate(report), JSON.stringify(validate.errors))
    assert.equal(report.exitCode, r.status)
  }
  return {status: r.status, report, stdout: r.stdout, stderr: r.stderr}
}

/**
 * The tree under `dir` without chatdoctor's own folders, keyed relative to `dir`; from a `hashTree` taken at
 * a parent (`t`, keyed relative to the sandbox root) or fresh.
 */
function userTree(dir: string, t?: Record<string, string>): Record<string, string> {
  const base = t ? path.relative(path.dirname(dir), dir) : ''
  const tree = t ?? hashTree(dir)
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(tree)) {
    const rel = t ? path.relative(base, k) : k
    if (rel.startsWith('..') || rel === '' || rel === '.' || rel.split(path.sep).includes('.chatdoctor')) continue
    out[rel] = v
  }
  return out
}


const key = (a: Action) => JSON.stringify([a.type, a.from, a.to, a.sha256])

interface Scenario {
  name: string
  chat: string
  damage: (dir: string) => void
  /** Expected winner file and N of M after the repair. */
  winner: string
  turns: [number, number | null]
}

const P = 'run-state.json'
const rewrite = (f: (b: Buffer) => Buffer) => (dir: string) => {
  const p = path.join(dir, P)
  const st = lstatSync(p)
  writeFileSync(p, f(readFileSync(p)))
  setMtime(p, st.mtimeMs)
}

const SCENARIOS: Scenario[] = [
  {name: 'truncated primary', chat: REAL_CHATS.tenTurns, damage: rewrite((b) => cutAt(b, 4096)), winner: TEN_TURN_TEMP, turns: [10, 10]},
  {name: 'zero-filled primary', chat: REAL_CHATS.tenTurns, damage: rewrite(zeroFill), winner: TEN_TURN_TEMP, turns: [10, 10]},
  {name: 'empty primary', chat: REAL_CHATS.tenTurns, damage: rewrite(() => Buffer.alloc(0)), winner: TEN_TURN_TEMP, turns: [10, 10]},
  {name: 'NUL tail', chat: REAL_CHATS.tenTurns, damage: rewrite((b) => nulTailAt(b, 8192)), winner: TEN_TURN_TEMP, turns: [10, 10]},
  {name: 'BOM (corrupt)', chat: REAL_CHATS.tenTurns, damage: rewrite(withBom), winner: TEN_TURN_TEMP, turns: [10, 10]},
  {name: 'missing primary', chat: REAL_CHATS.tenTurns, damage: (d) => unlinkSync(path.join(d, P)), winner: TEN_TURN_TEMP, turns: [10, 10]},
  {
    name: 'primary behind (older bytes, a temp covers more)',
    chat: REAL_CHATS.tenTurns,
    damage: (d) => writeFileSync(path.join(d, P), readFileSync(path.join(d, 'run-state.json.bak'))),
    winner: TEN_TURN_TEMP,
    turns: [10, 10],
  },
  {
    name: "truncated primary, no temp: the transcript's embedded copy of turn 10 wins",
    chat: REAL_CHATS.tenTurns,
    damage: (d) => {
      unlinkSync(path.join(d, TEN_TURN_TEMP))
      rewrite((b) => cutAt(b, 5000))(d)
    },
    winner: 'chat-messages.json#ai-1762265497000-d81188ed9dfc1',
    turns: [10, 10],
  },
  {
    name: 'truncated primary, no temp, turns 9 and 10 without embedded copies: the backup wins (turn 9 of 10 back, turn 10 lost)',
    chat: REAL_CHATS.tenTurns,
    damage: (d) => {
      unlinkSync(path.join(d, TEN_TURN_TEMP))
      rewrite((b) => cutAt(b, 5000))(d)
      withoutLateCopies(d, 8)
    },
    winner: 'run-state.json.bak',
    turns: [9, 10],
  },
]

/**
 * Keeps the transcript's embedded RunStates of the first `keep` turns only (mtime kept): a turn whose run
 * ended in an error output, and the newest turn until the next save, have none (codebuff-format.md §1.5).
 */
function withoutLateCopies(dir: string, keep: number): void {
  const p = path.join(dir, 'chat-messages.json')
  const st = lstatSync(p)
  writeFileSync(p, keepEmbeddedRunStates(readFileSync(p), keep))
  setMtime(p, st.mtimeMs)
}

const slug = (name: string) => name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase()

test('every repairable scenario, end to end (one tree, each scenario its own chat): dry run, repair, second run, undo', () => {
  const sb = sandbox()
  try {
    const dirs = new Map<Scenario, string>()
    for (const [i, s] of SCENARIOS.entries()) {
      const dir = copyRealChat(s.chat, sb.home, path.join('.config', 'manicode', 'projects', slug(s.name), 'chats'))
      s.damage(dir)
      setMtime(dir, Date.UTC(2026, 7, 30, 10, 0, 0, 123 + i))
      dirs.set(s, dir)
    }
    const chatOf = (r: RepairReport, s: Scenario) => {
      const c = r.chats.find((ch) => ch.path === dirs.get(s)!.replace(sb.home, '~'))
      assert.ok(c, s.name)
      return c
    }
    const before = hashTree(sb.root)
    const scan = run(['scan', '--json'], sb.env)
    assert.equal(scan.status, 2)
    assert.deepEqual(hashTree(sb.root), before, 'scan wrote nothing')

    // Dry run: the exact plan, nothing written (contents, sizes, modes and mtimes of every entry).
    const dry = run(['repair', '--dry-run', '--json'], sb.env)
    assert.equal(dry.status, 2)
    assert.deepEqual(hashTree(sb.root), before, 'dry run wrote nothing')
    assert.equal(dry.report.dryRun, true)
    assert.equal(dry.report.repairId, null)
    const dirMtimes = new Map([...dirs].map(([s, d]) => [s, lstatSync(d).mtimeMs]))

    // The repair.
    const rep = run(['repair', '--json'], sb.env)
    assert.equal(rep.status, 1, rep.stderr)
    assert.match(rep.report.repairId!, /^\d{8}T\d{6}Z-[0-9a-f]{6}$/)
    const after = hashTree(sb.root)
    for (const s of SCENARIOS) {
      const dir = dirs.get(s)!
      const planned = chatOf(dry.report, s)
      const done = chatOf(rep.report, s)
      assert.equal(planned.repair.outcome, 'planned', s.name)
      assert.equal(planned.winner, s.winner, s.name)
      const winnerSha = planned.generations.find((g) => g.file === s.winner)!.sha256!
      const oldPrimary = planned.generations.find((g) => g.role === 'primary')!
      const expectTypes = oldPrimary.class === 'missing' ? ['restore', 'restore-mtime'] : ['preserve', 'restore', 'restore-mtime']
      assert.deepEqual(planned.actions.map((a) => a.type), expectTypes, s.name)
      assert.ok(planned.actions.every((a) => a.evidence === null), s.name)
      assert.equal(planned.actions.find((a) => a.type === 'restore')!.sha256, winnerSha, s.name)

      assert.equal(done.repair.outcome, 'repaired', s.name)
      assert.deepEqual(done.actions.map(key), planned.actions.map(key), `${s.name}: dry-run plan equals executed actions`)
      assert.equal(done.repair.undo, `chatdoctor undo ${rep.report.repairId}`)
      assert.equal(sha256(readFileSync(path.join(dir, P))), winnerSha, `${s.name}: new primary = winner bytes`)
      assert.ok(Math.abs(lstatSync(dir).mtimeMs - dirMtimes.get(s)!) < 1, `${s.name}: the chat dir's mtime is put back within 1 ms`)
      assert.deepEqual([done.contextTurns, done.transcriptTurns], s.turns, s.name)

      // Evidence: the old primary byte for byte, and a complete manifest.
      const evDir = path.join(dir, '.chatdoctor', rep.report.repairId!)
      assert.equal(done.repair.evidence, evDir.replace(sb.home, '~'))
      const manifest = JSON.parse(readFileSync(path.join(evDir, 'manifest.json'), 'utf8'))
      assert.equal(manifest.repairId, rep.report.repairId)
      assert.equal(manifest.chatdoctorVersion, JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version)
      assert.ok(!Number.isNaN(Date.parse(manifest.time)))
      assert.equal(manifest.chatDir, dir)
      if (oldPrimary.class === 'missing') assert.deepEqual(manifest.files, [], s.name)
      else {
        assert.equal(manifest.files.length, 1)
        const f = manifest.files[0]
        assert.equal(f.path, P)
        assert.equal(f.sha256, oldPrimary.sha256)
        assert.equal(sha256(readFileSync(path.join(evDir, f.evidence))), oldPrimary.sha256, `${s.name}: evidence bytes`)
        const [, size, mtime] = before[path.relative(sb.root, path.join(dir, P))].split(' ')
        assert.equal(f.size, Number(size))
        assert.equal(f.mtimeMs, Number(mtime))
        assert.equal(f.class, oldPrimary.class)
        assert.equal(f.method, 'link')
        assert.equal(done.actions[0].evidence, path.join(evDir, P).replace(sb.home, '~'))
      }
      assert.ok(!existsSync(path.join(dir, '.chatdoctor', 'lock')), 'the lock is released')
      for (const name of [TEN_TURN_TEMP, 'run-state.json.bak', 'chat-messages.json']) {
        const k = path.relative(sb.root, path.join(dir, name))
        assert.equal(after[k], before[k], `${s.name}: ${name} untouched`)
      }
    }
    const logged = readFileSync(path.join(sb.state, 'repairs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    assert.equal(logged.filter((e) => e.type === 'repair').length, SCENARIOS.length)
    assert.equal(logged.filter((e) => e.type === 'repair-end' && e.outcome === 'repaired').length, SCENARIOS.length)

    // Second run: nothing to do, nothing written, exit = first minus bits 1 and 2.
    const second = run(['repair', '--json'], sb.env)
    assert.equal(second.status, rep.status & ~3)
    assert.deepEqual(hashTree(sb.root), after, 'second run writes nothing')
    assert.equal(second.report.repairId, null)
    assert.ok(second.report.chats.every((c) => c.repair.outcome === 'not-needed'))

    // Undo: every user file back as it was (bytes, sizes, modes, mtimes), evidence kept.
    const undo = run(['undo', rep.report.repairId!, '--json'], sb.env)
    assert.equal(undo.status, 0, undo.stderr)
    assertSameTree(userTree(sb.home), userTree(sb.home, before), 'undo restores the exact files')
    const undoAgain = runCli(['undo', rep.report.repairId!], {env: sb.env})
    assert.equal(undoAgain.status, 0)
    assert.match(undoAgain.stdout, /was already undone: every file is as before it; nothing written/)
  } finally {
    cleanup(sb.root)
  }
})

test('repair over many chats: repaired, unrecoverable and healthy; exit 1|4 then 4; no prompt when stdin is not a TTY', () => {
  const sb = sandbox()
  try {
    const a = copyRealChat(REAL_CHATS.tenTurns, sb.home)
    writeFileSync(path.join(a, P), cutAt(readFileSync(path.join(a, P)), 100))
    const b = copyRealChat(REAL_CHATS.small, sb.home)
    writeFileSync(path.join(b, P), Buffer.alloc(0))
    writeFileSync(path.join(b, 'chat-messages.json'), cutAt(readFileSync(path.join(b, 'chat-messages.json')), 2000)) // no embedded copy either
    copyRealChat(REAL_CHATS.tenTurns, sb.home, path.join('.config', 'manicode', 'projects', 'demo-app', 'chats'), '2025-11-05T10-00-00.000Z')
    const c = copyRealChat(REAL_CHATS.tenTurns, sb.home, path.join('.config', 'manicode', 'projects', 'other', 'chats'))
    writeFileSync(path.join(c, P), zeroFill(readFileSync(path.join(c, P))))
    const r = run(['repair'], sb.env) // stdin is not a TTY: no question, proceeds
    assert.equal(r.status, 1 | 4, r.stdout + r.stderr)
    assert.match(r.stdout, /repaired .*2025-11-04T14-01-15\.000Z/)
    // The small chat's agent context is lost; its torn transcript is restored from its own salvage (the user's
    // message kept byte for byte), and the report says the agent context stays lost.
    assert.match(r.stdout, /repaired .*2025-11-03T09-14-30\.000Z\n  chat-messages\.json was truncated \(unexpected-end\)\n[\s\S]*?restored chat-messages\.json from salvage:chat-messages\.json[\s\S]*?agent context: still lost/)
    assert.match(r.stdout, /agent context restored: turns 1–10 of 10/)
    assert.match(r.stdout, /To undo this repair: chatdoctor undo \S+/)
    const tree = hashTree(sb.root)
    const again = run(['repair', '--json'], sb.env)
    assert.equal(again.status, 4)
    assert.deepEqual(hashTree(sb.root), tree)
    const outcomes = again.report.chats.map((ch) => ch.repair.outcome).sort()
    assert.deepEqual(outcomes, ['not-needed', 'not-needed', 'not-needed', 'not-repairable'])
  } finally {
    cleanup(sb.root)
  }
})

test('human report says what was restored, what came back and what is lost', () => {
  const sb = sandbox()
  try {
    const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
    renameSync(path.join(dir, TEN_TURN_TEMP), path.join(sb.root, 'elsewhere'))
    withoutLateCopies(dir, 8)
    writeFileSync(path.join(dir, P), cutAt(readFileSync(path.join(dir, P)), 777))
    const r = runCli(['repair', dir], {env: sb.env})
    assert.equal(r.status, 1, r.stderr)
    assert.match(r.stdout, /run-state\.json was truncated \(unexpected-end\)/)
    assert.match(r.stdout, /restored run-state\.json from run-state\.json\.bak/)
    assert.match(r.stdout, /agent context restored: turns 1–9 of 10/)
    assert.match(r.stdout, /lost: turn 10's prompt and answer are in the transcript but not in the agent's memory/)
    assert.match(r.stdout, /originals kept in ~\/.*\.chatdoctor\/\d{8}T\d{6}Z-[0-9a-f]{6}\//)
    assert.match(r.stdout, /to undo: chatdoctor undo \d{8}T\d{6}Z-[0-9a-f]{6}/)
  } finally {
    cleanup(sb.root)
  }
})

test('a temp whose pid is a running codebuff process: refused (exit 2|8), nothing written; --force repairs with a warning', async () => {
  const sb = sandbox()
  const agent = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'codebuff', '--continue'], {stdio: 'ignore'})
  try {
    await new Promise((r) => agent.once('spawn', r))
    const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
    const liveTemp = `run-state.json.${agent.pid}.c7e25b0f-9d14-4a3e-8f6b-2b9a0d5e1c48.tmp`
    renameSync(path.join(dir, TEN_TURN_TEMP), path.join(dir, liveTemp))
    writeFileSync(path.join(dir, P), cutAt(readFileSync(path.join(dir, P)), 100))
    const before = hashTree(sb.root)
    const r = run(['repair', '--json'], sb.env)
    assert.equal(r.status, 2 | 8)
    assert.equal(r.report.chats[0].repair.outcome, 'refused')
    assert.match(r.report.chats[0].repair.message!, new RegExp(`pid ${agent.pid}, a running codebuff process.*--force`))
    assert.equal(r.report.repairId, null)
    assert.deepEqual(hashTree(sb.root), before, 'a refused chat is left exactly as it was')
    const forced = run(['repair', '--force', '--json'], sb.env)
    assert.equal(forced.status, 1)
    assert.match(forced.report.chats[0].repair.warnings.join('\n'), /--force: writing although .*running codebuff process/)
  } finally {
    agent.kill()
    cleanup(sb.root)
  }
})

test("a temp whose pid is some other running program (or no process) means nothing: the repair proceeds", () => {
  const sb = sandbox()
  try {
    const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
    renameSync(path.join(dir, TEN_TURN_TEMP), path.join(dir, `run-state.json.${process.pid}.c7e25b0f-9d14-4a3e-8f6b-2b9a0d5e1c48.tmp`))
    writeFileSync(path.join(dir, P), Buffer.alloc(0))
    const r = run(['repair', '--json'], sb.env)
    assert.equal(r.status, 1, JSON.stringify(r.report.chats[0].repair))
  } finally {
    cleanup(sb.root)
  }
})

test('the chat lock: a live holder refuses at once (bit 8); a dead holder is taken over with a warning', () => {
  const sb = sandbox()
  try {
    const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
    writeFileSync(path.join(dir, P), Buffer.alloc(0))
    const own = path.join(dir, '.chatdoctor')
    spawnSync('mkdir', [own])
    writeFileSync(path.join(own, 'lock'), JSON.stringify({pid: process.pid, startedAtMs: processStartMs(process.pid), purpose: 'repair test', time: new Date().toISOString()}))
    const live = run(['repair', '--json'], sb.env)
    assert.equal(live.status, 2 | 8)
    assert.match(live.report.chats[0].repair.message!, new RegExp(`another chatdoctor \\(pid ${process.pid}`))
    assert.equal(readFileSync(path.join(dir, P)).length, 0)
    const dead = spawnSync(process.execPath, ['-e', '0'])
    writeFileSync(path.join(own, 'lock'), JSON.stringify({pid: dead.pid, startedAtMs: 1, purpose: 'repair old', time: '2020-01-01T00:00:00.000Z'}))
    const taken = run(['repair', '--json'], sb.env)
    assert.equal(taken.status, 1)
    assert.match(taken.report.chats[0].repair.warnings.join('\n'), /took over a stale lock of pid/)
    assert.ok(!existsSync(path.join(own, 'lock')))
  } finally {
    cleanup(sb.root)
  }
})

test('undo refuses a file changed since the repair (exit 8); --force keeps the current bytes as evidence and restores', () => {
  const sb = sandbox()
  try {
    const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
    const damaged = cutAt(readFileSync(path.join(dir, P)), 1234)
    writeFileSync(path.join(dir, P), damaged)
    const rep = run(['repair', '--json'], sb.env)
    assert.equal(rep.status, 1)
    const id = rep.report.repairId!
    const agentRanAgain = Buffer.from('{"agent":"ran again"}')
    writeFileSync(path.join(dir, P), agentRanAgain)
    const refused = runCli(['undo', id], {env: sb.env})
    assert.equal(refused.status, 8)
    assert.match(refused.stderr, /changed since repair .* --force/)
    assert.deepEqual(readFileSync(path.join(dir, P)), agentRanAgain)
    const forced = run(['undo', id, '--force', '--json'], sb.env)
    assert.equal(forced.status, 0)
    assert.deepEqual(readFileSync(path.join(dir, P)), damaged)
    const undoDirs = spawnSync('find', [path.join(dir, '.chatdoctor', id), '-path', '*undo-*', '-name', P], {encoding: 'utf8'}).stdout.trim().split('\n')
    assert.equal(undoDirs.length, 1)
    assert.deepEqual(readFileSync(undoDirs[0]), agentRanAgain, 'the bytes undo replaced are kept')
  } finally {
    cleanup(sb.root)
  }
})

test('undo --list (human and --json), unknown id exits 16, no id is a usage error', () => {
  const sb = sandbox()
  try {
    const empty = runCli(['undo', '--list'], {env: sb.env})
    assert.equal(empty.status, 0)
    assert.match(empty.stdout, /No repairs/)
    const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
    writeFileSync(path.join(dir, P), Buffer.alloc(0))
    const rep = run(['repair', '--json'], sb.env)
    const id = rep.report.repairId!
    const list = run(['undo', '--list', '--json'], sb.env) as unknown as {status: number; report: {repairs: Array<{repairId: string; chats: string[]; undone: boolean}>}}
    assert.equal(list.status, 0)
    assert.equal(list.report.repairs.length, 1)
    assert.equal(list.report.repairs[0].repairId, id)
    assert.deepEqual(list.report.repairs[0].chats, [dir.replace(sb.home, '~')])
    assert.equal(list.report.repairs[0].undone, false)
    assert.match(runCli(['undo', '--list'], {env: sb.env}).stdout, new RegExp(id))
    assert.equal(runCli(['undo', id], {env: sb.env}).status, 0)
    const after = run(['undo', '--list', '--json'], sb.env) as unknown as {report: {repairs: Array<{undone: boolean}>}}
    assert.equal(after.report.repairs[0].undone, true)
    const unknown = runCli(['undo', '20990101T000000Z-000000'], {env: sb.env})
    assert.equal(unknown.status, 16)
    assert.match(unknown.stderr, /unknown repair id .*undo --list/)
    const unknownJson = run(['undo', 'nope', '--json'], sb.env) as unknown as {status: number; report: {error: string}}
    assert.equal(unknownJson.status, 16)
    assert.match(unknownJson.report.error, /unknown repair id/)
    assert.equal(runCli(['undo'], {env: sb.env}).status, 16)
  } finally {
    cleanup(sb.root)
  }
})

test('repair log goes to ~/.local/state/chatdoctor without XDG_STATE_HOME', () => {
  const sb = sandbox()
  try {
    const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
    writeFileSync(path.join(dir, P), Buffer.alloc(0))
    const r = runCli(['repair'], {env: {HOME: sb.home, XDG_STATE_HOME: ''}})
    assert.equal(r.status, 1)
    assert.ok(existsSync(path.join(sb.home, '.local', 'state', 'chatdoctor', 'repairs.jsonl')))
  } finally {
    cleanup(sb.root)
  }
})
