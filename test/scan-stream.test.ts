/**
 * `scan --json` writes no held report: `scanEach` hands each chat on in the sorted order as soon as it (and its
 * folder, and every chat before it) is done, and the command keeps only each chat's text. These tests hold the
 * streamed document to the held one byte for byte: the reference here is the scan as it was when the whole
 * report was held (every chat diagnosed in discovery order, then the indexes' annotations, quiet index chats
 * left out, chatdoctor's own state added, sorted by path), over a real-shaped fleet with damaged chats, the real
 * Claude Code and Codex homes (index chats, several sessions in one folder), chatdoctor's own leftovers, workers
 * on and off; and a chat that goes away in the middle of a scan is one line while the rest is still written.
 */
import assert from 'node:assert/strict'
import {mkdirSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {discover} from '../src/lib/pipeline/discover.js'
import {ADAPTERS, UNSUPPORTED_AGENTS} from '../src/lib/formats/index.js'
import {annotateSessions, findIndexChats, isQuietIndex} from '../src/lib/pipeline/indexes.js'
import {addOwnState} from '../src/lib/pipeline/own-state.js'
import {readLog, stateDir} from '../src/lib/fsio/repair-log.js'
import {attachSnapshots, snapshotError} from '../src/lib/pipeline/snapshot/attach.js'
import {diagnoseUnit, scanEach, type ScannedChat} from '../src/lib/pipeline/scan.js'
import {buildReport, ChatTally} from '../src/lib/pipeline/report.js'
import {HeldArray, writeJson} from '../src/lib/render/json.js'
import {renderHuman, tableChat} from '../src/lib/render/table.js'
import {forTerminal} from '../src/lib/render/terminal.js'
import {makeChalk} from '../src/lib/render/style.js'
import {UNLIMITED} from '../src/lib/render/width.js'
import {quickExitCode, quickInfo, quickScanPaths} from '../src/lib/pipeline/quick.js'
import type {OperationalError, Report, Skipped} from '../src/lib/model/report.js'
import {tildify} from '../src/lib/fsio/paths.js'
import {makeFleet} from '../scripts/bench/generate.js'
import {cleanup, copyRealChat, REAL_CHATS, runCli, tempDir} from './helpers/fixtures.js'
import {copyClaudeHome, copyCodexHome} from './helpers/indexes.js'

/** The held scan, as `scanPaths` did it before chats were streamed: the oracle of these tests. */
async function heldScan(root: string, home: string): Promise<Report> {
  const env = {}
  const found = await discover([root], ADAPTERS, home, env, UNSUPPORTED_AGENTS)
  const idx = await findIndexChats(found.chats, ADAPTERS, [path.resolve(root)], home, env)
  found.chats.push(...idx.chats)
  found.errors.push(...idx.errors)
  const skipped: Skipped[] = found.skipped.map((s) => ({...s, path: tildify(s.path, home)}))
  const errors: OperationalError[] = found.errors.map((e) => ({...e, path: tildify(e.path, home)}))
  const state = stateDir(home, env)
  const snaps = attachSnapshots(found.chats, {stateDir: state, home, env})
  for (const e of snaps.errors) errors.push({...e, path: tildify(e.path, home)})
  found.chats.push(...snaps.gone)
  let chats: ScannedChat[] = []
  for (const c of found.chats) {
    const r = await diagnoseUnit(c.unit, c.adapter, home, false, {keyring: snaps.keyring ?? undefined, verdictOnly: true})
    if ('error' in r) errors.push(r.error)
    else if ('skipped' in r) skipped.push(r.skipped)
    else {
      chats.push(r)
      for (const f of r.snapshot.files) {
        if (!f.readError) continue
        if (f.large && r.report.generations.some((g) => g.file === f.name && g.class !== null && !g.reasons.includes('unreadable'))) continue
        errors.push({path: tildify(`${c.unit.dir}/${f.name}`, home), message: f.readError})
      }
      for (const s of r.snapshot.snapshots ?? []) if (s.error !== undefined) errors.push(snapshotError(s, r.snapshot.unit.path, (p) => tildify(p, home)))
    }
  }
  annotateSessions(chats)
  chats = chats.filter((c) => !isQuietIndex(c))
  if (chats.length > 0) addOwnState(chats, readLog(state))
  const byPath = (a: {path: string}, b: {path: string}) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
  chats.sort((a, b) => byPath(a.report, b.report))
  skipped.sort(byPath)
  const report = buildReport({command: 'scan', version: 'x', chats: chats.map((c) => c.report), skipped, errors})
  report.roots = searchedRoots(root, home)
  return report
}

/** What `scan` says it searched for PATH `root` (taken from the streamed scan itself: not under test here). */
let roots: Report['roots']
const searchedRoots = (_root: string, _home: string) => roots

/** The streamed document, as `scan --json` writes it, made in process (so workers can be forced on). */
async function streamedText(root: string, home: string, workers: number, onProgress?: (p: {chatsDone: number}) => void): Promise<string> {
  const tally = new ChatTally()
  const held = new HeldArray(4096) // small chunks: many deflated ones, and one left pending
  const r = await scanEach([root], {home, env: {}, keepData: false, verdictOnly: true, indexes: true, workers, parallelAfterMs: workers > 0 ? 0 : undefined, onProgress}, (c) => {
    tally.add(c.report)
    held.push(c.report)
  })
  roots = r.roots
  let out = ''
  writeJson({...tally.head({command: 'scan', version: 'x', skipped: r.skipped, errors: r.errors}), chats: held, roots: r.roots}, (t) => (out += t), 1 << 16)
  return out
}

/** A home with a real-shaped Codebuff fleet (damaged chats among them), the real Claude Code and Codex homes, and leftovers. */
function buildHome(root: string, chats: number): string {
  const home = path.join(root, 'home')
  makeFleet(home, 11, chats)
  copyClaudeHome(home)
  copyCodexHome(home)
  // chatdoctor's own leftover in one chat (own state, added per folder), and a folder no agent's.
  const projects = path.join(home, '.config', 'manicode', 'projects')
  const chat = path.join(projects, 'project-01', 'chats')
  const first = path.join(chat, readdirSync(chat).sort()[0])
  writeFileSync(path.join(first, '.chatdoctor-20260101T000000Z-abcdef-run-state.json.tmp'), '{"torn": ')
  mkdirSync(path.join(home, 'notes'), {recursive: true})
  writeFileSync(path.join(home, 'notes', 'run-state.json'), '{}')
  return home
}

test('streamed scan --json is byte for byte the held document: real-shaped fleet, Claude Code and Codex homes, workers off and on', async () => {
  const root = tempDir('chatdoctor-stream-')
  try {
    const home = buildHome(root, 300)
    const off = await streamedText(home, home, 0)
    const held = JSON.stringify(await heldScan(home, home), null, 2) + '\n'
    const doc = JSON.parse(off) as Report
    assert.ok(doc.chats.length > 300, `${doc.chats.length} chats`)
    assert.ok(doc.chats.some((c) => c.status !== 'healthy'), 'damaged chats among them')
    assert.ok(new Set(doc.chats.map((c) => c.format)).size >= 3, 'several formats')
    assert.ok(doc.chats.some((c) => c.findings.some((f) => f.id === 'chatdoctor-leftover')), 'own state was added')
    const paths = doc.chats.map((c) => c.path)
    assert.deepEqual(paths, [...paths].sort(), 'sorted by path')
    assert.equal(off, held, 'workers off: the same bytes')
    const on = await streamedText(home, home, 1)
    assert.equal(on, held, 'a worker on from the start: the same bytes')
    // The command itself, in its own process (the bundle), with its default workers, none, and one.
    for (const w of ['0', 'auto', '1']) {
      const r = runCli(['scan', '--json', home], {env: {HOME: home, CHATDOCTOR_WORKERS: w}})
      assert.equal(r.stderr, '')
      const cli = JSON.parse(r.stdout) as Report
      assert.equal(r.status, cli.exitCode)
      assert.equal(r.stdout, held.replace('"chatdoctorVersion": "x"', `"chatdoctorVersion": ${JSON.stringify(cli.chatdoctorVersion)}`), `CHATDOCTOR_WORKERS=${w}`)
    }
  } finally {
    cleanup(root)
  }
})

test('a chat gone in the middle of a scan is one line in errors; every other chat is still written, as held', async () => {
  const root = tempDir('chatdoctor-stream-')
  try {
    const home = path.join(root, 'home')
    makeFleet(home, 5, 40)
    const before = JSON.parse(await streamedText(home, home, 0)) as Report
    const victim = before.chats[20].path.replace(/^~/, home)
    let removed = false
    const text = await streamedText(home, home, 0, (p) => {
      if (p.chatsDone === 10 && !removed) {
        rmSync(victim, {recursive: true})
        removed = true
      }
    })
    const doc = JSON.parse(text) as Report
    assert.ok(removed)
    assert.deepEqual(doc.errors, [{path: before.chats[20].path, message: 'the chat disappeared during the scan'}])
    assert.equal(doc.exitCode, before.exitCode | 8)
    assert.deepEqual(doc.chats, before.chats.filter((_, i) => i !== 20), 'the rest, in order')
    const held = await heldScan(home, home)
    assert.deepEqual(doc.chats, held.chats)
  } finally {
    cleanup(root)
  }
})

/** The human report of `report` as `scan` renders it (no colour, `width` columns, next steps for PATH `~`). */
function human(report: Report, verbose: boolean, quiet: boolean, width: number): {stdout: string; stderr: string} {
  return renderHuman(forTerminal(report), {chalk: makeChalk(false), verbose, quiet, width, next: {paths: ['~']}})
}

test('the table made of what it reads of each chat (tableChat) is the text the whole reports give: verbose, quiet, narrow and unlimited', async () => {
  const root = tempDir('chatdoctor-stream-')
  try {
    const home = buildHome(root, 300)
    const held = await heldScan(home, home)
    assert.ok(held.chats.some((c) => c.status === 'repairable') && held.chats.some((c) => c.status === 'unrecoverable'), 'damaged chats among them')
    for (const verbose of [false, true]) {
      const rows = {...held, chats: held.chats.map((c) => tableChat(c, verbose))}
      for (const quiet of [false, true]) {
        for (const width of [40, 100, UNLIMITED]) {
          const label = `verbose ${verbose}, quiet ${quiet}, width ${width}`
          const whole = human(held, verbose, quiet, width)
          assert.ok(whole.stdout.length > 0, label)
          assert.deepEqual(human(rows, verbose, quiet, width), whole, label)
        }
      }
      // A fraction of what the whole reports hold (with --verbose, every finding is kept).
      assert.ok(JSON.stringify(rows.chats).length * (verbose ? 2 : 4) < JSON.stringify(held.chats).length, `verbose ${verbose}: rows are small`)
    }
  } finally {
    cleanup(root)
  }
})

test('scan and scan --quick, which hand each chat on as it comes, print what the held reports give (table and --json)', async () => {
  const root = tempDir('chatdoctor-stream-')
  try {
    const home = path.join(root, 'home')
    makeFleet(home, 13, 200)
    // A chat whose state is larger than the quick windows: judged by its ends only (unverified).
    copyRealChat(REAL_CHATS.large, home)
    const env = {HOME: home, COLUMNS: '100'}
    // The table of a full scan.
    const held = await heldScan(home, home)
    const table = runCli(['scan', home], {env})
    assert.equal(table.status, held.exitCode)
    const expected = human(held, false, false, 100)
    assert.equal(table.stdout, expected.stdout + '\n')
    // A quick scan: its reports held (sorted by path) against the command's output, --json and the table.
    const q = await quickScanPaths([home], {home, env: {}})
    assert.ok(q.chats.some((c) => c.verified === false) && q.chats.some((c) => c.status !== 'healthy'), 'unverified and damaged chats')
    const quickReport = buildReport({command: 'scan', version: 'x', chats: q.chats, skipped: q.skipped, errors: q.errors, exitCode: quickExitCode(q.chats, q.errors, false)})
    Object.assign(quickReport, {quick: quickInfo(q.chats.filter((c) => c.verified === false).length, false)})
    quickReport.roots = q.roots
    const json = runCli(['scan', '--json', '--quick', home], {env})
    assert.equal(json.status, quickReport.exitCode)
    const version = (JSON.parse(json.stdout) as Report).chatdoctorVersion
    assert.equal(json.stdout, JSON.stringify({...quickReport, chatdoctorVersion: version}, null, 2) + '\n')
    const quickTable = runCli(['scan', '--quick', home], {env})
    assert.equal(quickTable.status, quickReport.exitCode)
    assert.equal(quickTable.stdout, human(quickReport, false, false, 100).stdout + '\n')
  } finally {
    cleanup(root)
  }
})
