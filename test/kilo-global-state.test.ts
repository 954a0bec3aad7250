/**
 * Kilo Code's extension task list, kept in VS Code's `state.vscdb` (`ItemTable`, key `kilocode.kilo-code`, the
 * JSON of its whole global state with its `taskHistory`): a database built here by SQLite the way VS Code's
 * storage creates and writes it (microsoft/vscode `src/vs/base/parts/storage/node/storage.ts`), beside task
 * folders of the fixture builder; read on a private copy, held against Kilo Code's own listing rule, never
 * written.
 */
import assert from 'node:assert/strict'
import {copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import Database from 'better-sqlite3'
import {scanPaths, type ScannedChat} from '../src/lib/pipeline/scan.js'
import {planChat} from '../src/lib/pipeline/plan.js'
import {applyChat, type ApplyContext} from '../src/lib/pipeline/apply.js'
import {nodeFileSystem} from '../src/lib/fsio/fs.js'
import {insertEntries} from '../src/lib/formats/vscode-tasks/kilo-index.js'
import {cleanup, hashTree, runCli, tempDir} from './helpers/fixtures.js'
import {buildTask, holdOpen, writeStateDb, realTurns, storageDir, taskId, writeStore} from './helpers/vscode-tasks.js'

const KEY = 'kilocode.kilo-code'

/** The task ids Kilo Code 5.10.4's History view lists: its global state's `taskHistory` entries with a `ts` and a `task`. */
function kiloListing(file: string): string[] {
  const db = new Database(file, {readonly: true})
  try {
    const row = db.prepare('SELECT value FROM ItemTable WHERE key = ?').get(KEY) as {value: string} | undefined
    const items = row ? ((JSON.parse(row.value) as {taskHistory?: Array<Record<string, unknown>>}).taskHistory ?? []) : []
    return items.filter((i) => i.ts && i.task).map((i) => String(i.id)).sort()
  } finally {
    db.close()
  }
}

async function scan(paths: string[], homeDir: string): Promise<ScannedChat[]> {
  const r = await scanPaths(paths, {home: homeDir, env: {}, workers: 0, indexes: true})
  assert.deepEqual(r.errors, [])
  return r.chats
}

const finding = (c: ScannedChat | undefined, id: string) => c?.report.findings.find((f) => f.id === id)

/** The `kilocode.kilo-code` value and every other row of the database, read on a copy of it. */
function rows(file: string): Map<string, string> {
  const db = new Database(file, {readonly: true})
  try {
    return new Map((db.prepare('SELECT key, value FROM ItemTable').all() as Array<{key: string; value: string}>).map((r) => [r.key, r.value]))
  } finally {
    db.close()
  }
}

test("Kilo Code's list in VS Code's state.vscdb holds one of three intact task folders: the list chat repairable, repair adds the two entries in the row's value (every other byte kept), Kilo lists all three; undo restores the database byte for byte", async () => {
  const h = tempDir('chatdoctor-kilo-state-')
  try {
    const storage = storageDir(h, 'kilo')
    const tasks = [0, 1, 2].map((k) => buildTask('kilo', taskId('kilo', k), realTurns(k === 0 ? 'A' : 'B')))
    writeStore(storage, 'kilo', tasks)
    const globalStorage = path.dirname(storage)
    const db = path.join(globalStorage, 'state.vscdb')
    writeStateDb(db, [tasks[0]])
    const dbBefore = readFileSync(db)
    const rowsBefore = rows(db)
    assert.deepEqual(kiloListing(db), [tasks[0].id])
    const before = hashTree(globalStorage)
    const chats = await scan([storage], h)
    assert.deepEqual(hashTree(globalStorage), before, 'scan writes nothing, and no -journal, -wal or -shm appears')
    assert.deepEqual(readdirSync(globalStorage).sort(), ['kilocode.kilo-code', 'state.vscdb'])
    const idx = chats.find((c) => c.report.id === 'index')!
    assert.deepEqual([idx.report.format, idx.report.status, idx.snapshot.unit.path], ['kilo-code', 'repairable', globalStorage])
    assert.match(finding(idx, 'not-in-index')!.message, /^the taskHistory of kilocode\.kilo-code in VS Code's globalStorage\/state\.vscdb \(1 entry\) does not list 2 task folders .* a repair adds their entries at the end of the list, rebuilt from each task's own files \(id, ts, task, tokensIn, tokensOut, cacheWrites, cacheReads, totalCost, workspace\), in one transaction on a private copy/)
    assert.equal(finding(chats.find((c) => c.report.id === tasks[0].id), 'not-in-index'), undefined)
    for (const t of tasks.slice(1)) {
      const c = chats.find((x) => x.report.id === t.id)!
      assert.equal(c.report.status, 'repairable')
      assert.equal(c.repairedBy, globalStorage)
      const f = finding(c, 'not-in-index')!
      assert.equal(f.file, path.join('..', 'state.vscdb'))
      assert.match(f.message, /^the taskHistory of kilocode\.kilo-code in VS Code's globalStorage\/state\.vscdb \(1 entry\) does not list this task, so Kilo Code does not show it; Kilo Code has no command that rebuilds its list: a repair of VS Code's state\.vscdb adds the task's entry/)
    }
    const r = runCli(['repair', '-y', '--json', storage], {env: {HOME: h}})
    const rep = JSON.parse(r.stdout) as {repairId: string; chats: Array<{id: string; repair?: {outcome: string; message: string | null}; actions?: Array<{type: string; from: string | null; to: string}>}>}
    const ic = rep.chats.find((c) => c.id === 'index')!
    assert.equal(ic.repair!.outcome, 'repaired', JSON.stringify(ic.repair))
    assert.deepEqual(ic.actions!.map((a) => [a.type, a.from, a.to]), [['preserve', 'state.vscdb', 'state.vscdb'], ['restore', 'rebuilt:state.vscdb', 'state.vscdb']])
    assert.deepEqual(kiloListing(db), tasks.map((t) => t.id).sort(), "Kilo Code's own listing holds all three")
    const after = rows(db)
    assert.equal(after.get('workbench.panel.height'), rowsBefore.get('workbench.panel.height'), 'the other rows as they were')
    const old = rowsBefore.get(KEY)!
    const now = after.get(KEY)!
    const k = old.indexOf(']', old.indexOf('"taskHistory":['))
    assert.equal(now.slice(0, k), old.slice(0, k), 'every character of the value before the insertion kept')
    assert.equal(now.slice(now.length - (old.length - k)), old.slice(k), 'and after it')
    const items = (JSON.parse(now) as {taskHistory: Array<Record<string, unknown>>}).taskHistory
    assert.deepEqual(items.slice(1).map((i) => [i.id, i.task, i.workspace]), tasks.slice(1).map((t) => [t.id, (t.ui[0] as {text: string}).text, '/home/dev/demo-app']))
    assert.deepEqual(readdirSync(globalStorage).filter((n) => n !== '.chatdoctor').sort(), ['kilocode.kilo-code', 'state.vscdb'])
    const again = await scan([storage], h)
    assert.ok(!again.some((c) => c.report.id === 'index'), 'a healthy list is left out')
    for (const t of tasks) assert.equal(again.find((c) => c.report.id === t.id)!.report.status, 'healthy')
    assert.equal(runCli(['undo', rep.repairId], {env: {HOME: h}}).status, 0)
    assert.ok(readFileSync(db).equals(dbBefore), 'undo puts every byte of the database back')
    assert.deepEqual(kiloListing(db), [tasks[0].id])
  } finally {
    cleanup(h)
  }
})

test("Kilo Code's list repair is refused while a process holds state.vscdb open (an editor runs with the profile)", async () => {
  const h = tempDir('chatdoctor-kilo-state-')
  try {
    const storage = storageDir(h, 'kilo')
    const tasks = [0, 1].map((k) => buildTask('kilo', taskId('kilo', k), realTurns('B')))
    writeStore(storage, 'kilo', tasks)
    const db = path.join(path.dirname(storage), 'state.vscdb')
    writeStateDb(db, [tasks[0]])
    const dbBefore = readFileSync(db)
    const holder = await holdOpen(db)
    try {
      const rep = JSON.parse(runCli(['repair', '-y', '--json', storage], {env: {HOME: h}}).stdout) as {chats: Array<{id: string; repair?: {outcome: string; message: string | null}}>}
      const ic = rep.chats.find((c) => c.id === 'index')!
      assert.equal(ic.repair!.outcome, 'refused')
      assert.match(ic.repair!.message!, new RegExp(`process ${holder.pid} has .*state\\.vscdb open`))
      assert.ok(readFileSync(db).equals(dbBefore))
    } finally {
      await holder.release()
    }
  } finally {
    cleanup(h)
  }
})

test('insertEntries: only a value written as JSON.stringify writes it, and only by an insertion', () => {
  assert.deepEqual(insertEntries('{"a":1,"taskHistory":[{"id":"x"}],"b":[]}', ['{"id":"y"}']), {value: '{"a":1,"taskHistory":[{"id":"x"},{"id":"y"}],"b":[]}'})
  assert.deepEqual(insertEntries('{"taskHistory":[]}', ['{"id":"y"}']), {value: '{"taskHistory":[{"id":"y"}]}'})
  assert.ok('why' in insertEntries('{"taskHistory": []}', ['{"id":"y"}']), 'not as JSON.stringify writes it')
  assert.ok('why' in insertEntries('{"mode":"code"}', ['{"id":"y"}']))
})

test("Kilo Code's state database zero-filled, or with a hot journal beside it: index-unreadable, never written; no database: nothing said", async () => {
  const h = tempDir('chatdoctor-kilo-state-')
  try {
    const storage = storageDir(h, 'kilo')
    const t = buildTask('kilo', taskId('kilo', 0), realTurns('B'))
    writeStore(storage, 'kilo', [t])
    const db = path.join(path.dirname(storage), 'state.vscdb')
    let c: ScannedChat | undefined = (await scan([storage], h)).find((x) => x.report.id === t.id)
    assert.equal(finding(c, 'not-in-index'), undefined, 'no database: nothing said')
    assert.equal(finding(c, 'index-unreadable'), undefined)

    writeFileSync(db, Buffer.alloc(8192))
    c = (await scan([storage], h)).find((x) => x.report.id === t.id)
    assert.match(finding(c, 'index-unreadable')!.message, /^the taskHistory of kilocode\.kilo-code in VS Code's globalStorage\/state\.vscdb is corrupt \(nul-run\): its header is zero-filled; so whether Kilo Code lists this task is unknown \(VS Code replaces a database it cannot open with its state\.vscdb\.backup/)

    writeStateDb(path.join(h, 'fresh.vscdb'), [t])
    writeFileSync(db, readFileSync(path.join(h, 'fresh.vscdb')))
    writeFileSync(`${db}-journal`, Buffer.alloc(512, 1))
    const before = hashTree(path.dirname(storage))
    c = (await scan([storage], h)).find((x) => x.report.id === t.id)
    assert.match(finding(c, 'index-unreadable')!.message, /state\.vscdb-journal is beside it \(VS Code is writing it, or stopped while writing\)/)
    assert.deepEqual(hashTree(path.dirname(storage)), before)
    assert.ok(existsSync(`${db}-journal`))
  } finally {
    cleanup(h)
  }
})

/**
 * Leaves `file` as an editor killed in WAL mode leaves it: its last commit only in `-wal` (with `-shm`), never
 * checkpointed. The files are copied while the connection is open and put back after it closed (a clean close
 * would fold the log into the database and delete it).
 */
function leaveWal(file: string, change: (db: Database.Database) => void): void {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('wal_autocheckpoint = 0')
  change(db)
  const kept = ['', '-wal', '-shm'].map((s) => [file + s, readFileSync(file + s)] as const)
  db.close()
  for (const [p, bytes] of kept) writeFileSync(p, bytes)
}

test("Kilo Code's state database with a WAL beside it holding a commit not yet in it: read with its WAL, never replaced while the WAL is there (SQLite would replay it over the new file); the database stays whole", async () => {
  const h = tempDir('chatdoctor-kilo-state-')
  try {
    const storage = storageDir(h, 'kilo')
    const tasks = [0, 1, 2].map((k) => buildTask('kilo', taskId('kilo', k), realTurns(k === 0 ? 'A' : 'B')))
    writeStore(storage, 'kilo', tasks)
    const globalStorage = path.dirname(storage)
    const db = path.join(globalStorage, 'state.vscdb')
    writeStateDb(db, [tasks[0]])
    // The commit in the WAL lists the second task too, so only the third is hidden when the WAL is read.
    leaveWal(db, (conn) => {
      const row = conn.prepare('SELECT value FROM ItemTable WHERE key = ?').get(KEY) as {value: string}
      const state = JSON.parse(row.value) as {taskHistory: unknown[]}
      state.taskHistory.push({id: tasks[1].id, number: 2, ts: 1, task: 'listed in the WAL'})
      conn.prepare('UPDATE ItemTable SET value = ? WHERE key = ?').run(JSON.stringify(state), KEY)
      conn.prepare('UPDATE ItemTable SET value = ? WHERE key = ?').run('400', 'workbench.panel.height')
    })
    assert.ok(readFileSync(`${db}-wal`).length > 0, 'the WAL holds uncheckpointed frames')
    const before = hashTree(globalStorage)
    const chats = await scan([storage], h)
    assert.deepEqual(hashTree(globalStorage), before, 'scan writes nothing')
    const idx = chats.find((c) => c.report.id === 'index')!
    const f = finding(idx, 'not-in-index')!
    assert.match(f.message, new RegExp(`\\(2 entries\\) does not list 1 task folder \\(${tasks[2].id}\\)`), 'the list is read with its WAL')
    assert.match(f.message, /chatdoctor does not write it \(state\.vscdb-wal is beside it .*SQLite would replay that log over a database written in its place/)
    assert.match(f.message, /PRAGMA wal_checkpoint\(TRUNCATE\)/)
    assert.deepEqual(idx.report.generations.map((g) => g.file).sort(), ['state.vscdb', 'state.vscdb-shm', 'state.vscdb-wal'])
    const r = runCli(['repair', '-y', '--json', storage], {env: {HOME: h}})
    const rep = JSON.parse(r.stdout) as {chats: Array<{id: string; repair?: {outcome: string; message: string | null}}>}
    const ic = rep.chats.find((c) => c.id === 'index')!
    assert.equal(ic.repair!.outcome, 'manual', JSON.stringify(ic.repair))
    assert.match(ic.repair!.message ?? '', /state\.vscdb-wal is beside it/)
    const hidden = chats.find((c) => c.report.id === tasks[2].id)!
    assert.equal(hidden.report.status, 'repairable', 'the task the list hides is not called healthy')
    assert.deepEqual([rep.chats.find((c) => c.id === tasks[2].id)!.repair!.outcome, rep.chats.find((c) => c.id === tasks[2].id)!.repair!.message], ['manual', ic.repair!.message])
    assert.equal(r.status & 2, 2, 'the exit code says something is left to do')
    for (const n of ['state.vscdb', 'state.vscdb-wal', 'state.vscdb-shm']) assert.equal(hashTree(globalStorage)[n], before[n], `${n} as it was`)
    const copy = path.join(h, 'check')
    mkdirSync(copy)
    for (const s of ['', '-wal', '-shm']) copyFileSync(db + s, path.join(copy, 'state.vscdb' + s))
    const check = new Database(path.join(copy, 'state.vscdb'))
    try {
      assert.deepEqual(check.pragma('integrity_check', {simple: true}), 'ok', 'the database reads whole, its WAL replayed')
      assert.equal((check.prepare('SELECT value FROM ItemTable WHERE key = ?').get('workbench.panel.height') as {value: string}).value, '400', "the WAL's commit is still there")
    } finally {
      check.close()
    }
  } finally {
    cleanup(h)
  }
})

test("Kilo Code's list stored as a BLOB, or holding elements that are not entries: its hidden tasks reported hidden (not healthy), the list left for a step by hand, the database never written", async () => {
  for (const shape of ['blob', 'junk'] as const) {
    const h = tempDir('chatdoctor-kilo-state-')
    try {
      const storage = storageDir(h, 'kilo')
      const tasks = [0, 1].map((k) => buildTask('kilo', taskId('kilo', k), realTurns(k === 0 ? 'A' : 'B')))
      writeStore(storage, 'kilo', tasks)
      const db = path.join(path.dirname(storage), 'state.vscdb')
      writeStateDb(db, [tasks[0]])
      const conn = new Database(db)
      if (shape === 'blob') conn.prepare('UPDATE ItemTable SET value = CAST(value AS BLOB) WHERE key = ?').run(KEY)
      else {
        const state = JSON.parse((conn.prepare('SELECT value FROM ItemTable WHERE key = ?').get(KEY) as {value: string}).value) as {taskHistory: unknown[]}
        state.taskHistory.push(null, 5)
        conn.prepare('UPDATE ItemTable SET value = ? WHERE key = ?').run(JSON.stringify(state), KEY)
      }
      conn.close()
      const before = readFileSync(db)
      const chats = await scan([storage], h)
      const idx = chats.find((c) => c.report.id === 'index')!
      assert.equal(idx.report.status, 'repairable', shape)
      assert.match(finding(idx, 'not-in-index')!.message, shape === 'blob' ? /chatdoctor does not write it \(its kilocode\.kilo-code value is stored as a BLOB/ : /chatdoctor does not write it \(its taskHistory holds 2 elements that are not entries \(#1 null, #2 5\)/)
      assert.equal(chats.find((c) => c.report.id === tasks[1].id)!.report.status, 'repairable', `${shape}: the hidden task is not called healthy`)
      const r = runCli(['repair', '-y', '--json', storage], {env: {HOME: h}})
      const rep = JSON.parse(r.stdout) as {chats: Array<{id: string; repair?: {outcome: string}}>}
      assert.deepEqual([rep.chats.find((c) => c.id === 'index')!.repair!.outcome, rep.chats.find((c) => c.id === tasks[1].id)!.repair!.outcome], ['manual', 'manual'], shape)
      assert.equal(r.status & 2, 2)
      assert.ok(readFileSync(db).equals(before), `${shape}: the database is not written`)
    } finally {
      cleanup(h)
    }
  }
})

test("Kilo Code's list repair with --force: a WAL that appears beside state.vscdb after the scan still stops it (SQLite would replay it over the rebuilt file), nothing written", async () => {
  const h = tempDir('chatdoctor-kilo-state-')
  try {
    const storage = storageDir(h, 'kilo')
    const tasks = [0, 1].map((k) => buildTask('kilo', taskId('kilo', k), realTurns('B')))
    writeStore(storage, 'kilo', tasks)
    const globalStorage = path.dirname(storage)
    const db = path.join(globalStorage, 'state.vscdb')
    writeStateDb(db, [tasks[0]])
    const chats = await scan([storage], h)
    const idx = chats.find((c) => c.report.id === 'index')!
    assert.equal(idx.report.status, 'repairable')
    const plan = planChat(idx)
    assert.ok(plan.actions.length > 0, 'a repair is planned while no WAL is there')
    writeFileSync(`${db}-wal`, Buffer.alloc(4096, 7))
    const before = hashTree(globalStorage)
    const ctx: ApplyContext = {fs: nodeFileSystem(), repairId: '20261201T210000Z-abcdef', version: 'test', stateDir: path.join(h, 'state'), force: true}
    const out = await applyChat(plan, ctx)
    assert.equal(out.outcome, 'refused', JSON.stringify(out))
    assert.match(out.message ?? '', /state\.vscdb-wal is beside it .*--force does not override this/)
    assert.deepEqual(hashTree(globalStorage), before, 'nothing written')
  } finally {
    cleanup(h)
  }
})
