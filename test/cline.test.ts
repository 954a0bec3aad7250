/**
 * Cline CLI (3.x SDK store): the real store cline 3.0.65 wrote (`shared/realdata/cline/3.0.65/`), every damage
 * case its generator recorded, the bug-log reports whose damage applies to it (named after their ids), the
 * repair and its undo, the index, live refusal, bundles, and hostile input. Fixtures: test/helpers/cline.ts.
 */
import assert from 'node:assert/strict'
import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {test} from 'node:test'
import {applyChat} from '../src/lib/pipeline/apply.js'
import {classifyJsonBytes} from '../src/lib/classify/index.js'
import {cline} from '../src/lib/formats/cline/index.js'
import {diagnoseSession} from '../src/lib/formats/cline/diagnose.js'
import {dataDir, defaultRoots, folderKind, sessionIdIn} from '../src/lib/formats/cline/layout.js'
import {clineLiveSigns, isClineCommandLine} from '../src/lib/formats/cline/live.js'
import {measureMessages, userRunSpan} from '../src/lib/formats/cline/messages.js'
import {recordProblem} from '../src/lib/formats/cline/record.js'
import type {SessionFacts} from '../src/lib/formats/cline/store.js'
import {nodeFileSystem} from '../src/lib/fsio/fs.js'
import type {ChatReport, Finding} from '../src/lib/model/report.js'
import {planRepairs} from '../src/lib/pipeline/plan.js'
import {buildRepairReport, newRepairId, type ChatResult} from '../src/lib/pipeline/repair-report.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import type {ChatDirSnapshot, ChatPlan, ScannedChat} from '../src/lib/model/adapter.js'
import {
  CLINE,
  SESSION_A,
  SESSION_B,
  copyClineHome,
  damageFile,
  deleteIndex,
  dropIndexRow,
  emptiedMessages,
  installDamageState,
  messagesName,
  overwrite,
  realMessages,
  realRecord,
  recordName,
  staleTail,
  type ClineHome,
} from './helpers/cline.js'
import {REPO_ROOT, cleanup, cutAt, hashTree, insertIntoFirstText, invalidByteAt, nulPadded, nulTailAt, runCli, sha256, tempDir, withBom, zeroFill} from './helpers/fixtures.js'

const A = SESSION_A
const B = SESSION_B

/** A sandbox: a fake HOME holding a copy of the real ~/.cline, and a state dir for repair logs. */
function sandbox(): {root: string; h: ClineHome; env: NodeJS.ProcessEnv; stateDir: string} {
  const root = tempDir('chatdoctor-cline-')
  const home = path.join(root, 'home')
  mkdirSync(home)
  const h = copyClineHome(home)
  return {root, h, env: {HOME: home, XDG_STATE_HOME: path.join(root, 'state')}, stateDir: path.join(root, 'state', 'chatdoctor')}
}

async function scan(paths: string[], home: string, env: NodeJS.ProcessEnv = {}) {
  return scanPaths(paths, {home, env})
}

function chat(chats: ScannedChat[], id: string): ScannedChat {
  const c = chats.find((x) => x.report.id === id)
  assert.ok(c, `no chat ${id} among ${chats.map((x) => x.report.id).join(', ')}`)
  return c
}

const ids = (r: Pick<ChatReport, 'findings'>) => r.findings.map((f) => f.id)
const find = (r: Pick<ChatReport, 'findings'>, id: string): Finding => {
  const f = r.findings.find((x) => x.id === id)
  assert.ok(f, `no finding ${id} among ${ids(r).join(', ')}`)
  return f
}
const gen = (r: ChatReport, file: string) => {
  const g = r.generations.find((x) => x.file === file)
  assert.ok(g, `no generation ${file}`)
  return g
}

/** `repair` as the command runs it, in process. */
async function repair(paths: string[], home: string, stateDir: string, opts: {force?: boolean} = {}) {
  const s = await scanPaths(paths, {home, env: {}})
  const plans = planRepairs(s.chats)
  const results = new Map<ChatPlan, ChatResult>()
  const repairId = newRepairId()
  for (const p of plans) if (p.actions.length > 0 && !p.refusal && !p.problem) results.set(p, await applyChat(p, {fs: nodeFileSystem(), repairId, version: 'test', stateDir, force: opts.force ?? false}))
  return buildRepairReport({version: 'test', home, dryRun: false, repairId, plans, results, skipped: s.skipped, errors: s.errors, interrupted: false})
}

/** A snapshot of one session folder with the given files (pure diagnosis, no disk). */
function snapshotOf(id: string, files: Record<string, Buffer>, facts: Partial<SessionFacts> = {}): ChatDirSnapshot {
  const f: SessionFacts = {kind: 'session', sessionId: id, index: {state: 'none'}, live: [], dataDir: null, watched: false, ...facts}
  return {
    dir: `/x/sessions/${id}`,
    unit: {dir: `/x/sessions/${id}`, path: `/x/sessions/${id}/${messagesName(id)}`, facts: f},
    dirMtimeMs: 0,
    files: Object.entries(files)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, data]) => ({name, kind: 'file' as const, bytes: data.length, mtimeMs: 1, data})),
  }
}

function diagnosed(id: string, files: Record<string, Buffer>, facts: Partial<SessionFacts> = {}): ChatReport {
  const d = diagnoseSession(snapshotOf(id, files, facts), {kind: 'session', sessionId: id, index: {state: 'none'}, live: [], dataDir: null, watched: false, ...facts})
  assert.equal(d.kind, 'chat')
  return {path: id, ...(d as {report: Omit<ChatReport, 'path'>}).report}
}

// ---- layout ---------------------------------------------------------------------------------------------

test('cline data dir: $CLINE_DATA_DIR, else $CLINE_DIR/data, else ~/.cline/data; a moved $CLINE_SESSION_DATA_DIR is searched too', () => {
  assert.equal(dataDir('/home/u', {}), '/home/u/.cline/data')
  assert.equal(dataDir('/home/u', {CLINE_DIR: '/opt/c'}), '/opt/c/data')
  assert.equal(dataDir('/home/u', {CLINE_DIR: '/opt/c', CLINE_DATA_DIR: ' /srv/d '}), '/srv/d')
  assert.equal(dataDir('/home/u', {CLINE_DATA_DIR: '   '}), '/home/u/.cline/data')
  assert.deepEqual(defaultRoots('/home/u', {}), ['/home/u/.cline/data'])
  assert.deepEqual(defaultRoots('/home/u', {CLINE_SESSION_DATA_DIR: '/s'}), ['/home/u/.cline/data', '/s'])
  assert.deepEqual(defaultRoots('/home/u', {CLINE_SESSION_DATA_DIR: '/home/u/.cline/data/sessions'}), ['/home/u/.cline/data'])
})

test('Cline folders are recognised by their names: the data dir, the sessions dir, a session folder (also copied under another name)', () => {
  assert.equal(folderKind('/h/.cline/data', ['cache', 'db', 'locks', 'logs', 'sessions', 'settings']), 'data')
  assert.equal(folderKind('/h/app', ['sessions', 'src']), null, 'a project with a sessions folder is not a data dir')
  assert.equal(folderKind('/h/.cline/data/sessions', [A, B]), 'sessions')
  assert.equal(folderKind(`/s/${A}`, [recordName(A), messagesName(A)]), 'session')
  assert.equal(folderKind('/tmp/xyz', [recordName(A), messagesName(A)]), 'session')
  assert.equal(sessionIdIn('xyz', [recordName(A), messagesName(A), 'agent_1_x.messages.json']), A)
  assert.equal(folderKind('/h/config', ['config.json']), null, '<name>.json alone is not a session unless the name is a session id')
  assert.equal(folderKind(`/s/${A}`, [recordName(A)]), 'session')
})

test('turns are the user runs the SDK counts: tool results, resumption and act-mode continuation prompts, notices and empty wrappers are none; a compaction summary counts its span', () => {
  const u = (content: unknown, metadata?: unknown) => ({role: 'user', content, ...(metadata ? {metadata} : {})})
  assert.equal(userRunSpan(u([{type: 'text', text: '<user_input mode="act">List the files.</user_input>'}])), 1)
  assert.equal(userRunSpan(u([{type: 'tool_result', tool_use_id: 'x', content: 'ok'}])), 0)
  assert.equal(userRunSpan(u([{type: 'text', text: '<user_input mode="plan"></user_input>'}])), 0)
  assert.equal(userRunSpan(u([{type: 'text', text: '<mode_notice>The user switched from act mode to plan mode before sending this message.</mode_notice><user_input mode="plan">  </user_input>'}])), 0)
  assert.equal(userRunSpan(u('[TASK RESUMPTION] carry on')), 0)
  assert.equal(userRunSpan(u('The user approved switching to act mode. Continue with the approved plan now.')), 0)
  assert.equal(userRunSpan(u([{type: 'image'}])), 1, 'an attachment alone is a run')
  assert.equal(userRunSpan(u('summary', {kind: 'compaction', userRunSpan: 7})), 7)
  assert.equal(userRunSpan(u('note', {kind: 'loop_detection_notice'})), 0)
  assert.equal(userRunSpan({role: 'assistant', content: 'hi'}), 0)
  const a = measureMessages(JSON.parse(realMessages(A).toString()).messages).measure
  assert.equal(a.turns, 5)
  assert.equal(a.historyLength, 18)
  assert.equal(a.toolCalls, 4)
  assert.equal(a.toolCallsOpen, 0)
  assert.equal(measureMessages(JSON.parse(realMessages(B).toString()).messages).measure.turns, 2)
})

// ---- the real store --------------------------------------------------------------------------------------

test('the real store (built CLI): both sessions healthy, turns 5/5 and 2/2, exit 0; the originals and their mtimes unchanged, no index copy left behind', () => {
  const before = hashTree(path.join(CLINE, 'home'))
  const tmpBefore = readdirSync(os.tmpdir()).filter((n) => n.startsWith('chatdoctor-cline-index-'))
  const r = runCli(['scan', '--json', path.join(CLINE, 'home', '.cline')])
  assert.equal(r.status, 0, r.stderr)
  const report = JSON.parse(r.stdout)
  assert.equal(report.summary.chats, 2)
  assert.equal(report.summary.healthy, 2)
  const a = report.chats.find((c: ChatReport) => c.id === A)
  const b = report.chats.find((c: ChatReport) => c.id === B)
  for (const [c, n, m] of [[a, 5, 18], [b, 2, 6]] as const) {
    assert.equal(c.format, 'cline')
    assert.equal(c.status, 'healthy')
    assert.equal(c.winner, messagesName(c.id))
    assert.equal(c.contextTurns, n)
    assert.equal(c.transcriptTurns, n)
    assert.equal(gen(c, messagesName(c.id)).class, 'intact')
    assert.equal(gen(c, messagesName(c.id)).measure!.historyLength, m)
    assert.equal(gen(c, recordName(c.id)).class, 'intact')
    assert.deepEqual(c.findings, [], 'the index lists both, nothing running')
  }
  assert.deepEqual(hashTree(path.join(CLINE, 'home')), before, 'nothing under the real store changed (the index was read on a copy)')
  assert.deepEqual(readdirSync(os.tmpdir()).filter((n) => n.startsWith('chatdoctor-cline-index-')), tmpBefore, 'the private copy of the index is gone')
})

test('scan with no PATH finds ~/.cline/data under a fake HOME, and the store $CLINE_DATA_DIR or $CLINE_DIR names', () => {
  const sb = sandbox()
  try {
    const r = runCli(['scan', '--json'], {env: sb.env})
    assert.equal(r.status, 0, r.stderr)
    const report = JSON.parse(r.stdout)
    assert.deepEqual(report.chats.map((c: ChatReport) => [c.path, c.status]).sort(), [
      [`~/.cline/data/sessions/${A}/${messagesName(A)}`, 'healthy'],
      [`~/.cline/data/sessions/${B}/${messagesName(B)}`, 'healthy'],
    ])
    // The same store moved elsewhere: found through the env, not through HOME.
    const moved = path.join(sb.root, 'elsewhere', 'data')
    mkdirSync(path.dirname(moved))
    spawnSync('mv', [sb.h.data, moved])
    const empty = runCli(['scan', '--json'], {env: sb.env})
    assert.equal(JSON.parse(empty.stdout).summary.chats, 0)
    for (const env of [{CLINE_DATA_DIR: moved}, {CLINE_DIR: path.dirname(moved)}]) {
      const s = runCli(['scan', '--json'], {env: {...sb.env, ...env}})
      assert.equal(s.status, 0, s.stderr)
      assert.equal(JSON.parse(s.stdout).summary.healthy, 2, JSON.stringify(env))
    }
  } finally {
    cleanup(sb.root)
  }
})

test('a session folder, the sessions dir, the data dir, ~/.cline and HOME each give the same chats, once', async () => {
  const sb = sandbox()
  try {
    for (const p of [sb.h.home, path.join(sb.h.home, '.cline'), sb.h.data, sb.h.sessions]) {
      const s = await scan([p], sb.h.home)
      assert.deepEqual(s.chats.map((c) => c.report.id).sort(), [A, B], p)
    }
    const one = await scan([sb.h.dir(A), sb.h.messages(A), sb.h.data], sb.h.home)
    assert.deepEqual(s0(one), [A, B])
    const single = await scan([sb.h.dir(B)], sb.h.home)
    assert.deepEqual(s0(single), [B])
    assert.deepEqual(single.chats[0].report.findings, [], 'a single folder still knows its index')
  } finally {
    cleanup(sb.root)
  }
  function s0(s: {chats: ScannedChat[]}) {
    return s.chats.map((c) => c.report.id).sort()
  }
})

// ---- the damage cases the real binary was run on (damage/<case>/) ---------------------------------------

test('damage/messages-truncate-mid-record: truncated, repairable; the salvage keeps 15 messages (turns 4 of 5) and the default output says what the next start destroys', async () => {
  // The real damage state is the first 60 % of the real file: the same bytes as a cut made here.
  const damaged = damageFile('messages-truncate-mid-record', A, messagesName(A))
  assert.ok(damaged.equals(cutAt(realMessages(A), Math.floor(realMessages(A).length * 0.6))))
  const sb = sandbox()
  try {
    installDamageState(sb.h, 'messages-truncate-mid-record', A)
    const s = await scan([sb.h.data], sb.h.home)
    const r = chat(s.chats, A).report
    assert.equal(r.status, 'repairable')
    assert.equal(r.winner, `salvage:${messagesName(A)}`)
    assert.equal(r.contextTurns, 4)
    assert.equal(r.transcriptTurns, 5)
    const g = gen(r, messagesName(A))
    assert.equal(g.class, 'truncated')
    assert.deepEqual(g.reasons, ['unexpected-end'])
    assert.equal(g.salvage!.messages, 15)
    assert.equal(g.salvage!.tornElementDropped, true)
    assert.deepEqual(g.salvage!.keysBorrowed, [])
    assert.equal(g.salvage!.candidate, true)
    assert.deepEqual(ids(r), ['primary-damaged', 'salvage-available', 'next-start-loss'])
    assert.match(find(r, 'primary-damaged').message, /empty conversation, silently\. Cline rewrites this file in place and keeps no backup or temp: no older copy of it exists on disk/)
    assert.match(find(r, 'salvage-available').message, /turn 5 is lost/)
    assert.equal(chat(s.chats, B).report.status, 'healthy')
    // Without --verbose, the human output says it.
    const human = runCli(['scan', sb.h.data], {env: sb.env})
    assert.equal(human.status, 2, human.stderr)
    assert.match(human.stdout, /next-start-loss .*before Cline's next start of this session: its resume \(`cline --id 1796118198748_i47ig`\) reads an empty conversation, starts a new one and overwrites/)
    assert.match(human.stdout, /run chatdoctor repair first/)
  } finally {
    cleanup(sb.root)
  }
})

test('B02 analog, damage/messages-zero-length: empty, unrecoverable (–/5, exit 4); nothing older exists, and the default output says to bundle it before the next start', async () => {
  const sb = sandbox()
  try {
    installDamageState(sb.h, 'messages-zero-length', A)
    assert.equal(readFileSync(sb.h.messages(A)).length, 0)
    const r = chat((await scan([sb.h.data], sb.h.home)).chats, A).report
    assert.equal(r.status, 'unrecoverable')
    assert.equal(r.winner, null)
    assert.equal(r.contextTurns, null)
    assert.equal(r.transcriptTurns, 5, 'the run count in the session record')
    assert.equal(gen(r, messagesName(A)).class, 'empty')
    assert.deepEqual(ids(r), ['primary-damaged', 'context-lost', 'next-start-loss'])
    assert.match(find(r, 'context-lost').message, /the run count in the session record says it had 5 turns\): Cline rewrites this file in place and keeps no backup or temp: no older copy of it exists on disk/)
    assert.match(find(r, 'next-start-loss').message, /bundle it first/)
    const human = runCli(['scan', sb.h.data], {env: sb.env})
    assert.equal(human.status, 4)
    assert.match(human.stdout, /next-start-loss/)
    const rep = runCli(['repair', '--json', sb.h.data], {env: sb.env})
    assert.equal(rep.status, 4, rep.stderr)
    assert.equal(JSON.parse(rep.stdout).chats.find((c: ChatReport) => c.id === A).repair.outcome, 'not-repairable')
  } finally {
    cleanup(sb.root)
  }
})

test('B04 analog, damage/messages-nul-filled: zero-filled, unrecoverable, next-start-loss', async () => {
  const damaged = damageFile('messages-nul-filled', A, messagesName(A))
  assert.ok(damaged.equals(zeroFill(realMessages(A))))
  const sb = sandbox()
  try {
    installDamageState(sb.h, 'messages-nul-filled', A)
    const r = chat((await scan([sb.h.data], sb.h.home)).chats, A).report
    assert.equal(r.status, 'unrecoverable')
    assert.equal(gen(r, messagesName(A)).class, 'zero-filled')
    assert.deepEqual(ids(r), ['primary-damaged', 'context-lost', 'next-start-loss'])
  } finally {
    cleanup(sb.root)
  }
})

test('damage/session-json-truncate: the conversation is whole (5/5) but the record is truncated; repairable, the repair writes the record salvage Cline accepts, and undo puts the torn record back', async () => {
  const sb = sandbox()
  try {
    installDamageState(sb.h, 'session-json-truncate', A)
    const torn = readFileSync(sb.h.record(A))
    assert.ok(torn.equals(cutAt(realRecord(A), Math.floor(realRecord(A).length * 0.6))))
    const r = chat((await scan([sb.h.data], sb.h.home)).chats, A).report
    assert.equal(r.status, 'repairable')
    assert.equal(r.winner, messagesName(A))
    assert.equal(r.contextTurns, 5)
    assert.equal(r.transcriptTurns, 5)
    assert.equal(gen(r, recordName(A)).class, 'truncated')
    assert.equal(gen(r, recordName(A)).salvage!.candidate, true)
    assert.deepEqual(ids(r), ['next-start-loss', 'session-record-damaged'])
    assert.equal(find(r, 'next-start-loss').severity, 'warning')
    const rep = await repair([sb.h.data], sb.h.home, sb.stateDir)
    const c = rep.chats.find((x) => x.id === A)!
    assert.equal(c.repair!.outcome, 'repaired')
    assert.deepEqual(c.actions!.map((a) => [a.type, a.from, a.to]), [
      ['preserve', recordName(A), recordName(A)],
      ['restore', `salvage:${recordName(A)}`, recordName(A)],
      ['restore-mtime', null, '.'],
    ])
    const written = readFileSync(sb.h.record(A))
    const kept = gen(r, recordName(A)).salvage!.bytesKept
    assert.ok(written.equals(Buffer.concat([torn.subarray(0, kept), Buffer.from('}')])), 'the record is its first bytes, closed')
    const v = JSON.parse(written.toString())
    assert.equal(v.session_id, A)
    assert.equal(v.status, 'completed')
    assert.equal(rep.exitCode, 1)
    assert.equal(chat((await scan([sb.h.data], sb.h.home)).chats, A).report.status, 'healthy')
    const u = runCli(['undo', rep.repairId!], {env: sb.env})
    assert.equal(u.status, 0, u.stderr)
    assert.ok(readFileSync(sb.h.record(A)).equals(torn), 'undo: the torn record byte for byte')
  } finally {
    cleanup(sb.root)
  }
})

test('damage/delete-index: both sessions healthy; the missing index is an info finding (Cline rebuilds it from the folders)', async () => {
  const sb = sandbox()
  try {
    deleteIndex(sb.h)
    const s = await scan([sb.h.data], sb.h.home)
    for (const id of [A, B]) {
      const r = chat(s.chats, id).report
      assert.equal(r.status, 'healthy')
      assert.deepEqual(ids(r), ['index-unreadable'])
      assert.equal(find(r, 'index-unreadable').severity, 'info')
      assert.match(find(r, 'index-unreadable').message, /Cline recreates it/)
    }
    assert.equal(runCli(['scan', sb.h.data], {env: sb.env}).status, 0)
  } finally {
    cleanup(sb.root)
  }
})

test('damage/delete-session-dir: the index still lists A: one unrecoverable chat with no files (–/5 from the index run count), its id said plainly', async () => {
  const sb = sandbox()
  try {
    rmSync(sb.h.dir(A), {recursive: true})
    const s = await scan([sb.h.data], sb.h.home)
    const r = chat(s.chats, A).report
    assert.equal(r.status, 'unrecoverable')
    assert.equal(r.path, `~/.cline/data/sessions/${A}/${messagesName(A)}`)
    assert.equal(r.transcriptTurns, 5)
    assert.deepEqual(ids(r), ['index-entry-without-files', 'context-lost', 'next-start-loss'])
    assert.match(find(r, 'index-entry-without-files').message, /`cline --id 1796118198748_i47ig` silently starts a new empty session under that id/)
    assert.equal(gen(r, messagesName(A)).class, 'missing')
    assert.equal(chat(s.chats, B).report.status, 'healthy')
    const rep = await repair([sb.h.data], sb.h.home, sb.stateDir)
    assert.equal(rep.chats.find((c) => c.id === A)!.repair!.outcome, 'not-repairable')
    assert.ok(!existsSync(sb.h.dir(A)), 'nothing recreated')
    // Nothing of it to bundle: skipped with a reason; the bundle of the rest checks clean.
    const out = path.join(sb.root, 'b.tar.gz')
    const b = runCli(['bundle', '--json', '-o', out, sb.h.data], {env: sb.env})
    assert.equal(b.status, 0, b.stderr)
    assert.ok(JSON.parse(b.stdout).skipped.some((x: {path: string; reason: string}) => x.path.includes(A) && /nothing to bundle/.test(x.reason)), b.stdout)
    const c = runCli(['check', '--json', out], {env: sb.env})
    assert.equal(c.status, 0, c.stdout)
    assert.deepEqual(JSON.parse(c.stdout).chats.map((x: ChatReport) => x.id), [B])
  } finally {
    cleanup(sb.root)
  }
})

// ---- repair ----------------------------------------------------------------------------------------------

test('repair of the torn conversation writes the salvage byte for byte (the first 8219 bytes, then "]}"), keeps the original as evidence, leaves it degraded (4 of 5), converges, and undo restores it byte for byte', async () => {
  const sb = sandbox()
  try {
    installDamageState(sb.h, 'messages-truncate-mid-record', A)
    const torn = readFileSync(sb.h.messages(A))
    const before = hashTree(sb.h.home)
    const dry = runCli(['repair', '--dry-run', '--json', sb.h.data], {env: sb.env})
    assert.equal(dry.status, 2 | 4, `repairable, and turn 5 would stay lost: ${dry.stderr}`)
    assert.deepEqual(hashTree(sb.h.home), before, 'a dry run writes nothing')
    const rep = await repair([sb.h.data], sb.h.home, sb.stateDir)
    const c = rep.chats.find((x) => x.id === A)!
    assert.equal(c.repair!.outcome, 'repaired')
    assert.equal(c.repair!.statusAfter, 'degraded')
    assert.equal(rep.exitCode, 1 | 4, 'repaired, and turn 5 stays lost')
    assert.deepEqual(c.actions!.map((a) => [a.type, a.from, a.to]), [
      ['preserve', messagesName(A), messagesName(A)],
      ['restore', `salvage:${messagesName(A)}`, messagesName(A)],
      ['restore-mtime', null, '.'],
    ])
    const written = readFileSync(sb.h.messages(A))
    assert.ok(written.equals(Buffer.concat([torn.subarray(0, 8219), Buffer.from(']}')])))
    const value = JSON.parse(written.toString())
    assert.deepEqual(value.messages, JSON.parse(realMessages(A).toString()).messages.slice(0, 15), 'the 15 messages are the originals')
    assert.ok(readFileSync(c.actions![0].evidence!.replace(/^~/, sb.h.home)).equals(torn), 'evidence: the torn file')
    const again = chat((await scan([sb.h.data], sb.h.home)).chats, A).report
    assert.equal(again.status, 'degraded')
    assert.equal(again.contextTurns, 4)
    assert.equal(again.transcriptTurns, 5)
    assert.deepEqual(ids(again), ['turns-missing'])
    const second = await repair([sb.h.data], sb.h.home, sb.stateDir)
    assert.equal(second.repairId, null, 'a second run writes nothing')
    assert.equal(second.exitCode, 4)
    const u = runCli(['undo', rep.repairId!], {env: sb.env})
    assert.equal(u.status, 0, u.stderr)
    assert.ok(readFileSync(sb.h.messages(A)).equals(torn), 'undo: byte for byte')
  } finally {
    cleanup(sb.root)
  }
})

test('B10 analog: the conversation missing its closing brace (and LF) is truncated; the salvage only closes it: all 18 messages, 5/5, and the repair leaves it healthy', async () => {
  const sb = sandbox()
  try {
    const whole = realMessages(A)
    assert.equal(whole.subarray(-4).toString(), '"\n}\n')
    const damaged = whole.subarray(0, whole.length - 2)
    overwrite(sb.h.messages(A), damaged)
    const r = chat((await scan([sb.h.data], sb.h.home)).chats, A).report
    assert.equal(r.status, 'repairable')
    assert.equal(gen(r, messagesName(A)).class, 'truncated')
    const sv = gen(r, messagesName(A)).salvage!
    assert.equal(sv.messages, 18)
    assert.equal(sv.tornElementDropped, false)
    assert.equal(sv.bytesDropped, 1, 'only the line break after the last member')
    assert.equal(r.contextTurns, 5)
    assert.equal(r.transcriptTurns, 5)
    const rep = await repair([sb.h.data], sb.h.home, sb.stateDir)
    assert.equal(rep.exitCode, 1)
    assert.ok(readFileSync(sb.h.messages(A)).equals(Buffer.concat([damaged.subarray(0, damaged.length - 1), Buffer.from('}')])), 'every original byte up to the last member, then the closing brace')
    assert.equal(chat((await scan([sb.h.data], sb.h.home)).chats, A).report.status, 'healthy')
  } finally {
    cleanup(sb.root)
  }
})

test('B10 (stage 2) and B39 analog: the index loses a session whose files are whole: it stays healthy with a not-in-index warning; with its record torn too, Cline cannot list it (an error)', async () => {
  const sb = sandbox()
  try {
    dropIndexRow(sb.h, A)
    const s = await scan([sb.h.data], sb.h.home)
    const r = chat(s.chats, A).report
    assert.equal(r.status, 'healthy')
    assert.deepEqual(ids(r), ['not-in-index'])
    assert.equal(find(r, 'not-in-index').severity, 'warning')
    assert.match(find(r, 'not-in-index').message, /does not list 1796118198748_i47ig: Cline's history finds it only through its session record/)
    assert.deepEqual(ids(chat(s.chats, B).report), [])
    overwrite(sb.h.record(A), zeroFill(realRecord(A)))
    const r2 = chat((await scan([sb.h.data], sb.h.home)).chats, A).report
    assert.equal(find(r2, 'not-in-index').severity, 'error')
    assert.match(find(r2, 'not-in-index').message, /cannot show this session/)
  } finally {
    cleanup(sb.root)
  }
})

test('B17 analog: Cline died between its in-place write and its ftruncate (the resume\'s new conversation over the old, longer one): corrupt (trailing-garbage); the salvage keeps the newer document whole and the repair leaves it healthy', async () => {
  const newer = damageFile('messages-truncate-mid-record', A, messagesName(A), '2-resume')
  const newerRecord = damageFile('messages-truncate-mid-record', A, recordName(A), '2-resume')
  const torn = staleTail(newer, realMessages(A))
  const root = tempDir('chatdoctor-cline-b17-')
  try {
    // A bare sessions folder as the binary left it (its record already rewritten by the same resume).
    const dir = path.join(root, 'sessions', A)
    mkdirSync(dir, {recursive: true})
    writeFileSync(path.join(dir, messagesName(A)), torn)
    writeFileSync(path.join(dir, recordName(A)), newerRecord)
    const r = chat((await scan([path.join(root, 'sessions')], root)).chats, A).report
    const g = gen(r, messagesName(A))
    assert.equal(g.class, 'corrupt')
    assert.deepEqual(g.reasons, ['trailing-garbage'])
    assert.ok(g.damage!.offset >= newer.length && torn.subarray(newer.length, g.damage!.offset).toString().trim() === '', 'the old tail starts right after the newer document')
    assert.equal(r.status, 'repairable')
    assert.equal(g.salvage!.kind, 'tail')
    assert.equal(g.salvage!.messages, 2)
    assert.equal(r.contextTurns, 1)
    assert.equal(r.transcriptTurns, 1)
    const rep = await repair([path.join(root, 'sessions')], root, path.join(root, 'state'))
    assert.equal(rep.exitCode, 1)
    assert.ok(readFileSync(path.join(dir, messagesName(A))).equals(newer.subarray(0, newer.length - 1)), 'the newer document, byte for byte (its final LF dropped with the tail)')
  } finally {
    cleanup(root)
  }
})

test('B08 analog: NUL bytes after the complete conversation: corrupt (nul-tail), Cline reads it as empty; the salvage keeps all 18 messages and the repair leaves it healthy', async () => {
  const sb = sandbox()
  try {
    overwrite(sb.h.messages(A), nulPadded(realMessages(A), 4096))
    const r = chat((await scan([sb.h.data], sb.h.home)).chats, A).report
    assert.equal(gen(r, messagesName(A)).class, 'corrupt')
    assert.deepEqual(gen(r, messagesName(A)).reasons, ['nul-tail'])
    assert.equal(r.status, 'repairable')
    assert.equal(gen(r, messagesName(A)).salvage!.messages, 18)
    assert.equal(r.contextTurns, 5)
    const rep = await repair([sb.h.data], sb.h.home, sb.stateDir)
    assert.equal(rep.exitCode, 1)
    assert.equal(chat((await scan([sb.h.data], sb.h.home)).chats, A).report.status, 'healthy')
  } finally {
    cleanup(sb.root)
  }
})

test('B09 analog (power loss: the new length reached the disk, the data only in part): truncated (unexpected-end, nul-tail); the salvage keeps the messages before the zeros', async () => {
  const whole = realMessages(A)
  const r = diagnosed(A, {[messagesName(A)]: nulTailAt(whole, 8192), [recordName(A)]: realRecord(A)})
  const g = gen(r, messagesName(A))
  assert.equal(g.class, 'truncated')
  assert.deepEqual(g.reasons, ['unexpected-end', 'nul-tail'])
  assert.equal(r.status, 'repairable')
  assert.equal(g.salvage!.tearOffset, 8192)
  assert.ok(g.salvage!.bytesKept <= 8192)
})

test('B18 analog: a byte-order mark before the conversation: Cline\'s reader strips it and loads all 5 turns: healthy with a primary-irregular warning; nothing to repair', async () => {
  const r = diagnosed(A, {[messagesName(A)]: withBom(realMessages(A)), [recordName(A)]: realRecord(A)})
  assert.equal(gen(r, messagesName(A)).class, 'corrupt')
  assert.deepEqual(gen(r, messagesName(A)).reasons, ['bom'])
  assert.equal(r.status, 'healthy')
  assert.equal(r.contextTurns, 5)
  assert.deepEqual(ids(r), ['primary-irregular'])
  assert.match(find(r, 'primary-irregular').message, /Cline loads its 5 turns as written \(its reader strips a byte-order mark/)
})

test('B19 analog: a cut inside a multi-byte character: truncated (unexpected-end, torn-utf8); the salvage keeps only whole messages', () => {
  const {buf, at} = insertIntoFirstText(realMessages(A))
  const cut = at + Buffer.from('héllo — 日').length - 1 // inside 日
  const r = diagnosed(A, {[messagesName(A)]: cutAt(buf, cut), [recordName(A)]: realRecord(A)})
  const g = gen(r, messagesName(A))
  assert.equal(g.class, 'truncated')
  assert.deepEqual(g.reasons, ['unexpected-end', 'torn-utf8'])
  assert.equal(r.status, 'unrecoverable', 'the cut falls in the first message: nothing complete to keep')
  assert.equal(g.salvage?.candidate ?? false, false)
})

test('B20 analog: a lone surrogate escape in a message is intact (Cline and JSON.parse accept it): healthy', () => {
  const whole = realMessages(A)
  const at = whole.indexOf('List the files')
  const buf = Buffer.concat([whole.subarray(0, at), Buffer.from('\\ud83c'), whole.subarray(at)])
  const r = diagnosed(A, {[messagesName(A)]: buf, [recordName(A)]: realRecord(A)})
  assert.equal(gen(r, messagesName(A)).class, 'intact')
  assert.equal(r.status, 'healthy')
  assert.equal(r.contextTurns, 5)
})

test('B26/B27 analog: foreign bytes over the conversation (minified code): corrupt (syntax-error, foreign-content) from byte 0, unrecoverable, next-start-loss', () => {
  const foreign = Buffer.from('!function(e){var t={};function n(r){if(t[r])return t[r].exports}}([]);\n')
  const r = diagnosed(A, {[messagesName(A)]: foreign, [recordName(A)]: realRecord(A)})
  assert.equal(gen(r, messagesName(A)).class, 'corrupt')
  assert.deepEqual(gen(r, messagesName(A)).reasons, ['syntax-error', 'foreign-content'])
  assert.equal(r.status, 'unrecoverable')
  assert.equal(r.transcriptTurns, 5)
  assert.ok(ids(r).includes('next-start-loss'))
})

test('B28/B29 analog: a valid conversation emptied to "messages": [] while the record\'s run count says 5: degraded (0 of 5), turns-missing, and the next start replaces the record; repair leaves it (nothing older to restore)', async () => {
  const sb = sandbox()
  try {
    overwrite(sb.h.messages(A), emptiedMessages(realMessages(A)))
    const r = chat((await scan([sb.h.data], sb.h.home)).chats, A).report
    assert.equal(gen(r, messagesName(A)).class, 'intact')
    assert.equal(r.status, 'degraded')
    assert.equal(r.contextTurns, 0)
    assert.equal(r.transcriptTurns, 5)
    assert.deepEqual(ids(r), ['turns-missing', 'next-start-loss'])
    assert.match(find(r, 'turns-missing').message, /turns 1–5 are not in the agent's context, and Cline keeps no older copy/)
    assert.match(find(r, 'next-start-loss').message, /writes a new session record over 1796118198748_i47ig\.json/)
    const rep = await repair([sb.h.data], sb.h.home, sb.stateDir)
    assert.equal(rep.exitCode, 4)
    assert.equal(rep.repairId, null)
  } finally {
    cleanup(sb.root)
  }
})

test('invalid UTF-8 inside a message: Cline loads it with U+FFFD and writes that back: degraded, primary-irregular', () => {
  const whole = realMessages(A)
  const r = diagnosed(A, {[messagesName(A)]: invalidByteAt(whole, whole.indexOf('List the files') + 2), [recordName(A)]: realRecord(A)})
  assert.deepEqual(gen(r, messagesName(A)).reasons, ['invalid-utf8'])
  assert.equal(r.status, 'degraded')
  assert.equal(r.contextTurns, 5)
  assert.match(find(r, 'primary-irregular').message, /U\+FFFD/)
})

test('a damaged sub-agent conversation and compacted view are reported; the session itself stays healthy', () => {
  const r = diagnosed(A, {
    [messagesName(A)]: realMessages(A),
    [recordName(A)]: realRecord(A),
    'agent_1796118200000_abcde.messages.json': cutAt(realMessages(B), 900),
    [`${A}.compaction.json`]: cutAt(realMessages(B), 100),
    'notes.txt': Buffer.from('x'),
  })
  assert.equal(r.status, 'healthy')
  assert.deepEqual(ids(r).sort(), ['compaction-damaged', 'transcript-damaged', 'unknown-file'])
})

// ---- every byte cut ---------------------------------------------------------------------------------------

/** Length without trailing JSON whitespace. */
const trimmed = (b: Buffer) => {
  let n = b.length
  while (n > 0 && (b[n - 1] === 0x20 || b[n - 1] === 0x0a || b[n - 1] === 0x0d || b[n - 1] === 0x09)) n--
  return n
}

for (const id of [A, B]) {
  test(`every byte cut of ${messagesName(id)} (${realMessages(id).length} bytes): never intact before its end; every salvage keeps only whole original messages, byte for byte`, () => {
    const whole = realMessages(id)
    const original = JSON.parse(whole.toString()).messages as unknown[]
    const record = realRecord(id)
    let salvaged = 0
    for (let k = 0; k < whole.length; k++) {
      const r = diagnosed(id, {[messagesName(id)]: cutAt(whole, k), [recordName(id)]: record})
      const g = gen(r, messagesName(id))
      if (k >= trimmed(whole)) {
        assert.equal(g.class, 'intact', `cut ${k}`)
        assert.equal(r.status, 'healthy')
        continue
      }
      assert.notEqual(g.class, 'intact', `cut ${k}`)
      assert.notEqual(r.status, 'healthy', `cut ${k}`)
      if (!g.salvage) continue
      const sv = g.salvage
      assert.equal(sv.keysBorrowed.length, 0)
      if (!sv.candidate) continue
      salvaged++
      const snap = snapshotOf(id, {[messagesName(id)]: cutAt(whole, k)})
      const plan = cline.planRepair!({report: r, snapshot: snap, adapter: cline}, {})
      const restore = plan.actions.find((a) => a.type === 'restore')!
      const bytes = restore.data!
      assert.ok(bytes.subarray(0, sv.bytesKept).equals(whole.subarray(0, sv.bytesKept)), `cut ${k}: the kept bytes are the original's`)
      assert.match(bytes.subarray(sv.bytesKept).toString(), /^[\]}]+$/, `cut ${k}: only closing brackets added`)
      const kept = JSON.parse(bytes.toString()).messages as unknown[]
      assert.equal(kept.length, sv.messages)
      assert.deepEqual(kept, original.slice(0, kept.length), `cut ${k}: whole original messages`)
      assert.equal(r.status, 'repairable')
      assert.equal(r.contextTurns, measureMessages(kept).measure.turns)
    }
    assert.ok(salvaged > whole.length / 2, `most cuts salvage something (${salvaged})`)
  })
}

for (const id of [A, B]) {
  test(`every byte cut of ${recordName(id)}: never intact before its end; a usable salvage always passes Cline's schema and keeps the original bytes`, () => {
  const whole = realRecord(id)
  for (let k = 0; k < trimmed(whole); k++) {
    const r = diagnosed(id, {[messagesName(id)]: realMessages(id), [recordName(id)]: cutAt(whole, k)})
    const g = gen(r, recordName(id))
    assert.notEqual(g.class, 'intact', `cut ${k}`)
    assert.equal(r.contextTurns, id === A ? 5 : 2)
    if (g.salvage?.candidate) {
      assert.equal(r.status, 'repairable', `cut ${k}`)
      const snap = snapshotOf(id, {[messagesName(id)]: realMessages(id), [recordName(id)]: cutAt(whole, k)})
      const bytes = cline.planRepair!({report: r, snapshot: snap, adapter: cline}, {}).actions.find((a) => a.type === 'restore')!.data!
      assert.ok(bytes.subarray(0, g.salvage.bytesKept).equals(whole.subarray(0, g.salvage.bytesKept)), `cut ${k}: the kept bytes are the original's`)
      assert.match(bytes.subarray(g.salvage.bytesKept).toString(), /^}+$/, `cut ${k}: only closing braces added`)
      assert.equal(recordProblem(JSON.parse(bytes.toString())), null, `cut ${k}: Cline's schema accepts it`)
    } else assert.equal(r.status, 'healthy', `cut ${k}: nothing Cline would accept; the conversation is whole`)
  }
})
}

// ---- inspect, bundle, check -------------------------------------------------------------------------------

test('inspect (built CLI) of the torn session: timeline, salvage, and an account of the in-place write and of what the next start destroys', () => {
  const sb = sandbox()
  try {
    installDamageState(sb.h, 'messages-truncate-mid-record', A)
    const r = runCli(['inspect', sb.h.dir(A)], {env: sb.env})
    assert.equal(r.status, 2, r.stderr)
    assert.match(r.stdout, /format cline · status repairable · winner salvage:1796118198748_i47ig\.messages\.json · turns 4\/5/)
    assert.match(r.stdout, /next-start-loss/)
    assert.match(r.stdout, /stops mid-document at byte 8369/)
    assert.match(r.stdout.replace(/\s+/g, ' '), /Cline keeps no older copy of it \(no backup, no temp file\)/)
    assert.match(r.stdout.replace(/\s+/g, ' '), /Before Cline's next start of this session: its resume would overwrite the damaged file/)
    const j = JSON.parse(runCli(['inspect', '--json', sb.h.messages(A)], {env: sb.env}).stdout)
    assert.equal(j.inspection.format, 'cline')
    assert.equal(j.inspection.salvage[0].messages, 15)
  } finally {
    cleanup(sb.root)
  }
})

test('bundle and check: the damaged store bundled, then checked, gives the same verdicts; --redact leaves none of the user\'s text and still diagnoses the same', () => {
  const sb = sandbox()
  try {
    installDamageState(sb.h, 'messages-truncate-mid-record', A)
    const scanJson = JSON.parse(runCli(['scan', '--json', sb.h.data], {env: sb.env}).stdout)
    const verdicts = (chats: ChatReport[]) => chats.map((c) => [c.id, c.status, c.winner, c.contextTurns, c.transcriptTurns, c.findings.map((f) => f.id)]).sort()
    for (const redact of [false, true]) {
      const out = path.join(sb.root, redact ? 'r.tar.gz' : 'b.tar.gz')
      const b = runCli(['bundle', ...(redact ? ['--redact'] : []), '-o', out, sb.h.data], {env: sb.env})
      assert.equal(b.status, 0, b.stderr)
      const c = runCli(['check', '--json', out], {env: sb.env})
      assert.equal(c.status, 2, c.stderr)
      assert.deepEqual(verdicts(JSON.parse(c.stdout).chats), verdicts(scanJson.chats), redact ? 'redacted' : 'plain')
      if (!redact) continue
      const x = path.join(sb.root, 'x')
      mkdirSync(x)
      assert.equal(spawnSync('tar', ['xzf', out, '-C', x]).status, 0)
      const files: string[] = []
      const walk = (d: string) => {
        for (const e of readdirSync(d, {withFileTypes: true})) {
          const p = path.join(d, e.name)
          if (e.isDirectory()) walk(p)
          else if (e.name !== 'chatdoctor-bundle.json') files.push(p)
        }
      }
      walk(x)
      assert.equal(files.length, 4)
      const all = files.map((p) => readFileSync(p).toString()).join('\n')
      for (const secret of ['List the files', 'Show me src/todo', 'TodoStore', 'README', 'You are Cline', '/home/dev', 'demo-app', 'total 20', 'remove(id)', 'tiny todo service', 'Thanks, that is all']) {
        assert.ok(!all.includes(secret), `the redacted bundle still holds "${secret}"`)
      }
      assert.ok(all.includes('<user_input mode=\\"act\\">[redacted:'), 'the SDK markup around a prompt is kept')
    }
  } finally {
    cleanup(sb.root)
  }
})

// ---- live refusal -----------------------------------------------------------------------------------------

/**
 * A process whose command line is Cline's hub daemon (`node -e … --cline-hub-daemon`) and whose environment
 * names the data dir of `home`, until killed.
 */
async function fakeHub(home: string): Promise<ChildProcess> {
  const p = spawn(process.execPath, ['-e', "process.send('up');setInterval(()=>{},1000)", '--', '--cline-hub-daemon', '--host', '127.0.0.1'], {stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: {PATH: process.env.PATH, HOME: home}})
  await new Promise((r) => p.once('message', r))
  return p
}

async function stop(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return
  p.kill('SIGKILL')
  await new Promise((r) => p.once('exit', r))
}

test('Cline command lines: the hub daemon flag, `cline` as the program or the script of node/bun; nothing else', () => {
  assert.ok(isClineCommandLine(['/opt/cline/bin/cline', '--cline-hub-daemon', '--port', '25463']))
  assert.ok(isClineCommandLine(['cline', '--id', A]))
  assert.ok(isClineCommandLine(['/usr/bin/node', '/usr/lib/node_modules/cline/bin/cline']))
  assert.ok(!isClineCommandLine(['/usr/bin/node', '/work/chatdoctor/bin/run.js', 'scan', '/home/u/.cline']))
  assert.ok(!isClineCommandLine(['vim', 'cline']))
})

test('a running Cline hub (its discovery record names a live hub process): scan warns, repair refuses even with --force, nothing written; a record naming a dead pid is ignored', async () => {
  const sb = sandbox()
  const hub = await fakeHub(sb.h.home)
  try {
    installDamageState(sb.h, 'messages-truncate-mid-record', A)
    const locks = path.join(sb.h.data, 'locks', 'hub')
    writeFileSync(path.join(locks, 'production.json'), JSON.stringify({hubId: 'h', protocolVersion: '1', authToken: 'secret-token', host: '127.0.0.1', port: 25463, url: 'ws://127.0.0.1:25463/hub', pid: hub.pid, startedAt: 'x', updatedAt: 'x'}))
    const signs = clineLiveSigns(sb.h.data)
    assert.ok(signs.some((s) => s.pid === hub.pid && /hub daemon \(pid \d+\) is running \(locks\/hub\/production\.json\)/.test(s.what)), JSON.stringify(signs))
    const s = await scan([sb.h.data], sb.h.home)
    const r = chat(s.chats, A).report
    assert.match(find(r, 'agent-running').message, /cline hub stop/)
    assert.ok(!JSON.stringify(r).includes('secret-token'), 'the hub token is never read out')
    const before = hashTree(sb.h.home)
    for (const force of [[], ['--force']]) {
      const rep = runCli(['repair', '--json', ...force, sb.h.data], {env: sb.env})
      assert.equal(rep.status, 2 | 8, rep.stderr)
      const c = JSON.parse(rep.stdout).chats.find((x: ChatReport) => x.id === A)
      assert.equal(c.repair.outcome, 'refused')
      assert.match(c.repair.message, /hub daemon .* is running.*Stop it \(cline hub stop/)
      assert.deepEqual(hashTree(sb.h.home), before, `nothing written ${force.join(' ')}`)
    }
    await stop(hub)
    // The record stays behind (the hub died): a dead pid is no sign.
    assert.deepEqual(clineLiveSigns(sb.h.data), [])
    const rep = runCli(['repair', '--json', sb.h.data], {env: sb.env})
    assert.equal(rep.status, 1 | 4, rep.stderr)
  } finally {
    await stop(hub)
    cleanup(sb.root)
  }
})

test('a hub instance lock held (a SQLite BEGIN EXCLUSIVE, as the hub holds it) refuses the repair; the stale 0-byte lock file of the real store does not', async () => {
  const sb = sandbox()
  const lock = path.join(sb.h.data, 'locks', 'hub', 'production.json.instance.lock')
  assert.ok(existsSync(lock), 'the real store keeps its 0-byte instance lock after hub stop')
  assert.deepEqual(clineLiveSigns(sb.h.data).filter((x) => /instance lock/.test(x.what)), [])
  const holder = spawn(process.execPath, ['-e', `const D=require(${JSON.stringify(path.join(REPO_ROOT, 'node_modules', 'better-sqlite3'))});const db=new D(${JSON.stringify(lock)});db.exec('BEGIN EXCLUSIVE;');process.send('held');setInterval(()=>{},1000)`], {stdio: ['ignore', 'ignore', 'inherit', 'ipc']})
  try {
    await new Promise((r) => holder.once('message', r))
    installDamageState(sb.h, 'messages-truncate-mid-record', A)
    const signs = clineLiveSigns(sb.h.data)
    assert.ok(signs.some((s) => s.pid === holder.pid && /holds the Cline hub instance lock/.test(s.what)), JSON.stringify(signs))
    const rep = runCli(['repair', '--json', '--force', sb.h.data], {env: sb.env})
    assert.equal(rep.status, 2 | 8, rep.stderr)
    assert.equal(JSON.parse(rep.stdout).chats.find((x: ChatReport) => x.id === A).repair.outcome, 'refused')
  } finally {
    await stop(holder)
    cleanup(sb.root)
  }
})

test('Cline starting between the plan and the write: apply refuses at its last look (liveReasons), nothing written; a Cline of another data dir is no sign', async () => {
  const sb = sandbox()
  try {
    installDamageState(sb.h, 'messages-truncate-mid-record', A)
    const s = await scan([sb.h.data], sb.h.home)
    const plans = planRepairs(s.chats).filter((p) => p.actions.length > 0)
    assert.equal(plans.length, 1)
    const torn = readFileSync(sb.h.messages(A))
    const other = await fakeHub(path.join(sb.root, 'another-home'))
    try {
      assert.deepEqual(clineLiveSigns(sb.h.data), [], 'a Cline of another data dir (by its HOME) does not write this one')
    } finally {
      await stop(other)
    }
    const hub = await fakeHub(sb.h.home)
    try {
      const out = await applyChat(plans[0], {fs: nodeFileSystem(), repairId: newRepairId(), version: 'test', stateDir: sb.stateDir, force: false})
      assert.equal(out.outcome, 'refused')
      assert.match(out.message!, /hub daemon \(pid \d+\) is running/)
      assert.ok(readFileSync(sb.h.messages(A)).equals(torn))
      assert.ok(!existsSync(path.join(sb.h.dir(A), '.chatdoctor')))
    } finally {
      await stop(hub)
    }
  } finally {
    cleanup(sb.root)
  }
})

// ---- hostile input ----------------------------------------------------------------------------------------

test('hostile session folders: a symlink is skipped (never followed), a link or a FIFO under the conversation\'s name is never read or replaced, a non-UTF-8 folder name is skipped escaped', async () => {
  const sb = sandbox()
  try {
    const outside = path.join(sb.root, 'outside', A)
    mkdirSync(path.dirname(outside))
    spawnSync('cp', ['-r', sb.h.dir(A), outside])
    const target = hashTree(path.dirname(outside))
    rmSync(sb.h.dir(A), {recursive: true})
    symlinkSync(outside, sb.h.dir(A))
    writeFileSync(path.join(outside, messagesName(A)), cutAt(realMessages(A), 5000))
    const s = await scan([sb.h.data], sb.h.home)
    assert.ok(s.skipped.some((x) => x.path.endsWith(A) && /symbolic link/.test(x.reason)), JSON.stringify(s.skipped))
    assert.ok(!s.chats.some((c) => c.report.id === A && c.report.generations.some((g) => g.class === 'truncated')), 'the link target is not diagnosed')
    delete target[`${A}/${messagesName(A)}`]
    // The conversation file itself a symlink (to a torn copy) or a FIFO: not a file, never written.
    const dirB = sb.h.dir(B)
    const link = path.join(sb.root, 'torn.json')
    writeFileSync(link, cutAt(realMessages(B), 3000))
    unlinkSync(sb.h.messages(B))
    symlinkSync(link, sb.h.messages(B))
    const rb = chat((await scan([dirB], sb.h.home)).chats, B).report
    assert.deepEqual(gen(rb, messagesName(B)).reasons, ['not-a-file'])
    assert.equal(rb.status, 'unrecoverable')
    const before = hashTree(sb.root)
    const rep = await repair([dirB], sb.h.home, sb.stateDir)
    assert.equal(rep.repairId, null)
    assert.deepEqual(hashTree(sb.root), before)
    unlinkSync(sb.h.messages(B))
    assert.equal(spawnSync('mkfifo', [sb.h.messages(B)]).status, 0)
    const rf = chat((await scan([dirB], sb.h.home)).chats, B).report
    assert.deepEqual(gen(rf, messagesName(B)).reasons, ['not-a-file'])
    // A folder name that is not UTF-8: skipped, shown escaped.
    const raw = Buffer.concat([Buffer.from(sb.h.sessions + '/'), Buffer.from([0x31, 0xff, 0x32])])
    mkdirSync(raw)
    const s2 = await scan([sb.h.data], sb.h.home)
    assert.ok(s2.skipped.some((x) => x.path.endsWith('1\\xff2') && /not valid UTF-8/.test(x.reason)), JSON.stringify(s2.skipped))
  } finally {
    cleanup(sb.root)
  }
})

test('hostile index rows: an id with path separators names no chat outside the sessions folder; an unreadable index is a warning, the scan goes on', async () => {
  const sb = sandbox()
  try {
    const {createRequire} = await import('node:module')
    const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3')
    const db = new Database(path.join(sb.h.data, 'db', 'sessions.db'))
    const row = db.prepare('SELECT * FROM sessions WHERE session_id = ?').get(B) as Record<string, unknown>
    for (const id of ['../../../etc', 'a/b', '']) db.prepare(`INSERT INTO sessions (${Object.keys(row).join(',')}) VALUES (${Object.keys(row).map(() => '?').join(',')})`).run(...Object.values({...row, session_id: id}))
    db.close()
    const s = await scan([sb.h.data], sb.h.home)
    assert.deepEqual(s.chats.map((c) => c.report.id).sort(), [A, B])
    deleteIndex(sb.h)
    writeFileSync(path.join(sb.h.data, 'db', 'sessions.db'), Buffer.from('not a database, not at all; 100 bytes of it '.repeat(3)))
    const s2 = await scan([sb.h.data], sb.h.home)
    assert.equal(s2.chats.length, 2)
    for (const c of s2.chats) assert.match(find(c.report, 'index-unreadable').message, /could not be read \(on a private copy\)/)
  } finally {
    cleanup(sb.root)
  }
})

test('a conversation above the streaming threshold: classified by streaming, never called intact or lost for its size; no stack trace', () => {
  const sb = sandbox()
  try {
    installDamageState(sb.h, 'messages-truncate-mid-record', A)
    const r = runCli(['scan', '--json', sb.h.data], {env: {...sb.env, CHATDOCTOR_STREAM_THRESHOLD: '4096'}})
    assert.doesNotMatch(r.stderr, /    at /)
    const report = JSON.parse(r.stdout)
    const a = report.chats.find((c: ChatReport) => c.id === A)
    assert.equal(gen(a, messagesName(A)).class, 'truncated')
    assert.ok(!ids(a).includes('context-lost'))
    assert.match(find(a, 'primary-damaged').message, /found by streaming it/)
    const b = report.chats.find((c: ChatReport) => c.id === B)
    assert.deepEqual(gen(b, messagesName(B)).reasons, ['unreadable'], 'intact but too large to parse: unread, an operational error')
    assert.ok(!ids(b).includes('context-lost'))
    assert.equal(r.status & 8, 8)
  } finally {
    cleanup(sb.root)
  }
})

const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p))
test(
  'as an unprivileged user (nobody, via setpriv): a conversation it cannot read is an operational error (exit 8), never context-lost',
  {skip: process.getuid?.() === 0 && setpriv ? false : 'needs root and setpriv'},
  () => {
    const sb = sandbox()
    try {
      spawnSync('chmod', ['-R', 'a+rX', sb.root])
      spawnSync('chmod', ['600', sb.h.messages(A)])
      const r = spawnSync(setpriv!, ['--reuid=65534', '--regid=65534', '--clear-groups', '--', process.execPath, path.join(REPO_ROOT, 'bin', 'run.js'), 'scan', '--json', sb.h.data], {cwd: '/', env: {...process.env, ...sb.env, NO_COLOR: '1'}, encoding: 'utf8'})
      assert.equal((r.status ?? 0) & 8, 8, r.stderr)
      assert.doesNotMatch(r.stderr, /    at /)
      const a = JSON.parse(r.stdout).chats.find((c: ChatReport) => c.id === A)
      assert.deepEqual(gen(a, messagesName(A)).reasons, ['unreadable'])
      assert.ok(!ids(a).includes('context-lost'))
      assert.ok(!ids(a).includes('next-start-loss'))
    } finally {
      cleanup(sb.root)
    }
  },
)

test('scan --quick reads the ends of a session\'s files: the torn conversation is seen as truncated', () => {
  const sb = sandbox()
  try {
    installDamageState(sb.h, 'messages-truncate-mid-record', A)
    const r = JSON.parse(runCli(['scan', '--quick', '--json', sb.h.data], {env: sb.env}).stdout)
    const a = r.chats.find((c: ChatReport) => c.id === A)
    assert.equal(gen(a, messagesName(A)).class, 'truncated')
    assert.equal(r.chats.find((c: ChatReport) => c.id === B).status, 'healthy')
  } finally {
    cleanup(sb.root)
  }
})

test('classification of the real files: intact, and what every other adapter makes of a Cline folder (nothing)', async () => {
  assert.equal(classifyJsonBytes(realMessages(A)).class, 'intact')
  const sb = sandbox()
  try {
    const s = await scan([sb.h.home], sb.h.home)
    assert.deepEqual([...new Set(s.chats.map((c) => c.report.format))], ['cline'])
    assert.equal(sha256(readFileSync(sb.h.messages(A))), sha256(realMessages(A)))
  } finally {
    cleanup(sb.root)
  }
})
