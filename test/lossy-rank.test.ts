/**
 * A repair that loses records never beats an intact copy of the session that holds them: a log whose repair
 * drops a damaged interior line loses to a snapshot or a `.bak` holding that line's record and every record
 * the repair keeps; when the log has newer records than the copy, the log's repair stays the winner and the
 * report names the copy that holds the dropped line. The logs are real (shared/realdata), damaged by code.
 */
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {diagnoseSession} from '../src/lib/formats/jsonl/session.js'
import {claudeDialect} from '../src/lib/formats/claude-code/session.js'
import {codexDialect} from '../src/lib/formats/codex/session.js'
import type {ChatReport} from '../src/lib/model/report.js'
import {REALDATA, cleanup, runCli, tempDir} from './helpers/fixtures.js'
import {homeEnv} from './helpers/guard-home.js'
import {copyClaudeHome} from './helpers/indexes.js'
import {REAL_SESSIONS, linesOf, read} from './helpers/sessions.js'
import {snapshotOf} from './helpers/snapshot.js'

const ID = '3306629b-a8aa-4dc1-8716-233d3cbaea4c'

/** `log` with `n` NUL bytes over the middle of line `line` (1-based): that record cannot be read back. */
function nulsInLine(log: Buffer, line: number, n = 20): Buffer {
  const out = Buffer.from(log)
  const lines = linesOf(log)
  const start = lines.slice(0, line - 1).reduce((a, l) => a + l.length, 0)
  const mid = start + Math.floor((lines[line - 1].length - 1) / 2)
  out.fill(0, mid, mid + n)
  return out
}

function diagnose(files: Record<string, Buffer>, dialect = claudeDialect): Omit<ChatReport, 'path'> {
  const d = diagnoseSession(snapshotOf(files, `/p/${Object.keys(files)[0]}`, Object.fromEntries(Object.keys(files).map((f, i) => [f, 1_788_000_000_000 + (f.endsWith('.bak') ? 0 : 60_000) + i]))), dialect)
  if (d.kind !== 'chat') throw new Error(`not diagnosed as a chat: ${d.kind}`)
  return d.report
}

test('Claude Code: a snapshot holding the record of a NUL-damaged interior line wins over the log\'s lossy repair; repair restores the log byte for byte', () => {
  const root = tempDir('chatdoctor-lossy-')
  try {
    copyClaudeHome(root)
    const env = homeEnv(root)
    const log = path.join(root, '.claude', 'projects', '-home-dev-demo-app', `${ID}.jsonl`)
    const original = readFileSync(log)
    assert.equal(runCli(['snapshot', log], {env}).status, 0)
    // Line 24 is the first tool result (`ls -la`): the NULs leave no record on it.
    assert.match(linesOf(original)[23].toString('utf8'), /"tool_result"/)
    writeFileSync(log, nulsInLine(original, 24))

    const r = runCli(['inspect', log, '--json'], {env})
    const chat = JSON.parse(r.stdout).chats[0] as ChatReport
    assert.equal(chat.status, 'repairable')
    assert.match(chat.winner ?? '', /^snapshot:/, 'the intact snapshot wins over a repair that drops line 24')
    assert.equal(chat.contextTurns, 7)
    const lost = chat.ranking.find((e) => e.file === `${ID}.jsonl`)
    assert.match(lost?.lostBecause ?? '', /drops line 24; snapshot:\S+ holds/)
    const held = chat.findings.find((f) => f.id === 'lost-lines-held')
    assert.ok(held, 'the finding says the snapshot holds the dropped line')
    assert.match(held.message, /line 24.*snapshot:.*winner/)
    assert.equal(chat.findings.some((f) => f.id === 'primary-behind'), false, 'the log covers as many turns: not "behind"')

    const dry = runCli(['repair', '--dry-run', log], {env})
    assert.doesNotMatch(dry.stdout, /drop-line/, 'no line of the log is dropped')
    const rep = runCli(['repair', log, '--json'], {env})
    assert.equal(rep.status, 1, rep.stdout + rep.stderr)
    assert.ok(readFileSync(log).equals(original), 'the log is the snapshot again, line 24 included')
  } finally {
    cleanup(root)
  }
})

const CLAUDE_LOG = path.join(REALDATA, 'claude-code', '2.1.328', 'home', '.claude', 'projects', '-home-dev-demo-app', `${ID}.jsonl`)

test('Claude Code: a .bak holding every record of the log wins over a repair that drops a damaged interior line', () => {
  const log = read(CLAUDE_LOG)
  const r = diagnose({[`${ID}.jsonl`]: nulsInLine(log, 24), [`${ID}.jsonl.bak`]: log})
  assert.equal(r.status, 'repairable')
  assert.equal(r.winner, `${ID}.jsonl.bak`)
  assert.match(r.ranking[1].lostBecause ?? '', /drops line 24/)
  assert.ok(r.findings.some((f) => f.id === 'lost-lines-held' && f.file === `${ID}.jsonl`))
})

test('Claude Code: a log with newer records than its .bak keeps its repair; the report names the .bak as holding the dropped line', () => {
  const log = read(CLAUDE_LOG)
  const lines = linesOf(log)
  const older = Buffer.concat(lines.slice(0, 103))
  const r = diagnose({[`${ID}.jsonl`]: nulsInLine(log, 24), [`${ID}.jsonl.bak`]: older})
  assert.equal(r.winner, `${ID}.jsonl`, 'the log reaches turn 7, the .bak only 6')
  assert.equal(r.contextTurns, 7)
  const held = r.findings.find((f) => f.id === 'lost-lines-held')
  assert.ok(held, 'the .bak holding line 24 is named')
  assert.match(held.message, new RegExp(`drops line 24; ${ID}\\.jsonl\\.bak holds`))
})

test('Claude Code: an intact .bak that lacks the dropped record is no reason to pass the repair over', () => {
  const log = read(CLAUDE_LOG)
  const lines = linesOf(log)
  // The copy holds every other line but not line 24: it holds nothing the repair drops.
  const without = Buffer.concat([...lines.slice(0, 23), ...lines.slice(24)])
  const r = diagnose({[`${ID}.jsonl`]: nulsInLine(log, 24), [`${ID}.jsonl.bak`]: without})
  assert.equal(r.winner, `${ID}.jsonl`)
  assert.equal(r.findings.some((f) => f.id === 'lost-lines-held'), false)
})

test('Codex: a .bak holding every record of the rollout wins over a repair that drops a damaged interior line', () => {
  const log = read(REAL_SESSIONS.codex.kvsankar)
  const name = 'rollout-2025-01-01T00-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl'
  const before = diagnose({[name]: nulsInLine(log, 5), [`${name}.bak`]: log}, codexDialect)
  assert.equal(before.winner, `${name}.bak`)
  assert.match(before.ranking[1].lostBecause ?? '', /drops line 5/)
})
