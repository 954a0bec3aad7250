/**
 * `snapshot --redact` for Gemini CLI, Cline CLI and the VS Code task folders (Roo Code, Kilo Code, Cline 3.x), on
 * the agents' real sessions copied from shared/realdata (the task folders from the fixture builder, which lays
 * the real Cline conversation out as each extension writes it): the decrypted redacted snapshot holds none of
 * the tools' output or input text and no per-turn context, keeps roles, message order, ids, tool ids and which
 * result answers which call, is marked redacted, is a candidate only with `--redacted-snapshots`, and `repair`
 * restores it only with that flag.
 */
import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {nodeFileSystem} from '../src/lib/fsio/fs.js'
import {classifyJsonlBytes} from '../src/lib/classify/jsonl.js'
import {countMessages as countAnthropic} from '../src/lib/formats/anthropic-messages/index.js'
import {isPrompt as isClinePrompt} from '../src/lib/formats/cline/messages.js'
import {countMessages as countGemini, replay, type GeminiRecord} from '../src/lib/formats/gemini-cli/records.js'
import {historyFacts} from '../src/lib/formats/vscode-tasks/measure.js'
import {redactToolXml} from '../src/lib/formats/vscode-tasks/snapshot.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {takeSnapshots} from '../src/lib/pipeline/snapshot/take.js'
import {readKey} from '../src/lib/snapshot/key.js'
import {openSnapshot} from '../src/lib/snapshot/seal.js'
import {listStore} from '../src/lib/snapshot/store.js'
import {REALDATA, cleanup, copyWritable, runCli, sha256, tempDir} from './helpers/fixtures.js'
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
  // Without the flag the scan still says the redacted copy exists, and how to use it; the status stays honest.
  const scan = runCli(['scan', '--json', at], {env: cliEnv(env)})
  const told = (JSON.parse(scan.stdout) as {chats: Array<{status: string; findings: Array<{id: string; message: string}>}>}).chats.filter((c) => c.findings.some((f) => f.id === 'redacted-snapshot-unused'))
  assert.equal(told.length, 1, scan.stdout)
  assert.ok(told[0].status === 'unrecoverable' || told[0].status === 'degraded', told[0].status)
  assert.match(told[0].findings.find((f) => f.id === 'redacted-snapshot-unused')!.message, /^chatdoctor holds a redacted snapshot of this chat, snapshot:\d{4}-[\d-]+T[\d:.]+Z: tool inputs and outputs removed, so it is not the full context and is ranked only with --redacted-snapshots; chatdoctor repair --redacted-snapshots restores it$/)
  assert.notEqual(sha256(readFileSync(file)), sha256(plaintext), 'without the flag nothing restores the redacted snapshot')
  writeFileSync(file, Buffer.alloc(size))
  const asked = runCli(['repair', '--yes', '--redacted-snapshots', at], {env: cliEnv(env)})
  assert.equal(asked.status, 1, asked.stderr + asked.stdout)
  assert.match(asked.stdout, /warning snapshot:\S+ is a redacted snapshot \(chatdoctor snapshot --redact\): the context it restores has no tool inputs and outputs and no per-turn system prompts/, asked.stdout)
  assert.equal(sha256(readFileSync(file)), sha256(plaintext), 'with the flag the redacted snapshot is written byte for byte')
  const after = JSON.parse(runCli(['scan', '--json', at], {env: cliEnv(env)}).stdout) as {chats: Array<{status: string}>}
  assert.ok(after.chats.length > 0 && after.chats.every((c) => c.status === 'healthy'), `the restored redacted chat loads and is healthy: ${JSON.stringify(after.chats.map((c) => c.status))}`)
}

const GEMINI = path.join(REALDATA, 'gemini-cli', '0.61.0', 'home', '.gemini')
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
