/**
 * `undo` trusts nothing it reads back: manifests and repair-log entries edited the way someone who can write the
 * chat folder (or, worse, the state folder too) would edit them. Each is refused with one line and a non-zero
 * exit, and nothing at all is written: not outside the chat dir, not inside it, not even the lock or the log.
 *
 * "Rebound" cases also rewrite the manifest's sha256 in the log entry, as an attacker who controls both would:
 * they check the path, mode and shape rules themselves, not only the binding.
 */
import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync, cpSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {applyChat} from '../src/lib/pipeline/apply.js'
import {nodeFileSystem} from '../src/lib/fsio/fs.js'
import {planChat} from '../src/lib/pipeline/plan.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {REAL_CHATS, cleanup, copyRealChat, cutAt, hashTree, runCli, tempDir} from './helpers/fixtures.js'

const P = 'run-state.json'
const ID = '20260902T100000Z-0d0d0d'
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

interface Sandbox {
  root: string
  home: string
  dir: string
  /** A folder outside the chat dir that nothing may write. */
  outside: string
  state: string
  ev: string
  env: NodeJS.ProcessEnv
}

async function repaired(): Promise<Sandbox> {
  const root = tempDir('chatdoctor-hostile-manifest-')
  const home = path.join(root, 'home')
  const dir = copyRealChat(REAL_CHATS.tenTurns, home)
  writeFileSync(path.join(dir, P), cutAt(readFileSync(path.join(dir, P)), 4096))
  const outside = path.join(root, 'outside')
  mkdirSync(outside)
  writeFileSync(path.join(outside, 'secret'), 'not chatdoctor evidence\n')
  const state = path.join(root, 'state', 'chatdoctor')
  const scan = await scanPaths([dir], {home, env: {}, stateDir: state})
  const out = await applyChat(planChat(scan.chats[0]), {fs: nodeFileSystem(), repairId: ID, version: 'test', stateDir: state, force: false, isAgentProcess: () => false})
  assert.equal(out.outcome, 'repaired', out.message ?? '')
  return {root, home, dir, outside, state, ev: path.join(dir, '.chatdoctor', ID), env: {HOME: home, XDG_STATE_HOME: path.join(root, 'state')}}
}

const logPath = (sb: Sandbox) => path.join(sb.state, 'repairs.jsonl')

/** Edits this repair's `repair` entry of the log. */
function editLog(sb: Sandbox, edit: (e: Record<string, unknown>) => void): void {
  const lines = readFileSync(logPath(sb), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
  for (const e of lines) if (e.type === 'repair' && e.repairId === ID) edit(e)
  writeFileSync(logPath(sb), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
}

/** Edits the manifest; `rebind` also records the new bytes' sha256 in the log entry. */
function editManifest(sb: Sandbox, edit: (m: {files: Array<Record<string, unknown>>; actions: Array<Record<string, unknown>>; [k: string]: unknown}) => void, rebind: boolean): void {
  const file = path.join(sb.ev, 'manifest.json')
  const m = JSON.parse(readFileSync(file, 'utf8'))
  edit(m)
  const bytes = Buffer.from(JSON.stringify(m, null, 2) + '\n')
  writeFileSync(file, bytes)
  if (rebind) editLog(sb, (e) => (e.manifestSha256 = sha(bytes)))
}

const restoreOf = (m: {actions: Array<Record<string, unknown>>}) => m.actions.find((a) => a.type === 'restore')!
const fileOf = (m: {files: Array<Record<string, unknown>>}) => m.files.find((f) => f.path === P)!

const CASES: Array<{name: string; why: RegExp; hostile: (sb: Sandbox) => void}> = [
  {name: 'manifest edited (an absolute restore target), hash not updated', why: /does not match its repair-log entry/, hostile: (sb) => editManifest(sb, (m) => (restoreOf(m).to = path.join(sb.outside, 'pwned')), false)},
  {name: 'absolute restore target', why: /is an absolute path/, hostile: (sb) => editManifest(sb, (m) => ((restoreOf(m).to = path.join(sb.outside, 'pwned')), (fileOf(m).path = path.join(sb.outside, 'pwned'))), true)},
  {name: "restore target with '..'", why: /'\.\.' component/, hostile: (sb) => editManifest(sb, (m) => ((restoreOf(m).to = '../../../../../../outside/pwned'), (fileOf(m).path = '../../../../../../outside/pwned')), true)},
  {name: 'restore target inside .chatdoctor', why: /inside \.chatdoctor/, hostile: (sb) => editManifest(sb, (m) => ((restoreOf(m).to = '.chatdoctor/lock'), (fileOf(m).path = '.chatdoctor/lock')), true)},
  {name: 'restore target through a symlinked folder', why: /is a symbolic link/, hostile: (sb) => {
    symlinkSync(sb.outside, path.join(sb.dir, 'sub'))
    editManifest(sb, (m) => ((restoreOf(m).to = 'sub/pwned'), (fileOf(m).path = 'sub/pwned')), true)
  }},
  {name: "evidence path with '..' (reads a file outside the evidence folder)", why: /'\.\.' component/, hostile: (sb) => editManifest(sb, (m) => (fileOf(m).evidence = '../../../../../../../outside/secret'), true)},
  {name: 'absolute evidence path', why: /is an absolute path/, hostile: (sb) => editManifest(sb, (m) => (fileOf(m).evidence = path.join(sb.outside, 'secret')), true)},
  {name: 'evidence file replaced by a symlink to a file outside', why: /is a symbolic link/, hostile: (sb) => {
    unlinkSync(path.join(sb.ev, P))
    symlinkSync(path.join(sb.outside, 'secret'), path.join(sb.ev, P))
  }},
  {name: 'evidence folder replaced by a symlink to a folder outside', why: /is a symbolic link/, hostile: (sb) => {
    cpSync(sb.ev, path.join(sb.outside, 'ev'), {recursive: true})
    renameSync(sb.ev, path.join(sb.root, 'moved-ev'))
    symlinkSync(path.join(sb.outside, 'ev'), sb.ev)
  }},
  {name: 'setuid mode', why: /mode 0o4755.*permission bits only/, hostile: (sb) => editManifest(sb, (m) => (fileOf(m).mode = 0o4755), true)},
  {name: 'sticky/setgid mode', why: /mode 0o3644/, hostile: (sb) => editManifest(sb, (m) => (fileOf(m).mode = 0o3644), true)},
  {name: 'truncated JSON manifest, hash not updated', why: /does not match its repair-log entry/, hostile: (sb) => writeFileSync(path.join(sb.ev, 'manifest.json'), readFileSync(path.join(sb.ev, 'manifest.json')).subarray(0, 200))},
  {name: 'truncated JSON manifest, rebound', why: /not valid JSON/, hostile: (sb) => {
    const cut = readFileSync(path.join(sb.ev, 'manifest.json')).subarray(0, 200)
    writeFileSync(path.join(sb.ev, 'manifest.json'), cut)
    editLog(sb, (e) => (e.manifestSha256 = sha(cut)))
  }},
  {name: 'manifest of the wrong shape (a file without sha256), rebound', why: /files\[0\]\.sha256 is missing/, hostile: (sb) => editManifest(sb, (m) => delete fileOf(m).sha256, true)},
  {name: 'manifest naming another chat dir, rebound', why: /belongs to another repair or chat/, hostile: (sb) => editManifest(sb, (m) => (m.chatDir = sb.outside), true)},
  // The manifest's file list and actions must agree exactly with the actions the log entry (outside the chat dir) recorded.
  {name: "manifest's preserved file moved under a symlinked folder out of the chat, rebound (the log's preserve ignored)", why: /disagree: the preserve of "run-state\.json" has no preserved file/, hostile: (sb) => {
    symlinkSync(sb.outside, path.join(sb.dir, 'sub'))
    editManifest(sb, (m) => (fileOf(m).path = 'sub/run-state.json'), true)
  }},
  {name: "manifest's preserved file of another sha256, rebound", why: /disagree: the preserve of "run-state\.json" has a preserved file of another evidence name or sha256/, hostile: (sb) => editManifest(sb, (m) => (fileOf(m).sha256 = sha(Buffer.from('other'))), true)},
  {name: "manifest's evidence name swapped for another file of the evidence folder, rebound", why: /disagree: the preserve of "run-state\.json" has a preserved file of another evidence name/, hostile: (sb) => editManifest(sb, (m) => (fileOf(m).evidence = 'manifest.json'), true)},
  {name: 'manifest retargeted to another file of the chat (actions and files alike), rebound', why: /the repair log says "run-state\.json" was replaced, but manifest\.json holds no action for it/, hostile: (sb) => editManifest(sb, (m) => {
    for (const a of m.actions) if (a.from === P || a.to === P) ((a.from = a.from === P ? 'chat-messages.json' : a.from), (a.to = a.to === P ? 'chat-messages.json' : a.to))
    fileOf(m).path = 'chat-messages.json'
  }, true)},
  {name: "manifest's restore made a rewrite, rebound", why: /disagree: action \d differs \(manifest: rewrite of "run-state\.json"; log: restore of "run-state\.json"/, hostile: (sb) => editManifest(sb, (m) => (restoreOf(m).type = 'rewrite'), true)},
  {name: "manifest's preserve and preserved file dropped (undo would remove the primary), rebound", why: /disagree: the log records \d action\(s\), the manifest \d/, hostile: (sb) => editManifest(sb, (m) => ((m.actions = m.actions.filter((a) => a.type !== 'preserve')), (m.files = [])), true)},
  {name: 'manifest with an extra preserved file, rebound', why: /disagree: the preserved file "chat-messages\.json" belongs to no recorded action/, hostile: (sb) => editManifest(sb, (m) => m.files.push({...fileOf(m), path: 'chat-messages.json'}), true)},
  {name: "log entry's actions edited (the restore's target), manifest untouched", why: /disagree: action \d differs \(manifest: restore of "run-state\.json"; log: restore of "chat-messages\.json"/, hostile: (sb) => editLog(sb, (e) => {
    for (const a of e.actions as Array<Record<string, unknown>>) if (a.type === 'restore') a.to = 'chat-messages.json'
  })},
  {name: 'log entry and manifest edited alike (the preserve moved under a symlinked folder), rebound: the restore replaced a file nothing preserved', why: /disagree: the restore of "run-state\.json" replaced a file of sha256 [0-9a-f]{12}…, but the manifest preserved none/, hostile: (sb) => {
    symlinkSync(sb.outside, path.join(sb.dir, 'sub'))
    const moved = (m: {files: Array<Record<string, unknown>>; actions: Array<Record<string, unknown>>}) => {
      for (const a of m.actions) if (a.type === 'preserve') a.from = 'sub/run-state.json'
      fileOf(m).path = 'sub/run-state.json'
    }
    editManifest(sb, moved, true)
    editLog(sb, (e) => moved({files: [{path: P}], actions: e.actions as Array<Record<string, unknown>>}))
  }},
  {name: 'log entry: relative chat dir', why: /not a plain absolute path/, hostile: (sb) => editLog(sb, (e) => (e.chatDir = 'home/chat'))},
  {name: "log entry: chat dir with '..'", why: /not a plain absolute path/, hostile: (sb) => editLog(sb, (e) => (e.chatDir = `${path.dirname(sb.dir)}/x/../${path.basename(sb.dir)}`))},
  {name: 'log entry: chat dir through a symlink', why: /goes through a symbolic link/, hostile: (sb) => {
    symlinkSync(path.dirname(sb.dir), path.join(sb.root, 'link'))
    editLog(sb, (e) => ((e.chatDir = path.join(sb.root, 'link', path.basename(sb.dir))), (e.evidenceDir = path.join(sb.root, 'link', path.basename(sb.dir), '.chatdoctor', ID))))
  }},
  {name: 'log entry: evidence folder outside the chat dir', why: /evidence folder outside/, hostile: (sb) => {
    cpSync(sb.ev, path.join(sb.outside, 'ev'), {recursive: true})
    editLog(sb, (e) => (e.evidenceDir = path.join(sb.outside, 'ev')))
  }},
  {name: 'log entry without the manifest hash (an older or forged entry)', why: /records no sha256 of the manifest/, hostile: (sb) => editLog(sb, (e) => delete e.manifestSha256)},
]

for (const c of CASES) {
  test(`hostile undo input: ${c.name} → refused with one line, exit 8, nothing written anywhere`, async () => {
    const sb = await repaired()
    try {
      c.hostile(sb)
      const before = hashTree(sb.root)
      const r = runCli(['undo', ID], {env: sb.env})
      assert.notEqual(r.status, 0, r.stdout)
      assert.equal(r.status, 8, r.stderr)
      const lines = r.stderr.split('\n').filter((l) => l.trim() !== '')
      assert.equal(lines.length, 1, r.stderr)
      assert.match(lines[0], /^chatdoctor: undo 20260902T100000Z-0d0d0d refused: .*; nothing written$/)
      assert.match(lines[0], c.why)
      assert.doesNotMatch(r.stderr, /    at /)
      assert.equal(r.stdout, '')
      assert.deepEqual(hashTree(sb.root), before, 'nothing written anywhere (no lock, no log entry, no file)')
      assert.ok(!existsSync(path.join(sb.outside, 'pwned')))
    } finally {
      cleanup(sb.root)
    }
  })
}

test('hostile undo input: the untouched repair still undoes (the suite checks a working undo)', async () => {
  const sb = await repaired()
  try {
    const r = runCli(['undo', ID], {env: sb.env})
    assert.equal(r.status, 0, r.stderr)
    assert.match(r.stdout, /Undid repair/)
  } finally {
    cleanup(sb.root)
  }
})
