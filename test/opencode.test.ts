/**
 * OpenCode: scan of the JSON tree (1.1.65) and the SQLite store (1.18.33) written by OpenCode
 * itself, damaged copies of them, export checks, export from the tree, the repair planner.
 */
import assert from 'node:assert/strict'
import {cpSync, readFileSync, rmSync, unlinkSync, writeFileSync, mkdirSync, openSync, writeSync, closeSync, readdirSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {test} from 'node:test'
import {readChat} from '../src/lib/pipeline/inventory.js'
import type {ChatReport} from '../src/lib/model/report.js'
import {scanPaths, type ScannedChat} from '../src/lib/pipeline/scan.js'
import {checkExport, exportFromTree, ExportRefused} from '../src/lib/formats/opencode/export.js'
import {opencode} from '../src/lib/formats/opencode/index.js'
import {defaultRoots} from '../src/lib/formats/opencode/layout.js'
import {planTreeRepair} from '../src/lib/formats/opencode/plan.js'
import {listStore} from '../src/lib/formats/opencode/store.js'
import {REALDATA, cleanup, copyWritable, cutAt, hashTree, runCli, tempDir, zeroFill} from './helpers/fixtures.js'

const OC = path.join(REALDATA, 'opencode')
const TREE = path.join(OC, '1.1.65', 'data', 'opencode')
const DB = path.join(OC, '1.18.33', 'data', 'opencode')
const PROJECT = 'dfa7b73011a5aa73687463da673751ea81200147'
/** The session OpenCode 1.1.65 wrote through its API (4 user turns, 2 assistant messages, 2 bash calls). */
const API = 'ses_dd6249cf0ffevk8ay20nf1cCNR'
/** The session OpenCode imported from the synthetic export (2 user turns, 3 assistant messages, read + edit). */
const FIX = 'ses_fixture0000000000000000000'

/** Copies a real data dir to `<root>/.local/share/opencode` (writable) and returns it. */
function copyStore(src: string, root: string): string {
  return copyWritable(src, path.join(root, '.local', 'share', 'opencode'))
}

const opts = (home: string) => ({home, env: {}, adapters: [opencode]})
const byId = (chats: ScannedChat[], id: string): ChatReport => {
  const c = chats.find((x) => x.report.id === id)
  assert.ok(c, `no chat ${id} among ${chats.map((x) => x.report.id).join(', ')}`)
  return c.report
}
const gen = (r: ChatReport, file: string) => r.generations.find((g) => g.file === file)
const ids = (r: ChatReport) => r.findings.map((f) => f.id).sort()
const sessionRel = (sid: string) => `storage/session/${PROJECT}/${sid}.json`

async function scanStore(dataDir: string, home: string) {
  return scanPaths([dataDir], opts(home))
}

async function snapshotOf(dataDir: string, sid: string) {
  const listed = await listStore(dataDir)
  const unit = listed.chats.find((u) => (u.facts as {sessionId?: string}).sessionId === sid)
  assert.ok(unit)
  return readChat(unit, opencode)
}

test('opencode data dir: $XDG_DATA_HOME/opencode, else ~/.local/share/opencode', () => {
  assert.deepEqual(defaultRoots('/home/u', {}), ['/home/u/.local/share/opencode'])
  assert.deepEqual(defaultRoots('/home/u', {XDG_DATA_HOME: '/x/data'}), ['/x/data/opencode'])
  assert.deepEqual(defaultRoots('/home/u', {XDG_DATA_HOME: 'relative'}), ['/home/u/.local/share/opencode'])
})

test('scan (built CLI) lists the sessions of the real 1.1.65 JSON tree and the real 1.18.33 database as healthy', () => {
  for (const [dir, version] of [[TREE, '1.1.65'], [path.join(OC, '1.18.33'), '1.18.33']] as const) {
    const r = runCli(['scan', '--json', dir])
    assert.equal(r.status, 0, r.stderr)
    const report = JSON.parse(r.stdout)
    assert.equal(report.summary.chats, 2, version)
    assert.equal(report.summary.healthy, 2, version)
    assert.equal(report.summary.degraded, 0)
    const api = report.chats.find((c: ChatReport) => c.id.startsWith('ses_dd62'))
    assert.equal(api.format, 'opencode')
    assert.deepEqual(api.context, {userTurns: 4, assistantMessages: 2, messages: 6, parts: 6, toolCompleted: 2, toolPending: 0, toolError: 0, compactionParts: 0})
    const fix = report.chats.find((c: ChatReport) => c.id === FIX)
    assert.deepEqual(fix.context, {userTurns: 2, assistantMessages: 3, messages: 5, parts: 13, toolCompleted: 2, toolPending: 0, toolError: 0, compactionParts: 0})
    assert.equal(fix.contextTurns, 2)
  }
})

test('scan of a HOME finds the OpenCode data dir under .local/share; tree files are classified one by one', async () => {
  const root = tempDir()
  try {
    copyStore(TREE, root)
    const r = await scanPaths([root], opts(root))
    assert.equal(r.chats.length, 2)
    const api = byId(r.chats, API)
    assert.equal(api.status, 'healthy')
    assert.equal(api.winner, sessionRel(API))
    assert.equal(api.generations.length, 1 + 6 + 6)
    assert.deepEqual([...new Set(api.generations.map((g) => g.role))].sort(), ['message', 'part', 'primary'])
    assert.ok(api.generations.every((g) => g.class === 'intact' && g.sha256 !== null))
    assert.equal(r.chats[0].report.path.startsWith('~/.local/share/opencode/storage/session/'), true)
  } finally {
    cleanup(root)
  }
})

test('the database is diagnosed on a private copy: the original bytes and mtimes do not change, no temp copy is left', async () => {
  const root = tempDir()
  try {
    const data = copyStore(DB, root)
    const before = hashTree(data)
    const realBefore = hashTree(DB)
    const tmpBefore = readdirSync(path.dirname(root)).filter((n) => n.startsWith('chatdoctor-opencode-db-'))
    const r = await scanStore(data, root)
    await scanStore(DB, root)
    assert.equal(r.chats.length, 2)
    assert.deepEqual(hashTree(data), before)
    assert.deepEqual(hashTree(DB), realBefore)
    assert.deepEqual(readdirSync(path.dirname(root)).filter((n) => n.startsWith('chatdoctor-opencode-db-')), tmpBefore)
    const api = byId(r.chats, 'ses_dd624f00affeLQd9JRo5aavtt0')
    assert.equal(api.status, 'healthy')
    assert.deepEqual(api.generations.map((g) => [g.file, g.role]), [['opencode.db', 'database'], ['opencode.db-shm', 'database'], ['opencode.db-wal', 'database']])
  } finally {
    cleanup(root)
  }
})

test('0-byte part (B01): class empty, session repairable; the plan moves that part only', async () => {
  const root = tempDir()
  try {
    const data = copyStore(TREE, root)
    const rel = 'storage/part/msg_01a22a125192fixture000003/prt_01a22a125194fixture000005.json'
    writeFileSync(path.join(data, rel), '')
    const r = await scanStore(data, root)
    const fix = byId(r.chats, FIX)
    assert.equal(fix.status, 'repairable')
    assert.equal(gen(fix, rel)?.class, 'empty')
    assert.deepEqual(ids(fix), ['part-damaged'])
    assert.equal(fix.context?.parts, 12)
    assert.equal(byId(r.chats, API).status, 'healthy')
    const plan = planTreeRepair(FIX, (await snapshotOf(data, FIX)).files)
    assert.deepEqual(plan.moves.map((m) => [m.file, m.why, m.bytes]), [[rel, 'damaged-part', 0]])
    assert.deepEqual(plan.loss.parts, ['prt_01a22a125194fixture000005'])
    assert.deepEqual(plan.loss.messages, [])
    assert.equal(plan.loss.after.parts, 12)
    assert.equal(plan.statusAfter, 'healthy')
  } finally {
    cleanup(root)
  }
})

test('NUL-filled session file (B04): zero-filled, the session is unrecoverable, the plan moves it; the other session stays healthy', async () => {
  const root = tempDir()
  try {
    const data = copyStore(TREE, root)
    const rel = sessionRel(API)
    writeFileSync(path.join(data, rel), zeroFill(readFileSync(path.join(data, rel))))
    const r = await scanStore(data, root)
    const api = byId(r.chats, API)
    assert.equal(api.status, 'unrecoverable')
    assert.equal(gen(api, rel)?.class, 'zero-filled')
    assert.deepEqual(gen(api, rel)?.damage, {offset: 0, length: 314})
    assert.deepEqual(ids(api), ['primary-damaged'])
    assert.equal(api.winner, null)
    assert.equal(api.context?.userTurns, 4)
    assert.equal(byId(r.chats, FIX).status, 'healthy')
    const plan = planTreeRepair(API, (await snapshotOf(data, API)).files)
    assert.deepEqual(plan.moves.map((m) => [m.file, m.why]), [[rel, 'damaged-session']])
    assert.equal(plan.loss.sessionListed, false)
    assert.equal(plan.statusAfter, 'unrecoverable')
  } finally {
    cleanup(root)
  }
})

test('torn message: truncated; the plan moves the message and its 4 parts and says what the session loses', async () => {
  const root = tempDir()
  try {
    const data = copyStore(TREE, root)
    const mid = 'msg_01a22a125192fixture000003'
    const rel = `storage/message/${FIX}/${mid}.json`
    const buf = readFileSync(path.join(data, rel))
    writeFileSync(path.join(data, rel), cutAt(buf, 300))
    const r = await scanStore(data, root)
    const fix = byId(r.chats, FIX)
    assert.equal(fix.status, 'repairable')
    assert.equal(gen(fix, rel)?.class, 'truncated')
    assert.deepEqual(gen(fix, rel)?.reasons, ['unexpected-end'])
    assert.deepEqual(ids(fix), ['message-damaged'])
    assert.equal(fix.context?.assistantMessages, 2)
    const plan = planTreeRepair(FIX, (await snapshotOf(data, FIX)).files)
    assert.deepEqual(plan.moves.map((m) => m.why), ['damaged-message', 'parts-of-damaged-message', 'parts-of-damaged-message', 'parts-of-damaged-message', 'parts-of-damaged-message'])
    assert.deepEqual(plan.loss.messages, [mid])
    assert.deepEqual(plan.loss.parts, ['prt_01a22a125193fixture000004', 'prt_01a22a125194fixture000005', 'prt_01a22a125195fixture000006', 'prt_01a22a125196fixture000007'])
    // The torn message's parts were already out of the readable context.
    assert.deepEqual(plan.loss.before, {userTurns: 2, assistantMessages: 2, messages: 4, parts: 9, toolCompleted: 1, toolPending: 0, toolError: 0, compactionParts: 0})
    assert.deepEqual(plan.loss.after, {userTurns: 2, assistantMessages: 2, messages: 4, parts: 9, toolCompleted: 1, toolPending: 0, toolError: 0, compactionParts: 0})
    assert.equal(plan.statusAfter, 'healthy')
  } finally {
    cleanup(root)
  }
})

test('deleted session file: still a chat, keyed by the id in its message folder; primary missing, unrecoverable', async () => {
  const root = tempDir()
  try {
    const data = copyStore(TREE, root)
    unlinkSync(path.join(data, sessionRel(FIX)))
    const r = await scanStore(data, root)
    const fix = byId(r.chats, FIX)
    assert.equal(fix.status, 'unrecoverable')
    assert.equal(fix.path, `~/.local/share/opencode/storage/message/${FIX}`)
    assert.deepEqual(ids(fix), ['primary-missing'])
    assert.equal(gen(fix, `storage/session/*/${FIX}.json`)?.class, 'missing')
    assert.equal(fix.context?.userTurns, 2)
    assert.equal(r.chats.length, 2)
  } finally {
    cleanup(root)
  }
})

test('dangling parts (message file gone): given to the session named inside them, degraded (exit bit 4); not moved', async () => {
  const root = tempDir()
  try {
    const data = copyStore(TREE, root)
    const mid = 'msg_229db63e6001N4leL36LAxUMBq'
    unlinkSync(path.join(data, `storage/message/${API}/${mid}.json`))
    // And a part under a message that never existed, naming no readable session.
    mkdirSync(path.join(data, 'storage/part/msg_229db63e7001zzzzzzzzzzzzzzzz'))
    writeFileSync(path.join(data, 'storage/part/msg_229db63e7001zzzzzzzzzzzzzzzz/prt_229db63e7002zzzzzzzzzzzzzzzz.json'), Buffer.alloc(50))
    const r = await scanStore(data, root)
    const api = byId(r.chats, API)
    assert.equal(api.status, 'degraded')
    assert.deepEqual(ids(api), ['orphan-parts'])
    assert.equal(api.context?.assistantMessages, 1)
    const lost = byId(r.chats, 'unattributed')
    assert.equal(lost.status, 'unrecoverable')
    assert.deepEqual(ids(lost), ['orphan-parts', 'part-damaged'])
    const plan = planTreeRepair(API, (await snapshotOf(data, API)).files)
    assert.deepEqual(plan.moves, [])
    assert.deepEqual(plan.loss.parts, ['prt_229db63e6002SgT0SMY2zGncwW'])
    assert.equal(plan.statusAfter, 'degraded')
    const cli = runCli(['scan', '--json', data])
    assert.equal(cli.status, 4)
    assert.equal(JSON.parse(cli.stdout).summary.degraded, 1)
  } finally {
    cleanup(root)
  }
})

test('a completed tool part without its output: degraded, tool-output-missing', async () => {
  const root = tempDir()
  try {
    const data = copyStore(TREE, root)
    const rel = 'storage/part/msg_229db63c1002e0u4ttXVF536iM/prt_229db63c4001OR95sbYlySnb5t.json'
    const v = JSON.parse(readFileSync(path.join(data, rel), 'utf8'))
    delete v.state.output
    writeFileSync(path.join(data, rel), JSON.stringify(v, null, 2))
    const api = byId((await scanStore(data, root)).chats, API)
    assert.equal(api.status, 'degraded')
    assert.deepEqual(ids(api), ['tool-output-missing'])
    assert.equal(api.findings[0].file, rel)
  } finally {
    cleanup(root)
  }
})

/** Checkpoints a copy of the database (so every page is in the main file) and fills the root page of `table`. */
function corruptPage(dataDir: string, table: string): void {
  const Database = createRequire(import.meta.url)('better-sqlite3')
  const file = path.join(dataDir, 'opencode.db')
  const db = new Database(file)
  db.pragma('wal_checkpoint(TRUNCATE)')
  const pageSize = db.pragma('page_size', {simple: true}) as number
  const root = db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').pluck().get(table) as number
  db.close()
  rmSync(`${file}-wal`, {force: true})
  rmSync(`${file}-shm`, {force: true})
  const fd = openSync(file, 'r+')
  writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (root - 1) * pageSize)
  closeSync(fd)
}

test('corrupted database page: integrity check fails, sessions still listed from the readable tables, repairable', async () => {
  const root = tempDir()
  try {
    const data = copyStore(DB, root)
    corruptPage(data, 'part')
    const before = hashTree(data)
    const r = await scanStore(data, root)
    assert.deepEqual(hashTree(data), before)
    assert.equal(r.chats.length, 2)
    for (const c of r.chats) {
      assert.equal(c.report.status, 'repairable')
      assert.deepEqual(ids(c.report), ['database-damaged', 'database-damaged'])
      assert.match(c.report.findings[0].message, /malformed/)
    }
    assert.equal(byId(r.chats, 'ses_dd624f00affeLQd9JRo5aavtt0').context?.messages, 6)
  } finally {
    cleanup(root)
  }
})

test('a database that cannot be opened is one unrecoverable chat; the scan goes on', async () => {
  const root = tempDir()
  try {
    const data = copyStore(DB, root)
    writeFileSync(path.join(data, 'opencode.db'), zeroFill(readFileSync(path.join(data, 'opencode.db'))).subarray(0, 100).fill(0x41))
    rmSync(path.join(data, 'opencode.db-wal'))
    const r = await scanStore(data, root)
    assert.equal(r.chats.length, 1)
    assert.equal(r.chats[0].report.id, 'opencode.db')
    assert.equal(r.chats[0].report.status, 'unrecoverable')
    assert.deepEqual(ids(r.chats[0].report), ['database-unreadable'])
  } finally {
    cleanup(root)
  }
})

test('a legacy JSON tree beside the database: sessions only in the tree are a finding; sessions in both are an older generation', async () => {
  const root = tempDir()
  try {
    const data = copyStore(DB, root)
    cpSync(path.join(TREE, 'storage'), path.join(data, 'storage'), {recursive: true})
    const r = await scanStore(data, root)
    assert.equal(r.chats.length, 3)
    const api = byId(r.chats, API)
    assert.equal(api.status, 'repairable')
    assert.deepEqual(ids(api), ['not-in-database'])
    assert.match(api.findings[0].message, /1\.18\.33/)
    const fix = byId(r.chats, FIX)
    assert.equal(fix.status, 'healthy')
    assert.deepEqual(fix.findings, [])
    assert.equal(gen(fix, sessionRel(FIX))?.role, 'backup')
  } finally {
    cleanup(root)
  }
})

test("exportFromTree on the 1.1.65 tree deep-equals OpenCode's own export (and matches its bytes pretty-printed)", () => {
  for (const sid of [API, FIX]) {
    const text = readFileSync(path.join(OC, '1.1.65', `export-${sid}.json`), 'utf8')
    const e = exportFromTree(TREE, sid)
    assert.deepEqual(e.document, JSON.parse(text))
    assert.equal(JSON.stringify(e.document, null, 2) + '\n', text)
    assert.deepEqual(e.omitted, [])
  }
})

test('exportFromTree refuses a session over the size cap, a missing session and a damaged session file; leaves out damaged parts', () => {
  assert.throws(() => exportFromTree(TREE, FIX, 1000), (e: unknown) => e instanceof ExportRefused && e.reason === 'too-large')
  assert.throws(() => exportFromTree(TREE, 'ses_nosuchsession000000000000'), (e: unknown) => e instanceof ExportRefused && e.reason === 'no-session')
  const root = tempDir()
  try {
    const data = copyStore(TREE, root)
    const part = 'storage/part/msg_01a22a125197fixture000008/prt_01a22a125199fixture000010.json'
    writeFileSync(path.join(data, part), Buffer.alloc(40))
    const e = exportFromTree(data, FIX)
    assert.deepEqual(e.omitted, [part])
    assert.equal(e.document.messages[2].parts.length, 3)
    assert.equal(checkExport(Buffer.from(JSON.stringify(e.document))).ok, true)
    writeFileSync(path.join(data, sessionRel(FIX)), '{"id": "ses_fix')
    assert.throws(() => exportFromTree(data, FIX), (e: unknown) => e instanceof ExportRefused && e.reason === 'session-damaged')
  } finally {
    cleanup(root)
  }
})

test("checkExport passes OpenCode's own exports of 1.1.65 and 1.18.33", () => {
  for (const v of ['1.1.65', '1.18.33']) {
    for (const name of readdirSync(path.join(OC, v)).filter((n) => n.startsWith('export-'))) {
      const c = checkExport(readFileSync(path.join(OC, v, name)))
      assert.equal(c.ok, true, `${v}/${name}: ${JSON.stringify(c.findings)}`)
      assert.equal(c.status, 'healthy')
      assert.equal(c.version, v)
      assert.deepEqual(c.findings, [])
    }
  }
  const c = checkExport(readFileSync(path.join(OC, '1.18.33', `export-${FIX}.json`)))
  assert.deepEqual(c.context, {userTurns: 2, assistantMessages: 3, messages: 5, parts: 13, toolCompleted: 2, toolPending: 0, toolError: 0, compactionParts: 0})
})

test('checkExport: a lone surrogate escape in a part of an export is kept, healthy, with a warning naming the part and the field (B20)', () => {
  const src = readFileSync(path.join(OC, '1.18.33', `export-${FIX}.json`)).toString('utf8')
  const doc = JSON.parse(src) as {messages: Array<{info: {id: string; role: string}; parts: Array<{id: string; type: string; text?: string}>}>}
  const m = [...doc.messages].reverse().find((x) => x.info.role === 'assistant' && x.parts.some((q) => q.type === 'text'))!
  const p = m.parts.find((x) => x.type === 'text')!
  // The text's JSON string as the export prints it, with the six characters \ud83c before its closing quote.
  const quoted = JSON.stringify(p.text)
  const at = src.indexOf(quoted)
  assert.ok(at > 0)
  const damaged = src.slice(0, at + quoted.length - 1) + '\\ud83c' + src.slice(at + quoted.length - 1)
  const c = checkExport(Buffer.from(damaged))
  assert.equal(c.class, 'intact')
  assert.equal(c.status, 'healthy')
  assert.deepEqual(c.findings.map((f) => [f.id, f.severity]), [['lone-surrogate', 'warning']])
  assert.match(c.findings[0].message, new RegExp(`^1 record holds a lone surrogate escape .*part ${p.id} of message ${m.info.id} \\(text\\)`))
  assert.deepEqual(checkExport(Buffer.from(src)).findings, [], 'the undamaged export holds none')
})

test('checkExport fails damaged exports with a readable finding', () => {
  const src = readFileSync(path.join(OC, '1.18.33', `export-${FIX}.json`))
  const doc = () => JSON.parse(src.toString('utf8'))
  const check = (v: unknown) => checkExport(Buffer.from(JSON.stringify(v)))

  const torn = checkExport(cutAt(src, 4000))
  assert.equal(torn.class, 'truncated')
  assert.equal(torn.ok, false)
  assert.deepEqual(torn.findings.map((f) => f.id), ['export-damaged'])
  assert.match(torn.findings[0].message, /truncated \(unexpected-end\), damage from byte 4000 of 4000/)
  assert.equal(checkExport(Buffer.alloc(0)).class, 'empty')
  assert.equal(checkExport(zeroFill(src)).class, 'zero-filled')

  const invalid = check({info: {id: 'ses_x'}, messages: []})
  assert.deepEqual(invalid.findings.map((f) => f.id), ['export-invalid'])
  assert.equal(invalid.status, 'unrecoverable')

  const noOutput = doc()
  delete noOutput.messages[1].parts[2].state.output
  const d = check(noOutput)
  assert.equal(d.status, 'degraded')
  assert.equal(d.ok, false)
  assert.deepEqual(d.findings.map((f) => f.id), ['tool-output-missing'])

  const dup = doc()
  dup.messages[2].parts[0].id = dup.messages[1].parts[0].id
  assert.deepEqual(check(dup).findings.map((f) => f.id), ['duplicate-id'])

  const moved = doc()
  moved.messages[2].parts[0].messageID = moved.messages[1].info.id
  assert.deepEqual(check(moved).findings.map((f) => f.id), ['part-link'])

  const swapped = doc()
  ;[swapped.messages[0], swapped.messages[1]] = [swapped.messages[1], swapped.messages[0]]
  assert.deepEqual(check(swapped).findings.map((f) => f.id).sort(), ['role-order', 'role-order'])

  const orphan = doc()
  orphan.messages[1].info.parentID = 'msg_01a22a11fe76nosuchmessage0'
  assert.deepEqual(check(orphan).findings.map((f) => f.id), ['parent-missing'])

  const partless = doc()
  partless.messages[3].parts = []
  assert.deepEqual(check(partless).findings.map((f) => f.id), ['message-without-parts'])
})
