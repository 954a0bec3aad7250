/**
 * A Claude Code or Codex session log deleted after the agent's hook snapshotted it: the snapshot is a chat of its
 * agent (the log missing, the snapshot the winner), `repair` writes the log back at the path the snapshot's
 * authenticated header records, byte for byte, with evidence and undo; Codex's index finds the restored rollout
 * again. A snapshot whose log lies outside the agent's roots, or outside what the scan searches, is no chat.
 * The homes are the real ones in shared/realdata, copied; the damage (deletion) is done by code.
 */
import assert from 'node:assert/strict'
import {copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {cleanup, inheritedEnv, runCli, tempDir} from './helpers/fixtures.js'
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

function envOf(root: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {...inheritedEnv(), HOME: root, XDG_STATE_HOME: path.join(root, '.local', 'state'), XDG_CONFIG_HOME: path.join(root, '.config'), XDG_DATA_HOME: path.join(root, '.local', 'share')}
  for (const k of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'CHATDOCTOR_SNAPSHOT_KEY']) delete e[k]
  return e
}

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
