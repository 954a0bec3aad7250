/**
 * What `repair` and its dry run say happened, word for word, on copies of the agents' real state damaged by code:
 * a chat brought back through its index's repair says so (never "tidied": that is only for chats whose actions
 * remove chatdoctor's own leftovers), a deleted log written back from a snapshot is "restored … (it was missing)"
 * with no "originals kept" (there were none), and the messages a hook or a finding writes use the right words.
 */
import assert from 'node:assert/strict'
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {REALDATA, cleanup, nulRunAt, runCli, tempDir} from './helpers/fixtures.js'
import {homeEnv} from './helpers/guard-home.js'
import {copyTree} from './helpers/golden-inputs.js'
import {copyClaudeHome} from './helpers/indexes.js'
import {geminiHook} from '../src/lib/formats/gemini-cli/hook.js'
import {checkStoreExport} from '../src/lib/formats/opencode-family/export.js'
import {KILO} from '../src/lib/formats/kilo/layout.js'

const envOf = homeEnv

/** The lines of one chat's block in a human `repair` output: its heading (naming `name`) to the next blank line. */
function blockOf(out: string, name: string): string[] {
  const lines = out.split('\n')
  const at = lines.findIndex((l) => l.includes(name) && !l.startsWith(' '))
  assert.ok(at >= 0, `no block for ${name} in:\n${out}`)
  const end = lines.indexOf('', at)
  return lines.slice(at, end < 0 ? undefined : end)
}

test('Codex: a rollout its state_5 row no longer points at is "brought back through the repair of its index" in the dry run, never "tidied"', () => {
  const root = tempDir('chatdoctor-wording-')
  try {
    copyTree(path.join(REALDATA, 'codex', '0.169.0', 'home'), root)
    const r = runCli(['repair', '--dry-run', path.join(root, '.codex')], {env: envOf(root)})
    const json = JSON.parse(runCli(['repair', '--dry-run', '--json', path.join(root, '.codex')], {env: envOf(root)}).stdout) as {chats: Array<{id: string; actions: unknown[]; repair: {message: string | null}}>}
    const byIndex = json.chats.filter((c) => c.actions.length === 0 && c.repair.message?.startsWith('brought back through the repair of its index'))
    assert.ok(byIndex.length > 0, 'the realdata home has rollouts its index brings back')
    for (const c of byIndex) {
      const block = blockOf(r.stdout, c.id)
      assert.match(block[0], /^would repair /, block.join('\n'))
      assert.equal(block[1], '  brought back through the repair of its index ~/.codex')
    }
    assert.doesNotMatch(r.stdout, /tid(y|ied)/)
  } finally {
    cleanup(root)
  }
})

test('Claude Code: a deleted log written back from its snapshot is "restored <file> (it was missing) from snapshot <time>", with no "originals kept" (the evidence folder holds only its manifest)', () => {
  const root = tempDir('chatdoctor-wording-')
  try {
    copyClaudeHome(root)
    const env = envOf(root)
    const project = path.join(root, '.claude', 'projects', '-home-dev-demo-app')
    const id = '3306629b-a8aa-4dc1-8716-233d3cbaea4c'
    const log = path.join(project, `${id}.jsonl`)
    const original = readFileSync(log)
    const input = {session_id: id, transcript_path: log, cwd: path.join(root, 'demo-app'), permission_mode: 'default', hook_event_name: 'Stop', stop_hook_active: false}
    assert.equal(runCli(['snapshot', '--hook', 'claude-code'], {env, input: JSON.stringify(input)}).status, 0)
    rmSync(log)

    const dry = blockOf(runCli(['repair', '--dry-run', project], {env}).stdout, `${id}.jsonl`)
    assert.ok(dry.some((l) => /^ {2}would restore 3306629b-a8aa-4dc1-8716-233d3cbaea4c\.jsonl \(it was missing\) from snapshot \d{4}-\d\d-\d\dT[\d:.]+Z \(sha256 [0-9a-f]{12}…\)$/.test(l)), dry.join('\n'))
    const out = runCli(['repair', '--yes', project], {env}).stdout
    const block = blockOf(out, `${id}.jsonl`)
    assert.ok(block.some((l) => /^ {2}restored 3306629b-a8aa-4dc1-8716-233d3cbaea4c\.jsonl \(it was missing\) from snapshot \d{4}-\d\d-\d\dT[\d:.]+Z \(sha256 [0-9a-f]{12}…\)$/.test(l)), block.join('\n'))
    assert.ok(readFileSync(log).equals(original))
    for (const l of block) assert.doesNotMatch(l, /rewrote|no line changed|originals kept|was missing$/)
    assert.ok(block.some((l) => l.startsWith('  to undo: chatdoctor undo ')), 'undo is still offered: the manifest records the file it wrote')
  } finally {
    cleanup(root)
  }
})

test('Gemini CLI hook: the PreCompress entry is described as a snapshot before compression, the AfterAgent one after each turn', () => {
  const r = geminiHook.install(null, {argv: ['chatdoctor', 'snapshot', '--hook', 'gemini-cli'], shell: 'chatdoctor snapshot --hook gemini-cli'})
  assert.ok('text' in r)
  const hooks = (JSON.parse(r.text) as {hooks: Record<string, Array<{hooks: Array<{description: string}>}>>}).hooks
  assert.equal(hooks.PreCompress[0].hooks[0].description, 'chatdoctor snapshot of the session before compression')
  assert.equal(hooks.AfterAgent[0].hooks[0].description, 'chatdoctor snapshot of the session after each turn')
})

test('a document that is no Kilo export is "not a kilo export document" (the article follows the command)', () => {
  const check = checkStoreExport(Buffer.from('{"info": 1, "messages": "x"}\n'), KILO)
  assert.match(check.findings[0]?.message ?? '', /^not a kilo export document: /)
})

test('Claude Code: NULs inside the turn-2 prompt of a log: the repair names turn 2 as the one the agent lacks (6 of 7 reachable), not turn 7', () => {
  const root = tempDir('chatdoctor-wording-')
  try {
    copyClaudeHome(root)
    const env = envOf(root)
    const project = path.join(root, '.claude', 'projects', '-home-dev-demo-app')
    const log = path.join(project, '3306629b-a8aa-4dc1-8716-233d3cbaea4c.jsonl')
    const buf = readFileSync(log)
    // The second prompt's line: a user record whose content is the prompt's text.
    const lines = buf.toString('utf8').split('\n')
    const prompts = lines.flatMap((l, i) => {
      try {
        const v = JSON.parse(l) as {type?: string; isMeta?: boolean; message?: {content?: unknown}}
        return v.type === 'user' && !v.isMeta && typeof v.message?.content === 'string' ? [i] : []
      } catch {
        return []
      }
    })
    const at = lines.slice(0, prompts[1]).reduce((n, l) => n + Buffer.byteLength(l) + 1, 0) + Buffer.byteLength(lines[prompts[1]]) - 30
    writeFileSync(log, nulRunAt(buf, at, 8))
    const json = JSON.parse(runCli(['scan', '--json', log], {env}).stdout) as {chats: Array<{contextTurns: number; transcriptTurns: number; droppedTurns?: number[]}>}
    assert.deepEqual([json.chats[0].contextTurns, json.chats[0].transcriptTurns, json.chats[0].droppedTurns], [6, 7, [2]])
    const block = blockOf(runCli(['repair', '--dry-run', project], {env}).stdout, '3306629b-a8aa-4dc1-8716-233d3cbaea4c.jsonl')
    assert.ok(block.includes('  agent context after the repair: 6 turns of 7 (all but turn 2) reachable'), block.join('\n'))
    assert.ok(block.includes("  lost: turn 2's prompt is in the transcript but not in the agent's memory (its line is damaged)"), block.join('\n'))
    assert.ok(!block.some((l) => l.includes('turn 7')), block.join('\n'))
  } finally {
    cleanup(root)
  }
})
