/**
 * Performance behaviour (not speed: speed is `npm run bench`): `scan --quick`, the parallel scan giving the same
 * report as the sequential one, the progress bar's decision and its silence off a TTY / under --json.
 */
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {PassThrough} from 'node:stream'
import {availableParallelism} from 'node:os'
import {test} from 'node:test'
import {ScanProgressBar, progressWanted} from '../src/cli/progress.js'
import {QUICK_HEAD_BYTES, QUICK_TAIL_BYTES, classifyEnds} from '../src/lib/classify/quick.js'
import {readEnds} from '../src/lib/pipeline/quick.js'
import {ReadArena} from '../src/lib/pipeline/inventory.js'
import {WORKER_IDLE_CORES, idleCores, scanPaths, workerLimit, workersAuto} from '../src/lib/pipeline/scan.js'
import {REAL_CHATS, REALDATA, cleanup, copyRealChat, cutAt, nulRunAt, nulTailAt, nulPadded, runCli, tempDir, withBom, zeroFill} from './helpers/fixtures.js'

const real = (chat: string, file: string) => readFileSync(path.join(REALDATA, 'codebuff', chat, file))
const LARGE = real(REAL_CHATS.large, 'run-state.json') // 5.5 MB: larger than head + tail
const SMALL = real(REAL_CHATS.tenTurns, 'run-state.json') // 27 KB: read whole

function ends(buf: Buffer) {
  if (buf.length <= QUICK_HEAD_BYTES + QUICK_TAIL_BYTES) return {size: buf.length, head: buf, tail: buf}
  return {size: buf.length, head: buf.subarray(0, QUICK_HEAD_BYTES), tail: buf.subarray(buf.length - QUICK_TAIL_BYTES)}
}

test('quick classification from the ends of real run-states, small (whole file) and large (head + tail)', () => {
  for (const buf of [SMALL, LARGE]) {
    assert.deepEqual(classifyEnds(ends(buf)), {class: 'intact', reasons: []})
    assert.deepEqual(classifyEnds(ends(Buffer.alloc(0))), {class: 'empty', reasons: []})
    assert.deepEqual(classifyEnds(ends(zeroFill(buf))), {class: 'zero-filled', reasons: [], damage: {offset: 0, length: buf.length}})
    assert.deepEqual(classifyEnds(ends(withBom(buf))), {class: 'corrupt', reasons: ['bom'], damage: {offset: 0, length: buf.length + 3}})
    const cut = Math.floor(buf.length * 0.6)
    assert.deepEqual(classifyEnds(ends(cutAt(buf, cut))), {class: 'truncated', reasons: ['unexpected-end'], damage: {offset: cut, length: 0}})
    assert.deepEqual(classifyEnds(ends(nulPadded(buf, 100))), {class: 'corrupt', reasons: ['nul-tail'], damage: {offset: buf.length, length: 100}})
    // A NUL tail shorter than the tail window is located exactly.
    const at = buf.length - 1000
    assert.deepEqual(classifyEnds(ends(nulTailAt(buf, at))), {class: 'truncated', reasons: ['unexpected-end', 'nul-tail'], damage: {offset: at, length: 1000}})
  }
  // A NUL tail longer than the window: the damage offset is the window's start (a lower bound of the truth).
  const long = nulTailAt(LARGE, 1000)
  assert.deepEqual(classifyEnds(ends(long)), {class: 'truncated', reasons: ['unexpected-end', 'nul-tail'], damage: {offset: LARGE.length - QUICK_TAIL_BYTES, length: QUICK_TAIL_BYTES}})
  // The documented blind spot: a NUL run in the middle of a large file is not seen.
  assert.deepEqual(classifyEnds(ends(nulRunAt(LARGE, 2_000_000, 4096))), {class: 'intact', reasons: []})
})

test('readEnds reads the whole of a small file and only the two ends of a large one', () => {
  const root = tempDir()
  try {
    const small = path.join(root, 'small.json')
    const large = path.join(root, 'large.json')
    writeFileSync(small, SMALL)
    writeFileSync(large, LARGE)
    const s = readEnds(small)
    assert.equal(s.size, SMALL.length)
    assert.ok(Buffer.from(s.head).equals(SMALL))
    const l = readEnds(large)
    assert.equal(l.size, LARGE.length)
    assert.ok(Buffer.from(l.head).equals(LARGE.subarray(0, QUICK_HEAD_BYTES)))
    assert.ok(Buffer.from(l.tail).equals(LARGE.subarray(LARGE.length - QUICK_TAIL_BYTES)))
  } finally {
    cleanup(root)
  }
})

test('scan --quick: a truncated primary with an intact .bak is repairable; the report says what quick mode cannot see', () => {
  const root = tempDir()
  try {
    const dir = copyRealChat(REAL_CHATS.tenTurns, root)
    writeFileSync(path.join(dir, 'run-state.json'), cutAt(SMALL, 5000))
    const r = runCli(['scan', '--quick', '--json', root])
    assert.equal(r.status, 2, r.stderr)
    const report = JSON.parse(r.stdout)
    assert.deepEqual(report.quick, {headBytes: QUICK_HEAD_BYTES, tailBytes: QUICK_TAIL_BYTES, notDetected: report.quick.notDetected, trustEnds: false, unverified: 0})
    assert.match(report.quick.notDetected, /middle of a file/)
    const chat = report.chats[0]
    assert.equal(chat.status, 'repairable')
    const primary = chat.generations.find((g: {role: string}) => g.role === 'primary')
    assert.equal(primary.class, 'truncated')
    assert.deepEqual(primary.reasons, ['unexpected-end'])
    assert.deepEqual(chat.findings.map((f: {id: string}) => f.id).sort(), ['primary-damaged', 'temp-leftover'])
    // The winner is the newest generation intact at its ends: the temp (mtimes set by copyRealChat).
    assert.equal(chat.winner, 'run-state.json.41231.c7e25b0f-9d14-4a3e-8f6b-2b9a0d5e1c48.tmp')
    const human = runCli(['scan', '--quick', root])
    assert.equal(human.status, 2)
    assert.match(human.stderr, /quick mode: .*not detected: damage in the middle of a file/)
    // The full scan sees the same chat and says more (turns); quick mode never reports turns.
    assert.equal(chat.contextTurns, null)
  } finally {
    cleanup(root)
  }
})

test('a parallel scan (a worker thread beside the main thread) gives exactly the report of a sequential one, damaged chats included', async () => {
  const root = tempDir()
  try {
    const parent = path.join('.config', 'manicode', 'projects', 'demo-app', 'chats')
    const damage = [(b: Buffer) => b, (b: Buffer) => cutAt(b, 3000), zeroFill, (b: Buffer) => nulTailAt(b, 900), withBom, (b: Buffer) => nulRunAt(b, 2000, 50)]
    for (let i = 0; i < 12; i++) {
      const id = `2026-01-01T00-00-${String(i).padStart(2, '0')}.000Z`
      const dir = copyRealChat(i % 4 === 3 ? REAL_CHATS.small : REAL_CHATS.tenTurns, root, parent, id)
      const p = path.join(dir, 'run-state.json')
      writeFileSync(p, damage[i % damage.length](readFileSync(p)))
    }
    const opts = {home: '/nonexistent-home', env: {}, keepData: false}
    const seq = await scanPaths([root], {...opts, workers: 0})
    const par = await scanPaths([root], {...opts, workers: 1, parallelAfterMs: 0})
    assert.equal(seq.chats.length, 12)
    assert.equal(seq.chatsInWorkers, 0)
    // The worker got a first batch the moment it started; the main thread diagnosed the rest.
    assert.ok(par.chatsInWorkers >= 1 && par.chatsInWorkers <= 12, `chats in workers: ${par.chatsInWorkers}`)
    assert.deepEqual(par.chats.map((c) => c.report), seq.chats.map((c) => c.report))
    assert.deepEqual(par.errors, seq.errors)
    assert.deepEqual(par.skipped, seq.skipped)
    assert.ok(seq.chats.some((c) => c.report.status !== 'healthy'))
    // keepData false: no bytes are kept in the result.
    assert.ok(par.chats.every((c) => c.snapshot.files.every((f) => f.data === undefined)))
  } finally {
    cleanup(root)
  }
})

test('ReadArena: views do not overlap, survive growth, and the arena is reused from its start after reset', () => {
  const arena = new ReadArena(16)
  const a = arena.take(5).fill(1)
  const b = arena.take(5).fill(2)
  assert.deepEqual([...a], [1, 1, 1, 1, 1])
  assert.ok(b.byteOffset >= a.byteOffset + 8, 'aligned past the first view')
  const c = arena.take(40).fill(3) // does not fit: a larger block
  assert.equal(c.length, 40)
  assert.deepEqual([...a, ...b], [1, 1, 1, 1, 1, 2, 2, 2, 2, 2], 'views taken before growth keep their bytes')
  arena.reset()
  const d = arena.take(4)
  assert.equal(d.buffer, c.buffer, 'after reset the current block is reused')
  assert.equal(d.byteOffset, c.byteOffset)
})

test('a scan reading chats into the reused arena reports exactly what one reading into fresh buffers does', async () => {
  const root = tempDir()
  try {
    const parent = path.join('.config', 'manicode', 'projects', 'demo-app', 'chats')
    // Big chats and small ones in turn, damaged in different ways, so each chat overwrites the last one's bytes.
    const damage = [(b: Buffer) => b, (b: Buffer) => cutAt(b, 3000), (b: Buffer) => nulRunAt(b, 2000, 50), withBom]
    for (let i = 0; i < 8; i++) {
      const id = `2026-01-01T00-00-${String(i).padStart(2, '0')}.000Z`
      const dir = copyRealChat(i % 2 === 0 ? REAL_CHATS.tenTurns : REAL_CHATS.small, root, parent, id)
      const p = path.join(dir, 'run-state.json')
      writeFileSync(p, damage[i % damage.length](readFileSync(p)))
    }
    const opts = {home: '/nonexistent-home', env: {}, workers: 0}
    const fresh = await scanPaths([root], {...opts, keepData: true})
    const reused = await scanPaths([root], {...opts, keepData: false})
    assert.equal(fresh.chats.length, 8)
    assert.deepEqual(reused.chats.map((c) => c.report), fresh.chats.map((c) => c.report))
    assert.ok(fresh.chats.some((c) => c.report.status !== 'healthy') && fresh.chats.some((c) => c.report.status === 'healthy'))
  } finally {
    cleanup(root)
  }
})

test('CHATDOCTOR_WORKERS: unset or auto allows one worker per core beyond the first; 0 none; n at most n; junk none', () => {
  const auto = Math.max(0, availableParallelism() - 1)
  assert.equal(workerLimit({}), auto)
  assert.equal(workerLimit({CHATDOCTOR_WORKERS: 'auto'}), auto)
  assert.equal(workerLimit({CHATDOCTOR_WORKERS: ''}), auto)
  assert.equal(workerLimit({CHATDOCTOR_WORKERS: '0'}), 0)
  assert.equal(workerLimit({CHATDOCTOR_WORKERS: '3'}), 3)
  assert.equal(workerLimit({CHATDOCTOR_WORKERS: '-1'}), 0)
  assert.equal(workerLimit({CHATDOCTOR_WORKERS: 'many'}), 0)
})

test('default workers wait for an idle core: the idle cores between two readings, and when the rule applies', () => {
  // 50 ms of wall in which the machine's cores idled 50 ms in all: one core idle throughout.
  assert.equal(idleCores(1000, 1050, 50), 1)
  assert.equal(idleCores(1000, 1010, 50), 0.2)
  assert.ok(idleCores(1000, 1010, 50) < WORKER_IDLE_CORES && idleCores(1000, 1050, 50) >= WORKER_IDLE_CORES)
  // No time passed, or counters that went backwards: nothing idle.
  assert.equal(idleCores(1000, 1050, 0), 0)
  assert.equal(idleCores(1050, 1000, 50), 0)
  // Only the default count waits for an idle core; an explicit one starts whatever the load.
  for (const v of [undefined, '', 'auto']) assert.equal(workersAuto(v === undefined ? {} : {CHATDOCTOR_WORKERS: v}), true)
  for (const v of ['0', '1', '3']) assert.equal(workersAuto({CHATDOCTOR_WORKERS: v}), false)
})

test('the progress bar is wanted only on a TTY stderr, without --json, and not with TERM=dumb', () => {
  assert.equal(progressWanted({stderrIsTTY: true, json: false, env: {}}), true)
  assert.equal(progressWanted({stderrIsTTY: false, json: false, env: {}}), false)
  assert.equal(progressWanted({stderrIsTTY: true, json: true, env: {}}), false)
  assert.equal(progressWanted({stderrIsTTY: true, json: false, env: {TERM: 'dumb'}}), false)
})

test('the progress bar draws files, bytes and rate on a TTY stream, and nothing when not wanted', async () => {
  const capture = (wanted: boolean) => {
    const stream = Object.assign(new PassThrough(), {isTTY: true, columns: 120})
    let text = ''
    stream.on('data', (d: Buffer) => (text += d.toString()))
    return {stream, text: () => text, wanted}
  }
  for (const c of [capture(true), capture(false)]) {
    const bar = await ScanProgressBar.create(c.wanted, c.stream, 0)
    bar.update({chatsDone: 0, chatsTotal: 10, filesRead: 0, bytesRead: 0})
    bar.update({chatsDone: 5, chatsTotal: 10, filesRead: 20, bytesRead: 3_500_000})
    bar.stop()
    await new Promise((r) => setImmediate(r))
    if (c.wanted) assert.match(c.text(), /5\/10 chats \| 20 files \| 3\.5 MB \| [\d.]+ MB\/s/)
    else assert.equal(c.text(), '')
  }
})

test('scan off a TTY writes nothing to stderr (no bar, no escape codes), in human mode and under --json', () => {
  // spawnSync gives the child a pipe, not a TTY; the report and a one-line summary are all it may print.
  const human = runCli(['scan', path.join(REALDATA, 'codebuff')])
  assert.equal(human.status, 0)
  assert.equal(human.stderr, '')
  const json = runCli(['scan', '--json', path.join(REALDATA, 'codebuff')])
  assert.equal(json.stderr, '')
  assert.equal(JSON.parse(json.stdout).summary.chats, 3)
})
