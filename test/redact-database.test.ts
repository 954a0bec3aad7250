/**
 * `bundle --redact` of a session kept in a SQLite store (the OpenCode store family: Kilo Code CLI's `kilo.db` and
 * OpenCode ≥ 1.2's `opencode.db`), on copies of the stores the real binaries wrote: the bundle is written, no
 * prompt, answer, title or tool text of the original rows is left in any byte of any member (the database file
 * included), `check` of the bundle gives each session the verdict of the original, and the originals keep their
 * bytes and mtimes. A store whose WAL lost writes is refused with why, and nothing is written.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {test} from 'node:test'
import type {ChatReport} from '../src/lib/model/report.js'
import {REALDATA, cleanup, copyWritable, hashTree, runCli, tempDir} from './helpers/fixtures.js'
import {SESSION_B, copyKiloHome, cutWalInside, damage, withTurnInWal} from './helpers/kilo.js'

type Db = import('better-sqlite3').Database
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3')

/** Runs `fn` on a read-only connection to a private copy of a store (never the files in place). */
function onCopy<T>(data: string, file: string, fn: (db: Db) => T): T {
  const tmp = tempDir('chatdoctor-test-rows-')
  try {
    for (const n of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path.join(data, n))) copyFileSync(path.join(data, n), path.join(tmp, n))
    const db = new Database(path.join(tmp, file), {readonly: true})
    try {
      return fn(db)
    } finally {
      db.close()
    }
  } finally {
    cleanup(tmp)
  }
}

/**
 * The user's strings of a store: every text, tool input and output, title and path of its message, part and
 * session rows (and of the other tables' text cells), at least 12 characters long so a word the format itself
 * spells (a part type, a tool name) is not taken for one.
 */
function secretsOf(data: string, file: string): string[] {
  const out = new Set<string>()
  const walk = (v: unknown, key: string | null) => {
    if (typeof v === 'string') {
      if (v.length >= 12 && !/^(?:ses|msg|prt|prj|call|toolu)_/.test(v) && !['id', 'sessionID', 'messageID', 'parentID', 'projectID', 'callID', 'modelID', 'providerID', 'version', 'slug'].includes(key ?? '')) out.add(v)
    } else if (Array.isArray(v)) for (const x of v) walk(x, key)
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) walk(x, k)
  }
  onCopy(data, file, (db) => {
    for (const row of db.prepare('SELECT data FROM message UNION ALL SELECT data FROM part').pluck().all() as string[]) walk(JSON.parse(row), null)
    for (const row of db.prepare('SELECT title, directory FROM session').all() as Array<Record<string, string>>) for (const v of Object.values(row)) walk(v, null)
  })
  return [...out]
}

/** A bundle unpacked by the system's tar: every member's path and bytes. */
function unpack(archive: string, root: string, into = 'unpacked'): Map<string, Buffer> {
  const dir = path.join(root, into)
  mkdirSync(dir)
  const t = spawnSync('tar', ['-xzf', archive, '-C', dir])
  assert.equal(t.status, 0, String(t.stderr))
  const out = new Map<string, Buffer>()
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n)
      if (statSync(p).isDirectory()) walk(p)
      else out.set(path.relative(dir, p), readFileSync(p))
    }
  }
  walk(dir)
  return out
}

/** Each chat's verdict as compared across a redaction: status, turns, findings, and each generation's class. */
const verdict = (c: ChatReport) => ({
  id: c.id,
  status: c.status,
  winner: c.winner,
  turns: [c.transcriptTurns, c.contextTurns],
  findings: c.findings.map((f) => f.id).filter((id) => id !== 'unknown-file'),
  generations: c.generations.filter((g) => g.role !== 'other').map((g) => `${g.file} ${g.role} ${g.class} ${g.reasons.join(',')}`),
})

function scanJson(target: string, env: NodeJS.ProcessEnv): ChatReport[] {
  const s = runCli(['scan', '--json', target], {env})
  return (JSON.parse(s.stdout) as {chats: ChatReport[]}).chats
}

/** Bundles `data` with --redact and checks what the brief of a redacted store asks for. */
function redactedBundleKeepsNothing(root: string, data: string, file: string, env: NodeJS.ProcessEnv, sessions: number): void {
  const secrets = secretsOf(data, file)
  assert.ok(secrets.length >= 10, `the store has user text to hide (${secrets.length} strings)`)
  const before = hashTree(data)
  const original = scanJson(data, env)
  assert.equal(original.length, sessions)
  const out = path.join(root, 'redacted.tar.gz')
  const b = runCli(['bundle', '--json', '--redact', '-o', out, data], {env})
  assert.equal(b.status, 0, b.stderr + b.stdout)
  assert.deepEqual(hashTree(data), before, 'the originals keep their bytes and mtimes')
  // The grep below can fail: the same strings are found in the bytes of a plain bundle of the store.
  const plainOut = path.join(root, 'plain.tar.gz')
  assert.equal(runCli(['bundle', '-o', plainOut, data], {env}).status, 0)
  const plain = Buffer.concat([...unpack(plainOut, root, 'plain').values()])
  const found = secrets.filter((s) => plain.includes(Buffer.from(s, 'utf8')))
  assert.ok(found.length >= secrets.length / 2, `a plain bundle holds the user's text (${found.length} of ${secrets.length} strings found whole)`)
  const members = unpack(out, root)
  assert.ok([...members.keys()].some((k) => k.endsWith(`/${file}`)), 'the bundle holds the database file')
  for (const [name, bytes] of members) for (const s of secrets) assert.ok(!bytes.includes(Buffer.from(s, 'utf8')), `${name} holds the user's ${JSON.stringify(s.slice(0, 40))}`)
  // Each session's folder holds its own session only: no other session's id in its database.
  for (const c of original) {
    const db = members.get(`${c.id}/${file}`)
    assert.ok(db, `${c.id}/${file} is bundled`)
    for (const other of original) if (other.id !== c.id) assert.ok(!db.includes(Buffer.from(other.id)), `${c.id}'s database holds ${other.id}`)
  }
  const check = runCli(['check', '--json', out], {env})
  const checked = JSON.parse(check.stdout) as {exitCode: number; chats: ChatReport[]}
  assert.deepEqual(checked.chats.map(verdict).sort((x, y) => (x.id < y.id ? -1 : 1)), original.map(verdict).sort((x, y) => (x.id < y.id ? -1 : 1)))
  assert.deepEqual(hashTree(data), before, 'the originals keep their bytes and mtimes')
}

function kiloHome(): {root: string; data: string; env: NodeJS.ProcessEnv} {
  const root = tempDir()
  const data = copyKiloHome(path.join(root, 'home'))
  mkdirSync(path.join(root, 'tmp'))
  return {root, data, env: {HOME: path.join(root, 'home'), XDG_STATE_HOME: path.join(root, 'state'), TMPDIR: path.join(root, 'tmp')}}
}

test('bundle --redact of the real Kilo store: written, none of the user\'s text in any member (the database included), check gives the same verdicts, originals unchanged', () => {
  const {root, data, env} = kiloHome()
  try {
    redactedBundleKeepsNothing(root, data, 'kilo.db', env, 2)
    assert.deepEqual(readdirSync(path.join(root, 'tmp')), [], 'no private copy is left behind')
  } finally {
    cleanup(root)
  }
})

test('bundle --redact of the real OpenCode 1.18.33 database store: written, no user text left, same verdicts, originals unchanged', () => {
  const root = tempDir()
  try {
    const data = copyWritable(path.join(REALDATA, 'opencode', '1.18.33', 'data', 'opencode'), path.join(root, 'home', '.local', 'share', 'opencode'))
    mkdirSync(path.join(root, 'tmp'))
    const env = {HOME: path.join(root, 'home'), XDG_STATE_HOME: path.join(root, 'state'), TMPDIR: path.join(root, 'tmp')}
    redactedBundleKeepsNothing(root, data, 'opencode.db', env, 2)
  } finally {
    cleanup(root)
  }
})

test('bundle --redact of a Kilo store whose last answer never finished (WAL whole, its index gone) keeps its verdict (turn-unfinished)', () => {
  const {root, data, env} = kiloHome()
  try {
    const t = withTurnInWal(data, SESSION_B)
    const end = t.commits.find((c) => c.seq === 36)!.frame
    damage(data, 'kilo.db-wal', (p) => truncateSync(p, 32 + end * (t.pageSize + 24)))
    damage(data, 'kilo.db-shm', (p) => rmSync(p))
    assert.ok(scanJson(data, env).find((c) => c.id === SESSION_B)!.findings.some((f) => f.id === 'turn-unfinished'))
    redactedBundleKeepsNothing(root, data, 'kilo.db', env, 2)
  } finally {
    cleanup(root)
  }
})

test('bundle --redact of a Kilo store whose WAL was cut inside the last turn is refused with why (what the WAL lost is only in its bytes); nothing written', () => {
  const {root, data, env} = kiloHome()
  try {
    const t = withTurnInWal(data, SESSION_B)
    cutWalInside(data, t.commits.find((c) => c.seq === 36)!.frame + 1, t.pageSize)
    assert.ok(scanJson(data, env).find((c) => c.id === SESSION_B)!.findings.some((f) => f.id === 'turn-rolled-back'))
    const before = hashTree(data)
    const out = path.join(root, 'refused.tar.gz')
    const b = runCli(['bundle', '--redact', '-o', out, data], {env})
    assert.equal(b.status, 8)
    assert.match(b.stderr, new RegExp(`${SESSION_B} cannot be redacted: its Kilo store lost writes in its WAL, and what was lost is only in the WAL's bytes \\(which hold the user's text\\); bundle it without --redact`))
    assert.ok(!existsSync(out), 'nothing written')
    assert.deepEqual(hashTree(data), before)
  } finally {
    cleanup(root)
  }
})
