/**
 * The Claude Code and Codex adapters end to end through the built CLI: real public logs scanned healthy and
 * untouched, damaged copies found with their classes and counts, `.jsonl.zst` siblings as generations, and a
 * home folder holding Codebuff, Claude Code and Codex state listed in one report.
 */
import assert from 'node:assert/strict'
import {cpSync, mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'
import {REAL_CHATS, cleanup, copyRealChat, hashTree, runCli, tempDir} from './helpers/fixtures.js'
import {LF, PUBLIC, REAL_SESSIONS, body, join, linesOf, read, zstdStored} from './helpers/sessions.js'

interface Gen {
  file: string
  role: string
  class: string
  reasons: string[]
  lines?: {total: number; intact: number; damaged: number; records: number; byReason: Record<string, number>}
  measure?: Record<string, unknown>
}
interface Chat {
  path: string
  format: string
  id: string
  status: string
  winner: string | null
  transcriptTurns: number | null
  contextTurns: number | null
  findings: Array<{id: string; severity: string; file: string | null}>
  generations: Gen[]
}
interface Report {
  exitCode: number
  chats: Chat[]
  skipped: Array<{path: string; reason: string}>
  errors: unknown[]
}

function scan(args: string[], env: NodeJS.ProcessEnv = {}): Report {
  const r = runCli(['scan', '--json', ...args], {env})
  const report = JSON.parse(r.stdout) as Report
  assert.equal(report.exitCode, r.status, r.stderr)
  return report
}

const CODEX_NAME = 'rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl'

describe('real public session logs', () => {
  test('every real Claude Code and Codex log is intact and healthy, found by content, and nothing is written', () => {
    const root = tempDir()
    try {
      cpSync(PUBLIC, path.join(root, 'public'), {recursive: true})
      const before = hashTree(root)
      const report = scan([path.join(root, 'public')])
      assert.equal(report.exitCode, 0)
      assert.equal(report.chats.length, 6)
      const formats = report.chats.map((c) => [path.basename(c.path), c.format, c.status, c.generations[0].class, c.contextTurns, c.transcriptTurns])
      assert.deepEqual(formats, [
        ['jnarowski-agentcmd__06381696-0074-49f8-863e-6ad4fac507f9.jsonl', 'claude-code', 'healthy', 'intact', 2, 2],
        ['kvsankar-agent-history__session-01.jsonl', 'claude-code', 'healthy', 'intact', 1, 1],
        ['marot-spotter__agent-acompact-e1f845.jsonl', 'claude-code', 'healthy', 'intact', 1, 1],
        ['marot-spotter__short.jsonl', 'claude-code', 'healthy', 'intact', 1, 1],
        ['AcidicSoil-codex-session-viewer__example.jsonl', 'codex', 'healthy', 'intact', 45, 45],
        ['kvsankar-agent-history__session-01.jsonl', 'codex', 'healthy', 'intact', 1, 1],
      ])
      for (const c of report.chats) {
        assert.equal(c.winner, path.basename(c.path))
        assert.ok(c.findings.every((f) => f.severity === 'info'), JSON.stringify(c.findings))
      }
      // One file as PATH: that session only.
      const one = scan([path.join(root, 'public', 'codex', path.basename(REAL_SESSIONS.codex.legacy))])
      assert.deepEqual(one.chats.map((c) => [c.format, c.id]), [['codex', 'cf4def41-21e0-4b91-adb4-5397c1492084']])
      assert.deepEqual(hashTree(root), before)
    } finally {
      cleanup(root)
    }
  })
})

describe('damaged sessions through the CLI', () => {
  test('each damage kind: class, reasons, line counts, status and exit bit', () => {
    const root = tempDir()
    try {
      const S = linesOf(read(REAL_SESSIONS.claude.short))
      const CX = linesOf(read(REAL_SESSIONS.codex.kvsankar))
      const dir = path.join(root, 'proj')
      mkdirSync(dir)
      const files: Record<string, Buffer> = {
        'torn.jsonl': join([...S.slice(0, 14), body(S[14]).subarray(0, 100)]),
        'nul.jsonl': join([...S.slice(0, 6), Buffer.alloc(512), LF, ...S.slice(6)]),
        'interleaved.jsonl': join([...S.slice(0, 6), body(S[6]).subarray(0, 70), ...S.slice(7)]),
        'chain.jsonl': join([...S.slice(0, 6), Buffer.from(S[6].toString().replace(/"parentUuid":"[^"]+"/, '"parentUuid":"00000000-0000-4000-8000-000000000000"')), ...S.slice(7)]),
        'surrogate.jsonl': join([...S.slice(0, 6), Buffer.from(S[6].toString().replace('"text":"', '"text":"\\udc9f')), ...S.slice(7)]),
        [`rollout-bom-${CODEX_NAME.slice(8)}`]: join([Buffer.from([0xef, 0xbb, 0xbf]), ...CX]),
        [`rollout-noheader-${CODEX_NAME.slice(8)}`]: join(CX.slice(1)),
        'zero.jsonl': Buffer.alloc(2048),
      }
      for (const [n, b] of Object.entries(files)) writeFileSync(path.join(dir, n), b)
      const report = scan([dir])
      const by = Object.fromEntries(report.chats.map((c) => [path.basename(c.path), c]))
      const row = (n: string) => {
        const c = by[n]
        const g = c.generations[0]
        return [c.format, c.status, g.class, g.reasons, g.lines?.damaged ?? null, c.contextTurns, c.transcriptTurns, c.findings.map((f) => f.id)]
      }
      assert.deepEqual(row('torn.jsonl'), ['claude-code', 'repairable', 'truncated', ['torn-tail'], 1, 1, 1, ['session-truncated']])
      assert.deepEqual(row('nul.jsonl'), ['claude-code', 'repairable', 'corrupt', ['nul-run'], 1, 1, 1, ['session-corrupt']])
      // N is the winner's after the repair (the chain re-linked across the dropped stub), M every prompt of the log.
      assert.deepEqual(row('interleaved.jsonl'), ['claude-code', 'repairable', 'corrupt', ['interleaved-line'], 1, 1, 1, ['session-corrupt', 'dangling-parent']])
      assert.deepEqual(row('chain.jsonl'), ['claude-code', 'repairable', 'intact', [], 0, 1, 1, ['dangling-parent']])
      // A lone surrogate escape: JSON.parse and the agent read the record; a warning, the file intact.
      assert.deepEqual(row('surrogate.jsonl'), ['claude-code', 'healthy', 'intact', [], 0, 1, 1, ['lone-surrogate']])
      assert.deepEqual(row(`rollout-bom-${CODEX_NAME.slice(8)}`), ['codex', 'repairable', 'corrupt', ['bom'], 1, 1, 1, ['session-corrupt', 'loader-refuses']])
      // Every record intact but the header gone: a repair only a person can make (N 0: Codex reads none of it).
      assert.deepEqual(row(`rollout-noheader-${CODEX_NAME.slice(8)}`), ['codex', 'repairable', 'intact', [], 0, 0, 1, ['missing-header']])
      assert.deepEqual(row('zero.jsonl'), ['claude-code', 'unrecoverable', 'zero-filled', [], 0, null, null, ['session-corrupt', 'context-lost']].map((x, i) => (i === 5 || i === 6 ? by['zero.jsonl'][i === 5 ? 'contextTurns' : 'transcriptTurns'] : x)))
      assert.equal(by['interleaved.jsonl'].generations[0].lines!.records, 14)
      assert.equal(report.exitCode, 2 | 4)
    } finally {
      cleanup(root)
    }
  })

  test('Codex .jsonl and .jsonl.zst are generations of one session; the one with more context wins', () => {
    const root = tempDir()
    try {
      const day = path.join(root, '.codex', 'sessions', '2026', '06', '05')
      mkdirSync(day, {recursive: true})
      const full = read(REAL_SESSIONS.codex.kvsankar)
      const CX = linesOf(full)
      // The plain log torn before the user's prompt; the compressed sibling holds it all.
      writeFileSync(path.join(day, CODEX_NAME), join([...CX.slice(0, 5), body(CX[5]).subarray(0, 40)]))
      writeFileSync(path.join(day, CODEX_NAME + '.zst'), zstdStored(full))
      let report = scan([], {HOME: root})
      assert.equal(report.chats.length, 1)
      let c = report.chats[0]
      assert.deepEqual([c.format, c.status, c.winner, path.basename(c.path)], ['codex', 'repairable', CODEX_NAME + '.zst', CODEX_NAME])
      assert.deepEqual(c.generations.map((g) => [g.file, g.role, g.class]), [[CODEX_NAME, 'primary', 'truncated'], [CODEX_NAME + '.zst', 'compressed', 'intact']])
      assert.ok(c.findings.some((f) => f.id === 'primary-behind'))
      // Only the compressed rollout (the normal state after Codex's compression worker): healthy.
      writeFileSync(path.join(day, CODEX_NAME), Buffer.alloc(0))
      cleanup(path.join(day, CODEX_NAME))
      report = scan([], {HOME: root})
      c = report.chats[0]
      assert.deepEqual([c.status, c.winner, c.contextTurns, path.basename(c.path)], ['healthy', CODEX_NAME + '.zst', 1, CODEX_NAME + '.zst'])
      // A cut .zst beside an intact plain log: a warning, the session stays healthy.
      writeFileSync(path.join(day, CODEX_NAME), full)
      writeFileSync(path.join(day, CODEX_NAME + '.zst'), zstdStored(full).subarray(0, 200))
      report = scan([], {HOME: root})
      c = report.chats[0]
      assert.deepEqual([c.status, c.winner, c.generations[1].class], ['healthy', CODEX_NAME, 'truncated'])
      assert.deepEqual(c.findings.map((f) => [f.id, f.severity]), [['compressed-damaged', 'warning']])
    } finally {
      cleanup(root)
    }
  })

  test('a home folder with Codebuff, Claude Code and Codex state lists all three kinds in one report; overrides honoured', () => {
    const home = tempDir()
    try {
      copyRealChat(REAL_CHATS.tenTurns, home)
      const proj = path.join(home, '.claude', 'projects', '-home-dev-demo-app')
      mkdirSync(path.join(proj, '55604662-cf2a-4331-851a-ec234028f8ca', 'subagents'), {recursive: true})
      cpSync(REAL_SESSIONS.claude.short, path.join(proj, '55604662-cf2a-4331-851a-ec234028f8ca.jsonl'))
      cpSync(REAL_SESSIONS.claude.sidechain, path.join(proj, '55604662-cf2a-4331-851a-ec234028f8ca', 'subagents', 'agent-acompact-e1f845.jsonl'))
      writeFileSync(path.join(home, '.claude', 'history.jsonl'), '{"display":"x","project":"/home/dev"}\n')
      const day = path.join(home, '.codex', 'sessions', '2026', '06', '05')
      mkdirSync(day, {recursive: true})
      cpSync(REAL_SESSIONS.codex.kvsankar, path.join(day, CODEX_NAME))
      mkdirSync(path.join(home, '.codex', 'archived_sessions'))
      cpSync(REAL_SESSIONS.codex.legacy, path.join(home, '.codex', 'archived_sessions', 'rollout-2025-09-10T18-58-38-cf4def41-21e0-4b91-adb4-5397c1492084.jsonl'))
      const before = hashTree(home)
      const report = scan([], {HOME: home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: ''})
      assert.deepEqual(report.chats.map((c) => [c.format, c.status, c.path]), [
        ['claude-code', 'healthy', '~/.claude/projects/-home-dev-demo-app/55604662-cf2a-4331-851a-ec234028f8ca.jsonl'],
        ['claude-code', 'healthy', '~/.claude/projects/-home-dev-demo-app/55604662-cf2a-4331-851a-ec234028f8ca/subagents/agent-acompact-e1f845.jsonl'],
        ['codex', 'healthy', '~/.codex/archived_sessions/rollout-2025-09-10T18-58-38-cf4def41-21e0-4b91-adb4-5397c1492084.jsonl'],
        ['codex', 'healthy', `~/.codex/sessions/2026/06/05/${CODEX_NAME}`],
        ['codebuff', 'healthy', `~/.config/manicode/projects/demo-app/chats/${REAL_CHATS.tenTurns}`],
      ])
      assert.equal(report.exitCode, 0)
      // The same through `scan ~` (a PATH): history.jsonl is not a session.
      const viaPath = scan([home], {HOME: home})
      assert.equal(viaPath.chats.length, 5)
      assert.deepEqual(hashTree(home), before)
      // $CLAUDE_CONFIG_DIR and $CODEX_HOME move the roots.
      const alt = tempDir()
      try {
        cpSync(path.join(home, '.claude'), path.join(alt, 'claude'), {recursive: true})
        cpSync(path.join(home, '.codex'), path.join(alt, 'codex'), {recursive: true})
        const moved = scan([], {HOME: path.join(alt, 'nohome'), CLAUDE_CONFIG_DIR: path.join(alt, 'claude'), CODEX_HOME: path.join(alt, 'codex')})
        assert.deepEqual(moved.chats.map((c) => c.format), ['claude-code', 'claude-code', 'codex', 'codex'])
      } finally {
        cleanup(alt)
      }
    } finally {
      cleanup(home)
    }
  })
})

test('a folder named like a session log holds no session: skipped with why, never a lost context', () => {
  const home = tempDir()
  try {
    const project = path.join(home, '.claude', 'projects', '-home-dev-app')
    mkdirSync(path.join(project, 'notes.jsonl'), {recursive: true})
    const r = runCli(['scan', '--json', project], {env: {HOME: home}})
    assert.equal(r.status, 0, r.stderr)
    const report = JSON.parse(r.stdout) as {chats: unknown[]; skipped: Array<{path: string; reason: string}>}
    assert.deepEqual(report.chats, [])
    assert.deepEqual(report.skipped.map((s) => s.reason), ['notes.jsonl is a folder, not a session log'])
  } finally {
    cleanup(home)
  }
})
