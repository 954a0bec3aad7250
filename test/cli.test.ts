/**
 * The CLI as a user meets it (the built `bin/run.js` in a child process): help and version, quiet and verbose,
 * colour rules, stdout for data and stderr for messages, exit status the same with and without `--json`, usage
 * errors (exit 16, one JSON object under `--json`), no message text or file content in any output, the home
 * written as `~`, and a scan that writes nothing.
 */
import assert from 'node:assert/strict'
import {readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {after, before, describe, test} from 'node:test'
import {makeChalk, useColor} from '../src/lib/render/style.js'
import {renderHuman} from '../src/lib/render/table.js'
import type {Report} from '../src/lib/model/report.js'
import {runCliAsync} from './helpers/cli-async.js'
import {REALDATA, REAL_CHATS, REPO_ROOT, TEN_TURN_TEMP, cleanup, copyRealChat, cutAt, hashTree, tempDir, zeroFill} from './helpers/fixtures.js'

const ESC = '\u001b['
const PKG = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {version: string}
const COMMANDS = Object.keys((JSON.parse(readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: object}).commands)

/** A fake home with a healthy chat, a repairable one, an unrecoverable one and a skipped log-only dir. */
let home = ''
/** A fake home with one healthy chat. */
let healthyHome = ''
let mixedHash: Record<string, string> = {}
const CHATS = path.join('.config', 'manicode', 'projects', 'demo-app', 'chats')

before(() => {
  home = realpathSync(tempDir('chatdoctor-cli-'))
  copyRealChat(REAL_CHATS.small, home)
  const ten = copyRealChat(REAL_CHATS.tenTurns, home)
  writeFileSync(path.join(ten, 'run-state.json'), cutAt(readFileSync(path.join(ten, 'run-state.json')), 5000))
  // Unrecoverable: the primary zero-filled and the transcript torn too (an intact transcript's embedded
  // RunState copy would be a usable generation).
  const lost = copyRealChat(REAL_CHATS.small, home, CHATS, '2025-11-05T10-00-00.000Z')
  writeFileSync(path.join(lost, 'run-state.json'), zeroFill(readFileSync(path.join(lost, 'run-state.json'))))
  writeFileSync(path.join(lost, 'chat-messages.json'), cutAt(readFileSync(path.join(lost, 'chat-messages.json')), 3000))
  const logOnly = copyRealChat(REAL_CHATS.small, home, CHATS, '2026-01-01T00-00-00.000Z')
  rmSync(path.join(logOnly, 'run-state.json'))
  rmSync(path.join(logOnly, 'chat-messages.json'))
  writeFileSync(path.join(logOnly, 'log.jsonl'), '{"msg":"start"}\n')
  mixedHash = hashTree(home)
  healthyHome = realpathSync(tempDir('chatdoctor-cli-healthy-'))
  copyRealChat(REAL_CHATS.small, healthyHome)
})
after(() => {
  cleanup(home)
  cleanup(healthyHome)
})

/** Runs the CLI with HOME pointing at a fake home; colour left to the rules unless `env` says otherwise. */
const cli = (args: string[], env: NodeJS.ProcessEnv = {}, h = home) => runCliAsync(args, {env: {HOME: h, NO_COLOR: '', TERM: 'xterm-256color', ...env}})

const paths = () => ({
  healthy: `~/${CHATS}/${REAL_CHATS.small}`,
  repairable: `~/${CHATS}/${REAL_CHATS.tenTurns}`,
  lost: `~/${CHATS}/2025-11-05T10-00-00.000Z`,
  skipped: `~/${CHATS}/2026-01-01T00-00-00.000Z`,
})

describe('help and version', {concurrency: 2}, () => {
  test('the manifest lists the commands (scan at least)', () => assert.ok(COMMANDS.includes('scan')))
  test('chatdoctor --help lists every command and exits 0', async () => {
    const r = await cli(['--help'])
    assert.equal(r.status, 0)
    // A command of a topic (`guard:install`) is listed under its topic (`guard`).
    for (const id of COMMANDS) assert.match(r.stdout, new RegExp(`^\\s+${id.split(':')[0]}\\s`, 'm'))
  })
  // `help` is answered by oclif's help of the root (conventions.test.ts covers it).
  for (const id of COMMANDS.filter((c) => c !== 'help')) {
    test(`chatdoctor ${id} --help: usage, every flag, exit status, exit 0`, async () => {
      const r = await cli([id, '--help'])
      assert.equal(r.status, 0, r.stderr)
      assert.equal(r.stderr, '')
      assert.match(r.stdout, new RegExp(`\\$ chatdoctor ${id.replace(/:/g, ' ')}`))
      // inspect always shows the whole picture: it takes no -q/-v.
      const flags = id === 'inspect' ? ['--json', '--[no-]color'] : ['--json', '-q, --quiet', '-v, --verbose', '--[no-]color']
      for (const flag of flags) assert.ok(r.stdout.includes(flag), flag)
      assert.match(r.stdout, /Exit status/)
    })
  }
  test('--version prints chatdoctor/<package version> and exits 0', async () => {
    const r = await cli(['--version'])
    assert.equal(r.status, 0)
    assert.match(r.stdout, new RegExp(`^chatdoctor/${PKG.version.replace(/\./g, '\\.')} `))
  })
})

describe('human output', {concurrency: 2}, () => {
  test('default: a row per chat, a summary line, nothing on stderr', async () => {
    const r = await cli(['scan'])
    const p = paths()
    assert.equal(r.status, 6)
    assert.equal(r.stderr, '')
    // Each chat's folder is named once, on a row of its own; the chat's row names the chat.
    assert.equal(r.stdout.split(`│ ~/${CHATS}/ `).length, 2, 'the folder row, once')
    for (const chat of [p.healthy, p.repairable, p.lost]) assert.match(r.stdout, new RegExp(`^│ ${path.basename(chat)} +│`, 'm'), chat)
    assert.match(r.stdout, /^3 chats: 1 healthy, 1 repairable, 1 unrecoverable; 1 skipped \(exit 6\)$/m)
    assert.ok(!r.stdout.includes('primary-damaged'), 'findings only with --verbose')
    assert.ok(!r.stdout.includes(p.skipped), 'skipped dirs only with --verbose')
  })
  for (const q of ['-q', '--quiet']) {
    test(`${q}: only the chats that need attention, no summary; same exit status`, async () => {
      const r = await cli(['scan', q])
      const p = paths()
      assert.equal(r.status, 6)
      assert.ok(r.stdout.includes(path.basename(p.repairable)) && r.stdout.includes(path.basename(p.lost)))
      assert.ok(!r.stdout.includes(path.basename(p.healthy)))
      assert.doesNotMatch(r.stdout, /chats:/)
    })
  }
  test('-q on an all-healthy tree prints nothing and exits 0', async () => {
    const r = await cli(['scan', '-q'], {}, healthyHome)
    assert.equal(r.status, 0)
    assert.equal(r.stdout, '')
    assert.equal(r.stderr, '')
  })
  for (const v of ['-v', '--verbose']) {
    test(`${v}: findings under each chat and the skipped dirs`, async () => {
      const r = await cli(['scan', v])
      const p = paths()
      assert.equal(r.status, 6)
      assert.match(r.stdout, /error primary-damaged run-state\.json: run-state\.json is truncated \(unexpected-end\), cut at byte 5000 \(its end\)/)
      assert.match(r.stdout, /error context-lost: no usable generation of the agent context/)
      assert.match(r.stdout, new RegExp(`info temp-leftover ${TEN_TURN_TEMP.replace(/\./g, '\\.')}`))
      assert.ok(r.stdout.includes(`skipped ${p.skipped}: no run-state file and no transcript (log.jsonl)`))
    })
  }
})

describe('colour', {concurrency: 2}, () => {
  const target = () => path.join(home, CHATS)
  test('off on a non-TTY by default', async () => assert.ok(!(await cli(['scan', target()])).stdout.includes(ESC)))
  test('--color turns it on even on a non-TTY', async () => assert.ok((await cli(['scan', '--color', target()])).stdout.includes(ESC)))
  test('--color wins over NO_COLOR and TERM=dumb (no-color.org: flags override the environment)', async () => {
    assert.ok((await cli(['scan', '--color', target()], {NO_COLOR: '1'})).stdout.includes(ESC))
    assert.ok((await cli(['scan', '--color', target()], {TERM: 'dumb'})).stdout.includes(ESC))
  })
  test('--no-color and NO_COLOR turn it off', async () => {
    assert.ok(!(await cli(['scan', '--no-color', target()])).stdout.includes(ESC))
    assert.ok(!(await cli(['scan', target()], {NO_COLOR: '1'})).stdout.includes(ESC))
  })
  test('--json is never coloured', async () => {
    const r = await cli(['scan', '--json', '--color', target()])
    assert.ok(!r.stdout.includes(ESC))
    JSON.parse(r.stdout)
  })
  test('the rules on a TTY: on unless NO_COLOR (non-empty), TERM=dumb or --no-color', () => {
    assert.equal(useColor({env: {}, isTTY: true}), true)
    assert.equal(useColor({env: {NO_COLOR: '1'}, isTTY: true}), false)
    assert.equal(useColor({env: {NO_COLOR: ''}, isTTY: true}), true)
    assert.equal(useColor({env: {TERM: 'dumb'}, isTTY: true}), false)
    assert.equal(useColor({flag: false, env: {}, isTTY: true}), false)
    assert.equal(useColor({env: {}, isTTY: false}), false)
    assert.equal(useColor({flag: true, env: {NO_COLOR: '1', TERM: 'dumb'}, isTTY: false}), true)
  })
  test('the renderer colours only when told to', async () => {
    const report = JSON.parse((await cli(['scan', '--json'])).stdout) as Report
    const on = renderHuman(report, {chalk: makeChalk(true), verbose: true, quiet: false})
    const off = renderHuman(report, {chalk: makeChalk(false), verbose: true, quiet: false})
    assert.ok(on.stdout.includes(ESC))
    assert.ok(!off.stdout.includes(ESC) && !off.stderr.includes(ESC))
  })
})

describe('streams and exit status', {concurrency: 2}, () => {
  test('a PATH that does not exist: message on stderr, data on stdout, exit 8, the rest still scanned', async () => {
    const r = await cli(['scan', path.join(home, 'nope'), path.join(healthyHome, '.config')])
    assert.equal(r.status, 8)
    assert.equal(r.stderr, 'error ~/nope: no such file or directory\n')
    assert.ok(r.stdout.includes(REAL_CHATS.small))
    assert.match(r.stdout, /1 chat: 1 healthy, 0 repairable, 0 unrecoverable; 1 error \(exit 8\)/)
  })
  test('--json: stdout is exactly one JSON object, stderr is empty', async () => {
    const r = await cli(['scan', '--json', path.join(home, 'nope'), home])
    assert.equal(r.stderr, '')
    const report = JSON.parse(r.stdout) as Report
    assert.equal(report.exitCode, 14)
    assert.deepEqual(report.errors, [{path: '~/nope', message: 'no such file or directory'}])
  })
  const cases: Array<[string, string[], number]> = [
    ['healthy', ['HEALTHY'], 0],
    ['mixed tree', ['HOME'], 6],
    ['default roots', [], 6],
    ['mixed tree and a missing PATH', ['HOME', 'MISSING'], 14],
    ['only a missing PATH', ['MISSING'], 8],
  ]
  for (const [name, spec, code] of cases) {
    test(`exit status identical with and without --json: ${name} → ${code}`, async () => {
      const args = spec.map((s) => (s === 'HEALTHY' ? healthyHome : s === 'HOME' ? home : path.join(home, 'missing')))
      const [plain, json] = await Promise.all([cli(['scan', ...args]), cli(['scan', '--json', ...args])])
      assert.equal(plain.status, code)
      assert.equal(json.status, code)
      assert.equal((JSON.parse(json.stdout) as Report).exitCode, code)
    })
  }
})

describe('usage errors exit 16', {concurrency: 2}, () => {
  const noTrace = (s: string) => assert.doesNotMatch(s, /\n\s+at .+:\d+:\d+/, 'no stack trace')
  for (const args of [['scan', '--bogus'], ['scan', '--quiet=yes'], ['scan', '--color=always'], ['scan', '-x']]) {
    test(`${args.join(' ')}: one-line message and what to do next on stderr, nothing on stdout`, async () => {
      const r = await cli(args)
      assert.equal(r.status, 16)
      assert.equal(r.stdout, '')
      assert.match(r.stderr, /^chatdoctor: .+\nTry: chatdoctor scan --help\n$/)
      noTrace(r.stderr)
    })
    test(`${args.join(' ')} --json: one JSON object with exitCode 16 and error`, async () => {
      const r = await cli([...args, '--json'])
      assert.equal(r.status, 16)
      const report = JSON.parse(r.stdout) as Report
      assert.equal(report.exitCode, 16)
      assert.equal(typeof report.error, 'string')
      assert.ok(report.error!.length > 0)
      noTrace(r.stderr)
    })
  }
  /** Ours and oclif's autocomplete plugin's. */
  // A topic's commands as they are typed (`guard install`), not oclif's ids (`guard:install`).
  const ALL_COMMANDS = [...COMMANDS, 'autocomplete'].map((c) => c.replaceAll(':', ' ')).sort().join(', ')
  test('a mistyped command exits 16, suggests the closest command and lists them all; it never runs the guess', async () => {
    const r = await cli(['scna', home])
    assert.equal(r.status, 16)
    assert.equal(r.stdout, '')
    // Wrapped to 80 columns (stderr is a pipe here), the command to try whole.
    assert.equal(r.stderr.replace(/\n {2}/g, ' '), `chatdoctor: unknown command "scna"; did you mean "scan"? Commands: ${ALL_COMMANDS}. Try: chatdoctor scan --help\n`)
    assert.ok(r.stderr.split('\n').every((l) => l.length <= 80), r.stderr)
    assert.ok(r.stderr.split('\n').some((l) => l.includes('Try: chatdoctor scan --help')), r.stderr)
    for (const [typo, meant] of [['repiar', 'repair'], ['chek', 'check'], ['insp', 'inspect'], ['udno', 'undo'], ['bundel', 'bundle'], ['SCAN', 'scan'], ['hlep', 'help']]) {
      assert.match((await cli([typo, '--dry-run'])).stderr, new RegExp(`^chatdoctor: unknown command "${typo}"; did you mean "${meant}"\\?`), typo)
    }
  })
  test("a mistyped command of a topic is named with its topic, and the guess is the topic's command; a mistyped topic gets the topic", async () => {
    const r = await cli(['guard', 'instal', 'claude-code'])
    assert.equal(r.status, 16)
    assert.equal(r.stderr.replace(/\n {2}/g, ' '), `chatdoctor: unknown command "guard instal"; did you mean "guard install"? Commands: ${ALL_COMMANDS}. Try: chatdoctor guard install --help\n`)
    const t = await cli(['gaurd', 'install'])
    assert.equal(t.status, 16)
    assert.match(t.stderr.replace(/\n {2}/g, ' '), /^chatdoctor: unknown command "gaurd"; did you mean "guard"\? .* Try: chatdoctor guard --help\n$/)
  })
  test('an unknown command that is close to none gets the list of commands only', async () => {
    const r = await cli(['frobnicate', home])
    assert.equal(r.status, 16)
    assert.equal(r.stderr.replace(/\n {2}/g, ' '), `chatdoctor: unknown command "frobnicate". Commands: ${ALL_COMMANDS}. Try: chatdoctor --help\n`)
    assert.ok(r.stderr.split('\n').every((l) => l.length <= 80), r.stderr)
  })
  test('an unknown command with --json is one JSON object with exitCode 16', async () => {
    const r = await cli(['scna', '--json'])
    assert.equal(r.status, 16)
    const report = JSON.parse(r.stdout) as Report
    assert.equal(report.exitCode, 16)
    assert.match(report.error!, /unknown command "scna"; did you mean "scan"\?/)
  })
})

describe('privacy and the home', {concurrency: 2}, () => {
  /** Texts that live inside the chats: prompts, the meta's first prompt, the project path, an answer's words. */
  function secrets(): string[] {
    const out = new Set<string>()
    for (const id of Object.values(REAL_CHATS)) {
      if (id === REAL_CHATS.large) continue
      const transcript = JSON.parse(readFileSync(path.join(REALDATA, 'codebuff', id, 'chat-messages.json'), 'utf8')) as Array<{variant: string; content: string}>
      for (const m of transcript) if (m.variant === 'user' && m.content.length >= 12) out.add(m.content)
    }
    const meta = JSON.parse(readFileSync(path.join(REALDATA, 'codebuff', REAL_CHATS.tenTurns, 'chat-meta.json'), 'utf8')) as {firstPrompt: string}
    out.add(meta.firstPrompt)
    out.add('/home/dev/demo-app')
    return [...out]
  }
  test('the secrets list is not empty (the check below can fail)', () => assert.ok(secrets().length >= 10))
  for (const mode of [['--json'], ['--verbose'], ['--json', '--verbose']]) {
    test(`scan ${mode.join(' ')} prints no message text or file content`, async () => {
      const r = await cli(['scan', ...mode, home, path.join(REALDATA, 'codebuff')])
      const all = r.stdout + r.stderr
      for (const s of secrets()) assert.ok(!all.includes(s), `output contains chat text: ${s.slice(0, 30)}…`)
    })
  }
  test('every path under the home is written ~/…, human and JSON; the real home path never appears', async () => {
    const [json, human] = await Promise.all([cli(['scan', '--json', '--verbose', home, path.join(home, 'missing')]), cli(['scan', '--verbose', home, path.join(home, 'missing')])])
    const report = JSON.parse(json.stdout) as Report
    const all = [...report.chats.map((c) => c.path), ...report.skipped.map((s) => s.path), ...report.errors.map((e) => e.path)]
    assert.equal(all.length, 5)
    for (const p of all) assert.match(p, /^~\//)
    for (const out of [json.stdout, json.stderr, human.stdout, human.stderr]) assert.ok(!out.includes(home), 'the home path leaked')
  })
  test('scan wrote nothing: the mixed tree and the real data are unchanged (content, mtimes, modes)', async () => {
    const realBefore = hashTree(path.join(REALDATA, 'codebuff'))
    await Promise.all([cli(['scan', home]), cli(['scan', '--json', '--verbose', home, path.join(REALDATA, 'codebuff')])])
    assert.deepEqual(hashTree(home), mixedHash)
    assert.deepEqual(hashTree(path.join(REALDATA, 'codebuff')), realBefore)
  })
})
