/**
 * Agents chatdoctor does not diagnose yet (`formats/unsupported/`): what a scan finds of them is never silent and
 * never taken for another agent. The real homes the Gemini CLI, Cline and Kilo Code binaries wrote
 * (shared/realdata) are scanned by PATH and as the default roots; the other agents' layouts are laid out by
 * their folder and file names (recognition reads names only, never content).
 */
import assert from 'node:assert/strict'
import {cpSync, mkdirSync, readdirSync, writeFileSync} from 'node:fs'
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

const REAL_HOMES = [
  {agent: 'Gemini CLI', home: path.join(REALDATA, 'gemini-cli', '0.61.0', 'home'), found: ['Gemini CLI store at ~/.gemini'], line: 'also found: 1 Gemini CLI store (not supported yet)'},
  {agent: 'Cline', home: path.join(REALDATA, 'cline', '3.0.65', 'home'), found: ['Cline store at ~/.cline'], line: 'also found: 1 Cline store (not supported yet)'},
  {agent: 'Kilo Code', home: path.join(REALDATA, 'kilo', '7.7.7', 'home'), found: ['Kilo Code CLI store at ~/.local/share/kilo'], line: 'also found: 1 Kilo Code CLI store (not supported yet)'},
]

describe('agents chatdoctor does not diagnose yet', () => {
  for (const h of REAL_HOMES) {
    test(`${h.agent}: the real home is a skipped entry naming the agent, in one line of the default output, by PATH and as the default roots`, () => {
      const before = hashTree(h.home)
      for (const args of [[h.home], []]) {
        const r = scanJson(args, h.home)
        assert.deepEqual(r.chats, [], 'no chat: nothing of it is taken for a supported agent')
        assert.deepEqual(finds(r, h.home), h.found)
        assert.ok(r.skipped.every((s) => s.agent === undefined || s.reason.includes('not supported yet')))
        assert.equal(r.exitCode, 0)
        const human = runCli(['scan', ...args], {env: {HOME: h.home}})
        assert.ok(human.stdout.split('\n').includes(h.line), human.stdout)
      }
      assert.deepEqual(hashTree(h.home), before, 'read-only')
    })
  }

  test('a Gemini CLI chat file is never a Claude Code session, even in a Claude Code project folder', () => {
    const home = tempDir()
    try {
      const proj = path.join(home, '.claude', 'projects', '-home-dev-demo-app')
      mkdirSync(proj, {recursive: true})
      const claude = path.join(REALDATA, 'claude-code', '2.1.328', 'home', '.claude', 'projects', '-home-dev-demo-app', '3306629b-a8aa-4dc1-8716-233d3cbaea4c.jsonl')
      cpSync(claude, path.join(proj, path.basename(claude)))
      const chats = path.join(REALDATA, 'gemini-cli', '0.61.0', 'home', '.gemini', 'tmp', 'demo-app', 'chats')
      for (const n of readdirSync(chats)) cpSync(path.join(chats, n), path.join(proj, n))
      for (const args of [[proj], []]) {
        const r = scanJson(args, home)
        assert.deepEqual(r.chats.map((c) => [path.basename(c.path), c.format, c.status]), [[path.basename(claude), 'claude-code', 'healthy']])
        assert.deepEqual(finds(r, home), ['Gemini CLI chats folder at ~/.claude/projects/-home-dev-demo-app'])
      }
      // One Gemini chat file given by its path.
      const one = readdirSync(chats)[0]
      const r = scanJson([path.join(proj, one)], home)
      assert.deepEqual([r.chats, finds(r, home)], [[], [`Gemini CLI chat file at ~/.claude/projects/-home-dev-demo-app/${one}`]])
    } finally {
      cleanup(home)
    }
  })

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
        '.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1748000000000/ui_messages.json',
        '.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/0a1b2c3d/api_conversation_history.json',
        '.config/Code/User/globalStorage/kilocode.kilo-code/tasks/0a1b2c3d/api_conversation_history.json',
        '.continue/sessions/sessions.json',
        '.local/share/zed/threads/threads.db',
        '.open-webui/webui.db',
        '.claude.json',
        '.claude/backups/.claude.json.backup.1796115411707',
        '.aider.chat.history.md',
      ])
      const want = [
        'Aider chat history at ~/.aider.chat.history.md',
        'Claude Code config backup at ~/.claude/backups/.claude.json.backup.1796115411707',
        'Claude Code config file at ~/.claude.json',
        'Cline extension store at ~/.config/Code/User/globalStorage/saoudrizwan.claude-dev',
        'Continue store at ~/.continue',
        'Cursor chat database at ~/.config/Cursor/User/globalStorage/state.vscdb',
        'Cursor store at ~/.cursor',
        'GitHub Copilot CLI store at ~/.copilot',
        'GitHub Copilot chat sessions folder at ~/.config/Code/User/workspaceStorage/4f3e2d1c/chatSessions',
        'GitHub Copilot chat store at ~/.config/Code/User/globalStorage/github.copilot-chat',
        'Kilo Code extension store at ~/.config/Code/User/globalStorage/kilocode.kilo-code',
        'Open WebUI store at ~/.open-webui',
        'Roo Code extension store at ~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline',
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
      for (const name of ['1 Aider chat history', '1 Cursor store', '1 Zed store', '1 Open WebUI store', '1 Claude Code config file']) assert.ok(line[0].includes(name), `${name} in ${line[0]}`)
      assert.ok(line[0].endsWith('(not supported yet)'))
    } finally {
      cleanup(home)
    }
  })

  test("a task folder of Cline's layout outside any extension folder names the three agents that share it, never one of them", () => {
    const home = tempDir()
    try {
      layout(home, ['backup/tasks/0a1b2c3d/api_conversation_history.json', 'backup/tasks/0a1b2c3d/ui_messages.json'])
      const r = scanJson([path.join(home, 'backup')], home)
      assert.deepEqual(finds(r, home), ['Cline, Roo Code or Kilo Code task folder at ~/backup/tasks/0a1b2c3d'])
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
