/**
 * Kilo Code's extension task list, kept in VS Code's `state.vscdb` (`ItemTable`, key `kilocode.kilo-code`, the
 * JSON of its whole global state with its `taskHistory`): a database built here by SQLite the way VS Code's
 * storage creates and writes it (microsoft/vscode `src/vs/base/parts/storage/node/storage.ts`), beside task
 * folders of the fixture builder; read on a private copy, held against Kilo Code's own listing rule, never
 * written.
 */
import assert from 'node:assert/strict'
import {existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import Database from 'better-sqlite3'
import {scanPaths, type ScannedChat} from '../src/lib/pipeline/scan.js'
import {cleanup, hashTree, runCli, tempDir} from './helpers/fixtures.js'
import {buildTask, historyItem, realTurns, storageDir, taskId, writeStore, type Task} from './helpers/vscode-tasks.js'

const KEY = 'kilocode.kilo-code'

/** VS Code's state database with Kilo Code's global state holding `listed` as its taskHistory (and a setting beside it). */
function writeStateDb(file: string, listed: Task[]): void {
  const db = new Database(file)
  try {
    db.exec('PRAGMA user_version = 1;CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)')
    const state = {taskHistory: listed.map((t, k) => historyItem(t, k + 1)), mode: 'code', listApiConfigMeta: [{name: 'default', id: 'x1', apiProvider: 'openai'}]}
    db.transaction(() => {
      db.prepare('INSERT INTO ItemTable VALUES (?,?),(?,?)').run(KEY, JSON.stringify(state), 'workbench.panel.height', '300')
    })()
  } finally {
    db.close()
  }
}

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

test("Kilo Code's list in VS Code's state.vscdb holds one of three intact task folders: the other two not-in-index, with the manual step; nothing written, the database never opened in place", async () => {
  const h = tempDir('chatdoctor-kilo-state-')
  try {
    const storage = storageDir(h, 'kilo')
    const tasks = [0, 1, 2].map((k) => buildTask('kilo', taskId('kilo', k), realTurns(k === 0 ? 'A' : 'B')))
    writeStore(storage, 'kilo', tasks)
    const db = path.join(path.dirname(storage), 'state.vscdb')
    writeStateDb(db, [tasks[0]])
    assert.deepEqual(kiloListing(db), [tasks[0].id])
    const globalStorage = path.dirname(storage)
    const before = hashTree(globalStorage)
    const chats = await scan([storage], h)
    assert.deepEqual(hashTree(globalStorage), before, 'scan writes nothing, and no -journal, -wal or -shm appears')
    assert.deepEqual(readdirSync(globalStorage).sort(), ['kilocode.kilo-code', 'state.vscdb'])
    assert.equal(finding(chats.find((c) => c.report.id === tasks[0].id), 'not-in-index'), undefined)
    for (const t of tasks.slice(1)) {
      const c = chats.find((x) => x.report.id === t.id)!
      assert.equal(c.report.status, 'healthy')
      const f = finding(c, 'not-in-index')!
      assert.equal(f.file, path.join('..', 'state.vscdb'))
      assert.match(f.message, /^the taskHistory of kilocode\.kilo-code in VS Code's globalStorage\/state\.vscdb \(1 entry\) does not list this task, so Kilo Code does not show it; Kilo Code has no command that rebuilds its list, and chatdoctor does not write VS Code's state database/)
      assert.match(f.message, /quit every window of the editor, copy state\.vscdb aside/)
    }
    // A repair writes nothing for them, and leaves the database as it is.
    const r = runCli(['repair', '-y', '--json', storage], {env: {HOME: h}})
    const rep = JSON.parse(r.stdout) as {chats: Array<{id: string; repair?: {outcome: string}}>}
    for (const t of tasks.slice(1)) assert.equal(rep.chats.find((c) => c.id === t.id)!.repair!.outcome, 'not-needed')
    assert.deepEqual(hashTree(globalStorage), before)
    // The task folder given alone: the same verdict (the database read once per change of it).
    const one = await scan([path.join(storage, 'tasks', tasks[2].id)], h)
    assert.match(finding(one[0], 'not-in-index')!.message, /does not list this task/)
  } finally {
    cleanup(h)
  }
})

test("Kilo Code's state database zero-filled, or with a hot journal beside it: index-unreadable, never written; no database: nothing said", async () => {
  const h = tempDir('chatdoctor-kilo-state-')
  try {
    const storage = storageDir(h, 'kilo')
    const t = buildTask('kilo', taskId('kilo', 0), realTurns('B'))
    writeStore(storage, 'kilo', [t])
    const db = path.join(path.dirname(storage), 'state.vscdb')
    let c = (await scan([storage], h))[0]
    assert.equal(finding(c, 'not-in-index'), undefined, 'no database: nothing said')
    assert.equal(finding(c, 'index-unreadable'), undefined)

    writeFileSync(db, Buffer.alloc(8192))
    c = (await scan([storage], h))[0]
    assert.match(finding(c, 'index-unreadable')!.message, /^the taskHistory of kilocode\.kilo-code in VS Code's globalStorage\/state\.vscdb is corrupt \(nul-run\): its header is zero-filled; so whether Kilo Code lists this task is unknown \(VS Code replaces a database it cannot open with its state\.vscdb\.backup/)

    writeStateDb(path.join(h, 'fresh.vscdb'), [t])
    writeFileSync(db, readFileSync(path.join(h, 'fresh.vscdb')))
    writeFileSync(`${db}-journal`, Buffer.alloc(512, 1))
    const before = hashTree(path.dirname(storage))
    c = (await scan([storage], h))[0]
    assert.match(finding(c, 'index-unreadable')!.message, /state\.vscdb-journal is beside it \(VS Code is writing it, or stopped while writing\)/)
    assert.deepEqual(hashTree(path.dirname(storage)), before)
    assert.ok(existsSync(`${db}-journal`))
  } finally {
    cleanup(h)
  }
})
