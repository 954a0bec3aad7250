/**
 * `repair` with the forensics of end to end through the built CLI: an embedded winner
 * (`chat-messages.json#<id>`) restored byte for byte; a torn transcript restored from an intact transcript
 * temp; `--salvage` (a salvaged torn generation used only when it covers more turns than every intact one,
 * borrowed keys reported per key); a `degraded` chat left alone by plain `repair` (exit bit 4, the option named)
 * and restored by `--restore-from`. Each: the dry-run plan equals the executed actions over (type, from, to,
 * sha256), the written bytes hash as planned, evidence first, a second run writes nothing, undo restores every
 * file exactly.
 */
import assert from 'node:assert/strict'
import {lstatSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'
import {Ajv2020} from 'ajv/dist/2020.js'
import {runCliAsync} from './helpers/cli-async.js'
import {REALDATA, REAL_CHATS, REPO_ROOT, TEN_TURN_TEMP, cleanup, copyRealChat, cutAt, hashTree, setMtime, sha256, tempDir, assertSameTree} from './helpers/fixtures.js'

const P = 'run-state.json'
const T = 'chat-messages.json'
/** The 10-turn chat's last AI message: its embedded copy is byte for byte the real primary. */
const EMBEDDED_10 = `${T}#ai-1762265497000-d81188ed9dfc1`
const T0 = Date.UTC(2026, 7, 30, 9, 0, 0)

interface Action {
  type: string
  from: string | null
  to: string
  sha256: string | null
  evidence: string | null
  keysBorrowed?: Array<{key: string; from: string}>
}
interface Gen {
  file: string
  role: string
  class: string | null
  sha256: string | null
  turns: number | null
  salvage?: {sha256: string; turns: number | null; candidate: boolean; keysBorrowed: Array<{key: string; from: string}>}
}
interface Chat {
  path: string
  status: string
  winner: string | null
  contextTurns: number | null
  transcriptTurns: number | null
  generations: Gen[]
  actions: Action[]
  amnesia?: {source: string | null}
  transcriptRestore?: {from: string; to: string; sha256: string}
  repair: {outcome: string; message: string | null; evidence: string | null; undo: string | null; warnings: string[]}
}
interface RepairReport {
  exitCode: number
  repairId: string | null
  dryRun: boolean
  error?: string
  summary: {degraded: number}
  chats: Chat[]
}

const validate = new Ajv2020({allErrors: true, strict: false}).compile(JSON.parse(readFileSync(path.join(REPO_ROOT, 'schemas', 'report.schema.json'), 'utf8')))

interface Sandbox {
  root: string
  home: string
  env: NodeJS.ProcessEnv
}

function sandbox(): Sandbox {
  const root = tempDir('chatdoctor-repair-forensics-')
  return {root, home: path.join(root, 'home'), env: {HOME: path.join(root, 'home'), XDG_STATE_HOME: path.join(root, 'state')}}
}

async function run(sb: Sandbox, args: string[]): Promise<{status: number; report: RepairReport; stdout: string; stderr: string}> {
  const r = await runCliAsync(args, {env: sb.env})
  let report: RepairReport
  try {
    report = JSON.parse(r.stdout) as RepairReport
  } catch {
    report = undefined as unknown as RepairReport
  }
  if (report && report.error === undefined) {
    assert.ok(validate(report), JSON.stringify(validate.errors))
    assert.equal(report.exitCode, r.status)
  }
  return {status: r.status, report, stdout: r.stdout, stderr: r.stderr}
}

const key = (a: Action) => JSON.stringify([a.type, a.from, a.to, a.sha256])
const real = (chat: string, name: string) => readFileSync(path.join(REALDATA, 'codebuff', chat, name))
const gen = (c: Chat, file: string) => {
  const g = c.generations.find((x) => x.file === file)
  assert.ok(g, `no generation ${file}`)
  return g
}

/** The tree below `home` without chatdoctor's own folders. */
function userTree(sb: Sandbox, t = hashTree(sb.home)): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(t)) if (!k.split(path.sep).includes('.chatdoctor')) out[k] = v
  return out
}


/**
 * The whole life of one repair: dry run (read-only, the plan), the repair (plan = executed actions), `check`
 * on the repaired tree, a second identical run (writes nothing, exit = first minus bits 1 and 2), then undo
 * (every user file back as before). Returns the dry-run and repair reports.
 */
async function lifecycle(sb: Sandbox, args: string[], check: (rep: RepairReport, dry: RepairReport) => void | Promise<void>): Promise<void> {
  const before = hashTree(sb.home)
  const dry = await run(sb, ['repair', '--dry-run', '--json', ...args])
  assert.equal(dry.status, 2, dry.stdout + dry.stderr)
  assert.deepEqual(hashTree(sb.home), before, 'the dry run wrote nothing')
  assert.ok(dry.report.chats.every((c) => c.actions.every((a) => a.evidence === null)))
  const rep = await run(sb, ['repair', '--json', ...args])
  assert.equal(rep.status, 1, rep.stdout + rep.stderr)
  for (const [i, c] of rep.report.chats.entries()) {
    assert.deepEqual(c.actions.map(key), dry.report.chats[i].actions.map(key), 'dry-run plan equals executed actions')
  }
  await check(rep.report, dry.report)
  const after = hashTree(sb.root)
  const second = await run(sb, ['repair', '--json', ...args])
  assert.equal(second.status, rep.status & ~3, second.stdout)
  assert.deepEqual(hashTree(sb.root), after, 'the second run writes nothing')
  assert.equal(second.report.repairId, null)
  const undo = await run(sb, ['undo', rep.report.repairId!, '--json'])
  assert.equal(undo.status, 0, undo.stdout + undo.stderr)
  assertSameTree(userTree(sb), userTree(sb, before), 'undo restores the exact files')
}

/** The manifest of a repair's evidence folder in a chat dir. */
function manifest(dir: string, repairId: string): {files: Array<{path: string; sha256: string; evidence: string}>; actions: Array<{type: string; from: string | null; to: string; sha256: string | null}>} {
  return JSON.parse(readFileSync(path.join(dir, '.chatdoctor', repairId, 'manifest.json'), 'utf8'))
}

/** A transcript's messages, with the embedded `metadata.runState` copies after the first `keep` removed. */
function transcriptKeeping(keep: number, drop = 0): Buffer {
  const t = JSON.parse(real(REAL_CHATS.tenTurns, T).toString('utf8')) as Array<{metadata?: {runState?: unknown}}>
  const kept = drop > 0 ? t.slice(0, t.length - drop) : t
  let copies = 0
  for (const m of kept) if (m.metadata?.runState && ++copies > keep) delete m.metadata.runState
  return Buffer.from(JSON.stringify(kept))
}

function write(dir: string, name: string, data: Buffer | string, mtimeMs: number): void {
  writeFileSync(path.join(dir, name), data)
  setMtime(path.join(dir, name), mtimeMs)
}

describe('repair with forensics', {concurrency: 3}, () => {
  test('embedded winner: every run-state file torn, the newest embedded copy is written byte for byte', async () => {
    const sb = sandbox()
    try {
      const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
      for (const f of [P, 'run-state.json.bak', TEN_TURN_TEMP]) {
        const st = lstatSync(path.join(dir, f))
        write(dir, f, cutAt(readFileSync(path.join(dir, f)), 3000), st.mtimeMs)
      }
      await lifecycle(sb, [], (rep, dry) => {
        const planned = dry.chats[0]
        assert.equal(planned.status, 'repairable')
        assert.equal(planned.winner, EMBEDDED_10)
        const winnerSha = gen(planned, EMBEDDED_10).sha256!
        assert.deepEqual(
          planned.actions.map((a) => [a.type, a.from, a.to, a.sha256]),
          [
            ['preserve', P, P, gen(planned, P).sha256],
            ['restore', EMBEDDED_10, P, winnerSha],
            ['restore-mtime', null, '.', null],
          ],
        )
        const done = rep.chats[0]
        assert.equal(done.repair.outcome, 'repaired')
        const now = readFileSync(path.join(dir, P))
        assert.equal(sha256(now), winnerSha)
        assert.deepEqual(now, real(REAL_CHATS.tenTurns, P), 'the embedded copy of turn 10 is the lost primary, byte for byte')
        assert.deepEqual([done.contextTurns, done.transcriptTurns], [10, 10])
        const m = manifest(dir, rep.repairId!)
        assert.deepEqual(m.files.map((f) => [f.path, f.sha256]), [[P, gen(planned, P).sha256]])
        assert.equal(sha256(readFileSync(path.join(dir, '.chatdoctor', rep.repairId!, P))), gen(planned, P).sha256, 'the torn primary is kept as evidence')
        assert.ok(m.actions.some((a) => a.type === 'restore' && a.from === EMBEDDED_10 && a.sha256 === winnerSha))
      })
    } finally {
      cleanup(sb.root)
    }
  })

  test('torn transcript with an intact transcript temp: plain repair restores chat-messages.json; chat-meta.json untouched', async () => {
    const sb = sandbox()
    try {
      const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
      const full = real(REAL_CHATS.tenTurns, T)
      const temp = 'chat-messages.json.4242.0b7c7a4e-1d2f-4a3b-9c8d-7e6f5a4b3c2d.tmp'
      rmSync(path.join(dir, TEN_TURN_TEMP)) // else, with no usable transcript, its extra prompt out-ranks the primary
      write(dir, temp, full, T0 + 3500)
      write(dir, T, cutAt(full, 100_000), T0 + 3000)
      const metaBefore = hashTree(dir)['chat-meta.json']
      await lifecycle(sb, [], (rep, dry) => {
        const planned = dry.chats[0]
        assert.equal(planned.status, 'repairable')
        assert.equal(planned.winner, P)
        assert.equal(planned.transcriptRestore!.from, temp)
        assert.deepEqual(
          planned.actions.map((a) => [a.type, a.from, a.to, a.sha256]),
          [
            ['preserve', T, T, gen(planned, T).sha256],
            ['restore', temp, T, sha256(full)],
            ['restore-mtime', null, '.', null],
          ],
        )
        assert.deepEqual(readFileSync(path.join(dir, T)), full)
        assert.deepEqual(readFileSync(path.join(dir, temp)), full, 'the temp is left where it is')
        assert.equal(sha256(readFileSync(path.join(dir, '.chatdoctor', rep.repairId!, T))), gen(planned, T).sha256, 'the torn transcript is kept as evidence')
        assert.equal(hashTree(dir)['chat-meta.json'], metaBefore, 'chat-meta.json is not rewritten')
        assert.equal(rep.chats[0].repair.outcome, 'repaired')
      })
    } finally {
      cleanup(sb.root)
    }
  })

  test('torn primary and torn transcript: both restored in one repair, evidence of both', async () => {
    const sb = sandbox()
    try {
      const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
      const full = real(REAL_CHATS.tenTurns, T)
      const temp = 'chat-messages.json.4242.tmp'
      write(dir, temp, full, T0 + 3500)
      write(dir, T, cutAt(full, 50_000), T0 + 3000)
      write(dir, P, cutAt(real(REAL_CHATS.tenTurns, P), 9000), T0 + 4000)
      await lifecycle(sb, [], (rep, dry) => {
        const planned = dry.chats[0]
        // With no usable transcript N is each generation's own prompt count: the temp's 11 beat the backup's 9.
        assert.equal(planned.winner, TEN_TURN_TEMP)
        assert.deepEqual(
          planned.actions.map((a) => [a.type, a.from, a.to]),
          [
            ['preserve', P, P],
            ['restore', TEN_TURN_TEMP, P],
            ['preserve', T, T],
            ['restore', temp, T],
            ['restore-mtime', null, '.'],
          ],
        )
        assert.deepEqual(readFileSync(path.join(dir, P)), real(REAL_CHATS.tenTurns, TEN_TURN_TEMP))
        assert.deepEqual(readFileSync(path.join(dir, T)), full)
        assert.deepEqual(manifest(dir, rep.repairId!).files.map((f) => f.path).sort(), [T, P])
      })
    } finally {
      cleanup(sb.root)
    }
  })

  test('every run-state file gone and the transcript torn: the embedded copy in the intact transcript temp is restored with the transcript, in one run', async () => {
    const sb = sandbox()
    try {
      const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
      const full = real(REAL_CHATS.tenTurns, T)
      const temp = 'chat-messages.json.4242.tmp'
      rmSync(path.join(dir, TEN_TURN_TEMP))
      rmSync(path.join(dir, 'run-state.json.bak'))
      write(dir, temp, full, T0 + 3500)
      write(dir, T, cutAt(full, 50_000), T0 + 3000)
      write(dir, P, Buffer.alloc(4096), T0 + 4000)
      await lifecycle(sb, [], (rep, dry) => {
        const planned = dry.chats[0]
        const winner = `${temp}#ai-1762265497000-d81188ed9dfc1`
        assert.equal(planned.winner, winner)
        assert.deepEqual(
          planned.actions.map((a) => [a.type, a.from, a.to]),
          [
            ['preserve', P, P],
            ['restore', winner, P],
            ['preserve', T, T],
            ['restore', temp, T],
            ['restore-mtime', null, '.'],
          ],
        )
        // The turn-10 embedded copy is byte for byte the real primary; the transcript is the temp's bytes.
        assert.deepEqual(readFileSync(path.join(dir, P)), real(REAL_CHATS.tenTurns, P))
        assert.deepEqual(readFileSync(path.join(dir, T)), full)
        assert.equal(rep.chats[0].repair.outcome, 'repaired')
      })
    } finally {
      cleanup(sb.root)
    }
  })

  test('--salvage: a torn primary that covers more turns than every intact generation is salvaged, borrowed keys reported', async () => {
    const sb = sandbox()
    try {
      const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
      rmSync(path.join(dir, TEN_TURN_TEMP))
      rmSync(path.join(dir, 'run-state.json.bak'))
      // The transcript holds embedded copies up to turn 7 only (the later AI messages lack metadata.runState).
      write(dir, T, transcriptKeeping(7), T0 + 3000)
      const full = real(REAL_CHATS.tenTurns, P)
      const value = JSON.parse(full.toString('utf8')) as {sessionState: {mainAgentState: {messageHistory: unknown[]}}}
      const last = JSON.stringify(value.sessionState.mainAgentState.messageHistory.at(-1))
      const at = full.indexOf(last)
      assert.ok(at > 0)
      write(dir, P, cutAt(full, at + 10), T0 + 4000) // torn inside the last message of the history

      // Plain repair would go back to the turn-7 copy; the salvage covers more.
      const plain = await run(sb, ['repair', '--dry-run', '--json'])
      const c = plain.report.chats[0]
      assert.match(c.winner!, /^chat-messages\.json#ai-/)
      assert.equal(c.contextTurns, 7)
      const s = gen(c, P).salvage!
      assert.equal(s.candidate, true)
      assert.ok(s.turns! > 7, `salvage covers ${s.turns}`)
      assert.ok(s.keysBorrowed.length > 0 && s.keysBorrowed.every((k) => k.from === c.winner))

      await lifecycle(sb, ['--salvage'], (rep, dry) => {
        const planned = dry.chats[0]
        const restore = planned.actions.find((a) => a.type === 'restore')!
        assert.deepEqual(
          planned.actions.map((a) => [a.type, a.from, a.to]),
          [
            ['preserve', P, P],
            ['restore', 'salvage:run-state.json', P],
            ['restore-mtime', null, '.'],
          ],
        )
        assert.equal(restore.sha256, s.sha256)
        assert.deepEqual(restore.keysBorrowed, s.keysBorrowed, 'each borrowed key and its donor, per key')
        const now = readFileSync(path.join(dir, P))
        assert.equal(sha256(now), s.sha256)
        assert.deepEqual(now.subarray(0, at - 1), full.subarray(0, at - 1), 'every kept message byte-identical')
        assert.equal(sha256(readFileSync(path.join(dir, '.chatdoctor', rep.repairId!, P))), gen(planned, P).sha256, 'the torn file is kept as evidence')
        assert.equal(rep.chats[0].repair.outcome, 'repaired')
      })
    } finally {
      cleanup(sb.root)
    }
  })

  test('--salvage: a salvage that covers no more turns than an intact generation is not used; the human report names the borrowed keys', async () => {
    const sb = sandbox()
    try {
      const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
      const full = real(REAL_CHATS.tenTurns, P)
      write(dir, P, cutAt(full, Math.floor(full.length / 2)), T0 + 4000)
      const r = await run(sb, ['repair', '--salvage', '--dry-run', '--json'])
      const c = r.report.chats[0]
      assert.equal(gen(c, P).salvage!.candidate, true)
      assert.ok(gen(c, P).salvage!.turns! < 10)
      assert.equal(c.actions.find((a) => a.type === 'restore')!.from, c.winner, 'the intact winner, not the salvage')
      assert.equal(c.winner, TEN_TURN_TEMP)

      // Human output of a salvage repair: one line per borrowed key.
      rmSync(path.join(dir, TEN_TURN_TEMP))
      rmSync(path.join(dir, 'run-state.json.bak'))
      write(dir, T, transcriptKeeping(3), T0 + 3000)
      const h = await runCliAsync(['repair', '--salvage', '--dry-run'], {env: sb.env})
      assert.equal(h.status, 2, h.stderr)
      assert.match(h.stdout, /would restore run-state\.json from salvage:run-state\.json \(sha256 [0-9a-f]{12}…\)/)
      assert.match(h.stdout, /^ {4}sessionState\.fileContext would be cut off by the tear: taken from chat-messages\.json#ai-\S+$/m)
      assert.match(h.stdout, /agent context would be restored: turns 1–\d of 10/)
    } finally {
      cleanup(sb.root)
    }
  })
})

// ---- degraded ---------------------------------------------------------------------------------------------

interface RunState {
  sessionState: {mainAgentState: {messageHistory: Array<{role: string; tags?: string[]}>}}
}

/** Index in a history of the k-th (1-based) USER_PROMPT message. */
function promptIndex(history: RunState['sessionState']['mainAgentState']['messageHistory'], k: number): number {
  let n = 0
  for (let i = 0; i < history.length; i++) if (history[i].role === 'user' && history[i].tags?.includes('USER_PROMPT') && ++n === k) return i
  return -1
}

/**
 * The documented example: resumed after a failed load at turn 8, the new session knows turns 8–9 only; the
 * transcript has 9 turns, its embedded copies go up to turn 7.
 */
function amnesiacChat(dir: string): void {
  const primary = JSON.parse(real(REAL_CHATS.tenTurns, P).toString('utf8')) as RunState
  const h = primary.sessionState.mainAgentState.messageHistory
  primary.sessionState.mainAgentState.messageHistory = h.slice(promptIndex(h, 8), promptIndex(h, 10))
  for (const f of ['run-state.json.bak', TEN_TURN_TEMP, 'chat-meta.json']) rmSync(path.join(dir, f))
  write(dir, T, transcriptKeeping(7, 2), T0 + 3000)
  write(dir, P, JSON.stringify(primary), T0 + 4000)
}

describe('degraded chats: plain repair leaves them, --restore-from restores the named generation', {concurrency: 2}, () => {
  test('plain repair: untouched, exit 4, the option that would change it named; --restore-from restores it with evidence and undo', async () => {
    const sb = sandbox()
    try {
      const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
      amnesiacChat(dir)
      const before = hashTree(sb.root)
      const plain = await run(sb, ['repair', '--json'])
      assert.equal(plain.status, 4)
      assert.deepEqual(hashTree(sb.root), before, 'plain repair writes nothing to a degraded chat')
      const c = plain.report.chats[0]
      assert.equal(c.status, 'degraded')
      assert.equal(plain.report.summary.degraded, 1)
      assert.equal(c.repair.outcome, 'left-untouched')
      assert.deepEqual(c.actions, [])
      const source = c.amnesia!.source!
      assert.match(source, /^chat-messages\.json#ai-/)
      assert.ok(c.repair.message!.includes(`chatdoctor repair --restore-from ${source} ${dir.replace(sb.home, '~')}`), c.repair.message!)
      assert.match(c.repair.message!, /drop turns 8–9/)
      const human = await runCliAsync(['repair'], {env: sb.env})
      assert.equal(human.status, 4)
      assert.match(human.stdout, /left untouched .*2025-11-04T14-01-15\.000Z/)
      assert.match(human.stdout, /turns 1–7 are missing from the agent's memory/)
      assert.match(human.stdout, /--restore-from chat-messages\.json#ai-/)

      await lifecycle(sb, ['--restore-from', source, dir], async (rep, dry) => {
        const planned = dry.chats[0]
        const want = gen(planned, source).sha256!
        assert.deepEqual(
          planned.actions.map((a) => [a.type, a.from, a.to, a.sha256]),
          [
            ['preserve', P, P, gen(planned, P).sha256],
            ['restore', source, P, want],
            ['restore-mtime', null, '.', null],
          ],
        )
        assert.equal(sha256(readFileSync(path.join(dir, P))), want)
        assert.equal(sha256(readFileSync(path.join(dir, '.chatdoctor', rep.repairId!, P))), gen(planned, P).sha256, 'the amnesiac primary is kept as evidence')
        // Afterwards the chat is no longer degraded: turns 1–7 back, 8–9 lost (as the report said).
        const scan = await run(sb, ['scan', '--json'])
        assert.equal(scan.report.chats[0].status, 'healthy')
        assert.deepEqual([scan.report.chats[0].contextTurns, scan.report.chats[0].transcriptTurns], [7, 9])
      })
    } finally {
      cleanup(sb.root)
    }
  })

  test('--restore-from: usage errors (exit 16) for other than one chat in scope or a generation that is not intact', async () => {
    const sb = sandbox()
    try {
      const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
      copyRealChat(REAL_CHATS.small, sb.home)
      const before = hashTree(sb.root)
      const two = await run(sb, ['repair', '--restore-from', 'run-state.json.bak', '--json'])
      assert.equal(two.status, 16)
      assert.match(two.report.error!, /exactly one chat in scope \(found 2\)/)
      write(dir, 'run-state.json.bak', cutAt(readFileSync(path.join(dir, 'run-state.json.bak')), 100), T0 + 1000)
      const after = hashTree(sb.root)
      const torn = await runCliAsync(['repair', '--restore-from', 'run-state.json.bak', dir], {env: sb.env})
      assert.equal(torn.status, 16)
      assert.match(torn.stderr, /^chatdoctor: --restore-from: run-state\.json\.bak is not an intact generation of ~\/\S+ \(intact: run-state\.json, run-state\.json\.41231\.\S+\.tmp, chat-messages\.json#ai-\S+ … chat-messages\.json#ai-\S+, 12 in all; chatdoctor inspect lists them\)\n/)
      assert.equal(torn.stdout, '')
      const nope = await runCliAsync(['repair', '--restore-from', 'chat-messages.json#ai-nope', dir], {env: sb.env})
      assert.equal(nope.status, 16)
      const both = await runCliAsync(['repair', '--salvage', '--restore-from', P, dir], {env: sb.env})
      assert.equal(both.status, 16)
      assert.deepEqual(hashTree(sb.root), after, 'usage errors write nothing')
      assert.notDeepEqual(before, after)
      // Naming the primary itself (or bytes equal to it) changes nothing.
      const same = await run(sb, ['repair', '--restore-from', EMBEDDED_10, dir, '--json'])
      assert.equal(same.status, 0, same.stdout)
      assert.deepEqual(same.report.chats[0].actions, [])
      assert.deepEqual(hashTree(sb.root), after)
    } finally {
      cleanup(sb.root)
    }
  })
})
