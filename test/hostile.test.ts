/**
 * Hostile and unusual trees: symbolic links (never followed out of the scanned root, never written
 * through), errors injected at every write of a repair (EACCES, EROFS, ENOSPC, EIO: tests run as root, where
 * chmod stops nothing), real permissions as an unprivileged user, very long paths, names that are not valid
 * UTF-8, a chat dir deleted mid-scan, a 0-byte transcript, two repairs of one chat at once, stale locks, an
 * agent that keeps writing the chat during the repair, and two-run convergence over a scenario corpus.
 */
import assert from 'node:assert/strict'
import {spawn, spawnSync} from 'node:child_process'
import {chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {applyChat, type ApplyContext} from '../src/lib/pipeline/apply.js'
import {discover} from '../src/lib/pipeline/discover.js'
import {ADAPTERS} from '../src/lib/formats/index.js'
import {RecordingFileSystem, errnoError, nodeFileSystem, type Expected, type FileSystem, type OpName} from '../src/lib/fsio/fs.js'
import {readLog} from '../src/lib/fsio/repair-log.js'
import {planChat, planRepairs, type ChatPlan} from '../src/lib/pipeline/plan.js'
import {buildRepairReport, newRepairId, type ChatResult} from '../src/lib/pipeline/repair-report.js'
import {scanChat, scanPaths} from '../src/lib/pipeline/scan.js'
import {runCliAsync} from './helpers/cli-async.js'
import {buildTask, compact, realTurns, safeWrite, storageDir, taskId, writeStore, type SafeWriteStop, type Variant} from './helpers/vscode-tasks.js'
import {REAL_CHATS, REPO_ROOT, TEN_TURN_TEMP, cleanup, copyRealChat, cutAt, hashTree, nulTailAt, runCli, setMtime, sha256, tempDir, withBom, zeroFill} from './helpers/fixtures.js'

const P = 'run-state.json'
const T = 'chat-messages.json'
const CHATS = path.join('.config', 'manicode', 'projects', 'demo-app', 'chats')

function sandbox() {
  const root = tempDir('chatdoctor-hostile-')
  const home = path.join(root, 'home')
  mkdirSync(home)
  mkdirSync(path.join(root, 'state'))
  return {root, home, stateDir: path.join(root, 'state', 'chatdoctor'), env: {HOME: home, XDG_STATE_HOME: path.join(root, 'state')}}
}

/** A copy of the 10-turn real chat with a truncated primary (the temp, 10 of 10 turns, wins). */
function damagedChat(home: string, name: string = REAL_CHATS.tenTurns, parent = CHATS): string {
  const dir = copyRealChat(REAL_CHATS.tenTurns, home, parent, name)
  const p = path.join(dir, P)
  writeFileSync(p, cutAt(readFileSync(p), 3000))
  return dir
}

function ctxFor(stateDir: string, fs: FileSystem = nodeFileSystem(), extra: Partial<ApplyContext> = {}): ApplyContext {
  return {fs, repairId: newRepairId(), version: 'test', stateDir, force: false, isAgentProcess: () => false, ...extra}
}

/** `repair` as the command runs it, in process: scan, plan, apply each chat with actions, report. */
async function repairInProcess(paths: string[], home: string, stateDir: string, fs: FileSystem = nodeFileSystem()) {
  const scan = await scanPaths(paths, {home, env: {}})
  const plans = planRepairs(scan.chats)
  const results = new Map<ChatPlan, ChatResult>()
  const ctx = ctxFor(stateDir, fs)
  for (const p of plans) if (p.actions.length > 0) results.set(p, await applyChat(p, ctx))
  return buildRepairReport({version: 'test', home, dryRun: false, repairId: ctx.repairId, plans, results, skipped: scan.skipped, errors: scan.errors, interrupted: false})
}

const onlyChat = async (dir: string, home: string) => {
  const s = await scanPaths([dir], {home, env: {}})
  assert.equal(s.chats.length, 1)
  return s.chats[0]
}

// ---- symbolic links ----------------------------------------------------------------------------------

test('a symlinked chat dir below the scanned root is not followed: skipped with a reason, its target never written', async () => {
  const sb = sandbox()
  try {
    const outside = damagedChat(path.join(sb.root, 'elsewhere'))
    const chats = path.join(sb.home, CHATS)
    mkdirSync(chats, {recursive: true})
    symlinkSync(outside, path.join(chats, 'linked-chat'))
    const before = hashTree(path.join(sb.root, 'elsewhere'))
    const report = await repairInProcess([sb.home], sb.home, sb.stateDir)
    assert.equal(report.chats.length, 0)
    assert.deepEqual(report.skipped.map((s) => [s.path, s.reason]), [[`~/${CHATS}/linked-chat`, 'symbolic link to a folder: not followed']])
    assert.equal(report.exitCode, 0)
    assert.deepEqual(hashTree(path.join(sb.root, 'elsewhere')), before)
  } finally {
    cleanup(sb.root)
  }
})

test('run-state.json is a symbolic link: repair leaves the chat for a manual step (never replaces the link, never writes through it), exit 2', async () => {
  const sb = sandbox()
  try {
    const dir = damagedChat(sb.home)
    const target = path.join(sb.root, 'outside-run-state.json')
    writeFileSync(target, readFileSync(path.join(dir, P)))
    unlinkSync(path.join(dir, P))
    symlinkSync(target, path.join(dir, P))
    const before = hashTree(sb.root)
    const report = await repairInProcess([dir], sb.home, sb.stateDir)
    const chat = report.chats[0]
    assert.equal(chat.repair!.outcome, 'manual')
    assert.match(chat.repair!.message!, /run-state\.json is a symbolic link: chatdoctor never replaces or writes through it, even with --force; move it away by hand/)
    assert.equal(report.exitCode, 2)
    assert.deepEqual(hashTree(sb.root), before, 'nothing written: the link, its target and the chat dir as they were')
    assert.ok(lstatSync(path.join(dir, P)).isSymbolicLink())
  } finally {
    cleanup(sb.root)
  }
})

test(".chatdoctor is a symbolic link to a folder elsewhere: left for a manual step, applying the plan is refused, nothing written where it points (not even with --force)", async () => {
  const sb = sandbox()
  try {
    const dir = damagedChat(sb.home)
    const elsewhere = path.join(sb.root, 'elsewhere')
    mkdirSync(elsewhere)
    symlinkSync(elsewhere, path.join(dir, '.chatdoctor'))
    const before = hashTree(sb.root)
    for (const force of [false, true]) {
      const plan = planChat(await onlyChat(dir, sb.home), {force})
      assert.equal(plan.blocked?.name, '.chatdoctor')
      assert.deepEqual(plan.actions, [])
      assert.match(plan.manual!, /^\.chatdoctor is a symbolic link: chatdoctor never replaces or writes through it, even with --force; move it away by hand/)
      const out = await applyChat(plan, ctxFor(sb.stateDir, nodeFileSystem(), {force}))
      assert.equal(out.outcome, 'refused')
      // Applied anyway (the API), a plan with its actions is refused at the write seam as well.
      const chat = await onlyChat(dir, sb.home)
      const own = chat.adapter.planRepair!(chat, {force})
      assert.ok(own.actions.length > 0)
      const direct = await applyChat(own, ctxFor(sb.stateDir, nodeFileSystem(), {force}))
      assert.equal(direct.outcome, 'refused')
      assert.match(direct.message!, /\.chatdoctor in the chat dir is a symbolic link, not chatdoctor's folder/)
    }
    assert.deepEqual(readdirSync(elsewhere), [])
    assert.deepEqual(hashTree(sb.root), before)
  } finally {
    cleanup(sb.root)
  }
})

// ---- errors injected at every write ------------------------------------------------------------------

/** Throws `code` at the `at`-th mutating call (0-based); every other call goes through. */
class FailAt implements FileSystem {
  private n = 0
  failedOp: string | null = null
  constructor(
    private readonly inner: FileSystem,
    private readonly at: number,
    private readonly code: string,
  ) {}
  private gate(op: OpName, p: string) {
    if (this.n++ === this.at) {
      this.failedOp = `${op} ${path.basename(p)}`
      throw errnoError(this.code, op, p)
    }
  }
  async open(p: string, f: 'wx' | 'a' | 'r', m?: number) {
    this.gate('open', p)
    return this.inner.open(p, f, m)
  }
  async write(fd: number, d: Uint8Array) {
    this.gate('write', String(fd))
    return this.inner.write(fd, d)
  }
  async fsync(fd: number) {
    this.gate('fsync', String(fd))
    return this.inner.fsync(fd)
  }
  async close(fd: number) {
    this.gate('close', String(fd))
    return this.inner.close(fd)
  }
  async rename(a: string, b: string, e?: Expected) {
    this.gate('rename', b)
    return this.inner.rename(a, b, e)
  }
  async link(a: string, b: string) {
    this.gate('link', b)
    return this.inner.link(a, b)
  }
  async copyFile(a: string, b: string) {
    this.gate('copyFile', b)
    return this.inner.copyFile(a, b)
  }
  async mkdir(p: string, o?: {recursive?: boolean}) {
    this.gate('mkdir', p)
    return this.inner.mkdir(p, o)
  }
  async utimes(p: string, a: number, m: number) {
    this.gate('utimes', p)
    return this.inner.utimes(p, a, m)
  }
  async unlink(p: string, e?: Expected) {
    this.gate('unlink', p)
    return this.inner.unlink(p, e)
  }
  async rmdir(p: string) {
    this.gate('rmdir', p)
    return this.inner.rmdir(p)
  }
  readFile(p: string) {
    return this.inner.readFile(p)
  }
  hashFile(p: string) {
    return this.inner.hashFile(p)
  }
  readdir(p: string) {
    return this.inner.readdir(p)
  }
  lstat(p: string) {
    return this.inner.lstat(p)
  }
  async fsyncDir(p: string) {
    this.gate('fsyncDir', p)
    return this.inner.fsyncDir(p)
  }
}

test('EACCES, EROFS, ENOSPC and EIO injected at every write of a repair: the primary is old or new (never torn), evidence complete when replaced, a plain message, and a re-run converges', async (t) => {
  // The number of mutating calls of a clean repair.
  const probe = sandbox()
  let total: number
  try {
    const dir = damagedChat(probe.home)
    const rec = new RecordingFileSystem(nodeFileSystem())
    assert.equal((await applyChat(planChat(await onlyChat(dir, probe.home)), ctxFor(probe.stateDir, rec))).outcome, 'repaired')
    total = rec.mutations().length
  } finally {
    cleanup(probe.root)
  }
  let runs = 0
  const outcomes = new Map<string, number>()
  for (const code of ['EACCES', 'EROFS', 'ENOSPC', 'EIO']) {
    for (let at = 0; at < total; at++) {
      const sb = sandbox()
      try {
        const dir = damagedChat(sb.home)
        const old = readFileSync(path.join(dir, P))
        const scanned = await onlyChat(dir, sb.home)
        const plan = planChat(scanned)
        const fresh = plan.actions.find((a) => a.type === 'restore')!.data!
        const fs = new FailAt(nodeFileSystem(), at, code)
        const ctx = ctxFor(sb.stateDir, fs)
        const out = await applyChat(plan, ctx)
        runs++
        const where = `${code} at call ${at} (${fs.failedOp}): ${out.outcome} ${out.message ?? ''}`
        outcomes.set(out.outcome, (outcomes.get(out.outcome) ?? 0) + 1)
        const now = readFileSync(path.join(dir, P))
        assert.ok(now.equals(old) || now.equals(fresh), `${where}: primary torn`)
        if (out.outcome === 'failed') {
          assert.match(out.message!, new RegExp(code), where)
          assert.doesNotMatch(out.message!, /\n|    at /, `${where}: one line, no stack`)
        }
        if (now.equals(fresh)) {
          const evDir = path.join(dir, '.chatdoctor', ctx.repairId)
          assert.ok(readFileSync(path.join(evDir, P)).equals(old), `${where}: evidence`)
          assert.ok(readLog(sb.stateDir).some((e) => e.repairId === ctx.repairId), `${where}: log`)
        } else assert.notEqual(out.outcome, 'repaired', where)
        assert.ok(!readdirSync(dir).some((n) => n.startsWith('.chatdoctor-')) || fs.failedOp?.startsWith('unlink'), `${where}: own temp left`)
        // The re-run (real file system) converges.
        const again = await applyChat(planChat(await onlyChat(dir, sb.home)), ctxFor(sb.stateDir, nodeFileSystem(), {isHolderAlive: () => false}))
        assert.ok(again.outcome === 'repaired', `${where}: re-run ${again.outcome} ${again.message}`)
        assert.ok(readFileSync(path.join(dir, P)).equals(fresh), `${where}: re-run primary`)
        assert.equal(planChat(await onlyChat(dir, sb.home)).actions.length, 0, `${where}: third run would write`)
      } finally {
        cleanup(sb.root)
      }
    }
  }
  t.diagnostic(`${runs} repairs with an injected error (${total} mutating calls x 4 errnos): ${[...outcomes].map(([k, v]) => `${v} ${k}`).join(', ')}`)
  assert.ok((outcomes.get('failed') ?? 0) > total, 'most injected errors fail the chat')
})

// ---- real permissions, as an unprivileged user --------------------------------------------------------

const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p))
const canDrop = process.getuid?.() === 0 && setpriv !== undefined
test(
  'as an unprivileged user (nobody, via setpriv): a chat it cannot write is not repaired (EACCES, exit 2|8, nothing written); a file it cannot read is an operational error',
  {skip: canDrop ? false : 'needs root and setpriv to run the CLI as nobody (tests run as root in CI; chmod does not stop root)'},
  () => {
    const sb = sandbox()
    try {
      chmodSync(sb.root, 0o755)
      const dir = damagedChat(sb.home)
      for (const d of [sb.home, path.join(sb.home, '.config'), path.join(sb.home, '.config', 'manicode'), path.dirname(path.dirname(dir)), path.dirname(dir)]) chmodSync(d, 0o755)
      chmodSync(path.join(sb.root, 'state'), 0o777)
      const asNobody = (args: string[]) =>
        spawnSync(setpriv!, ['--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, path.join(REPO_ROOT, 'bin', 'run.js'), ...args], {
          cwd: '/',
          env: {...process.env, ...sb.env, NO_COLOR: '1'},
          encoding: 'utf8',
        })
      const before = hashTree(sb.root)
      const r = asNobody(['repair', '--json', dir])
      assert.equal(r.status, 2 | 8, r.stderr)
      const chat = JSON.parse(r.stdout).chats[0]
      assert.equal(chat.repair.outcome, 'failed')
      assert.match(chat.repair.message, /permission denied .*\(EACCES\); run as the user who owns the chat/)
      assert.doesNotMatch(r.stderr, /    at /)
      assert.deepEqual(hashTree(sb.root), before, 'nothing written')
      // A primary nobody cannot read: reported, exit 8, no stack trace.
      chmodSync(path.join(dir, P), 0o600)
      const s = asNobody(['scan', '--json', dir])
      assert.equal((s.status ?? 0) & 8, 8, s.stderr)
      const report = JSON.parse(s.stdout)
      assert.ok(report.errors.some((e: {path: string; message: string}) => e.path.endsWith(P) && /EACCES|permission/.test(e.message)), s.stdout)
      assert.deepEqual(report.chats[0].generations.find((g: {file: string}) => g.file === P).reasons, ['unreadable'])
    } finally {
      cleanup(sb.root)
    }
  },
)

// ---- long paths, odd names ---------------------------------------------------------------------------

test('very long paths: a chat ~3 KB deep is scanned and repaired; a folder past PATH_MAX is one clean error and the rest is still scanned', async () => {
  const sb = sandbox()
  try {
    const seg = (c: string) => c.repeat(250)
    const deepParent = path.join('deep', ...'abcdefghijk'.split('').map(seg))
    const dir = damagedChat(sb.home, REAL_CHATS.tenTurns, deepParent)
    assert.ok(dir.length > 2800, `${dir.length} bytes`)
    const report = await repairInProcess([dir], sb.home, sb.stateDir)
    assert.equal(report.chats[0].repair!.outcome, 'repaired', report.chats[0].repair!.message ?? '')
    assert.equal(report.exitCode, 1)
    // Past PATH_MAX (4096 bytes) below the same folder: only reachable relative, so made with the shell.
    const deepRoot = path.dirname(dir)
    const mk = spawnSync('bash', ['-c', `cd '${deepRoot}' && for c in l m n o p q; do d=$(printf "$c%.0s" $(seq 250)); mkdir "$d" && cd "$d"; done && mkdir chats && echo '{}' > chats/run-state.json`])
    assert.equal(mk.status, 0, mk.stderr.toString())
    const r = runCli(['scan', '--json', deepRoot], {env: sb.env})
    const out = JSON.parse(r.stdout)
    assert.equal(out.exitCode, r.status)
    assert.equal(r.status, 8, 'the deep chat is healthy now; the folder past PATH_MAX is an operational error')
    assert.equal(out.errors.length, 1)
    assert.match(out.errors[0].message, /ENAMETOOLONG|name too long/)
    assert.deepEqual(out.chats.map((c: {status: string}) => c.status), ['healthy'], 'the rest is still scanned')
    assert.doesNotMatch(r.stderr, /    at /)
  } finally {
    spawnSync('rm', ['-rf', sb.root])
  }
})

test('names that are not valid UTF-8: a file is listed escaped (\\xNN) and never touched; a folder is skipped escaped', async () => {
  const sb = sandbox()
  try {
    const dir = damagedChat(sb.home)
    const odd = Buffer.concat([Buffer.from(dir + '/run-state.json.'), Buffer.from([0xff, 0xfe]), Buffer.from('.tmp')])
    writeFileSync(odd, 'not ours')
    const oddDir = Buffer.concat([Buffer.from(path.join(sb.home, CHATS) + '/'), Buffer.from([0xc3, 0x28]), Buffer.from('chat')])
    mkdirSync(oddDir)
    writeFileSync(Buffer.concat([oddDir, Buffer.from('/run-state.json')]), '')
    const report = await repairInProcess([sb.home], sb.home, sb.stateDir)
    const chat = report.chats.find((c) => c.path.endsWith(REAL_CHATS.tenTurns))!
    const g = chat.generations.find((x) => x.file === 'run-state.json.\\xff\\xfe.tmp')
    assert.ok(g, JSON.stringify(chat.generations.map((x) => x.file)))
    assert.equal(g.role, 'other')
    assert.ok(chat.findings.some((f) => f.id === 'unknown-file' && f.file === 'run-state.json.\\xff\\xfe.tmp'))
    assert.equal(chat.repair!.outcome, 'repaired')
    assert.equal(readFileSync(odd, 'utf8'), 'not ours')
    assert.deepEqual(report.skipped.map((s) => [s.path, s.reason]), [[`~/${CHATS}/\\xc3(chat`, 'folder name is not valid UTF-8: not searched, never repaired']])
    assert.deepEqual(readdirSync(oddDir), ['run-state.json'], 'the folder is never written')
  } finally {
    cleanup(sb.root)
  }
})

test('a chat dir deleted mid-scan is one error ("disappeared"); deleted between the scan and the write, the repair refuses and recreates nothing', async () => {
  const sb = sandbox()
  try {
    const dir = damagedChat(sb.home)
    const other = damagedChat(sb.home, '2025-11-05T10-00-00.000Z')
    const found = await discover([sb.home], ADAPTERS, sb.home, {})
    assert.equal(found.chats.length, 2)
    rmSync(dir, {recursive: true})
    const results = await Promise.all(found.chats.map((c) => scanChat(c.unit, c.adapter, sb.home)))
    const gone = results.find((r) => 'error' in r) as {error: {path: string; message: string}}
    assert.deepEqual(gone.error, {path: dir.replace(sb.home, '~'), message: 'the chat disappeared during the scan'})
    assert.ok(results.some((r) => 'report' in r && r.report.status === 'repairable'), 'the other chat is still diagnosed')

    const plan = planChat(await onlyChat(other, sb.home))
    rmSync(other, {recursive: true})
    const out = await applyChat(plan, ctxFor(sb.stateDir))
    assert.equal(out.outcome, 'refused')
    assert.match(out.message!, /disappeared since the scan/)
    assert.ok(!existsSync(other), 'the chat dir is not recreated')
  } finally {
    cleanup(sb.root)
  }
})

test('a 0-byte transcript: turns are the generations own prompt counts; the repair never touches the transcript', async () => {
  const sb = sandbox()
  try {
    const dir = damagedChat(sb.home)
    writeFileSync(path.join(dir, T), '')
    const report = await repairInProcess([dir], sb.home, sb.stateDir)
    const chat = report.chats[0]
    assert.equal(chat.transcriptTurns, null)
    assert.equal(chat.generations.find((g) => g.file === T)!.class, 'empty')
    assert.ok(chat.findings.some((f) => f.id === 'transcript-damaged'))
    assert.equal(chat.winner, TEN_TURN_TEMP, 'the temp holds the most prompts of its own (11)')
    assert.equal(chat.contextTurns, 11)
    assert.equal(chat.repair!.outcome, 'repaired')
    assert.equal(readFileSync(path.join(dir, T)).length, 0)
  } finally {
    cleanup(sb.root)
  }
})

// ---- concurrency and locks ---------------------------------------------------------------------------

test('two repairs of one chat at once: the second refuses at once (another chatdoctor holds the lock), writes nothing; the first completes', async () => {
  const sb = sandbox()
  try {
    const dir = damagedChat(sb.home)
    const plan = planChat(await onlyChat(dir, sb.home))
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let locked!: () => void
    const lockTaken = new Promise<void>((r) => (locked = r))
    const first = new RecordingFileSystem(nodeFileSystem())
    first.onOp = async (op, args) => {
      if (op === 'mkdir' && String(args[0]).includes(path.join('.chatdoctor', '2'))) {
        locked()
        await held // the first holds its lock here, evidence not yet taken
      }
    }
    const a = applyChat(plan, ctxFor(sb.stateDir, first, {isHolderAlive: undefined}))
    await lockTaken
    const second = new RecordingFileSystem(nodeFileSystem())
    const b = await applyChat(plan, ctxFor(sb.stateDir, second, {isHolderAlive: undefined}))
    assert.equal(b.outcome, 'refused')
    assert.match(b.message!, new RegExp(`another chatdoctor \\(pid ${process.pid}, repair .*\\) is writing this chat`))
    assert.deepEqual(second.mutations().filter((m) => !m.error).map((m) => m.op), [], 'the second writes nothing')
    release()
    assert.equal((await a).outcome, 'repaired')
    assert.ok(!existsSync(path.join(dir, '.chatdoctor', 'lock')))
    assert.equal(readdirSync(path.join(dir, '.chatdoctor')).length, 1, 'one evidence folder')
  } finally {
    cleanup(sb.root)
  }
})

test('two `chatdoctor repair` processes started together: one repairs (exit 1), the other refuses (2|8) or finds nothing left (0); one evidence folder', async () => {
  const sb = sandbox()
  try {
    const dir = damagedChat(sb.home)
    const winner = readFileSync(path.join(dir, TEN_TURN_TEMP))
    const [x, y] = await Promise.all([runCliAsync(['repair', '--json', dir], {env: sb.env}), runCliAsync(['repair', '--json', dir], {env: sb.env})])
    const codes = [x.status, y.status].sort((m, n) => m - n)
    assert.ok(JSON.stringify(codes) === '[1,10]' || JSON.stringify(codes) === '[0,1]', `${codes} ${x.stderr} ${y.stderr}`)
    assert.ok(readFileSync(path.join(dir, P)).equals(winner))
    assert.equal(readdirSync(path.join(dir, '.chatdoctor')).length, 1)
    assert.equal(readLog(sb.stateDir).filter((e) => e.type === 'repair').length, 1)
  } finally {
    cleanup(sb.root)
  }
})

test('two repairs of one chat, the second started at each step of the first one taking the lock and held before its rename: never both past the lock; one repairs, one evidence folder, one log entry', async () => {
  const LOCK = `${path.sep}.chatdoctor${path.sep}lock`
  let cases = 0
  for (let k = 0; ; k++) {
    const sb = sandbox()
    try {
      const dir = damagedChat(sb.home)
      const winner = readFileSync(path.join(dir, TEN_TURN_TEMP))
      const [planA, planB] = [planChat(await onlyChat(dir, sb.home)), planChat(await onlyChat(dir, sb.home))]
      const ctxB = ctxFor(sb.stateDir)
      // B stops right before its rename over run-state.json (its evidence and log entry made) until A has finished.
      let reached!: () => void
      const atEvidence = new Promise<void>((r) => (reached = r))
      let open!: () => void
      const gate = new Promise<void>((r) => (open = r))
      let held = false
      const touches = (args: unknown[], part: string) => args.some((a) => typeof a === 'string' && a.includes(part))
      ctxB.fs = new RecordingFileSystem(nodeFileSystem(), [], async (op, args) => {
        if (held || op !== 'rename' || args[1] !== path.join(dir, P)) return
        held = true
        reached()
        await gate
      })
      let b: Promise<Awaited<ReturnType<typeof applyChat>>> | undefined
      let seen = 0
      const fsA = new RecordingFileSystem(nodeFileSystem(), [], async (_op, args) => {
        if (b || !touches(args, LOCK) || seen++ !== k) return
        b = applyChat(planB, ctxB)
        await Promise.race([atEvidence, b])
      })
      const a = await applyChat(planA, ctxFor(sb.stateDir, fsA))
      open()
      if (!b) break
      cases++
      const outcomes = [a.outcome, (await b).outcome]
      const at = `B started at lock step ${k} of A: ${JSON.stringify(outcomes)}`
      assert.equal(outcomes.filter((o) => o === 'repaired').length, 1, at)
      assert.ok(readFileSync(path.join(dir, P)).equals(winner), at)
      assert.equal(readdirSync(path.join(dir, '.chatdoctor')).filter((n) => !n.startsWith('lock')).length, 1, `${at}: one evidence folder`)
      assert.equal(readLog(sb.stateDir).filter((e) => e.type === 'repair').length, 1, `${at}: one log entry`)
      assert.equal(existsSync(path.join(dir, '.chatdoctor', 'lock')), false, `${at}: the lock released`)
    } finally {
      cleanup(sb.root)
    }
  }
  assert.ok(cases >= 3, `B was started at ${cases} lock steps of A`)
})

test('a chat with nothing to do is not touched at all: no lock, no .chatdoctor, no write of any kind', async () => {
  const sb = sandbox()
  try {
    copyRealChat(REAL_CHATS.tenTurns, sb.home)
    // Unrecoverable: the only generation zero-filled, and no transcript (so no embedded copy either).
    const lost = copyRealChat(REAL_CHATS.small, sb.home)
    writeFileSync(path.join(lost, P), zeroFill(readFileSync(path.join(lost, P))))
    unlinkSync(path.join(lost, T))
    const before = hashTree(sb.root)
    const rec = new RecordingFileSystem(nodeFileSystem())
    const report = await repairInProcess([sb.home], sb.home, sb.stateDir, rec)
    assert.deepEqual(report.chats.map((c) => c.repair!.outcome).sort(), ['not-needed', 'not-repairable'])
    assert.equal(report.exitCode, 4)
    assert.deepEqual(rec.mutations(), [])
    assert.deepEqual(hashTree(sb.root), before)
  } finally {
    cleanup(sb.root)
  }
})

test('a stale lock is taken over with a warning: a torn (empty, garbage) lock file, or a live pid with another start time (pid reused)', async () => {
  for (const body of ['', '\0\0\0\0', '{"pid":', JSON.stringify({pid: process.pid, startedAtMs: 1, purpose: 'repair old', time: '2020-01-01T00:00:00.000Z'})]) {
    const sb = sandbox()
    try {
      const dir = damagedChat(sb.home)
      mkdirSync(path.join(dir, '.chatdoctor'))
      writeFileSync(path.join(dir, '.chatdoctor', 'lock'), body)
      const out = await applyChat(planChat(await onlyChat(dir, sb.home)), ctxFor(sb.stateDir))
      assert.equal(out.outcome, 'repaired', `${JSON.stringify(body)}: ${out.message}`)
      assert.match(out.warnings.join('\n'), /took over a stale lock of pid/)
      assert.ok(!existsSync(path.join(dir, '.chatdoctor', 'lock')))
    } finally {
      cleanup(sb.root)
    }
  }
})

// ---- a live agent ------------------------------------------------------------------------------------

test('live agent: a process that keeps rewriting the chat while `repair` runs → refused (exit 2|8), nothing written', async () => {
  const sb = sandbox()
  const dir = damagedChat(sb.home)
  const transcript = path.join(dir, T)
  // The agent: rewrites the transcript in a loop (two sizes alternately), as the CLI saves after each message.
  const agent = spawn(
    process.execPath,
    ['-e', `const fs=require('fs');const b=fs.readFileSync(${JSON.stringify(transcript)});let i=0;process.send('ready',()=>{for(;;){fs.writeFileSync(${JSON.stringify(transcript)},i++%2?b:Buffer.concat([b,Buffer.from(' ')]))}})`],
    {stdio: ['ignore', 'ignore', 'inherit', 'ipc']},
  )
  try {
    await new Promise((r) => agent.once('message', r))
    const primary = readFileSync(path.join(dir, P))
    const before = hashTree(sb.root)
    const scan = await scanPaths([dir], {home: sb.home, env: {}})
    const plans = planRepairs(scan.chats)
    // The repair's first look at the disk waits until the agent has written since the scan (on a loaded 2-core
    // box the agent may not be scheduled inside the few ms between the scan and the write otherwise).
    const seen = plans[0].watch.find((w) => w.name === T)!
    const fs = new RecordingFileSystem(nodeFileSystem())
    let waited = false
    fs.onOp = async (op) => {
      if (waited || op !== 'lstat') return
      waited = true
      for (let i = 0; i < 1000; i++) {
        try {
          const st = lstatSync(transcript)
          if (st.mtimeMs !== seen.mtimeMs || st.size !== seen.bytes) return
        } catch {
          return
        }
        await new Promise((r) => setTimeout(r, 10))
      }
    }
    const results = new Map<ChatPlan, ChatResult>([[plans[0], await applyChat(plans[0], ctxFor(sb.stateDir, fs))]])
    const report = buildRepairReport({version: 'test', home: sb.home, dryRun: false, repairId: 'x', plans, results, skipped: [], errors: [], interrupted: false})
    assert.equal(report.exitCode, 2 | 8)
    const chat = report.chats[0]
    assert.equal(chat.repair!.outcome, 'refused')
    assert.match(chat.repair!.message!, /chat-messages\.json changed since the scan.*--force writes anyway/)
    assert.deepEqual(fs.mutations(), [], 'nothing written')
    assert.ok(readFileSync(path.join(dir, P)).equals(primary))
    assert.ok(!existsSync(path.join(dir, '.chatdoctor')), 'no .chatdoctor')
    assert.ok(!existsSync(sb.stateDir), 'no repair log')
    const after = hashTree(sb.root)
    for (const t of [before, after]) for (const k of Object.keys(t)) if (k.endsWith(T) || k === path.relative(sb.root, dir)) delete t[k]
    assert.deepEqual(after, before, 'only the agent wrote')
  } finally {
    agent.kill('SIGKILL')
    await new Promise((r) => agent.once('exit', r))
    cleanup(sb.root)
  }
})

// ---- two-run convergence -----------------------------------------------------------------------------

interface Convergence {
  name: string
  /** A real Codebuff chat copied into the home, or … */
  chat?: string
  /** … a chat built into the home by code, returning its folder (an extension's task folder). */
  build?: (home: string, i: number) => string
  damage: (dir: string) => void
}
/** A task folder of an extension's store in its editor's folder, the model context one turn behind. */
const extensionTask = (v: Variant, editor: string, stop: SafeWriteStop | null) => (home: string, i: number) => {
  const turns = realTurns('A')
  const [w] = writeStore(storageDir(home, v, path.join('.config', editor)), v, [buildTask(v, taskId(v, 60 + i), turns.slice(0, 4))])
  if (stop) safeWrite(v, w.dir, 'api_conversation_history.json', compact(buildTask(v, taskId(v, 60 + i), turns).api), 1796119000000 + i, stop)
  return w.dir
}
const rw = (f: (b: Buffer) => Buffer, name = P) => (d: string) => {
  const p = path.join(d, name)
  const mtime = lstatSync(p).mtimeMs
  writeFileSync(p, f(readFileSync(p)))
  setMtime(p, mtime)
}
const noTranscript = (d: string) => unlinkSync(path.join(d, T))
const CORPUS: Convergence[] = [
  {name: 'truncated', chat: REAL_CHATS.tenTurns, damage: rw((b) => cutAt(b, 4096))},
  {name: 'zero-filled', chat: REAL_CHATS.tenTurns, damage: rw(zeroFill)},
  {name: 'empty', chat: REAL_CHATS.tenTurns, damage: rw(() => Buffer.alloc(0))},
  {name: 'nul-tail', chat: REAL_CHATS.tenTurns, damage: rw((b) => nulTailAt(b, 8192))},
  {name: 'bom', chat: REAL_CHATS.tenTurns, damage: rw(withBom)},
  {name: 'invalid-utf8', chat: REAL_CHATS.tenTurns, damage: rw((b) => Buffer.concat([b.subarray(0, 100), Buffer.from([0xff]), b.subarray(101)]))},
  {name: 'missing', chat: REAL_CHATS.tenTurns, damage: (d) => unlinkSync(path.join(d, P))},
  {name: 'behind', chat: REAL_CHATS.tenTurns, damage: (d) => writeFileSync(path.join(d, P), readFileSync(path.join(d, 'run-state.json.bak')))},
  {name: 'placeholder', chat: REAL_CHATS.tenTurns, damage: rw(() => Buffer.from('{"output":{"type":"error","message":"Previous run state could not be restored."}}'))},
  // Without the transcript (which holds embedded copies of the context: embedded generations), so that the
  // winner is a whole file: the backup, or none.
  {name: 'truncated, no temp, no transcript (bak wins)', chat: REAL_CHATS.tenTurns, damage: (d) => (noTranscript(d), unlinkSync(path.join(d, TEN_TURN_TEMP)), rw((b) => cutAt(b, 5000))(d))},
  {name: 'all generations torn, no transcript (unrecoverable)', chat: REAL_CHATS.tenTurns, damage: (d) => (noTranscript(d), [P, 'run-state.json.bak', TEN_TURN_TEMP].forEach((n) => rw((b) => cutAt(b, 1000), n)(d)))},
  {name: 'small, zero-filled, no transcript (unrecoverable)', chat: REAL_CHATS.small, damage: (d) => (noTranscript(d), rw(zeroFill)(d))},
  {name: 'large, healthy', chat: REAL_CHATS.large, damage: () => undefined},
  {name: 'large, truncated at 1 MiB, no transcript (unrecoverable)', chat: REAL_CHATS.large, damage: (d) => (noTranscript(d), rw((b) => cutAt(b, 1 << 20))(d))},
  {name: 'healthy', chat: REAL_CHATS.tenTurns, damage: () => undefined},
  {name: 'torn transcript, healthy primary', chat: REAL_CHATS.tenTurns, damage: rw((b) => cutAt(b, 5000), T)},
  // The extensions' task folders: a safe write stopped after its new temp, one stopped between its renames, a
  // transcript cut inside a message, and a model context zeroed with nothing else holding it.
  {name: 'Roo Code task, safe write stopped after the new temp', build: extensionTask('roo', 'Code', 'wrote-new'), damage: () => undefined},
  {name: 'Kilo Code task, safe write stopped between its renames', build: extensionTask('kilo', 'Code - Insiders', 'renamed-old'), damage: () => undefined},
  {name: 'Cline task, torn transcript', build: extensionTask('cline', 'Cursor', null), damage: rw((b) => cutAt(b, 3000), 'ui_messages.json')},
  {name: 'Roo Code task, zero-filled model context (unrecoverable)', build: extensionTask('roo', 'VSCodium', null), damage: rw(zeroFill, 'api_conversation_history.json')},
]

test(`two-run convergence over ${CORPUS.length} scenarios: run 1 repairs what it can (bit 1), run 2 writes nothing and exits with run 1's code minus bits 1 and 2`, async (t) => {
  const sb = sandbox()
  try {
    const dirs = CORPUS.map((c, i) => {
      const dir = c.build ? c.build(sb.home, i) : copyRealChat(c.chat!, sb.home, path.join('.config', 'manicode', 'projects', `p${i}`, 'chats'))
      c.damage(dir)
      return dir
    })
    const codes: number[] = []
    for (const [i, c] of CORPUS.entries()) {
      const first = await repairInProcess([dirs[i]], sb.home, sb.stateDir)
      const tree = hashTree(sb.root)
      const rec = new RecordingFileSystem(nodeFileSystem())
      const second = await repairInProcess([dirs[i]], sb.home, sb.stateDir, rec)
      assert.equal(second.exitCode, first.exitCode & ~3, `${c.name}: ${first.exitCode} then ${second.exitCode}`)
      assert.deepEqual(rec.mutations(), [], `${c.name}: run 2 writes nothing`)
      assert.deepEqual(hashTree(sb.root), tree, `${c.name}: run 2 leaves the tree as it was`)
      assert.ok(second.chats.every((ch) => ch.repair!.outcome !== 'repaired'))
      codes.push(first.exitCode)
    }
    t.diagnostic(`run-1 exit codes: ${CORPUS.map((c, i) => `${c.name}=${codes[i]}`).join(', ')}`)
    assert.ok(codes.filter((x) => x & 1).length >= 10, 'most scenarios are repaired')
    assert.ok(codes.some((x) => x & 4), 'some are unrecoverable')
    // The whole corpus once more through the built CLI: nothing left to repair, nothing written.
    const tree = hashTree(sb.root)
    const r = runCli(['repair', '--json', sb.home], {env: sb.env})
    assert.equal(r.status, codes.reduce((a, b) => a | b, 0) & ~3, r.stderr)
    assert.deepEqual(hashTree(sb.root), tree)
    assert.equal(sha256(readFileSync(path.join(dirs[0], P))), sha256(readFileSync(path.join(dirs[0], TEN_TURN_TEMP))))
  } finally {
    cleanup(sb.root)
  }
})
