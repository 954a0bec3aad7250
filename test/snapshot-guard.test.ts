/**
 * The snapshot round trip for each agent with a hook, as a user meets it: `guard install <agent>` into a fake
 * home writes the agent's real hook configuration (checked against the shape the agent's documentation
 * gives), the hook is run exactly as the agent runs it with the input the agent passes, an encrypted snapshot
 * is stored (the session's prompt text is not in it), the session is then damaged beyond its on-disk
 * generations, `scan` names the snapshot the winner and `repair` restores the session byte for byte; `guard
 * uninstall` leaves the settings file as it was. The sessions are the real ones in shared/realdata, copied.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {pathToFileURL} from 'node:url'
import {Ajv2020} from 'ajv/dist/2020.js'
import {parse as parseToml} from 'smol-toml'
import {REALDATA, cleanup, copyWritable, runCli, sha256} from './helpers/fixtures.js'
import {buildTask, realTurns, storageDir, taskId, writeStore} from './helpers/vscode-tasks.js'
import {ELSEWHERE, agentEnv, fakeHome, storeFiles, waitFor} from './helpers/guard-home.js'

function cli(args: string[], env: NodeJS.ProcessEnv) {
  return runCli(args, {env: agentEnv(env)})
}

/** The scan report of PATHs (`--json`). */
function scanJson(paths: string[], env: NodeJS.ProcessEnv): {chats: Array<{path: string; status: string; winner: string | null; generations: Array<{file: string; role: string}>}>; errors: unknown[]} {
  const r = cli(['scan', '--json', ...paths], env)
  return JSON.parse(r.stdout)
}

/**
 * Zero-fills `file` (damage beyond what is on disk: the agent keeps no other copy), then checks that a scan of
 * `at` names a stored snapshot the winner, that repair restores the file byte for byte, and that the chat is
 * healthy again.
 */
function restoresZeroFilled(file: string, at: string, env: NodeJS.ProcessEnv): void {
  const original = readFileSync(file)
  writeFileSync(file, Buffer.alloc(original.length))
  const chat = scanJson([at], env).chats.find((c) => c.winner?.startsWith('snapshot:')) ?? scanJson([at], env).chats[0]
  assert.equal(chat.status, 'repairable')
  assert.match(chat.winner ?? '', /^snapshot:\d{4}-\d\d-\d\dT/)
  assert.ok(chat.generations.some((g) => g.role === 'snapshot' && g.file === chat.winner))
  const repair = cli(['repair', '--yes', at], env)
  assert.equal(repair.status, 1, repair.stderr + repair.stdout)
  assert.equal(sha256(readFileSync(file)), sha256(original), 'restored byte for byte')
  assert.equal(scanJson([at], env).chats[0].status, 'healthy')
}

/** A prompt the user wrote, from a Claude Code log (for "not in the snapshot file"). */
function firstClaudePrompt(log: Buffer): string {
  for (const line of log.toString('utf8').split('\n')) {
    if (!line.trim()) continue
    const v = JSON.parse(line)
    const c = v.type === 'user' && !v.isMeta ? v.message?.content : undefined
    if (typeof c === 'string' && c.length >= 20 && !c.startsWith('<')) return c.slice(0, 40)
  }
  throw new Error('no prompt')
}

/** Claude Code's `hooks` in settings.json, as its hooks reference documents them (https://code.claude.com/docs/en/hooks). */
const CLAUDE_HOOKS_SCHEMA = {
  type: 'object',
  properties: {
    hooks: {
      type: 'object',
      propertyNames: {enum: ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Notification', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'SubagentStart', 'PreCompact', 'PostCompact', 'SessionStart', 'SessionEnd', 'PermissionRequest']},
      additionalProperties: {
        type: 'array',
        items: {
          type: 'object',
          required: ['hooks'],
          additionalProperties: false,
          properties: {
            matcher: {type: 'string'},
            hooks: {type: 'array', minItems: 1, items: {type: 'object', required: ['type', 'command'], additionalProperties: false, properties: {type: {const: 'command'}, command: {type: 'string', minLength: 1}, timeout: {type: 'number', exclusiveMinimum: 0}}}},
          },
        },
      },
    },
  },
}

test('Claude Code: guard install writes Stop and PreCompact hooks, the Stop hook stores an encrypted snapshot, repair restores the zero-filled log from it byte for byte, uninstall leaves settings.json as it was', async () => {
  const {home, env} = fakeHome()
  try {
    copyWritable(path.join(REALDATA, 'claude-code', '2.1.328', 'home', '.claude'), path.join(home, '.claude'))
    const settings = path.join(home, '.claude', 'settings.json')
    // The user's own settings, with a hook of theirs and their own formatting.
    const before = '{\n    "model": "opus",\n    "hooks": {\n        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]\n    }\n}\n'
    writeFileSync(settings, before)
    const install = cli(['guard', 'install', 'claude-code'], env)
    assert.equal(install.status, 0, install.stderr)
    const cfg = JSON.parse(readFileSync(settings, 'utf8')) as {model: string; hooks: Record<string, Array<{hooks: Array<{command: string}>}>>}
    const validate = new Ajv2020({strict: true}).compile(CLAUDE_HOOKS_SCHEMA)
    const valid = validate(cfg)
    assert.ok(valid, JSON.stringify(validate.errors))
    assert.equal(cfg.model, 'opus', "the user's settings stay")
    assert.equal(cfg.hooks.Stop[0].hooks[0].command, 'notify-send done', "the user's hook stays first")
    const ours = cfg.hooks.Stop[1].hooks[0]
    assert.match(ours.command, / snapshot --hook claude-code$/)
    assert.equal(cfg.hooks.PreCompact[0].hooks[0].command, ours.command)
    assert.ok(readFileSync(settings, 'utf8').startsWith('{\n    "model": "opus",\n    "hooks": {\n        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}'), 'every byte of the user\'s part kept')
    assert.equal(cli(['guard', 'install', 'claude-code'], env).stdout.includes('already'), true, 'a second install changes nothing')

    // The Stop hook as Claude Code runs it: a shell command, the hook input as JSON on stdin.
    const project = path.join(home, '.claude', 'projects', '-home-dev-demo-app')
    const log = path.join(project, '3306629b-a8aa-4dc1-8716-233d3cbaea4c.jsonl')
    const original = readFileSync(log)
    const input = {session_id: '3306629b-a8aa-4dc1-8716-233d3cbaea4c', transcript_path: log, cwd: path.join(home, 'demo-app'), permission_mode: 'default', hook_event_name: 'Stop', stop_hook_active: false}
    const run = spawnSync('/bin/sh', ['-c', ours.command], {input: JSON.stringify(input), env: agentEnv(env), encoding: 'utf8'})
    assert.equal(run.status, 0, run.stderr)
    assert.equal(run.stdout, '', 'the hook prints nothing Claude Code would read')
    const snaps = storeFiles(env)
    assert.equal(snaps.length, 1, 'one snapshot stored')
    const stored = readFileSync(snaps[0])
    assert.equal(stored.includes(Buffer.from(firstClaudePrompt(original))), false, 'the prompt text is not in the snapshot file')
    assert.equal(stored.includes(original.subarray(0, 200)), false, 'the log is not in it in the clear')
    assert.equal(statSync(snaps[0]).mode & 0o777, 0o600)
    assert.equal(statSync(path.join(env.XDG_CONFIG_HOME!, 'chatdoctor', 'snapshot.key')).mode & 0o777, 0o600)

    // Damage beyond what is on disk: Claude Code keeps one log, now zero-filled.
    restoresZeroFilled(log, log, env)

    const uninstall = cli(['guard', 'uninstall', 'claude-code'], env)
    assert.equal(uninstall.status, 0, uninstall.stderr)
    assert.equal(readFileSync(settings, 'utf8'), before, 'settings.json is byte-identical to before the install')
    const kept = readdirSync(path.join(env.XDG_STATE_HOME!, 'chatdoctor', 'guard', 'claude-code'))
    assert.equal(kept.length, 2, 'both versions kept as evidence (before install, before uninstall)')
  } finally {
    cleanup(home)
  }
})

test('Codex: guard install sets notify in config.toml, the notify call on agent-turn-complete stores a snapshot, repair restores the emptied rollout from it, uninstall leaves config.toml as it was', async () => {
  const {home, env} = fakeHome()
  try {
    copyWritable(path.join(REALDATA, 'codex', '0.169.0', 'home', '.codex'), path.join(home, '.codex'))
    const config = path.join(home, '.codex', 'config.toml')
    const before = readFileSync(config)
    const install = cli(['guard', 'install', 'codex'], env)
    assert.equal(install.status, 0, install.stderr)
    // The documented shape: a top-level `notify`, array<string> (openai/codex docs/config.md).
    const cfg = parseToml(readFileSync(config, 'utf8')) as Record<string, unknown>
    assert.ok(Array.isArray(cfg.notify) && (cfg.notify as unknown[]).every((x) => typeof x === 'string'), 'notify is an array of strings')
    const argv = cfg.notify as string[]
    assert.deepEqual(argv.slice(-3), ['snapshot', '--hook', 'codex'])
    const plain = (v: unknown) => JSON.parse(JSON.stringify(v))
    assert.deepEqual(plain(Object.fromEntries(Object.entries(cfg).filter(([k]) => k !== 'notify'))), plain(parseToml(before.toString('utf8'))), 'the rest of the config is unchanged')

    const thread = '01a230d3-910e-7ab3-9c7f-f7f164ff1ff1'
    const rollout = path.join(home, '.codex', 'sessions', '2026', '12', '01', `rollout-2026-12-01T08-58-21-${thread}.jsonl`)
    const original = readFileSync(rollout)
    // As Codex calls it: the notify program, the notification JSON appended as the last argument.
    const notification = {type: 'agent-turn-complete', 'thread-id': thread, 'turn-id': '01a230d3-9a9e', cwd: path.join(home, 'demo-app'), 'input-messages': ['what does git status say?'], 'last-assistant-message': 'Clean.'}
    const run = spawnSync(argv[0], [...argv.slice(1), JSON.stringify(notification)], {env: agentEnv(env), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']})
    assert.equal(run.status, 0, run.stderr)
    const snaps = storeFiles(env)
    assert.equal(snaps.length, 1)
    const records = original.toString('utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l))
    const prompt = records.map((v) => (v.type === 'response_item' && v.payload?.role === 'user' ? (v.payload.content?.[0]?.text as string | undefined) : undefined)).find((t) => t !== undefined && !t.startsWith('<'))!
    assert.ok(prompt.length > 10)
    assert.equal(readFileSync(snaps[0]).includes(Buffer.from(prompt)), false, 'the prompt text is not in the snapshot file')

    writeFileSync(rollout, '')
    // The session's own chat (Codex's index, a chat of its own, is reported beside it).
    const chat = scanJson([rollout], env).chats.find((c) => c.path.endsWith(path.basename(rollout)))!
    assert.equal(chat.status, 'repairable')
    assert.match(chat.winner ?? '', /^snapshot:/)
    const repair = cli(['repair', '--yes', rollout], env)
    assert.equal(repair.status, 1, repair.stderr + repair.stdout)
    assert.equal(sha256(readFileSync(rollout)), sha256(original), 'restored byte for byte')

    const uninstall = cli(['guard', 'uninstall', 'codex'], env)
    assert.equal(uninstall.status, 0, uninstall.stderr)
    assert.ok(readFileSync(config).equals(before), 'config.toml is byte-identical to before the install')
  } finally {
    cleanup(home)
  }
})

test("OpenCode: guard install writes a plugin that OpenCode's loader accepts, its session.idle handler stores a snapshot, repair writes the damaged tree session's files back byte for byte, uninstall removes the plugin", async () => {
  const {home, env} = fakeHome()
  const saved = {...process.env}
  try {
    const data = path.join(env.XDG_DATA_HOME!, 'opencode')
    copyWritable(path.join(REALDATA, 'opencode', '1.1.65', 'data', 'opencode'), data)
    const install = cli(['guard', 'install', 'opencode'], env)
    assert.equal(install.status, 0, install.stderr)
    const plugin = path.join(env.XDG_CONFIG_HOME!, 'opencode', 'plugins', 'chatdoctor-snapshot.js')
    assert.ok(existsSync(plugin), 'the plugin is in the global plugin folder')
    // The loader's rule (packages/opencode/src/plugin/index.ts): every export of a file plugin is a plugin function.
    const mod = (await import(pathToFileURL(plugin).href)) as Record<string, unknown>
    assert.ok(Object.keys(mod).length >= 1 && Object.values(mod).every((v) => typeof v === 'function'), 'every export is a plugin function')
    const hooks = (await (Object.values(mod)[0] as (ctx: unknown) => Promise<{event: (x: {event: unknown}) => Promise<void>}>)({}))
    assert.equal(typeof hooks.event, 'function', 'it returns an event hook')

    const sid = 'ses_dd6249cf0ffevk8ay20nf1cCNR'
    const storage = path.join(data, 'storage')
    const files = (dir: string): string[] => readdirSync(dir, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    const mine = files(storage).filter((f) => f.includes(sid) || JSON.parse(readFileSync(f, 'utf8')).sessionID === sid)
    const original = new Map(mine.map((f) => [f, readFileSync(f)]))
    // OpenCode runs the plugin in its own process, with its environment: here, the fake home's.
    Object.assign(process.env, agentEnv(env))
    for (const k of ELSEWHERE) delete process.env[k]
    await hooks.event({event: {type: 'message.updated', properties: {sessionID: sid}}})
    await hooks.event({event: {type: 'session.idle', properties: {sessionID: sid}}})
    await waitFor(() => storeFiles(env).length === 1)
    const snap = readFileSync(storeFiles(env)[0])
    const userText = [...original.values()].map((b) => JSON.parse(b.toString('utf8'))).find((v) => v.type === 'text' && typeof v.text === 'string' && v.text.length > 10)?.text as string
    assert.ok(userText, 'a text part')
    assert.equal(snap.includes(Buffer.from(userText.slice(0, 30))), false, 'the text is not in the snapshot file')

    // Damage beyond the tree's own copies: the session file, a message file and a part file zero-filled.
    const sessionFile = mine.find((f) => f.includes(`${path.sep}session${path.sep}`))!
    const messageFile = mine.find((f) => f.includes(`${path.sep}message${path.sep}`))!
    const partFile = mine.find((f) => f.includes(`${path.sep}part${path.sep}`))!
    for (const f of [sessionFile, messageFile, partFile]) writeFileSync(f, Buffer.alloc(readFileSync(f).length))
    const chat = scanJson([data], env).chats.find((c) => c.path.includes(sid))!
    assert.equal(chat.status, 'repairable')
    assert.match(chat.winner ?? '', /^snapshot:/)
    const repair = cli(['repair', '--yes', data], env)
    assert.ok((repair.status & 8) === 0, repair.stderr + repair.stdout)
    for (const [f, bytes] of original) assert.equal(sha256(readFileSync(f)), sha256(bytes), `${path.relative(data, f)} restored byte for byte`)
    assert.equal(scanJson([data], env).chats.find((c) => c.path.includes(sid))!.status, 'healthy')

    const uninstall = cli(['guard', 'uninstall', 'opencode'], env)
    assert.equal(uninstall.status, 0, uninstall.stderr)
    assert.equal(existsSync(plugin), false, 'the plugin file is gone')
    assert.equal(existsSync(path.dirname(plugin)), false, 'the plugins folder guard made is gone with it')
    assert.equal(existsSync(path.join(env.XDG_CONFIG_HOME!, 'opencode')), false, 'and the opencode folder it made: the config folder is as it was')
    assert.ok(existsSync(path.join(env.XDG_CONFIG_HOME!, 'chatdoctor', 'snapshot.key')), 'a folder guard did not make stays')
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k]
    Object.assign(process.env, saved)
    cleanup(home)
  }
})

test('Codebuff has no hook: guard install prints a systemd user unit and a cron line and writes nothing; guard status says so', () => {
  const {home, env} = fakeHome()
  try {
    mkdirSync(path.join(home, '.config'), {recursive: true})
    const r = cli(['guard', 'install', 'codebuff'], env)
    assert.equal(r.status, 0, r.stderr)
    assert.match(r.stdout, /\[Timer\]/)
    assert.match(r.stdout, /OnUnitActiveSec=/)
    assert.match(r.stdout, /^\*\/10 \* \* \* \* .* snapshot --quiet /m)
    assert.deepEqual(readdirSync(path.join(home, '.config')), [], 'nothing installed')
    const s = cli(['guard', 'status', '--json'], env)
    const agents = JSON.parse(s.stdout).agents as Array<{agent: string; installed: boolean; file: string | null}>
    assert.deepEqual(agents.map((a) => a.agent).sort(), ['claude-code', 'cline', 'codebuff', 'codex', 'gemini-cli', 'kilo', 'opencode', 'vscode-tasks'])
    assert.ok(agents.every((a) => !a.installed))
    assert.equal(agents.find((a) => a.agent === 'codebuff')!.file, null)
    // -q: the timer text alone; guard status -q lists only installed hooks (none), -v names each agent's documentation.
    const q = cli(['guard', 'install', 'codebuff', '-q'], env)
    assert.equal(q.status, 0)
    assert.ok(q.stdout.startsWith('# ~/.config/systemd/user/'), q.stdout)
    assert.equal(q.stdout.includes('installs nothing'), false)
    assert.equal(cli(['guard', 'status', '-q'], env).stdout.trim(), '')
    assert.match(cli(['guard', 'status', '-v'], env).stdout, /^ {2}documented in https:\/\/code\.claude\.com\/docs\/en\/hooks/m)
  } finally {
    cleanup(home)
  }
})

/** Gemini CLI's `hooks` in settings.json, as its hooks reference documents them (google-gemini/gemini-cli docs/hooks/reference.md). */
const GEMINI_HOOKS_SCHEMA = {
  type: 'object',
  properties: {
    hooks: {
      type: 'object',
      propertyNames: {enum: ['BeforeTool', 'AfterTool', 'BeforeAgent', 'AfterAgent', 'BeforeModel', 'BeforeToolSelection', 'AfterModel', 'SessionStart', 'SessionEnd', 'Notification', 'PreCompress']},
      additionalProperties: {
        type: 'array',
        items: {
          type: 'object',
          required: ['hooks'],
          additionalProperties: false,
          properties: {
            matcher: {type: 'string'},
            sequential: {type: 'boolean'},
            hooks: {
              type: 'array',
              minItems: 1,
              items: {type: 'object', required: ['type', 'command'], additionalProperties: false, properties: {type: {const: 'command'}, command: {type: 'string', minLength: 1}, name: {type: 'string'}, description: {type: 'string'}, timeout: {type: 'number', exclusiveMinimum: 0}}},
            },
          },
        },
      },
    },
  },
}

/** The hook log's lines (`$XDG_STATE_HOME/chatdoctor/snapshot-hook.log`). */
function hookLog(env: NodeJS.ProcessEnv): Array<{status: string; message: string}> {
  const f = path.join(env.XDG_STATE_HOME!, 'chatdoctor', 'snapshot-hook.log')
  return existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []
}

test('Gemini CLI: guard install writes AfterAgent and PreCompress hooks, hostile input logs one line and stores nothing, the AfterAgent hook stores an encrypted snapshot, repair restores the zero-filled session from it byte for byte, uninstall leaves settings.json as it was', async () => {
  const {home, env} = fakeHome()
  try {
    copyWritable(path.join(REALDATA, 'gemini-cli', '0.61.0', 'home', '.gemini'), path.join(home, '.gemini'))
    const settings = path.join(home, '.gemini', 'settings.json')
    const before = readFileSync(settings, 'utf8')
    const install = cli(['guard', 'install', 'gemini-cli'], env)
    assert.equal(install.status, 0, install.stderr)
    assert.match(install.stdout, /since 0\.26/, 'it says what older releases need instead of changing a switch')
    const cfg = JSON.parse(readFileSync(settings, 'utf8')) as {hooks: Record<string, Array<{hooks: Array<{command: string; timeout: number; name: string}>}>>; hooksConfig?: unknown; tools?: unknown}
    const validate = new Ajv2020({strict: true}).compile(GEMINI_HOOKS_SCHEMA)
    assert.ok(validate(cfg), JSON.stringify(validate.errors))
    assert.equal(cfg.hooksConfig, undefined, 'no switch of the user flipped')
    assert.equal(cfg.tools, undefined)
    const ours = cfg.hooks.AfterAgent[0].hooks[0]
    assert.match(ours.command, / snapshot --hook gemini-cli$/)
    assert.ok(ours.timeout >= 1000, 'the timeout is in milliseconds')
    assert.equal(cfg.hooks.PreCompress[0].hooks[0].command, ours.command)
    assert.ok(readFileSync(settings, 'utf8').startsWith(before.trimEnd().slice(0, -2)), "every byte of the user's part kept")
    assert.match(cli(['guard', 'install', 'gemini-cli'], env).stdout, /already/)
    const status = JSON.parse(cli(['guard', 'status', 'gemini-cli', '--json'], env).stdout).agents[0] as {installed: boolean}
    assert.equal(status.installed, true)

    const chats = path.join(home, '.gemini', 'tmp', 'demo-app', 'chats')
    const session = path.join(chats, 'session-2026-12-01T09-42-6e65aa12.jsonl')
    const original = readFileSync(session)
    const run = (input: string) => spawnSync('/bin/sh', ['-c', ours.command], {input, env: agentEnv(env), encoding: 'utf8'})
    // Hostile input: not JSON; a transcript outside Gemini CLI's folder. Exit 0, nothing printed, one line each.
    const outside = path.join(home, 'elsewhere.jsonl')
    writeFileSync(outside, original)
    for (const input of ['not json', JSON.stringify({session_id: 'x', transcript_path: outside, hook_event_name: 'AfterAgent'})]) {
      const r = run(input)
      assert.equal(r.status, 0)
      assert.equal(r.stdout + r.stderr, '', 'nothing on stdout or stderr (Gemini CLI would parse it)')
    }
    const lines = hookLog(env)
    assert.equal(lines.length, 2)
    assert.match(lines[0].message, /not JSON/)
    assert.match(lines[1].message, /outside Gemini CLI's sessions folder/)
    assert.deepEqual(storeFiles(env), [], 'nothing stored')

    // AfterAgent as Gemini CLI runs it: a shell command, the hook input as JSON on stdin.
    const input = {session_id: '6e65aa12-18d1-407e-a443-edb605205841', transcript_path: session, cwd: path.join(home, 'demo-app'), hook_event_name: 'AfterAgent', timestamp: '2026-12-01T09:42:11.000Z', prompt: 'Summarise the store in one sentence.', prompt_response: 'TodoStore keeps an in-memory list.', stop_hook_active: false}
    const r = run(JSON.stringify(input))
    assert.equal(r.status, 0, r.stderr)
    assert.equal(r.stdout, '')
    const snaps = storeFiles(env)
    assert.equal(snaps.length, 1, 'one snapshot stored')
    const stored = readFileSync(snaps[0])
    assert.equal(stored.includes(Buffer.from('Add a remove(id) method to TodoStore.')), false, 'the prompt text is not in the snapshot file')
    assert.equal(stored.includes(original.subarray(0, 120)), false)

    // Damage beyond what is on disk: Gemini CLI keeps one file per session, now zero-filled.
    restoresZeroFilled(session, session, env)

    const uninstall = cli(['guard', 'uninstall', 'gemini-cli'], env)
    assert.equal(uninstall.status, 0, uninstall.stderr)
    assert.equal(readFileSync(settings, 'utf8'), before, 'settings.json is byte-identical to before the install')
  } finally {
    cleanup(home)
  }
})

test('Cline CLI: guard install writes a TaskComplete file hook that Cline runs with sh, hostile input logs one line, the agent_end call stores a snapshot, repair restores the torn conversation from it byte for byte, uninstall removes the file and the folder it made', async () => {
  const {home, env} = fakeHome()
  try {
    copyWritable(path.join(REALDATA, 'cline', '3.0.65', 'home', '.cline'), path.join(home, '.cline'))
    const install = cli(['guard', 'install', 'cline'], env)
    assert.equal(install.status, 0, install.stderr)
    const hook = path.join(home, '.cline', 'hooks', 'TaskComplete.sh')
    const script = readFileSync(hook, 'utf8')
    // Cline's rules (sdk hook-file-config.ts, hook-file-hooks.ts): named after the event with a script extension, interpreter from the shebang.
    assert.match(path.basename(hook), /^TaskComplete\.(sh|bash|js|mjs|cjs|py)$/)
    assert.ok(script.startsWith('#!/bin/sh\n'))
    assert.match(script, /\nexec .* snapshot --hook cline\n$/)

    const id = '1796118198748_i47ig'
    const conversation = path.join(home, '.cline', 'data', 'sessions', id, `${id}.messages.json`)
    const original = readFileSync(conversation)
    const payload = (taskId: string) => JSON.stringify({clineVersion: '3.0.65', hookName: 'agent_end', timestamp: '2026-12-01T09:43:47.100Z', taskId, sessionContext: {rootSessionId: taskId}, workspaceRoots: [path.join(home, 'demo-app')], userId: 'dev', agent_id: 'lead', parent_agent_id: null, taskComplete: {taskMetadata: {}}})
    // As Cline runs it: `sh <file>`, the payload on stdin.
    const run = (input: string) => spawnSync('sh', [hook], {input, env: agentEnv(env), encoding: 'utf8'})
    for (const input of ['{"hookName":', payload('../../../etc')]) {
      const r = run(input)
      assert.equal(r.status, 0)
      assert.equal(r.stdout, '')
    }
    assert.equal(hookLog(env).length, 2, 'one log line each')
    assert.deepEqual(storeFiles(env), [])
    const r = run(payload(id))
    assert.equal(r.status, 0, r.stderr)
    const snaps = storeFiles(env)
    assert.equal(snaps.length, 1, 'one snapshot stored')
    assert.equal(readFileSync(snaps[0]).includes(Buffer.from('List the files in this project.')), false, 'the prompt text is not in the snapshot file')

    // Cline rewrites the file in place with no copy: torn mid-message, its own reader gets an empty conversation.
    writeFileSync(conversation, original.subarray(0, Math.floor(original.length / 3)))
    const chat = scanJson([path.join(home, '.cline', 'data')], env).chats.find((c) => c.path.includes(id))!
    assert.equal(chat.status, 'repairable')
    assert.match(chat.winner ?? '', /^snapshot:/)
    const repair = cli(['repair', '--yes', path.dirname(conversation)], env)
    assert.equal(repair.status, 1, repair.stderr + repair.stdout)
    assert.equal(sha256(readFileSync(conversation)), sha256(original), 'restored byte for byte')

    const uninstall = cli(['guard', 'uninstall', 'cline'], env)
    assert.equal(uninstall.status, 0, uninstall.stderr)
    assert.equal(existsSync(path.dirname(hook)), false, 'the hooks folder guard made is gone')
    assert.ok(existsSync(path.join(home, '.cline', 'data')))
  } finally {
    cleanup(home)
  }
})

test('Roo Code, Kilo Code and Cline 3.x task folders have no hook: guard install prints a timer over their storage folders; a snapshot of a task restores its zero-filled model context byte for byte', async () => {
  const {home, env} = fakeHome()
  try {
    const timer = cli(['guard', 'install', 'vscode-tasks'], env)
    assert.equal(timer.status, 0, timer.stderr)
    assert.match(timer.stdout, /run no program of the user's after a turn/)
    assert.match(timer.stdout, /^\*\/10 \* \* \* \* .* snapshot --quiet /m)
    const storage = storageDir(home, 'roo')
    const [t] = writeStore(storage, 'roo', [buildTask('roo', taskId('roo', 0), realTurns('A'))])
    const snap = cli(['snapshot', '--json', t.dir], env)
    assert.equal(snap.status, 0, snap.stderr + snap.stdout)
    assert.equal(storeFiles(env).length, 1)
    restoresZeroFilled(path.join(t.dir, 'api_conversation_history.json'), t.dir, env)
  } finally {
    cleanup(home)
  }
})

test('OpenCode session gone from the store altogether: repair writes its snapshot as an opencode export document and runs opencode import on it in the session\'s directory (a fake opencode on PATH); without opencode on PATH it prints the command; a failing import is reported with the command', async () => {
  const {home, env} = fakeHome()
  try {
    const data = path.join(env.XDG_DATA_HOME!, 'opencode')
    copyWritable(path.join(REALDATA, 'opencode', '1.1.65', 'data', 'opencode'), data)
    const sid = 'ses_dd6249cf0ffevk8ay20nf1cCNR'
    const storage = path.join(data, 'storage')
    const files = (dir: string): string[] => readdirSync(dir, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    const sessionFile = files(path.join(storage, 'session')).find((f) => f.endsWith(`${sid}.json`))!
    // The session's working folder, moved into the fake home (by code, on the copy): OpenCode files an import under it.
    const project = path.join(home, 'demo-app')
    mkdirSync(project)
    const info = JSON.parse(readFileSync(sessionFile, 'utf8')) as Record<string, unknown>
    writeFileSync(sessionFile, JSON.stringify({...info, directory: project}, null, 2))
    const snap = cli(['snapshot', data], env)
    assert.equal(snap.status, 0, snap.stderr + snap.stdout)
    // What `opencode export` prints for the session, as this store holds it.
    const exported = JSON.parse(cli(['bundle', '--session', sid, '-o', path.join(home, 'export.json'), data], env).status === 0 ? readFileSync(path.join(home, 'export.json'), 'utf8') : 'null')
    assert.ok(exported?.info?.id === sid, 'the export of the healthy session')
    // Gone altogether: the session file, its message files and their part files.
    for (const m of readdirSync(path.join(storage, 'message', sid))) rmSync(path.join(storage, 'part', m.replace(/\.json$/, '')), {recursive: true, force: true})
    rmSync(path.join(storage, 'message', sid), {recursive: true})
    rmSync(sessionFile)
    assert.equal(files(storage).some((f) => f.includes(sid) || readFileSync(f, 'utf8').includes(sid)), false, 'nothing of the session is left')
    const chat = scanJson([data], env).chats.find((c) => c.path.includes(sid))!
    assert.equal(chat.status, 'repairable')
    assert.match(chat.winner ?? '', /^snapshot:/)

    // No opencode on PATH: the document is written and the command printed.
    const bare = {...env, PATH: '/nonexistent'}
    const noCmd = runCli(['repair', '--yes', '--json', data], {env: {...agentEnv(env), PATH: bare.PATH}})
    const r0 = (JSON.parse(noCmd.stdout).chats as Array<{path: string; repair: {outcome: string; message: string}}>).find((c) => c.path.includes(sid))!.repair
    assert.equal(r0.outcome, 'manual')
    const doc = /written to (\S+);/.exec(r0.message)![1]
    assert.match(r0.message, new RegExp(`cd ${project.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} && opencode import `))
    assert.deepEqual(JSON.parse(readFileSync(doc, 'utf8')), exported, 'the document is what opencode export prints')

    // A fake opencode that records its argv and working folder and reads the file.
    const bin = path.join(home, 'bin')
    mkdirSync(bin)
    const log = path.join(home, 'opencode-argv.json')
    writeFileSync(path.join(bin, 'opencode'), `#!${process.execPath}\nconst fs = require('fs')\nconst doc = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'))\nfs.writeFileSync(${JSON.stringify(log)}, JSON.stringify({argv: process.argv.slice(2), cwd: process.cwd(), id: doc.info.id, messages: doc.messages.length}))\nconsole.log('Imported session: ' + doc.info.id)\n`, {mode: 0o755})
    const withCmd = runCli(['repair', '--yes', '--json', data], {env: {...agentEnv(env), PATH: `${bin}${path.delimiter}${process.env.PATH}`}})
    const r1 = (JSON.parse(withCmd.stdout).chats as Array<{path: string; repair: {outcome: string; message: string}}>).find((c) => c.path.includes(sid))!.repair
    assert.equal(r1.outcome, 'repaired', r1.message)
    const seen = JSON.parse(readFileSync(log, 'utf8')) as {argv: string[]; cwd: string; id: string; messages: number}
    assert.equal(seen.argv[0], 'import')
    assert.equal(seen.cwd, project, "run in the session's directory")
    assert.equal(seen.id, sid)
    assert.equal(seen.messages, exported.messages.length)
    assert.match(r1.message, /Imported session/)

    // An import that fails: reported with the command, nothing written into the store by chatdoctor.
    writeFileSync(path.join(bin, 'opencode'), '#!/bin/sh\necho "database is locked" >&2\nexit 3\n', {mode: 0o755})
    const before = files(storage).sort()
    const failing = runCli(['repair', '--yes', '--json', data], {env: {...agentEnv(env), PATH: `${bin}${path.delimiter}${process.env.PATH}`}})
    const r2 = (JSON.parse(failing.stdout).chats as Array<{path: string; repair: {outcome: string; message: string}}>).find((c) => c.path.includes(sid))!.repair
    assert.equal(r2.outcome, 'failed')
    assert.match(r2.message, /exited with status 3 \(database is locked\).*opencode import /)
    assert.deepEqual(files(storage).sort(), before, 'the store is as it was')
  } finally {
    cleanup(home)
  }
})

test('snapshot --help and guard install --help are wrapped once when piped: no short line inside a paragraph of the description', () => {
  for (const args of [['snapshot', '--help'], ['guard', 'install', '--help'], ['guard', 'status', '--help'], ['guard', 'uninstall', '--help']]) {
    const r = runCli(args)
    assert.equal(r.status, 0, r.stderr)
    const description = r.stdout.split('\nDESCRIPTION\n')[1]?.split('\nEXAMPLES\n')[0]
    assert.ok(description, `${args.join(' ')} has a description`)
    for (const para of description.split(/\n\s*\n/)) {
      const lines = para.split('\n').filter((l) => l.trim() !== '')
      assert.ok(lines.every((l) => l.length <= 80), `${args.join(' ')}: a line over 80 columns:\n${para}`)
      // Text pre-wrapped at a wider width and wrapped again at 80 leaves short lines in the middle of a paragraph.
      assert.ok(lines.slice(0, -1).every((l) => l.length >= 50), `${args.join(' ')}: wrapped twice:\n${para}`)
    }
  }
})
