/**
 * Codex's index (`state_5.sqlite`, `thread_history_1.sqlite`) held against its rollouts, on copies of the store
 * the real Codex CLI 0.169.0 wrote (`shared/realdata/codex/0.169.0/`), damaged by code. Each drift kind is
 * diagnosed and repaired; Codex's own way of finding and reading a thread (index-files.md §2.2 and the trials of
 * `scripts/realbin/codex-trials.mjs`, implemented in `helpers/indexes.ts`) agrees afterwards, and undo puts every
 * byte back.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, writeFileSync, writeSync, closeSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {cleanup, REPO_ROOT, tempDir} from './helpers/fixtures.js'
import {CODEX_REAL, codexListed, codexResolve, copyCodexHome, peek, projectionProblems, rolloutOf, sqlite, THREAD_C, THREAD_D, treeBytes} from './helpers/indexes.js'
import {linesOf} from './helpers/sessions.js'

const BIN = path.join(REPO_ROOT, 'bin', 'run.js')

interface Finding {
  id: string
  severity: string
  message: string
}
interface Chat {
  path: string
  id: string
  format: string
  status: string
  findings: Finding[]
  generations: Array<{file: string; role: string; class: string | null}>
  actions?: Array<{type: string; from: string | null; to: string; why?: string}>
  repair?: {outcome: string; message: string | null; warnings: string[]}
}
interface Report {
  exitCode: number
  chats: Chat[]
  repairId?: string | null
}

function run(root: string, args: string[]): Report {
  const r = spawnSync(process.execPath, [BIN, ...args, '--json'], {encoding: 'utf8', env: {...process.env, HOME: root, XDG_STATE_HOME: path.join(root, '.state')}})
  assert.ok(r.stdout.trim().startsWith('{'), `no JSON from ${args.join(' ')}: ${r.stderr}`)
  return JSON.parse(r.stdout) as Report
}

const indexChat = (r: Report) => r.chats.find((c) => c.id === 'index' && c.format === 'codex')!
const sessionChat = (r: Report, id: string) => r.chats.find((c) => c.id === id)!

function zeroFirstPage(file: string): void {
  const fd = openSync(file, 'r+')
  writeSync(fd, Buffer.alloc(4096), 0, 4096, 0)
  closeSync(fd)
}

function moveRollout(home: string, id: string): string {
  const f = rolloutOf(home, id)!
  const d = path.join(home, 'sessions', '2020', '01', '01')
  mkdirSync(d, {recursive: true})
  renameSync(f, path.join(d, path.basename(f)))
  return path.join(d, path.basename(f))
}

/** Repairs, checks, undoes, and checks that every byte of the home is back. */
function repairAndUndo(root: string, home: string, check: (repair: Report) => void): void {
  const before = treeBytes(home)
  const rep = run(root, ['repair', '--yes', home])
  assert.equal(rep.exitCode & 1, 1, `repaired: ${JSON.stringify(rep.chats.map((c) => [c.id, c.repair]))}`)
  check(rep)
  const undo = spawnSync(process.execPath, [BIN, 'undo', rep.repairId!, '--json'], {encoding: 'utf8', env: {...process.env, HOME: root, XDG_STATE_HOME: path.join(root, '.state')}})
  assert.equal(undo.status, 0, undo.stdout + undo.stderr)
  const after = treeBytes(home)
  assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), 'undo leaves exactly the files there were')
  for (const [k, v] of before) assert.ok(after.get(k)!.equals(v), `undo puts back every byte of ${k}`)
}

describe('Codex index (state_5.sqlite, thread_history_1.sqlite)', () => {
  it('the real store: the index is healthy and agrees with the rollouts the way Codex reads them', () => {
    const root = tempDir()
    try {
      const home = copyCodexHome(root)
      const r = run(root, ['scan', home])
      assert.equal(r.exitCode, 0)
      assert.equal(indexChat(r), undefined, 'a healthy index with nothing to say is left out of the report')
      assert.ok(r.chats.every((c) => c.status === 'healthy' && c.findings.length === 0))
      assert.deepEqual(codexListed(home), [THREAD_C, THREAD_D])
      assert.ok('file' in codexResolve(home, THREAD_C))
      assert.deepEqual(projectionProblems(home, THREAD_C), [])
      assert.deepEqual(projectionProblems(home, THREAD_D), [])
    } finally {
      cleanup(root)
    }
  })

  it('B40 state index malformed, rollouts fine: moved aside with its -wal/-shm, Codex rebuilds it; undo restores every byte', () => {
    const root = tempDir()
    try {
      const home = copyCodexHome(root)
      zeroFirstPage(path.join(home, 'state_5.sqlite'))
      assert.deepEqual(codexResolve(home, THREAD_C), {error: 'list_turns is not supported yet'})
      const r = run(root, ['scan', home])
      assert.equal(r.exitCode, 2)
      const idx = indexChat(r)
      assert.equal(idx.status, 'repairable')
      assert.ok(idx.findings.some((f) => f.id === 'index-damaged' && f.severity === 'error' && /first page is zeroed/.test(f.message)))
      assert.deepEqual(idx.generations.map((g) => [g.file, g.role, g.class]), [
        ['state_5.sqlite', 'index', 'corrupt'],
        ['state_5.sqlite-wal', 'index', null],
        ['state_5.sqlite-shm', 'index', null],
        ['thread_history_1.sqlite', 'index', 'intact'],
        ['thread_history_1.sqlite-wal', 'index', null],
        ['thread_history_1.sqlite-shm', 'index', null],
      ])
      for (const id of [THREAD_C, THREAD_D]) {
        const s = sessionChat(r, id)
        assert.equal(s.status, 'repairable', 'an unresumable session is repairable when the rebuild brings it back')
        assert.ok(s.findings.some((f) => f.id === 'index-damaged' && f.message.includes(`codex exec resume ${id}`)))
      }
      repairAndUndo(root, home, (rep) => {
        const i = indexChat(rep)
        assert.deepEqual(i.actions?.map((a) => [a.type, a.from, a.why]), [
          ['move', 'state_5.sqlite', 'damaged-index'],
          ['move', 'state_5.sqlite-wal', 'damaged-index'],
          ['move', 'state_5.sqlite-shm', 'damaged-index'],
        ])
        assert.equal(sessionChat(rep, THREAD_C).repair?.outcome, 'repaired')
        for (const n of ['state_5.sqlite', 'state_5.sqlite-wal', 'state_5.sqlite-shm']) assert.equal(existsSync(path.join(home, n)), false)
        // Codex without the database: rebuilds it from the rollouts and resumes both threads.
        assert.ok('file' in codexResolve(home, THREAD_C))
        assert.deepEqual(codexListed(home), [THREAD_C, THREAD_D])
        assert.equal(run(root, ['scan', home]).exitCode, 0)
      })
    } finally {
      cleanup(root)
    }
  })

  it('listed, not on disk: a rollout moved to another date folder gets its rollout_path back (rows repaired, names kept)', () => {
    const root = tempDir()
    try {
      const home = copyCodexHome(root)
      sqlite(home, 'state_5.sqlite', (db) => db.prepare("UPDATE threads SET name = 'my thread', is_pinned = 1 WHERE id = ?").run(THREAD_D))
      // As Codex leaves it between runs: an empty WAL and its -shm beside the database.
      writeFileSync(path.join(home, 'state_5.sqlite-wal'), '')
      cpSync(path.join(CODEX_REAL, 'after-exec', 'home', '.codex', 'state_5.sqlite-shm'), path.join(home, 'state_5.sqlite-shm'))
      spawnSync('chmod', ['u+w', path.join(home, 'state_5.sqlite-shm')])
      const moved = moveRollout(home, THREAD_C)
      assert.deepEqual(codexResolve(home, THREAD_C), {error: `no rollout found for thread id ${THREAD_C}`})
      const r = run(root, ['scan', home])
      const idx = indexChat(r)
      assert.equal(idx.status, 'repairable')
      const f = idx.findings.find((x) => x.id === 'index-entry-missing')!
      assert.match(f.message, /sessions\/2020\/01\/01\/rollout-/, 'says where the rollout is now')
      assert.ok(idx.findings.some((x) => x.id === 'index-holds-state' && /1 thread name, 1 pinned thread/.test(x.message)))
      assert.equal(sessionChat(r, THREAD_C).status, 'repairable')
      repairAndUndo(root, home, (rep) => {
        assert.deepEqual(indexChat(rep).actions?.map((a) => [a.type, a.from ?? '', a.to]), [
          ['preserve', 'state_5.sqlite', 'state_5.sqlite'],
          ['move', 'state_5.sqlite-wal', 'state_5.sqlite-wal'],
          ['move', 'state_5.sqlite-shm', 'state_5.sqlite-shm'],
          ['restore', 'rows:state_5.sqlite', 'state_5.sqlite'],
        ])
        assert.deepEqual(codexResolve(home, THREAD_C), {file: moved})
        const d = peek(home, 'state_5.sqlite', (db) => db.prepare('SELECT name, is_pinned FROM threads WHERE id = ?').get(THREAD_D))
        assert.deepEqual(d, {name: 'my thread', is_pinned: 1}, 'the rows Codex cannot rebuild are kept')
        assert.equal(run(root, ['scan', home]).exitCode, 0)
      })
    } finally {
      cleanup(root)
    }
  })

  it('on disk, not listed: a thread without a row gets the backfill marker cleared so Codex scans the rollouts again', () => {
    const root = tempDir()
    try {
      const home = copyCodexHome(root)
      sqlite(home, 'state_5.sqlite', (db) => db.prepare('DELETE FROM threads WHERE id = ?').run(THREAD_C))
      assert.deepEqual(codexListed(home), [THREAD_D])
      const r = run(root, ['scan', home])
      const s = sessionChat(r, THREAD_C)
      assert.equal(s.status, 'repairable')
      const f = s.findings.find((x) => x.id === 'not-in-index')!
      assert.match(f.message, /does not list it/)
      assert.match(f.message, new RegExp(`codex exec resume ${THREAD_C}`))
      repairAndUndo(root, home, () => {
        assert.deepEqual(peek(home, 'state_5.sqlite', (db) => db.prepare('SELECT count(*) n FROM backfill_state').get()), {n: 0})
        // Codex's next start with no backfill marker scans the rollouts and adds the rows it lacks (trial: the row came back).
        const again = run(root, ['scan', home])
        assert.equal(again.exitCode, 0)
        assert.equal(sessionChat(again, THREAD_C).findings.find((x) => x.id === 'not-in-index')?.severity, 'info')
      })
    } finally {
      cleanup(root)
    }
  })

  it("chatdoctor's own rewrite of a rollout moves the thread-history projection aside in the same repair", () => {
    const root = tempDir()
    try {
      const home = copyCodexHome(root)
      const file = rolloutOf(home, THREAD_C)!
      // A power loss's NUL tail: chatdoctor's repair rewrites the rollout without it (every record kept; a
      // dropped interior line would leave an ordinal gap Codex refuses, so that rollout is not rewritten).
      writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.alloc(4096)]))
      const r = run(root, ['scan', home])
      assert.equal(sessionChat(r, THREAD_C).status, 'repairable')
      repairAndUndo(root, home, (rep) => {
        const s = sessionChat(rep, THREAD_C)
        assert.ok(s.actions?.some((a) => a.type === 'rewrite'))
        const i = indexChat(rep)
        assert.deepEqual(i.actions?.map((a) => [a.type, a.from, a.why]), [
          ['move', 'thread_history_1.sqlite', 'stale-index'],
          ['move', 'thread_history_1.sqlite-wal', 'stale-index'],
          ['move', 'thread_history_1.sqlite-shm', 'stale-index'],
        ])
        assert.ok(i.repair?.warnings.some((w) => w.includes('is rewritten')))
        // What Codex reads of the repaired rollout: no projection left to read at wrong offsets (it rebuilds it),
        // and the thread resolves to the rewritten file.
        assert.equal(projectionProblems(home, THREAD_C), null)
        assert.deepEqual(codexResolve(home, THREAD_C), {file})
        assert.equal(run(root, ['scan', home]).exitCode, 0)
      })
    } finally {
      cleanup(root)
    }
  })

  it('stale: a projection whose offsets no longer start their lines is found the way Codex reads it, and moved aside', () => {
    const root = tempDir()
    try {
      const home = copyCodexHome(root)
      const file = rolloutOf(home, THREAD_C)!
      // The same records, one of them written with a space more (as another writer would): every later offset moves.
      const lines = linesOf(readFileSync(file))
      lines[3] = Buffer.from(lines[3].toString('utf8').replace(/^\{/, '{ '))
      writeFileSync(file, Buffer.concat(lines))
      assert.ok((projectionProblems(home, THREAD_C) ?? []).length > 0, 'the oracle sees the stale offsets')
      const r = run(root, ['scan', home])
      const s = sessionChat(r, THREAD_C)
      assert.ok(s.findings.some((f) => f.id === 'index-stale'))
      assert.equal(s.status, 'repairable')
      repairAndUndo(root, home, () => {
        assert.equal(projectionProblems(home, THREAD_C), null)
        assert.equal(existsSync(path.join(home, 'state_5.sqlite')), true, 'the state database is not touched')
      })
    } finally {
      cleanup(root)
    }
  })

  it('a moved home whose rows live mostly in the WAL: every rollout_path repaired on a private copy, the WAL kept as evidence', () => {
    const root = tempDir()
    try {
      const home = path.join(root, '.codex')
      cpSync(path.join(CODEX_REAL, 'after-exec', 'home', '.codex'), home, {recursive: true, preserveTimestamps: true, verbatimSymlinks: true})
      spawnSync('chmod', ['-R', 'u+w', home])
      const walBytes = readFileSync(path.join(home, 'state_5.sqlite-wal'))
      assert.ok(walBytes.length > 1_000_000)
      assert.deepEqual(codexResolve(home, THREAD_C), {error: `no rollout found for thread id ${THREAD_C}`})
      const r = run(root, ['scan', home])
      const idx = indexChat(r)
      assert.ok(idx.findings.some((f) => f.id === 'index-entry-missing' && f.message.includes('/home/dev/.codex/sessions/')))
      repairAndUndo(root, home, () => {
        assert.equal(existsSync(path.join(home, 'state_5.sqlite-wal')), false, 'the WAL moved aside: its pages are in the repaired file')
        assert.deepEqual(codexResolve(home, THREAD_C), {file: rolloutOf(home, THREAD_C)})
        assert.equal(run(root, ['scan', home]).exitCode, 0)
      })
    } finally {
      cleanup(root)
    }
  })

  it('bad input: an encrypted-looking database, an unknown schema and a WAL without its database are diagnosed and never written', () => {
    for (const damage of ['foreign', 'schema', 'orphan-wal'] as const) {
      const root = tempDir()
      try {
        const home = copyCodexHome(root)
        if (damage === 'foreign') writeFileSync(path.join(home, 'state_5.sqlite'), Buffer.from(Array.from({length: 8192}, (_, i) => (i * 131 + 7) % 251)))
        if (damage === 'schema') sqlite(home, 'state_5.sqlite', (db) => db.exec('ALTER TABLE threads RENAME COLUMN rollout_path TO rollout_file'))
        if (damage === 'orphan-wal') {
          for (const n of ['state_5.sqlite', 'state_5.sqlite-shm']) renameSync(path.join(home, n), path.join(root, n))
          cpSync(path.join(CODEX_REAL, 'after-exec', 'home', '.codex', 'state_5.sqlite-wal'), path.join(home, 'state_5.sqlite-wal'))
        }
        const before = treeBytes(home)
        const scan = run(root, ['scan', home])
        const idx = indexChat(scan)
        const line = idx.findings.find((f) => f.id === 'index-damaged' || f.id === 'index-unreadable')
        assert.ok(line, `${damage}: one clear line (${JSON.stringify(idx.findings)})`)
        if (damage === 'foreign') assert.match(line.message, /not a SQLite database \(encrypted/)
        if (damage === 'schema') assert.match(line.message, /never written/)
        if (damage === 'orphan-wal') assert.match(line.message, /no database beside it/)
        const rep = run(root, ['repair', '--yes', home])
        assert.equal(rep.exitCode & 1, 0, `${damage}: nothing repaired`)
        const after = treeBytes(home)
        for (const [k, v] of before) assert.ok(after.get(k)?.equals(v), `${damage}: ${k} untouched`)
      } finally {
        cleanup(root)
      }
    }
  })

  it('refuses while Codex runs (its app-server daemon pid is alive): nothing written', () => {
    const root = tempDir()
    try {
      const home = copyCodexHome(root)
      zeroFirstPage(path.join(home, 'state_5.sqlite'))
      mkdirSync(path.join(home, 'app-server-daemon'), {recursive: true})
      writeFileSync(path.join(home, 'app-server-daemon', 'daemon.pid'), JSON.stringify({pid: process.pid}))
      const before = treeBytes(home)
      const rep = run(root, ['repair', '--yes', home])
      const idx = indexChat(rep)
      assert.equal(idx.repair?.outcome, 'refused')
      assert.match(idx.repair?.message ?? '', /app-server daemon runs/)
      assert.equal(rep.exitCode & 8, 8)
      const after = treeBytes(home)
      for (const [k, v] of before) assert.ok(after.get(k)?.equals(v))
      assert.deepEqual(readdirSync(home).filter((n) => n === '.chatdoctor'), [])
    } finally {
      cleanup(root)
    }
  })
})
