/**
 * `guard` on the settings files of Gemini CLI and Claude Code as their own loaders read them: Gemini CLI's is
 * `JSON.parse` after strip-json-comments (comments are whitespace, a trailing comma is an error, the last of a
 * duplicate key wins), Claude Code's strict JSON. A duplicate `"hooks"` is refused instead of editing a copy the
 * agent ignores; an install into a file with comments, tabs, CRLF or a one-line layout only inserts (every byte
 * of the file stays, each line whole), and an uninstall after the user's own edit takes out exactly that; a
 * settings file that is malformed, a link, not a file, or an evidence folder that is a link: one line, nothing
 * written; a guard record naming evidence outside its folder is not trusted. A property test lays out random
 * settings in random styles (indent unit, CRLF, comments after members and on lines of their own, one line) and
 * checks that install only inserts and that uninstall gives the exact bytes back.
 */
import assert from 'node:assert/strict'
import {existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {createRequire} from 'node:module'
import fc from 'fast-check'
import {claudeHook} from '../src/lib/formats/claude-code/hook.js'
import {geminiHook} from '../src/lib/formats/gemini-cli/hook.js'
import {nodeFileSystem} from '../src/lib/fsio/fs.js'
import {sha256Hex} from '../src/lib/fsio/durable-write.js'
import {guardInstall, guardStatus, guardUninstall, hookCommand} from '../src/lib/pipeline/snapshot/guard.js'
import {cleanup, tempDir} from './helpers/fixtures.js'

const stripComments = (createRequire(import.meta.url)('jsonc-parser') as typeof import('jsonc-parser')).stripComments

type Agent = 'gemini-cli' | 'claude-code'

function fakeHome(): {home: string; env: NodeJS.ProcessEnv; state: string} {
  const home = tempDir('chatdoctor-guard-settings-')
  const env: NodeJS.ProcessEnv = {HOME: home, XDG_STATE_HOME: path.join(home, '.local', 'state'), XDG_CONFIG_HOME: path.join(home, '.config')}
  return {home, env, state: path.join(home, '.local', 'state', 'chatdoctor')}
}

const settingsOf = (h: {home: string}, agent: Agent) => path.join(h.home, agent === 'gemini-cli' ? '.gemini' : '.claude', 'settings.json')
const opts = (h: {home: string; env: NodeJS.ProcessEnv}, agent: Agent) => ({home: h.home, env: h.env, fs: nodeFileSystem(), command: hookCommand(agent, '/usr/bin/node', '/opt/chatdoctor/bin/run.js')})

function write(h: {home: string}, agent: Agent, text: string): string {
  const f = settingsOf(h, agent)
  mkdirSync(path.dirname(f), {recursive: true})
  writeFileSync(f, text)
  return f
}

/** What the agent's own loader makes of the text. */
function agentReads(agent: Agent, text: string): Record<string, unknown> {
  return JSON.parse(agent === 'gemini-cli' ? stripComments(text, ' ') : text) as Record<string, unknown>
}

/** True when `after` is `before` with characters inserted only (every byte of `before` kept, in order). */
function onlyInserted(before: string, after: string): boolean {
  let i = 0
  for (let j = 0; j < after.length && i < before.length; j++) if (after[j] === before[i]) i++
  return i === before.length
}

/**
 * Every line of `before` is a line of `after`, whole, or with one `,` added (the separator before the new
 * member); a line holding a container written on one line that gets the new member (`grows`) may only have had
 * characters inserted.
 */
function linesKept(before: string, after: string, grows: (line: string) => boolean = () => false): string[] {
  const lines = after.split(/\r?\n/)
  const have = new Set(lines)
  const missing: string[] = []
  for (const line of before.split(/\r?\n/)) {
    if (have.has(line)) continue
    const withComma = [...Array(line.length + 1).keys()].some((k) => have.has(line.slice(0, k) + ',' + line.slice(k)))
    if (!withComma && !(grows(line) && lines.some((l) => onlyInserted(line, l)))) missing.push(line)
  }
  return missing
}

/** Asserts the guard result is an error of one line and that nothing was written anywhere (file, evidence, record). */
function refused(r: {kind: string; message?: string}, file: string, before: string | null, state: string, pattern: RegExp): void {
  assert.equal(r.kind, 'error', JSON.stringify(r))
  assert.equal(r.message!.includes('\n'), false, 'one line')
  assert.match(r.message!, pattern)
  if (before === null) assert.equal(existsSync(file) && !readFileSync(file, 'utf8').startsWith('{'), false)
  else assert.equal(readFileSync(file, 'utf8'), before, 'the settings file is unchanged')
  assert.equal(existsSync(path.join(state, 'guard')) && readdirSync(path.join(state, 'guard'), {recursive: true}).length > 0, false, 'no evidence or record written')
}

for (const agent of ['gemini-cli', 'claude-code'] as const) {
  const events = agent === 'gemini-cli' ? ['AfterAgent', 'PreCompress'] : ['Stop', 'PreCompact']
  test(`${agent}: a settings.json with "hooks" twice is refused (the agent reads only the last), status says not installed and why; a key twice inside "hooks" too`, async () => {
    const h = fakeHome()
    try {
      // The user's hook is in the first "hooks", which the agent's loader overrides with the second.
      const text = `{\n  "hooks": {\n    "${events[0]}": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]\n  },\n  "model": "x",\n  "hooks": {}\n}\n`
      const file = write(h, agent, text)
      assert.deepEqual(agentReads(agent, text).hooks, {}, "the agent's loader: the last wins")
      const r = await guardInstall(agent, opts(h, agent))
      refused(r as {kind: string; message?: string}, file, text, h.state, /"hooks" more than once \(lines 2, 6\).*reads only the last/)
      const s = guardStatus(agent, h)
      assert.ok(Array.isArray(s))
      assert.equal(s[0].installed, false)
      assert.match(s[0].detail, /more than once \(lines 2, 6\)/)

      // A first "hooks" holding chatdoctor's hook, shadowed by a second: not installed, as the agent sees it.
      const cmd = opts(h, agent).command.shell
      const shadowed = `{\n  "hooks": {${events.map((e) => `"${e}": [{"hooks": [{"type": "command", "command": ${JSON.stringify(cmd)}}]}]`).join(', ')}},\n  "hooks": {}\n}\n`
      write(h, agent, shadowed)
      const s2 = guardStatus(agent, h) as Array<{installed: boolean}>
      assert.equal(s2[0].installed, false, 'the hook in the shadowed copy is not what the agent runs')
      refused((await guardUninstall(agent, opts(h, agent))) as {kind: string; message?: string}, file, shadowed, h.state, /more than once/)

      const inner = `{\n  "hooks": {\n    "${events[0]}": [],\n    "${events[0]}": [{"hooks": [{"type": "command", "command": "x"}]}]\n  }\n}\n`
      write(h, agent, inner)
      refused((await guardInstall(agent, opts(h, agent))) as {kind: string; message?: string}, file, inner, h.state, new RegExp(`"${events[0]}" more than once \\(lines 3, 4\\)`))
    } finally {
      cleanup(h.home)
    }
  })
}

test('Gemini CLI: a settings.json with comments, tabs and CRLF gets only the hook inserted (every byte and line of it kept, comments where they were); an uninstall after an edit of the user takes out exactly the hook', async () => {
  const cases = [
    // Line and block comments, a comment at the end of the last member's line, CRLF, tabs.
    '{\r\n\t// the model I use\r\n\t"model": { "name": "gemini-3.8-flash" }, /* pinned */\r\n\t"hooks": {\r\n\t\t// my own\r\n\t\t"AfterAgent": [ {"hooks": [ {"type": "command", "command": "notify-send done"} ]} ] // keep\r\n\t}\r\n}\r\n',
    // No hooks yet: a comment on the last line of the last member, and one before the closing brace.
    '{\n    "general": {"vimMode": true}   // I like vim\n    // end of file\n}\n',
    // Written on one line.
    '{"security":{"auth":{"selectedType":"gemini-api-key"}},"hooks":{"AfterAgent":[]}}',
    // An empty "hooks" with only a comment in it.
    '{\n  "hooks": {\n    // nothing yet\n  }\n}\n',
  ]
  for (const before of cases) {
    const h = fakeHome()
    try {
      const file = write(h, 'gemini-cli', before)
      const r = await guardInstall('gemini-cli', opts(h, 'gemini-cli'))
      assert.equal(r.kind, 'installed', JSON.stringify(r))
      const after = readFileSync(file, 'utf8')
      assert.ok(onlyInserted(before, after), `only inserted:\n${before}\n---\n${after}`)
      assert.deepEqual(linesKept(before, after, (l) => /"AfterAgent":\s*\[.*\]/.test(l)), [], `every line kept whole:\n${after}`)
      const read = agentReads('gemini-cli', after) as {hooks: Record<string, Array<{hooks: Array<{command: string}>}>>}
      for (const ev of ['AfterAgent', 'PreCompress']) assert.ok(read.hooks[ev].some((g) => g.hooks.some((x) => x.command.endsWith('snapshot --hook gemini-cli'))), ev)
      const {hooks: _a, ...restAfter} = read
      const {hooks: _b, ...restBefore} = agentReads('gemini-cli', before)
      assert.deepEqual(restAfter, restBefore, 'every other setting the same')
      if (before.includes('\r\n')) assert.equal(after.replace(/\r\n/g, '').includes('\n'), false, 'CRLF kept throughout')
      if (before.includes('\t"model"')) assert.ok(/\r\n\t\t"PreCompress": \[/.test(after), 'indented with tabs like the file')
      assert.equal((guardStatus('gemini-cli', h) as Array<{installed: boolean}>)[0].installed, true)

      // The user edits the file after the install: uninstall cannot restore the old bytes and takes out only the hook.
      const edited = after.replace(/"(AfterAgent|general|security)"/, '"$1" ')
      assert.notEqual(edited, after)
      writeFileSync(file, edited)
      const u = await guardUninstall('gemini-cli', opts(h, 'gemini-cli'))
      assert.equal(u.kind, 'uninstalled', JSON.stringify(u))
      assert.equal((u as {how: string}).how, 'edited')
      assert.equal(readFileSync(file, 'utf8'), before.replace(/"(AfterAgent|general|security)"/, '"$1" '), 'exactly the hook taken out')
    } finally {
      cleanup(h.home)
    }
  }
})

test("Claude Code: CRLF and tabs kept, only the hook inserted; comments and trailing commas (which Claude Code's loader rejects) and a trailing comma in Gemini CLI's file are refused with where they are", async () => {
  const h = fakeHome()
  try {
    const before = '{\r\n\t"model": "opus",\r\n\t"permissions": {\r\n\t\t"allow": ["Bash(ls:*)"]\r\n\t}\r\n}\r\n'
    const file = write(h, 'claude-code', before)
    assert.equal((await guardInstall('claude-code', opts(h, 'claude-code'))).kind, 'installed')
    const after = readFileSync(file, 'utf8')
    assert.ok(onlyInserted(before, after))
    assert.deepEqual(linesKept(before, after), [])
    assert.equal(after.replace(/\r\n/g, '').includes('\n'), false, 'CRLF kept')
    agentReads('claude-code', after)
    assert.equal((await guardUninstall('claude-code', opts(h, 'claude-code'))).kind, 'uninstalled')
    assert.equal(readFileSync(file, 'utf8'), before)
    rmSync(path.join(h.state, 'guard'), {recursive: true})

    const commented = '{\n  // my model\n  "model": "opus"\n}\n'
    write(h, 'claude-code', commented)
    refused((await guardInstall('claude-code', opts(h, 'claude-code'))) as {kind: string; message?: string}, file, commented, h.state, /not valid JSON as Claude Code reads it \(strict JSON.*a comment at line 2, column 3/)
    const trailing = '{\n  "model": "opus",\n}\n'
    write(h, 'claude-code', trailing)
    refused((await guardInstall('claude-code', opts(h, 'claude-code'))) as {kind: string; message?: string}, file, trailing, h.state, /a trailing comma at line 3/)
    const g = write(h, 'gemini-cli', trailing)
    refused((await guardInstall('gemini-cli', opts(h, 'gemini-cli'))) as {kind: string; message?: string}, g, trailing, h.state, /as Gemini CLI reads it \(JSON with comments, no trailing commas\).*a trailing comma at line 3/)
    const status = guardStatus('gemini-cli', h) as Array<{installed: boolean; detail: string}>
    assert.equal(status[0].installed, false)
    assert.match(status[0].detail, /trailing comma/)
  } finally {
    cleanup(h.home)
  }
})

test('guard on a settings file that is malformed, a link, a folder, or with a byte-order mark, a config.toml with a key twice, a file hook that is a link, and an evidence folder that is a link: one line each, nothing written; an uninstall never uses evidence its record names outside its folder', async () => {
  const h = fakeHome()
  try {
    const file = settingsOf(h, 'gemini-cli')
    for (const [text, why] of [
      ['{"hooks": ', /not valid JSON as Gemini CLI reads it/],
      ['[1, 2]\n', /not a JSON object/],
      ['{"hooks": []}\n', /"hooks" is not an object/],
      ['{"hooks": {"AfterAgent": {}}}\n', /"hooks.AfterAgent" is not an array/],
      ['\uFEFF{}\n', /byte-order mark/],
    ] as const) {
      write(h, 'gemini-cli', text)
      refused((await guardInstall('gemini-cli', opts(h, 'gemini-cli'))) as {kind: string; message?: string}, file, text, h.state, why)
      const s = guardStatus('gemini-cli', h) as Array<{installed: boolean; detail: string}>
      assert.equal(s[0].installed, false)
      assert.equal(s[0].detail.includes('\n'), false)
    }
    rmSync(file)
    const elsewhere = path.join(h.home, 'dotfiles-settings.json')
    writeFileSync(elsewhere, '{}\n')
    symlinkSync(elsewhere, file)
    refused((await guardInstall('gemini-cli', opts(h, 'gemini-cli'))) as {kind: string; message?: string}, elsewhere, '{}\n', h.state, /symbolic link/)
    refused((await guardUninstall('gemini-cli', opts(h, 'gemini-cli'))) as {kind: string; message?: string}, elsewhere, '{}\n', h.state, /symbolic link/)
    // Status reads through the link, as the agent does: a hook in the file it points to is reported installed.
    const linkedCmd = opts(h, 'gemini-cli').command.shell
    writeFileSync(elsewhere, JSON.stringify({hooks: Object.fromEntries(['AfterAgent', 'PreCompress'].map((e) => [e, [{hooks: [{type: 'command', command: linkedCmd}]}]]))}))
    const ls = guardStatus('gemini-cli', h) as Array<{installed: boolean; detail: string}>
    assert.equal(ls[0].installed, true)
    assert.match(ls[0].detail, /read through the symbolic link/)
    writeFileSync(elsewhere, '{}\n')
    rmSync(file)
    mkdirSync(file)
    const r = await guardInstall('gemini-cli', opts(h, 'gemini-cli'))
    assert.equal(r.kind, 'error')
    assert.match((r as {message: string}).message, /not a regular file/)
    rmSync(file, {recursive: true})

    // The evidence folder replaced by a link: the install refuses before it writes the settings file.
    const before = '{\n  "model": "x"\n}\n'
    write(h, 'gemini-cli', before)
    const target = path.join(h.home, 'somewhere')
    mkdirSync(target)
    mkdirSync(path.join(h.state, 'guard'), {recursive: true})
    symlinkSync(target, path.join(h.state, 'guard', 'gemini-cli'))
    const linked = await guardInstall('gemini-cli', opts(h, 'gemini-cli'))
    assert.equal(linked.kind, 'error')
    assert.match((linked as {message: string}).message, /symbolic link.*evidence/)
    assert.equal(readFileSync(file, 'utf8'), before)
    assert.deepEqual(readdirSync(target), [], 'nothing written through the link')
    rmSync(path.join(h.state, 'guard'), {recursive: true})

    // A record read back from disk that names evidence elsewhere (with its sha256): not used; the hook is taken out by edit.
    assert.equal((await guardInstall('gemini-cli', opts(h, 'gemini-cli'))).kind, 'installed')
    const record = path.join(h.state, 'guard', 'gemini-cli.json')
    const rec = JSON.parse(readFileSync(record, 'utf8'))
    const planted = path.join(h.home, 'planted.json')
    writeFileSync(planted, '{"planted": true}\n')
    rec.previous = {sha256: sha256Hex(readFileSync(planted)), evidence: planted}
    writeFileSync(record, JSON.stringify(rec))
    const u = await guardUninstall('gemini-cli', opts(h, 'gemini-cli'))
    assert.equal(u.kind, 'uninstalled')
    assert.equal((u as {how: string}).how, 'edited')
    assert.equal(readFileSync(file, 'utf8'), before, 'the hook taken out, the planted file not written')

    // The other files guard edits: Codex's config.toml with a key twice (TOML, and Codex, reject it), a file hook that is a link.
    const codex = path.join(h.home, '.codex', 'config.toml')
    mkdirSync(path.dirname(codex), {recursive: true})
    const toml = 'model = "o4"\nmodel = "o5"\n'
    writeFileSync(codex, toml)
    const c = await guardInstall('codex', {...opts(h, 'gemini-cli'), command: hookCommand('codex', '/usr/bin/node', '/opt/chatdoctor/bin/run.js')})
    assert.equal(c.kind, 'error')
    assert.match((c as {message: string}).message, /not valid TOML/)
    assert.equal(readFileSync(codex, 'utf8'), toml)
    const clineHook = path.join(h.home, '.cline', 'hooks', 'TaskComplete.sh')
    mkdirSync(path.dirname(clineHook), {recursive: true})
    symlinkSync(elsewhere, clineHook)
    const l = await guardInstall('cline', {...opts(h, 'gemini-cli'), command: hookCommand('cline', '/usr/bin/node', '/opt/chatdoctor/bin/run.js')})
    assert.equal(l.kind, 'error')
    assert.match((l as {message: string}).message, /symbolic link/)
    assert.equal(readFileSync(elsewhere, 'utf8'), '{}\n', 'nothing written through the link')
  } finally {
    cleanup(h.home)
  }
})

/**
 * `value` laid out as a person might: `unit` indents, `eol` line ends, and where `coin()` says so a line comment
 * after a member (before or after its comma) or a comment line before it.
 */
function layOut(value: unknown, unit: string, eol: string, coin: () => boolean, depth = 0): string {
  const pad = (d: number) => unit.repeat(d)
  if (Array.isArray(value) || (typeof value === 'object' && value !== null)) {
    const entries: Array<[string | null, unknown]> = Array.isArray(value) ? value.map((v) => [null, v]) : Object.entries(value)
    const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}']
    if (entries.length === 0) return coin() ? `${open}${eol}${pad(depth + 1)}// empty for now${eol}${pad(depth)}${close}` : open + close
    const lines = entries.map(([k, v], i) => {
      const before = coin() ? `${pad(depth + 1)}// about ${i}${eol}` : ''
      const body = (k === null ? '' : JSON.stringify(k) + ': ') + layOut(v, unit, eol, coin, depth + 1)
      const comma = i < entries.length - 1 ? ',' : ''
      const note = coin() ? ' // note' : ''
      return before + pad(depth + 1) + body + (coin() ? comma + note : note === '' ? comma : comma === '' ? note : ` /* c */${comma}${note}`)
    })
    return open + eol + lines.join(eol) + eol + pad(depth) + close
  }
  return JSON.stringify(value)
}

test('property: Gemini CLI and Claude Code settings in any layout (indent unit, CRLF, one line; for Gemini CLI comments anywhere between members): install only inserts, the agent then reads the hooks and every other setting as before, uninstall gives the exact bytes back', () => {
  const group = {hooks: [{type: 'command', command: 'notify-send done'}]}
  const hooksArb = fc.option(fc.record({AfterAgent: fc.constantFrom(undefined, [], [group]), PreCompress: fc.constantFrom(undefined, [], [group]), Stop: fc.constantFrom(undefined, [], [group]), PreCompact: fc.constantFrom(undefined, [group]), BeforeTool: fc.constantFrom(undefined, [group])}, {requiredKeys: []}), {nil: undefined})
  const settingsArb = fc.dictionary(fc.constantFrom('model', 'ui', 'general', 'security', 'tools', 'context'), fc.jsonValue({maxDepth: 2}), {maxKeys: 4})
  fc.assert(
    fc.property(fc.constantFrom<Agent>('gemini-cli', 'claude-code'), settingsArb, hooksArb, fc.constantFrom('  ', '    ', '\t'), fc.constantFrom('\n', '\r\n'), fc.boolean(), fc.array(fc.boolean(), {minLength: 1, maxLength: 64}), (agent, settings, hooks, unit, eol, oneLine, coins) => {
      const hook = agent === 'gemini-cli' ? geminiHook : claudeHook
      const events = agent === 'gemini-cli' ? ['AfterAgent', 'PreCompress'] : ['Stop', 'PreCompact']
      const cmd = hookCommand(agent, '/usr/bin/node', '/opt/chatdoctor/bin/run.js')
      let n = 0
      // Claude Code's loader takes no comments: its files get none.
      const coin = () => agent === 'gemini-cli' && coins[n++ % coins.length]
      const doc: Record<string, unknown> = {...settings}
      if (hooks !== undefined) doc.hooks = Object.fromEntries(Object.entries(hooks).filter(([, v]) => v !== undefined))
      const before = oneLine ? JSON.stringify(doc) : layOut(doc, unit, eol, coin) + eol
      const r = hook.install(before, cmd)
      assert.ok('text' in r, JSON.stringify(r))
      const after = r.text
      assert.ok(onlyInserted(before, after), `only inserted:\n${before}\n---\n${after}`)
      const read = agentReads(agent, after) as {hooks: Record<string, Array<{hooks: Array<{command: string}>}>>}
      for (const ev of events) assert.ok(read.hooks[ev].some((g) => g.hooks.some((x) => x.command === cmd.shell)), ev)
      const {hooks: h1, ...rest1} = read
      const {hooks: h0, ...rest0} = agentReads(agent, before) as typeof read
      assert.deepEqual(rest1, rest0)
      for (const [ev, groups] of Object.entries(h0 ?? {})) assert.deepEqual(h1[ev].slice(0, groups.length), groups, `the user's ${ev} hooks first, unchanged`)
      if (!oneLine && eol === '\r\n') assert.equal(after.replace(/\r\n/g, '').includes('\n'), false, 'CRLF throughout')
      assert.equal(hook.status(after).installed, true)
      const u = hook.uninstall(after, before)
      assert.ok('text' in u && u.text === before, `uninstall:\n${before}\n---\n${'text' in u ? u.text : JSON.stringify(u)}`)
    }),
    {numRuns: 400, seed: 18},
  )
})
