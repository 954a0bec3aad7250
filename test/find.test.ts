/**
 * `find`: a session located by a phrase from its middle in every agent's store (copies of the agents' own
 * files from shared/realdata), the resume command each agent takes, the sessions the agents' pickers hide,
 * `--regex`, `--json` against the published schema, the exit status with no match, hostile names and text,
 * and damaged files (searched as far as readable, said to be damaged).
 */
import {test} from 'node:test'
import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {Ajv2020} from 'ajv/dist/2020.js'
import {REALDATA, REAL_CHATS, REPO_ROOT, assertSameTree, cleanup, copyRealChat, copyWritable, cutAt, hashTree, nulTailAt, runCli, tempDir} from './helpers/fixtures.js'
import {copyGemini, ID_A as GEMINI_A} from './helpers/gemini-cli.js'
import {SESSION_A as CLINE_A, copyClineHome} from './helpers/cline.js'
import {buildTask, realTurns, storageDir, taskId, writeStore} from './helpers/vscode-tasks.js'
import {SESSION_A as KILO_A, SESSION_B as KILO_B, copyKiloHome} from './helpers/kilo.js'
import {prefilterOf, readableStrings, snippetAt} from '../src/lib/pipeline/find.js'

const CLAUDE_PRINT = '3306629b-a8aa-4dc1-8716-233d3cbaea4c'
const CLAUDE_TUI = 'd9527693-b315-4674-9957-32bc6697096e'
const CODEX_EXEC = '01a230d3-910e-7ab3-9c7f-f7f164ff1ff1'
const OPENCODE_IMPORTED = 'ses_fixture0000000000000000000'
const CLAUDE_PROJECT = path.join('.claude', 'projects', '-home-dev-demo-app')

/** A home holding every agent's sessions, copied from shared/realdata (Roo Code and Kilo Code tasks built from Cline's real turns). */
function buildHome(): {home: string; rooHidden: string; kilo: string} {
  const home = tempDir('chatdoctor-find-')
  copyWritable(path.join(REALDATA, 'claude-code', '2.1.328', 'home', '.claude', 'projects'), path.join(home, '.claude', 'projects'))
  copyWritable(path.join(REALDATA, 'codex', '0.169.0', 'home', '.codex', 'sessions'), path.join(home, '.codex', 'sessions'))
  copyWritable(path.join(REALDATA, 'opencode', '1.1.65', 'data', 'opencode'), path.join(home, '.local', 'share', 'opencode'))
  copyGemini(home)
  copyClineHome(home)
  copyRealChat(REAL_CHATS.tenTurns, home)
  const turns = realTurns('A')
  const rooShown = buildTask('roo', taskId('roo', 0), turns.slice(0, 1))
  const rooHidden = buildTask('roo', taskId('roo', 1), turns)
  const roo = writeStore(storageDir(home, 'roo'), 'roo', [rooShown, rooHidden], {listed: [rooShown.id]})
  // Not in the index and no history_item.json to add it back from: Roo Code's History view never shows it.
  rmSync(path.join(roo[1].dir, 'history_item.json'))
  const kilo = buildTask('kilo', taskId('kilo', 0), turns)
  writeStore(storageDir(home, 'kilo'), 'kilo', [kilo])
  return {home, rooHidden: rooHidden.id, kilo: kilo.id}
}

interface JsonSession {
  agent: string
  format: string
  sessionId: string
  project: string | null
  lastTime: string | null
  path: string
  resume: {argv: string[]; cwd: string | null; command: string} | null
  howToOpen: string | null
  hiddenFromPicker: string | null
  damaged: string[]
  matches: Array<{file: string; line: number | null; role: string | null; text: string}>
  moreMatches: number
}

function findJson(home: string, args: string[]): {status: number; sessions: JsonSession[]; report: Record<string, unknown>} {
  const r = runCli(['find', ...args, '--json'], {env: {HOME: home, XDG_DATA_HOME: '', XDG_CONFIG_HOME: '', CODEX_HOME: '', CLAUDE_CONFIG_DIR: '', CLINE_DIR: '', CLINE_DATA_DIR: '', GEMINI_CLI_HOME: ''}})
  assert.equal(r.stderr, '', r.stderr)
  const report = JSON.parse(r.stdout) as Record<string, unknown>
  assert.equal(report.exitCode, r.status)
  return {status: r.status, sessions: report.sessions as JsonSession[], report}
}

/** The real Claude Code TUI log's lines, the index of its user line that asks for clear(), and where a copy of it goes in `home`. */
function tuiLog(home: string): {lines: string[]; k: number; file: string} {
  const dir = path.join(home, CLAUDE_PROJECT)
  mkdirSync(dir, {recursive: true})
  const lines = readFileSync(path.join(REALDATA, 'claude-code', '2.1.328', 'home', CLAUDE_PROJECT, `${CLAUDE_TUI}.jsonl`), 'utf8').split('\n')
  const k = lines.findIndex((l) => l.includes('"type":"user"') && l.includes('Add a clear() method'))
  assert.ok(k > 0)
  return {lines, k, file: path.join(dir, `${CLAUDE_TUI}.jsonl`)}
}

const validate = new Ajv2020({allErrors: true, strict: false}).compile(JSON.parse(readFileSync(path.join(REPO_ROOT, 'schemas', 'report.schema.json'), 'utf8')))

test('find locates a session by a phrase from its middle in every agent, with the command that resumes it', () => {
  const {home, kilo} = buildHome()
  try {
    // Each phrase is said in the middle of the session (neither its first nor its last prompt or answer).
    const cases: Array<{phrase: string; agent: string; id: string; argv: string[] | null; cwd?: string}> = [
      {phrase: 'Add a remove(id) method to TodoStore', agent: 'Claude Code', id: CLAUDE_PRINT, argv: ['claude', '--resume', CLAUDE_PRINT], cwd: '/home/dev/demo-app'},
      {phrase: 'add a clear() method', agent: 'Claude Code', id: CLAUDE_TUI, argv: ['claude', '--resume', CLAUDE_TUI], cwd: '/home/dev/demo-app'},
      {phrase: 'it returns false when the id is unknown', agent: 'Codex', id: CODEX_EXEC, argv: ['codex', 'resume', CODEX_EXEC], cwd: '/home/dev/demo-app'},
      {phrase: 'where is todostore used', agent: 'Gemini CLI', id: GEMINI_A, argv: ['gemini', '--resume', GEMINI_A], cwd: '/home/dev/demo-app'},
      {phrase: 'WHERE IS TODOSTORE USED', agent: 'Cline CLI', id: CLINE_A, argv: ['cline', '--id', CLINE_A], cwd: '/home/dev/demo-app'},
      {phrase: 'returns false when the id is unknown', agent: 'OpenCode', id: OPENCODE_IMPORTED, argv: ['opencode', '--session', OPENCODE_IMPORTED], cwd: '/home/dev/demo-app'},
      {phrase: 'Rename MAX_TODOS to TODO_LIMIT', agent: 'Codebuff', id: REAL_CHATS.tenTurns, argv: ['codebuff', '--continue', REAL_CHATS.tenTurns]},
      {phrase: 'where is todostore used', agent: 'Kilo Code', id: kilo, argv: null},
    ]
    for (const c of cases) {
      const {status, sessions, report} = findJson(home, [c.phrase])
      assert.equal(status, 0, c.phrase)
      assert.ok(validate(report), JSON.stringify(validate.errors))
      const s = sessions.find((x) => x.agent === c.agent && x.sessionId === c.id)
      assert.ok(s, `${c.agent} ${c.id} not found by "${c.phrase}": ${sessions.map((x) => `${x.agent} ${x.sessionId}`).join(', ')}`)
      assert.ok(s.matches.some((m) => m.text.toLowerCase().includes(c.phrase.toLowerCase())), JSON.stringify(s.matches))
      if (c.argv === null) {
        assert.equal(s.resume, null)
        assert.match(s.howToOpen ?? '', /History view/)
      } else {
        assert.deepEqual(s.resume?.argv, c.argv)
        if (c.cwd) assert.equal(s.resume?.cwd, c.cwd)
        if (c.cwd) assert.equal(s.project, c.cwd)
      }
      assert.match(s.lastTime ?? '', /^\d{4}-\d\d-\d\dT/)
      assert.deepEqual(s.damaged, [])
    }
  } finally {
    cleanup(home)
  }
})

test('find searches the sessions of a Kilo kilo.db and an OpenCode opencode.db on private copies, with kilo --session and opencode --session', () => {
  const home = tempDir('chatdoctor-find-db-')
  try {
    copyKiloHome(home)
    copyWritable(path.join(REALDATA, 'opencode', '1.18.33', 'data', 'opencode'), path.join(home, '.local', 'share', 'opencode'))
    const before = hashTree(path.join(home, '.local', 'share'))
    // Answers and a prompt from the middle of Kilo's session A (neither its first nor its last turn).
    for (const c of [
      {phrase: 'nothing else uses it yet', role: 'answer'},
      {phrase: 'WHERE IS todostore USED', role: 'prompt'},
      {phrase: 'it filters the item out of the private array', role: 'answer'},
    ]) {
      const {status, sessions, report} = findJson(home, [c.phrase])
      assert.equal(status, 0, c.phrase)
      assert.ok(validate(report), JSON.stringify(validate.errors))
      const kilo = sessions.filter((s) => s.format === 'kilo')
      assert.deepEqual(kilo.map((s) => s.sessionId), [KILO_A], c.phrase)
      const s = kilo[0]
      assert.equal(s.agent, 'Kilo')
      assert.equal(s.path, `~/.local/share/kilo/kilo.db#${KILO_A}`)
      assert.deepEqual(s.resume?.argv, ['kilo', '--session', KILO_A])
      assert.equal(s.resume?.cwd, '/home/dev/demo-app')
      assert.equal(s.project, '/home/dev/demo-app')
      assert.match(s.lastTime ?? '', /^2026-12-01T/)
      assert.ok(s.matches.some((m) => m.role === c.role && m.file === 'kilo.db' && m.text.toLowerCase().includes(c.phrase.toLowerCase())), JSON.stringify(s.matches))
      assert.deepEqual(s.damaged, [])
    }
    // Session B's last prompt is found in B, not in A.
    const b = findJson(home, ['Thanks, that is all']).sessions.filter((s) => s.format === 'kilo')
    assert.deepEqual(b.map((s) => s.sessionId), [KILO_B])
    // OpenCode ≥ 1.2: a session of opencode.db, by an answer from its middle.
    const oc = findJson(home, ['it returns false when the id is unknown']).sessions.filter((s) => s.format === 'opencode')
    assert.ok(oc.length > 0, 'no OpenCode database session found')
    for (const s of oc) {
      assert.match(s.path, /opencode\.db#ses_/)
      assert.deepEqual(s.resume?.argv, ['opencode', '--session', s.sessionId])
      assert.equal(s.project, '/home/dev/demo-app')
      assert.ok(s.matches.some((m) => m.role === 'answer'), JSON.stringify(s.matches))
    }
    // Read-only: the stores (databases, WALs, indexes) are byte for byte as they were.
    assertSameTree(before, hashTree(path.join(home, '.local', 'share')), 'find wrote into a store')
  } finally {
    cleanup(home)
  }
})

test('find says which sessions the agents\' own pickers do not list: print mode, exec threads, a task the index lost', () => {
  const {home, rooHidden} = buildHome()
  try {
    const {sessions} = findJson(home, ['todostore'])
    const by = (agent: string, id: string) => sessions.find((s) => s.agent === agent && s.sessionId === id)
    assert.match(by('Claude Code', CLAUDE_PRINT)?.hiddenFromPicker ?? '', /print-mode/)
    assert.equal(by('Claude Code', CLAUDE_TUI)?.hiddenFromPicker, null)
    assert.match(by('Codex', CODEX_EXEC)?.hiddenFromPicker ?? '', /exec/)
    assert.equal(by('Codex', '01a230d3-ac83-7592-b02d-82076d0dd468')?.hiddenFromPicker ?? null, null)
    assert.match(by('Roo Code', rooHidden)?.hiddenFromPicker ?? '', /_index\.json\) does not list it and its history_item\.json is missing/)
    // The human output says it too, beside the command.
    const r = runCli(['find', 'todostore', '--path', path.join(home, CLAUDE_PROJECT)], {env: {HOME: home}})
    assert.equal(r.status, 0)
    assert.match(r.stdout, new RegExp(`resume: cd /home/dev/demo-app && claude --resume ${CLAUDE_PRINT}`))
    assert.match(r.stdout, /not listed by Claude Code's picker: a print-mode/)
    // -q: the session and its command only; -v: every matching line.
    const q = runCli(['find', 'todostore', '-q', '--path', path.join(home, CLAUDE_PROJECT)], {env: {HOME: home}})
    assert.equal(q.status, 0)
    assert.equal(q.stderr, '')
    assert.equal(q.stdout.trim().split('\n').length, 4, q.stdout)
    assert.match(q.stdout, new RegExp(`^  cd /home/dev/demo-app && claude --resume ${CLAUDE_PRINT}$`, 'm'))
    const few = findJson(home, ['todostore', '--path', path.join(home, CLAUDE_PROJECT)]).sessions.find((x) => x.sessionId === CLAUDE_PRINT)!
    const all = findJson(home, ['todostore', '-v', '--path', path.join(home, CLAUDE_PROJECT)]).sessions.find((x) => x.sessionId === CLAUDE_PRINT)!
    assert.ok(few.moreMatches > 0)
    assert.equal(all.moreMatches, 0)
    assert.equal(all.matches.length, few.matches.length + few.moreMatches)
  } finally {
    cleanup(home)
  }
})

test('find --regex matches the decoded text with a regular expression; a bad one is a usage error', () => {
  const {home} = buildHome()
  try {
    const {status, sessions} = findJson(home, ['--regex', 'rename max_todos to todo_\\w+'])
    assert.equal(status, 0)
    assert.deepEqual(sessions.map((s) => s.agent), ['Codebuff'])
    assert.equal(findJson(home, ['--regex', 'todo.?store.? (is|was) only declared']).sessions.length > 0, true)
    const bad = runCli(['find', '--regex', '(unclosed'], {env: {HOME: home}})
    assert.equal(bad.status, 16)
    assert.match(bad.stderr, /--regex: /)
  } finally {
    cleanup(home)
  }
})

test('find with no match exits 1 and prints no session; JSON keys and syntax never match', () => {
  const {home} = buildHome()
  try {
    const none = runCli(['find', 'zebra-quokka-unlikely'], {env: {HOME: home}})
    assert.equal(none.status, 1)
    assert.equal(none.stdout, '')
    assert.match(none.stderr, /No session matched; searched \d+ chats/)
    // Record keys and values that are not prompts or answers.
    for (const word of ['parentUuid', 'sessionId', 'session_meta', '"type":"user"', 'tool_use_id']) {
      const {status, sessions} = findJson(home, [word])
      assert.equal(status, 1, `${word}: ${sessions.map((s) => s.agent).join(', ')}`)
    }
    assert.equal(runCli(['find'], {env: {HOME: home}}).status, 16)
  } finally {
    cleanup(home)
  }
})

test('find: words must all be in one prompt or answer, in any case, non-ASCII folded too', () => {
  const home = tempDir('chatdoctor-find-')
  try {
    const {lines, k, file} = tuiLog(home)
    lines[k] = lines[k].replace('Add a clear() method', 'Add a Ünïcode clear() «method» — 日本語')
    writeFileSync(file, lines.join('\n'))
    assert.equal(findJson(home, ['ünïcode', 'clear()']).sessions.length, 1)
    assert.equal(findJson(home, ['日本語']).sessions[0]?.matches[0]?.line, k + 1)
    assert.equal(findJson(home, ['«METHOD»']).sessions.length, 1)
    assert.equal(findJson(home, ['ünïcode', 'zebra']).status, 1)
  } finally {
    cleanup(home)
  }
})

test('find: hostile names and text are escaped, and the resume command is quoted for the shell', () => {
  const home = tempDir('chatdoctor-find-')
  try {
    const project = "/home/dev/it's \u001b[31mred\u001b[0m\nproject"
    const dir = path.join(home, '.claude', 'projects', '-home-dev-hostile')
    mkdirSync(dir, {recursive: true})
    const src = readFileSync(path.join(REALDATA, 'claude-code', '2.1.328', 'home', CLAUDE_PROJECT, `${CLAUDE_TUI}.jsonl`), 'utf8')
    const hostile = src
      .replaceAll('"cwd":"/home/dev/demo-app"', `"cwd":${JSON.stringify(project)}`)
      .replace('Add a clear() method to TodoStore.', JSON.stringify('Add a clear() method \u001b]0;pwned\u0007 \u202eevil\u202c to TodoStore.').slice(1, -1))
    writeFileSync(path.join(dir, `${CLAUDE_TUI}.jsonl`), hostile)
    const r = runCli(['find', 'clear() method'], {env: {HOME: home}})
    assert.equal(r.status, 0, r.stderr)
    assert.doesNotMatch(r.stdout, /[\u0000-\u0009\u000b-\u001f\u007f\u202a-\u202e]/)
    assert.match(r.stdout, /\\u001b\]0;pwned\\u0007 \\u202eevil\\u202c/)
    assert.match(r.stdout, /resume: cd \$'\/home\/dev\/it\\'s \\x1b\[31mred\\x1b\[0m\\x0aproject' && claude --resume /)
    const {sessions} = findJson(home, ['clear() method'])
    assert.equal(sessions[0].resume?.cwd, project)
    // A session file that is a symbolic link (to a file outside the agent's folders) or a FIFO is not read.
    const outside = path.join(home, 'outside.jsonl')
    writeFileSync(outside, `${JSON.stringify({type: 'user', message: {role: 'user', content: 'secret outside the store'}, cwd: '/x'})}\n`)
    symlinkSync(outside, path.join(dir, '00000000-0000-4000-8000-000000000001.jsonl'))
    execFileSync('mkfifo', [path.join(dir, '00000000-0000-4000-8000-000000000002.jsonl')])
    const none = runCli(['find', 'secret outside'], {env: {HOME: home}})
    assert.equal(none.status, 1, none.stdout + none.stderr)
  } finally {
    cleanup(home)
  }
})

test('find searches damaged files as far as they are readable and says they are damaged', () => {
  const home = tempDir('chatdoctor-find-')
  try {
    // A torn line in the middle (its record cut short), and a NUL tail.
    const {lines, k, file} = tuiLog(home)
    lines[k] = lines[k].slice(0, lines[k].indexOf('Add a clear() method') + 30)
    const torn = Buffer.from(lines.join('\n'))
    writeFileSync(file, nulTailAt(Buffer.concat([torn, Buffer.alloc(4096)]), torn.length))
    const {status, sessions} = findJson(home, ['clear() method'])
    assert.equal(status, 0)
    const s = sessions[0]
    assert.ok(s.matches.some((m) => m.role === null && m.line === k + 1 && m.text.includes('Add a clear() method')), JSON.stringify(s.matches))
    assert.ok(s.damaged.some((d) => d.includes(`line ${k + 1} does not parse`)), JSON.stringify(s.damaged))
    assert.ok(s.damaged.some((d) => d.includes('NUL bytes')), JSON.stringify(s.damaged))
    // The complete records after the tear are still searched.
    assert.equal(findJson(home, ['Added clear() to TodoStore']).status, 0)

    // A Cline conversation cut mid-record (the real damage state): its readable messages are searched.
    const cline = copyClineHome(home)
    const cut = readFileSync(cline.messages(CLINE_A))
    const at = cut.indexOf('Summarise the store')
    assert.ok(at > 0)
    writeFileSync(cline.messages(CLINE_A), cutAt(cut, at + 40))
    const c = findJson(home, ['where is todostore used']).sessions.find((x) => x.agent === 'Cline CLI')
    assert.ok(c, 'the torn Cline session is found')
    assert.ok(c.damaged.some((d) => /does not parse as JSON/.test(d)))
    assert.ok(c.matches.every((m) => m.role === null))
    assert.equal(findJson(home, ['Summarise the store']).sessions.some((x) => x.agent === 'Cline CLI'), true)
  } finally {
    cleanup(home)
  }
})

test('find searches the intact transcript of a task whose model context is torn, and a search that finds nothing says what it could not read whole', () => {
  const home = tempDir('chatdoctor-find-')
  try {
    const turns = realTurns('A')
    const task = buildTask('roo', taskId('roo', 0), turns)
    const [w] = writeStore(storageDir(home, 'roo'), 'roo', [task])
    // The model context cut inside its first message: the later turns are only in ui_messages.json.
    const api = w.files['api_conversation_history.json']
    writeFileSync(path.join(w.dir, 'api_conversation_history.json'), cutAt(api, api.indexOf('List the files') + 10))
    const root = path.join(home, '.config', 'Code')
    const {status, sessions, report} = findJson(home, ['TodoStore keeps an in-memory', '--path', root])
    assert.equal(status, 0)
    assert.equal(sessions.length, 1)
    assert.equal(sessions[0].sessionId, task.id)
    assert.deepEqual(sessions[0].matches.map((m) => [m.file, m.role]), [['ui_messages.json', 'answer']])
    assert.ok(sessions[0].damaged.some((d) => /^api_conversation_history\.json does not (parse|end as a whole JSON document)/.test(d)), JSON.stringify(sessions[0].damaged))
    assert.equal(validate(report), true, JSON.stringify(validate.errors))
    // The prompts of the transcript are searched too (the task and the user's feedback), and the human line names the file.
    assert.equal(findJson(home, ['Where is TodoStore used', '--path', root]).sessions[0]?.matches[0]?.role, 'prompt')
    const h = runCli(['find', 'TodoStore keeps', '--path', root], {env: {HOME: home}})
    assert.equal(h.status, 0, h.stderr)
    assert.match(h.stdout, /^  answer \(ui_messages\.json\): TodoStore keeps an in-memory list/m)
    assert.match(h.stderr, /1 session matched; searched 1 chat, 2 files, .*; 1 file was damaged or too large, and only what is readable in it was searched/)
    // Nothing matched: the closing line still says a file could not be read whole, and --verbose names it.
    const none = runCli(['find', 'zebra-quokka-unlikely', '--path', root], {env: {HOME: home}})
    assert.equal(none.status, 1)
    assert.match(none.stderr, /No session matched; searched 1 chat, 2 files, [\d.]+ MiB; 1 file was damaged or too large, and only what is readable in it was searched \(--verbose lists it; chatdoctor scan says what brings it back\)\./)
    const v = runCli(['find', 'zebra-quokka-unlikely', '--verbose', '--path', root], {env: {HOME: home}})
    assert.match(v.stderr, new RegExp(`chatdoctor: ~/\\.config/Code/.*/tasks/${task.id}/api_conversation_history\\.json: api_conversation_history\\.json does not end as a whole JSON document`))
    const j = findJson(home, ['zebra-quokka-unlikely', '--path', root]).report.searched as {damaged: number; damagedFiles: Array<{path: string; why: string}>}
    assert.equal(j.damaged, 1)
    assert.ok(j.damagedFiles[0].path.endsWith(`${task.id}/api_conversation_history.json`), j.damagedFiles[0].path)
    // An intact store has nothing to say.
    writeFileSync(path.join(w.dir, 'api_conversation_history.json'), api)
    const clean = runCli(['find', 'zebra-quokka-unlikely', '--path', root], {env: {HOME: home}})
    assert.doesNotMatch(clean.stderr, /damaged/)
  } finally {
    cleanup(home)
  }
})

test('find searches a Codebuff chat\'s run-state.json too: a chat whose transcript is torn is found by its model context', () => {
  const home = tempDir('chatdoctor-find-')
  try {
    const dir = copyRealChat(REAL_CHATS.tenTurns, home)
    const t = path.join(dir, 'chat-messages.json')
    const whole = readFileSync(t)
    const phrase = 'Rename MAX_TODOS to TODO_LIMIT'
    assert.ok(whole.includes(Buffer.from(phrase)))
    writeFileSync(t, cutAt(whole, 200))
    assert.equal(cutAt(whole, 200).includes(Buffer.from(phrase)), false)
    const {status, sessions} = findJson(home, [phrase])
    assert.equal(status, 0)
    assert.equal(sessions.length, 1)
    assert.deepEqual(sessions[0].matches.map((m) => [m.file, m.role]), [['run-state.json', 'prompt']])
    assert.match(sessions[0].matches[0].text, /^Rename MAX_TODOS to TODO_LIMIT/, 'the <user_message> wrapper taken off')
    assert.ok(sessions[0].damaged.some((d) => d.startsWith('chat-messages.json does not')), JSON.stringify(sessions[0].damaged))
    // The instructions the runtime injects are not prompts.
    assert.equal(findJson(home, ['<user_message>']).status, 1)
    // Intact, the transcript is searched first: the match is the prompt as the user typed it there.
    writeFileSync(t, whole)
    const both = findJson(home, [phrase]).sessions[0]
    assert.deepEqual([both.matches[0].file, both.matches[0].role, both.damaged], ['chat-messages.json', 'prompt', []])
  } finally {
    cleanup(home)
  }
})

test('find\'s prefilter never drops a record the decoded match would take', () => {
  // Words whose raw bytes a JSON writer may escape (quotes, slashes, non-ASCII) get no prefilter.
  assert.equal(prefilterOf({words: ['say "hi"'], regex: null}), null)
  assert.equal(prefilterOf({words: ['a/b'], regex: null}), null)
  assert.equal(prefilterOf({words: ['日本語'], regex: null}), null)
  assert.equal(prefilterOf({words: ['x'], regex: /x/}), null)
  const pre = prefilterOf({words: ['clear()', 'TodoStore'], regex: null})!
  assert.ok(pre.test('{"text":"the todostore"}'))
  // Readable strings of a torn record are its values, not its keys.
  assert.deepEqual(readableStrings('{"type":"user","message":{"content":"Add a cle'), ['user', 'Add a cle'])
  // A long line is cut around the match.
  const long = `${'a'.repeat(300)} needle ${'b'.repeat(300)}`
  const snip = snippetAt(long, 301)
  assert.ok(snip.length <= 102 && snip.includes('needle') && snip.startsWith('…') && snip.endsWith('…'), snip)
})

test('find --path searches only there; a file no chat holds is a usage error', () => {
  const {home} = buildHome()
  try {
    const {sessions} = findJson(home, ['todostore', '--path', path.join(home, '.codex')])
    assert.ok(sessions.length > 0 && sessions.every((s) => s.agent === 'Codex'))
    const stray = path.join(home, 'notes.txt')
    writeFileSync(stray, 'todostore')
    assert.equal(runCli(['find', 'todostore', '--path', stray], {env: {HOME: home}}).status, 16)
    assert.ok(readdirSync(home).length > 0)
  } finally {
    cleanup(home)
  }
})
