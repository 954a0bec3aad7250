/**
 * A chat's state file that is not a regular file (a symbolic link to /dev/zero or out of the chat, a FIFO):
 * chatdoctor never reads or writes through it, and what `scan` says of it is what `repair` does. A chat whose
 * repair would replace it is left for a step by hand (`repair` writes nothing, even with `--force`: outcome
 * `manual` with that step, exit bit 2 as every chat left for a manual repair; nothing failed, so no bit 8 and
 * no operational error): an error finding names the file and the step, the scan exits as the repair does, and
 * the next step is that manual one, not `repair`. A non-regular file named like a
 * session log is such a chat too (never read): never skipped, never a lost session.
 */
import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {REAL_CHATS, cleanup, copyRealChat, hashTree, runCli, tempDir} from './helpers/fixtures.js'
import {buildTask, realTurns, storageDir, taskId, writeStore} from './helpers/vscode-tasks.js'

const P = 'run-state.json'

interface Json {
  exitCode: number
  errors: Array<{path: string; message: string}>
  skipped: Array<{path: string; reason: string}>
  chats: Array<{status: string; findings: Array<{id: string; severity: string; file: string | null; message: string}>; repair?: {outcome: string; message: string | null}}>
}
const json = (args: string[], env: NodeJS.ProcessEnv): Json => JSON.parse(runCli([...args, '--json'], {env}).stdout) as Json

const PRIMARIES: Array<{name: string; make: (file: string, root: string) => void; words: RegExp}> = [
  {name: 'a symbolic link to /dev/zero', make: (f) => symlinkSync('/dev/zero', f), words: /is a symbolic link \(to \/dev\/zero\)/},
  {name: 'a symbolic link to a file outside the chat', make: (f, root) => (writeFileSync(path.join(root, 'outside.json'), '{}\n'), symlinkSync(path.join(root, 'outside.json'), f)), words: /is a symbolic link \(to .*outside\.json\)/},
  {name: 'a FIFO', make: (f) => execFileSync('mkfifo', [f]), words: /is not a regular file \(a FIFO, socket or device\)/},
]

for (const c of PRIMARIES) {
  test(`Codebuff primary that is ${c.name}: scan says what repair does (left for a manual step until moved away), exit 2 both`, () => {
    const root = tempDir('chatdoctor-not-regular-')
    try {
      const home = path.join(root, 'home')
      const dir = copyRealChat(REAL_CHATS.tenTurns, home)
      unlinkSync(path.join(dir, P))
      c.make(path.join(dir, P), root)
      const env = {HOME: home, XDG_STATE_HOME: path.join(root, 'state')}
      const before = hashTree(root)

      const scan = json(['scan', dir], env)
      const blocking = scan.chats[0].findings.filter((f) => f.id === 'not-a-regular-file')
      assert.equal(blocking.length, 1, JSON.stringify(scan.chats[0].findings))
      assert.equal(blocking[0].severity, 'error')
      assert.equal(blocking[0].file, P)
      assert.match(blocking[0].message, c.words)
      assert.match(blocking[0].message, /repair leaves this chat as it is \(even with --force\) until it is moved away by hand/)
      assert.deepEqual(scan.errors, [], 'nothing failed: no operational error')
      assert.equal(scan.exitCode, 2)

      const human = runCli(['scan', dir], {env})
      assert.equal(human.status, scan.exitCode)
      assert.doesNotMatch(human.stdout, /Preview the repair of the 1 repairable chat/)
      assert.match(human.stdout, /run-state\.json of .* is not a regular file and repair never replaces it: move it away by hand/)

      const quick = json(['scan', '--quick', dir], env)
      assert.ok(quick.chats[0].findings.some((f) => f.id === 'not-a-regular-file' && f.severity === 'error' && f.file === P), JSON.stringify(quick.chats[0].findings))
      assert.deepEqual(quick.errors, [])

      const rep = json(['repair', '--force', dir], env)
      assert.equal(rep.chats[0].repair?.outcome, 'manual')
      assert.match(rep.chats[0].repair?.message ?? '', /run-state\.json is (a symbolic link|not a regular file): chatdoctor never replaces or writes through it, even with --force; move it away by hand/)
      assert.deepEqual(rep.errors, [])
      assert.equal(scan.exitCode, rep.exitCode, 'the scan exits as the repair does')
      const dry = runCli(['repair', '--dry-run', dir], {env})
      assert.equal(dry.status, 2)
      assert.match(dry.stdout, /not repaired/)
      assert.match(dry.stdout, /left for a manual repair/)
      assert.doesNotMatch(dry.stdout, /refused/)
      assert.equal(quick.exitCode, rep.exitCode, 'a quick scan too')
      assert.deepEqual(hashTree(root), before, 'scan and the refused repair wrote nothing')
    } finally {
      cleanup(root)
    }
  })
}

test('a FIFO or a symbolic link named like a session log (Claude Code, Codex) is a chat left for a manual step, as a Codebuff primary link: exit 2, never skipped', () => {
  const root = tempDir('chatdoctor-not-regular-')
  try {
    const home = path.join(root, 'home')
    const claude = path.join(home, '.claude', 'projects', '-work-demo')
    const codex = path.join(home, '.codex', 'sessions', '2026', '06', '05')
    mkdirSync(claude, {recursive: true})
    mkdirSync(codex, {recursive: true})
    execFileSync('mkfifo', [path.join(claude, '0b9f2a1e-1111-4222-8333-944455556666.jsonl')])
    symlinkSync('/dev/zero', path.join(claude, '1b9f2a1e-1111-4222-8333-944455556666.jsonl'))
    execFileSync('mkfifo', [path.join(codex, 'rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl')])
    const before = hashTree(root)
    for (const quick of [false, true]) {
      const r = json(['scan', ...(quick ? ['--quick'] : []), claude, codex], {HOME: home})
      assert.equal(r.exitCode, 2, JSON.stringify(r))
      assert.deepEqual(r.skipped, [])
      assert.deepEqual(r.errors, [])
      assert.equal(r.chats.length, 3)
      for (const c of r.chats) {
        assert.equal(c.status, 'repairable')
        assert.deepEqual(c.findings.map((f) => [f.id, f.severity]), [['not-a-regular-file', 'error']], JSON.stringify(c.findings))
        assert.match(c.findings[0].message, /is (a symbolic link \(to \/dev\/zero\)|not a regular file \(a FIFO, socket or device\)): chatdoctor never replaces or writes through it/)
      }
    }
    const rep = json(['repair', '-y', '--force', claude, codex], {HOME: home})
    assert.deepEqual(rep.chats.map((c) => c.repair?.outcome), ['manual', 'manual', 'manual'])
    assert.equal(rep.exitCode, 2)
    assert.deepEqual(hashTree(root), before, 'nothing read through them, nothing written')
  } finally {
    cleanup(root)
  }
})

test('a task folder whose primary is a FIFO (VS Code task formats): a warning names it and the step by hand; scan and repair agree', () => {
  const root = tempDir('chatdoctor-not-regular-')
  try {
    const st = storageDir(root, 'cline')
    const t = buildTask('cline', taskId('cline', 0), realTurns('A'))
    writeStore(st, 'cline', [t])
    const api = path.join(st, 'tasks', t.id, 'api_conversation_history.json')
    rmSync(api)
    execFileSync('mkfifo', [api])
    const scan = json(['scan', path.join(st, 'tasks')], {HOME: root})
    const f = scan.chats[0].findings.find((x) => x.id === 'not-a-regular-file')
    assert.ok(f, JSON.stringify(scan.chats[0].findings))
    assert.equal(f.severity, 'warning')
    assert.match(f.message, /api_conversation_history\.json is not a regular file \(a FIFO, socket or device\): chatdoctor never reads it.*move it away by hand/)
    const rep = json(['repair', '--dry-run', path.join(st, 'tasks')], {HOME: root})
    assert.equal(rep.exitCode, scan.exitCode)
    assert.notEqual(rep.chats[0].repair?.outcome, 'refused')
  } finally {
    cleanup(root)
  }
})
