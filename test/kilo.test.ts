/**
 * Kilo Code CLI, on copies of the store the real `@kilocode/cli@7.7.7` wrote (shared/realdata/kilo/7.7.7): the
 * healthy store, each case of its `damage/` folder with the verdict the binary's own behaviour calls for (new-agents.md
 * §3.5), the bug-log reports whose damage applies to a SQLite store, what Kilo's next start destroys and the repair
 * that sets the store aside first (undone byte for byte), the live refusal, exports, bundles, and hostile input.
 */
import assert from 'node:assert/strict'
import {spawn, spawnSync} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {test} from 'node:test'
import {kilo} from '../src/lib/formats/kilo/index.js'
import {databasesOf, defaultRoots, isDataDir} from '../src/lib/formats/kilo/layout.js'
import {dataDirsOf, heldLocks, kiloLiveReasons} from '../src/lib/formats/kilo/live.js'
import {checkStoreExport} from '../src/lib/formats/opencode-family/export.js'
import {KILO} from '../src/lib/formats/kilo/layout.js'
import type {ChatReport} from '../src/lib/model/report.js'
import {scanPaths, type ScannedChat} from '../src/lib/pipeline/scan.js'
import {REPO_ROOT, cleanup, hashTree, runCli, sha256, tempDir} from './helpers/fixtures.js'
import {writeStore} from './helpers/sqlite-store.js'
import {DATA, KILO_REAL, SESSION_A, SESSION_B, copyKiloHome, cutWalInside, damage, nulPage, rootPage, storeBytes, storeRows, withTurnInWal} from './helpers/kilo.js'

const DB = 'kilo.db'
const WAL = 'kilo.db-wal'
const SHM = 'kilo.db-shm'

async function scan(data: string, home: string): Promise<ScannedChat[]> {
  return (await scanPaths([data], {home, env: {HOME: home}})).chats
}
const byId = (chats: ScannedChat[], id: string): ChatReport => {
  const c = chats.find((x) => x.report.id === id)
  assert.ok(c, `no chat ${id} among ${chats.map((x) => x.report.id).join(', ')}`)
  return c.report
}
const gen = (r: ChatReport, file: string) => {
  const g = r.generations.find((x) => x.file === file)
  assert.ok(g, `${file} is a generation of ${r.id}`)
  return g
}
const ids = (r: ChatReport) => r.findings.map((f) => `${f.severity} ${f.id}`).sort()
type Repaired = ChatReport & {actions: Array<{type: string; from: string | null; to: string; sha256: string | null}>; repair: {outcome: string; message: string | null; evidence: string | null; statusAfter?: string}}

/** A copied home, its data dir, and the environment that points chatdoctor's state into the temp root. */
function home(): {root: string; data: string; env: NodeJS.ProcessEnv} {
  const root = tempDir()
  const data = copyKiloHome(path.join(root, 'home'))
  // The CLI's own temp folders (private copies, archives laid out) go under the root, apart from other test files'.
  mkdirSync(path.join(root, 'tmp'))
  return {root, data, env: {HOME: path.join(root, 'home'), XDG_STATE_HOME: path.join(root, 'state'), TMPDIR: path.join(root, 'tmp')}}
}

test('Kilo layout: the data dir, KILO_DB, and the databases Kilo itself would open', () => {
  assert.deepEqual(defaultRoots('/home/u', {}), ['/home/u/.local/share/kilo'])
  assert.deepEqual(defaultRoots('/home/u', {XDG_DATA_HOME: '/x/data'}), ['/x/data/kilo'])
  assert.deepEqual(defaultRoots('/home/u', {XDG_DATA_HOME: 'relative'}), ['/home/u/.local/share/kilo'])
  assert.deepEqual(defaultRoots('/home/u', {KILO_DB: '/srv/kilo/other.db'}), ['/home/u/.local/share/kilo', '/srv/kilo'])
  assert.deepEqual(defaultRoots('/home/u', {KILO_DB: 'sub/kilo.db'}), ['/home/u/.local/share/kilo', '/home/u/.local/share/kilo/sub'])
  assert.deepEqual(defaultRoots('/home/u', {KILO_DB: ':memory:'}), ['/home/u/.local/share/kilo'])
  // latest/beta/prod use kilo.db; other channels kilo-<channel>.db, or the pre-rename opencode-<channel>.db while no kilo-<channel>.db exists.
  assert.deepEqual(databasesOf(['storage', 'kilo.db', 'kilo.db-wal', 'kilo-dev.db', 'opencode-dev.db', 'opencode-nightly.db', 'opencode.db']), ['kilo.db', 'kilo-dev.db', 'opencode-nightly.db'])
  assert.ok(isDataDir('/h/.local/share/kilo', ['kilo.db']))
  assert.ok(isDataDir('/h/.local/share/kilo', ['storage']))
  assert.ok(isDataDir('/h/.local/share/kilo', ['opencode-dev.db']))
  assert.ok(!isDataDir('/h/.local/share/opencode', ['storage', 'opencode.db']))
  assert.ok(!isDataDir('/h/projects/app', ['storage']))
  assert.deepEqual(dataDirsOf({HOME: '/h', KILO_DB: 'x/y.db'}), ['/h/.local/share/kilo', '/h/.local/share/kilo/x'])
})

test('the real store: two healthy Kilo sessions with 5 and 2 user turns, found from the default roots under a fake HOME', async () => {
  const {root, env} = home()
  try {
    const r = await scanPaths([], {home: env.HOME!, env})
    assert.deepEqual(r.errors, [])
    const a = byId(r.chats, SESSION_A)
    const b = byId(r.chats, SESSION_B)
    assert.equal(r.chats.length, 2)
    for (const c of [a, b]) {
      assert.equal(c.format, 'kilo')
      assert.equal(c.status, 'healthy')
      assert.equal(c.winner, DB)
      assert.deepEqual(c.findings, [])
      assert.deepEqual(c.generations.map((g) => [g.file, g.role, g.class]), [[DB, 'database', 'intact'], [SHM, 'database', null], [WAL, 'database', 'intact']])
      assert.ok(c.generations.every((g) => g.sha256 === sha256(readFileSync(path.join(env.HOME!, DATA, g.file)))))
    }
    assert.equal(a.contextTurns, 5)
    assert.deepEqual(a.context, {userTurns: 5, assistantMessages: 9, messages: 14, parts: 36, toolCompleted: 4, toolPending: 0, toolError: 0, compactionParts: 0})
    assert.equal(b.contextTurns, 2)
    assert.deepEqual(b.context, {userTurns: 2, assistantMessages: 3, messages: 5, parts: 11, toolCompleted: 1, toolPending: 0, toolError: 0, compactionParts: 0})
    assert.ok(a.path.startsWith('~/.local/share/kilo/kilo.db#'), a.path)
    // The built CLI, default roots: both sessions, exit 0, nothing else claims the store.
    const cli = runCli(['scan', '--json'], {env})
    assert.equal(cli.status, 0, cli.stderr)
    const report = JSON.parse(cli.stdout) as {chats: ChatReport[]}
    assert.deepEqual(report.chats.map((c) => `${c.format} ${c.id} ${c.status} ${c.contextTurns}`).sort(), [`kilo ${SESSION_B} healthy 2`, `kilo ${SESSION_A} healthy 5`])
  } finally {
    cleanup(root)
  }
})

test('the store is read on a private copy of kilo.db, -wal and -shm together: the originals do not change, no temp copy is left', async () => {
  const {root, data, env} = home()
  try {
    const before = hashTree(data)
    const tmpBefore = readdirSync(os.tmpdir()).filter((n) => n.startsWith(KILO.tempPrefix))
    await scan(data, env.HOME!)
    await scan(path.join(KILO_REAL, 'home', DATA), env.HOME!)
    assert.deepEqual(hashTree(data), before)
    assert.deepEqual(readdirSync(os.tmpdir()).filter((n) => n.startsWith(KILO.tempPrefix)), tmpBefore)
  } finally {
    cleanup(root)
  }
})

test('the fixture that puts the last turn back into the WAL is faithful: every row reads as Kilo wrote it, and kilo.db alone holds the store before the turn', () => {
  const {root, data} = home()
  try {
    const before = storeRows(data)
    const t = withTurnInWal(data)
    assert.deepEqual(storeRows(data), before)
    assert.equal(t.commits.length, 14, 'one commit per event of the turn (events 29–42)')
    assert.deepEqual(t.commits.map((c) => c.seq), Array.from({length: 14}, (_, i) => 29 + i))
    // Without the WAL, the turn is not there.
    const alone = tempDir()
    try {
      writeFileSync(path.join(alone, DB), readFileSync(path.join(data, DB)))
      const rows = storeRows(alone)
      assert.equal(rows.message.filter((m) => m.session_id === SESSION_B).length, 3)
      assert.ok(!rows.message.some((m) => m.id === t.answer))
    } finally {
      cleanup(alone)
    }
  } finally {
    cleanup(root)
  }
})

test('damage/wal-cut-mid-turn (B32 analog, an unterminated final turn): the WAL cut inside the turn, SQLite rolls it back to an empty text part with no step-finish; turn-rolled-back, degraded, exit 4, nothing to repair', async () => {
  const {root, data, env} = home()
  try {
    const t = withTurnInWal(data)
    // Cut inside the frame after the commit that created the answer's (still empty) text part (event 36).
    const frame = t.commits.find((c) => c.seq === 36)!.frame + 1
    const at = cutWalInside(data, frame, t.pageSize)
    const chats = await scan(data, env.HOME!)
    const b = byId(chats, SESSION_B)
    assert.equal(b.status, 'degraded')
    assert.deepEqual(ids(b), ['error turn-rolled-back'])
    const f = b.findings[0]
    assert.equal(f.file, WAL)
    assert.match(f.message, new RegExp(`the last turn of ${SESSION_B} was rolled back: kilo\\.db-wal was cut inside frame ${frame} \\(it ends at byte ${at}, 1000 of the frame's 4120 bytes\\)`))
    assert.match(f.message, /its index \(kilo\.db-shm\) records 124 committed frames, so the commits in frames 73–124 are gone: SQLite silently reads the store as of frame 72, its last whole commit/)
    assert.match(f.message, new RegExp(`its last answer ${t.answer} \\(to ${t.prompt}\\) has 1 empty text part, a model step without its end \\(no step-finish\\), no completion time`))
    assert.equal(b.contextTurns, 2, 'the prompt is still there; its answer is not')
    assert.equal(b.context!.parts, 10, 'the step-finish part is rolled back (11 → 10)')
    assert.deepEqual({class: gen(b, WAL).class, reasons: gen(b, WAL).reasons, damage: gen(b, WAL).damage}, {class: 'truncated', reasons: ['unexpected-end'], damage: {offset: at - 1000, length: 1000}})
    const a = byId(chats, SESSION_A)
    assert.equal(a.status, 'healthy')
    assert.deepEqual(a.findings, [])
    const r = runCli(['repair', '--json', data], {env})
    assert.equal(r.status, 4, r.stderr)
    const rb = (JSON.parse(r.stdout) as {chats: Repaired[]}).chats.find((c) => c.id === SESSION_B)!
    assert.equal(rb.repair.outcome, 'left-untouched')
    assert.match(rb.repair.message!, /degraded: left as it is; what the session lost \(turn-rolled-back\) is not on disk anywhere/)
    // inspect tells the story.
    const i = runCli(['inspect', '--json', '--session', SESSION_B, data], {env})
    const account = (JSON.parse(i.stdout) as {inspection: {account: string}}).inspection.account
    assert.match(account, /SQLite rolled the session back without a word: the last turn/)
    assert.match(account, /kilo\.db-wal: \d+ bytes, 72 frames: 72 of its current cycle \(8 commits\)/)
  } finally {
    cleanup(root)
  }
})

test('damage/wal-torn-last-frame: the last commit cut, nothing in the rows unfinished: wal-torn on the session Kilo wrote last, degraded; the other session healthy', async () => {
  const {root, data, env} = home()
  try {
    const t = withTurnInWal(data)
    const last = t.commits.at(-1)!.frame
    cutWalInside(data, last, t.pageSize)
    const chats = await scan(data, env.HOME!)
    const b = byId(chats, SESSION_B)
    assert.equal(b.status, 'degraded')
    assert.deepEqual(ids(b), ['error wal-torn'])
    assert.match(b.findings[0].message, new RegExp(`cut inside frame ${last} .*the commits in frames ${t.commits.at(-2)!.frame + 1}–${last} are gone.*Most likely they were ${SESSION_B}'s \\(it is the session Kilo wrote last\\); its rows show nothing unfinished`))
    assert.deepEqual(b.context, {userTurns: 2, assistantMessages: 3, messages: 5, parts: 11, toolCompleted: 1, toolPending: 0, toolError: 0, compactionParts: 0})
    assert.equal(byId(chats, SESSION_A).status, 'healthy')
  } finally {
    cleanup(root)
  }
})

test('a WAL cut with its index gone: the frame cut short still shows; what SQLite ignores is a transaction that never committed (warning)', async () => {
  const {root, data, env} = home()
  try {
    const t = withTurnInWal(data)
    cutWalInside(data, t.commits.find((c) => c.seq === 36)!.frame + 3, t.pageSize)
    damage(data, SHM, (p) => rmSync(p))
    const b = byId(await scan(data, env.HOME!), SESSION_B)
    assert.equal(b.status, 'degraded')
    assert.deepEqual(ids(b), ['warning turn-rolled-back'])
    assert.match(b.findings[0].message, /the 3 frames after its last commit belong to a transaction that never committed: SQLite silently reads the store as of frame 72/)
  } finally {
    cleanup(root)
  }
})

test("B32 analog: an answer Kilo never finished with the WAL whole (killed mid-turn): turn-unfinished, degraded", async () => {
  const {root, data, env} = home()
  try {
    const t = withTurnInWal(data)
    // The WAL as Kilo leaves it when killed right after the commit of event 36: cut at that frame's end, and the index saying so.
    const end = t.commits.find((c) => c.seq === 36)!.frame
    damage(data, WAL, (p) => truncateSync(p, 32 + end * (t.pageSize + 24)))
    damage(data, SHM, (p) => rmSync(p))
    const b = byId(await scan(data, env.HOME!), SESSION_B)
    assert.equal(b.status, 'degraded')
    assert.deepEqual(ids(b), ['warning turn-unfinished'])
    assert.match(b.findings[0].message, new RegExp(`its last answer ${t.answer} \\(to ${t.prompt}\\) has 1 empty text part, a model step without its end \\(no step-finish\\), no completion time: Kilo stopped in the middle of that turn`))
    assert.equal(gen(b, WAL).class, 'intact')
  } finally {
    cleanup(root)
  }
})

test('damage/db-truncate-mid-page: kilo.db cut at 60 %: both sessions repairable (the cut and the failed integrity check said), a manual repair with next steps, nothing written', async () => {
  const {root, data, env} = home()
  try {
    damage(data, DB, (p) => truncateSync(p, Math.floor(statSync(p).size * 0.6)))
    const chats = await scan(data, env.HOME!)
    assert.equal(chats.length, 2)
    for (const c of chats) {
      assert.equal(c.report.status, 'repairable')
      assert.equal(c.report.findings[0].id, 'database-damaged')
      assert.equal(c.report.findings[0].message, "kilo.db is cut short: 270336 of the 450560 bytes its header records (66 of its 110 pages); SQLite reads the 44 pages past the cut only where kilo.db-wal holds a copy, and Kilo fails at every start (its WAL checkpoint) and changes nothing (observed on Kilo 7.7.7)")
      assert.match(c.report.findings[1].message, /^integrity check failed: Tree \d+ page \d+: btreeInitPage\(\) returns error code 11; /)
      assert.ok(!c.report.findings.some((f) => f.id === 'next-start-loss'), "Kilo's start leaves a cut database untouched")
      assert.deepEqual({class: gen(c.report, DB).class, damage: gen(c.report, DB).damage}, {class: 'truncated', damage: {offset: 270336, length: 180224}})
    }
    const before = hashTree(data)
    const r = runCli(['repair', '--json', data], {env})
    assert.equal(r.status, 2, r.stderr)
    for (const c of (JSON.parse(r.stdout) as {chats: Repaired[]}).chats) {
      assert.equal(c.repair.outcome, 'manual')
      assert.match(c.repair.message!, /quit Kilo, copy kilo\.db, kilo\.db-wal and kilo\.db-shm aside, then run sqlite3 kilo\.db "\.recover" \| sqlite3 recovered\.db and check the sessions with kilo export <sessionID>/)
    }
    assert.deepEqual(hashTree(data), before)
  } finally {
    cleanup(root)
  }
})

/** Repairs a store Kilo's next start would destroy, checks the evidence, a second run, and the undo. */
function setAsideAndUndo(data: string, env: NodeJS.ProcessEnv, moved: string[]): void {
  const before = storeBytes(data)
  const tree = hashTree(data)
  const dry = JSON.parse(runCli(['repair', '--json', '--dry-run', data], {env}).stdout) as {chats: Repaired[]}
  assert.deepEqual(hashTree(data), tree, 'a dry run writes nothing')
  const r = runCli(['repair', '--json', data], {env})
  assert.equal(r.status, 1 | 4, r.stderr + r.stdout)
  const report = JSON.parse(r.stdout) as {repairId: string; chats: Repaired[]}
  const c = report.chats[0]
  assert.equal(c.repair.outcome, 'repaired')
  assert.equal(c.repair.statusAfter, 'unrecoverable')
  const key = (a: Repaired['actions'][number]) => `${a.type} ${a.from} ${a.to} ${a.sha256}`
  assert.deepEqual(c.actions.map(key), dry.chats[0].actions.map(key), 'dry run == executed')
  assert.deepEqual(c.actions.map((a) => `${a.type} ${a.from}`), [...moved.map((m) => `move ${m}`), 'restore-mtime null'])
  for (const m of moved) {
    assert.ok(!existsSync(path.join(data, m)), `${m} left the data dir`)
    const ev = path.join(c.repair.evidence!.replace(/^~/, env.HOME!), m)
    assert.deepEqual(readFileSync(ev), before[m], `${m} is byte for byte in the evidence`)
    assert.equal(c.actions.find((a) => a.from === m)!.sha256, sha256(before[m]!))
  }
  assert.ok(Math.abs(statSync(data).mtimeMs - Number(tree['.'].split(' ')[1])) < 1, "the data dir's mtime is put back")
  const second = JSON.parse(runCli(['repair', '--json', data], {env}).stdout) as {repairId: string | null}
  assert.equal(second.repairId, null, 'a second repair writes nothing')
  const u = runCli(['undo', report.repairId, '--json'], {env})
  assert.equal(u.status, 0, u.stderr + u.stdout)
  assert.deepEqual(storeBytes(data), before, 'undo puts every file back byte for byte')
}

test('damage/db-zero-length (B03 analog): kilo.db empty beside its WAL: unrecoverable, and the default output says Kilo\'s next start resets the WAL; repair sets kilo.db, -wal and -shm aside together, undone byte for byte', async () => {
  const {root, data, env} = home()
  try {
    damage(data, DB, (p) => truncateSync(p, 0))
    const [c] = await scan(data, env.HOME!)
    assert.equal(c.report.id, DB)
    assert.equal(c.report.status, 'unrecoverable')
    assert.deepEqual(ids(c.report), ['error database-unreadable', 'error next-start-loss'])
    assert.equal(gen(c.report, DB).class, 'empty')
    const loss = c.report.findings.find((f) => f.id === 'next-start-loss')!
    assert.equal(loss.file, WAL)
    assert.match(loss.message, /^kilo\.db is empty \(0 bytes\): Kilo's next start takes it for a new store, runs its migrations into it and resets kilo\.db-wal, writing over it \(observed on Kilo 7\.7\.7\); kilo\.db-wal \(1483232 bytes, 360 frames: 1 of its current cycle \(1 commit\), 359 older page versions of earlier cycles\) holds the only copy left/)
    // The default human output (no --verbose) says it.
    const human = runCli(['scan', data], {env})
    assert.equal(human.status, 4)
    assert.match(human.stdout, /error next-start-loss kilo\.db-wal: kilo\.db is empty \(0 bytes\): Kilo's next start takes it for a new store/)
    const insp = runCli(['inspect', data], {env})
    assert.match(insp.stdout, /Before Kilo starts again: kilo\.db is empty/)
    setAsideAndUndo(data, env, [WAL, SHM, DB])
  } finally {
    cleanup(root)
  }
})

test('damage/db-nul-filled (B04/B50 analogs): kilo.db all NUL: unrecoverable; Kilo\'s first start would delete the WAL and SHM ("recovery" that deletes), said by default; repair sets the store aside first, undo puts it back', async () => {
  const {root, data, env} = home()
  try {
    damage(data, DB, (p) => writeFileSync(p, Buffer.alloc(statSync(p).size)))
    const [c] = await scan(data, env.HOME!)
    assert.equal(c.report.status, 'unrecoverable')
    assert.deepEqual(ids(c.report), ['error database-unreadable', 'error next-start-loss'])
    assert.equal(gen(c.report, DB).class, 'zero-filled')
    assert.match(c.report.findings.find((f) => f.id === 'database-unreadable')!.message, /file is not a database/)
    assert.match(c.report.findings.find((f) => f.id === 'next-start-loss')!.message, /^SQLite cannot read kilo\.db \(file is not a database\): Kilo's next start fails, and that first start deletes kilo\.db-wal and kilo\.db-shm \(observed on Kilo 7\.7\.7\)/)
    setAsideAndUndo(data, env, [WAL, SHM, DB])
  } finally {
    cleanup(root)
  }
})

test('a kilo.db whose header is torn (cut at 50 bytes) is read like the NUL-filled one: Kilo cannot open it, its start deletes the WAL: next-start-loss', async () => {
  const {root, data, env} = home()
  try {
    damage(data, DB, (p) => truncateSync(p, 50))
    const [c] = await scan(data, env.HOME!)
    assert.equal(gen(c.report, DB).class, 'corrupt')
    assert.deepEqual(ids(c.report), ['error database-unreadable', 'error next-start-loss'])
  } finally {
    cleanup(root)
  }
})

test('damage/delete-wal-shm: kilo.db alone still reads whole: healthy, with an info that its WAL is gone (Kilo keeps it after every run)', async () => {
  const {root, data, env} = home()
  try {
    damage(data, WAL, (p) => rmSync(p))
    damage(data, SHM, (p) => rmSync(p))
    const chats = await scan(data, env.HOME!)
    for (const c of chats) {
      assert.equal(c.report.status, 'healthy')
      assert.deepEqual(ids(c.report), ['info wal-missing'])
    }
    assert.equal(byId(chats, SESSION_A).contextTurns, 5)
    const r = runCli(['scan', data], {env})
    assert.equal(r.status, 0)
    assert.doesNotMatch(r.stdout, /wal-missing/, 'an info is not shown by default')
  } finally {
    cleanup(root)
  }
})

test('damage/delete-db: the whole store deleted: one unrecoverable chat naming the sessions Kilo\'s file diffs still trace; nothing to repair', async () => {
  const {root, data, env} = home()
  try {
    for (const n of [DB, WAL, SHM]) damage(data, n, (p) => rmSync(p))
    const [c] = await scan(data, env.HOME!)
    assert.equal(c.report.status, 'unrecoverable')
    assert.deepEqual(ids(c.report), ['error database-missing'])
    assert.match(c.report.findings[0].message, new RegExp(`2 sessions are still named by Kilo's file diffs in storage/session_diff/ \\(${SESSION_B}, ${SESSION_A}\\)`))
    const r = runCli(['repair', '--json', data], {env})
    assert.equal(r.status, 4)
    assert.equal((JSON.parse(r.stdout) as {chats: Repaired[]}).chats[0].repair.outcome, 'not-repairable')
  } finally {
    cleanup(root)
  }
})

test('kilo.db deleted but its WAL left: SQLite deletes a WAL beside the new database Kilo makes: next-start-loss; repair moves the WAL and SHM aside, undo puts them back', async () => {
  const {root, data, env} = home()
  try {
    damage(data, DB, (p) => rmSync(p))
    const [c] = await scan(data, env.HOME!)
    assert.deepEqual(ids(c.report), ['error database-missing', 'error next-start-loss'])
    setAsideAndUndo(data, env, [WAL, SHM])
  } finally {
    cleanup(root)
  }
})

test('B40 analog: a page of kilo.db overwritten by NUL (the part table\'s root): integrity fails, both sessions repairable, the bad database kept as it is (manual next steps)', async () => {
  const {root, data, env} = home()
  try {
    nulPage(data, rootPage(data, 'part'))
    const chats = await scan(data, env.HOME!)
    for (const c of chats) {
      assert.equal(c.report.status, 'repairable')
      assert.ok(c.report.findings.every((f) => f.id === 'database-damaged'), ids(c.report).join())
      assert.match(c.report.findings[0].message, /malformed/)
      assert.equal(gen(c.report, DB).class, 'corrupt')
    }
    const r = JSON.parse(runCli(['repair', '--json', '--dry-run', data], {env}).stdout) as {chats: Repaired[]}
    assert.ok(r.chats.every((c) => c.repair.outcome === 'manual' && c.actions.length === 0))
  } finally {
    cleanup(root)
  }
})

test('the live refusal: a running kilo process whose environment names this data dir, and a lock Kilo holds, each refuse the repair; nothing written', async () => {
  const {root, data, env} = home()
  const bin = path.join(root, 'bin')
  mkdirSync(bin)
  symlinkSync(process.execPath, path.join(bin, 'kilo'))
  const childEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['XDG_DATA_HOME', 'KILO_DB'].includes(k)))
  const child = spawn(path.join(bin, 'kilo'), ['-e', 'setTimeout(() => {}, 120000)'], {env: {...childEnv, HOME: env.HOME}, stdio: 'ignore'})
  try {
    damage(data, DB, (p) => truncateSync(p, 0))
    await new Promise((resolve) => setTimeout(resolve, 300))
    const before = hashTree(data)
    const r = runCli(['repair', '--json', data], {env})
    const c = (JSON.parse(r.stdout) as {chats: Repaired[]}).chats[0]
    assert.equal(c.repair.outcome, 'refused')
    assert.match(c.repair.message!, new RegExp(`Kilo is running on this store \\(pid ${child.pid}\\)`))
    assert.deepEqual(hashTree(data), before)
  } finally {
    child.kill()
  }
  try {
    // A lock folder whose meta.json names a running process (this one).
    const lock = path.join(env.HOME!, '.local', 'state', 'kilo', 'locks', 'c5ba5fbb0e7f871ec64fac8e8ecf790d5a73cb98.lock')
    mkdirSync(lock, {recursive: true})
    writeFileSync(path.join(lock, 'meta.json'), JSON.stringify({token: 't', pid: process.pid, hostname: os.hostname(), createdAt: new Date().toISOString()}))
    writeFileSync(path.join(lock, 'heartbeat'), '')
    const r = runCli(['repair', '--json', data], {env})
    const c = (JSON.parse(r.stdout) as {chats: Repaired[]}).chats[0]
    assert.equal(c.repair.outcome, 'refused')
    assert.match(c.repair.message!, /Kilo holds its lock .*c5ba5fbb0e7f871ec64fac8e8ecf790d5a73cb98\.lock \(pid \d+\)/)
    // A stale lock (a pid that is not running, an old heartbeat) does not count; then the repair goes through.
    writeFileSync(path.join(lock, 'meta.json'), JSON.stringify({pid: 2 ** 22 + 12345}))
    assert.deepEqual(heldLocks([path.join(env.HOME!, '.local', 'state', 'kilo')], Date.now() + 120_000), [])
    rmSync(lock, {recursive: true})
    const ok = runCli(['repair', '--json', data], {env})
    assert.equal((JSON.parse(ok.stdout) as {chats: Repaired[]}).chats[0].repair.outcome, 'repaired', ok.stdout)
  } finally {
    cleanup(root)
  }
})

test('kiloLiveReasons: a process of another home does not count, one whose environment cannot be read does', () => {
  const snapshot = {dir: '/h/.local/share/kilo', unit: {dir: '/h/.local/share/kilo', path: '/h/.local/share/kilo/kilo.db'}, dirMtimeMs: 0, files: []}
  assert.deepEqual(kiloLiveReasons(snapshot, [{pid: 7, dataDirs: ['/other/.local/share/kilo']}], []), [])
  assert.deepEqual(kiloLiveReasons(snapshot, [{pid: 7, dataDirs: null}], []), ['Kilo is running (pid 7; its environment cannot be read, so it may be using this store)'])
  assert.deepEqual(kiloLiveReasons(snapshot, [{pid: 8, dataDirs: ['/h/.local/share/kilo']}], [{lock: '/h/.local/state/kilo/locks/x.lock', pid: null}]), ['Kilo is running on this store (pid 8)', 'a Kilo lock is being taken right now (/h/.local/state/kilo/locks/x.lock, heartbeat written in the last minute)'])
})

test('kilo export files are checked like opencode export files: the real ones healthy (format kilo, 5 and 2 user turns), a torn one export-damaged; OpenCode\'s own exports stay opencode', () => {
  const dir = path.join(KILO_REAL, 'exports')
  const scratch = tempDir()
  const env = {TMPDIR: scratch}
  const r = runCli(['check', '--json', dir], {env})
  assert.equal(r.status, 0, r.stderr + r.stdout)
  const report = JSON.parse(r.stdout) as {chats: ChatReport[]}
  assert.deepEqual(report.chats.map((c) => `${c.format} ${c.id} ${c.status} ${c.contextTurns}`).sort(), [`kilo ${SESSION_B} healthy 2`, `kilo ${SESSION_A} healthy 5`])
  const oc = JSON.parse(runCli(['check', '--json', path.join(KILO_REAL, '..', '..', 'opencode', '1.18.33')], {env}).stdout) as {chats: ChatReport[]}
  assert.ok(oc.chats.length >= 2 && oc.chats.filter((c) => c.generations.some((g) => g.role === 'export')).every((c) => c.format === 'opencode'))
  const root = tempDir()
  try {
    const full = readFileSync(path.join(dir, `export-${SESSION_B}.json`))
    // By PATH: a torn Kilo export is Kilo's (its head says so); a zeroed one is checked as the family's fallback, OpenCode's.
    writeFileSync(path.join(root, 'torn.json'), full.subarray(0, Math.floor(full.length / 2)))
    writeFileSync(path.join(root, 'zeros.json'), Buffer.alloc(full.length))
    const t = JSON.parse(runCli(['check', '--json', path.join(root, 'torn.json'), path.join(root, 'zeros.json'), path.join(dir, `export-${SESSION_A}.json`)], {env}).stdout) as {exitCode: number; chats: ChatReport[]}
    assert.deepEqual(t.chats.map((c) => `${path.basename(c.path)} ${c.format} ${c.status} ${ids(c).join()}`).sort(), [`export-${SESSION_A}.json kilo healthy `, 'torn.json kilo unrecoverable error export-damaged', 'zeros.json opencode unrecoverable error export-damaged'])
  } finally {
    cleanup(root)
    cleanup(scratch)
  }
})

test('every cut of a real kilo export: never healthy unless the whole document is kept', () => {
  for (const sid of [SESSION_A, SESSION_B]) {
    const full = readFileSync(path.join(KILO_REAL, 'exports', `export-${sid}.json`))
    const end = full.toString('latin1').trimEnd().length
    const cuts = new Set<number>()
    for (let i = 0; i < 600; i++) cuts.add(i)
    for (let i = end - 600; i <= full.length; i++) cuts.add(i)
    for (let i = 0; i < full.length; i += 251) cuts.add(i)
    for (const n of cuts) {
      const c = checkStoreExport(full.subarray(0, n), KILO)
      if (n >= end) assert.equal(c.status, 'healthy', `${sid} cut at ${n} keeps the whole document`)
      else assert.notEqual(c.class, 'intact', `${sid} cut at ${n} of ${full.length}`)
    }
  }
})

test('every frame of the WAL cut, at its start, inside its header and inside its page: zero false intact, the session that loses its turn never healthy', async () => {
  const {root, data, env} = home()
  try {
    const t = withTurnInWal(data)
    const wal = readFileSync(path.join(data, WAL))
    const shm = readFileSync(path.join(data, SHM))
    const frameSize = t.pageSize + 24
    const frames = t.commits.at(-1)!.frame
    const {readDatabase} = await import('../src/lib/formats/opencode-family/sqlite.js')
    const {walLoss} = await import('../src/lib/formats/opencode-family/wal.js')
    let checked = 0
    for (let f = 1; f <= frames; f++) {
      for (const into of [0, 10, 24, 2000]) {
        const cut = 32 + (f - 1) * frameSize + into
        writeFileSync(path.join(data, WAL), wal.subarray(0, cut))
        writeFileSync(path.join(data, SHM), shm)
        const facts = await readDatabase(data, DB, {tempPrefix: KILO.tempPrefix})
        assert.equal(facts.error, null)
        assert.ok(walLoss(facts.wal!, facts.shm) !== null, `cut at ${cut}: the loss is seen`)
        const chats = await scan(data, env.HOME!)
        const b = byId(chats, SESSION_B)
        assert.notEqual(gen(b, WAL).class, 'intact', `cut at ${cut}`)
        assert.equal(b.status, 'degraded', `cut at ${cut}: ${ids(b).join()}`)
        checked++
      }
    }
    assert.equal(checked, frames * 4)
  } finally {
    cleanup(root)
  }
})

test('every page of kilo.db cut (at its start and inside it): never healthy, never taken for another agent', async () => {
  const {root, data, env} = home()
  try {
    const db = readFileSync(path.join(data, DB))
    for (let at = 0; at < db.length; at += 4096) {
      for (const n of [at, at + 100]) {
        writeFileSync(path.join(data, DB), db.subarray(0, n))
        const chats = await scan(data, env.HOME!)
        assert.ok(chats.length > 0, `cut at ${n}`)
        for (const c of chats) {
          assert.equal(c.report.format, 'kilo')
          assert.notEqual(c.report.status, 'healthy', `cut at ${n}: ${c.report.id}`)
          assert.notEqual(gen(c.report, DB).class, 'intact', `cut at ${n}`)
        }
      }
    }
  } finally {
    cleanup(root)
  }
})

test('inspect --session and bundle: a session goes in as the database files and checks the same, plain or --redact (redacted on a private copy: test/redact-database.test.ts)', () => {
  const {root, data, env} = home()
  try {
    const i = runCli(['inspect', '--json', '--session', SESSION_A, data], {env})
    assert.equal(i.status, 0, i.stderr)
    const insp = (JSON.parse(i.stdout) as {inspection: {id: string; account: string}}).inspection
    assert.equal(insp.id, SESSION_A)
    assert.match(insp.account, /^The session lives in the database kilo\.db, which passes its integrity check \(read on a private copy\)\. kilo\.db-wal: 1483232 bytes, 360 frames/)
    assert.match(insp.account, /Nothing was lost\.$/)
    const out = path.join(root, 'kilo.tar.gz')
    const b = runCli(['bundle', '--json', '-o', out, data], {env})
    assert.equal(b.status, 0, b.stderr + b.stdout)
    const c = JSON.parse(runCli(['check', '--json', out], {env}).stdout) as {exitCode: number; chats: ChatReport[]}
    assert.equal(c.exitCode, 0)
    assert.deepEqual(c.chats.map((x) => `${x.format} ${x.id} ${x.status} ${x.contextTurns}`).sort(), [`kilo ${SESSION_B} healthy 2`, `kilo ${SESSION_A} healthy 5`])
    const redacted = path.join(root, 'redacted.tar.gz')
    const rr = runCli(['bundle', '--json', '--redact', '-o', redacted, data], {env})
    assert.equal(rr.status, 0, rr.stderr + rr.stdout)
    const rc = JSON.parse(runCli(['check', '--json', redacted], {env}).stdout) as {exitCode: number; chats: ChatReport[]}
    assert.equal(rc.exitCode, 0)
    assert.deepEqual(rc.chats.map((x) => `${x.format} ${x.id} ${x.status} ${x.contextTurns}`).sort(), [`kilo ${SESSION_B} healthy 2`, `kilo ${SESSION_A} healthy 5`])
  } finally {
    cleanup(root)
  }
})

test('hostile input: a symlinked kilo.db, a FIFO for its WAL, and a name that is not UTF-8: never followed, never blocking, one clear error each, the rest scanned', async () => {
  const {root, data, env} = home()
  try {
    const elsewhere = path.join(root, 'elsewhere.db')
    writeFileSync(elsewhere, readFileSync(path.join(data, DB)))
    rmSync(path.join(data, DB))
    symlinkSync(elsewhere, path.join(data, DB))
    let r = await scanPaths([data], {home: env.HOME!, env})
    assert.deepEqual(r.chats, [])
    assert.match(r.errors[0].message, /^not read: kilo\.db is not a regular file \(never read\)/)
    rmSync(path.join(data, DB))
    writeFileSync(path.join(data, DB), readFileSync(elsewhere))
    rmSync(path.join(data, WAL))
    assert.equal(spawnSync('mkfifo', [path.join(data, WAL)]).status, 0)
    r = await scanPaths([data], {home: env.HOME!, env})
    assert.deepEqual(r.chats, [])
    assert.match(r.errors[0].message, /kilo\.db-wal is not a regular file/)
    rmSync(path.join(data, WAL))
    writeFileSync(Buffer.from(path.join(data, 'odd-\xff-name.db'), 'latin1'), 'x')
    const cli = runCli(['scan', '--json', data], {env})
    assert.doesNotMatch(cli.stderr, /    at /)
    const report = JSON.parse(cli.stdout) as {chats: ChatReport[]}
    assert.equal(report.chats.length, 2)
  } finally {
    cleanup(root)
  }
})

test('inspect takes a session as scan names it (kilo.db#<session id>): the same inspection as --session; a chat id not in the store is a usage error', () => {
  const {root, data, env} = home()
  try {
    const byPath = runCli(['inspect', '--json', path.join(data, `${DB}#${SESSION_B}`)], {env})
    assert.equal(byPath.status, 0, byPath.stderr)
    const bySession = runCli(['inspect', '--json', '--session', SESSION_B, data], {env})
    const pick = (out: string) => (JSON.parse(out) as {inspection: {id: string; status: string; account: string}}).inspection
    assert.equal(pick(byPath.stdout).id, SESSION_B)
    assert.deepEqual(pick(byPath.stdout), pick(bySession.stdout))
    const human = runCli(['inspect', path.join(data, `${DB}#${SESSION_B}`)], {env})
    assert.equal(human.status, 0, human.stderr)
    assert.match(human.stdout, new RegExp(`kilo\\.db#${SESSION_B}`))
    const unknown = runCli(['inspect', path.join(data, `${DB}#ses_not_there`)], {env})
    assert.equal(unknown.status, 16, unknown.stderr)
    assert.match(unknown.stderr, /no chat with id ses_not_there in .*kilo\.db/)
  } finally {
    cleanup(root)
  }
})

const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p))
test(
  'as an unprivileged user (nobody, via setpriv): a kilo.db, or a WAL, it cannot read is one clear error (permission denied), exit 8, no stack trace, nothing written',
  {skip: process.getuid?.() === 0 && setpriv !== undefined ? false : 'needs root and setpriv to run the CLI as nobody (chmod does not stop root)'},
  () => {
    const {root, data, env} = home()
    try {
      spawnSync('chmod', ['-R', 'a+rX', root])
      chmodSync(path.join(root, 'tmp'), 0o777)
      const asNobody = (args: string[]) =>
        spawnSync(setpriv!, ['--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, path.join(REPO_ROOT, 'bin', 'run.js'), ...args], {cwd: '/', env: {...process.env, ...env, NO_COLOR: '1'}, encoding: 'utf8'})
      for (const name of [DB, WAL]) {
        chmodSync(path.join(data, name), 0o600)
        const before = hashTree(data)
        const r = asNobody(['scan', '--json', data])
        assert.equal(r.status, 8, `${name}: ${r.stderr}`)
        assert.doesNotMatch(r.stderr, /    at /)
        const report = JSON.parse(r.stdout) as {chats: ChatReport[]; errors: Array<{path: string; message: string}>}
        assert.deepEqual(report.errors, [{path: `~/${DATA}/${DB}`, message: 'not read: permission denied (run as a user who can read it)'}], name)
        assert.deepEqual(report.chats, [], `${name}: a store read only in part is not diagnosed`)
        const rep = asNobody(['repair', '-y', data])
        assert.equal(rep.status, 8, rep.stderr)
        assert.doesNotMatch(rep.stderr, /    at /)
        assert.deepEqual(hashTree(data), before, `${name}: nothing written`)
        assert.deepEqual(readdirSync(path.join(root, 'tmp')), [], 'no private copy left')
        chmodSync(path.join(data, name), 0o644)
      }
    } finally {
      cleanup(root)
    }
  },
)

test(
  "a WAL far above V8's largest string (600 MiB: its frames, then a sparse tail of NUL) is streamed: read frame by frame and hashed in chunks, in bounded memory; both sessions healthy with 5 and 2 turns",
  {skip: process.env.CHATDOCTOR_LARGE === '1' ? false : 'writes a 600 MiB WAL and its private copy: set CHATDOCTOR_LARGE=1'},
  async () => {
    const {root, data, env} = home()
    try {
      damage(data, WAL, (p) => truncateSync(p, 600 * 1024 * 1024))
      const before = process.resourceUsage().maxRSS
      const chats = await scan(data, env.HOME!)
      const grewKiB = process.resourceUsage().maxRSS - before
      assert.deepEqual(chats.map((c) => `${c.report.id} ${c.report.status} ${c.report.contextTurns}`).sort(), [`${SESSION_B} healthy 2`, `${SESSION_A} healthy 5`].sort())
      assert.equal(gen(byId(chats, SESSION_A), WAL).class, 'intact', 'the NUL tail after the frames SQLite reads is not a frame')
      assert.ok(grewKiB < 256 * 1024, `peak memory grew by ${grewKiB} KiB reading a 600 MiB WAL`)
    } finally {
      cleanup(root)
    }
  },
)

test('the adapter: its folder names, vocabulary and help are its own; nothing of it needs content read in place', () => {
  assert.equal(kilo.name, 'kilo')
  assert.equal(kilo.wantsContent('kilo.db'), false)
  assert.ok(kilo.help.roots.includes('~/.local/share/kilo'))
})

test('a store a newer Kilo migrated, with a damaged row: repairable from the known tables, but repair is report-only and writes nothing', () => {
  const {root, data, env} = home()
  try {
    writeStore(data, DB, (db) => {
      db.prepare('INSERT INTO migration (id, time_completed) VALUES (?, ?)').run('29991231000000_newer_schema', Date.UTC(2026, 11, 1, 9, 0, 0))
      db.prepare("UPDATE part SET data = 'not json' WHERE id = (SELECT id FROM part WHERE session_id = ? ORDER BY id LIMIT 1)").run(SESSION_B)
    })
    const before = hashTree(data)
    const scan = JSON.parse(runCli(['scan', '--json', data], {env}).stdout) as {chats: ChatReport[]}
    const b = scan.chats.find((c) => c.id === SESSION_B)!
    assert.equal(b.status, 'repairable')
    assert.deepEqual(gen(b, DB).reasons, ['unsupported-version'])
    assert.ok(b.findings.some((f) => f.id === 'store-newer'))
    const r = runCli(['repair', '--json', data], {env})
    const rb = (JSON.parse(r.stdout) as {chats: Repaired[]}).chats.find((c) => c.id === SESSION_B)!
    assert.deepEqual(rb.actions, [])
    assert.match(rb.repair.message!, /^report-only: kilo\.db was written by a newer Kilo than chatdoctor knows/)
    assert.doesNotMatch(rb.repair.message!, /\.recover/, 'no manual steps that would rewrite the store')
    assert.deepEqual(hashTree(data), before, 'repair wrote nothing in the data dir')
  } finally {
    cleanup(root)
  }
})
