/**
 * `undo` of a repair that was killed (`kill -9`: nothing after the kill is written, not even the cleanup) after
 * its evidence and log entry, before its rename. Undo reverts a repair only while its results are what is on
 * disk: a repair that replaced nothing writes nothing over the chat (it removes its own leftovers and puts
 * the recorded mtime back), and a file a later repair has replaced since is refused, naming that repair.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {existsSync, lstatSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {applyChat} from '../src/lib/pipeline/apply.js'
import {nodeFileSystem, type FileSystem} from '../src/lib/fsio/fs.js'
import {planChat} from '../src/lib/pipeline/plan.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {REAL_CHATS, cleanup, copyRealChat, cutAt, runCli, sha256, tempDir} from './helpers/fixtures.js'

const P = 'run-state.json'
const A = '20260903T100000Z-0a0a0a'
const MUTATING = new Set(['open', 'write', 'fsync', 'close', 'rename', 'link', 'copyFile', 'mkdir', 'utimes', 'unlink', 'rmdir', 'fsyncDir'])

/** The file system of a process killed by `kill -9` at the first call `dies` matches: that call and every later write fail. */
function killedAt(dies: (op: string, args: unknown[]) => boolean): FileSystem {
  const inner = nodeFileSystem()
  let dead = false
  return new Proxy(inner, {
    get(target, prop: string) {
      const f = (target as unknown as Record<string, unknown>)[prop]
      if (typeof f !== 'function') return f
      return (...args: unknown[]) => {
        if (!dead && dies(prop, args)) dead = true
        if (dead && MUTATING.has(prop)) return Promise.reject(Object.assign(new Error('killed'), {code: 'EKILLED'}))
        return (f as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
}

interface Sandbox {
  root: string
  home: string
  dir: string
  state: string
  env: NodeJS.ProcessEnv
  torn: Buffer
}

function sandbox(): Sandbox {
  const root = tempDir('chatdoctor-undo-interrupted-')
  const home = path.join(root, 'home')
  const dir = copyRealChat(REAL_CHATS.tenTurns, home)
  const torn = cutAt(readFileSync(path.join(dir, P)), 4096)
  writeFileSync(path.join(dir, P), torn)
  return {root, home, dir, torn, state: path.join(root, 'state', 'chatdoctor'), env: {HOME: home, XDG_STATE_HOME: path.join(root, 'state')}}
}

/** Repair `id` in process, killed right at the rename over the primary (its lock then belongs to a dead pid). */
async function killedRepair(sb: Sandbox, id: string): Promise<void> {
  const scan = await scanPaths([sb.dir], {home: sb.home, env: {}, stateDir: sb.state})
  const fs = killedAt((op, args) => op === 'rename' && String(args[1]) === path.join(sb.dir, P))
  await applyChat(planChat(scan.chats[0]), {fs, repairId: id, version: 'test', stateDir: sb.state, force: false, isAgentProcess: () => false}).catch(() => undefined)
  const lock = path.join(sb.dir, '.chatdoctor', 'lock')
  assert.ok(existsSync(lock), 'the killed repair left its lock')
  const dead = spawnSync(process.execPath, ['-e', '']).pid
  writeFileSync(lock, JSON.stringify({pid: dead, startedAtMs: 1, purpose: `repair ${id}`, time: '2026-09-03T10:00:00.000Z'}) + '\n')
}

const temps = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('.chatdoctor-'))
const logTypes = (sb: Sandbox, id: string) => readFileSync(path.join(sb.state, 'repairs.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as {type: string; repairId: string}).filter((e) => e.repairId === id).map((e) => e.type)

test('undo of a repair killed before its rename: nothing over the chat, its temp removed, the recorded mtime back, exit 0', async () => {
  const sb = sandbox()
  try {
    const mtimeBefore = lstatSync(sb.dir).mtimeMs
    await killedRepair(sb, A)
    assert.deepEqual(readFileSync(path.join(sb.dir, P)), sb.torn, 'the kill came before the rename')
    assert.equal(temps(sb.dir).length, 1, 'the killed repair left its full temp')
    assert.notEqual(lstatSync(sb.dir).mtimeMs, mtimeBefore, 'the killed repair moved the chat dir mtime')

    const r = runCli(['undo', A], {env: sb.env})
    assert.equal(r.status, 0, r.stderr)
    assert.match(r.stdout, /Repair 20260903T100000Z-0a0a0a replaced nothing/)
    assert.match(r.stdout, /removed chatdoctor's leftover .*\.chatdoctor-20260903T100000Z-0a0a0a-run-state\.json\.tmp/)
    assert.doesNotMatch(r.stdout, /Undid repair/)
    assert.deepEqual(readFileSync(path.join(sb.dir, P)), sb.torn, 'the primary untouched')
    assert.deepEqual(temps(sb.dir), [], "the repair's temp is gone")
    assert.ok(!existsSync(path.join(sb.dir, '.chatdoctor', 'lock')), 'the stale lock is gone')
    assert.ok(Math.abs(lstatSync(sb.dir).mtimeMs - mtimeBefore) < 1, 'the mtime the repair recorded is back')
    assert.deepEqual(logTypes(sb, A).slice(-2), ['repair-end', 'cleanup'], 'the repair is ended, and what undo removed is recorded')
    assert.ok(!existsSync(path.join(sb.dir, '.chatdoctor')), 'its evidence of nothing replaced is gone too')

    // The scan no longer calls it interrupted, and a second undo says the same without writing.
    const again = runCli(['undo', A], {env: sb.env})
    assert.equal(again.status, 0, again.stderr)
    assert.match(again.stdout, /replaced nothing/)
    const scan = JSON.parse(runCli(['scan', '--json', sb.dir], {env: sb.env}).stdout) as {chats: Array<{findings: Array<{code: string}>}>}
    assert.ok(!scan.chats[0].findings.some((f) => f.code === 'repair-interrupted'), JSON.stringify(scan.chats[0].findings))
  } finally {
    cleanup(sb.root)
  }
})

test('undo of a killed repair after a later repair finished the job: says it replaced nothing and leaves the later repair\'s result', async () => {
  const sb = sandbox()
  try {
    await killedRepair(sb, A)
    const rep = runCli(['repair', '--json', sb.dir], {env: sb.env})
    assert.equal(rep.status, 1, rep.stderr)
    const laterId = (JSON.parse(rep.stdout) as {repairId: string}).repairId
    const repaired = readFileSync(path.join(sb.dir, P))
    assert.notDeepEqual(repaired, sb.torn)
    assert.deepEqual(temps(sb.dir), [], 'the later repair cleaned the temp')

    const r = runCli(['undo', A], {env: sb.env})
    assert.equal(r.status, 0, r.stderr)
    assert.match(r.stdout, /Repair 20260903T100000Z-0a0a0a replaced nothing/)
    assert.doesNotMatch(r.stdout, /restored|Undid/)
    assert.deepEqual(readFileSync(path.join(sb.dir, P)), repaired, "the later repair's result is kept")
    assert.ok(!existsSync(path.join(sb.dir, '.chatdoctor', A)), 'its evidence of nothing replaced is removed (no undo- folder: nothing was preserved)')
    assert.ok(existsSync(path.join(sb.dir, '.chatdoctor', laterId, 'manifest.json')), "the later repair's evidence is kept")

    // The later repair is the one `undo --list` shows (the killed one replaced nothing) and undo reverts.
    const list = runCli(['undo', '--list'], {env: sb.env}).stdout
    assert.doesNotMatch(list, new RegExp(A), list)
    assert.match(list, new RegExp(`${laterId}  \\S+  1 chat\\n`), list)
    const u = runCli(['undo', laterId], {env: sb.env})
    assert.equal(u.status, 0, u.stderr)
    assert.match(u.stdout, /Undid repair/)
    assert.deepEqual(readFileSync(path.join(sb.dir, P)), sb.torn)
  } finally {
    cleanup(sb.root)
  }
})

test('undo of a killed repair whose settling by a later repair the log lost: the later repair found its file as before it, so it replaced nothing', async () => {
  const sb = sandbox()
  try {
    await killedRepair(sb, A)
    assert.equal(runCli(['repair', sb.dir], {env: sb.env}).status, 1)
    const repaired = readFileSync(path.join(sb.dir, P))
    const log = path.join(sb.state, 'repairs.jsonl')
    const lines = readFileSync(log, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    writeFileSync(log, lines.filter((e) => !(e.type === 'repair-end' && e.repairId === A)).map((l) => JSON.stringify(l)).join('\n') + '\n')

    const r = runCli(['undo', A], {env: sb.env})
    assert.equal(r.status, 0, r.stderr)
    assert.match(r.stdout, /Repair 20260903T100000Z-0a0a0a replaced nothing/)
    assert.deepEqual(readFileSync(path.join(sb.dir, P)), repaired, "the later repair's result is kept")
    assert.deepEqual(logTypes(sb, A).at(-2), 'repair-end', 'the end undo found is recorded')
  } finally {
    cleanup(sb.root)
  }
})

test('undo of a repair whose file a later repair replaced again: refused with one line naming the later repair; --force undoes it anyway', async () => {
  const sb = sandbox()
  try {
    const first = runCli(['repair', '--json', sb.dir], {env: sb.env})
    assert.equal(first.status, 1, first.stderr)
    const firstId = (JSON.parse(first.stdout) as {repairId: string}).repairId
    // The agent tears the file again; a second repair mends it (the same bytes as the first wrote).
    writeFileSync(path.join(sb.dir, P), sb.torn)
    const second = runCli(['repair', '--json', sb.dir], {env: sb.env})
    assert.equal(second.status, 1, second.stderr)
    const secondId = (JSON.parse(second.stdout) as {repairId: string}).repairId
    const now = readFileSync(path.join(sb.dir, P))
    const shaBefore = sha256(now)

    const r = runCli(['undo', firstId], {env: sb.env})
    assert.equal(r.status, 8, r.stdout + r.stderr)
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '')
    assert.equal(lines.length, 1, r.stderr)
    assert.match(lines[0], new RegExp(`replaced since by repair ${secondId}.*chatdoctor undo ${secondId} first`))
    assert.equal(sha256(readFileSync(path.join(sb.dir, P))), shaBefore, 'nothing written')

    const forced = runCli(['undo', '--force', firstId], {env: sb.env})
    assert.equal(forced.status, 0, forced.stderr)
    assert.match(forced.stdout, /Undid repair/)
    assert.deepEqual(readFileSync(path.join(sb.dir, P)), sb.torn)
  } finally {
    cleanup(sb.root)
  }
})

test('undo in order: the later repair first, then the earlier one', async () => {
  const sb = sandbox()
  try {
    const first = JSON.parse(runCli(['repair', '--json', sb.dir], {env: sb.env}).stdout) as {repairId: string}
    const good = readFileSync(path.join(sb.dir, P))
    writeFileSync(path.join(sb.dir, P), sb.torn)
    const second = JSON.parse(runCli(['repair', '--json', sb.dir], {env: sb.env}).stdout) as {repairId: string}
    const u2 = runCli(['undo', second.repairId], {env: sb.env})
    assert.equal(u2.status, 0, u2.stderr)
    assert.deepEqual(readFileSync(path.join(sb.dir, P)), sb.torn)
    // The second undo put back the torn bytes the first repair had replaced: undo of the first is "already undone".
    const u1 = runCli(['undo', first.repairId], {env: sb.env})
    assert.equal(u1.status, 0, u1.stderr)
    assert.match(u1.stdout, /already undone/)
    assert.notDeepEqual(good, sb.torn)
  } finally {
    cleanup(sb.root)
  }
})
