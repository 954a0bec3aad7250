/**
 * OpenCode's projects as the index of its sessions, on copies of the stores the real OpenCode 1.1.65 (JSON tree)
 * and 1.18.33 (database) wrote, damaged by code: a session filed under `global` whose directory is spelled
 * otherwise than its project's worktree (OpenCode's own move passes it by) is found, filed under its project the
 * way OpenCode files it, and listed again by OpenCode's rule (`Session.list`: the sessions of the current
 * project's id, implemented here as the oracle); undo puts every byte back.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {cleanup, copyWritable, REALDATA, REPO_ROOT, tempDir} from './helpers/fixtures.js'
import {peek, sqlite, treeBytes} from './helpers/indexes.js'

const BIN = path.join(REPO_ROOT, 'bin', 'run.js')
const OC = path.join(REALDATA, 'opencode')
/** The project id both versions gave the demo project (its root commit). */
const PROJECT = 'dfa7b73011a5aa73687463da673751ea81200147'
const TREE_SESSION = 'ses_dd6249cf0ffevk8ay20nf1cCNR'
const DB_SESSION = 'ses_dd624f00affeLQd9JRo5aavtt0'

interface Chat {
  path: string
  id: string
  format: string
  status: string
  findings: Array<{id: string; severity: string; message: string}>
  actions?: Array<{type: string; from: string | null; to: string}>
  repair?: {outcome: string; message: string | null}
}
interface Report {
  exitCode: number
  chats: Chat[]
  repairId?: string | null
}

function copyStore(version: string, root: string): string {
  return copyWritable(path.join(OC, version, 'data', 'opencode'), path.join(root, '.local', 'share', 'opencode'))
}

function run(root: string, args: string[]): Report {
  const r = spawnSync(process.execPath, [BIN, ...args, '--json'], {encoding: 'utf8', env: {...process.env, HOME: root, XDG_STATE_HOME: path.join(root, '.state'), XDG_DATA_HOME: path.join(root, '.local', 'share')}})
  assert.ok(r.stdout.trim().startsWith('{'), `no JSON from ${args.join(' ')}: ${r.stderr}`)
  return JSON.parse(r.stdout) as Report
}

/** OpenCode's listing of a project's sessions (`Session.list`): database rows of that project id, or the tree folder of it. */
function listed(data: string, project: string): string[] {
  if (existsSync(path.join(data, 'opencode.db'))) return peek(data, 'opencode.db', (db) => (db.prepare('SELECT id FROM session WHERE project_id = ? ORDER BY id').all(project) as Array<{id: string}>).map((r) => r.id))
  const dir = path.join(data, 'storage', 'session', project)
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)).sort() : []
}

function repairAndUndo(root: string, data: string, check: (r: Report) => void): void {
  const before = treeBytes(data)
  const rep = run(root, ['repair', '--yes', data])
  assert.equal(rep.exitCode & 1, 1, JSON.stringify(rep.chats.map((c) => [c.id, c.repair])))
  check(rep)
  const undo = spawnSync(process.execPath, [BIN, 'undo', rep.repairId!, '--json'], {encoding: 'utf8', env: {...process.env, HOME: root, XDG_STATE_HOME: path.join(root, '.state')}})
  assert.equal(undo.status, 0, undo.stdout + undo.stderr)
  const after = treeBytes(data)
  assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort())
  for (const [k, v] of before) assert.ok(after.get(k)!.equals(v), `undo puts back every byte of ${k}`)
}

describe("OpenCode's projects: sessions orphaned under another project id or directory spelling", () => {
  it('the real stores: no session is filed away from its project', () => {
    for (const v of ['1.1.65', '1.18.33']) {
      const root = tempDir()
      try {
        const data = copyStore(v, root)
        const r = run(root, ['scan', data])
        assert.equal(r.chats.find((c) => c.id === 'projects'), undefined, `${v}: nothing to say`)
        assert.equal(r.exitCode, 0)
        assert.ok(listed(data, PROJECT).length >= 2)
      } finally {
        cleanup(root)
      }
    }
  })

  it('database: a session under global with a trailing-slash directory is filed under its project again (the row OpenCode itself moves)', () => {
    const root = tempDir()
    try {
      const data = copyStore('1.18.33', root)
      sqlite(data, 'opencode.db', (db) => {
        db.prepare("INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES ('global', '/', NULL, 1, 1, '[]')").run()
        db.prepare("UPDATE session SET project_id = 'global', directory = '/home/dev/demo-app/' WHERE id = ?").run(DB_SESSION)
      })
      assert.equal(listed(data, PROJECT).includes(DB_SESSION), false)
      const r = run(root, ['scan', data])
      assert.equal(r.exitCode & 2, 2)
      const s = r.chats.find((c) => c.id === DB_SESSION)!
      assert.equal(s.status, 'repairable')
      assert.match(s.findings.find((f) => f.id === 'not-in-index')!.message, /filed under project global.*trailing|not spelled as the worktree/)
      repairAndUndo(root, data, (rep) => {
        assert.deepEqual(rep.chats.find((c) => c.id === 'projects')?.actions?.map((a) => a.type), ['preserve', 'restore'])
        assert.ok(listed(data, PROJECT).includes(DB_SESSION), 'OpenCode lists it again')
        const row = peek(data, 'opencode.db', (db) => db.prepare('SELECT directory, title FROM session WHERE id = ?').get(DB_SESSION))
        assert.deepEqual(row, {directory: '/home/dev/demo-app/', title: 'Fixture: add remove() to TodoStore'}, 'only project_id changes')
        assert.equal(run(root, ['scan', data]).chats.find((c) => c.id === 'projects'), undefined)
      })
    } finally {
      cleanup(root)
    }
  })

  it('JSON tree: a session file under storage/session/global/ is moved to its project folder, its projectID replaced in place', () => {
    const root = tempDir()
    try {
      const data = copyStore('1.1.65', root)
      const from = path.join(data, 'storage', 'session', PROJECT, `${TREE_SESSION}.json`)
      const orig = readFileSync(from, 'utf8')
      mkdirSync(path.join(data, 'storage', 'session', 'global'))
      writeFileSync(path.join(data, 'storage', 'session', 'global', `${TREE_SESSION}.json`), orig.replace(`"projectID": "${PROJECT}"`, '"projectID": "global"').replace('"directory": "/home/dev/demo-app"', '"directory": "/home/dev//demo-app"'))
      renameSync(from, path.join(root, 'gone.json'))
      assert.equal(listed(data, PROJECT).includes(TREE_SESSION), false)
      const r = run(root, ['scan', data])
      const s = r.chats.find((c) => c.id === TREE_SESSION)!
      assert.equal(s.status, 'repairable')
      repairAndUndo(root, data, () => {
        assert.ok(listed(data, PROJECT).includes(TREE_SESSION))
        const moved = readFileSync(from, 'utf8')
        assert.equal(moved, orig.replace('"directory": "/home/dev/demo-app"', '"directory": "/home/dev//demo-app"'), 'every byte but the projectID value kept')
        assert.equal(existsSync(path.join(data, 'storage', 'session', 'global', `${TREE_SESSION}.json`)), false)
      })
    } finally {
      cleanup(root)
    }
  })
})
