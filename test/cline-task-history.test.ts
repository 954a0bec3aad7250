/**
 * The Cline extension's task list (`<storage>/state/taskHistory.json`) as an index chat: stores built by the
 * fixture builder (test/helpers/vscode-tasks.ts: the shapes Cline's source writes, the real Cline CLI
 * conversation as content), the list damaged by code, diagnosed, repaired through the built CLI and undone,
 * and held before and after against Cline's own listing rules (the oracle below, read from cline/cline
 * v3.89.2).
 */
import assert from 'node:assert/strict'
import {existsSync, lstatSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {scanPaths, type ScannedChat} from '../src/lib/pipeline/scan.js'
import {appendEntries, listDoc} from '../src/lib/formats/vscode-tasks/cline-index.js'
import type {ChatReport} from '../src/lib/model/report.js'
import {cleanup, cutAt, hashTree, runCli, tempDir} from './helpers/fixtures.js'
import Database from 'better-sqlite3'
import {buildTask, holdOpen, compact, historyItem, realTurns, storageDir, taskId, writeStateDb, writeStore, type Task} from './helpers/vscode-tasks.js'

const LIST = path.join('state', 'taskHistory.json')
const API = 'api_conversation_history.json'

/**
 * A Cline task as Cline 3.x writes it: the fixture's task with the environment details header Cline itself
 * writes into its first request (`# Current Working Directory (<cwd>) Files`, `formatFileDetailsHeader`), and
 * `modelInfo` on its assistant messages (`ClineStorageMessage`).
 */
function clineTask(k: number, session: 'A' | 'B' = k % 2 === 0 ? 'A' : 'B'): Task {
  const t = buildTask('cline', taskId('cline', k), realTurns(session))
  const api = t.api.map((m) => {
    const content = (m.content as Array<Record<string, unknown>>).map((b) => (b.type === 'text' && typeof b.text === 'string' ? {...b, text: b.text.replace('# Current Workspace Directory (', '# Current Working Directory (')} : b))
    return m.role === 'assistant' ? {...m, content, modelInfo: {modelId: 'fake-model', providerId: 'openai', mode: 'act'}} : {...m, content}
  })
  return {...t, api}
}

/**
 * The task ids the Cline extension v3.89.2 shows, by its own rules: `readTaskHistoryFromState` (`JSON.parse` of
 * the whole file; a missing file is an empty list; one that does not parse is `null` here: Cline asks to
 * reconstruct it, and declined, lists nothing), then `getTaskHistory` (entries with a `ts` and a `task`,
 * newest first; with `workspace`, only those whose `cwdOnTaskInitialization` or `shadowGitConfigWorkTree` is
 * that folder).
 */
function clineListing(storage: string, workspace?: string): string[] | null {
  let items: unknown
  try {
    items = JSON.parse(readFileSync(path.join(storage, LIST), 'utf8'))
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    return null
  }
  assert.ok(Array.isArray(items))
  return (items as Array<Record<string, unknown>>)
    .filter((i) => i.ts && i.task && (workspace === undefined || i.cwdOnTaskInitialization === workspace || i.shadowGitConfigWorkTree === workspace))
    .sort((a, b) => (b.ts as number) - (a.ts as number))
    .map((i) => String(i.id))
}

/**
 * What the Cline extension v3.89.2 does with its list at start, before it reads it (`cleanupLegacyVSCodeStorage`
 * then `migrateTaskHistoryToFile`): while its row of VS Code's `state.vscdb` (`saoudrizwan.claude-dev`) holds no
 * `lastShownAnnouncementId` and a `taskHistory` with entries, it writes the file's list (a missing file: none)
 * followed by those entries, no entry merged by id, and clears them from the row. Returns the ids the file then
 * holds, in order (null when it leaves the file alone).
 */
function clineStart(storage: string): string[] | null {
  const db = new Database(path.join(path.dirname(storage), 'state.vscdb'))
  try {
    const row = db.prepare('SELECT value FROM ItemTable WHERE key = ?').get('saoudrizwan.claude-dev') as {value: string} | undefined
    const state = row ? (JSON.parse(row.value) as Record<string, unknown>) : {}
    const old = Array.isArray(state.taskHistory) ? (state.taskHistory as Array<{id: string}>) : []
    if (state.lastShownAnnouncementId !== undefined || old.length === 0) return null
    const file = path.join(storage, LIST)
    const now = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Array<{id: string}>) : []
    const final = [...now, ...old]
    writeFileSync(file, JSON.stringify(final))
    db.prepare('UPDATE ItemTable SET value = ? WHERE key = ?').run(JSON.stringify({...state, taskHistory: undefined}), 'saoudrizwan.claude-dev')
    return final.map((i) => i.id)
  } finally {
    db.close()
  }
}

/** Cline's `getTaskWithId`: a listed task opens when its `api_conversation_history.json` parses; else it is dropped ("Task not found"). */
function clineOpens(storage: string, id: string): boolean {
  const items = JSON.parse(readFileSync(path.join(storage, LIST), 'utf8')) as Array<{id: string}>
  if (!items.some((i) => i.id === id)) return false
  try {
    JSON.parse(readFileSync(path.join(storage, 'tasks', id, API), 'utf8'))
    return true
  } catch {
    return false
  }
}

/** `get-folder-size` `loose` of a task folder (no subfolders here): the folder's and each file's lstat size. */
function folderSize(dir: string): number {
  return lstatSync(dir).size + readdirSync(dir).reduce((n, f) => n + lstatSync(path.join(dir, f)).size, 0)
}

async function scan(paths: string[], homeDir: string): Promise<ScannedChat[]> {
  const r = await scanPaths(paths, {home: homeDir, env: {}, workers: 0, indexes: true})
  assert.deepEqual(r.errors, [])
  return r.chats
}

function byId(chats: ScannedChat[], id: string): ScannedChat {
  const c = chats.find((x) => x.report.id === id)
  assert.ok(c, `no chat ${id} in ${chats.map((x) => x.report.id).join(', ')}`)
  return c
}

type JsonChat = ChatReport & {repair?: {outcome: string; message: string | null}; actions?: Array<{type: string; from: string | null; to: string}>}
function runJson(args: string[], env: NodeJS.ProcessEnv): {exitCode: number; repairId?: string | null; chats: JsonChat[]} {
  const r = runCli([...args, '--json'], {env})
  const report = JSON.parse(r.stdout) as {exitCode: number; repairId?: string | null; chats: JsonChat[]}
  assert.equal(report.exitCode, r.status, r.stderr)
  return report
}

/** Five Cline tasks (A, B, A, B, A) in a storage folder whose list holds `listed` of them. */
function store(listed?: number[]): {home: string; storage: string; tasks: Task[]} {
  const h = tempDir('chatdoctor-cline-list-')
  const storage = storageDir(h, 'cline')
  const tasks = [0, 1, 2, 3, 4].map((k) => clineTask(k))
  writeStore(storage, 'cline', tasks, {listed: listed?.map((k) => tasks[k].id)})
  return {home: h, storage, tasks}
}

/** The entry chatdoctor rebuilds for a task, by Cline's own rules (message-state.ts), from the task's own values. */
function expectedEntry(storage: string, t: Task): Record<string, unknown> {
  const ui = t.ui as Array<{ts: number; say?: string; text?: string}>
  const reqs = ui.slice(1).filter((m) => m.say === 'api_req_started').map((m) => JSON.parse(m.text!) as Record<string, number>)
  const sum = (k: string) => reqs.reduce((n, r) => n + r[k], 0)
  return {
    id: t.id,
    ts: ui[ui.length - 1].ts,
    task: ui[0].text,
    tokensIn: sum('tokensIn'),
    tokensOut: sum('tokensOut'),
    cacheWrites: sum('cacheWrites'),
    cacheReads: sum('cacheReads'),
    totalCost: sum('cost'),
    size: folderSize(path.join(storage, 'tasks', t.id)),
    cwdOnTaskInitialization: '/home/dev/demo-app',
    modelId: 'fake-model',
  }
}

test('B39 Cline: the list keeps only the two newest of five intact task folders: the list chat and the three hidden tasks repairable; repair appends their entries, every old byte kept; undo restores the list', async () => {
  const s = store([3, 4])
  try {
    const list = path.join(s.storage, LIST)
    const before = readFileSync(list)
    const ids = s.tasks.map((t) => t.id)
    assert.deepEqual(clineListing(s.storage)?.sort(), [ids[3], ids[4]].sort(), 'Cline shows only the two it lists')
    const tree = hashTree(s.storage)
    const chats = await scan([s.storage], s.home)
    assert.deepEqual(hashTree(s.storage), tree, 'scan writes nothing')
    const idx = byId(chats, 'index')
    assert.equal(idx.report.format, 'cline-extension')
    assert.equal(idx.report.status, 'repairable')
    assert.equal(idx.snapshot.unit.path, path.join(s.storage, 'state'))
    assert.deepEqual(idx.report.generations.map((g) => [g.file, g.role, g.class]), [['taskHistory.json', 'index', 'intact']])
    const f = idx.report.findings.find((x) => x.id === 'not-in-index')!
    assert.match(f.message, /state\/taskHistory\.json \(2 entries\) does not list 3 task folders \(1796118198748, 1796118258748, 1796118318748\)/)
    assert.match(f.message, /every entry already there kept byte for byte/)
    assert.match(f.message, /\(id, ts, task, tokensIn, tokensOut, cacheWrites, cacheReads, totalCost, size, cwdOnTaskInitialization, modelId\)/)
    for (const k of [0, 1, 2]) {
      const t = byId(chats, ids[k])
      assert.equal(t.report.status, 'repairable', `task ${k}`)
      assert.equal(t.repairedBy, idx.snapshot.unit.path)
      assert.match(t.report.findings.find((x) => x.id === 'not-in-index')!.message, /a repair of state\/taskHistory\.json adds its entry, rebuilt from the task's own files/)
    }
    for (const k of [3, 4]) assert.equal(byId(chats, ids[k]).report.status, 'healthy')

    const rep = runJson(['repair', s.storage], {HOME: s.home})
    const ic = rep.chats.find((c) => c.id === 'index')!
    assert.equal(ic.repair!.outcome, 'repaired', JSON.stringify(ic.repair))
    assert.deepEqual(ic.actions!.map((a) => [a.type, a.from, a.to]), [['preserve', 'taskHistory.json', 'taskHistory.json'], ['restore', 'rebuilt:taskHistory.json', 'taskHistory.json']])
    for (const k of [0, 1, 2]) assert.match(rep.chats.find((c) => c.id === ids[k])!.repair!.outcome, /repaired|brought-back/)
    const after = readFileSync(list)
    assert.ok(after.subarray(0, before.length - 1).equals(before.subarray(0, before.length - 1)), 'every byte of the old list kept, up to its closing bracket')
    assert.equal(after[after.length - 1], 0x5d)
    const items = JSON.parse(after.toString('utf8')) as Array<Record<string, unknown>>
    assert.deepEqual(items.slice(0, 2), JSON.parse(before.toString('utf8')))
    assert.deepEqual(items.slice(2), [0, 1, 2].map((k) => expectedEntry(s.storage, s.tasks[k])))
    assert.ok(items.slice(2).every((i) => !('ulid' in i) && !('isFavorited' in i)), 'nothing the folder does not record')
    // Cline's own listing shows all five again, newest first, also filtered to the workspace; each opens.
    assert.deepEqual(clineListing(s.storage)?.sort(), [...ids].sort())
    assert.deepEqual(clineListing(s.storage, '/home/dev/demo-app')?.filter((id) => ![ids[3], ids[4]].includes(id)).sort(), [ids[0], ids[1], ids[2]].sort())
    for (const id of ids) assert.ok(clineOpens(s.storage, id))
    const again = await scan([s.storage], s.home)
    assert.ok(!again.some((c) => c.report.id === 'index'), 'a healthy list with nothing to say is left out')
    for (const id of ids) assert.equal(byId(again, id).report.status, 'healthy')

    assert.equal(runCli(['undo', rep.repairId!], {env: {HOME: s.home}}).status, 0)
    assert.ok(readFileSync(list).equals(before), 'undo puts every byte of the list back')
    assert.deepEqual(clineListing(s.storage)?.sort(), [ids[3], ids[4]].sort())
  } finally {
    cleanup(s.home)
  }
})

test('B39 Cline: state/taskHistory.json cut at 40 %: its complete entries kept byte for byte, the others rebuilt; Cline lists all five again; undo puts the torn bytes back', async () => {
  const s = store()
  try {
    const list = path.join(s.storage, LIST)
    const whole = readFileSync(list)
    const torn = cutAt(whole, Math.floor(whole.length * 0.4))
    writeFileSync(list, torn)
    const ids = s.tasks.map((t) => t.id)
    assert.equal(clineListing(s.storage), null, 'Cline cannot parse it')
    const chats = await scan([s.storage], s.home)
    const idx = byId(chats, 'index')
    assert.equal(idx.report.status, 'repairable')
    assert.deepEqual(idx.report.generations.map((g) => [g.class, g.reasons]), [['truncated', ['unexpected-end']]])
    const d = idx.report.findings.find((x) => x.id === 'index-damaged')!
    const kept = listDoc(torn).entries
    assert.ok(kept >= 1 && kept < 5, `kept ${kept}`)
    assert.match(d.message, new RegExp(`a repair keeps its complete ${kept === 1 ? 'entry' : `${kept} entries`} byte for byte and adds ${5 - kept} entr(y|ies) rebuilt`))
    assert.match(d.message, /Reconstruct Task History/)
    for (const id of ids) {
      const t = byId(chats, id)
      assert.equal(t.report.status, 'repairable', id)
      assert.equal(t.repairedBy, idx.snapshot.unit.path)
      assert.match(t.report.findings.find((x) => x.id === 'index-unreadable')!.message, /keeps its complete entries byte for byte/)
    }
    const rep = runJson(['repair', s.storage], {HOME: s.home})
    assert.equal(rep.chats.find((c) => c.id === 'index')!.repair!.outcome, 'repaired')
    const after = readFileSync(list)
    const items = JSON.parse(after.toString('utf8')) as Array<Record<string, unknown>>
    // The complete entries are the original bytes (written by the fixture as Cline writes them), then the rebuilt ones.
    const original = JSON.parse(whole.toString('utf8')) as unknown[]
    assert.ok(after.subarray(0, compact(original.slice(0, kept)).length - 1).equals(compact(original.slice(0, kept)).subarray(0, -1)))
    assert.deepEqual(items.slice(0, kept), original.slice(0, kept))
    assert.deepEqual(items.slice(kept), s.tasks.slice(kept).map((t) => expectedEntry(s.storage, t)))
    assert.deepEqual(clineListing(s.storage)?.sort(), [...ids].sort())
    assert.equal(runCli(['undo', rep.repairId!], {env: {HOME: s.home}}).status, 0)
    assert.ok(readFileSync(list).equals(torn), 'undo puts the torn bytes back')
  } finally {
    cleanup(s.home)
  }
})

test('Cline list edge cases: an empty list, a list zero-filled, a task that cannot be rebuilt, an entry whose folder is gone, a list that is not an array', async () => {
  const s = store([])
  try {
    const list = path.join(s.storage, LIST)
    const ids = s.tasks.map((t) => t.id)
    // Task 1 lost its model context: Cline would drop a rebuilt entry at once ("Task not found"), so none is written.
    rmSync(path.join(s.storage, 'tasks', ids[1], API))
    // The list names a task whose folder is gone.
    const gone = buildTask('cline', taskId('cline', 9), realTurns('B'))
    writeFileSync(list, compact([historyItem(gone)]))
    let chats = await scan([s.storage], s.home)
    let idx = byId(chats, 'index')
    assert.match(idx.report.findings.find((x) => x.id === 'index-entry-missing')!.message, /lists 1 task whose folder is gone \(1796118738748\)/)
    const unbuilt = idx.report.findings.filter((x) => x.id === 'not-in-index').find((x) => x.message.includes('cannot be rebuilt'))!
    assert.match(unbuilt.message, /1796118258748 \(api_conversation_history\.json is missing: Cline would drop a listed task without it as soon as it is opened/)
    assert.match(byId(chats, ids[1]).report.findings.find((x) => x.id === 'not-in-index')!.message, /its entry cannot be rebuilt from the task's files/)
    assert.equal(byId(chats, ids[1]).repairedBy, undefined)
    let rep = runJson(['repair', s.storage], {HOME: s.home})
    assert.equal(rep.chats.find((c) => c.id === 'index')!.repair!.outcome, 'repaired')
    let items = JSON.parse(readFileSync(list, 'utf8')) as Array<{id: string}>
    assert.deepEqual(items.map((i) => i.id), [gone.id, ids[0], ids[2], ids[3], ids[4]], 'the gone entry kept, the unbuildable task left out')
    assert.equal(runCli(['undo', rep.repairId!], {env: {HOME: s.home}}).status, 0)

    // An empty list `[]` and one of NULs: the entries are written with no leading comma.
    for (const bytes of [Buffer.from('[]'), Buffer.alloc(300)]) {
      writeFileSync(list, bytes)
      rep = runJson(['repair', s.storage], {HOME: s.home})
      assert.equal(rep.chats.find((c) => c.id === 'index')!.repair!.outcome, 'repaired', bytes.toString('hex', 0, 4))
      items = JSON.parse(readFileSync(list, 'utf8')) as Array<{id: string}>
      assert.deepEqual(items.map((i) => i.id), [ids[0], ids[2], ids[3], ids[4]])
      assert.equal(runCli(['undo', rep.repairId!], {env: {HOME: s.home}}).status, 0)
      assert.ok(readFileSync(list).equals(bytes))
    }

    // A list that parses but is not an array: never rewritten, Cline's own command named.
    writeFileSync(list, '{"version":1}')
    chats = await scan([s.storage], s.home)
    idx = byId(chats, 'index')
    assert.match(idx.report.findings.find((x) => x.id === 'index-damaged')!.message, /not a list of entries, so Cline cannot use it as its list; chatdoctor does not rewrite a list it cannot keep/)
    rep = runJson(['repair', s.storage], {HOME: s.home})
    assert.equal(rep.chats.find((c) => c.id === 'index')!.repair!.outcome, 'manual')
    assert.equal(readFileSync(list, 'utf8'), '{"version":1}')
  } finally {
    cleanup(s.home)
  }
})

test('Cline list repair is refused while an editor of the VS Code family runs with the profile (its state.vscdb open)', async () => {
  const s = store([4])
  try {
    const list = path.join(s.storage, LIST)
    const before = readFileSync(list)
    const db = path.join(path.dirname(s.storage), 'state.vscdb')
    writeFileSync(db, 'SQLite format 3\0')
    const holder = await holdOpen(db)
    try {
      const rep = runJson(['repair', s.storage], {HOME: s.home})
      const ic = rep.chats.find((c) => c.id === 'index')!
      assert.equal(ic.repair!.outcome, 'refused')
      assert.match(ic.repair!.message!, new RegExp(`process ${holder.pid} has .*state\\.vscdb open`))
      assert.ok(readFileSync(list).equals(before))
    } finally {
      await holder.release()
    }
  } finally {
    cleanup(s.home)
  }
})

test('appendEntries: entries go before the closing bracket, whitespace after it kept; listDoc of a torn list keeps whole entries only', () => {
  assert.equal(appendEntries(Buffer.from('[{"id":"1"}]\n'), 1, ['{"id":"2"}', '{"id":"3"}']).toString(), '[{"id":"1"},{"id":"2"},{"id":"3"}]\n')
  assert.equal(appendEntries(Buffer.from('[ ]'), 0, ['{"id":"2"}']).toString(), '[ {"id":"2"}]')
  assert.throws(() => appendEntries(Buffer.from('{}'), 0, ['{}']))
  const d = listDoc(Buffer.from('[{"id":"1","ts":1},{"id":"2","t'))
  assert.deepEqual([d.entries, d.ids, d.doc?.toString()], [1, ['1'], '[{"id":"1","ts":1}]'])
})

test('a state folder that is a symbolic link is never followed: no list chat, nothing written there', async () => {
  const s = store([4])
  try {
    const state = path.join(s.storage, 'state')
    const elsewhere = path.join(s.home, 'elsewhere-state')
    renameSync(state, elsewhere)
    symlinkSync(elsewhere, state)
    const before = readFileSync(path.join(elsewhere, 'taskHistory.json'))
    const chats = await scan([s.storage], s.home)
    assert.ok(!chats.some((c) => c.report.id === 'index'))
    // Each hidden task says the truth: no repair adds it (the list is behind a link), the manual step instead.
    for (const t of s.tasks.slice(0, 4)) {
      const m = byId(chats, t.id).report.findings.find((x) => x.id === 'not-in-index')!.message
      assert.match(m, /state\/ is a symbolic link, which chatdoctor never writes through, so no repair adds the entry: to list the task again, add its entry to the list the link leads to by hand/)
      assert.doesNotMatch(m, /a repair of state\/taskHistory\.json adds/)
      assert.equal(byId(chats, t.id).repairedBy, undefined)
    }
    // Hidden all the same: not healthy, and the repair is that manual step (exit bit 2), never a write.
    for (const t of s.tasks.slice(0, 4)) assert.equal(byId(chats, t.id).report.status, 'repairable')
    const rep = runJson(['repair', s.storage], {HOME: s.home})
    assert.ok(!rep.chats.some((c) => c.id === 'index'))
    for (const t of s.tasks.slice(0, 4)) {
      const r = rep.chats.find((c) => c.id === t.id)!.repair!
      assert.equal(r.outcome, 'manual')
      assert.match(r.message ?? '', /state\/ is a symbolic link, which chatdoctor never writes through: add this task's entry to the list it leads to by hand/)
    }
    assert.equal(rep.exitCode & 2, 2)
    assert.ok(readFileSync(path.join(elsewhere, 'taskHistory.json')).equals(before))
    // A torn list behind the link: the same truth on every task.
    writeFileSync(path.join(elsewhere, 'taskHistory.json'), cutAt(before, Math.floor(before.length / 2)))
    const torn = await scan([s.storage], s.home)
    for (const t of s.tasks) {
      const m = byId(torn, t.id).report.findings.find((x) => x.id === 'index-unreadable')!.message
      assert.match(m, /state\/ is a symbolic link, which chatdoctor never writes through: repair the list it leads to by hand/)
      assert.doesNotMatch(m, /a repair of state\/taskHistory\.json keeps/)
    }
  } finally {
    cleanup(s.home)
  }
})

test('a list that is a symbolic link (Cline reads through it) is never written through: its hidden tasks repairable by the manual step, not healthy', async () => {
  const s = store([4])
  try {
    const list = path.join(s.storage, LIST)
    const elsewhere = path.join(s.home, 'elsewhere.json')
    renameSync(list, elsewhere)
    symlinkSync(elsewhere, list)
    const before = readFileSync(elsewhere)
    const chats = await scan([s.storage], s.home)
    for (const t of s.tasks.slice(0, 4)) {
      const c = byId(chats, t.id)
      assert.equal(c.report.status, 'repairable')
      const m = c.report.findings.find((x) => x.id === 'not-in-index')!.message
      assert.match(m, /state\/taskHistory\.json is a symbolic link, which chatdoctor never writes through, so no repair adds the entry/)
    }
    const rep = runJson(['repair', s.storage], {HOME: s.home})
    for (const t of s.tasks.slice(0, 4)) assert.equal(rep.chats.find((c) => c.id === t.id)!.repair!.outcome, 'manual')
    assert.equal(rep.exitCode & 2, 2)
    assert.ok(readFileSync(elsewhere).equals(before), 'the list behind the link as it was')
    assert.ok(lstatSync(list).isSymbolicLink(), 'the link as it was')
  } finally {
    cleanup(s.home)
  }
})

test('B39 Cline: state/taskHistory.json missing while five intact task folders survive: the list chat and every task repairable; repair creates the list from the folders (nothing preserved: it did not exist); Cline lists all five; undo removes it', async () => {
  const s = store()
  try {
    const list = path.join(s.storage, LIST)
    rmSync(list)
    const ids = s.tasks.map((t) => t.id)
    assert.deepEqual(clineListing(s.storage), [], 'a missing list is an empty one')
    const tree = hashTree(s.storage)
    const chats = await scan([s.storage], s.home)
    assert.deepEqual(hashTree(s.storage), tree, 'scan writes nothing')
    const idx = byId(chats, 'index')
    assert.equal(idx.report.status, 'repairable')
    assert.deepEqual(idx.report.generations.map((g) => [g.file, g.role, g.class]), [['taskHistory.json', 'index', 'missing']])
    const f = idx.report.findings.find((x) => x.id === 'not-in-index')!
    assert.match(f.message, /^state\/taskHistory\.json is missing while 5 task folders exist, so Cline lists nothing; a repair creates it with the 5 entries of the task folders it lacks/)
    assert.match(f.message, /undo removes it again/)
    for (const id of ids) {
      const t = byId(chats, id)
      assert.equal(t.report.status, 'repairable', id)
      assert.equal(t.repairedBy, idx.snapshot.unit.path)
      assert.match(t.report.findings.find((x) => x.id === 'not-in-index')!.message, /^state\/taskHistory\.json is missing while task folders exist, so Cline lists nothing and does not show this task; a repair creates state\/taskHistory\.json/)
    }
    const rep = runJson(['repair', s.storage], {HOME: s.home})
    const ic = rep.chats.find((c) => c.id === 'index')!
    assert.equal(ic.repair!.outcome, 'repaired', JSON.stringify(ic.repair))
    assert.deepEqual(ic.actions!.map((a) => [a.type, a.from, a.to]), [['restore', 'rebuilt:taskHistory.json', 'taskHistory.json']])
    const items = JSON.parse(readFileSync(list, 'utf8')) as Array<Record<string, unknown>>
    assert.deepEqual(items, s.tasks.map((t) => expectedEntry(s.storage, t)))
    assert.equal(readFileSync(list, 'utf8'), JSON.stringify(items), 'written as Cline writes its list (JSON.stringify, compact)')
    // The evidence says the list did not exist: the manifest records the restore with no previous bytes.
    const ev = path.join(s.storage, 'state', '.chatdoctor', rep.repairId!)
    const manifest = JSON.parse(readFileSync(path.join(ev, readdirSync(ev).includes('manifest.json') ? '' : 'cline-task-history', 'manifest.json'), 'utf8')) as {files: unknown[]; actions: Array<{type: string; to: string; previousSha256: string | null}>}
    assert.deepEqual(manifest.files, [])
    assert.deepEqual(manifest.actions.map((a) => [a.type, a.to, a.previousSha256]), [['restore', 'taskHistory.json', null]])
    assert.deepEqual(clineListing(s.storage)?.sort(), [...ids].sort())
    for (const id of ids) assert.ok(clineOpens(s.storage, id))
    const again = await scan([s.storage], s.home)
    assert.ok(!again.some((c) => c.report.id === 'index'))
    for (const id of ids) assert.equal(byId(again, id).report.status, 'healthy')

    assert.equal(runCli(['undo', rep.repairId!], {env: {HOME: s.home}}).status, 0)
    assert.ok(!existsSync(list), 'undo removes the list the repair created')
    assert.deepEqual(clineListing(s.storage), [])
  } finally {
    cleanup(s.home)
  }
})

test("B39 Cline: the list missing while VS Code's state.vscdb still holds Cline's older list (the migration of its next start): the repair creates the list with only the tasks that older list lacks, so Cline's merge lists each task once", async () => {
  const s = store()
  try {
    const list = path.join(s.storage, LIST)
    rmSync(list)
    const ids = s.tasks.map((t) => t.id)
    const db = path.join(path.dirname(s.storage), 'state.vscdb')
    writeStateDb(db, [s.tasks[0], s.tasks[1]], {variant: 'cline'})
    const dbBefore = readFileSync(db)
    const chats = await scan([s.storage], s.home)
    const idx = byId(chats, 'index')
    assert.equal(idx.report.status, 'repairable')
    const f = idx.report.findings.find((x) => x.id === 'not-in-index')!
    assert.match(f.message, new RegExp(`so Cline lists nothing but the 2 entries its next start takes from VS Code's globalStorage/state\\.vscdb \\(${ids[0]}, ${ids[1]};`))
    assert.match(f.message, new RegExp(`a repair creates it with the 3 entries of the task folders it lacks \\(${ids[2]}, ${ids[3]}, ${ids[4]}\\)`))
    assert.match(f.message, /leaving out those Cline's next start adds itself, so none is listed twice/)
    for (const k of [0, 1]) assert.equal(byId(chats, ids[k]).report.status, 'healthy', `task ${k} is listed by the migration`)
    for (const k of [2, 3, 4]) {
      const t = byId(chats, ids[k])
      assert.equal(t.report.status, 'repairable')
      assert.match(t.report.findings.find((x) => x.id === 'not-in-index')!.message, /but the 2 entries its next start takes from VS Code's globalStorage\/state\.vscdb \(this task is not among them\)/)
    }
    const rep = runJson(['repair', s.storage], {HOME: s.home})
    assert.equal(rep.chats.find((c) => c.id === 'index')!.repair!.outcome, 'repaired')
    assert.ok(readFileSync(db).equals(dbBefore), "VS Code's database is never written")
    const items = JSON.parse(readFileSync(list, 'utf8')) as Array<Record<string, unknown>>
    assert.deepEqual(items, [2, 3, 4].map((k) => expectedEntry(s.storage, s.tasks[k])))
    // Cline's next start appends its older list: every task once.
    const afterStart = clineStart(s.storage)!
    assert.deepEqual(afterStart, [ids[2], ids[3], ids[4], ids[0], ids[1]])
    assert.equal(new Set(afterStart).size, afterStart.length, 'no task listed twice')
    assert.deepEqual(clineListing(s.storage)?.sort(), [...ids].sort())

    // The same with the list present (it holds tasks 3 and 4, the older list task 0): only 1 and 2 are added.
    writeFileSync(list, compact([historyItem(s.tasks[3]), historyItem(s.tasks[4])]))
    writeStateDb(path.join(s.home, 'one.vscdb'), [s.tasks[0]], {variant: 'cline'})
    writeFileSync(db, readFileSync(path.join(s.home, 'one.vscdb')))
    const chats2 = await scan([s.storage], s.home)
    assert.equal(byId(chats2, ids[0]).report.status, 'healthy', 'listed by the migration')
    assert.match(byId(chats2, 'index').report.findings.find((x) => x.id === 'not-in-index')!.message, new RegExp(`does not list 2 task folders \\(${ids[1]}, ${ids[2]}\\)`))
    const rep2 = runJson(['repair', s.storage], {HOME: s.home})
    assert.equal(rep2.chats.find((c) => c.id === 'index')!.repair!.outcome, 'repaired')
    const merged = clineStart(s.storage)!
    assert.deepEqual(merged, [ids[3], ids[4], ids[1], ids[2], ids[0]])
  } finally {
    cleanup(s.home)
  }
})

test("Cline list missing: with lastShownAnnouncementId in the row Cline migrates nothing and the repair lists every folder; with a state.vscdb it cannot read, the list is not created (what Cline merges in is unknown)", async () => {
  const s = store()
  try {
    const list = path.join(s.storage, LIST)
    rmSync(list)
    const ids = s.tasks.map((t) => t.id)
    const db = path.join(path.dirname(s.storage), 'state.vscdb')
    writeStateDb(db, [s.tasks[0]], {variant: 'cline', state: {lastShownAnnouncementId: 'jun-2025'}})
    let rep = runJson(['repair', s.storage], {HOME: s.home})
    assert.equal(rep.chats.find((c) => c.id === 'index')!.repair!.outcome, 'repaired')
    assert.equal(clineStart(s.storage), null, 'Cline migrates nothing')
    assert.deepEqual((JSON.parse(readFileSync(list, 'utf8')) as Array<{id: string}>).map((i) => i.id), ids)
    assert.equal(runCli(['undo', rep.repairId!], {env: {HOME: s.home}}).status, 0)
    assert.ok(!existsSync(list))

    writeFileSync(db, Buffer.alloc(4096))
    const chats = await scan([s.storage], s.home)
    const idx = byId(chats, 'index')
    assert.match(idx.report.findings.find((x) => x.id === 'index-unreadable')!.message, /is unknown \(its header is zero-filled\), so chatdoctor does not create the list \(an entry could be listed twice\)/)
    for (const id of ids) {
      const t = byId(chats, id)
      assert.equal(t.repairedBy, undefined)
      assert.match(t.report.findings.find((x) => x.id === 'index-unreadable')!.message, /^state\/taskHistory\.json is missing: what Cline's next start takes into it from VS Code's globalStorage\/state\.vscdb is unknown \(its header is zero-filled\); chatdoctor does not create the list/)
    }
    rep = runJson(['repair', s.storage], {HOME: s.home})
    assert.notEqual(rep.chats.find((c) => c.id === 'index')?.repair?.outcome, 'repaired')
    assert.ok(!existsSync(list), 'nothing created')
  } finally {
    cleanup(s.home)
  }
})

test("Cline's backups of its list (taskHistory.backup.<ms>.json, written by its Reconstruct Task History) give a rebuilt entry what the folder does not record: ulid, favourite, checkpoint work tree, and the truncation range only for an unchanged transcript; the newest backup holding the task wins, one that does not parse is passed over", async () => {
  const s = store([3, 4])
  try {
    const state = path.join(s.storage, 'state')
    const ids = s.tasks.map((t) => t.id)
    const [e0, e1] = [0, 1].map((k) => expectedEntry(s.storage, s.tasks[k]))
    assert.ok(s.tasks[0].api.length >= 2)
    const extra = (ulid: string, ts: number) => ({ulid, shadowGitConfigWorkTree: '/home/dev/demo-app', conversationHistoryDeletedRange: [0, 1], isFavorited: true, ts})
    // Written as Cline's backupExistingTaskHistory writes them: JSON.stringify(list, null, 2).
    writeFileSync(path.join(state, 'taskHistory.backup.1796000000000.json'), JSON.stringify([{...e0, ...extra('01OLDER', e0.ts as number)}], null, 2))
    writeFileSync(path.join(state, 'taskHistory.backup.1796100000000.json'), JSON.stringify([{...e0, ...extra('01NEWER', e0.ts as number)}, {...e1, ...extra('01TASKONE', (e1.ts as number) - 5000)}], null, 2))
    writeFileSync(path.join(state, 'taskHistory.backup.1796200000000.json'), '[{"id":"' + ids[0] + '","ulid":"01TORN"')
    const chats = await scan([s.storage], s.home)
    const m = byId(chats, 'index').report.findings.find((x) => x.id === 'not-in-index')!.message
    assert.match(m, new RegExp(`taken from the older entry in Cline's backup of its list: ${ids[0]}, ${ids[1]} from state/taskHistory\\.backup\\.1796100000000\\.json`))
    assert.match(m, /rebuilt from each task's own files \(id, ts, task, tokensIn, tokensOut, cacheWrites, cacheReads, totalCost, size, cwdOnTaskInitialization, modelId\)/)
    const rep = runJson(['repair', s.storage], {HOME: s.home})
    assert.equal(rep.chats.find((c) => c.id === 'index')!.repair!.outcome, 'repaired')
    const items = JSON.parse(readFileSync(path.join(s.storage, LIST), 'utf8')) as Array<Record<string, unknown>>
    const order = (o: Record<string, unknown>) => Object.keys(o)
    const want0 = {id: e0.id, ulid: '01NEWER', ts: e0.ts, task: e0.task, tokensIn: e0.tokensIn, tokensOut: e0.tokensOut, cacheWrites: e0.cacheWrites, cacheReads: e0.cacheReads, totalCost: e0.totalCost, size: e0.size, shadowGitConfigWorkTree: '/home/dev/demo-app', cwdOnTaskInitialization: e0.cwdOnTaskInitialization, conversationHistoryDeletedRange: [0, 1], isFavorited: true, modelId: e0.modelId}
    assert.deepEqual(items[2], want0)
    assert.deepEqual(order(items[2]), order(want0), "keys in the order Cline's save writes them")
    // Task 1's transcript changed since its backup (another ts): its truncation range is not taken.
    const want1 = {id: e1.id, ulid: '01TASKONE', ts: e1.ts, task: e1.task, tokensIn: e1.tokensIn, tokensOut: e1.tokensOut, cacheWrites: e1.cacheWrites, cacheReads: e1.cacheReads, totalCost: e1.totalCost, size: e1.size, shadowGitConfigWorkTree: '/home/dev/demo-app', cwdOnTaskInitialization: e1.cwdOnTaskInitialization, isFavorited: true, modelId: e1.modelId}
    assert.deepEqual(items[3], want1)
    assert.deepEqual(items[4], expectedEntry(s.storage, s.tasks[2]), 'a task no backup holds is rebuilt from its folder alone')
    assert.deepEqual(clineListing(s.storage)?.sort(), [...ids].sort())
  } finally {
    cleanup(s.home)
  }
})

test("Cline list holding elements that are not entries (null, a number, a string, an array): reported, the list and the tasks it hides left for a step by hand, never called repaired; Cline's History view fails on the null", async () => {
  const {home, storage, tasks} = store([0, 1])
  try {
    const list = path.join(storage, LIST)
    const items = JSON.parse(readFileSync(list, 'utf8')) as unknown[]
    writeFileSync(list, JSON.stringify([...items, null, 5, 'x', []]))
    // Cline 3.89.2's History view: `filter((item) => item.ts && item.task)` over what JSON.parse returned.
    assert.throws(() => (JSON.parse(readFileSync(list, 'utf8')) as Array<{ts?: unknown; task?: unknown}>).filter((i) => i.ts && i.task), TypeError)
    const before = hashTree(storage)
    const chats = await scan([storage], home)
    const idx = byId(chats, 'index')
    assert.equal(idx.report.status, 'repairable')
    assert.deepEqual([idx.report.generations[0].class, idx.report.generations[0].reasons.includes('wrong-shape')], ['corrupt', true])
    const damaged = idx.report.findings.find((f) => f.id === 'index-damaged')!
    assert.match(damaged.message, /holds 4 elements that are not task entries \(#2 null, #3 5, #4 "x", #5 \[\]\): .*delete them from state\/taskHistory\.json .* and run chatdoctor repair again/)
    assert.match(idx.report.findings.find((f) => f.id === 'not-in-index')!.message, /does not list 3 task folders .*; once the elements that are not entries are gone, a repair adds/)
    for (const t of tasks.slice(2)) assert.equal(byId(chats, t.id).report.status, 'repairable', 'a hidden task is not called healthy')
    const rep = runJson(['repair', '-y', storage], {HOME: home})
    assert.notEqual(rep.exitCode, 0)
    const ic = rep.chats.find((c) => c.id === 'index')!
    assert.equal(ic.repair!.outcome, 'manual')
    assert.equal(ic.repair!.message, damaged.message)
    for (const t of tasks.slice(2)) assert.deepEqual([rep.chats.find((c) => c.id === t.id)!.repair!.outcome, rep.chats.find((c) => c.id === t.id)!.repair!.message], ['manual', damaged.message])
    assert.deepEqual(hashTree(storage), before, 'nothing written')
  } finally {
    cleanup(home)
  }
})
