/**
 * Snapshots, piece by piece: the sealed file (tampering, truncation, another key), the key (made 0600, a loose
 * one refused, the environment's), each agent's settled rule on its real logs cut by code, the caps, dedupe,
 * retention and pruning, redaction (and that a redacted snapshot ranks only when asked), snapshots as
 * generations of a scan (a rejected one is one error line), and bad input to hook mode and guard (one line,
 * nothing half-written, exit 0 for the agent).
 */
import assert from 'node:assert/strict'
import {chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {RecordingFileSystem, nodeFileSystem} from '../src/lib/fsio/fs.js'
import {claudeDialect} from '../src/lib/formats/claude-code/session.js'
import {codexDialect} from '../src/lib/formats/codex/session.js'
import {analyzeJsonl} from '../src/lib/formats/gemini-cli/session.js'
import {geminiUnsettled} from '../src/lib/formats/gemini-cli/snapshot.js'
import {classifyJsonlBytes} from '../src/lib/classify/jsonl.js'
import {settleMessages} from '../src/lib/formats/anthropic-messages/index.js'
import {isPrompt as isClinePrompt} from '../src/lib/formats/cline/messages.js'
import type {SnapshotHeader} from '../src/lib/model/snapshot.js'
import {guardInstall, guardUninstall} from '../src/lib/pipeline/snapshot/guard.js'
import {HOOK_LOG, runHook} from '../src/lib/pipeline/snapshot/hook.js'
import {pruneSnapshots, takeSnapshots} from '../src/lib/pipeline/snapshot/take.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {ensureKey, readKey} from '../src/lib/snapshot/key.js'
import {openSnapshot, sealSnapshot} from '../src/lib/snapshot/seal.js'
import {listStore} from '../src/lib/snapshot/store.js'
import {REALDATA, REAL_CHATS, TEN_TURN_TEMP, cleanup, copyRealChat, copyWritable, runCli, tempDir} from './helpers/fixtures.js'
import {PUBLIC, REAL_SESSIONS} from './helpers/sessions.js'

const CLAUDE_SESSION = '3306629b-a8aa-4dc1-8716-233d3cbaea4c'

/** A fake home with the real Claude Code, Codex and OpenCode stores and a Codebuff chat, copied. */
function home(): {home: string; env: NodeJS.ProcessEnv; claudeLog: string; codexLog: string; opencode: string; codebuff: string} {
  const h = tempDir('chatdoctor-snap-')
  const env: NodeJS.ProcessEnv = {HOME: h, XDG_STATE_HOME: path.join(h, '.local', 'state'), XDG_CONFIG_HOME: path.join(h, '.config'), XDG_DATA_HOME: path.join(h, '.local', 'share')}
  copyWritable(path.join(REALDATA, 'claude-code', '2.1.328', 'home', '.claude'), path.join(h, '.claude'))
  copyWritable(path.join(REALDATA, 'codex', '0.169.0', 'home', '.codex', 'sessions'), path.join(h, '.codex', 'sessions'))
  const opencode = copyWritable(path.join(REALDATA, 'opencode', '1.1.65', 'data', 'opencode'), path.join(h, '.local', 'share', 'opencode'))
  const codebuff = copyRealChat(REAL_CHATS.tenTurns, h)
  return {
    home: h,
    env,
    claudeLog: path.join(h, '.claude', 'projects', '-home-dev-demo-app', `${CLAUDE_SESSION}.jsonl`),
    codexLog: path.join(h, '.codex', 'sessions', '2026', '12', '01', 'rollout-2026-12-01T08-58-21-01a230d3-910e-7ab3-9c7f-f7f164ff1ff1.jsonl'),
    opencode,
    codebuff,
  }
}

const fs = () => nodeFileSystem()
const opts = (h: {home: string; env: NodeJS.ProcessEnv}, extra: object = {}) => ({home: h.home, env: h.env, fs: fs(), ...extra})
const lines = (b: Buffer) => b.toString('utf8').split('\n').filter((l) => l.trim() !== '')
const records = (b: Buffer) => lines(b).map((l) => JSON.parse(l) as Record<string, unknown>)
/** The log cut after record `n` (a log that ends at a line boundary: intact, just shorter). */
const cutAfter = (b: Buffer, n: number) => Buffer.from(lines(b).slice(0, n).join('\n') + '\n')

function header(over: Partial<SnapshotHeader> = {}): Omit<SnapshotHeader, 'keyId' | 'bytes' | 'sha256'> {
  return {v: 1, format: 'claude-code', chat: '/home/u/.claude/projects/p/s.jsonl', id: 's', time: '2026-12-01T09:00:00.000Z', turns: 3, messages: 9, kind: 'generation', target: 's.jsonl', redacted: false, ...over}
}

test('a sealed snapshot opens with its key; tampering, truncation, another key and garbage are each rejected with one line', () => {
  const key = Buffer.alloc(32, 7)
  const plain = Buffer.from('{"type":"user","message":{"content":"secret prompt"}}\n')
  const {bytes, header: h} = sealSnapshot(header(), plain, key)
  const ok = openSnapshot(bytes, key)
  assert.ok('data' in ok && ok.data.equals(plain) && ok.header.sha256 === h.sha256)
  assert.equal(bytes.includes(Buffer.from('secret prompt')), false, 'the plaintext is not in the file')
  const rejected = (b: Buffer, k = key) => {
    const r = openSnapshot(b, k)
    assert.ok('error' in r, 'rejected')
    assert.equal(r.error.includes('\n'), false, 'one line')
    return r.error
  }
  const body = Buffer.from(bytes)
  body[body.length - 20] ^= 1
  assert.match(rejected(body), /authentication failed/)
  const head = Buffer.from(bytes.toString('latin1').replace('"turns":3', '"turns":9'), 'latin1')
  assert.match(rejected(head), /authentication failed/, 'a header changed in the clear is caught by the tag')
  assert.match(rejected(bytes.subarray(0, bytes.length - 5)), /authentication failed|truncated/)
  assert.match(rejected(bytes.subarray(0, 30)), /truncated/)
  assert.match(rejected(bytes, Buffer.alloc(32, 8)), /another key/)
  assert.match(rejected(Buffer.from('{"not": "a snapshot"}')), /not a chatdoctor snapshot/)
})

test('the key is made once, mode 0600; a key file others may read is refused; CHATDOCTOR_SNAPSHOT_KEY wins; a bad one is one line', async () => {
  const h = tempDir('chatdoctor-key-')
  try {
    const env = {XDG_CONFIG_HOME: path.join(h, 'cfg')}
    assert.ok('absent' in readKey(h, env), 'no key until one is made')
    const made = await ensureKey(fs(), h, env)
    assert.ok('key' in made && made.key.length === 32)
    const file = path.join(h, 'cfg', 'chatdoctor', 'snapshot.key')
    assert.match(readFileSync(file, 'latin1'), /^[0-9a-f]{64}\n$/)
    const again = await ensureKey(fs(), h, env)
    assert.ok('key' in again && again.key.equals(made.key), 'made once')
    chmodSync(file, 0o644)
    const loose = readKey(h, env)
    assert.ok('error' in loose && /chmod 600/.test(loose.error), 'a loose key file is refused, with the fix')
    const fromEnv = readKey(h, {...env, CHATDOCTOR_SNAPSHOT_KEY: 'ab'.repeat(32)})
    assert.ok('key' in fromEnv && fromEnv.key.equals(Buffer.alloc(32, 0xab)) && fromEnv.source === 'CHATDOCTOR_SNAPSHOT_KEY')
    const bad = readKey(h, {...env, CHATDOCTOR_SNAPSHOT_KEY: 'not-a-key'})
    assert.ok('error' in bad && !bad.error.includes('\n'))
  } finally {
    cleanup(h)
  }
})

test('Claude Code: settled only when the last prompt is answered and no tool call is open (its real log, cut by code)', () => {
  const log = readFileSync(path.join(REALDATA, 'claude-code', '2.1.328', 'home', '.claude', 'projects', '-home-dev-demo-app', `${CLAUDE_SESSION}.jsonl`))
  const recs = records(log)
  assert.equal(claudeDialect.settle!(recs).unsettled, null, 'the finished session is settled')
  const isToolUse = (v: Record<string, unknown>) => v.type === 'assistant' && JSON.stringify(v.message).includes('"type":"tool_use"')
  const isToolResult = (v: Record<string, unknown>) => v.type === 'user' && JSON.stringify(v.message).includes('"type":"tool_result"')
  const lastUse = recs.map(isToolUse).lastIndexOf(true)
  assert.match(claudeDialect.settle!(records(cutAfter(log, lastUse + 1))).unsettled ?? '', /pending/, 'cut after a tool_use: the call is open')
  const lastResult = recs.map(isToolResult).lastIndexOf(true)
  assert.match(claudeDialect.settle!(records(cutAfter(log, lastResult + 1))).unsettled ?? '', /not answered after its last tool result/, 'cut after the tool result: the answer is not on disk yet (the Stop hook race)')
  const lastPrompt = recs.map((v) => v.type === 'user' && typeof (v.message as {content?: unknown})?.content === 'string' && v.isMeta !== true && !String((v.message as {content: string}).content).startsWith('<')).lastIndexOf(true)
  assert.match(claudeDialect.settle!(records(cutAfter(log, lastPrompt + 1))).unsettled ?? '', /no answer/, 'cut after the last prompt: unanswered')
})

test('Gemini CLI: settled only when the last turn is a complete gemini answer with every tool call resolved (its real session, cut by code)', () => {
  const log = readFileSync(path.join(REALDATA, 'gemini-cli', '0.61.0', 'home', '.gemini', 'tmp', 'demo-app', 'chats', 'session-2026-12-01T09-42-6e65aa12.jsonl'))
  const settle = (bytes: Buffer) => {
    const a = analyzeJsonl(classifyJsonlBytes(bytes), true)
    return geminiUnsettled(a.replay.messages, a.counts)
  }
  assert.equal(settle(log), null, 'the finished session is settled')
  const recs = records(log)
  const withCall = recs.map((v) => v.type === 'gemini' && Array.isArray(v.toolCalls) && v.toolCalls.length > 0).lastIndexOf(true)
  // The CLI writes the call's record with its final status; the call's id only, without a status, is one still running.
  const running = Buffer.concat([cutAfter(log, withCall), Buffer.from(JSON.stringify({...recs[withCall], toolCalls: (recs[withCall].toolCalls as Array<Record<string, unknown>>).map((c) => ({id: c.id, name: c.name, args: c.args, status: 'executing'}))}) + '\n')])
  assert.match(settle(running) ?? '', /tool call/, 'a tool call still running')
  assert.match(settle(cutAfter(log, withCall + 1)) ?? '', /tool call/, 'cut after the call record: the answer is a tool call, not the final answer')
  const lastPrompt = recs.map((v) => v.type === 'user' && JSON.stringify(v.content).includes('"text"') && !JSON.stringify(v.content).includes('<session_context>')).lastIndexOf(true)
  assert.match(settle(cutAfter(log, lastPrompt + 1)) ?? '', /no answer/, 'cut after the last prompt: unanswered')
})

test('Cline CLI and the VS Code task folders: settled only when the last message is the assistant\'s and every tool_use is answered; a last-message attempt_completion waits for the user (the real Cline conversation, cut by code)', () => {
  const doc = JSON.parse(readFileSync(path.join(REALDATA, 'cline', '3.0.65', 'home', '.cline', 'data', 'sessions', '1796118198748_i47ig', '1796118198748_i47ig.messages.json'), 'utf8')) as {messages: Array<{role: string; content: Array<Record<string, unknown>>}>}
  const msgs = doc.messages
  assert.equal(settleMessages(msgs, isClinePrompt), null, 'the finished conversation is settled')
  const lastUse = msgs.map((m) => m.role === 'assistant' && m.content.some((b) => b.type === 'tool_use')).lastIndexOf(true)
  assert.match(settleMessages(msgs.slice(0, lastUse + 1), isClinePrompt) ?? '', /1 tool call without a result/, 'cut after a tool_use: the call is open')
  assert.match(settleMessages(msgs.slice(0, lastUse + 2), isClinePrompt) ?? '', /no answer yet/, 'cut after its tool_result: the answer is not written yet')
  // A task ending in attempt_completion waits for the user: settled for the extensions, not for a tool the agent still runs.
  const completion = [...msgs, {role: 'assistant', content: [{type: 'tool_use', id: 'toolu_done', name: 'attempt_completion', input: {result: 'x'}}]}]
  assert.equal(settleMessages(completion, isClinePrompt, new Set(['attempt_completion'])), null)
  assert.match(settleMessages(completion, isClinePrompt) ?? '', /tool call/)
})

test('Codex: settled only after task_complete with every call answered; the pre-session_meta format by its last assistant message', () => {
  const log = readFileSync(path.join(REALDATA, 'codex', '0.169.0', 'home', '.codex', 'sessions', '2026', '12', '01', 'rollout-2026-12-01T08-58-21-01a230d3-910e-7ab3-9c7f-f7f164ff1ff1.jsonl'))
  const recs = records(log)
  assert.equal(codexDialect.settle!(recs).unsettled, null)
  const lastComplete = recs.map((v) => v.type === 'event_msg' && (v.payload as {type?: string}).type === 'task_complete').lastIndexOf(true)
  assert.match(codexDialect.settle!(recs.slice(0, lastComplete)).unsettled ?? '', /still running/)
  const lastCall = recs.map((v) => v.type === 'response_item' && (v.payload as {type?: string}).type === 'function_call').lastIndexOf(true)
  assert.match(codexDialect.settle!(recs.slice(0, lastCall + 1)).unsettled ?? '', /pending/)
  const legacy = records(readFileSync(REAL_SESSIONS.codex.legacy))
  assert.equal(codexDialect.settle!(legacy).unsettled, null, 'the legacy log ends in an assistant message')
  assert.ok(existsSync(PUBLIC))
})

test('OpenCode and Codebuff: a turn without time.completed, a running tool part, a temp newer than the primary are not settled', async () => {
  const h = home()
  try {
    const sid = 'ses_dd6249cf0ffevk8ay20nf1cCNR'
    const msgDir = path.join(h.opencode, 'storage', 'message', sid)
    const last = path.join(msgDir, readdirSync(msgDir).sort().at(-1)!)
    const orig = readFileSync(last)
    const info = JSON.parse(orig.toString('utf8'))
    assert.equal(info.role, 'assistant')
    delete info.time.completed
    writeFileSync(last, JSON.stringify(info))
    let r = await takeSnapshots([h.opencode], opts(h))
    const skip = r.skipped.find((s) => s.chat.includes(sid))
    assert.match(skip?.reason ?? '', /not settled: the last answer has no time\.completed/)
    assert.equal(skip?.unsettled, true)
    writeFileSync(last, orig)
    // A tool part still running.
    const partDir = path.join(h.opencode, 'storage', 'part', info.id)
    const part = path.join(partDir, readdirSync(partDir).sort()[0])
    const done = JSON.parse(readFileSync(part, 'utf8'))
    const running = done.type === 'tool' ? {...done, state: {status: 'running', input: done.state?.input ?? {}, time: {start: done.state?.time?.start ?? 0}}} : {...done, type: 'tool', tool: 'bash', callID: 'c1', state: {status: 'running', input: {}}}
    writeFileSync(part, JSON.stringify(running))
    r = await takeSnapshots([h.opencode], opts(h))
    assert.match(r.skipped.find((s) => s.chat.includes(sid))?.reason ?? '', /tool call pending or running/)

    // Codebuff: the real 10-turn chat keeps a leftover temp; made newer than run-state.json it is a save in progress.
    const temp = path.join(h.codebuff, TEN_TURN_TEMP)
    const {utimesSync} = await import('node:fs')
    utimesSync(temp, new Date(), new Date(Date.now() + 60000))
    r = await takeSnapshots([h.codebuff], opts(h))
    assert.match(r.skipped[0]?.reason ?? '', /is newer than run-state\.json/)
    rmSync(temp)
    r = await takeSnapshots([h.codebuff], opts(h))
    assert.equal(r.taken.length, 1, JSON.stringify(r.skipped))
    assert.equal(r.taken[0].header.target, 'run-state.json')
  } finally {
    cleanup(h.home)
  }
})

test('caps skip, never truncate: messages, bytes per snapshot, the store total; an unchanged chat is not stored twice; the oldest beyond --keep go', async () => {
  const h = home()
  try {
    let r = await takeSnapshots([h.claudeLog], opts(h, {caps: {maxMessages: 5}}))
    assert.match(r.skipped[0]?.reason ?? '', /over the message cap \(38 messages > 5/)
    r = await takeSnapshots([h.claudeLog], opts(h, {caps: {maxBytes: 1000}}))
    assert.match(r.skipped[0]?.reason ?? '', /over the byte cap/)
    r = await takeSnapshots([h.claudeLog], opts(h, {caps: {maxStoreBytes: 1000}}))
    assert.match(r.skipped[0]?.reason ?? '', /store would exceed its cap/)
    assert.equal(listStore(path.join(h.env.XDG_STATE_HOME!, 'chatdoctor')).refs.length, 0, 'nothing stored')

    r = await takeSnapshots([h.claudeLog], opts(h))
    assert.equal(r.taken.length, 1)
    r = await takeSnapshots([h.claudeLog], opts(h))
    assert.match(r.skipped[0]?.reason ?? '', /unchanged since its newest snapshot/)
    // Each later turn changes the log; the per-chat cap keeps the newest two.
    for (let i = 0; i < 3; i++) {
      writeFileSync(h.claudeLog, JSON.stringify({type: 'custom-title', customTitle: `title ${i}`, sessionId: CLAUDE_SESSION}) + '\n', {flag: 'a'})
      r = await takeSnapshots([h.claudeLog], opts(h, {caps: {keepPerChat: 2}, now: () => new Date(Date.UTC(2027, 0, 1, 0, 0, i))}))
      assert.equal(r.taken.length, 1, JSON.stringify(r.skipped))
    }
    const refs = listStore(path.join(h.env.XDG_STATE_HOME!, 'chatdoctor')).refs
    assert.deepEqual(refs.map((x) => x.header.time), ['2027-01-01T00:00:02.000Z', '2027-01-01T00:00:01.000Z'], 'the two newest kept')

    const p = await pruneSnapshots(opts(h, {caps: {keepPerChat: 1}}))
    assert.equal(p.removed.length, 1)
    const after = listStore(path.join(h.env.XDG_STATE_HOME!, 'chatdoctor')).refs
    assert.deepEqual(after.map((x) => x.header.time), ['2027-01-01T00:00:02.000Z'])
    const none = await pruneSnapshots(opts(h, {caps: {maxStoreBytes: 1}}))
    assert.equal(none.removed.length, 0, "a chat's newest snapshot is never pruned for the store cap")
  } finally {
    cleanup(h.home)
  }
})

test('--redact drops tool inputs, tool outputs and per-turn instructions, keeps roles, order and ids; a redacted snapshot ranks only when asked for', async () => {
  const h = home()
  try {
    const r = await takeSnapshots([h.claudeLog, h.codexLog], opts(h, {redact: true}))
    assert.equal(r.taken.length, 2, JSON.stringify(r.skipped))
    const key = readKey(h.home, h.env)
    assert.ok('key' in key)
    const state = path.join(h.env.XDG_STATE_HOME!, 'chatdoctor')
    for (const ref of listStore(state).refs) {
      assert.equal(ref.header.redacted, true)
      const o = openSnapshot(readFileSync(ref.file), key.key)
      assert.ok('data' in o)
      const orig = records(readFileSync(ref.header.format === 'codex' ? h.codexLog : h.claudeLog))
      const red = records(o.data)
      assert.equal(red.length, orig.length, 'every record kept')
      assert.deepEqual(red.map((v) => v.type), orig.map((v) => v.type), 'kinds and order kept')
      const text = o.data.toString('utf8')
      if (ref.header.format === 'claude-code') {
        assert.deepEqual(red.map((v) => v.uuid), orig.map((v) => v.uuid), 'uuids kept')
        assert.equal(text.includes('"toolUseResult"'), false)
        for (const v of red) for (const b of ((v.message as {content?: unknown})?.content as Array<Record<string, unknown>> | undefined) ?? []) {
          if (typeof b !== 'object') continue
          if (b.type === 'tool_use') assert.deepEqual(b.input, {})
          if (b.type === 'tool_result') assert.equal(b.content, '')
        }
      } else {
        for (const v of red) {
          const p = v.payload as Record<string, unknown>
          if (p?.type === 'function_call') assert.equal(p.arguments, '{}')
          if (p?.type === 'function_call_output') assert.equal(p.output, '')
          if (v.type === 'turn_context') assert.equal('user_instructions' in p || 'developer_instructions' in p, false)
        }
      }
    }
    const plain = await scanPaths([h.claudeLog], {home: h.home, env: h.env})
    assert.equal(plain.chats[0].report.generations.some((g) => g.role === 'snapshot'), false, 'not a candidate by default')
    const asked = await scanPaths([h.claudeLog], {home: h.home, env: h.env, redactedSnapshots: true})
    assert.equal(asked.chats[0].report.generations.filter((g) => g.role === 'snapshot').length, 1, 'a candidate when asked for')
  } finally {
    cleanup(h.home)
  }
})

test('scan lists snapshots as generations (role snapshot, snapshot:<time>); a tampered one or one under another key is one error line and never a candidate', async () => {
  const h = home()
  try {
    await takeSnapshots([h.claudeLog], opts(h))
    const s = await scanPaths([h.claudeLog], {home: h.home, env: h.env})
    const report = s.chats[0].report
    assert.equal(report.status, 'healthy', 'a snapshot equal to the log does not change the verdict')
    assert.equal(report.winner, `${CLAUDE_SESSION}.jsonl`)
    const g = report.generations.find((x) => x.role === 'snapshot')!
    assert.match(g.file, /^snapshot:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.equal(g.class, 'intact')
    assert.equal(g.turns, report.contextTurns)

    const other = await scanPaths([h.claudeLog], {home: h.home, env: {...h.env, CHATDOCTOR_SNAPSHOT_KEY: 'cd'.repeat(32)}})
    assert.equal(other.chats[0].report.generations.some((x) => x.role === 'snapshot'), false)
    assert.equal(other.errors.length, 1)
    assert.match(other.errors[0].message, /another key/)

    const file = listStore(path.join(h.env.XDG_STATE_HOME!, 'chatdoctor')).refs[0].file
    const b = readFileSync(file)
    b[b.length - 40] ^= 0xff
    writeFileSync(file, b)
    writeFileSync(h.claudeLog, Buffer.alloc(100))
    const t = await scanPaths([h.claudeLog], {home: h.home, env: h.env})
    assert.equal(t.chats[0].report.generations.some((x) => x.role === 'snapshot'), false, 'never a candidate')
    assert.equal(t.chats[0].report.status, 'unrecoverable')
    assert.equal(t.errors.length, 1)
    assert.match(t.errors[0].message, /^snapshot:.* not used: rejected: authentication failed/)
    assert.equal(t.errors[0].message.includes('\n'), false)
  } finally {
    cleanup(h.home)
  }
})

test('a full disk or a read-only store while storing: one line, nothing half-written in the store', async () => {
  const h = home()
  try {
    for (const code of ['ENOSPC', 'EROFS']) {
      const rec = new RecordingFileSystem(nodeFileSystem(), [{op: 'write', path: /snapshots/, code}])
      const r = await takeSnapshots([h.claudeLog], {home: h.home, env: h.env, fs: rec})
      assert.equal(r.taken.length, 0)
      assert.equal(r.errors.length, 1, JSON.stringify(r.errors))
      assert.match(r.errors[0].message, code === 'ENOSPC' ? /no space left/ : /read-only/)
      const root = path.join(h.env.XDG_STATE_HOME!, 'chatdoctor', 'snapshots')
      const left = existsSync(root) ? readdirSync(root).flatMap((d) => readdirSync(path.join(root, d))) : []
      assert.deepEqual(left, [], 'no temp, no partial snapshot')
    }
    const cli = runCli(['snapshot', h.claudeLog], {env: {...h.env, XDG_CONFIG_HOME: path.join(h.home, 'nope'), CHATDOCTOR_SNAPSHOT_KEY: 'zz'}})
    assert.equal(cli.status, 8)
    assert.equal(cli.stderr.trim().split('\n').length, 1, cli.stderr)
    assert.match(cli.stderr, /CHATDOCTOR_SNAPSHOT_KEY is not a key/)
  } finally {
    cleanup(h.home)
  }
})

test('hook mode: input that is not JSON, a path outside the agent\'s roots, another event: one log line each, exit 0, nothing printed', async () => {
  const h = home()
  try {
    const state = path.join(h.env.XDG_STATE_HOME!, 'chatdoctor')
    const logLines = () => (existsSync(path.join(state, HOOK_LOG)) ? readFileSync(path.join(state, HOOK_LOG), 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [])
    const cli = runCli(['snapshot', '--hook', 'claude-code'], {env: h.env, input: 'not json'})
    assert.equal(cli.status, 0)
    assert.equal(cli.stdout, '')
    assert.equal(logLines().length, 1)
    assert.match(logLines()[0].message, /not JSON/)

    const outside = path.join(h.home, 'elsewhere.jsonl')
    writeFileSync(outside, readFileSync(h.claudeLog))
    let o = await runHook('claude-code', {stdin: JSON.stringify({session_id: 's', transcript_path: outside, hook_event_name: 'Stop'}), args: []}, opts(h))
    assert.equal(o.status, 'error')
    assert.match(o.message, /outside Claude Code's projects folder/)
    o = await runHook('claude-code', {stdin: JSON.stringify({transcript_path: h.claudeLog, hook_event_name: 'UserPromptSubmit'}), args: []}, opts(h))
    assert.equal(o.status, 'ignored')
    o = await runHook('codex', {stdin: '', args: [JSON.stringify({type: 'agent-turn-complete', 'thread-id': '../../etc/passwd'})]}, opts(h))
    assert.equal(o.status, 'error')
    o = await runHook('opencode', {stdin: '', args: ['{"type":"session.idle","sessionID":"ses_; rm -rf /"}']}, opts(h))
    assert.equal(o.status, 'error')
    assert.equal(logLines().length, 5, 'one line each')
    assert.equal(listStore(state).refs.length, 0, 'nothing stored')
    // A symbolic link to a log outside the roots is judged by where it points.
    const link = path.join(h.home, '.claude', 'projects', '-home-dev-demo-app', 'link.jsonl')
    symlinkSync(outside, link)
    o = await runHook('claude-code', {stdin: JSON.stringify({transcript_path: link, hook_event_name: 'Stop'}), args: []}, opts(h))
    assert.equal(o.status, 'error')
  } finally {
    cleanup(h.home)
  }
})

test('hook mode: a chat not settled yet is retried in the background (never in the agent\'s time) and taken once the answer lands', async () => {
  const h = home()
  try {
    const full = readFileSync(h.claudeLog)
    const recs = records(full)
    const lastText = recs.length - 1 - [...recs].reverse().findIndex((v) => v.type === 'assistant')
    writeFileSync(h.claudeLog, cutAfter(full, lastText))
    const input = {stdin: JSON.stringify({session_id: CLAUDE_SESSION, transcript_path: h.claudeLog, hook_event_name: 'Stop', stop_hook_active: false}), args: []}
    let spawned = 0
    const first = await runHook('claude-code', input, opts(h, {spawnSettle: () => spawned++}))
    assert.equal(first.status, 'retrying')
    assert.equal(spawned, 1, 'the retry runs in another process')
    // The background retry: the answer lands while it waits.
    const bg = await runHook('claude-code', input, opts(h, {settle: true, sleep: async () => writeFileSync(h.claudeLog, full)}))
    assert.equal(bg.status, 'taken', bg.message)
  } finally {
    cleanup(h.home)
  }
})

test('guard: settings that do not parse, a notify of another program, a settings file that is a link: one line, nothing written; an uninstall after the user edited the file removes only chatdoctor\'s entries', async () => {
  const h = home()
  try {
    const settings = path.join(h.home, '.claude', 'settings.json')
    writeFileSync(settings, '{"model": "opus",')
    let r = await guardInstall('claude-code', opts(h))
    assert.equal(r.kind, 'error')
    assert.match((r as {message: string}).message, /not valid JSON/)
    assert.equal(readFileSync(settings, 'utf8'), '{"model": "opus",', 'unchanged')

    mkdirSync(path.join(h.home, '.codex'), {recursive: true})
    const config = path.join(h.home, '.codex', 'config.toml')
    writeFileSync(config, 'notify = ["terminal-notifier"]\n')
    r = await guardInstall('codex', opts(h))
    assert.equal(r.kind, 'error')
    assert.match((r as {message: string}).message, /runs one notify program/)
    assert.equal(readFileSync(config, 'utf8'), 'notify = ["terminal-notifier"]\n')

    rmSync(settings)
    writeFileSync(path.join(h.home, 'real-settings.json'), '{}\n')
    symlinkSync(path.join(h.home, 'real-settings.json'), settings)
    r = await guardInstall('claude-code', opts(h))
    assert.equal(r.kind, 'error')
    assert.match((r as {message: string}).message, /symbolic link/)
    rmSync(settings)

    writeFileSync(settings, '{\n  "model": "opus"\n}\n')
    assert.equal((await guardInstall('claude-code', opts(h))).kind, 'installed')
    const installed = JSON.parse(readFileSync(settings, 'utf8'))
    installed.theme = 'dark'
    const edited = readFileSync(settings, 'utf8').replace('"model": "opus"', '"model": "opus",\n  "theme": "dark"')
    writeFileSync(settings, edited)
    const u = await guardUninstall('claude-code', opts(h))
    assert.equal(u.kind, 'uninstalled')
    assert.equal((u as {how: string}).how, 'edited')
    assert.equal(readFileSync(settings, 'utf8'), '{\n  "model": "opus",\n  "theme": "dark"\n}\n', "the user's edit stays, chatdoctor's entries are gone")
  } finally {
    cleanup(h.home)
  }
})
