/**
 * The write seam in process: the durable-write recipe's exact call order, EPERM/EBUSY rename retries,
 * EACCES/EROFS injected through `RecordingFileSystem` (tests run as root, where chmod stops nothing), the
 * hard-link → copy fallback, and files changed between the scan and the write (or mid-run).
 */
import assert from 'node:assert/strict'
import {existsSync, readFileSync, readdirSync, renameSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {applyChat, type ApplyContext} from '../src/lib/pipeline/apply.js'
import {durableWrite, ownTempName} from '../src/lib/fsio/durable-write.js'
import {RecordingFileSystem, nodeFileSystem} from '../src/lib/fsio/fs.js'
import {roleOf} from '../src/lib/formats/codebuff/layout.js'
import {planChat} from '../src/lib/pipeline/plan.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {REAL_CHATS, assertSameTree, cleanup, copyRealChat, cutAt, hashTree, sha256, tempDir} from './helpers/fixtures.js'

const P = 'run-state.json'

async function setup(damage = true) {
  const root = tempDir()
  const dir = copyRealChat(REAL_CHATS.tenTurns, root)
  if (damage) writeFileSync(path.join(dir, P), cutAt(readFileSync(path.join(dir, P)), 2048))
  const scan = await scanPaths([dir], {home: root, env: {}})
  const plan = planChat(scan.chats[0])
  const fs = new RecordingFileSystem(nodeFileSystem())
  const ctx: ApplyContext = {fs, repairId: '20260830T090000Z-abcdef', version: 'test', stateDir: path.join(root, 'state'), force: false}
  return {root, dir, plan, fs, ctx}
}

test("durable write: own dot-named temp, write, fsync, close, its identity, rename, fsync dir, read back — in that order", async () => {
  const root = tempDir()
  try {
    const fs = new RecordingFileSystem(nodeFileSystem())
    const target = path.join(root, P)
    writeFileSync(target, 'old')
    const r = await durableWrite(fs, target, Buffer.from('new bytes'), {tag: 'x1'})
    const temp = path.join(root, ownTempName(target, 'x1'))
    assert.deepEqual(
      fs.trace.map((t) => [t.op, t.op === 'write' || t.op === 'fsync' || t.op === 'close' ? t.args[1] : t.args[0]]),
      [['open', temp], ['write', temp], ['fsync', temp], ['close', temp], ['lstat', temp], ['rename', temp], ['fsyncDir', root], ['readFile', target]],
    )
    assert.deepEqual(fs.trace[1].data, Buffer.from('new bytes'))
    assert.equal(fs.trace[0].args[1], 'wx')
    assert.equal(r.sha256, sha256(Buffer.from('new bytes')))
    assert.equal(readFileSync(target, 'utf8'), 'new bytes')
    // The temp is never mistaken for an agent temp or a generation.
    assert.equal(roleOf(path.basename(temp)), 'other')
    assert.ok(path.basename(temp).startsWith('.chatdoctor-'))
    assert.ok(!/^run-state\.json\..*\.tmp$/.test(path.basename(temp)))
  } finally {
    cleanup(root)
  }
})

test('durable write: EBUSY/EPERM renames are retried within the budget; past it the error surfaces and the temp is removed', async () => {
  const root = tempDir()
  try {
    const target = path.join(root, P)
    writeFileSync(target, 'old')
    const fs = new RecordingFileSystem(nodeFileSystem(), [{op: 'rename', code: 'EBUSY', times: 2}])
    const sleeps: number[] = []
    const r = await durableWrite(fs, target, Buffer.from('v2'), {tag: 'a', sleep: async (ms) => void sleeps.push(ms)})
    assert.equal(r.renameAttempts, 3)
    assert.deepEqual(sleeps, [10, 20])
    assert.equal(readFileSync(target, 'utf8'), 'v2')

    const stuck = new RecordingFileSystem(nodeFileSystem(), [{op: 'rename', code: 'EPERM'}])
    await assert.rejects(durableWrite(stuck, target, Buffer.from('v3'), {tag: 'b', retryMs: 100, sleep: async () => undefined}), {code: 'EPERM'})
    assert.equal(readFileSync(target, 'utf8'), 'v2', 'target untouched')
    assert.deepEqual(readdirSync(root).sort(), [P], 'own temp removed')
    const renames = stuck.trace.filter((t) => t.op === 'rename').length
    assert.ok(renames > 1 && renames < 20, `bounded retries (${renames})`)

    const acces = new RecordingFileSystem(nodeFileSystem(), [{op: 'rename', code: 'EACCES'}])
    await assert.rejects(durableWrite(acces, target, Buffer.from('v4'), {tag: 'c', sleep: async () => undefined}), {code: 'EACCES'})
    assert.equal(acces.trace.filter((t) => t.op === 'rename').length, 1, 'EACCES is not retried')
  } finally {
    cleanup(root)
  }
})

for (const [code, op, where] of [
  ['EACCES', 'open', '-run-state.json.tmp'],
  ['EROFS', 'open', '.chatdoctor-'],
  ['EROFS', 'mkdir', '.chatdoctor'],
  ['EACCES', 'rename', '.chatdoctor-'],
] as const) {
  test(`${code} injected at ${op} (${where}): the chat is not harmed, outcome failed with a plain message`, async () => {
    const {root, dir, plan, fs, ctx} = await setup()
    try {
      const before = readFileSync(path.join(dir, P))
      const tree = hashTree(dir)
      fs.injections = [{op, path: where, code}]
      const out = await applyChat(plan, ctx)
      assert.equal(out.outcome, 'failed')
      assert.match(out.message!, new RegExp(code))
      assert.match(out.message!, code === 'EROFS' ? /read-only/ : /permission denied/)
      assert.deepEqual(readFileSync(path.join(dir, P)), before, 'the primary is untouched')
      // Nothing was replaced, so no evidence of it is left and the message says only what happened.
      assert.match(out.message!, /nothing was written/)
      assert.doesNotMatch(out.message!, /evidence kept/)
      assert.equal(out.evidenceDir, null)
      assertSameTree(hashTree(dir), tree, 'nothing of the run is left in the chat dir')
      void sha256
      assert.ok(!readdirSync(dir).some((n) => n.startsWith('.chatdoctor-')), 'no own temp left')
      assert.ok(!existsSync(path.join(dir, '.chatdoctor', 'lock')), 'lock released')
    } finally {
      cleanup(root)
    }
  })
}

test('hard link refused (EXDEV): evidence falls back to a fsynced copy with the original mtime', async () => {
  const {root, dir, plan, fs, ctx} = await setup()
  try {
    const before = readFileSync(path.join(dir, P))
    fs.injections = [{op: 'link', path: '.chatdoctor', code: 'EXDEV'}]
    const out = await applyChat(plan, ctx)
    assert.equal(out.outcome, 'repaired', out.message ?? '')
    const manifest = JSON.parse(readFileSync(path.join(out.evidenceDir!, 'manifest.json'), 'utf8'))
    assert.equal(manifest.files[0].method, 'copy')
    assert.deepEqual(readFileSync(path.join(out.evidenceDir!, P)), before)
    const ops = fs.trace.map((t) => t.op)
    assert.ok(ops.indexOf('copyFile') < ops.lastIndexOf('rename'), 'evidence before the replace')
  } finally {
    cleanup(root)
  }
})

test('evidence first: every write of the primary comes after the evidence, manifest and log are durable', async () => {
  const {root, dir, plan, fs, ctx} = await setup()
  try {
    const out = await applyChat(plan, ctx)
    assert.equal(out.outcome, 'repaired')
    const m = fs.mutations()
    const idx = (pred: (t: (typeof m)[number]) => boolean) => m.findIndex(pred)
    const link = idx((t) => t.op === 'link' && t.args[0] === path.join(dir, P))
    const manifestRename = idx((t) => t.op === 'rename' && String(t.args[1]).endsWith('manifest.json'))
    const logWrite = idx((t) => t.op === 'write' && String(t.args[1]).endsWith('repairs.jsonl') && t.data!.toString().includes('"type":"repair",'))
    const primaryRename = idx((t) => t.op === 'rename' && t.args[1] === path.join(dir, P))
    assert.ok(link >= 0 && link < manifestRename && manifestRename < logWrite && logWrite < primaryRename, JSON.stringify(m.map((t) => t.op)))
    assert.ok(m.slice(primaryRename).some((t) => t.op === 'fsyncDir' && t.args[0] === dir))
    // The chat dir's mtime is put back after every write of the chat, and only then is the end recorded
    // (a kill in between leaves the repair interrupted, and the next run puts back the recorded mtime).
    let dirTimes = -1
    m.forEach((t, i) => {
      if (t.op === 'utimes' && t.args[0] === dir) dirTimes = i
    })
    const pathOf = (t: (typeof m)[number]) => String(typeof t.args[0] === 'string' ? t.args[0] : t.args[1])
    assert.ok(dirTimes > primaryRename && m.slice(dirTimes + 1).every((t) => pathOf(t).startsWith(ctx.stateDir)), JSON.stringify(m.slice(dirTimes).map((t) => [t.op, pathOf(t)])))
    assert.ok(m.slice(dirTimes + 1).some((t) => t.op === 'write' && t.data!.toString().includes('"type":"repair-end"')))
  } finally {
    cleanup(root)
  }
})

test('a file changed between the scan and the write: refused, nothing written; --force writes with a warning', async () => {
  const {root, dir, plan, ctx} = await setup()
  try {
    writeFileSync(path.join(dir, 'chat-messages.json'), readFileSync(path.join(dir, 'chat-messages.json')).subarray(0, 100))
    const tree = hashTree(dir)
    const out = await applyChat(plan, ctx)
    assert.equal(out.outcome, 'refused')
    assert.match(out.message!, /chat-messages\.json changed since the scan.*--force/)
    assert.deepEqual(hashTree(dir), tree)
    const forced = await applyChat(plan, {...ctx, force: true})
    assert.equal(forced.outcome, 'repaired')
    assert.match(forced.warnings.join(), /--force: writing although chat-messages\.json changed/)
  } finally {
    cleanup(root)
  }
})

test('an agent save over the primary after the lock is taken: refused even with --force, the save stays the primary', async () => {
  const {root, dir, plan, fs, ctx} = await setup()
  try {
    const save = Buffer.from('{"the agent saved this":true}')
    let saved = false
    fs.onOp = (op, args) => {
      if (!saved && op === 'link' && String(args[1]).endsWith(path.join('.chatdoctor', 'lock'))) {
        saved = true
        writeFileSync(path.join(dir, `${P}.9.tmp`), save)
        renameSync(path.join(dir, `${P}.9.tmp`), path.join(dir, P))
      }
    }
    const out = await applyChat(plan, {...ctx, force: true})
    assert.ok(saved)
    assert.equal(out.outcome, 'refused', out.message ?? '')
    assert.match(out.message!, /run-state\.json changed since the scan.*not even with --force/)
    assert.ok(readFileSync(path.join(dir, P)).equals(save), "the agent's save is the primary")
    assert.ok(!fs.mutations().some((t) => t.op === 'rename' && t.args[1] === path.join(dir, P)), 'nothing renamed over it')
  } finally {
    cleanup(root)
  }
})

test('a file changed mid-run (after the lock is taken): refused, the lock and its folder removed again', async () => {
  const {root, dir, plan, fs, ctx} = await setup()
  try {
    let changed = false
    const before = hashTree(dir)
    fs.onOp = (op, args) => {
      if (!changed && op === 'link' && String(args[1]).endsWith(path.join('.chatdoctor', 'lock'))) {
        changed = true
        writeFileSync(path.join(dir, 'run-state.json.bak'), 'agent wrote this')
      }
    }
    const out = await applyChat(plan, ctx)
    assert.ok(changed)
    assert.equal(out.outcome, 'refused')
    assert.match(out.message!, /run-state\.json\.bak changed since the scan/)
    const now = hashTree(dir)
    const bak = 'run-state.json.bak'
    delete before[bak]
    delete now[bak]
    delete before['.']
    delete now['.']
    assert.deepEqual(now, before, 'nothing of ours is left')
    assert.ok(!fs.mutations().some((t) => t.op === 'rename' && t.args[1] === path.join(dir, P)))
  } finally {
    cleanup(root)
  }
})
