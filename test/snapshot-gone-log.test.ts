/**
 * A Claude Code or Codex session log deleted after the agent's hook snapshotted it: the snapshot is a chat of its
 * agent (the log missing, the snapshot the winner), `repair` writes the log back at the path the snapshot's
 * authenticated header records, byte for byte, with evidence and undo; Codex's index finds the restored rollout
 * again. A snapshot whose log lies outside the agent's roots, or outside what the scan searches, is no chat.
 * The homes are the real ones in shared/realdata, copied; the damage (deletion) is done by code.
 */
import assert from 'node:assert/strict'
import {copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {cleanup, runCli, tempDir} from './helpers/fixtures.js'
import {homeEnv} from './helpers/guard-home.js'
import {THREAD_C, codexListed, codexResolve, copyClaudeHome, copyCodexHome, projectionProblems, treeBytes} from './helpers/indexes.js'

interface Chat {
  path: string
  id: string
  format: string
  status: string
  winner: string | null
  findings: Array<{id: string; message: string}>
  generations: Array<{file: string; role: string; class: string | null}>
  repair?: {outcome: string; message: string | null}
}

const envOf = homeEnv

function json(args: string[], env: NodeJS.ProcessEnv, input?: string): {exitCode: number; chats: Chat[]; repairId?: string | null} {
  const r = runCli([...args, '--json'], {env, input})
  assert.ok(r.stdout.trim().startsWith('{'), `no JSON from ${args.join(' ')}: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

const tilde = (p: string, root: string) => '~' + p.slice(root.length)

function undo(id: string, env: NodeJS.ProcessEnv): void {
  const r = runCli(['undo', id, '--json'], {env})
  assert.equal(r.status, 0, r.stdout + r.stderr)
}

test('Claude Code: a log deleted after its Stop hook snapshotted it is a repairable chat; repair writes it back at its recorded path byte for byte, undo removes it again; outside the scan or the agent\'s roots it is no chat', () => {
  const root = tempDir('chatdoctor-gonelog-')
  try {
    copyClaudeHome(root)
    const env = envOf(root)
    const project = path.join(root, '.claude', 'projects', '-home-dev-demo-app')
    const id = '3306629b-a8aa-4dc1-8716-233d3cbaea4c'
    const log = path.join(project, `${id}.jsonl`)
    const original = readFileSync(log)
    // The Stop hook as Claude Code runs it: the hook input as JSON on stdin.
    const input = {session_id: id, transcript_path: log, cwd: path.join(root, 'demo-app'), permission_mode: 'default', hook_event_name: 'Stop', stop_hook_active: false}
    const hook = runCli(['snapshot', '--hook', 'claude-code'], {env, input: JSON.stringify(input)})
    assert.equal(hook.status, 0, hook.stderr)
    assert.equal(hook.stdout, '')

    // A copy of the log outside Claude Code's roots, snapshotted too, then deleted: never a chat.
    const elsewhere = path.join(root, 'elsewhere')
    mkdirSync(elsewhere)
    copyFileSync(log, path.join(elsewhere, `${id}.jsonl`))
    assert.equal(runCli(['snapshot', elsewhere], {env}).status, 0)
    assert.match(runCli(['snapshot', '--list'], {env}).stdout, /~\/elsewhere\//, 'the copy outside the roots was snapshotted')
    rmSync(path.join(elsewhere, `${id}.jsonl`))
    mkdirSync(path.join(root, '.claude', 'projects', 'another-project'))

    rmSync(log)
    const before = treeBytes(path.join(root, '.claude'))
    const scan = json(['scan', path.join(root, '.claude', 'projects')], env)
    const chat = scan.chats.find((c) => c.path === tilde(log, root))
    assert.ok(chat, 'the deleted log is a chat again')
    assert.equal(chat.format, 'claude-code')
    assert.equal(chat.status, 'repairable')
    assert.match(chat.winner ?? '', /^snapshot:/)
    assert.ok(chat.findings.some((f) => f.id === 'primary-missing'))
    assert.equal(json(['scan', root], env).chats.some((c) => c.path.includes('elsewhere')), false, "a snapshot of a log outside the agent's roots is no chat")
    assert.equal(json(['scan', path.join(root, '.claude', 'projects', 'another-project')], env).chats.some((c) => c.path === tilde(log, root)), false, 'nor one outside what the scan searches')

    // With its project folder gone too, it is no chat and no error (its snapshots stay in the store).
    const aside = `${project}.aside`
    renameSync(project, aside)
    const folderGone = json(['scan', path.join(root, '.claude', 'projects')], env)
    assert.equal(folderGone.chats.some((c) => c.path === tilde(log, root)), false)
    assert.equal(folderGone.exitCode & 8, 0, 'no error')
    renameSync(aside, project)

    const rep = json(['repair', '--yes', project], env)
    const r = rep.chats.find((c) => c.path === tilde(log, root))!.repair!
    assert.equal(r.outcome, 'repaired', r.message ?? '')
    assert.ok(readFileSync(log).equals(original), 'written back byte for byte')
    assert.equal(json(['scan', project], env).chats.find((c) => c.path === tilde(log, root))!.status, 'healthy')

    undo(rep.repairId!, env)
    assert.equal(existsSync(log), false, 'undo removes the log the repair wrote')
    const after = treeBytes(path.join(root, '.claude'))
    assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), 'undo leaves exactly the files there were')
    for (const [k, v] of before) assert.ok(after.get(k)!.equals(v), `every byte of ${k} back`)
  } finally {
    cleanup(root)
  }
})

test('Codex: a rollout deleted after its notify hook snapshotted it is restored at its recorded path byte for byte; Codex resolves and lists the thread again, its projection reads right; undo puts every byte back', () => {
  const root = tempDir('chatdoctor-gonelog-')
  try {
    const home = copyCodexHome(root)
    const env = envOf(root)
    const rollout = (codexResolve(home, THREAD_C) as {file: string}).file
    const original = readFileSync(rollout)
    const notification = {type: 'agent-turn-complete', 'thread-id': THREAD_C, 'turn-id': '01a230d3-9a9e', cwd: path.join(root, 'demo-app'), 'input-messages': ['what does git status say?'], 'last-assistant-message': 'Clean.'}
    const hook = runCli(['snapshot', '--hook', 'codex', JSON.stringify(notification)], {env})
    assert.equal(hook.status, 0, hook.stderr)

    rmSync(rollout)
    assert.deepEqual(codexResolve(home, THREAD_C), {error: `no rollout found for thread id ${THREAD_C}`}, 'Codex cannot open the thread')
    const before = treeBytes(home)
    const scan = json(['scan', home], env)
    const chat = scan.chats.find((c) => c.path === tilde(rollout, root))!
    assert.equal(chat.format, 'codex')
    assert.equal(chat.id, THREAD_C)
    assert.equal(chat.status, 'repairable')
    assert.match(chat.winner ?? '', /^snapshot:/)

    const rep = json(['repair', '--yes', home], env)
    assert.equal(rep.chats.find((c) => c.path === tilde(rollout, root))!.repair!.outcome, 'repaired')
    assert.ok(readFileSync(rollout).equals(original), 'written back byte for byte')
    assert.deepEqual(codexResolve(home, THREAD_C), {file: rollout}, '`codex exec resume` opens it again')
    assert.ok(codexListed(home).includes(THREAD_C), 'Codex lists it')
    const problems = projectionProblems(home, THREAD_C)
    assert.ok(problems === null || problems.length === 0, `its projection reads right (or Codex rebuilds it): ${JSON.stringify(problems)}`)
    const again = json(['scan', home], env)
    assert.ok(again.chats.filter((c) => c.format === 'codex').every((c) => c.status === 'healthy'), JSON.stringify(again.chats.map((c) => [c.path, c.status, c.findings.map((f) => f.id)])))

    undo(rep.repairId!, env)
    const after = treeBytes(home)
    assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), 'undo leaves exactly the files there were')
    for (const [k, v] of before) assert.ok(after.get(k)!.equals(v), `every byte of ${k} back`)
  } finally {
    cleanup(root)
  }
})

/** Every snapshot file of the store, by path, with its bytes. */
function storeFiles(root: string): Map<string, Buffer> {
  const dir = path.join(root, '.local', 'state', 'chatdoctor', 'snapshots')
  return treeBytes(dir)
}

test('a log deleted on purpose: scan says repairable (exit 2) and names both choices; snapshot --forget removes only its authenticated snapshots (dry run first, a chat still on disk refused, a tampered file naming it left), then scan exits 0', () => {
  const root = tempDir('chatdoctor-forget-')
  try {
    copyClaudeHome(root)
    const env = envOf(root)
    const projects = path.join(root, '.claude', 'projects')
    const project = path.join(projects, '-home-dev-demo-app')
    const id = '3306629b-a8aa-4dc1-8716-233d3cbaea4c'
    const log = path.join(project, `${id}.jsonl`)
    assert.equal(runCli(['snapshot', projects], {env}).status, 0)
    const listed = JSON.parse(runCli(['snapshot', '--list', '--json'], {env}).stdout) as {snapshots: Array<{file: string; chat: string}>}
    const others = listed.snapshots.filter((s) => s.chat !== log)
    assert.ok(listed.snapshots.some((s) => s.chat === log), 'the log was snapshotted')
    assert.ok(others.length > 0, 'other chats have snapshots too')
    const other = others[0].chat

    rmSync(log)
    const gone = json(['scan', projects], env)
    assert.equal(gone.exitCode & 2, 2, 'repairable')
    assert.equal(gone.chats.find((c) => c.path === tilde(log, root))?.status, 'repairable')
    const human = runCli(['scan', projects], {env}).stdout
    assert.match(human, /repair --dry-run/, 'the repair is one choice')
    assert.ok(human.includes(`snapshot --forget ${tilde(log, root)}`), `forget is the other: ${human}`)

    // A snapshot file that names the gone log in its header but does not authenticate: another chat's, its header rewritten.
    const folderOf = (chat: string) => path.dirname(listed.snapshots.find((s) => s.chat === chat)!.file.replace(/^~/, root))
    const src = readFileSync(others[0].file.replace(/^~/, root))
    const len = src.readUInt32BE(8)
    const header = JSON.parse(src.subarray(12, 12 + len).toString('utf8')) as {chat: string}
    const forged = Buffer.from(JSON.stringify({...header, chat: log}), 'utf8')
    const lenBuf = Buffer.alloc(4)
    lenBuf.writeUInt32BE(forged.length)
    const tampered = path.join(folderOf(log), '20990101T000000.000Z-000000000000.snap')
    writeFileSync(tampered, Buffer.concat([src.subarray(0, 8), lenBuf, forged, src.subarray(12 + len)]))
    const before = storeFiles(root)

    // A chat still on disk is refused, nothing removed.
    const still = runCli(['snapshot', '--forget', other, '--json'], {env})
    assert.equal(still.status, 8, still.stdout)
    assert.match(JSON.parse(still.stdout).refused[0].reason, /still on disk/)
    // The dry run says what would go and removes nothing.
    const dry = JSON.parse(runCli(['snapshot', '--forget', '--dry-run', tilde(log, root), '--json'], {env}).stdout) as {removed: unknown[]; dryRun: boolean}
    assert.ok(dry.dryRun && dry.removed.length > 0)
    assert.deepEqual([...storeFiles(root).keys()], [...before.keys()], 'neither removed anything')

    const forget = runCli(['snapshot', '--forget', tilde(log, root)], {env})
    assert.equal(forget.status, 8, 'the tampered file is left, and said so')
    assert.match(forget.stdout, /removed .*\.snap/)
    assert.match(forget.stderr, /not removed: it names .* but rejected: authentication failed/)
    const after = storeFiles(root)
    assert.ok(existsSync(tampered), 'a file that does not authenticate is never matched')
    for (const [k, v] of before) {
      if (k.startsWith(path.basename(folderOf(log)) + path.sep) && !k.endsWith(path.basename(tampered))) assert.equal(after.has(k), false, `${k} removed`)
      else assert.ok(after.get(k)?.equals(v), `${k} untouched`)
    }
    rmSync(tampered)
    const clean = json(['scan', projects], env)
    assert.equal(clean.chats.some((c) => c.path === tilde(log, root)), false, 'the gone chat is let go')
    assert.equal(clean.exitCode, 0, JSON.stringify(clean.chats.map((c) => [c.path, c.status])))
  } finally {
    cleanup(root)
  }
})

test('Codex: a deleted rollout whose dated folder is now a symbolic link out of the agent\'s roots is no chat; repair writes nothing there', () => {
  const root = tempDir('chatdoctor-gonelog-')
  try {
    const home = copyCodexHome(root)
    const env = envOf(root)
    const rollout = (codexResolve(home, THREAD_C) as {file: string}).file
    const notification = {type: 'agent-turn-complete', 'thread-id': THREAD_C, 'turn-id': '01a230d3-9a9e', cwd: path.join(root, 'demo-app'), 'input-messages': ['what does git status say?'], 'last-assistant-message': 'Clean.'}
    assert.equal(runCli(['snapshot', '--hook', 'codex', JSON.stringify(notification)], {env}).status, 0)

    // The year folder moves away and a link to a folder outside the agent's roots takes its name.
    const sessions = path.join(home, 'sessions')
    const rel = path.relative(sessions, path.dirname(rollout)).split(path.sep)
    const outside = path.join(root, 'outside')
    mkdirSync(path.join(outside, ...rel.slice(1)), {recursive: true})
    renameSync(path.join(sessions, rel[0]!), path.join(root, 'moved'))
    symlinkSync(outside, path.join(sessions, rel[0]!))

    const scan = json(['scan', home], env)
    assert.equal(scan.chats.find((c) => c.path === tilde(rollout, root)), undefined, 'not a chat through the link')
    runCli(['repair', '--yes', home], {env})
    assert.deepEqual(readdirSync(path.join(outside, ...rel.slice(1))), [], 'nothing written outside the roots')
  } finally {
    cleanup(root)
  }
})
