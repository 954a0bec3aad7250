/**
 * `snapshot --redact` for Gemini CLI, Cline CLI, the VS Code task folders (Roo Code, Kilo Code, Cline 3.x),
 * Codebuff, OpenCode (its database and its JSON tree) and Kilo, on
 * the agents' real sessions copied from shared/realdata (the task folders from the fixture builder, which lays
 * the real Cline conversation out as each extension writes it): the decrypted redacted snapshot holds none of
 * the tools' output or input text and no per-turn context, keeps roles, message order, ids, tool ids and which
 * result answers which call, is marked redacted, is a candidate only with `--redacted-snapshots`, and `repair`
 * restores it only with that flag.
 */
import assert from 'node:assert/strict'
import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {nodeFileSystem} from '../src/lib/fsio/fs.js'
import {classifyJsonlBytes} from '../src/lib/classify/jsonl.js'
import {countMessages as countAnthropic} from '../src/lib/formats/anthropic-messages/index.js'
import {isPrompt as isClinePrompt} from '../src/lib/formats/cline/messages.js'
import {countMessages as countGemini, replay, type GeminiRecord} from '../src/lib/formats/gemini-cli/records.js'
import {historyFacts} from '../src/lib/formats/vscode-tasks/measure.js'
import {redactRunState, settleRunState} from '../src/lib/formats/codebuff/snapshot.js'
import {KILO} from '../src/lib/formats/kilo/layout.js'
import {OPENCODE} from '../src/lib/formats/opencode/layout.js'
import {exportBytes, readSessionExport} from '../src/lib/formats/opencode-family/export-rows.js'
import {redactExportPayload} from '../src/lib/formats/opencode-family/snapshot-redact.js'
import {decodeFiles} from '../src/lib/model/snapshot.js'
import {redactToolXml} from '../src/lib/formats/vscode-tasks/snapshot.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {takeSnapshots} from '../src/lib/pipeline/snapshot/take.js'
import {readKey} from '../src/lib/snapshot/key.js'
import {openSnapshot} from '../src/lib/snapshot/seal.js'
import {listStore} from '../src/lib/snapshot/store.js'
import {changeDb, fakeAgent, storeWithProject} from './helpers/agent-import.js'
import {REALDATA, REAL_CHATS, TEN_TURN_TEMP, cleanup, copyRealChat, copyWritable, runCli, sha256, tempDir} from './helpers/fixtures.js'
import {buildTask, realTurns, storageDir, taskId, writeStore, type Variant} from './helpers/vscode-tasks.js'

function fakeHome(): {home: string; env: NodeJS.ProcessEnv} {
  const home = tempDir('chatdoctor-redact-')
  return {home, env: {HOME: home, XDG_STATE_HOME: path.join(home, '.local', 'state'), XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share')}}
}

/** The environment of a CLI run: the fake home's, nothing of the caller's pointing elsewhere. */
function cliEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {...env, CHATDOCTOR_SNAPSHOT_KEY: undefined, CLAUDE_CONFIG_DIR: undefined, CODEX_HOME: undefined, GEMINI_CLI_HOME: undefined, CLINE_DIR: undefined, CLINE_DATA_DIR: undefined}
}

/** Takes redacted snapshots of `paths` and returns each one's header and decrypted plaintext. */
async function redacted(paths: string[], h: {home: string; env: NodeJS.ProcessEnv}): Promise<Array<{chat: string; target: string; redacted: boolean; data: Buffer}>> {
  const r = await takeSnapshots(paths, {home: h.home, env: h.env, fs: nodeFileSystem(), redact: true})
  assert.deepEqual(r.errors, [])
  assert.ok(r.taken.length > 0, JSON.stringify(r.skipped))
  const key = readKey(h.home, h.env)
  assert.ok('key' in key)
  return listStore(path.join(h.env.XDG_STATE_HOME!, 'chatdoctor')).refs.map((ref) => {
    const o = openSnapshot(readFileSync(ref.file), key.key)
    assert.ok('data' in o, 'error' in o ? o.error : '')
    return {chat: ref.header.chat, target: ref.header.target ?? '', redacted: ref.header.redacted, data: o.data}
  })
}

/** `text` as it sits inside a JSON string (escaped), the way to look for it in a JSON file. */
const inJson = (text: string) => JSON.stringify(text).slice(1, -1)

/** The chat's generations of role `snapshot`, without and with `--redacted-snapshots`. */
async function snapshotGenerations(at: string, h: {home: string; env: NodeJS.ProcessEnv}): Promise<[number, number]> {
  const n = async (redactedSnapshots: boolean) => {
    const s = await scanPaths([at], {home: h.home, env: h.env, redactedSnapshots})
    return s.chats.flatMap((c) => c.report.generations).filter((g) => g.role === 'snapshot').length
  }
  return [await n(false), await n(true)]
}

/**
 * Zero-fills `file`, then: `repair` without `--redacted-snapshots` does not restore the redacted snapshot (the
 * file stays as it is), with the flag it writes the redacted snapshot's exact bytes.
 */
function restoresOnlyWithFlag(file: string, at: string, plaintext: Buffer, env: NodeJS.ProcessEnv): void {
  const size = readFileSync(file).length
  writeFileSync(file, Buffer.alloc(size))
  const plain = runCli(['repair', '--yes', '--json', at], {env: cliEnv(env)})
  const restored = JSON.parse(plain.stdout) as {chats: Array<{winner: string | null}>}
  assert.equal(restored.chats.some((c) => c.winner?.startsWith('snapshot:')), false, 'without the flag the redacted snapshot is not a candidate')
  assert.notEqual(sha256(readFileSync(file)), sha256(plaintext), 'without the flag nothing restores the redacted snapshot')
  writeFileSync(file, Buffer.alloc(size))
  const asked = runCli(['repair', '--yes', '--redacted-snapshots', at], {env: cliEnv(env)})
  assert.equal(asked.status, 1, asked.stderr + asked.stdout)
  assert.equal(sha256(readFileSync(file)), sha256(plaintext), 'with the flag the redacted snapshot is written byte for byte')
  const after = JSON.parse(runCli(['scan', '--json', at], {env: cliEnv(env)}).stdout) as {chats: Array<{status: string}>}
  assert.ok(after.chats.length > 0 && after.chats.every((c) => c.status === 'healthy'), `the restored redacted chat loads and is healthy: ${JSON.stringify(after.chats.map((c) => c.status))}`)
}

const GEMINI = path.join(REALDATA, 'gemini-cli', '0.61.0', 'home', '.gemini')
const OPENCODE_DATA = path.join(REALDATA, 'opencode', '1.18.33', 'data', 'opencode')
const OPENCODE_TREE = path.join(REALDATA, 'opencode', '1.1.65', 'data', 'opencode')
const KILO_DATA = path.join(REALDATA, 'kilo', '7.7.7', 'home', '.local', 'share', 'kilo')
const GEMINI_SESSION = 'session-2026-12-01T09-42-6e65aa12.jsonl'

/** Every tool output and argument text of a Gemini CLI session's records (tool call results, functionResponse and functionCall parts). */
function geminiToolTexts(records: readonly GeminiRecord[]): {outputs: string[]; inputs: string[]} {
  const outputs = new Set<string>()
  const inputs = new Set<string>()
  const strings = (v: unknown, into: Set<string>) => {
    if (typeof v === 'string' && v.length >= 12) into.add(v)
    else if (Array.isArray(v)) v.forEach((x) => strings(x, into))
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach((x) => strings(x, into))
  }
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk)
    if (typeof v !== 'object' || v === null) return
    const o = v as Record<string, unknown>
    if (o.functionResponse) strings((o.functionResponse as {response?: unknown}).response, outputs)
    if (o.functionCall) strings((o.functionCall as {args?: unknown}).args, inputs)
    if (Array.isArray(o.toolCalls)) for (const c of o.toolCalls as Array<Record<string, unknown>>) strings(c.args, inputs)
    Object.values(o).forEach(walk)
  }
  walk(records)
  return {outputs: [...outputs], inputs: [...inputs]}
}

test('Gemini CLI snapshot --redact: no tool output or argument text and no session context left, the same messages, ids, tool ids and statuses; a candidate and restored only with --redacted-snapshots', async () => {
  const h = fakeHome()
  try {
    copyWritable(GEMINI, path.join(h.home, '.gemini'))
    const chats = path.join(h.home, '.gemini', 'tmp', 'demo-app', 'chats')
    const session = path.join(chats, GEMINI_SESSION)
    const original = readFileSync(session)
    const snaps = await redacted([session], h)
    assert.equal(snaps.length, 1)
    const [snap] = snaps
    assert.equal(snap.redacted, true)
    assert.equal(snap.target, GEMINI_SESSION)
    const before = classifyJsonlBytes(original).records.map((r) => r.value as GeminiRecord)
    const after = classifyJsonlBytes(snap.data)
    assert.equal(after.class, 'intact')
    const records = after.records.map((r) => r.value as GeminiRecord)
    assert.equal(records.length, before.length, 'every record kept')

    const {outputs, inputs} = geminiToolTexts(before)
    assert.ok(outputs.length >= 3 && inputs.length >= 3, 'the real session has tool calls with output')
    const text = snap.data.toString('utf8')
    for (const t of outputs) {
      assert.ok(original.toString('utf8').includes(inJson(t)))
      assert.equal(text.includes(inJson(t)), false, `a tool output is left: ${JSON.stringify(t.slice(0, 60))}`)
    }
    for (const t of inputs) assert.equal(text.includes(inJson(t)), false, `a tool argument is left: ${JSON.stringify(t)}`)
    assert.ok(original.includes('Directory Structure'), 'the session context is in the original')
    assert.equal(text.includes('Directory Structure'), false, 'the session context is emptied')
    assert.equal(text.includes('"resultDisplay"') || text.includes('"description":"README.md"'), false)

    // Structure: the loader's replay gives the same messages in the same order, with their ids, types, tool ids and statuses.
    const a = replay(before)
    const b = replay(records)
    assert.ok(b.loads)
    assert.deepEqual(b.messages.map((m) => [m.id, m.type]), a.messages.map((m) => [m.id, m.type]), 'ids, roles and order kept')
    // Every tool call as the records hold it (message records, and the checkpoints' function call and response parts).
    const calls = (rs: GeminiRecord[]) =>
      rs.flatMap((r) => [r, ...((r.$set as {messages?: GeminiRecord[]} | undefined)?.messages ?? [])]).flatMap((m) => [
        ...((m.toolCalls as Array<Record<string, unknown>> | undefined) ?? []).map((c) => [m.id, c.id, c.name, c.status, Array.isArray(c.result) ? c.result.length : null]),
        ...(Array.isArray(m.content) ? (m.content as Array<Record<string, {id?: string; name?: string}>>) : []).flatMap((p) => (p.functionCall ? [[m.id, 'call', p.functionCall.id, p.functionCall.name]] : p.functionResponse ? [[m.id, 'response', p.functionResponse.id, p.functionResponse.name]] : [])),
      ])
    assert.deepEqual(calls(records), calls(before), 'tool ids, names, statuses and results kept')
    assert.ok(calls(before).length >= 10)
    const ca = countGemini(a.messages)
    const cb = countGemini(b.messages)
    assert.deepEqual([cb.prompts, cb.answered, cb.toolCalls, cb.toolCallsWithResult], [ca.prompts, ca.answered, ca.toolCalls, ca.toolCallsWithResult], 'the same turns and tool lifecycle')
    assert.ok(text.includes(inJson('Add a remove(id) method to TodoStore.')), "the user's prompt stays")

    assert.deepEqual(await snapshotGenerations(session, h), [0, 1], 'a candidate only when asked for')
    restoresOnlyWithFlag(session, session, snap.data, h.env)
  } finally {
    cleanup(h.home)
  }
})

const CLINE = path.join(REALDATA, 'cline', '3.0.65', 'home', '.cline')
const CLINE_ID = '1796118198748_i47ig'

/** The strings of a value (at least `min` characters), nested. */
function stringsOf(v: unknown, min = 8): string[] {
  if (typeof v === 'string') return v.length >= min ? [v] : []
  if (Array.isArray(v)) return v.flatMap((x) => stringsOf(x, min))
  if (typeof v === 'object' && v !== null) return Object.values(v).flatMap((x) => stringsOf(x, min))
  return []
}

test('Cline CLI snapshot --redact: no tool input or output text and no system prompt left, the same messages, roles, ids and tool lifecycle; a candidate and restored only with --redacted-snapshots', async () => {
  const h = fakeHome()
  try {
    copyWritable(CLINE, path.join(h.home, '.cline'))
    const dir = path.join(h.home, '.cline', 'data', 'sessions', CLINE_ID)
    const file = path.join(dir, `${CLINE_ID}.messages.json`)
    const original = readFileSync(file)
    const snaps = (await redacted([path.join(h.home, '.cline', 'data')], h)).filter((s) => s.target === `${CLINE_ID}.messages.json`)
    assert.equal(snaps.length, 1)
    const [snap] = snaps
    assert.equal(snap.redacted, true)
    const before = JSON.parse(original.toString('utf8')) as {messages: Array<{id: string; role: string; content: Array<Record<string, unknown>>}>; system_prompt?: string}
    const after = JSON.parse(snap.data.toString('utf8')) as typeof before
    assert.ok(snap.data.toString('utf8').endsWith('}\n') && snap.data.toString('utf8').startsWith('{\n  "version"'), 'written as Cline writes it')

    // The tools' texts, but for those the user or the assistant also wrote (a search term from the prompt): those stay as words.
    const words = before.messages.flatMap((m) => m.content.flatMap((b) => [b.text, b.thinking].filter((x): x is string => typeof x === 'string'))).join('\n')
    const outputs = before.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result').flatMap((b) => stringsOf(b.content))).filter((t) => !words.includes(t))
    const inputs = before.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_use').flatMap((b) => stringsOf(b.input, 4))).filter((t) => !words.includes(t))
    assert.ok(outputs.length >= 3 && inputs.length >= 3)
    assert.ok(typeof before.system_prompt === 'string' && before.system_prompt.length > 100, 'the real conversation saves its system prompt')
    const text = snap.data.toString('utf8')
    for (const t of outputs) assert.equal(text.includes(inJson(t)), false, `a tool output is left: ${JSON.stringify(t.slice(0, 60))}`)
    for (const t of inputs) assert.equal(text.includes(`"${inJson(t)}"`), false, `a tool input is left: ${JSON.stringify(t)}`)
    assert.equal('system_prompt' in after, false)
    assert.equal(text.includes(inJson(before.system_prompt!.slice(0, 60))), false)

    assert.deepEqual(after.messages.map((m) => [m.id, m.role, m.content.map((b) => b.type)]), before.messages.map((m) => [m.id, m.role, m.content.map((b) => b.type)]), 'ids, roles, order and block types kept')
    const ids = (ms: typeof before.messages) => ms.flatMap((m) => m.content.map((b) => b.id ?? b.tool_use_id ?? null).filter((x) => x !== null))
    assert.deepEqual(ids(after.messages), ids(before.messages), 'tool ids and which result answers which call kept')
    const ca = countAnthropic(before.messages, isClinePrompt)
    const cb = countAnthropic(after.messages, isClinePrompt)
    assert.deepEqual(cb, ca, 'the same prompts and tool lifecycle')
    assert.ok(text.includes(inJson('List the files in this project.')), "the user's prompt stays")

    assert.deepEqual(await snapshotGenerations(dir, h), [0, 1], 'a candidate only when asked for')
    restoresOnlyWithFlag(file, dir, snap.data, h.env)
  } finally {
    cleanup(h.home)
  }
})

test('Roo Code, Kilo Code and Cline 3.x snapshot --redact: no tool output or input text and no environment details left, native and text-form tool calls alike; the same messages, prompts and tool ids; restored only with --redacted-snapshots', async () => {
  const h = fakeHome()
  try {
    const variants: Variant[] = ['roo', 'kilo', 'cline']
    const tasks = variants.map((v) => {
      const task = buildTask(v, taskId(v, 0), realTurns('A'))
      return {...task, dir: writeStore(storageDir(h.home, v), v, [task])[0].dir}
    })
    const snaps = await redacted(tasks.map((t) => t.dir), h)
    assert.equal(snaps.length, 3)
    // The real tool outputs and inputs the builder put into every variant.
    const turns = realTurns('A')
    const words = turns.flatMap((t) => [t.prompt, ...t.steps.flatMap((s) => s.assistant.map((b) => b.text).filter((x): x is string => typeof x === 'string'))]).join('\n')
    const outputs = turns.flatMap((t) => t.steps.flatMap((s) => (s.results ?? []).flatMap((b) => stringsOf(b.content)))).filter((t) => !words.includes(t))
    const inputs = turns.flatMap((t) => t.steps.flatMap((s) => s.assistant.filter((b) => b.type === 'tool_use').flatMap((b) => stringsOf(b.input, 4)))).filter((t) => !words.includes(t))
    assert.ok(outputs.length >= 3 && inputs.length >= 3)
    for (const t of tasks) {
      const original = readFileSync(path.join(t.dir, 'api_conversation_history.json'))
      const before = JSON.parse(original.toString('utf8')) as Array<Record<string, unknown>>
      const snap = snaps.find((s) => s.chat === t.dir)!
      assert.ok(snap, `${t.variant}: its snapshot`)
      assert.equal(snap.redacted, true)
      const text = snap.data.toString('utf8')
      for (const o of outputs) for (const piece of o.split('\n').filter((l) => l.trim().length >= 12)) assert.equal(text.includes(inJson(piece)), false, `${t.variant}: a tool output is left: ${JSON.stringify(piece)}`)
      for (const x of inputs) assert.equal(text.includes(inJson(x)), false, `${t.variant}: a tool input is left: ${JSON.stringify(x)}`)
      assert.ok(original.includes('# VSCode Visible Files'))
      assert.equal(text.includes('# VSCode Visible Files'), false, `${t.variant}: the environment details are emptied`)
      for (const p of t.prompts) assert.ok(text.includes(inJson(p)), `${t.variant}: the prompt ${JSON.stringify(p)} stays`)
      const after = JSON.parse(text) as Array<Record<string, unknown>>
      assert.deepEqual(after.map((m) => [m.role, m.ts ?? null, (m.content as Array<{type: string}>).map((b) => b.type)]), before.map((m) => [m.role, m.ts ?? null, (m.content as Array<{type: string}>).map((b) => b.type)]), `${t.variant}: roles, order, ts and block types kept`)
      const fa = historyFacts(before)
      const fb = historyFacts(after)
      assert.deepEqual(fb, fa, `${t.variant}: the same prompts and tool lifecycle`)
      if (t.variant !== 'cline') assert.ok(fa.toolCalls >= 3)
      assert.deepEqual(await snapshotGenerations(t.dir, h), [0, 1], `${t.variant}: a candidate only when asked for`)
    }
    const roo = tasks[0]
    restoresOnlyWithFlag(path.join(roo.dir, 'api_conversation_history.json'), roo.dir, snaps.find((s) => s.chat === roo.dir)!.data, h.env)
  } finally {
    cleanup(h.home)
  }
})

test('the text form of a tool call: each <tool><param>…</param></tool> element keeps only its tool tags, the words around it stay', () => {
  const said = 'I will read it.\n<read_file>\n<path>src/secret.ts</path>\n</read_file>\nthen\n<write_to_file>\n<path>a.ts</path>\n<content>\n<div>x</div>\n</content>\n</write_to_file>'
  assert.equal(redactToolXml(said), 'I will read it.\n<read_file>\n</read_file>\nthen\n<write_to_file>\n</write_to_file>')
  assert.equal(redactToolXml('<thinking>\nplain words\n</thinking>'), '<thinking>\nplain words\n</thinking>', 'an element without parameters is words')
  assert.equal(redactToolXml('<read_file>\n<path>cut off'), '<read_file>\n<path>cut off', 'a call never closed is left as it is')
})

/** Texts of a value, nested, that no prompt or answer holds too (`words`): the payload that must be gone. */
const privateStrings = (v: unknown, words: string, min = 8) => stringsOf(v, min).filter((t) => !words.includes(t))

test('Codebuff snapshot --redact: no tool-call input or tool result text left in the RunState, the same messages, roles, tags, tool ids and answers, still settled; a candidate and restored only with --redacted-snapshots', async () => {
  const h = fakeHome()
  try {
    const dir = copyRealChat(REAL_CHATS.tenTurns, h.home)
    const file = path.join(dir, 'run-state.json')
    const original = readFileSync(file)
    const snaps = await redacted([dir], h)
    assert.equal(snaps.length, 1)
    const [snap] = snaps
    assert.equal(snap.redacted, true)
    assert.equal(snap.target, 'run-state.json')
    type Msg = {role: string; tags?: string[]; toolCallId?: string; content: Array<Record<string, unknown>>}
    const history = (b: Buffer) => (JSON.parse(b.toString('utf8')) as {sessionState: {mainAgentState: {messageHistory: Msg[]}}}).sessionState.mainAgentState.messageHistory
    const before = history(original)
    const after = history(snap.data)
    assert.equal(snap.data.toString('utf8').startsWith('{"sessionState":{'), true, 'compact, as the file was')

    // Strings the RunState also holds outside the history (its project file context) stay there.
    const rs = JSON.parse(original.toString('utf8')) as {sessionState: {mainAgentState: Record<string, unknown>}}
    const outside = JSON.stringify({...rs, sessionState: {...rs.sessionState, mainAgentState: {...rs.sessionState.mainAgentState, messageHistory: []}}})
    const words = [outside, ...before.flatMap((m) => (m.role === 'tool' ? [] : m.content.flatMap((p) => (typeof p.text === 'string' ? [p.text] : []))))].join('\n')
    const inputs = before.flatMap((m) => m.content.filter((p) => p.type === 'tool-call').flatMap((p) => privateStrings(p.input, words, 4)))
    const outputs = before.filter((m) => m.role === 'tool').flatMap((m) => privateStrings(m.content, words))
    assert.ok(inputs.length >= 5 && outputs.length >= 5, 'the real chat has tool calls with output')
    const text = snap.data.toString('utf8')
    for (const t of outputs) assert.equal(text.includes(inJson(t)), false, `a tool output is left: ${JSON.stringify(t.slice(0, 60))}`)
    for (const t of inputs) assert.equal(text.includes(`"${inJson(t)}"`), false, `a tool input is left: ${JSON.stringify(t)}`)
    assert.ok(text.includes(inJson('<user_message>Add a remove(id) method to TodoStore.</user_message>')), "the user's prompt stays")

    const shape = (ms: Msg[]) => ms.map((m) => [m.role, m.tags ?? null, m.toolCallId ?? null, m.content.map((p) => [p.type, p.toolCallId ?? null, p.toolName ?? null])])
    assert.deepEqual(shape(after), shape(before), 'roles, order, tags, part types, tool ids and names kept')
    assert.deepEqual(settleRunState(JSON.parse(snap.data.toString('utf8'))), settleRunState(JSON.parse(original.toString('utf8'))), 'as settled, with as many messages')

    assert.deepEqual(await snapshotGenerations(dir, h), [0, 1], 'a candidate only when asked for')
    // The older generations on disk (the one-turn-older .bak, the leftover temp) out of the way, by code on the copy.
    for (const n of ['run-state.json.bak', TEN_TURN_TEMP]) rmSync(path.join(dir, n))
    restoresOnlyWithFlag(file, dir, snap.data, h.env)
  } finally {
    cleanup(h.home)
  }
})

test('Codebuff redaction of a RunState: the per-turn messages the SDK injects (INSTRUCTIONS_PROMPT, STEP_PROMPT, system) keep role, tags and parts but not their text; the system prompt is emptied; the user prompt and its layout stay', () => {
  const rs = JSON.parse(readFileSync(path.join(REALDATA, 'codebuff', REAL_CHATS.tenTurns, 'run-state.json'), 'utf8')) as {sessionState: {mainAgentState: {messageHistory: unknown[]; systemPrompt: string}}}
  const agent = rs.sessionState.mainAgentState
  const secret = 'You are Buffy; the repository secret is 0xC0FFEE.'
  agent.systemPrompt = secret
  agent.messageHistory.splice(1, 0, {role: 'user', content: [{type: 'text', text: `<system_instructions>${secret}</system_instructions>`}], tags: ['INSTRUCTIONS_PROMPT'], keepLastTags: ['INSTRUCTIONS_PROMPT']}, {role: 'user', content: [{type: 'text', text: `step: ${secret}`}], tags: ['STEP_PROMPT'], timeToLive: 'agentStep'}, {role: 'system', content: [{type: 'text', text: secret}]})
  for (const pretty of [false, true]) {
    const bytes = Buffer.from(pretty ? JSON.stringify(rs, null, 2) + '\n' : JSON.stringify(rs))
    const out = redactRunState(bytes, {format: 'codebuff', kind: 'generation', target: 'run-state.json'})
    assert.ok(Buffer.isBuffer(out))
    const text = out.toString('utf8')
    assert.equal(text.includes('0xC0FFEE'), false, 'no instructions, step prompt, system message or system prompt text left')
    assert.equal(text.startsWith('{\n  "sessionState"') && text.endsWith('}\n'), pretty, 'written as the file was laid out')
    const h = (JSON.parse(text) as typeof rs).sessionState.mainAgentState
    assert.equal(h.systemPrompt, '')
    assert.deepEqual(h.messageHistory.slice(1, 4).map((m) => [(m as {role: string}).role, (m as {tags?: string[]}).tags ?? null, (m as {content: Array<{type: string; text: string}>}).content.map((p) => [p.type, p.text.length > 0])]), [['user', ['INSTRUCTIONS_PROMPT'], [['text', true]]], ['user', ['STEP_PROMPT'], [['text', true]]], ['system', null, [['text', true]]]], 'kept as messages, their text not empty (the model APIs refuse an empty text block)')
    assert.equal(h.messageHistory.length, agent.messageHistory.length)
  }
  assert.deepEqual(redactRunState(Buffer.from('{"sessionState":{}}'), {format: 'codebuff', kind: 'generation', target: 'run-state.json'}), {refused: 'run-state.json holds no message history'})
})

/** What the agents' import decodes (anomalyco/opencode import.ts: the message and part schemas), checked on a redacted document. */
function importable(doc: {info: Record<string, unknown>; messages: Array<{info: Record<string, unknown>; parts: Array<Record<string, unknown>>}>}): string[] {
  const bad: string[] = []
  const obj = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v)
  if (typeof doc.info.id !== 'string' || !obj(doc.info.time)) bad.push('info')
  for (const m of doc.messages) {
    if (typeof m.info.id !== 'string' || !String(m.info.id).startsWith('msg') || (m.info.role !== 'user' && m.info.role !== 'assistant')) bad.push(`message ${String(m.info.id)}`)
    for (const p of m.parts) {
      if (typeof p.id !== 'string' || !p.id.startsWith('prt') || typeof p.type !== 'string') bad.push(`part ${String(p.id)}`)
      if (p.type === 'text' && typeof p.text !== 'string') bad.push(`text ${String(p.id)}`)
      if (p.type !== 'tool') continue
      const s = p.state as Record<string, unknown>
      const time = s.time as Record<string, unknown>
      const ok = typeof p.callID === 'string' && typeof p.tool === 'string' && obj(s.input) && obj(time) && typeof time.start === 'number' &&
        (s.status === 'completed' ? typeof s.output === 'string' && typeof s.title === 'string' && obj(s.metadata) && typeof time.end === 'number' : s.status === 'error' ? typeof s.error === 'string' && typeof time.end === 'number' : s.status === 'running')
      if (!ok) bad.push(`tool ${String(p.id)}`)
    }
  }
  return bad
}

type ExportDoc = Parameters<typeof importable>[0]

/** The private texts of an export document: tool inputs, outputs and metadata, synthetic texts, summaries' diffs. */
function exportPrivate(doc: ExportDoc): {words: string; secrets: string[]} {
  // What the document holds outside those (the working folder in each answer's path, the prompts) stays.
  const words = JSON.stringify({info: doc.info, messages: doc.messages.map((m) => ({info: {...m.info, summary: null}, parts: m.parts.filter((p) => p.type !== 'tool' && p.synthetic !== true)}))})
  const secrets = doc.messages.flatMap((m) => [
    ...privateStrings((m.info.summary as {diffs?: unknown} | undefined)?.diffs, words, 12),
    ...m.parts.flatMap((p) => (p.type === 'tool' ? privateStrings([(p.state as Record<string, unknown>).input, (p.state as Record<string, unknown>).output, (p.state as Record<string, unknown>).metadata], words, 12) : p.type === 'text' && p.synthetic === true ? privateStrings(p.text, words, 12) : [])),
  ])
  return {words, secrets}
}

/** Ids, roles, part types, tool call ids, tools and statuses of an export document, in order. */
const exportShape = (doc: ExportDoc) => doc.messages.map((m) => [m.info.id, m.info.role, m.parts.map((p) => [p.id, p.type, p.callID ?? null, p.tool ?? null, (p.state as {status?: string} | undefined)?.status ?? null])])

test('OpenCode 1.2+ and Kilo database sessions, snapshot --redact: the export document keeps no tool input, output or metadata text and no diffs, keeps ids, roles, parts, callIDs, tools and statuses, and still passes the import schema; deleted from the store, repair hands the agent\'s import the redacted document only with --redacted-snapshots', async () => {
  const cases: Array<[string, string, string, string]> = [
    ['opencode', OPENCODE_DATA, 'opencode.db', 'ses_dd624f00affeLQd9JRo5aavtt0'],
    ['kilo', KILO_DATA, 'kilo.db', 'ses_dcf0103d1ffeVv9VwWk5ZTVB35'],
  ]
  for (const [agent, real, file, sid] of cases) {
    const h = fakeHome()
    try {
      const {data, db} = storeWithProject(h.home, h.env, agent, real, file, sid)
      const all = await redacted([data], h)
      const snaps = all.filter((s) => s.chat === `${data}#${sid}`)
      assert.equal(snaps.length, 1, agent)
      const [snap] = snaps
      assert.equal(snap.redacted, true)
      const rows = await readSessionExport(data, file, sid, agent === 'kilo' ? KILO.tempPrefix : OPENCODE.tempPrefix)
      assert.ok(!('error' in rows))
      const full = JSON.parse(exportBytes(agent === 'kilo' ? KILO.exportView!(rows) : rows).toString('utf8')) as ExportDoc
      const doc = JSON.parse(snap.data.toString('utf8')) as ExportDoc
      assert.ok(snap.data.toString('utf8').startsWith('{\n  "info": {') && snap.data.toString('utf8').endsWith('}\n'), `${agent}: printed as its export prints`)
      const {secrets} = exportPrivate(full)
      assert.ok(secrets.length >= 3, `${agent}: the real session has tool payloads`)
      const text = snap.data.toString('utf8')
      for (const t of secrets) assert.equal(text.includes(inJson(t)), false, `${agent}: a tool payload is left: ${JSON.stringify(t.slice(0, 60))}`)
      assert.deepEqual(exportShape(doc), exportShape(full), `${agent}: ids, roles, part types, callIDs, tools and statuses kept`)
      assert.deepEqual(importable(doc), [], `${agent}: every message and part still decodes as the import's schema wants`)
      assert.ok(full.messages.filter((m) => m.info.role === 'user').every((m) => m.parts.filter((p) => p.type === 'text' && p.synthetic !== true).every((p) => text.includes(inJson(String(p.text))))), `${agent}: the user's prompts stay`)
      assert.deepEqual(await snapshotGenerations(data, h), [0, all.length], `${agent}: a candidate only when asked for`)

      // Gone from the store altogether: only with the flag is the redacted document imported, byte for byte.
      changeDb(db, (d) => {
        for (const t of ['part', 'message']) d.prepare(`DELETE FROM ${t} WHERE session_id = ?`).run(sid)
        d.prepare('DELETE FROM session WHERE id = ?').run(sid)
      })
      const fake = fakeAgent(h.home, agent)
      const env = {...cliEnv(h.env), PATH: `${fake.bin}${path.delimiter}${process.env.PATH}`}
      const plain = JSON.parse(runCli(['repair', '--yes', '--json', data], {env}).stdout) as {chats: Array<{path: string; winner: string | null}>}
      assert.equal(plain.chats.some((c) => c.path.includes(sid) && c.winner !== null), false, `${agent}: without the flag nothing restores the redacted snapshot`)
      assert.equal(existsSync(fake.received), false)
      const asked = runCli(['repair', '--yes', '--json', '--redacted-snapshots', data], {env})
      const chat = (JSON.parse(asked.stdout) as {chats: Array<{path: string; repair: {outcome: string; message: string}}>}).chats.find((c) => c.path.includes(sid))!
      assert.equal(chat.repair.outcome, 'repaired', chat.repair.message)
      assert.ok(readFileSync(fake.received).equals(snap.data), `${agent} import got the redacted document byte for byte`)
    } finally {
      cleanup(h.home)
    }
  }
})

test('OpenCode JSON tree, snapshot --redact: the session, message and part files keep no tool payload or synthetic text, keep ids, types, callIDs and statuses, written as OpenCode writes them; with --redacted-snapshots repair restores a damaged tool part\'s redacted bytes and leaves the sound files as they are', async () => {
  const h = fakeHome()
  try {
    const data = path.join(h.env.XDG_DATA_HOME!, 'opencode')
    copyWritable(OPENCODE_TREE, data)
    const sid = 'ses_dd6249cf0ffevk8ay20nf1cCNR'
    const all = await redacted([data], h)
    const snaps = all.filter((s) => s.chat === `${data}#${sid}`)
    assert.equal(snaps.length, 1)
    const files = decodeFiles(snaps[0].data)
    assert.ok(files)
    const orig = (rel: string) => readFileSync(path.join(data, rel))
    const words = files.map((f) => JSON.parse(orig(f.rel).toString('utf8')) as Record<string, unknown>).filter((p) => p.type === 'text' && p.synthetic !== true).map((p) => String(p.text)).join('\n')
    let tools = 0
    let synthetic = 0
    const allSecrets: string[] = []
    for (const f of files) {
      const before = JSON.parse(orig(f.rel).toString('utf8')) as Record<string, unknown>
      const after = JSON.parse(f.data.toString('utf8')) as Record<string, unknown>
      assert.equal(f.data.toString('utf8'), JSON.stringify(after, null, 2) + (orig(f.rel).toString('utf8').endsWith('\n') ? '\n' : ''), `${f.rel}: two-space JSON as OpenCode writes it`)
      assert.deepEqual([after.id, after.type ?? null, after.role ?? null, after.callID ?? null, after.tool ?? null, (after.state as {status?: string} | undefined)?.status ?? null], [before.id, before.type ?? null, before.role ?? null, before.callID ?? null, before.tool ?? null, (before.state as {status?: string} | undefined)?.status ?? null], `${f.rel}: ids, types, callID, tool and status kept`)
      const secrets = before.type === 'tool' ? privateStrings(before.state, words, 12) : before.synthetic === true ? privateStrings(before.text, words, 12) : []
      for (const t of secrets) assert.equal(f.data.toString('utf8').includes(inJson(t)), false, `${f.rel}: a payload is left: ${JSON.stringify(t.slice(0, 60))}`)
      allSecrets.push(...secrets)
      if (before.type === 'tool') tools += secrets.length > 0 ? 1 : 0
      if (before.synthetic === true) synthetic++
    }
    assert.ok(tools >= 2 && synthetic >= 2, 'the real session has tool parts with payloads and synthetic texts')
    assert.deepEqual(await snapshotGenerations(data, h), [0, all.length], 'a candidate only when asked for')

    // One tool part zero-filled (its part file torn), by code on the copy.
    const torn = files.find((f) => f.rel.includes('prt_229db63c4001OR95sbYlySnb5t'))!
    const sound = files.find((f) => f.rel.includes('prt_229db63e6002SgT0SMY2zGncwW'))!
    const soundBytes = orig(sound.rel)
    writeFileSync(path.join(data, torn.rel), Buffer.alloc(orig(torn.rel).length))
    const asked = runCli(['repair', '--yes', '--redacted-snapshots', data], {env: cliEnv(h.env)})
    assert.equal(asked.status, 1, asked.stderr + asked.stdout)
    assert.ok(readFileSync(path.join(data, torn.rel)).equals(torn.data), 'the torn part is written as the redacted snapshot holds it, byte for byte')
    assert.ok(readFileSync(path.join(data, sound.rel)).equals(soundBytes), 'a sound tool part keeps its payload: the redacted copy does not replace it')

    // Gone from the tree altogether (its session, message and part files removed by code): the export built from
    // the redacted files is what opencode import gets, with no payload in it and every part still decodable.
    // (The session's folder, the real /home/dev/demo-app, is not here: the document is written and the command printed.)
    for (const f of files) rmSync(path.join(data, f.rel), {force: true})
    const gone = runCli(['repair', '--yes', '--json', '--redacted-snapshots', data], {env: cliEnv(h.env)})
    const chat = (JSON.parse(gone.stdout) as {chats: Array<{path: string; repair: {outcome: string; message: string}}>}).chats.find((c) => c.path.includes(sid))!
    assert.equal(chat.repair.outcome, 'manual', chat.repair.message)
    assert.match(chat.repair.message, / opencode import /)
    const received = readFileSync(/written to (\S+);/.exec(chat.repair.message)![1], 'utf8')
    for (const t of allSecrets) assert.equal(received.includes(inJson(t)), false, `a payload reached the import: ${JSON.stringify(t.slice(0, 60))}`)
    const doc = JSON.parse(received) as ExportDoc
    assert.deepEqual(importable(doc), [])
    assert.ok(doc.messages.flatMap((m) => m.parts).filter((p) => p.type === 'tool').length >= 2, 'its tool parts are in it')
  } finally {
    cleanup(h.home)
  }
})

test('OpenCode and Kilo export redaction: a user message\'s per-turn system prompt is dropped, the session\'s and a turn\'s summary diffs emptied, a synthetic text replaced; a payload that is not an export document is refused', () => {
  const doc = JSON.parse(readFileSync(path.join(REALDATA, 'kilo', '7.7.7', 'exports', 'export-ses_dcf0103d1ffeVv9VwWk5ZTVB35.json'), 'utf8')) as ExportDoc
  const secret = 'Always answer in French; the deploy token is tok_C0FFEE.'
  const user = doc.messages.find((m) => m.info.role === 'user')!
  user.info.system = secret
  user.parts.push({id: 'prt_zzzzzzzzzzzzzzzzzzzzzzzzzz', sessionID: doc.info.id, messageID: user.info.id, type: 'text', synthetic: true, text: `Called the Read tool with the following input: {"filePath":"secret.ts"}\n${secret}`})
  doc.info.summary = {...(doc.info.summary as object), diffs: [{file: 'src/todo.ts', patch: secret, additions: 1, deletions: 0}]}
  assert.ok(doc.messages.some((m) => JSON.stringify((m.info.summary as {diffs?: unknown} | undefined)?.diffs ?? []).includes('remove(id: number)')), 'the real export holds a turn\'s diff')
  const out = redactExportPayload(Buffer.from(JSON.stringify(doc, null, 2) + '\n'))
  assert.ok(Buffer.isBuffer(out))
  const text = out.toString('utf8')
  assert.equal(text.includes('tok_C0FFEE'), false)
  assert.equal(text.includes('remove(id: number)'), false, 'no diff left')
  const red = JSON.parse(text) as ExportDoc
  assert.equal('system' in red.messages.find((m) => m.info.id === user.info.id)!.info, false)
  assert.deepEqual(exportShape(red), exportShape(doc))
  assert.deepEqual(importable(red), [])
  assert.ok(text.includes(inJson('"Where is TodoStore used?"')), "the user's prompt stays")
  assert.deepEqual(redactExportPayload(Buffer.from('{"info":{}}')), {refused: 'the payload is not an export document'})
})
