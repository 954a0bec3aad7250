/**
 * `repair` and `undo` against a live system and an unlucky one, as the user meets it: a log a process holds open
 * for writing, a generation the user cannot read, chatdoctor's own leftovers of a killed run, a run killed
 * between the rename and putting the folder's mtime back, SIGTERM/SIGHUP, ENOSPC while the evidence is copied,
 * and a second undo. A "killed" run is one whose next file operation never returns (the write seam hangs there),
 * so the chat is left exactly as a kill at that point leaves it.
 */
import assert from 'node:assert/strict'
import {spawn, spawnSync} from 'node:child_process'
import {chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, chmodSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {applyChat, type ApplyContext} from '../src/lib/pipeline/apply.js'
import {RecordingFileSystem, nodeFileSystem, type OpName} from '../src/lib/fsio/fs.js'
import {readLog} from '../src/lib/fsio/repair-log.js'
import {planChat} from '../src/lib/pipeline/plan.js'
import {buildRepairReport} from '../src/lib/pipeline/repair-report.js'
import {renderRepair} from '../src/lib/render/repair.js'
import {makeChalk} from '../src/lib/render/style.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {undoRepair} from '../src/lib/pipeline/undo.js'
import {runCliAsync} from './helpers/cli-async.js'
import {REAL_CHATS, REPO_ROOT, TEN_TURN_TEMP, cleanup, copyRealChat, cutAt, hashTree, runCli, setMtime, syncChatMeta, tempDir} from './helpers/fixtures.js'
import {REAL_SESSIONS, body, join, linesOf, read} from './helpers/sessions.js'

const P = 'run-state.json'
const CODEX_NAME = 'rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl'

function sandbox() {
  const root = tempDir('chatdoctor-safety-')
  const home = path.join(root, 'home')
  mkdirSync(home)
  mkdirSync(path.join(root, 'state'))
  return {root, home, stateDir: path.join(root, 'state', 'chatdoctor'), env: {HOME: home, XDG_STATE_HOME: path.join(root, 'state')}}
}

function tornChat(home: string, name: string = REAL_CHATS.tenTurns): string {
  const dir = copyRealChat(REAL_CHATS.tenTurns, home, undefined, name)
  writeFileSync(path.join(dir, P), cutAt(readFileSync(path.join(dir, P)), 4096))
  return dir
}

const scanOne = async (dir: string, home: string, stateDir: string) => {
  const s = await scanPaths([dir], {home, env: {}, stateDir})
  assert.equal(s.chats.length, 1)
  return s.chats[0]
}

const ctx = (stateDir: string, extra: Partial<ApplyContext> = {}): ApplyContext => ({fs: nodeFileSystem(), repairId: '20260903T100000Z-0e0e0e', version: 'test', stateDir, force: false, isAgentProcess: () => false, isHolderAlive: () => false, ...extra})

/** A write seam whose first operation matching `when` never returns: the run is "killed" there. */
function killedAt(when: (op: OpName, args: Array<string | number | boolean | null>) => boolean): {fs: RecordingFileSystem; killed: Promise<void>} {
  let hit!: () => void
  const killed = new Promise<void>((r) => (hit = r))
  let dead = false
  const fs = new RecordingFileSystem(nodeFileSystem(), [], (op, args) => {
    if (dead || when(op, args)) {
      dead = true
      hit()
      return new Promise<void>(() => undefined)
    }
  })
  return {fs, killed}
}

// ---- a process holds the log open for writing --------------------------------------------------------

test(
  'a session log a process holds open for writing (Codex keeps its rollout open): refused naming the pid, and its later appends reach the live log; without it the log is repaired and its evidence is a copy, never a link',
  {skip: existsSync('/proc/self/fdinfo') ? false : 'needs /proc to see open files'},
  async () => {
    const sb = sandbox()
    try {
      const dir = path.join(sb.home, '.codex', 'sessions', '2026', '06', '05')
      mkdirSync(dir, {recursive: true})
      const S = linesOf(read(REAL_SESSIONS.codex.kvsankar))
      const log = path.join(dir, CODEX_NAME)
      const torn = join([...S.slice(0, S.length - 1), body(S.at(-1)!).subarray(0, 40)])
      writeFileSync(log, torn)
      const holder = spawn(process.execPath, ['-e', "const fs=require('fs');const fd=fs.openSync(process.argv[1],'a');process.stdout.write('ready\\n');process.stdin.once('data',(d)=>{fs.writeSync(fd,d);fs.closeSync(fd);process.exit(0)})", log], {stdio: ['pipe', 'pipe', 'inherit']})
      await new Promise<void>((r) => holder.stdout!.once('data', () => r()))
      const r = await runCliAsync(['repair', '--json', dir], {env: sb.env})
      const chat = JSON.parse(r.stdout).chats[0]
      assert.equal(r.status, 2 | 8, r.stderr)
      assert.equal(chat.repair.outcome, 'refused')
      assert.match(chat.repair.message, new RegExp(`held open for writing by pid ${holder.pid}`))
      assert.ok(readFileSync(log).equals(torn), 'the log is untouched')
      // The holder appends (as Codex does for the rest of the session): the record is in the live log.
      const record = Buffer.from('{"timestamp":"2026-06-05T05:00:00.000Z","type":"event_msg","payload":{"type":"agent_message","message":"still here"}}\n')
      const exited = new Promise<void>((res) => holder.once('exit', () => res()))
      holder.stdin!.write(record)
      await exited
      assert.ok(readFileSync(log).subarray(-record.length).equals(record), "the holder's append is in the live log")
      // Nobody holds it now: repaired, and the evidence is a copy (its own inode, one link).
      const again = runCli(['repair', '--json', dir], {env: sb.env})
      assert.equal(again.status, 1, again.stderr)
      const rep = JSON.parse(again.stdout)
      const ev = path.join(dir, '.chatdoctor', rep.repairId, CODEX_NAME)
      const m = JSON.parse(readFileSync(path.join(ev, 'manifest.json'), 'utf8'))
      assert.equal(m.files[0].method, 'copy')
      assert.equal(statSync(path.join(ev, m.files[0].evidence)).nlink, 1)
    } finally {
      cleanup(sb.root)
    }
  },
)

// ---- a generation the user cannot read ----------------------------------------------------------------

const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p))
test(
  'a 10-turn .bak the user cannot read: the repair is refused (exit 8, names the file, "run chatdoctor as the file\'s owner"), nothing written; --force restores the best readable generation and says what may be lost',
  {skip: process.getuid?.() === 0 && setpriv ? false : 'needs root and setpriv to run the CLI as nobody (chmod does not stop root)'},
  () => {
    const sb = sandbox()
    try {
      chmodSync(sb.root, 0o755)
      const dir = copyRealChat(REAL_CHATS.tenTurns, sb.home)
      const ten = readFileSync(path.join(dir, P))
      const nine = readFileSync(path.join(dir, 'run-state.json.bak'))
      // The 10-turn generation is the .bak; the readable candidate left covers 9 turns; the primary is torn; the
      // transcript carries no embedded copies (as older chats).
      const transcript = JSON.parse(readFileSync(path.join(dir, 'chat-messages.json'), 'utf8')) as Array<{metadata?: {runState?: unknown}}>
      for (const m of transcript) delete m.metadata?.runState
      writeFileSync(path.join(dir, 'chat-messages.json'), JSON.stringify(transcript))
      syncChatMeta(dir)
      writeFileSync(path.join(dir, 'run-state.json.bak'), ten)
      writeFileSync(path.join(dir, TEN_TURN_TEMP), nine)
      writeFileSync(path.join(dir, P), cutAt(ten, 4096))
      const base = Date.UTC(2026, 7, 30, 9, 0, 0)
      setMtime(path.join(dir, TEN_TURN_TEMP), base + 1000)
      setMtime(path.join(dir, 'run-state.json.bak'), base + 2000)
      setMtime(path.join(dir, P), base + 5000)
      const own = (p: string) => {
        chownSync(p, 65534, 65534)
        if (statSync(p).isDirectory()) for (const n of readdirSync(p)) own(path.join(p, n))
      }
      own(sb.home)
      own(path.join(sb.root, 'state'))
      chownSync(path.join(dir, 'run-state.json.bak'), 0, 0)
      chmodSync(path.join(dir, 'run-state.json.bak'), 0o600)
      const asNobody = (args: string[]) => {
        const r = spawnSyncAs(args, sb.env)
        return {...r, report: JSON.parse(r.stdout)}
      }
      const before = hashTree(sb.root)
      const r = asNobody(['repair', '--json', dir])
      assert.equal((r.status ?? 0) & 8, 8, r.stderr)
      const chat = r.report.chats[0]
      assert.equal(chat.repair.outcome, 'refused')
      assert.match(chat.repair.message, /run-state\.json\.bak \(.*(EACCES|permission).*\)/)
      assert.match(chat.repair.message, /run chatdoctor as the file's owner/)
      assert.deepEqual(hashTree(sb.root), before, 'nothing written')
      const forced = asNobody(['repair', '--json', '--force', dir])
      assert.equal(forced.status & 1, 1, forced.stderr)
      const f = forced.report.chats[0]
      assert.equal(f.repair.outcome, 'repaired')
      assert.ok(readFileSync(path.join(dir, P)).equals(nine), 'the best readable generation (9 turns) is restored')
      assert.ok(f.repair.warnings.some((w: string) => /run-state\.json\.bak .*could not be read; what it holds beyond run-state\.json\.41231.* is not restored and may be lost/.test(w)), JSON.stringify(f.repair.warnings))
    } finally {
      cleanup(sb.root)
    }
  },
)

function spawnSyncAs(args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(setpriv!, ['--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, path.join(REPO_ROOT, 'bin', 'run.js'), ...args], {cwd: '/', env: {...process.env, ...env, NO_COLOR: '1'}, encoding: 'utf8'})
  return {status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr}
}

// ---- chatdoctor's own leftovers -----------------------------------------------------------------------

for (const [what, when, leftover] of [
  ['killed before its rename (a full-size own temp left)', (op: OpName, a: Array<string | number | boolean | null>) => op === 'rename' && String(a[1]).endsWith(`${path.sep}${P}`), /^\.chatdoctor-20260903T100000Z-0e0e0e-run-state\.json\.tmp$/],
  ['killed while writing its manifest (an evidence folder without one)', (op: OpName, a: Array<string | number | boolean | null>) => op === 'open' && String(a[0]).endsWith('manifest.json.tmp'), /^\.chatdoctor\/20260903T100000Z-0e0e0e$/],
] as const) {
  test(`a repair ${what}: scan reports chatdoctor's leftover (info, with its size), repair removes it and logs it`, async () => {
    const sb = sandbox()
    try {
      const dir = tornChat(sb.home)
      const {fs, killed} = killedAt(when)
      void applyChat(planChat(await scanOne(dir, sb.home, sb.stateDir)), ctx(sb.stateDir, {fs}))
      await killed
      const s = runCli(['scan', '--json', dir], {env: sb.env})
      const findings = JSON.parse(s.stdout).chats[0].findings.filter((f: {id: string}) => f.id === 'chatdoctor-leftover')
      assert.equal(findings.length, 1, s.stdout)
      assert.match(findings[0].file, leftover)
      assert.equal(findings[0].severity, 'info')
      const bytes = Number(/\((\d+) bytes\)/.exec(findings[0].message)?.[1])
      assert.ok(bytes > 0, findings[0].message)
      // The repair (the killed run's lock holder is gone) removes it, logs it, and repairs the chat.
      const out = await applyChat(planChat(await scanOne(dir, sb.home, sb.stateDir)), ctx(sb.stateDir, {repairId: '20260903T100001Z-0e0e0f'}))
      assert.equal(out.outcome, 'repaired', out.message ?? '')
      assert.ok(!existsSync(path.join(dir, findings[0].file)), 'the leftover is gone')
      const cleanupEntry = readLog(sb.stateDir).find((e) => e.type === 'cleanup')
      assert.ok(cleanupEntry && cleanupEntry.type === 'cleanup' && cleanupEntry.removed.some((r) => r.path === findings[0].file && r.bytes === bytes), JSON.stringify(cleanupEntry))
      const after = await scanOne(dir, sb.home, sb.stateDir)
      assert.ok(!after.report.findings.some((f) => f.id === 'chatdoctor-leftover'))
      assert.equal(after.report.status, 'healthy')
    } finally {
      cleanup(sb.root)
    }
  })
}

// ---- killed between the rename and putting the folder's mtime back --------------------------------------

test("a repair killed after its rename, before it put the chat dir's mtime back: the re-run puts back the mtime recorded before the first write", async () => {
  const sb = sandbox()
  try {
    const dir = tornChat(sb.home)
    const original = lstatSync(dir).mtimeMs
    const {fs, killed} = killedAt((op, a) => op === 'utimes' && a[0] === dir)
    void applyChat(planChat(await scanOne(dir, sb.home, sb.stateDir)), ctx(sb.stateDir, {fs}))
    await killed
    assert.ok(Math.abs(lstatSync(dir).mtimeMs - original) >= 1, 'the kill left another mtime')
    const rescan = await scanOne(dir, sb.home, sb.stateDir)
    assert.ok(rescan.report.findings.some((f) => f.id === 'repair-interrupted'), JSON.stringify(rescan.report.findings.map((f) => f.id)))
    const plan = planChat(rescan)
    assert.deepEqual(plan.actions.map((a) => a.type), ['restore-mtime'])
    const out = await applyChat(plan, ctx(sb.stateDir, {repairId: '20260903T100001Z-0e0e0f'}))
    assert.equal(out.outcome, 'repaired', out.message ?? '')
    assert.ok(Math.abs(lstatSync(dir).mtimeMs - original) < 1, `mtime ${lstatSync(dir).mtimeMs} vs ${original}`)
    // What it says is what happened: an interrupted repair finished (its mtime put back), not a chat repaired.
    const report = buildRepairReport({version: 'test', home: sb.home, dryRun: false, repairId: '20260903T100001Z-0e0e0f', plans: [plan], results: new Map([[plan, out]]), skipped: [], errors: [], interrupted: false})
    const {stdout} = renderRepair(report, {chalk: makeChalk(false), verbose: false, quiet: false})
    assert.match(stdout, /^finished an interrupted repair of .*\n {2}put back the chat folder's mtime \(so --continue still picks the same chat\) that the interrupted repair recorded before its first write/m)
    assert.match(stdout, /^1 chat, 0 repaired, 1 interrupted repair finished \(the folder time put back\), 0 healthy \(exit 1\)$/m)
    assert.doesNotMatch(stdout, /1 repaired|^repaired /m)
    const dry = buildRepairReport({version: 'test', home: sb.home, dryRun: true, repairId: '20260903T100001Z-0e0e0f', plans: [plan], results: new Map(), skipped: [], errors: [], interrupted: false})
    const dryOut = renderRepair(dry, {chalk: makeChalk(false), verbose: false, quiet: false}).stdout
    assert.match(dryOut, /^would finish an interrupted repair of /m)
    assert.match(dryOut, /0 would be repaired, 1 interrupted repair would be finished \(the folder time put back\)/)
    assert.equal(planChat(await scanOne(dir, sb.home, sb.stateDir)).actions.length, 0, 'a third run writes nothing')
  } finally {
    cleanup(sb.root)
  }
})

test("an undo killed before it put the chat dir's mtime back: the re-run puts back the mtime it recorded", async () => {
  const sb = sandbox()
  try {
    const dir = tornChat(sb.home)
    const id = '20260903T100000Z-0e0e0e'
    assert.equal((await applyChat(planChat(await scanOne(dir, sb.home, sb.stateDir)), ctx(sb.stateDir))).outcome, 'repaired')
    const beforeUndo = lstatSync(dir).mtimeMs
    const {fs, killed} = killedAt((op, a) => op === 'utimes' && a[0] === dir)
    void undoRepair(id, {fs, stateDir: sb.stateDir, version: 'test', force: false, isHolderAlive: () => false})
    await killed
    assert.ok(Math.abs(lstatSync(dir).mtimeMs - beforeUndo) >= 1, 'the kill left another mtime')
    const again = await undoRepair(id, {fs: nodeFileSystem(), stateDir: sb.stateDir, version: 'test', force: false, isHolderAlive: () => false})
    assert.ok(again.files.every((f) => f.outcome === 'already-undone'), JSON.stringify(again.files))
    assert.ok(Math.abs(lstatSync(dir).mtimeMs - beforeUndo) < 1, `mtime ${lstatSync(dir).mtimeMs} vs ${beforeUndo}`)
  } finally {
    cleanup(sb.root)
  }
})

// ---- SIGTERM, SIGHUP ----------------------------------------------------------------------------------

for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
  test(`${signal} stops repair between chats like Ctrl-C: the report is printed, every chat fully repaired or untouched`, {skip: process.platform === 'win32' ? 'POSIX signals' : false}, async () => {
    const sb = sandbox()
    try {
      const dirs: string[] = []
      for (let i = 0; i < 40; i++) dirs.push(tornChat(sb.home, `2025-11-04T14-${String(i).padStart(2, '0')}-15.000Z`))
      const torn = readFileSync(path.join(dirs[0], P))
      const winner = readFileSync(path.join(dirs[0], TEN_TURN_TEMP))
      const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'run.js'), 'repair', '--json', '--yes', path.join(sb.home, '.config')], {env: {...process.env, ...sb.env, NO_COLOR: '1'}, stdio: ['ignore', 'pipe', 'pipe']})
      let stdout = ''
      child.stdout!.on('data', (d) => (stdout += d))
      const exited = new Promise<{code: number | null; signal: string | null}>((r) => child.once('exit', (code, sig) => r({code, signal: sig})))
      // Signal as soon as the first chat has its evidence (the repair is under way).
      for (;;) {
        if (dirs.some((d) => existsSync(path.join(d, '.chatdoctor')))) break
        await new Promise((r) => setTimeout(r, 2))
      }
      child.kill(signal)
      const {code, signal: killedBy} = await exited
      assert.equal(killedBy, null, `the process was killed by ${killedBy} instead of stopping between chats`)
      const report = JSON.parse(stdout)
      assert.equal(report.interrupted, true)
      assert.equal(report.exitCode, code)
      const outcomes = report.chats.map((c: {repair: {outcome: string}}) => c.repair.outcome)
      assert.ok(outcomes.includes('not-attempted'), 'the chats after the signal were not started')
      for (const d of dirs) {
        const now = readFileSync(path.join(d, P))
        assert.ok(now.equals(torn) || now.equals(winner), `${d}: fully repaired or untouched`)
      }
    } finally {
      cleanup(sb.root)
    }
  })
}

// ---- messages say only what happened --------------------------------------------------------------------

test('ENOSPC while copying the evidence: "nothing was written", no "evidence kept in", no undo id; nothing left behind', async () => {
  const sb = sandbox()
  try {
    const dir = tornChat(sb.home)
    const before = hashTree(dir)
    const chat = await scanOne(dir, sb.home, sb.stateDir)
    const plan = planChat(chat)
    const fs = new RecordingFileSystem(nodeFileSystem(), [{op: 'link', code: 'EXDEV'}, {op: 'copyFile', code: 'ENOSPC'}])
    const c = ctx(sb.stateDir, {fs})
    const out = await applyChat(plan, c)
    assert.equal(out.outcome, 'failed')
    assert.match(out.message!, /no space left on the device .*\(ENOSPC\).*nothing was written/)
    assert.equal(out.evidenceDir, null)
    assert.ok(!existsSync(path.join(dir, '.chatdoctor')), 'no empty evidence folder left')
    const report = buildRepairReport({version: 'test', home: sb.home, dryRun: false, repairId: c.repairId, plans: [plan], results: new Map([[plan, out]]), skipped: [], errors: [], interrupted: false})
    assert.equal(report.repairId, null)
    const {stdout, stderr} = renderRepair(report, {chalk: makeChalk(false), verbose: false, quiet: false})
    assert.doesNotMatch(stdout + stderr, /evidence kept/)
    assert.doesNotMatch(stdout + stderr, /chatdoctor undo/)
    assert.match(stdout, /nothing was written/)
    const now = hashTree(dir)
    delete now['.']
    delete before['.']
    assert.deepEqual(now, before)
  } finally {
    cleanup(sb.root)
  }
})

test('a second undo of the same id: "already undone" in its own words, exit 0, nothing written', () => {
  const sb = sandbox()
  try {
    const dir = tornChat(sb.home)
    const rep = runCli(['repair', '--json', dir], {env: sb.env})
    assert.equal(rep.status, 1, rep.stderr)
    const id = JSON.parse(rep.stdout).repairId
    const first = runCli(['undo', id], {env: sb.env})
    assert.equal(first.status, 0, first.stderr)
    assert.match(first.stdout, /Undid repair/)
    const before = hashTree(sb.root)
    const second = runCli(['undo', id], {env: sb.env})
    assert.equal(second.status, 0, second.stderr)
    assert.doesNotMatch(second.stdout, /Undid repair/)
    assert.match(second.stdout, new RegExp(`Repair ${id} was already undone: every file is as before it; nothing written\\.`))
    assert.deepEqual(hashTree(sb.root), before, 'the second undo writes nothing')
    const json = JSON.parse(runCli(['undo', id, '--json'], {env: sb.env}).stdout)
    assert.equal(json.alreadyUndone, true)
    assert.equal(json.exitCode, 0)
  } finally {
    cleanup(sb.root)
  }
})
