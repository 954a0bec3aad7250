/**
 * The VS Code extension task folders (Roo Code, Kilo Code, Cline 3.x): stores built by the fixture builder
 * (test/helpers/vscode-tasks.ts: the shapes and write steps the extensions' source writes, the real Cline CLI
 * conversation as content), damaged by code, diagnosed, repaired and undone through the library and the
 * built CLI as a user runs it.
 */
import assert from 'node:assert/strict'
import {execFileSync, spawn} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {scanPaths, type ScannedChat} from '../src/lib/pipeline/scan.js'
import {classifyJsonBytes} from '../src/lib/classify/index.js'
import {salvageMessageArray} from '../src/lib/formats/vscode-tasks/salvage.js'
import {diagnoseTask, generationBytes} from '../src/lib/formats/vscode-tasks/index.js'
import {defaultRoots} from '../src/lib/formats/vscode-tasks/layout.js'
import type {ChatReport} from '../src/lib/model/report.js'
import {cleanup, cutAt, hashTree, runCli, setMtime, sha256, tempDir, zeroFill} from './helpers/fixtures.js'
import {buildTask, compact, historyItem, jsonStreamBytes, put, realTurns, safeWrite, storageDir, taskFiles, taskId, writeStore, type Task, type Variant} from './helpers/vscode-tasks.js'

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

test('scan ~ and scan ~/.config enter the editors\' dot-folders along the way to the extensions\' storage, and nothing else of them', async () => {
  const h = tempDir('chatdoctor-vscode-dots-')
  try {
    const layouts: Array<[Variant, string]> = [
      ['roo', path.join('.config', 'Code')],
      ['kilo', path.join('.config', 'Code - Insiders')],
      ['cline', path.join('.config', 'Cursor')],
      ['roo', path.join('.vscode-server', 'data')],
      ['cline', path.join('.windsurf-server', 'data')],
      ['kilo', path.join('Library', 'Application Support', 'VSCodium')],
    ]
    const want: Record<string, string> = {}
    layouts.forEach(([v, editor], k) => {
      const t = task(v, 30 + k, realTurns('A'))
      writeStore(storageDir(h, v, editor), v, [t])
      want[t.id] = editor
    })
    // A copy of a task elsewhere in an editor's folders (a workspace's storage, a cache): not the extension's
    // storage, so a search of the home never walks into it.
    const stray = task('roo', 40, realTurns('A'))
    writeStore(path.join(h, '.config', 'Code', 'User', 'workspaceStorage', 'rooveterinaryinc.roo-cline'), 'roo', [stray])
    writeStore(path.join(h, '.config', 'Code', 'CachedData', 'rooveterinaryinc.roo-cline'), 'roo', [task('roo', 41, realTurns('A'))])
    const all = Object.keys(want).sort()
    assert.deepEqual((await scan([h], h)).map((c) => c.report.id).sort(), all, 'scan ~')
    const dotConfig = Object.entries(want).filter(([, e]) => e.startsWith('.config')).map(([id]) => id).sort()
    assert.equal(dotConfig.length, 3)
    assert.deepEqual((await scan([path.join(h, '.config')], h)).map((c) => c.report.id).sort(), dotConfig, 'scan ~/.config')
    const server = await scan([path.join(h, '.vscode-server')], h)
    assert.deepEqual(server.map((c) => c.report.format), ['roo-code'])
    // Named as a PATH, the stray copy is found as any folder is.
    assert.deepEqual((await scan([path.join(h, '.config', 'Code', 'User', 'workspaceStorage')], h)).map((c) => c.report.id), [stray.id])
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

test('a Roo Code model context cut inside its second message, nothing intact beside it: unrecoverable, and scan, inspect and repair each give the exact repair --salvage command that restores turn 1 of 2', async () => {
  const h = tempDir('chatdoctor-vscode-')
  try {
    const store = storageDir(h, 'roo')
    const t = buildTask('roo', taskId('roo', 0), realTurns('B'))
    writeStore(store, 'roo', [t])
    const dir = path.join(store, 'tasks', t.id)
    const whole = readFileSync(path.join(dir, API))
    // Inside the second message: the first is whole, the second torn.
    put(path.join(dir, API), cutAt(whole, compact(t.api.slice(0, 2)).length - 30), T0 + 60_000)
    const r = byId(await scan([dir], h), t.id)
    assert.equal(r.status, 'unrecoverable', 'a lossy salvage does not change the status')
    assert.deepEqual([r.contextTurns, r.transcriptTurns], [null, 2])
    assert.deepEqual({lossless: gen(r, API).salvage!.lossless, messages: gen(r, API).salvage!.messages, turns: gen(r, API).salvage!.turns}, {lossless: false, messages: 1, turns: 1})
    const more = r.findings.find((f) => f.id === 'salvage-more-turns')
    assert.ok(more, ids(r).join(', '))
    assert.equal(more.severity, 'warning')
    assert.match(more.message, /^a salvage of api_conversation_history\.json reaches turn 1 of 2 \(no usable generation remains\) only by dropping the torn message/)
    const env = {HOME: h}
    const cmd = `chatdoctor repair --salvage ${dir.replace(h, '~')}`
    const scanned = runCli(['scan', dir], {env})
    assert.equal(scanned.status, 4)
    assert.ok(scanned.stdout.includes(cmd), `the default scan output gives ${cmd}:\n${scanned.stdout}`)
    assert.match(scanned.stdout, /salvage-more-turns/)
    assert.ok(runCli(['inspect', dir], {env}).stdout.includes(cmd), 'inspect gives the command')
    const plain = runCli(['repair', '--dry-run', dir], {env})
    assert.equal(plain.status, 4)
    assert.ok(plain.stdout.includes(cmd), 'plain repair gives the command')
    const dry = runJson(['repair', '--dry-run', '--salvage', dir], env)
    assert.equal(dry.report.chats[0].repair!.outcome, 'planned')
    assert.deepEqual(dry.report.chats[0].actions!.filter((a) => a.type === 'restore').map((a) => a.from), [`salvage:${API}`])
    const rep = runJson(['repair', '--salvage', dir], env)
    assert.equal(rep.report.chats[0].repair!.outcome, 'repaired')
    assert.ok(readFileSync(path.join(dir, API)).equals(compact(t.api.slice(0, 1))), 'the salvage keeps the first message byte for byte')
    const again = byId(await scan([dir], h), t.id)
    assert.deepEqual([again.status, again.contextTurns, again.transcriptTurns], ['healthy', 1, 2], 'turn 1 of 2 restored')
  } finally {
    cleanup(h)
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
    const list = path.join(storage, 'state', 'taskHistory.json')
    const listBefore = readFileSync(list)
    const rep = runJson(['repair', w.dir], {HOME: h})
    assert.equal(rep.report.chats.find((c) => c.id === t.id)!.repair!.outcome, 'repaired')
    assert.ok(readFileSync(path.join(w.dir, UI)).equals(whole), 'the closing bracket added, every message byte for byte')
    // In the same run the list gets the task's entry, rebuilt from the transcript its repair writes.
    assert.equal(rep.report.chats.find((c) => c.id === 'index')!.repair!.outcome, 'repaired')
    const items = JSON.parse(readFileSync(list, 'utf8')) as Array<{id: string; ts: number; task: string}>
    assert.deepEqual(items.map((i) => i.id), [other.id, t.id])
    assert.deepEqual([items[1].ts, items[1].task], [ui[ui.length - 1].ts, ui[0].text])
    assert.equal(runCli(['undo', rep.report.repairId!], {env: {HOME: h}}).status, 0)
    assert.ok(readFileSync(path.join(w.dir, UI)).equals(whole.subarray(0, whole.length - 1)))
    assert.ok(readFileSync(list).equals(listBefore))
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

/**
 * The task ids Roo Code 3.52.1's History view lists from a storage folder, by its own rules (the oracle of the
 * repairs): TaskHistoryStore `loadIndex` (version 1 with an entries array, else empty), `reconcile` (every task
 * folder not named `_`/`.` that the cache lacks is added when its history_item.json parses with an `id`; entries
 * whose folder is gone are dropped), then the view's filter (`ts` and `task` set).
 */
function rooListing(storage: string): string[] {
  const tasks = path.join(storage, 'tasks')
  const cache = new Map<string, Record<string, unknown>>()
  try {
    const idx = JSON.parse(readFileSync(path.join(tasks, '_index.json'), 'utf8')) as {version?: number; entries?: Array<Record<string, unknown>>}
    if (idx.version === 1 && Array.isArray(idx.entries)) for (const e of idx.entries) if (e.id) cache.set(String(e.id), e)
  } catch {
    // missing or torn: an empty cache
  }
  const onDisk = readdirSync(tasks).filter((n) => !n.startsWith('_') && !n.startsWith('.'))
  for (const id of onDisk) {
    if (cache.has(id)) continue
    try {
      const item = JSON.parse(readFileSync(path.join(tasks, id, 'history_item.json'), 'utf8')) as Record<string, unknown>
      if (item.id) cache.set(id, item)
    } catch {
      // corrupted or missing: skipped
    }
  }
  for (const id of [...cache.keys()]) if (!onDisk.includes(id)) cache.delete(id)
  return [...cache.values()].filter((i) => i.ts && i.task).map((i) => String(i.id)).sort()
}

test('B38 Roo Code: tasks/_index.json lists only one of three intact task folders: Roo adds one back from history_item.json; the one without it is rebuilt by repair', async () => {
  const h = tempDir('chatdoctor-b38-')
  try {
    const storage = storageDir(h, 'roo')
    const ts = [task('roo', 0), task('roo', 1, realTurns('B')), task('roo', 2, realTurns('B'))]
    const written = writeStore(storage, 'roo', ts, {listed: [ts[0].id]})
    // The third task's history_item.json is gone: Roo Code cannot add it back by itself.
    rmSync(path.join(storage, 'tasks', ts[2].id, 'history_item.json'))
    assert.deepEqual(rooListing(storage), [ts[0].id, ts[1].id].sort(), 'Roo Code lists the task whose history_item.json survives')
    const before = hashTree(storage)
    const chats = await scan([storage], h)
    assert.equal(chats.length, 3)
    assert.equal(byId(chats, ts[0].id).status, 'healthy')
    assert.equal(byId(chats, ts[1].id).status, 'healthy')
    assert.ok(!ids(byId(chats, ts[0].id)).includes('not-in-index'))
    const b = byId(chats, ts[1].id).findings.find((f) => f.id === 'not-in-index')!
    assert.equal(b.file, path.join('tasks', '_index.json'))
    assert.match(b.message, /adds it back from history_item\.json at its next start/)
    const c = byId(chats, ts[2].id)
    assert.equal(c.status, 'repairable')
    const f = c.findings.find((x) => x.id === 'not-in-index')!
    assert.match(f.message, /has no history_item\.json, so the task stays hidden; a repair writes history_item\.json from the task's own files \(id, ts, task, tokensIn, tokensOut, cacheWrites, cacheReads, totalCost, workspace\), and Roo Code adds the task to _index\.json itself/)
    assert.deepEqual(hashTree(storage), before, 'scan writes nothing')
    // The task folder given on its own, and the tasks folder: listed with what the storage folder's index says.
    for (const p of [written[2].dir, path.join(storage, 'tasks')]) {
      const one = byId(await scan([p], h), ts[2].id)
      assert.deepEqual([one.format, one.status], ['roo-code', 'repairable'], p)
    }

    const rep = runJson(['repair', storage], {HOME: h})
    const chat = rep.report.chats.find((x) => x.id === ts[2].id)!
    assert.equal(chat.repair!.outcome, 'repaired', JSON.stringify(chat.repair))
    assert.deepEqual(chat.actions!.map((a) => [a.type, a.from, a.to]), [['restore', 'rebuilt:history_item.json', 'history_item.json'], ['restore-mtime', null, '.']])
    // Only values the task's own files hold: the time of its last message, its first text, the summed usage, its cwd.
    const item = JSON.parse(readFileSync(path.join(written[2].dir, 'history_item.json'), 'utf8')) as Record<string, unknown>
    const ui = ts[2].ui as Array<{ts: number; say?: string; text?: string}>
    const reqs = ui.filter((m) => m.say === 'api_req_started').map((m) => JSON.parse(m.text!) as {tokensIn: number; tokensOut: number; cacheWrites: number; cacheReads: number; cost: number})
    assert.deepEqual(item, {
      id: ts[2].id,
      ts: ui[ui.length - 1].ts,
      task: ui[0].text,
      tokensIn: reqs.reduce((n, r) => n + r.tokensIn, 0),
      tokensOut: reqs.reduce((n, r) => n + r.tokensOut, 0),
      cacheWrites: 0,
      cacheReads: 0,
      totalCost: 0,
      workspace: '/home/dev/demo-app',
    })
    assert.ok(!('number' in item) && !('mode' in item) && !('size' in item), 'nothing the folder does not record')
    assert.deepEqual(rooListing(storage), ts.map((t) => t.id).sort(), "Roo Code's own listing holds all three again")
    const after = await scan([storage], h)
    assert.equal(byId(after, ts[2].id).status, 'healthy')
    assert.match(byId(after, ts[2].id).findings.find((x) => x.id === 'not-in-index')!.message, /adds it back from history_item\.json/)
    assert.equal(runCli(['undo', rep.report.repairId!], {env: {HOME: h}}).status, 0)
    assert.ok(!existsSync(path.join(written[2].dir, 'history_item.json')), 'undo removes the rebuilt file')
    assert.deepEqual(rooListing(storage), [ts[0].id, ts[1].id].sort())
    // A task the index lists without its history_item.json: shown, but only through the cache (info, nothing written).
    rmSync(path.join(written[0].dir, 'history_item.json'))
    assert.deepEqual(rooListing(storage), [ts[0].id, ts[1].id].sort())
    const a = byId(await scan([storage], h), ts[0].id)
    assert.equal(a.status, 'healthy')
    assert.equal(a.findings.find((x) => x.id === 'index-only')?.severity, 'info')
    assert.ok(!ids(a).includes('not-in-index'))
  } finally {
    cleanup(h)
  }
})

test('B38 Roo Code: the index wiped (absent, or torn) while the task folders survive; a torn history_item.json is kept as evidence and rebuilt', async () => {
  const h = tempDir('chatdoctor-b38-')
  try {
    const storage = storageDir(h, 'roo')
    const ts = [task('roo', 0), task('roo', 1, realTurns('B'))]
    const written = writeStore(storage, 'roo', ts)
    const idx = path.join(storage, 'tasks', '_index.json')
    const hi = path.join(written[1].dir, 'history_item.json')
    const torn = cutAt(written[1].files['history_item.json'], 40)
    writeFileSync(hi, torn)
    for (const damage of ['absent', 'torn'] as const) {
      if (damage === 'absent') rmSync(idx)
      else writeFileSync(idx, cutAt(compact({version: 1, updatedAt: T0, entries: ts.map((t) => historyItem(t))}), 100))
      assert.deepEqual(rooListing(storage), [ts[0].id])
      const chats = await scan([storage], h)
      assert.equal(byId(chats, ts[0].id).status, 'healthy', damage)
      const r = byId(chats, ts[1].id)
      assert.equal(r.status, 'repairable', damage)
      const f = r.findings.find((x) => x.id === 'not-in-index')!
      assert.equal(f.file, 'history_item.json')
      assert.match(f.message, damage === 'absent' ? /tasks\/_index\.json is missing .* has a truncated history_item\.json, so Roo Code does not show it; a repair writes/ : /has a truncated history_item\.json, so the rebuilt index leaves it out/)
    }
    const rep = runJson(['repair', storage], {HOME: h})
    const chat = rep.report.chats.find((x) => x.id === ts[1].id)!
    assert.equal(chat.repair!.outcome, 'repaired')
    assert.deepEqual(chat.actions!.map((a) => a.type), ['preserve', 'restore', 'restore-mtime'])
    assert.deepEqual(rooListing(storage), ts.map((t) => t.id).sort())
    assert.equal((JSON.parse(readFileSync(hi, 'utf8')) as {task: string}).task, (ts[1].ui[0] as {text: string}).text)
    assert.equal(runCli(['undo', rep.report.repairId!], {env: {HOME: h}}).status, 0)
    assert.ok(readFileSync(hi).equals(torn), 'undo puts the torn bytes back')
    // A hidden task whose model context is lost too: listing it again would not bring it back, so nothing is rebuilt.
    const lost = writeStore(storage, 'roo', [task('roo', 7)], {listed: []})[0]
    rmSync(path.join(lost.dir, 'history_item.json'))
    writeFileSync(path.join(lost.dir, API), zeroFill(lost.files[API]))
    const lr = byId(await scan([storage], h), lost.task.id)
    assert.equal(lr.status, 'unrecoverable')
    assert.match(lr.findings.find((x) => x.id === 'not-in-index')!.message, /chatdoctor does not rebuild it while the task is unrecoverable/)
    const lrep = runJson(['repair', lost.dir], {HOME: h})
    assert.deepEqual(lrep.report.chats[0].actions ?? [], [])
    assert.ok(!existsSync(path.join(lost.dir, 'history_item.json')))
    // A store of a Roo Code that keeps its list in VS Code's state (no history_item.json anywhere, no _index.json): nothing said.
    const old = storageDir(h, 'roo', path.join('.config', 'VSCodium'))
    const ow = writeStore(old, 'roo', [task('roo', 5)])
    rmSync(path.join(old, 'tasks', '_index.json'))
    rmSync(path.join(ow[0].dir, 'history_item.json'))
    const o = byId(await scan([old], h), ow[0].task.id)
    assert.equal(o.status, 'healthy')
    assert.ok(!ids(o).includes('not-in-index'))
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
      const f = c.report.findings.find((x) => x.id === 'index-unreadable')!
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

// ---- condensing, empty history -------------------------------------------------------------------------

test('Roo Code condensing and sliding-window truncation: the summary and the marker are no turns, the hidden turns stay counted', async () => {
  const h = home(['roo'])
  try {
    const t = h.tasks.roo[0]
    const dir = path.join(h.stores.roo, 'tasks', t.id)
    const condenseId = 'c0ffee00-0000-4000-8000-000000000001'
    const truncationId = 'c0ffee00-0000-4000-8000-000000000002'
    const api = t.api.map((m, i) => (i < 8 ? {...m, condenseParent: condenseId} : m))
    api.splice(8, 0, {role: 'user', content: [{type: 'text', text: '## Conversation Summary\nThe user explored the project.'}], ts: (t.api[7].ts as number) + 1, isSummary: true, condenseId})
    api.splice(12, 0, {role: 'user', content: '[Sliding window truncation: 2 messages hidden to reduce context]', ts: (api[12].ts as number) - 1, isTruncationMarker: true, truncationId})
    api[10] = {...api[10], truncationParent: truncationId}
    put(path.join(dir, API), compact(api), T0 + 95_000)
    const r = byId(await scan([dir], h.home), t.id)
    assert.equal(r.status, 'healthy')
    assert.equal(r.contextTurns, 5)
    assert.equal(gen(r, API).measure!.compactions, 2)
    const f = r.findings.find((x) => x.id === 'context-condensed')!
    assert.match(f.message, /1 condensation and 1 sliding-window truncation: 2 turns of 5/)
  } finally {
    cleanup(h.home)
  }
})

test('an empty model context beside a transcript with turns: contextless semantic-empty, unrecoverable unless another generation holds it', async () => {
  const c = crashed('roo', 'renamed-new')
  try {
    put(path.join(c.dir, API), Buffer.from('[]'), T0 + 96_000)
    const r = (await scan([c.dir], c.home))[0].report
    assert.equal(gen(r, API).class, 'contextless')
    assert.deepEqual(gen(r, API).reasons, ['semantic-empty'])
    assert.equal(r.status, 'repairable')
    assert.equal(r.winner, c.backup)
    assert.equal(r.contextTurns, 4)
    assert.ok(ids(r).includes('primary-contextless'))
    assert.ok(!ids(r).includes('next-start-loss'), 'an empty array is read as it is: nothing for the extension to overwrite')
  } finally {
    cleanup(c.home)
  }
})

test('a complete new temp of ui_messages.json holding more than the transcript: restored by repair', async () => {
  const h = home(['roo'])
  try {
    const t = h.tasks.roo[0]
    const dir = path.join(h.stores.roo, 'tasks', t.id)
    const shorter = compact(t.ui.slice(0, t.ui.length - 3))
    put(path.join(dir, UI), shorter, T0 + 97_000)
    const {temp} = safeWrite('roo', dir, UI, compact(t.ui), 1796119500000, 'wrote-new')
    const r = byId(await scan([dir], h.home), t.id)
    assert.equal(r.status, 'repairable')
    assert.equal(r.transcriptRestore!.from, temp)
    const rep = runJson(['repair', dir], {HOME: h.home})
    assert.equal(rep.report.chats[0].repair!.outcome, 'repaired')
    assert.ok(readFileSync(path.join(dir, UI)).equals(compact(t.ui)))
  } finally {
    cleanup(h.home)
  }
})

// ---- live refusal ------------------------------------------------------------------------------------

test('a live extension is refused: a fresh write lock in the task folder, or a process holding the profile state database open', async () => {
  const c = crashed('roo', 'wrote-new')
  try {
    const env = {HOME: c.home}
    // 1. A fresh proper-lockfile lock folder: the extension is writing.
    const lock = path.join(c.dir, `${API}.lock`)
    mkdirSync(lock)
    let rep = runJson(['repair', c.dir], env)
    assert.equal(rep.report.chats[0].repair!.outcome, 'refused')
    assert.match(rep.report.chats[0].repair!.message!, /write lock of api_conversation_history\.json/)
    assert.ok((rep.report.exitCode & 8) !== 0)
    // A stale one (older than 31 s) does not refuse: it is a leftover the next write takes over.
    setMtime(lock, Date.now() - 120_000)
    rmSync(lock, {recursive: true})
    mkdirSync(lock)
    setMtime(lock, Date.now() - 120_000)
    // 2. VS Code running with this profile: its state database is open.
    const globalStorage = path.dirname(path.dirname(path.dirname(c.dir)))
    const db = path.join(globalStorage, 'state.vscdb')
    writeFileSync(db, 'SQLite format 3\0')
    const holder = spawn(process.execPath, ['-e', `require('fs').openSync(${JSON.stringify(db)}, 'r'); process.stdout.write('open\\n'); setInterval(() => {}, 1000)`], {stdio: ['ignore', 'pipe', 'ignore']})
    try {
      await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()))
      rep = runJson(['repair', c.dir], env)
      assert.equal(rep.report.chats[0].repair!.outcome, 'refused')
      assert.match(rep.report.chats[0].repair!.message!, new RegExp(`process ${holder.pid} has .*state\\.vscdb open`))
    } finally {
      holder.kill()
      await new Promise((resolve) => holder.once('exit', resolve))
    }
    rep = runJson(['repair', c.dir], env)
    assert.equal(rep.report.chats[0].repair!.outcome, 'repaired')
    assert.ok(readFileSync(path.join(c.dir, API)).equals(c.newBytes))
  } finally {
    cleanup(c.home)
  }
})

// ---- inspect, bundle, check ----------------------------------------------------------------------------

/** Every string of a task's files that is content (≥ 8 characters, JSON-encoded as in the file). */
function contentStrings(t: Task): string[] {
  const out = new Set<string>()
  const walk = (v: unknown, key: string | null) => {
    if (typeof v === 'string') {
      if (v.length >= 8 && !['role', 'type', 'say', 'ask', 'id', 'tool_use_id', 'name'].includes(key ?? '')) out.add(JSON.stringify(v).slice(1, -1))
    } else if (Array.isArray(v)) for (const x of v) walk(x, key)
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k)
  }
  walk(t.api, null)
  walk(t.ui, null)
  return [...out]
}

test('inspect, bundle --redact and check on task folders: the same verdicts, none of the user\'s text in the bundle', async () => {
  const h = home()
  try {
    // One damaged task per variant, so the bundle carries damage too.
    for (const v of VARIANTS) {
      const t = h.tasks[v][0]
      const p = path.join(h.stores[v], 'tasks', t.id, UI)
      const whole = readFileSync(p)
      writeFileSync(p, cutAt(whole, Math.floor(whole.length * 0.7)))
    }
    const env = {HOME: h.home}
    const scanned = runJson(['scan', ...Object.values(h.stores)], env).report
    const t = h.tasks.roo[0]
    const ins = (JSON.parse(runCli(['inspect', path.join(h.stores.roo, 'tasks', t.id), '--json'], {env}).stdout) as {inspection: {account: string; findings: Array<{id: string}>}}).inspection
    assert.match(ins.account, /ui_messages\.json stops mid-document/)
    assert.match(ins.account, /restores the transcript from salvage:ui_messages\.json/)
    assert.ok(ins.findings.some((f) => f.id === 'next-start-loss'))
    const human = runCli(['inspect', path.join(h.stores.roo, 'tasks', t.id)], {env})
    assert.match(human.stdout, /next-start-loss/)
    for (const redact of [false, true]) {
      const file = path.join(h.home, redact ? 'r.tar' : 'plain.tar')
      const b = runCli(['bundle', ...(redact ? ['--redact'] : []), ...Object.values(h.stores), '-o', file], {env})
      assert.equal(b.status, 0, b.stderr)
      const check = JSON.parse(runCli(['check', file, '--json'], {env}).stdout) as {chats: ChatReport[]; errors: unknown[]}
      assert.deepEqual(check.errors, [])
      const verdict = (c: ChatReport) => [c.id, c.format, c.status, c.winner, c.contextTurns, c.transcriptTurns, c.generations.map((g) => [g.file, g.class, g.reasons, g.turns])]
      assert.deepEqual(check.chats.map(verdict).sort(), scanned.chats.map(verdict).sort())
      if (!redact) continue
      const bytes = readFileSync(file)
      const leaked = VARIANTS.flatMap((v) => h.tasks[v].flatMap(contentStrings)).filter((s) => bytes.includes(Buffer.from(s)))
      assert.deepEqual(leaked, [])
      assert.equal(bytes.includes(Buffer.from('/home/dev')), false)
      for (const p of realTurns('A').map((x) => x.prompt)) assert.equal(bytes.includes(Buffer.from(p)), false, p)
    }
  } finally {
    cleanup(h.home)
  }
})

// ---- hostile input -------------------------------------------------------------------------------------

test('hostile task folders: a symlink or FIFO under a file name, a non-UTF-8 name, a huge file streamed; never read, never replaced', async () => {
  const h = home(['roo'])
  try {
    const [a, b] = h.tasks.roo
    const da = path.join(h.stores.roo, 'tasks', a.id)
    const db = path.join(h.stores.roo, 'tasks', b.id)
    rmSync(path.join(da, API))
    symlinkSync('/etc/passwd', path.join(da, API))
    rmSync(path.join(db, UI))
    execFileSync('mkfifo', [path.join(db, UI)])
    writeFileSync(Buffer.concat([Buffer.from(db + path.sep), Buffer.from([0x66, 0xff, 0x2e, 0x6a])]), 'x')
    const chats = await scan([h.stores.roo], h.home)
    const ra = byId(chats, a.id)
    assert.deepEqual([gen(ra, API).class, gen(ra, API).reasons], ['corrupt', ['not-a-file']])
    const rb = byId(chats, b.id)
    assert.deepEqual([gen(rb, UI).class, gen(rb, UI).reasons], ['corrupt', ['not-a-file']])
    assert.ok(rb.generations.some((g) => g.file === 'f\\xff.j' && g.role === 'other'))
    const rep = runJson(['repair', da], {HOME: h.home})
    assert.match(rep.report.chats[0].repair?.message ?? '', /symbolic link|not-repairable|nothing/)
    assert.equal(readFileSync(path.join(da, API), 'utf8'), readFileSync('/etc/passwd', 'utf8'))
    // A file above the streaming threshold is classified by streaming, never parsed whole.
    const big = path.join(h.stores.roo, 'tasks', a.id)
    rmSync(path.join(big, API))
    writeFileSync(path.join(big, API), cutAt(compact(a.api), 5000))
    const streamed = await scanPaths([big], {home: h.home, env: {}, workers: 0, streamThresholdBytes: 1024})
    const g = gen(streamed.chats[0].report, API)
    assert.equal(g.class, 'truncated')
    assert.equal(g.sha256, sha256(cutAt(compact(a.api), 5000)))
  } finally {
    cleanup(h.home)
  }
})

// ---- every byte cut ------------------------------------------------------------------------------------

test('every byte cut of a task\'s model context and transcript: never intact, a salvage keeps only whole original messages', () => {
  for (const v of ['roo', 'cline'] as const) {
    const t = task(v, 0, realTurns('B'))
    const files = {[API]: {bytes: compact(t.api), value: t.api}, [UI]: {bytes: compact(t.ui), value: t.ui}}
    for (const [name, {bytes, value}] of Object.entries(files)) {
      for (let k = 0; k < bytes.length; k++) {
        const cut = bytes.subarray(0, k)
        const c = classifyJsonBytes(cut)
        assert.notEqual(c.class, 'intact', `${v} ${name} cut at ${k}`)
        const s = salvageMessageArray(name, cut, c)
        if (!s) continue
        const out = Buffer.concat(s.parts)
        const kept = JSON.parse(out.toString('utf8')) as unknown[]
        assert.deepEqual(kept, value.slice(0, kept.length), `${v} ${name} cut at ${k}`)
        assert.ok(out.equals(compact(value.slice(0, kept.length))), `${v} ${name} cut at ${k}: byte for byte`)
        if (s.lossless) assert.ok(k >= compact(value.slice(0, kept.length)).length - 1, `lossless only when the cut is past the last kept message (${k})`)
      }
    }
  }
  // And through the whole diagnosis of a task folder: never healthy-with-the-cut-file-as-winner.
  const t = task('kilo', 0, realTurns('B'))
  const api = compact(t.api)
  const files = taskFiles(t)
  for (let k = 0; k < api.length; k += 7) {
    const snapshot = {dir: '/x/tasks/' + t.id, unit: {dir: '/x/tasks/' + t.id, path: '/x/tasks/' + t.id}, dirMtimeMs: T0, files: Object.entries({...files, [API]: api.subarray(0, k)}).sort().map(([name, data]) => ({name, kind: 'file' as const, bytes: data.length, mtimeMs: T0, data}))}
    const d = diagnoseTask(snapshot)
    assert.equal(d.kind, 'chat')
    if (d.kind !== 'chat') continue
    assert.notEqual(d.report.status, 'healthy', `cut at ${k}`)
    if (d.report.winner?.startsWith('salvage:')) {
      const bytes = generationBytes(snapshot, d.report.winner)!
      const kept = JSON.parse(bytes.toString('utf8')) as unknown[]
      assert.ok(bytes.equals(compact(t.api.slice(0, kept.length))))
    }
  }
})
