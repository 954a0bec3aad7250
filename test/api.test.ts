/**
 * The library API (`src/api/index.ts`, the package's `exports`): the same verdicts, plans and repairs as the
 * CLI on the same real damaged chats; `diagnoseFiles` pure (plain data in, no disk) and equal to the
 * diagnosis from disk; `winnerBytes` exactly what `repair` puts back (also an embedded copy); `applyRepair`
 * and `undoRepair` round trip, and a chat changed since its diagnosis refused. Importing it from the packed
 * tarball in a fresh folder is `install.test.ts`'s.
 */
import assert from 'node:assert/strict'
import {mkdirSync, readFileSync, readdirSync, statSync, unlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'
import * as api from '../src/api/index.js'
import {REAL_CHATS, REPO_ROOT, TEN_TURN_TEMP, cleanup, copyRealChat, cutAt, runCli, sha256, tempDir, zeroFill} from './helpers/fixtures.js'
import {REAL_SESSIONS, linesOf} from './helpers/sessions.js'

const P = 'run-state.json'
const EMBEDDED = 'chat-messages.json#ai-1762265497000-d81188ed9dfc1'

/** A home with chats of every status: healthy, repairable from a temp, from an embedded copy, unrecoverable. */
function home(): {root: string; env: NodeJS.ProcessEnv; dirs: Record<string, string>} {
  const root = tempDir('chatdoctor-api-')
  const dirs = {
    healthy: copyRealChat(REAL_CHATS.small, root),
    temp: copyRealChat(REAL_CHATS.tenTurns, root),
    embedded: copyRealChat(REAL_CHATS.tenTurns, root, undefined, '2025-11-04T15-00-00.000Z'),
    lost: copyRealChat(REAL_CHATS.small, root, undefined, '2025-11-05T10-00-00.000Z'),
  }
  writeFileSync(path.join(dirs.temp, P), cutAt(readFileSync(path.join(dirs.temp, P)), 5000))
  unlinkSync(path.join(dirs.embedded, TEN_TURN_TEMP))
  writeFileSync(path.join(dirs.embedded, P), cutAt(readFileSync(path.join(dirs.embedded, P)), 5000))
  writeFileSync(path.join(dirs.lost, P), zeroFill(readFileSync(path.join(dirs.lost, P))))
  // No embedded copy either: the transcript torn before its first AI message.
  writeFileSync(path.join(dirs.lost, 'chat-messages.json'), cutAt(readFileSync(path.join(dirs.lost, 'chat-messages.json')), 2000))
  return {root, env: {HOME: root, XDG_STATE_HOME: path.join(root, 'state')}, dirs}
}

const opts = (h: ReturnType<typeof home>) => ({home: h.root, env: {...process.env, ...h.env}})

/** Runs `fn` on a fresh home (above), removed afterwards. */
async function withHome(fn: (h: ReturnType<typeof home>) => Promise<void>): Promise<void> {
  const h = home()
  try {
    await fn(h)
  } finally {
    cleanup(h.root)
  }
}

describe('the same verdicts as the CLI', () => {
  test('scanChats is the report scan --json prints (default roots and a PATH)', () =>
    withHome(async (h) => {
      for (const paths of [[], [path.dirname(h.dirs.temp)]]) {
        const cli = runCli(['scan', '--json', ...paths], {env: h.env})
        const report = await api.scanChats(paths, opts(h))
        assert.deepEqual(report, JSON.parse(cli.stdout))
        assert.equal(report.exitCode, cli.status)
      }
      const statuses = (await api.scanChats([], opts(h))).chats.map((c) => [c.id, c.status, c.winner])
      assert.deepEqual(statuses, [
        [REAL_CHATS.small, 'healthy', P],
        [REAL_CHATS.tenTurns, 'repairable', TEN_TURN_TEMP],
        ['2025-11-04T15-00-00.000Z', 'repairable', EMBEDDED],
        ['2025-11-05T10-00-00.000Z', 'unrecoverable', null],
      ])
    }))

  test('diagnoseChatDir: the chat of scan --verbose --json (every generation measured); a Claude Code session by its file; errors say what is wrong', () =>
    withHome(async (h) => {
      const cli = JSON.parse(runCli(['scan', '--verbose', '--json'], {env: h.env}).stdout) as api.Report
      for (const dir of Object.values(h.dirs)) {
        const chat = await api.diagnoseChatDir(dir, opts(h))
        assert.deepEqual(chat.report, cli.chats.find((c) => c.path === `~${dir.slice(h.root.length)}`))
        assert.equal(chat.snapshot.dir, dir)
      }
      const session = path.join(h.root, 'proj', 'a1b2c3d4-0000-4000-8000-000000000001.jsonl')
      const lines = linesOf(readFileSync(REAL_SESSIONS.claude.short))
      mkdirSync(path.dirname(session))
      writeFileSync(session, Buffer.concat([...lines.slice(0, -1), cutAt(lines.at(-1)!, 20)]))
      const s = await api.diagnoseChatDir(session, opts(h))
      assert.deepEqual(s.report, (JSON.parse(runCli(['scan', '--json', session], {env: h.env}).stdout) as api.Report).chats[0])
      assert.equal(s.report.format, 'claude-code')

      await assert.rejects(api.diagnoseChatDir(path.join(h.root, 'nope'), opts(h)), (e: Error) => e instanceof api.ChatdoctorError && /nope: no such file or directory/.test(e.message))
      const parent = path.dirname(h.dirs.temp)
      await assert.rejects(api.diagnoseChatDir(parent, opts(h)), (e: Error) => e instanceof api.ChatdoctorError && /holds 4 chats .*pick one with the id option/.test(e.message))
      assert.equal((await api.diagnoseChatDir(parent, {...opts(h), id: REAL_CHATS.tenTurns})).report.winner, TEN_TURN_TEMP)
      await assert.rejects(api.diagnoseChatDir(parent, {...opts(h), id: 'x'}), /no chat with id x/)
    }))

  test('diagnoseFiles is pure (plain data, a folder that is not on disk) and diagnoses as the scan of the folder does', () =>
    withHome(async (h) => {
      for (const dir of Object.values(h.dirs)) {
        const fromDisk = await api.diagnoseChatDir(dir, opts(h))
        const files = readdirSync(dir).map((name) => ({name, bytes: new Uint8Array(readFileSync(path.join(dir, name))), mtimeMs: statSync(path.join(dir, name)).mtimeMs}))
        cleanup(dir) // nothing is read from disk from here on
        const pure = api.diagnoseFiles(dir, files, {home: h.root, dirMtimeMs: fromDisk.snapshot.dirMtimeMs})
        assert.deepEqual(pure.skipped, [])
        assert.equal(pure.chats.length, 1)
        assert.deepEqual(pure.chats[0].report, fromDisk.report)
        // The bytes it gives are the caller's, for winnerBytes and planRepair.
        assert.deepEqual(api.winnerBytes(pure.chats[0]), api.winnerBytes(fromDisk))
      }
      // `format` reads the folder as that format only; a format it does not know is an error.
      const bytes = new Uint8Array(readFileSync(path.join(REPO_ROOT, 'examples', 'home', '.config', 'manicode', 'projects', 'demo-app', 'chats', '2025-11-03T09-14-30.000Z', P)))
      const any = api.diagnoseFiles('/nowhere/x', [{name: P, bytes, mtimeMs: 1}])
      assert.deepEqual(api.diagnoseFiles('/nowhere/x', [{name: P, bytes, mtimeMs: 1}], {format: 'codebuff'}), any)
      assert.deepEqual(any.chats.map((c) => [c.report.format, c.report.status, c.report.winner]), [['codebuff', 'healthy', P]])
      assert.throws(() => api.diagnoseFiles('/x', [], {format: 'nonesuch'}), /unknown format "nonesuch"; known: codebuff, /)
    }))

  test('classifyJsonBytes and classifyJsonlBytes give the class and reasons the report gives the file', () =>
    withHome(async (h) => {
      const chat = await api.diagnoseChatDir(h.dirs.temp, opts(h))
      const primary = chat.report.generations.find((g) => g.file === P)!
      const c = api.classifyJsonBytes(readFileSync(path.join(h.dirs.temp, P)))
      assert.deepEqual([c.class, c.reasons, c.damage?.offset], [primary.class, primary.reasons, 5000])
      assert.equal(api.classifyJsonBytes(Buffer.from('{"a":1}')).value !== undefined, true)
      const torn = Buffer.concat([readFileSync(REAL_SESSIONS.claude.short), Buffer.from('{"type":"user","mess')])
      const j = api.classifyJsonlBytes(torn)
      assert.ok(j.lines.at(-1)!.reasons.includes('torn-tail'), JSON.stringify(j.lines.at(-1)))
    }))
})

describe('plans and repairs as the CLI makes them', () => {
  test('planRepair is the chat of repair --dry-run --json; winnerBytes is what the restore writes (a temp, an embedded copy)', () =>
    withHome(async (h) => {
      const dry = JSON.parse(runCli(['repair', '--dry-run', '--json'], {env: h.env}).stdout) as api.Report
      for (const dir of Object.values(h.dirs)) {
        const chat = await api.diagnoseChatDir(dir, opts(h))
        const plan = api.planRepair(chat)
        assert.deepEqual(plan.report, dry.chats.find((c) => c.path === chat.report.path))
        const restore = plan.actions.find((a) => a.type === 'restore')
        if (chat.report.status === 'repairable') assert.deepEqual(api.winnerBytes(chat), restore!.data)
      }
      const embedded = await api.diagnoseChatDir(h.dirs.embedded, opts(h))
      assert.equal(embedded.report.winner, EMBEDDED)
      assert.equal(api.classifyJsonBytes(api.winnerBytes(embedded)!).class, 'intact', 'the embedded copy, cut out of the transcript, is a whole document')
      assert.equal(api.winnerBytes(await api.diagnoseChatDir(h.dirs.lost, opts(h))), null)
      const healthy = await api.diagnoseChatDir(h.dirs.healthy, opts(h))
      assert.deepEqual(api.winnerBytes(healthy), readFileSync(path.join(h.dirs.healthy, P)))
      assert.deepEqual(api.planRepair(healthy).actions, [])
    }))

  test('applyRepair writes what the plan says and keeps evidence; undoRepair puts the exact bytes back; a second plan has nothing to do', () =>
    withHome(async (h) => {
      const before = readFileSync(path.join(h.dirs.embedded, P))
      const chat = await api.diagnoseChatDir(h.dirs.embedded, opts(h))
      const want = api.winnerBytes(chat)!
      const done = await api.applyRepair(api.planRepair(chat), opts(h))
      assert.equal(done.report.repair!.outcome, 'repaired', done.report.repair!.message ?? '')
      assert.match(done.repairId!, /^\d{8}T\d{6}Z-[0-9a-f]{6}$/)
      assert.equal(done.exitCode, 1)
      assert.equal(done.report.repair!.undo, `chatdoctor undo ${done.repairId}`)
      assert.equal(sha256(readFileSync(path.join(h.dirs.embedded, P))), sha256(want))
      const again = await api.diagnoseChatDir(h.dirs.embedded, opts(h))
      assert.equal(again.report.status, 'healthy')
      assert.deepEqual(api.planRepair(again).actions, [])
      // The CLI sees the repair in its log.
      assert.match(runCli(['undo', '--list'], {env: h.env}).stdout, new RegExp(done.repairId!))
      const undone = await api.undoRepair(done.repairId!, opts(h))
      assert.deepEqual(undone.files.map((f) => [f.file, f.outcome]), [[P, 'restored']])
      assert.deepEqual(readFileSync(path.join(h.dirs.embedded, P)), before)
    }))

  test('applyRepair refuses a chat that changed since it was diagnosed, and a plan it did not make', () =>
    withHome(async (h) => {
      const chat = await api.diagnoseChatDir(h.dirs.temp, opts(h))
      const plan = api.planRepair(chat)
      const agentWrote = Buffer.from('{"the agent":"saved again"}')
      writeFileSync(path.join(h.dirs.temp, P), agentWrote)
      const r = await api.applyRepair(plan, opts(h))
      assert.equal(r.report.repair!.outcome, 'refused')
      assert.equal(r.repairId, null)
      assert.equal(r.exitCode, 2 | 8)
      assert.deepEqual(readFileSync(path.join(h.dirs.temp, P)), agentWrote)
      await assert.rejects(api.applyRepair({...plan}, opts(h)), /applyRepair takes a plan made by planRepair/)
    }))
})

test('VERSION is the package version; absolutePath undoes the report\'s ~/', () => {
  assert.equal(api.VERSION, (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {version: string}).version)
  assert.equal(api.absolutePath('~/a/b', {home: '/h'}), '/h/a/b')
  assert.equal(api.absolutePath('/x/y', {home: '/h'}), '/x/y')
})
