/**
 * Agents chatdoctor does not diagnose yet (`formats/unsupported/`): what a scan finds of them is never silent and
 * never taken for another agent. Their layouts are laid out by their folder and file names (recognition reads
 * names only, never content); the real homes of agents that left the list for an adapter (Cline CLI, Kilo Code
 * CLI, shared/realdata) are diagnosed, by PATH and as the default roots, and named by no unsupported line.
 */
import assert from 'node:assert/strict'
import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'
import {REALDATA, cleanup, hashTree, runCli, tempDir} from './helpers/fixtures.js'

interface Report {
  exitCode: number
  chats: Array<{path: string; format: string; status: string}>
  skipped: Array<{path: string; reason: string; agent?: string; what?: string}>
}

function scanJson(args: string[], home: string): Report {
  const r = runCli(['scan', '--json', ...args], {env: {HOME: home}})
  const report = JSON.parse(r.stdout) as Report
  assert.equal(r.status, report.exitCode)
  return report
}

/** The unsupported finds of a report: `<agent> <what> at <path>`, sorted. */
function finds(r: Report, home: string): string[] {
  return r.skipped
    .filter((s) => s.agent !== undefined)
    .map((s) => `${s.agent} ${s.what} at ${s.path.replace(/^~/, home).replace(home, '~')}`)
    .sort()
}

/** Creates each path under `root` (a trailing `/` makes a folder, anything else an empty file). */
function layout(root: string, paths: string[]): void {
  for (const p of paths) {
    const full = path.join(root, p)
    if (p.endsWith('/')) mkdirSync(full, {recursive: true})
    else {
      mkdirSync(path.dirname(full), {recursive: true})
      writeFileSync(full, '')
    }
  }
}

describe('agents chatdoctor does not diagnose yet', () => {
  // An agent leaves the list when its adapter joins the registry: its real store is diagnosed, not named.
  const ADAPTED_HOMES = [
    {format: 'cline', home: path.join(REALDATA, 'cline', '3.0.65', 'home')},
    {format: 'kilo', home: path.join(REALDATA, 'kilo', '7.7.7', 'home')},
  ]
  for (const h of ADAPTED_HOMES) {
    test(`an agent that has its adapter is diagnosed, not named unsupported: the real ${h.format} home`, () => {
      const before = hashTree(h.home)
      for (const args of [[h.home], []]) {
        const r = scanJson(args, h.home)
        assert.ok(r.chats.length > 0 && r.chats.every((c) => c.format === h.format), JSON.stringify(r.chats.map((c) => c.format)))
        assert.deepEqual(finds(r, h.home), [])
        assert.ok(!runCli(['scan', ...args], {env: {HOME: h.home}}).stdout.includes('not supported yet'))
      }
      assert.deepEqual(hashTree(h.home), before, 'read-only')
    })
  }

  test('every other agent of the list is recognised by its layout, by PATH and as the default roots, each in the one line', () => {
    const home = tempDir()
    try {
      layout(home, [
        '.cursor/extensions/',
        '.cursor/argv.json',
        '.config/Cursor/User/globalStorage/state.vscdb',
        '.copilot/session-state/0a1b2c3d-1111-2222-3333-444455556666/events.jsonl',
        '.copilot/session-state/0a1b2c3d-1111-2222-3333-444455556666/workspace.yaml',
        '.config/Code/User/workspaceStorage/4f3e2d1c/chatSessions/0a1b2c3d.json',
        '.config/Code/User/globalStorage/github.copilot-chat/commandEmbeddings.json',
        '.continue/sessions/sessions.json',
        '.local/share/zed/threads/threads.db',
        '.open-webui/webui.db',
        '.aider.chat.history.md',
      ])
      const want = [
        'Aider chat history at ~/.aider.chat.history.md',
        'Continue store at ~/.continue',
        'Cursor chat database at ~/.config/Cursor/User/globalStorage/state.vscdb',
        'Cursor store at ~/.cursor',
        'GitHub Copilot CLI store at ~/.copilot',
        'GitHub Copilot chat store at ~/.config/Code/User/globalStorage/github.copilot-chat',
        'Open WebUI store at ~/.open-webui',
        'Zed store at ~/.local/share/zed',
      ]
      for (const args of [[home], []]) {
        const r = scanJson(args, home)
        assert.deepEqual(r.chats, [])
        assert.deepEqual(finds(r, home), want, `scan ${args.length === 0 ? '(default roots)' : 'HOME'}`)
      }
      const human = runCli(['scan', home], {env: {HOME: home}}).stdout.split('\n')
      const line = human.filter((l) => l.startsWith('also found: '))
      assert.equal(line.length, 1, human.join('\n'))
      for (const name of ['1 Aider chat history', '1 Cursor store', '1 Zed store', '1 Open WebUI store']) assert.ok(line[0].includes(name), `${name} in ${line[0]}`)
      assert.ok(line[0].endsWith('(not supported yet)'))
      // The editors' workspace storage is searched only when a PATH leads there.
      const ws = scanJson([path.join(home, '.config', 'Code', 'User', 'workspaceStorage')], home)
      assert.deepEqual(finds(ws, home), ['GitHub Copilot chat sessions folder at ~/.config/Code/User/workspaceStorage/4f3e2d1c/chatSessions'])
    } finally {
      cleanup(home)
    }
  })

  test('a file PATH an unsupported agent claims is named, not a usage error; a file nothing claims still is one', () => {
    const home = tempDir()
    try {
      layout(home, ['.aider.chat.history.md', 'notes.txt'])
      const r = scanJson([path.join(home, '.aider.chat.history.md')], home)
      assert.deepEqual([r.exitCode, r.chats, finds(r, home)], [0, [], ['Aider chat history at ~/.aider.chat.history.md']])
      const other = runCli(['scan', '--json', path.join(home, 'notes.txt')], {env: {HOME: home}})
      assert.equal(other.status, 16, other.stdout)
    } finally {
      cleanup(home)
    }
  })

  test('a Copilot CLI session log copied outside ~/.copilot is that, not a Claude Code or Codex session', () => {
    const home = tempDir()
    try {
      layout(home, ['copies/0a1b2c3d/events.jsonl', 'copies/0a1b2c3d/workspace.yaml'])
      const r = scanJson([path.join(home, 'copies')], home)
      assert.deepEqual([r.chats, finds(r, home)], [[], ['GitHub Copilot CLI session folder at ~/copies/0a1b2c3d']])
    } finally {
      cleanup(home)
    }
  })
})
