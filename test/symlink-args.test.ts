/**
 * A chat's state file that is a symbolic link, named directly as a PATH (or reached through a PATH that is a
 * symbolic link to its folder), for Claude Code, Codex and Codebuff: no command writes through it. The link's
 * target (a damaged copy of a real session, in another folder) and that folder keep every byte and mtime through
 * `scan`, `repair -y`, `repair -y --force`, `bundle`, `snapshot` and `undo`; the chat is one left for a step by
 * hand (outcome `manual`, exit 2), never repaired at the link's target, never skipped as no chat.
 */
import assert from 'node:assert/strict'
import {cpSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {REALDATA, REAL_CHATS, assertSameTree, cleanup, copyRealChat, cutAt, hashTree, runCli, tempDir} from './helpers/fixtures.js'

const CLAUDE_ID = '3306629b-a8aa-4dc1-8716-233d3cbaea4c'
const CLAUDE_LOG = path.join(REALDATA, 'claude-code', '2.1.328', 'home', '.claude', 'projects', '-home-dev-demo-app', `${CLAUDE_ID}.jsonl`)
const CODEX_DAY = path.join(REALDATA, 'codex', '0.169.0', 'home', '.codex', 'sessions', '2026', '12', '01')
const CODEX_NAME = readdirSync(CODEX_DAY).filter((n) => n.startsWith('rollout-') && n.endsWith('.jsonl')).sort()[0]

interface Case {
  agent: string
  /** Puts the chat under `home` with its state file a link to `target`; returns the link's path. */
  make: (home: string, target: string) => string
  /** The damaged bytes of the state file (a torn tail: a repair would rewrite it). */
  bytes: () => Buffer
}

const tornLog = (file: string) => () => {
  const b = readFileSync(file)
  return cutAt(b, b.length - 40)
}

const CASES: Case[] = [
  {
    agent: 'Claude Code',
    make: (home, target) => {
      const dir = path.join(home, '.claude', 'projects', '-work-demo')
      mkdirSync(dir, {recursive: true})
      symlinkSync(target, path.join(dir, `${CLAUDE_ID}.jsonl`))
      return path.join(dir, `${CLAUDE_ID}.jsonl`)
    },
    bytes: tornLog(CLAUDE_LOG),
  },
  {
    agent: 'Codex',
    make: (home, target) => {
      const dir = path.join(home, '.codex', 'sessions', '2026', '12', '01')
      mkdirSync(dir, {recursive: true})
      symlinkSync(target, path.join(dir, CODEX_NAME))
      return path.join(dir, CODEX_NAME)
    },
    bytes: tornLog(path.join(CODEX_DAY, CODEX_NAME)),
  },
  {
    agent: 'Codebuff',
    make: (home, target) => {
      const dir = copyRealChat(REAL_CHATS.tenTurns, home)
      unlinkSync(path.join(dir, 'run-state.json'))
      symlinkSync(target, path.join(dir, 'run-state.json'))
      return path.join(dir, 'run-state.json')
    },
    bytes: () => {
      const b = readFileSync(path.join(REALDATA, 'codebuff', REAL_CHATS.tenTurns, 'run-state.json'))
      return cutAt(b, b.length - 40)
    },
  },
]

interface Json {
  exitCode: number
  chats: Array<{status: string; findings: Array<{id: string; severity: string}>; repair?: {outcome: string}}>
  skipped: Array<{path: string; reason: string}>
}

for (const c of CASES) {
  for (const via of ['the link itself', 'a symbolic link to its folder'] as const) {
    test(`${c.agent}: a state file that is a symbolic link, named as ${via}: scan, repair, bundle, snapshot write nothing through it`, () => {
      const root = tempDir('chatdoctor-symlink-args-')
      try {
        const home = path.join(root, 'home')
        const elsewhere = path.join(root, 'elsewhere')
        mkdirSync(elsewhere, {recursive: true})
        const target = path.join(elsewhere, 'A-real.jsonl')
        writeFileSync(target, c.bytes())
        const link = c.make(home, target)
        let arg = link
        if (via !== 'the link itself') {
          arg = path.join(root, 'folder-link')
          symlinkSync(path.dirname(link), arg)
        }
        const out = tempDir('chatdoctor-symlink-args-out-')
        const env = {HOME: home, XDG_STATE_HOME: path.join(out, 'state')}
        const before = hashTree(root)
        try {
          const scan = JSON.parse(runCli(['scan', arg, '--json'], {env}).stdout) as Json
          assert.equal(scan.chats.length, 1, JSON.stringify(scan))
          assert.equal(scan.chats[0].status, 'repairable')
          assert.ok(scan.chats[0].findings.some((f) => f.id === 'not-a-regular-file' && f.severity === 'error'), JSON.stringify(scan.chats[0].findings))
          assert.equal(scan.exitCode, 2)
          for (const args of [['repair', '-y', arg], ['repair', '-y', '--force', arg]]) {
            const rep = JSON.parse(runCli([...args, '--json'], {env}).stdout) as Json
            assert.equal(rep.chats.length, 1, JSON.stringify(rep))
            assert.equal(rep.chats[0].repair?.outcome, 'manual', JSON.stringify(rep.chats[0]))
            assert.equal(rep.exitCode, 2)
          }
          runCli(['bundle', arg, '-o', path.join(out, 'b.tar.gz')], {env})
          runCli(['snapshot', arg], {env})
          assertSameTree(hashTree(root), before, 'nothing written through the link, in its folder or the target folder')
          assert.deepEqual(readdirSync(elsewhere), ['A-real.jsonl'], 'no evidence beside the target')
        } finally {
          cleanup(out)
        }
      } finally {
        cleanup(root)
      }
    })
  }
}

test('undo never writes through a repaired session log that was replaced by a symbolic link since', () => {
  const root = tempDir('chatdoctor-symlink-args-')
  try {
    const home = path.join(root, 'home')
    const dir = path.join(home, '.claude', 'projects', '-work-demo')
    mkdirSync(dir, {recursive: true})
    const log = path.join(dir, `${CLAUDE_ID}.jsonl`)
    writeFileSync(log, tornLog(CLAUDE_LOG)())
    const env = {HOME: home, XDG_STATE_HOME: path.join(root, 'state')}
    const rep = runCli(['repair', '-y', log], {env})
    const id = /chatdoctor undo (\S+)/.exec(rep.stdout)?.[1]
    assert.ok(id, rep.stdout)
    const elsewhere = path.join(root, 'elsewhere')
    mkdirSync(elsewhere)
    renameSync(log, path.join(elsewhere, 'A-real.jsonl'))
    symlinkSync(path.join(elsewhere, 'A-real.jsonl'), log)
    const before = hashTree(elsewhere)
    const linkBefore = hashTree(dir)[`${CLAUDE_ID}.jsonl`]
    for (const args of [['undo', id], ['undo', '--force', id]]) {
      const u = runCli(args, {env})
      assert.notEqual(u.status, 0, u.stdout + u.stderr)
    }
    assertSameTree(hashTree(elsewhere), before, 'the link target is untouched')
    assert.equal(hashTree(dir)[`${CLAUDE_ID}.jsonl`], linkBefore, 'the link is still there')
  } finally {
    cleanup(root)
  }
})

test('a symbolic link to a folder of real chats, given as PATH, is that folder: its regular session logs are repaired in place', () => {
  const root = tempDir('chatdoctor-symlink-args-')
  try {
    const home = path.join(root, 'home')
    const dir = path.join(home, '.claude', 'projects', '-work-demo')
    mkdirSync(dir, {recursive: true})
    cpSync(CLAUDE_LOG, path.join(dir, `${CLAUDE_ID}.jsonl`))
    writeFileSync(path.join(dir, `${CLAUDE_ID}.jsonl`), tornLog(CLAUDE_LOG)())
    symlinkSync(dir, path.join(root, 'folder-link'))
    const env = {HOME: home, XDG_STATE_HOME: path.join(root, 'state')}
    const rep = JSON.parse(runCli(['repair', '-y', path.join(root, 'folder-link'), '--json'], {env}).stdout) as Json
    assert.equal(rep.chats[0].repair?.outcome, 'repaired', JSON.stringify(rep.chats[0]))
    assert.equal(hashTree(root)['folder-link'].split(' ')[0], 'link', 'the folder link itself is left as it is')
  } finally {
    cleanup(root)
  }
})
