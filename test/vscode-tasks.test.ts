/**
 * The VS Code extension task folders (Roo Code, Kilo Code, Cline 3.x): stores built by the fixture builder
 * (test/helpers/vscode-tasks.ts: the shapes and write steps the extensions' source writes, the real Cline CLI
 * conversation as content), damaged by code, diagnosed, repaired and undone through the library and the
 * built CLI as a user runs it.
 */
import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {execFileSync} from 'node:child_process'
import {scanPaths, type ScannedChat} from '../src/lib/scan.js'
import {classifyJsonBytes} from '../src/lib/classify/index.js'
import {salvageMessageArray} from '../src/lib/formats/vscode-tasks/salvage.js'
import {diagnoseTask, generationBytes} from '../src/lib/formats/vscode-tasks/index.js'
import {defaultRoots} from '../src/lib/formats/vscode-tasks/layout.js'
import {historyFacts} from '../src/lib/formats/vscode-tasks/measure.js'
import type {ChatReport} from '../src/lib/model.js'
import {cleanup, cutAt, hashTree, runCli, setMtime, sha256, tempDir, zeroFill} from './helpers/fixtures.js'
import {buildTask, compact, historyItem, jsonStreamBytes, put, realTurns, rooBak, rooNew, safeWrite, storageDir, taskFiles, taskId, writeStore, type Task, type Variant} from './helpers/vscode-tasks.js'

const VARIANTS: Variant[] = ['roo', 'kilo', 'cline']
const FORMAT: Record<Variant, string> = {roo: 'roo-code', kilo: 'kilo-code', cline: 'cline-extension'}
const API = 'api_conversation_history.json'
const UI = 'ui_messages.json'
const T0 = Date.UTC(2026, 11, 1, 9, 0, 0)

function task(variant: Variant, k = 0, turns = realTurns('A')): Task {
  return buildTask(variant, taskId(variant, k), turns)
}

/** A fake home with one store per variant (session A and B as two tasks each). */
function home(variants: Variant[] = VARIANTS): {home: string; stores: Record<string, string>; tasks: Record<string, Task[]>} {
  const h = tempDir('chatdoctor-vscode-')
  const stores: Record<string, string> = {}
  const tasks: Record<string, Task[]> = {}
  for (const v of variants) {
    stores[v] = storageDir(h, v)
    tasks[v] = [task(v, 0, realTurns('A')), task(v, 1, realTurns('B'))]
    writeStore(stores[v], v, tasks[v])
  }
  return {home: h, stores, tasks}
}

async function scan(paths: string[], homeDir: string, env: NodeJS.ProcessEnv = {}): Promise<ScannedChat[]> {
  const r = await scanPaths(paths, {home: homeDir, env, workers: 0})
  assert.deepEqual(r.errors, [])
  return r.chats
}

function byId(chats: ScannedChat[], id: string): ChatReport {
  const c = chats.find((x) => x.report.id === id)
  assert.ok(c, `no chat ${id} in ${chats.map((x) => x.report.id).join(', ')}`)
  return c.report
}

const ids = (r: ChatReport) => r.findings.map((f) => f.id).sort()
const gen = (r: ChatReport, file: string) => r.generations.find((g) => g.file === file)!

function runJson(args: string[], env: NodeJS.ProcessEnv): {status: number; report: {exitCode: number; repairId?: string | null; chats: Array<ChatReport & {repair?: {outcome: string; message: string | null; undo: string | null}; actions?: Array<{type: string; from: string | null; to: string; sha256: string | null}>}>}} {
  const r = runCli([...args, '--json'], {env})
  const report = JSON.parse(r.stdout)
  assert.equal(report.exitCode, r.status, r.stderr)
  return {status: r.status, report}
}

test('the serializer: the builder writes exactly what json-stream-stringify (safeWriteJson) writes', async () => {
  for (const v of VARIANTS) {
    const t = task(v)
    for (const value of [t.api, t.ui, historyItem(t)]) assert.ok(compact(value).equals(await jsonStreamBytes(value)))
    assert.equal((await jsonStreamBytes(t.ui, true)).toString(), JSON.stringify(t.ui, null, '\t'))
  }
})

test('healthy stores of Roo Code, Kilo Code and Cline: every task healthy with its turns N of M', async () => {
  const h = home()
  try {
    const chats = await scan(Object.values(h.stores), h.home)
    assert.equal(chats.length, 6)
    for (const v of VARIANTS) {
      const [a, b] = h.tasks[v]
      for (const [t, n] of [[a, 5], [b, 2]] as const) {
        const r = byId(chats, t.id)
        assert.equal(r.format, FORMAT[v])
        assert.equal(r.status, 'healthy', JSON.stringify(r.findings))
        assert.equal(r.winner, API)
        assert.equal(r.contextTurns, n)
        assert.equal(r.transcriptTurns, n)
        assert.deepEqual(r.findings.filter((f) => f.severity !== 'info'), [])
        assert.equal(gen(r, UI).class, 'intact')
        assert.equal(gen(r, 'task_metadata.json').role, 'meta')
        assert.equal(gen(r, API).measure!.toolCalls, v === 'cline' ? 0 : n === 5 ? 4 : 1)
      }
    }
  } finally {
    cleanup(h.home)
  }
})

test('default roots under a fake HOME: Code, Insiders, VSCodium, Cursor, Windsurf on Linux, macOS, Windows, remote servers, customStoragePath', async () => {
  const h = tempDir('chatdoctor-vscode-roots-')
  try {
    const layouts: Array<[Variant, string]> = [
      ['roo', path.join('.config', 'Code')],
      ['kilo', path.join('.config', 'Code - Insiders')],
      ['cline', path.join('Library', 'Application Support', 'Cursor')],
      ['roo', path.join('AppData', 'Roaming', 'Windsurf')],
      ['cline', path.join('.vscode-server', 'data')],
      ['kilo', path.join('.config', 'VSCodium')],
    ]
    const want: string[] = []
    layouts.forEach(([v, editor], k) => {
      const t = task(v, 10 + k, realTurns('B'))
      writeStore(storageDir(h, v, editor), v, [t])
      want.push(t.id)
    })
    // Roo Code's customStoragePath, set in the editor's settings.json (JSON with comments).
    const custom = path.join(h, 'roo-tasks-elsewhere')
    const ct = task('roo', 20, realTurns('B'))
    writeStore(custom, 'roo', [ct])
    mkdirSync(path.join(h, '.config', 'Cursor', 'User'), {recursive: true})
    writeFileSync(path.join(h, '.config', 'Cursor', 'User', 'settings.json'), `{\n  // where Roo keeps its tasks\n  "editor.fontSize": 13,\n  "roo-cline.customStoragePath": ${JSON.stringify(custom)},\n}\n`)
    want.push(ct.id)
    assert.ok(defaultRoots(h, {}).includes(custom))
    const chats = await scan([], h)
    assert.deepEqual(chats.map((c) => c.report.id).sort(), [...want].sort())
    for (const c of chats) assert.equal(c.report.status, 'healthy')
    // The CLI too, with HOME pointing at the fake home.
    const r = runJson(['scan'], {HOME: h, XDG_CONFIG_HOME: '', APPDATA: ''})
    assert.deepEqual(r.report.chats.map((c) => c.id).sort(), [...want].sort())
  } finally {
    cleanup(h)
  }
})

test('a task folder given directly, and the tasks folder: the same verdicts', async () => {
  const h = home(['roo'])
  try {
    const t = h.tasks.roo[0]
    const one = await scan([path.join(h.stores.roo, 'tasks', t.id)], h.home)
    assert.equal(one.length, 1)
    assert.equal(one[0].report.status, 'healthy')
    assert.equal(one[0].report.contextTurns, 5)
    const all = await scan([path.join(h.stores.roo, 'tasks')], h.home)
    assert.equal(all.length, 2)
  } finally {
    cleanup(h.home)
  }
})

// ---- the safe write stopped at each step --------------------------------------------------------------

/** A task whose last save (one more turn) stopped at `stop`; returns the paths and the bytes. */
function crashed(variant: Variant, stop: 'wrote-new' | 'renamed-old' | 'renamed-new') {
  const h = tempDir('chatdoctor-vscode-crash-')
  const turns = realTurns('A')
  const older = buildTask(variant, taskId(variant, 0), turns.slice(0, 4))
  const newer = buildTask(variant, taskId(variant, 0), turns)
  const storage = storageDir(h, variant)
  const [w] = writeStore(storage, variant, [older])
  // The transcript already holds turn 5 (the extensions save it before the model context).
  put(path.join(w.dir, UI), compact(newer.ui), T0 + 50_000)
  const newBytes = compact(newer.api)
  const {temp, backup} = safeWrite(variant, w.dir, API, newBytes, 1796119000000, stop)
  for (const n of readdirSync(w.dir)) if (n !== UI) setMtime(path.join(w.dir, n), T0 + 40_000)
  return {home: h, dir: w.dir, temp, backup, oldBytes: compact(older.api), newBytes, id: older.id}
}

test('safeWriteJson stopped after writing the new temp: the temp holds turn 5, repair restores it byte for byte, undo puts it back', async () => {
  for (const v of ['roo', 'cline'] as const) {
    const c = crashed(v, 'wrote-new')
    try {
      const [chat] = await scan([c.dir], c.home)
      const r = chat.report
      assert.equal(r.status, 'repairable')
      assert.equal(r.winner, c.temp)
      assert.equal(r.contextTurns, 5)
      assert.equal(r.transcriptTurns, 5)
      assert.equal(gen(r, API).turns, 4)
      assert.equal(gen(r, c.temp).role, 'temp')
      assert.ok(ids(r).includes('primary-behind'))
      const env = {HOME: c.home}
      const before = hashTree(c.dir)
      const dry = runJson(['repair', '--dry-run', c.dir], env)
      assert.deepEqual(hashTree(c.dir), before, 'a dry run writes nothing')
      assert.deepEqual(dry.report.chats[0].actions!.map((a) => [a.type, a.from, a.to]), [['preserve', API, API], ['restore', c.temp, API], ['restore-mtime', null, '.']])
      const rep = runJson(['repair', c.dir], env)
      assert.equal(rep.report.chats[0].repair!.outcome, 'repaired')
      assert.ok(readFileSync(path.join(c.dir, API)).equals(c.newBytes))
      const evidence = path.join(c.dir, '.chatdoctor', rep.report.repairId!, API)
      assert.ok(readFileSync(evidence).equals(c.oldBytes), 'the replaced file is kept as evidence')
      const again = (await scan([c.dir], c.home))[0].report
      assert.equal(again.status, 'healthy')
      assert.equal(again.contextTurns, 5)
      assert.equal(runCli(['undo', rep.report.repairId!], {env}).status, 0)
      assert.ok(readFileSync(path.join(c.dir, API)).equals(c.oldBytes), 'undo puts the old bytes back')
    } finally {
      cleanup(c.home)
    }
  }
})

test('safeWriteJson stopped between its two renames: no primary, a backup and the new temp; the temp wins', async () => {
  const c = crashed('roo', 'renamed-old')
  try {
    const r = (await scan([c.dir], c.home))[0].report
    assert.equal(gen(r, API).class, 'missing')
    assert.equal(gen(r, c.backup!).role, 'backup')
    assert.equal(gen(r, c.backup!).turns, 4)
    assert.equal(r.status, 'repairable')
    assert.equal(r.winner, c.temp)
    assert.equal(r.contextTurns, 5)
    assert.ok(ids(r).includes('primary-missing'))
    assert.deepEqual(r.ranking.map((x) => [x.file, x.turns]), [[c.temp, 5], [c.backup, 4]])
    const rep = runJson(['repair', c.dir], {HOME: c.home})
    assert.equal(rep.report.chats[0].repair!.outcome, 'repaired')
    assert.ok(readFileSync(path.join(c.dir, API)).equals(c.newBytes))
  } finally {
    cleanup(c.home)
  }
})

test('safeWriteJson stopped before unlinking the backup: healthy, the backup is a leftover', async () => {
  const c = crashed('roo', 'renamed-new')
  try {
    const r = (await scan([c.dir], c.home))[0].report
    assert.equal(r.status, 'healthy')
    assert.equal(r.winner, API)
    assert.equal(r.contextTurns, 5)
    assert.equal(r.ranking[1].file, c.backup)
    assert.ok(r.findings.some((f) => f.id === 'temp-leftover' && f.file === c.backup && f.severity === 'info'))
  } finally {
    cleanup(c.home)
  }
})

test('a new temp cut mid-stream beside an intact primary: healthy, the torn temp is a warning', async () => {
  const c = crashed('kilo', 'wrote-new')
  try {
    put(path.join(c.dir, c.temp), cutAt(c.newBytes, Math.floor(c.newBytes.length * 0.6)), T0 + 40_000)
    const r = (await scan([c.dir], c.home))[0].report
    assert.equal(r.status, 'healthy')
    assert.equal(r.winner, API)
    assert.equal(r.contextTurns, 4)
    assert.equal(r.transcriptTurns, 5)
    assert.equal(gen(r, c.temp).class, 'truncated')
    assert.ok(r.findings.some((f) => f.id === 'temp-damaged' && f.severity === 'warning'))
    assert.ok(r.findings.some((f) => f.id === 'context-behind-transcript'))
  } finally {
    cleanup(c.home)
  }
})

test('a power loss after a clean save: the model context zero-filled or empty, nothing else holds it: unrecoverable, the transcript survives', async () => {
  for (const damage of ['zero', 'empty'] as const) {
    const h = home(['roo'])
    try {
      const t = h.tasks.roo[0]
      const p = path.join(h.stores.roo, 'tasks', t.id, API)
      writeFileSync(p, damage === 'zero' ? zeroFill(readFileSync(p)) : Buffer.alloc(0))
      const r = byId(await scan([h.stores.roo], h.home), t.id)
      assert.equal(gen(r, API).class, damage === 'zero' ? 'zero-filled' : 'empty')
      assert.equal(r.status, 'unrecoverable')
      assert.equal(r.winner, null)
      assert.equal(r.transcriptTurns, 5)
      assert.ok(ids(r).includes('context-lost'))
      assert.ok(ids(r).includes('next-start-loss'))
    } finally {
      cleanup(h.home)
    }
  }
})

test('an in-place rewrite cut between two messages (Cline before 3.40): the salvage loses nothing, plain repair writes it', async () => {
  const h = home(['cline'])
  try {
    const t = h.tasks.cline[0]
    const dir = path.join(h.stores.cline, 'tasks', t.id)
    const full = readFileSync(path.join(dir, API))
    // Cut right after message 12 (of 20): the bytes of 12 whole messages and the comma after them.
    const twelve = compact(t.api.slice(0, 12))
    const cut = twelve.length // "[m1,…,m12]" minus the "]" plus ","
    put(path.join(dir, API), Buffer.concat([full.subarray(0, cut - 1), Buffer.from(',')]), T0 + 70_000)
    const r = byId(await scan([h.stores.cline], h.home), t.id)
    assert.equal(gen(r, API).class, 'truncated')
    assert.equal(gen(r, API).salvage!.messages, 12)
    assert.equal(r.status, 'repairable')
    assert.equal(r.winner, `salvage:${API}`)
    assert.equal(r.contextTurns, 3)
    const rep = runJson(['repair', dir], {HOME: h.home})
    assert.equal(rep.report.chats[0].repair!.outcome, 'repaired')
    assert.ok(readFileSync(path.join(dir, API)).equals(twelve), 'twelve whole original messages, closed')
    const again = byId(await scan([dir], h.home), t.id)
    assert.equal(again.status, 'healthy')
    assert.equal(again.contextTurns, 3)
  } finally {
    cleanup(h.home)
  }
})

test('a model context cut inside a message: the salvage drops the torn message, only repair --salvage uses it', async () => {
  const h = home(['cline'])
  try {
    const t = h.tasks.cline[0]
    const dir = path.join(h.stores.cline, 'tasks', t.id)
    const full = readFileSync(path.join(dir, API))
    const at = compact(t.api.slice(0, 13)).length - 30
    put(path.join(dir, API), cutAt(full, at), T0 + 70_000)
    const r = byId(await scan([dir], h.home), t.id)
    assert.equal(r.status, 'unrecoverable')
    assert.equal(gen(r, API).salvage!.messages, 12)
    assert.ok(ids(r).includes('salvage-available'))
    const plain = runJson(['repair', dir], {HOME: h.home})
    assert.equal(plain.report.chats[0].repair!.outcome, 'not-repairable')
    const rep = runJson(['repair', '--salvage', dir], {HOME: h.home})
    assert.equal(rep.report.chats[0].repair!.outcome, 'repaired')
    assert.ok(readFileSync(path.join(dir, API)).equals(compact(t.api.slice(0, 12))))
  } finally {
    cleanup(h.home)
  }
})

// ---- bug-log reports ----------------------------------------------------------------------------------

test('B10 Cline: ui_messages.json of 500 messages without its closing bracket, the index without the task: truncated, closed with no loss, not-in-index', async () => {
  const h = tempDir('chatdoctor-b10-')
  try {
    const storage = storageDir(h, 'cline')
    const base = task('cline', 0)
    // 500 transcript messages: the real turns' messages repeated with later times.
    const ui: Record<string, unknown>[] = []
    for (let i = 0; ui.length < 500; i++) for (const m of base.ui) if (ui.length < 500) ui.push({...m, ts: (m.ts as number) + i * 3_600_000, ...(i > 0 && m.say === 'text' && ui.length > 0 ? {say: 'text'} : {})})
    const t: Task = {...base, ui}
    const other = task('cline', 1, realTurns('B'))
    const [w] = writeStore(storage, 'cline', [t, other], {listed: [other.id]})
    const whole = readFileSync(path.join(w.dir, UI))
    put(path.join(w.dir, UI), whole.subarray(0, whole.length - 1), T0 + 80_000)
    const chats = await scan([storage], h)
    const r = byId(chats, t.id)
    assert.equal(gen(r, UI).class, 'truncated')
    assert.deepEqual(gen(r, UI).reasons, ['unexpected-end'])
    assert.equal(gen(r, UI).salvage!.messages, 500)
    assert.equal(r.transcriptRestore!.from, `salvage:${UI}`)
    assert.equal(r.transcriptRestore!.messages, 500)
    assert.equal(r.status, 'repairable')
    assert.equal(r.winner, API)
    assert.ok(r.findings.some((f) => f.id === 'not-in-index' && f.file === path.join('state', 'taskHistory.json')))
    assert.ok(!ids(byId(chats, other.id)).includes('not-in-index'))
    const rep = runJson(['repair', w.dir], {HOME: h})
    assert.equal(rep.report.chats[0].repair!.outcome, 'repaired')
    assert.ok(readFileSync(path.join(w.dir, UI)).equals(whole), 'the closing bracket added, every message byte for byte')
    assert.equal(runCli(['undo', rep.report.repairId!], {env: {HOME: h}}).status, 0)
    assert.ok(readFileSync(path.join(w.dir, UI)).equals(whole.subarray(0, whole.length - 1)))
  } finally {
    cleanup(h)
  }
})

test('B17 Cline: a complete 40-message ui_messages.json followed by the stale tail of an older 42-message file: corrupt trailing-garbage, the 40 messages kept', async () => {
  const h = tempDir('chatdoctor-b17-')
  try {
    const storage = storageDir(h, 'cline')
    const base = task('cline', 0)
    const many = [...base.ui, ...base.ui.map((m) => ({...m, ts: (m.ts as number) + 7_200_000}))]
    const forty = many.slice(0, 40)
    const older = compact(many.slice(0, 42))
    const t: Task = {...base, ui: forty}
    const [w] = writeStore(storage, 'cline', [t])
    const fortyBytes = compact(forty)
    put(path.join(w.dir, UI), Buffer.concat([fortyBytes, older.subarray(older.length - 200)]), T0 + 80_000)
    const r = byId(await scan([storage], h), t.id)
    assert.equal(gen(r, UI).class, 'corrupt')
    assert.deepEqual(gen(r, UI).reasons, ['trailing-garbage'])
    assert.equal(gen(r, UI).salvage!.kind, 'tail')
    assert.equal(gen(r, UI).salvage!.messages, 40)
    assert.equal(r.transcriptRestore!.from, `salvage:${UI}`)
    assert.equal(r.status, 'repairable')
    const rep = runJson(['repair', w.dir], {HOME: h})
    assert.equal(rep.report.chats[0].repair!.outcome, 'repaired')
    assert.ok(readFileSync(path.join(w.dir, UI)).equals(fortyBytes))
  } finally {
    cleanup(h)
  }
})

test('B38 Roo Code: tasks/_index.json lists only one of three intact task folders: the other two not-in-index, Roo adds them back from history_item.json', async () => {
  const h = tempDir('chatdoctor-b38-')
  try {
    const storage = storageDir(h, 'roo')
    const ts = [task('roo', 0), task('roo', 1, realTurns('B')), task('roo', 2, realTurns('B'))]
    writeStore(storage, 'roo', ts, {listed: [ts[0].id]})
    // The third task's history_item.json is gone: Roo Code cannot add it back by itself.
    rmSync(path.join(storage, 'tasks', ts[2].id, 'history_item.json'))
    const chats = await scan([storage], h)
    assert.equal(chats.length, 3)
    for (const c of chats) assert.equal(c.report.status, 'healthy')
    assert.ok(!ids(byId(chats, ts[0].id)).includes('not-in-index'))
    const b = byId(chats, ts[1].id).findings.find((f) => f.id === 'not-in-index')!
    assert.equal(b.file, path.join('tasks', '_index.json'))
    assert.match(b.message, /adds it back from history_item\.json at its next start/)
    const c = byId(chats, ts[2].id).findings.find((f) => f.id === 'not-in-index')!
    assert.match(c.message, /stays hidden/)
  } finally {
    cleanup(h)
  }
})

test('B39 Cline: state/taskHistory.json cut at 40 % with five intact task folders: every task healthy, the index damaged', async () => {
  const h = tempDir('chatdoctor-b39-')
  try {
    const storage = storageDir(h, 'cline')
    const ts = [0, 1, 2, 3, 4].map((k) => task('cline', k, realTurns(k % 2 === 0 ? 'A' : 'B')))
    writeStore(storage, 'cline', ts)
    const idx = path.join(storage, 'state', 'taskHistory.json')
    const whole = readFileSync(idx)
    writeFileSync(idx, whole.subarray(0, Math.floor(whole.length * 0.4)))
    const chats = await scan([storage], h)
    assert.equal(chats.length, 5)
    for (const c of chats) {
      assert.equal(c.report.status, 'healthy')
      const f = c.report.findings.find((x) => x.id === 'index-damaged')!
      assert.match(f.message, /state\/taskHistory\.json is truncated/)
      assert.match(f.message, /reconstruct/)
    }
  } finally {
    cleanup(h)
  }
})

test('B50 Roo Code: ui_messages.json cut at 80 %, the index lists the task: truncated, repairable, and the default output says Roo would wipe it on opening', async () => {
  const h = home(['roo'])
  try {
    const t = h.tasks.roo[0]
    const dir = path.join(h.stores.roo, 'tasks', t.id)
    const whole = readFileSync(path.join(dir, UI))
    put(path.join(dir, UI), cutAt(whole, Math.floor(whole.length * 0.8)), T0 + 90_000)
    const r = byId(await scan([h.stores.roo], h.home), t.id)
    assert.equal(gen(r, UI).class, 'truncated')
    assert.equal(r.status, 'repairable')
    assert.ok(!ids(r).includes('not-in-index'))
    assert.equal(r.transcriptRestore!.from, `salvage:${UI}`)
    const loss = r.findings.find((f) => f.id === 'next-start-loss' && f.file === UI)!
    assert.match(loss.message, /saves it over the damaged file/)
    // The default human output (no --verbose) says it.
    const human = runCli(['scan', h.stores.roo], {env: {HOME: h.home}})
    assert.match(human.stdout, /next-start-loss/)
    assert.match(human.stdout, /before opening it/)
    // Repair never deletes: the torn file is kept as evidence, the task stays where it is.
    const rep = runJson(['repair', dir], {HOME: h.home})
    assert.equal(rep.report.chats[0].repair!.outcome, 'repaired')
    assert.ok(readFileSync(path.join(dir, '.chatdoctor', rep.report.repairId!, UI)).equals(cutAt(whole, Math.floor(whole.length * 0.8))))
    const after = JSON.parse(readFileSync(path.join(dir, UI), 'utf8')) as unknown[]
    assert.deepEqual(after, t.ui.slice(0, after.length), 'only whole original messages')
    assert.ok(existsSync(path.join(h.stores.roo, 'tasks', '_index.json')))
  } finally {
    cleanup(h.home)
  }
})
