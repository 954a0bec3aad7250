/**
 * `repair` and `undo` on Claude Code and Codex session logs and on OpenCode's JSON tree and SQLite
 * store, through the built CLI as a user runs it, on damaged copies of the real files in
 * shared/realdata (the originals are hashed before and after and must not change).
 *
 * Each reported damage kind is its own chat in one tree (several Claude Code sessions share one project
 * folder, several OpenCode sessions one data dir): dry run writes nothing and its plan equals the executed
 * actions over (type, from, to, sha256); the repaired log is exactly the original minus the allowed byte
 * changes (every other line byte-identical); moved files are in the evidence folder, byte for byte; a second
 * run writes nothing and exits with the first code minus bits 1 and 2; undo restores the exact tree.
 */
import assert from 'node:assert/strict'
import {closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, writeSync, appendFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {test} from 'node:test'
import {Ajv2020} from 'ajv/dist/2020.js'
import {applyChat} from '../src/lib/pipeline/apply.js'
import {RecordingFileSystem, nodeFileSystem} from '../src/lib/fsio/fs.js'
import {planChat} from '../src/lib/pipeline/plan.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {undoRepair} from '../src/lib/pipeline/undo.js'
import {REALDATA, REPO_ROOT, cleanup, copyWritable, hashTree, runCli, setMtime, sha256, tempDir, zeroFill, assertSameTree} from './helpers/fixtures.js'
import {LF, PUBLIC, REAL_SESSIONS, body, join, linesOf, read, zstdStored} from './helpers/sessions.js'

interface Change {
  kind: string
  line: number
  bytesRemoved: number
  bytesAdded?: number
  linesJoined?: number
  relink?: {from: string; to: string}
}
interface Action {
  type: string
  from: string | null
  to: string
  sha256: string | null
  evidence: string | null
  changes?: Change[]
  why?: string
}
interface Chat {
  path: string
  format: string
  id: string
  status: string
  winner: string | null
  actions: Action[]
  repair: {outcome: string; message: string | null; evidence: string | null; undo: string | null; statusAfter?: string; lost?: {messages: string[]; parts: string[]; sessionListed: boolean; after: {parts: number; messages: number}}}
}
interface RepairReport {
  exitCode: number
  repairId: string | null
  dryRun: boolean
  chats: Chat[]
}

const validate = new Ajv2020({allErrors: true, strict: false}).compile(JSON.parse(readFileSync(path.join(REPO_ROOT, 'schemas', 'report.schema.json'), 'utf8')))

function run(args: string[], env: NodeJS.ProcessEnv): RepairReport {
  const r = runCli([...args, '--json'], {env})
  const report = JSON.parse(r.stdout) as RepairReport
  assert.ok(validate(report), JSON.stringify(validate.errors))
  assert.equal(report.exitCode, r.status, r.stderr)
  return report
}

/** The user's part of a sandbox tree (`home/`, `stores/`) without chatdoctor's own folders. */
function userTree(t: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(t).filter(([k]) => /^(home|stores)(\/|$)/.test(k) && !k.split(path.sep).includes('.chatdoctor')))
}


const key = (a: Action) => JSON.stringify([a.type, a.from, a.to, a.sha256])

/** Gives every entry under `dir` a fixed, distinct mtime (copies keep none), folders last. */
function settle(dir: string, base = Date.UTC(2026, 5, 5, 12, 0, 0)): void {
  let i = 0
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = path.join(d, n)
      if (statSync(p).isDirectory()) walk(p)
      else setMtime(p, base + i++ * 1000)
    }
    setMtime(d, base + 10_000_000 + i++ * 1000)
  }
  walk(dir)
}

/**
 * What the repair must make of a log whose lines `drop` (0-based) are lost: those lines gone, every kept record
 * whose `parentUuid` named a lost record re-linked to the record before it (same side-chain), nothing else
 * changed. `lines` are the original lines with their line endings, `lost` the uuids of the lost records.
 */
function expectedRepair(lines: Buffer[], drop: Set<number>, lost: Set<string>): Buffer {
  const out: Buffer[] = []
  let prev: string | null = null
  lines.forEach((l, i) => {
    if (drop.has(i)) return
    const v = JSON.parse(body(l).toString('utf8')) as {uuid?: string; parentUuid?: string}
    let b = l
    if (typeof v.parentUuid === 'string' && lost.has(v.parentUuid) && prev !== null) b = Buffer.from(l.toString('utf8').replace(`"parentUuid":"${v.parentUuid}"`, `"parentUuid":"${prev}"`))
    out.push(b)
    if (typeof v.uuid === 'string') prev = v.uuid
  })
  return join(out)
}

const uuidOf = (l: Buffer) => (JSON.parse(body(l).toString('utf8')) as {uuid: string}).uuid

const CODEX_NAME = 'rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl'
const OC = path.join(REALDATA, 'opencode')
const TREE = path.join(OC, '1.1.65', 'data', 'opencode')
const DB = path.join(OC, '1.18.33', 'data', 'opencode')
const PROJECT = 'dfa7b73011a5aa73687463da673751ea81200147'
const API = 'ses_dd6249cf0ffevk8ay20nf1cCNR'
const FIX = 'ses_fixture0000000000000000000'

/** Copies a real OpenCode data dir to `dest` (writable). */
const copyStore = (src: string, dest: string): string => copyWritable(src, dest)

const originals = {public: hashTree(PUBLIC), opencode: hashTree(OC)}

test('Claude Code, Codex and OpenCode: every reported damage kind repaired, dry run == executed, second run writes nothing, undo restores the exact tree', () => {
  const root = tempDir()
  try {
    const env = {HOME: path.join(root, 'home'), XDG_STATE_HOME: path.join(root, 'state')}
    // --- Claude Code: one project folder, one session per damage kind.
    const proj = path.join(root, 'home', '.claude', 'projects', '-work-demo')
    mkdirSync(proj, {recursive: true})
    const S = linesOf(read(REAL_SESSIONS.claude.short))
    const J = linesOf(read(REAL_SESSIONS.claude.openTool))
    const mb = body(J[5])
    const cutAt = mb.findIndex((b) => b >= 0xc0) + 1 // after the first byte of a multi-byte character
    assert.ok(cutAt > 0 && cutAt < mb.length)
    const claude: Record<string, {bytes: Buffer; expected: Buffer; kinds: string[]}> = {
      'torn.jsonl': {bytes: join([...S.slice(0, 14), body(S[14]).subarray(0, 100)]), expected: join(S.slice(0, 14)), kinds: ['drop-torn-tail']},
      'nul.jsonl': {bytes: join([...S.slice(0, 6), Buffer.alloc(512), LF, ...S.slice(6)]), expected: join(S), kinds: ['strip-nul']},
      'nulrun.jsonl': {bytes: join([...S.slice(0, 6), Buffer.alloc(300), ...S.slice(6)]), expected: join(S), kinds: ['strip-nul']},
      'interleaved.jsonl': {bytes: join([...S.slice(0, 6), body(S[6]).subarray(0, 70), ...S.slice(7)]), expected: expectedRepair(S, new Set([6]), new Set([uuidOf(S[6])])), kinds: ['drop-line']},
      'multibyte.jsonl': {bytes: join([...J.slice(0, 5), mb.subarray(0, cutAt), LF, ...J.slice(6)]), expected: expectedRepair(J, new Set([5]), new Set([uuidOf(J[5])])), kinds: ['drop-line']},
      'split.jsonl': {bytes: join([...S.slice(0, 6), Buffer.from(S[6].toString().replace('"text":"', '"text":"\n')), ...S.slice(7)]), expected: join([...S.slice(0, 6), Buffer.from(S[6].toString().replace('"text":"', '"text":"\\n')), ...S.slice(7)]), kinds: ['rejoin-lines']},
      'chain.jsonl': {bytes: join([...S.slice(0, 12), ...S.slice(13)]), expected: expectedRepair(S, new Set([12]), new Set([uuidOf(S[12])])), kinds: ['relink-parent']},
    }
    // The interleaved line keeps the complete record after the cut one: the planner reports it as a split.
    claude['interleaved.jsonl'].kinds = ['split-line', 'relink-parent']
    claude['multibyte.jsonl'].kinds = ['drop-line', 'relink-parent']
    for (const [n, c] of Object.entries(claude)) writeFileSync(path.join(proj, n), c.bytes)
    // A lone surrogate escape is no damage: JSON.parse and the agent read the record; repair leaves it.
    const surrogate = join([...S.slice(0, 6), Buffer.from(S[6].toString().replace('"text":"', '"text":"\\udc9f')), ...S.slice(7)])
    writeFileSync(path.join(proj, 'surrogate.jsonl'), surrogate)
    // --- Codex: a BOM before the header; a plain log without its header beside an intact .zst; a .zst alone whose log is torn.
    const day = path.join(root, 'home', '.codex', 'sessions', '2026', '06', '05')
    mkdirSync(day, {recursive: true})
    const full = read(REAL_SESSIONS.codex.kvsankar)
    const CX = linesOf(full)
    const bomName = `rollout-bom-${CODEX_NAME.slice(8)}`
    const zstName = `rollout-zst-${CODEX_NAME.slice(8)}`
    const zstOnly = `rollout-zstonly-${CODEX_NAME.slice(8)}`
    writeFileSync(path.join(day, bomName), join([Buffer.from([0xef, 0xbb, 0xbf]), full]))
    writeFileSync(path.join(day, zstName), join(CX.slice(1)))
    writeFileSync(path.join(day, zstName + '.zst'), zstdStored(full))
    writeFileSync(path.join(day, zstOnly + '.zst'), zstdStored(join([...CX.slice(0, 10), body(CX[10]).subarray(0, 30)])))
    // --- OpenCode: two copies of the real 1.1.65 tree.
    const oc1 = copyStore(TREE, path.join(root, 'stores', 'a', 'opencode'))
    const oc2 = copyStore(TREE, path.join(root, 'stores', 'b', 'opencode'))
    const zeroPart = `storage/part/msg_01a22a125192fixture000003/prt_01a22a125194fixture000005.json`
    writeFileSync(path.join(oc1, zeroPart), '') // 0-byte part (B01) in FIX
    const apiSession = `storage/session/${PROJECT}/${API}.json`
    writeFileSync(path.join(oc1, apiSession), zeroFill(readFileSync(path.join(oc1, apiSession)))) // NUL-filled session file (B04)
    const tornMsg = `storage/message/${FIX}/msg_01a22a125192fixture000003.json`
    writeFileSync(path.join(oc2, tornMsg), readFileSync(path.join(oc2, tornMsg)).subarray(0, 300)) // torn message
    rmSync(path.join(oc2, `storage/message/${API}/msg_229db63e6001N4leL36LAxUMBq.json`)) // dangling part
    for (const d of [proj, path.join(root, 'home', '.codex'), oc1, oc2]) settle(d)

    const paths = [proj, path.join(root, 'home', '.codex'), oc1, oc2]
    const before = hashTree(root)

    // Dry run: read-only, the plan.
    const dry = run(['repair', '--dry-run', ...paths], env)
    assert.deepEqual(hashTree(root), before, 'dry run wrote nothing')
    assert.equal(dry.repairId, null)
    const byName = (r: RepairReport) => Object.fromEntries(r.chats.map((c) => [c.format === 'opencode' ? `${c.path.includes('/a/') ? 'a' : 'b'}:${c.id}` : path.basename(c.path), c]))

    // Repair.
    const rep = run(['repair', ...paths], env)
    assert.ok(rep.repairId)
    const d = byName(dry)
    const r = byName(rep)
    assert.deepEqual(Object.keys(r).sort(), Object.keys(d).sort())
    for (const [n, c] of Object.entries(r)) assert.deepEqual(c.actions.map(key), d[n].actions.map(key), `${n}: dry-run plan == executed actions`)

    // Claude Code: exactly the allowed changes, every other line byte-identical; the log's mtime kept.
    for (const [n, c] of Object.entries(claude)) {
      const chat = r[n]
      assert.equal(chat.repair.outcome, 'repaired', `${n}: ${chat.repair.message}`)
      assert.deepEqual(chat.actions.map((a) => a.type), ['preserve', 'rewrite', 'restore-mtime'], n)
      const now = readFileSync(path.join(proj, n))
      assert.ok(now.equals(c.expected), `${n}: repaired bytes are the original minus the allowed changes`)
      assert.equal(chat.actions[1].sha256, sha256(c.expected))
      assert.deepEqual(chat.actions[1].changes!.map((x) => x.kind), c.kinds, n)
      assert.ok(readFileSync(chat.actions[0].evidence!.replace(/^~/, env.HOME)).equals(c.bytes), `${n}: evidence holds the damaged original`)
      assert.ok(Math.abs(statSync(path.join(proj, n)).mtimeMs - Number(before[path.relative(root, path.join(proj, n))].split(' ')[2])) < 1, `${n}: mtime kept`)
      assert.equal(chat.repair.statusAfter, 'healthy')
    }
    for (const ch of r['chain.jsonl'].actions[1].changes!) assert.deepEqual(ch.relink, {from: uuidOf(S[12]), to: uuidOf(S[11])})
    assert.deepEqual(r['split.jsonl'].actions[1].changes!.map((x) => [x.kind, x.line, x.linesJoined, x.bytesRemoved, x.bytesAdded]), [['rejoin-lines', 7, 2, 1, 2]])
    assert.deepEqual([r['surrogate.jsonl'].status, r['surrogate.jsonl'].repair.outcome, r['surrogate.jsonl'].actions.length], ['healthy', 'not-needed', 0])
    assert.ok(readFileSync(path.join(proj, 'surrogate.jsonl')).equals(surrogate), 'the record with a lone surrogate is left as it is')
    // Codex: BOM stripped (the original bytes back); the .zst winner written as the plain log Codex reads.
    assert.ok(readFileSync(path.join(day, bomName)).equals(full))
    assert.deepEqual(r[bomName].actions[1].changes!.map((x) => x.kind), ['strip-bom'])
    assert.deepEqual(r[zstName].actions.map((a) => [a.type, a.from, a.to]), [['preserve', zstName, zstName], ['rewrite', zstName + '.zst', zstName], ['restore-mtime', null, '.']])
    assert.ok(readFileSync(path.join(day, zstName)).equals(full))
    assert.deepEqual(r[zstOnly + '.zst'].actions.map((a) => [a.type, a.from, a.to]), [['rewrite', zstOnly + '.zst', zstOnly], ['restore-mtime', null, '.']])
    assert.ok(readFileSync(path.join(day, zstOnly)).equals(join(CX.slice(0, 10))))
    assert.ok(readFileSync(path.join(day, zstOnly + '.zst')).equals(zstdStored(join([...CX.slice(0, 10), body(CX[10]).subarray(0, 30)]))), 'the .zst is never touched')
    // OpenCode: damaged files moved out of storage/ into the evidence folder, byte for byte; the loss reported.
    const fixA = r[`a:${FIX}`]
    assert.deepEqual(fixA.actions.map((a) => [a.type, a.from, a.why ?? null]), [['move', zeroPart, 'damaged-part'], ['restore-mtime', null, null]])
    assert.equal(existsSync(path.join(oc1, zeroPart)), false)
    assert.equal(readFileSync(fixA.actions[0].evidence!.replace(/^~/, env.HOME)).length, 0)
    assert.ok(fixA.actions[0].evidence!.includes(`/.chatdoctor/${rep.repairId}/${FIX}/storage/part/`), 'evidence outside storage/, dot-named')
    assert.deepEqual([fixA.repair.lost?.parts, fixA.repair.lost?.messages, fixA.repair.statusAfter], [['prt_01a22a125194fixture000005'], [], 'healthy'])
    const apiA = r[`a:${API}`]
    assert.deepEqual(apiA.actions.map((a) => [a.type, a.from, a.why ?? null]), [['move', apiSession, 'damaged-session'], ['restore-mtime', null, null]])
    assert.deepEqual([apiA.status, apiA.repair.outcome, apiA.repair.statusAfter, apiA.repair.lost?.sessionListed], ['unrecoverable', 'repaired', 'unrecoverable', false])
    assert.ok(readFileSync(apiA.actions[0].evidence!.replace(/^~/, env.HOME)).equals(zeroFill(readFileSync(path.join(TREE, apiSession)))))
    const fixB = r[`b:${FIX}`]
    assert.deepEqual(fixB.actions.map((a) => a.why ?? a.type), ['damaged-message', 'parts-of-damaged-message', 'parts-of-damaged-message', 'parts-of-damaged-message', 'parts-of-damaged-message', 'restore-mtime'])
    assert.deepEqual(fixB.repair.lost?.messages, ['msg_01a22a125192fixture000003'])
    assert.equal(fixB.repair.lost?.parts.length, 4)
    for (const a of fixB.actions.slice(0, 5)) assert.equal(existsSync(path.join(oc2, a.from!)), false, `${a.from} moved out`)
    const apiB = r[`b:${API}`]
    assert.deepEqual([apiB.status, apiB.repair.outcome, apiB.actions.length, apiB.repair.lost], ['degraded', 'left-untouched', 0, undefined])
    assert.match(apiB.repair.message!, /1 part whose message file is gone/)
    // Exit: repaired (1) + context still lost (4: the unrecoverable session, the degraded one).
    assert.equal(rep.exitCode, 1 | 4)

    // Second run: nothing to do, nothing written, the first code minus bits 1 and 2.
    const after = hashTree(root)
    const again = run(['repair', ...paths], env)
    assert.deepEqual(hashTree(root), after, 'second run writes nothing')
    assert.equal(again.exitCode, rep.exitCode & ~3)
    assert.equal(again.repairId, null)

    // Undo: the exact tree back (chatdoctor's own folders aside).
    const undo = runCli(['undo', rep.repairId!], {env})
    assert.equal(undo.status, 0, undo.stderr + undo.stdout)
    assertSameTree(userTree(hashTree(root)), userTree(before), 'undo restores the exact tree')
    assert.equal(existsSync(path.join(day, zstOnly)), false, 'the plain log the repair created is removed')
    assert.match(runCli(['undo', rep.repairId!], {env}).stdout, /was already undone: every file is as before it; nothing written/)
  } finally {
    cleanup(root)
  }
})

test('OpenCode SQLite store with a corrupted page: not repaired by chatdoctor, next steps named, nothing written, exit bits unchanged', () => {
  const root = tempDir()
  try {
    const data = copyStore(DB, path.join(root, 'opencode'))
    const Database = createRequire(import.meta.url)('better-sqlite3')
    const file = path.join(data, 'opencode.db')
    const db = new Database(file)
    db.pragma('wal_checkpoint(TRUNCATE)')
    const pageSize = db.pragma('page_size', {simple: true}) as number
    const rootPage = db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').pluck().get('part') as number
    db.close()
    rmSync(`${file}-wal`, {force: true})
    rmSync(`${file}-shm`, {force: true})
    const fd = openSync(file, 'r+')
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (rootPage - 1) * pageSize)
    closeSync(fd)
    const env = {HOME: path.join(root, 'home'), XDG_STATE_HOME: path.join(root, 'state')}
    const before = hashTree(root)
    const scan = runCli(['scan', '--json', data], {env})
    const rep = run(['repair', data], env)
    assert.equal(rep.exitCode, scan.status, 'exit bits as scan gives them')
    assert.equal(rep.exitCode & 2, 2)
    assert.ok(rep.chats.length > 0)
    for (const c of rep.chats) {
      assert.equal(c.repair.outcome, 'manual')
      assert.match(c.repair.message!, /not repairable by chatdoctor.*sqlite3 opencode\.db "\.recover"/)
      assert.deepEqual(c.actions, [])
    }
    assert.equal(rep.repairId, null)
    assert.deepEqual(hashTree(root), before, 'nothing written')
    const human = runCli(['repair', data], {env})
    assert.match(human.stdout, /not repaired .*opencode\.db/)
    assert.match(human.stdout, /left for a manual repair/)
  } finally {
    cleanup(root)
  }
})

test('never touches a session the agent is writing: grown during the scan (session-live) or changed between the evidence and the write', async () => {
  const root = tempDir()
  try {
    const proj = path.join(root, 'proj')
    mkdirSync(proj)
    const S = linesOf(read(REAL_SESSIONS.claude.short))
    const torn = join([...S.slice(0, 14), body(S[14]).subarray(0, 100)])
    writeFileSync(path.join(proj, 'torn.jsonl'), torn)
    const scanned = await scanPaths([proj], {home: root, env: {}})
    const chat = scanned.chats[0]
    assert.equal(chat.report.status, 'repairable')
    // The file grew while it was read: the inventory's lstat size differs from the bytes read.
    const entry = chat.snapshot.files[0]
    const grown = {...chat, snapshot: {...chat.snapshot, files: [{...entry, bytes: entry.bytes + 200}]}}
    const d = chat.adapter.diagnose(grown.snapshot)
    assert.ok(d.kind === 'chat')
    assert.ok(d.report.findings.some((f) => f.id === 'session-live'))
    const livePlan = planChat({...grown, report: {path: chat.report.path, ...d.report}})
    assert.deepEqual(livePlan.actions, [])
    assert.match(livePlan.refusal ?? '', /agent is writing this session/)

    // The agent appends while the evidence is copied (a log's evidence is a copy, never a link): refused, the appended bytes kept.
    const plan = planChat(chat)
    assert.deepEqual(plan.actions.map((a) => a.type), ['preserve', 'rewrite', 'restore-mtime'])
    const fs = new RecordingFileSystem(nodeFileSystem(), [], (op) => {
      if (op === 'copyFile') appendFileSync(path.join(proj, 'torn.jsonl'), S[14].subarray(100))
    })
    const out = await applyChat(plan, {fs, repairId: '20260605T120000Z-abcdef', version: 'test', stateDir: path.join(root, 'state'), force: false})
    assert.equal(out.outcome, 'refused', out.message ?? '')
    assert.match(out.message!, /the agent wrote torn\.jsonl during the repair/)
    assert.ok(readFileSync(path.join(proj, 'torn.jsonl')).equals(join(S)), 'the agent’s bytes are untouched')
    assert.ok(!fs.mutations().some((m) => m.op === 'rename' && String(m.args[1]).endsWith('torn.jsonl')), 'no rename over the session')
  } finally {
    cleanup(root)
  }
})

test('an OpenCode move is link (or copy) into the evidence, manifest, then unlink: the file is never in neither place; undo puts it back', async () => {
  for (const linkFails of [false, true]) {
    const root = tempDir()
    try {
      const data = copyStore(TREE, path.join(root, 'opencode'))
      const rel = 'storage/part/msg_01a22a125192fixture000003/prt_01a22a125194fixture000005.json'
      const damaged = Buffer.concat([readFileSync(path.join(data, rel)).subarray(0, 40), Buffer.alloc(24)])
      writeFileSync(path.join(data, rel), damaged)
      settle(data)
      const before = hashTree(data)
      const scanned = await scanPaths([data], {home: root, env: {}})
      const chat = scanned.chats.find((c) => c.report.id === FIX)!
      const plan = planChat(chat)
      assert.deepEqual(plan.actions.map((a) => [a.type, a.from]), [['move', rel], ['restore-mtime', null]])
      const fs = new RecordingFileSystem(nodeFileSystem(), linkFails ? [{op: 'link', path: rel, code: 'EXDEV'}] : [])
      const repairId = '20260605T120000Z-0a0b0c'
      const out = await applyChat(plan, {fs, repairId, version: 'test', stateDir: path.join(root, 'state'), force: false})
      assert.equal(out.outcome, 'repaired', out.message ?? '')
      const src = path.join(data, rel)
      const ev = path.join(data, '.chatdoctor', repairId, FIX, rel)
      const seqOf = (pred: (t: (typeof fs.trace)[number]) => boolean) => fs.trace.findIndex(pred)
      const copied = seqOf((t) => (t.op === 'link' || t.op === 'copyFile') && t.args[0] === src && t.args[1] === ev && t.error === undefined)
      const manifest = seqOf((t) => t.op === 'rename' && String(t.args[1]).endsWith(path.join(FIX, 'manifest.json')))
      const unlinked = seqOf((t) => t.op === 'unlink' && t.args[0] === src)
      assert.ok(copied >= 0 && manifest > copied && unlinked > manifest, `order: evidence ${copied}, manifest ${manifest}, unlink ${unlinked}`)
      assert.equal(fs.trace[copied].op, linkFails ? 'copyFile' : 'link')
      assert.ok(readFileSync(ev).equals(damaged), 'the evidence holds the moved bytes')
      assert.equal(existsSync(src), false)
      const u = await undoRepair(repairId, {fs: nodeFileSystem(), stateDir: path.join(root, 'state'), version: 'test', force: false})
      assert.deepEqual(u.files.map((f) => [f.file, f.outcome]), [[rel, 'restored']])
      const inStores = (t: Record<string, string>) => userTree(Object.fromEntries(Object.entries(t).map(([k, v]) => [path.join('stores', k), v])))
      assertSameTree(inStores(hashTree(data)), inStores(before), 'undo restores the tree')
    } finally {
      cleanup(root)
    }
  }
})

test('the real files in shared/realdata are untouched by these tests', () => {
  assert.deepEqual(hashTree(PUBLIC), originals.public)
  assert.deepEqual(hashTree(OC), originals.opencode)
})
