/**
 * Cline CLI's session index (`db/sessions.db` with its `-wal` and `-shm`) as a chat of role-`index` files, on
 * copies of the store the real cline 3.0.65 wrote (`shared/realdata/cline/3.0.65/`), damaged by code. A damaged
 * index is diagnosed and moved aside for Cline to recreate; Cline's own listing with its index absent (the
 * session folders, as `damage/delete-index` recorded the binary's `cline history`) agrees afterwards, and undo
 * puts every byte back. A database holding what the folders do not, an encrypted one, a `-wal` alone, and a
 * running Cline are never written.
 */
import assert from 'node:assert/strict'
import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync, writeSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {after, describe, it} from 'node:test'
import {CLINE, SESSION_A, SESSION_B, copyClineHome, type ClineHome} from './helpers/cline.js'
import {REPO_ROOT, cleanup, hashTree, sha256, tempDir} from './helpers/fixtures.js'

const BIN = path.join(REPO_ROOT, 'bin', 'run.js')
const roots: string[] = []
after(() => roots.forEach(cleanup))

interface Chat {
  id: string
  format: string
  path: string
  status: string
  findings: Array<{id: string; severity: string; message: string}>
  generations: Array<{file: string; role: string; class: string | null; reasons: string[]}>
  actions?: Array<{type: string; from: string | null; to: string; evidence: string | null; why?: string}>
  repair?: {outcome: string; message: string | null}
}
interface Report {
  exitCode: number
  chats: Chat[]
  repairId?: string | null
}

function run(h: ClineHome, args: string[]): Report {
  const r = spawnSync(process.execPath, [BIN, ...args, '--json'], {encoding: 'utf8', env: {...process.env, HOME: h.home, XDG_STATE_HOME: path.join(h.home, '.state')}})
  assert.ok(r.stdout.trim().startsWith('{'), `no JSON from ${args.join(' ')}: ${r.stderr}`)
  const report = JSON.parse(r.stdout) as Report
  assert.equal(r.status, report.exitCode, `${args[0]}: exit status`)
  return report
}

function home(): ClineHome {
  const root = tempDir('chatdoctor-cline-index-')
  roots.push(root)
  return copyClineHome(root)
}

/** The store's tree (chatdoctor's state folder, outside it, aside). */
const tree = (h: ClineHome) => hashTree(path.join(h.home, '.cline'))
/** The store's files (size, mtime to the millisecond, mode, sha256), chatdoctor's evidence folders left out. */
const files = (t: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(t)
      .filter(([k, v]) => v.startsWith('file ') && !k.split(path.sep).includes('.chatdoctor'))
      .map(([k, v]) => {
        const [, size, mtime, mode, sha] = v.split(' ')
        return [k, `${size} ${Math.floor(Number(mtime))} ${mode} ${sha}`]
      }),
  )
const db = (h: ClineHome, s = '') => path.join(h.data, 'db', `sessions.db${s}`)
const indexOf = (r: Report) => r.chats.find((c) => c.format === 'cline' && c.id === 'index')
const sessionOf = (r: Report, id: string) => r.chats.find((c) => c.id === id)!

function zeroFirstPage(file: string): void {
  const fd = openSync(file, 'r+')
  writeSync(fd, Buffer.alloc(4096), 0, 4096, 0)
  closeSync(fd)
}

/** The index's first page zeroed and its WAL lost (emptied): the database Cline would find holds nothing. */
function tearIndex(h: ClineHome): void {
  zeroFirstPage(db(h))
  truncateSync(db(h, '-wal'), 0)
}

/**
 * Cline 3.0.65's `cline history` with its index absent, as `damage/delete-index` recorded it: the index is
 * recreated and every session folder holding its record is listed again. The oracle, held against the binary's
 * own recorded listing below.
 */
function clineListedWithoutIndex(h: ClineHome): string[] {
  assert.ok(!existsSync(db(h)), 'the oracle models the index absent')
  return readdirSync(h.sessions)
    .filter((id) => existsSync(path.join(h.sessions, id, `${id}.json`)) && existsSync(path.join(h.sessions, id, `${id}.messages.json`)))
    .sort()
}

/** The ids the real binary listed after its index was deleted (`damage/delete-index/result.json`). */
function observedListing(): string[] {
  const r = JSON.parse(readFileSync(path.join(CLINE, 'damage', 'delete-index', 'result.json'), 'utf8')) as {steps: Array<{step: string; history?: Array<{sessionId: string}>}>}
  return r.steps.find((s) => s.step === 'history')!.history!.map((x) => x.sessionId).sort()
}

describe("Cline CLI's session index", () => {
  it("the oracle is the binary's: with the index removed, `cline history` listed every session folder again", () => {
    const h = home()
    for (const s of ['', '-wal', '-shm']) rmSync(db(h, s))
    assert.deepEqual(clineListedWithoutIndex(h), observedListing())
    assert.deepEqual(observedListing(), [SESSION_A, SESSION_B].sort())
  })

  it('a first page zeroed on disk but whole in the WAL is an intact index (SQLite and Cline read it through the WAL): nothing said, nothing written', () => {
    const h = home()
    zeroFirstPage(db(h))
    const before = tree(h)
    const r = run(h, ['scan', h.data])
    assert.equal(r.exitCode, 0)
    assert.equal(indexOf(r), undefined, 'a healthy index is not in the report')
    for (const id of [SESSION_A, SESSION_B]) assert.equal(sessionOf(r, id).status, 'healthy')
    assert.equal(run(h, ['repair', '-y', h.data]).exitCode, 0)
    assert.deepEqual(tree(h), before)
  })

  it('a torn index (page 1 zeroed, its WAL lost): diagnosed, moved aside with its -wal and -shm, Cline lists both sessions again, undo restores every byte', () => {
    const h = home()
    tearIndex(h)
    const before = tree(h)
    const bytes = new Map(['', '-wal', '-shm'].map((s) => [`sessions.db${s}`, readFileSync(db(h, s))]))

    const s = run(h, ['scan', h.data])
    assert.equal(s.exitCode, 2)
    const idx = indexOf(s)!
    assert.equal(idx.status, 'repairable')
    assert.equal(idx.path, '~/.cline/data/db')
    assert.deepEqual(idx.generations.map((g) => [g.file, g.role, g.class, g.reasons.join(' ')]), [
      ['sessions.db', 'index', 'corrupt', 'nul-run'],
      ['sessions.db-wal', 'index', null, ''],
      ['sessions.db-shm', 'index', null, ''],
    ])
    assert.match(idx.findings.find((f) => f.id === 'index-damaged')!.message, /first page is zeroed; the session folders are intact: a repair moves it .* Cline recreates it at its next start/)
    for (const id of [SESSION_A, SESSION_B]) {
      const c = sessionOf(s, id)
      assert.equal(c.status, 'repairable', `${id} is brought back by the index's repair`)
      assert.match(c.findings.find((f) => f.id === 'index-damaged')!.message, new RegExp(`cline --id ${id}\` opens this session`))
    }
    assert.deepEqual(tree(h), before, 'scan wrote nothing')

    const dry = run(h, ['repair', '--dry-run', h.data])
    assert.deepEqual(indexOf(dry)!.actions!.map((a) => [a.type, a.from, a.why]), [
      ['move', 'sessions.db', 'damaged-index'],
      ['move', 'sessions.db-wal', 'damaged-index'],
      ['move', 'sessions.db-shm', 'damaged-index'],
    ])
    assert.deepEqual(tree(h), before, 'a dry run wrote nothing')

    const rep = run(h, ['repair', '-y', h.data])
    assert.equal(rep.exitCode, 1)
    const done = indexOf(rep)!
    assert.equal(done.repair!.outcome, 'repaired')
    for (const a of done.actions!) {
      assert.ok(!existsSync(path.join(h.data, 'db', a.from!)), `${a.from} moved out of db/`)
      const kept = a.evidence!.replace(/^~/, h.home)
      assert.equal(sha256(readFileSync(kept)), sha256(bytes.get(a.from!)!), `evidence of ${a.from} byte for byte`)
    }
    for (const id of [SESSION_A, SESSION_B]) assert.equal(sessionOf(rep, id).repair!.outcome, 'repaired')
    assert.deepEqual(clineListedWithoutIndex(h), observedListing(), "Cline's listing afterwards: every session")

    const again = run(h, ['scan', h.data])
    assert.equal(again.exitCode, 0)
    assert.equal(indexOf(again), undefined)
    for (const id of [SESSION_A, SESSION_B]) assert.equal(sessionOf(again, id).status, 'healthy')

    const u = spawnSync(process.execPath, [BIN, 'undo', rep.repairId!], {encoding: 'utf8', env: {...process.env, HOME: h.home, XDG_STATE_HOME: path.join(h.home, '.state')}})
    assert.equal(u.status, 0, u.stderr)
    assert.deepEqual(files(tree(h)), files(before), 'undo restores every byte')
  })

  it('a torn index that holds what the folders do not (a schedule): reported with what to do, never moved', () => {
    const h = home()
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3')
    const conn = new Database(db(h))
    conn.prepare("INSERT INTO schedules (schedule_id, name, cron_pattern, prompt, provider, model, created_at, updated_at) VALUES ('s1', 'nightly', '0 3 * * *', 'Run the tests', 'openai-compatible', 'fake-model', 'x', 'x')").run()
    const root = Number(conn.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'sessions'").pluck().get())
    conn.close() // folds the WAL into the database and removes it
    // The sessions table's page overwritten: the check fails, the schedule still reads.
    const fd = openSync(db(h), 'r+')
    writeSync(fd, Buffer.alloc(4096, 0xff), 0, 4096, (root - 1) * 4096)
    closeSync(fd)
    const before = tree(h)
    const s = run(h, ['scan', h.data])
    const idx = indexOf(s)!
    const msg = idx.findings.find((f) => f.id === 'index-damaged')!.message
    assert.match(msg, /damaged: its check fails .* and holds what the session folders do not \(1 row of schedules\): moving it aside would lose that/)
    for (const id of [SESSION_A, SESSION_B]) assert.notEqual(sessionOf(s, id).status, 'repairable', 'no repair brings the sessions back')
    const rep = run(h, ['repair', '-y', h.data])
    assert.equal(indexOf(rep)!.repair!.outcome, 'manual')
    assert.deepEqual(indexOf(rep)!.actions ?? [], [])
    assert.deepEqual(tree(h), before, 'nothing written')
  })

  it('an encrypted (not SQLite) index and a -wal without its database: one clear line each, never written', () => {
    const h = home()
    writeFileSync(db(h), Buffer.from('SQLCipher-like bytes that are not SQLite '.repeat(100)))
    let before = tree(h)
    let r = run(h, ['repair', '-y', h.data])
    assert.match(indexOf(r)!.findings.find((f) => f.id === 'index-damaged')!.message, /not a SQLite database \(encrypted, or another kind of file\): chatdoctor never writes it/)
    assert.equal(indexOf(r)!.repair!.outcome, 'manual')
    assert.deepEqual(tree(h), before)

    const h2 = home()
    rmSync(db(h2))
    before = tree(h2)
    r = run(h2, ['repair', '-y', h2.data])
    const idx = indexOf(r)!
    assert.equal(idx.status, 'healthy')
    assert.match(idx.findings.find((f) => f.id === 'index-unreadable')!.message, /sessions\.db-wal has no database beside it: left as it is, never written/)
    assert.deepEqual(tree(h2), before)
  })

  it("a running Cline hub: the torn index's repair is refused, even with --force; nothing written", async () => {
    const h = home()
    tearIndex(h)
    // A process whose command line is Cline's hub daemon, named by the hub's discovery record.
    const hub: ChildProcess = spawn(process.execPath, ['-e', "process.send('up');setInterval(()=>{},1000)", '--', '--cline-hub-daemon', '--host', '127.0.0.1'], {stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: {PATH: process.env.PATH, HOME: h.home}})
    try {
      await new Promise((r) => hub.once('message', r))
      mkdirSync(path.join(h.data, 'locks', 'hub'), {recursive: true})
      writeFileSync(path.join(h.data, 'locks', 'hub', 'production.json'), JSON.stringify({hubId: 'h', protocolVersion: '1', host: '127.0.0.1', port: 25463, url: 'ws://127.0.0.1:25463/hub', pid: hub.pid, startedAt: 'x', updatedAt: 'x'}))
      const before = tree(h)
      for (const force of [[], ['--force']]) {
        const r = run(h, ['repair', ...force, h.data])
        const idx = indexOf(r)!
        assert.equal(idx.repair!.outcome, 'refused')
        assert.match(idx.repair!.message!, /hub daemon .* is running.*Stop it \(cline hub stop/)
        assert.deepEqual(tree(h), before, `nothing written ${force.join(' ')}`)
      }
    } finally {
      hub.kill('SIGKILL')
      if (hub.exitCode === null && hub.signalCode === null) await new Promise((r) => hub.once('exit', r))
    }
  })
})
