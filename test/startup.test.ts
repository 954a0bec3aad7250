/**
 * Start-up: which modules a command loads before it does any work. Not timed (speed belongs in
 * `npm run bench`): a heavy import that creeps back onto the path of `scan`, `--help` or `check` fails here.
 * The CLI runs from its bundle (`dist/bundle/`, scripts/bundle.ts): a bundle file it loads stands for the
 * modules of ours it holds, named by the bundler's metafile as their compiled paths (`/dist/src/…`).
 * Also the start-up check of @oclif/core's package index that bin/run.js keeps (a deleted current directory),
 * and that a scan loads the diagnosis of the agents whose chats it found only: the discovery parts the
 * registry lists stand for their whole adapters exactly (the same members, the same values).
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {after, before, describe, test} from 'node:test'
import {packageRootAbove} from '../src/lib/fsio/install.js'
import {SESSION_CLAIMS} from '../src/lib/formats/jsonl/claims.js'
import {SESSION_DIALECTS} from '../src/lib/formats/jsonl/dialects.js'
import {ADAPTERS, LIGHT_MEMBERS, isPartial, loadAdapters} from '../src/lib/formats/registry.js'
import {REAL_CHATS, REALDATA, REPO_ROOT, cleanup, copyRealChat, tempDir} from './helpers/fixtures.js'

const BIN = path.join(REPO_ROOT, 'bin', 'run.js')
const TRACER = path.join(REPO_ROOT, 'dist', 'test', 'helpers', 'module-trace.js')

/** The bundle's metafile: for each bundle file (`dist/bundle/…`, from the repository root), the modules it holds. */
const META = JSON.parse(readFileSync(path.join(REPO_ROOT, 'dist', 'bundle.meta.json'), 'utf8')) as {outputs: Record<string, {inputs: Record<string, unknown>}>}

/** A loaded module, or for a bundle file the bundle file and every module of ours in it (`/`-separated, absolute). */
function expand(loaded: string): string[] {
  const m = loaded.replace(/\\/g, '/')
  const at = m.indexOf('/dist/bundle/')
  if (at < 0) return [m]
  const inside = META.outputs[m.slice(at + 1)]
  assert.ok(inside, `the metafile names the bundle file ${m}`)
  return [m, ...Object.keys(inside.inputs).map((i) => `${m.slice(0, at)}/${i}`)]
}

let root = ''
let chat = ''
before(() => {
  root = tempDir('chatdoctor-startup-')
  chat = copyRealChat(REAL_CHATS.small, root)
})
after(() => cleanup(root))

/** Runs the built CLI under the module tracer: exit status, stdout, and every module loaded (`/`-separated). `env` is added. */
function traced(args: string[], env: NodeJS.ProcessEnv = {}): {status: number; stdout: string; modules: string[]; files: string[]} {
  const out = path.join(root, `trace-${args.join('_').replace(/[^a-z0-9_-]/gi, '')}.txt`)
  const r = spawnSync(process.execPath, ['--import', TRACER, BIN, ...args], {
    cwd: REPO_ROOT,
    env: {...process.env, NO_COLOR: '1', CHATDOCTOR_TRACE_MODULES: out, ...env},
    encoding: 'utf8',
  })
  const files = readFileSync(out, 'utf8').split('\n').filter(Boolean)
  return {status: r.status ?? -1, stdout: r.stdout, modules: files.flatMap(expand), files: files.map((f) => f.replace(/\\/g, '/'))}
}

const loads = (modules: string[], part: string) => modules.some((m) => m.includes(part))

/** Every renderer but the `--json` writer (`render/json.js`, which `--json` needs). */
const RENDERERS = ['ci', 'github', 'inspect', 'junit', 'repair', 'sarif', 'style', 'table'].map((r) => `/dist/src/lib/render/${r}.js`)

/** Loaded by no command's start-up: oclif's package index (help, semver, its engine check) and semver. */
const NEVER = ['/node_modules/@oclif/core/lib/index.js', '/node_modules/semver/']

/** zod: only for the report schema file, bundle manifests and OpenCode exports, never on the scan path. */
const ZOD = '/node_modules/zod/'

/** Node's zlib: for archives and a long `--json` report's held chats, not a scan of one chat. */
const ZLIB = 'node:zlib'

describe('what a command loads', {concurrency: 2}, () => {
  test('scan --json: oclif by subpath, no chalk, no table, no renderer, no report schemas (model.ts), no zod, no zlib', () => {
    const r = traced(['scan', '--json', chat])
    assert.equal(r.status, 0)
    assert.equal((JSON.parse(r.stdout) as {summary: {healthy: number}}).summary.healthy, 1)
    // The trace works: the command and oclif's entry point are in it.
    assert.ok(loads(r.modules, '/dist/src/commands/scan.js'))
    assert.ok(loads(r.modules, '/node_modules/@oclif/core/lib/main.js'))
    assert.ok(loads(r.modules, '/dist/src/lib/render/json.js'), 'the --json writer')
    // From the bundle only: no compiled module is loaded as a file of its own.
    assert.ok(loads(r.files, '/dist/bundle/commands/scan.js'))
    assert.deepEqual(r.files.filter((f) => f.includes('/dist/src/')), [])
    for (const part of [...NEVER, '/node_modules/chalk/', '/node_modules/cli-table3/', ...RENDERERS, '/dist/src/lib/model/report.js', ZOD, ZLIB]) {
      assert.ok(!loads(r.modules, part), `scan --json loaded ${part}`)
    }
  })

  test('scan (table): chalk and cli-table3, but no CI renderer, no report schemas, no zod, no zlib', () => {
    const r = traced(['scan', chat])
    assert.equal(r.status, 0)
    assert.match(r.stdout, /^1 chat: 1 healthy/m)
    assert.ok(loads(r.modules, '/node_modules/chalk/') && loads(r.modules, '/node_modules/cli-table3/'))
    for (const part of [...NEVER, '/dist/src/lib/render/sarif.js', '/dist/src/lib/render/junit.js', '/dist/src/lib/render/github.js', '/node_modules/fast-xml-parser/', '/dist/src/lib/model/report.js', ZOD, ZLIB]) {
      assert.ok(!loads(r.modules, part), `scan loaded ${part}`)
    }
  })

  for (const args of [['--help'], ['scan', '--help'], ['-h'], ['check', '-h']]) {
    test(`${args.join(' ')}: answered from oclif.manifest.json, loading none of our modules but the help class and the width helpers it fits the text with`, () => {
      const r = traced(args)
      assert.equal(r.status, 0)
      assert.match(r.stdout, /USAGE/)
      assert.ok(loads(r.modules, '/node_modules/@oclif/core/lib/help/'))
      assert.deepEqual(r.modules.filter((m) => m.includes('/dist/src/')).map((m) => m.slice(m.indexOf('/dist/src/'))), ['/dist/src/cli/help-class.js', '/dist/src/lib/render/width.js'])
      for (const part of NEVER) assert.ok(!loads(r.modules, part), `${args.join(' ')} loaded ${part}`)
    })
  }

  test('check --json: no renderer, no chalk', () => {
    const r = traced(['check', '--json', chat])
    assert.equal(r.status, 0)
    assert.ok(loads(r.modules, '/dist/src/commands/check.js'))
    for (const part of [...NEVER, '/node_modules/chalk/', ...RENDERERS, '/node_modules/fast-xml-parser/']) {
      assert.ok(!loads(r.modules, part), `check --json loaded ${part}`)
    }
  })
})

test('a current directory that no longer exists: the warning oclif gives, and the scan still runs', {skip: process.platform === 'win32'}, () => {
  const gone = path.join(root, 'gone')
  // The shell enters the folder, removes it, then starts the CLI there.
  const r = spawnSync('sh', ['-c', 'mkdir "$1" && cd "$1" && rmdir "$1" && exec "$2" "$3" scan --json "$4"', 'sh', gone, process.execPath, BIN, chat], {
    env: {...process.env, NO_COLOR: '1'},
    encoding: 'utf8',
  })
  assert.equal(r.status, 0, r.stderr)
  assert.equal(r.stderr, 'WARNING: current directory does not exist\n')
  assert.equal((JSON.parse(r.stdout) as {summary: {healthy: number}}).summary.healthy, 1)
})

describe("an agent's diagnosis loads only for its chats", {concurrency: 2}, () => {
  const KILO_STORE = path.join(REALDATA, 'kilo')
  const GEMINI_CHATS = path.join(REALDATA, 'gemini-cli', '0.61.0', 'damage', 'delete-index', '0-damaged', '.gemini', 'tmp')
  const CODEX_ROLLOUT = path.join(REALDATA, 'codex', '0.169.0', 'home', '.codex', 'sessions', '2026', '12', '01', 'rollout-2026-12-01T08-58-21-01a230d3-910e-7ab3-9c7f-f7f164ff1ff1.jsonl')

  /** The agents listed by a discovery part, and modules of each that only its whole adapter loads. */
  const OTHERS: ReadonlyArray<[string, string[]]> = [
    ['gemini-cli', ['index.js', 'diagnose.js', 'plan.js', 'dialect.js', 'session.js', 'records.js']],
    ['kilo', ['index.js', 'diagnose.js', 'store.js', 'plan.js']],
    ['opencode', ['index.js', 'store.js', 'tree.js', 'projects.js']],
    ['cline', ['index.js', 'store.js', 'index-chat.js', 'diagnose.js']],
    ['claude-code', ['index.js', 'session.js', 'config-chat.js', 'hook.js']],
    ['codex', ['index.js', 'session.js', 'columns.js', 'index-store.js', 'index-chat.js', 'hook.js']],
  ]
  /** Family code only a member's whole adapter loads: the JSON-lines diagnosis and repair, OpenCode's database. */
  const FAMILY = ['jsonl/session.js', 'jsonl/repair.js', 'jsonl/plan.js', 'jsonl/dialects.js', 'opencode-family/database.js', 'index.js']

  test('a plain scan of a Codebuff chat imports the other agents\' discovery parts only, not their diagnosis, nor smol-toml', () => {
    const r = traced(['scan', chat], {HOME: root, XDG_STATE_HOME: path.join(root, 'state')})
    assert.equal(r.status, 0)
    assert.ok(loads(r.modules, '/dist/src/lib/formats/codebuff/index.js'), 'the Codebuff adapter is loaded whole')
    for (const [agent] of OTHERS) assert.ok(loads(r.modules, `/dist/src/lib/formats/${agent}/light.js`), `${agent}'s discovery part is loaded`)
    const whole = [...OTHERS.flatMap(([agent, files]) => files.map((f) => `${agent}/${f}`)), ...FAMILY]
    for (const m of whole.map((f) => `/dist/src/lib/formats/${f}`)) assert.ok(!loads(r.modules, m), `${m} is not imported`)
    assert.ok(!loads(r.modules, '/node_modules/smol-toml/'), 'smol-toml is not imported')
  })

  test('a plain scan of a Codex rollout imports Codex whole and the JSON-lines family, not Claude Code\'s diagnosis', () => {
    const r = traced(['scan', CODEX_ROLLOUT], {HOME: root, XDG_STATE_HOME: path.join(root, 'state')})
    assert.ok(r.status >= 0 && r.status < 16, `exit ${r.status}`)
    for (const m of ['codex/index.js', 'codex/session.js', 'jsonl/session.js']) assert.ok(loads(r.modules, `/dist/src/lib/formats/${m}`), `${m} is loaded`)
    for (const m of ['claude-code/index.js', 'claude-code/config-chat.js', 'gemini-cli/diagnose.js']) assert.ok(!loads(r.modules, `/dist/src/lib/formats/${m}`), `${m} is not imported`)
  })

  test('a plain scan of Gemini CLI chats imports its whole adapter (the check above can fail)', () => {
    const r = traced(['scan', GEMINI_CHATS])
    assert.ok(r.status >= 0 && r.status < 16, `exit ${r.status}`)
    assert.ok(loads(r.modules, '/dist/src/lib/formats/gemini-cli/diagnose.js'), "Gemini CLI's diagnosis is loaded")
  })

  test('a scan of a Kilo store lists it through its discovery part, then loads Kilo whole', () => {
    const r = traced(['scan', KILO_STORE])
    assert.ok(r.status >= 0 && r.status < 16, `exit ${r.status}`)
    for (const m of ['kilo/store.js', 'kilo/diagnose.js']) assert.ok(loads(r.modules, `/dist/src/lib/formats/${m}`), `${m} is loaded`)
  })
})

test("every discovery part holds exactly the registry's light members of its whole adapter, the same values", async () => {
  const partial = ADAPTERS.filter((a) => isPartial(a))
  assert.ok(partial.length >= 1, 'the registry lists at least one agent by its discovery part')
  for (const a of partial) {
    const light = {...a} as Record<string, unknown>
    assert.equal((a as {diagnose?: unknown}).diagnose, undefined, `${a.name}: no diagnosis before it is loaded`)
    for (const k of Object.keys(light)) assert.ok((LIGHT_MEMBERS as readonly string[]).includes(k), `${a.name}: ${k} is not a light member`)
    await loadAdapters([a])
    assert.equal(isPartial(a), false)
    assert.equal(typeof a.diagnose, 'function', `${a.name} is whole once loaded`)
    const whole = a as unknown as Record<string, unknown>
    for (const k of LIGHT_MEMBERS) {
      const [l, w] = [light[k], whole[k]]
      // A hook object (`indexes`) may gain members the scan reads only of loaded adapters (`annotate`).
      if (l !== null && typeof l === 'object' && !Array.isArray(l) && l !== w && w !== null && typeof w === 'object') {
        for (const [m, v] of Object.entries(l)) assert.equal(v, (w as Record<string, unknown>)[m], `${a.name}: ${k}.${m} is the whole adapter's`)
      } else assert.equal(l, w, `${a.name}: ${k} is the whole adapter's`)
    }
  }
})

test('a command run from the bundle sees every adapter whole: guard status takes every agent with a hook as its argument, as the compiled modules list them', async () => {
  const {guardAgents} = await import('../src/lib/pipeline/snapshot/guard.js')
  const agents = guardAgents().map((a) => a.name)
  // Agents the registry lists by a discovery part until loaded: their hooks are not light members.
  for (const agent of ['gemini-cli', 'claude-code', 'codex', 'vscode-tasks']) assert.ok(agents.includes(agent), `${agent} has a hook`)
  for (const agent of agents) {
    // The argument's options are the command class's static members, set when its module is evaluated.
    const r = spawnSync(process.execPath, [BIN, 'guard', 'status', agent, '--json'], {cwd: REPO_ROOT, env: {...process.env, HOME: root, XDG_STATE_HOME: path.join(root, 'state'), XDG_CONFIG_HOME: path.join(root, 'config')}, encoding: 'utf8'})
    assert.equal(r.status, 0, `${agent}: ${r.stdout}${r.stderr}`)
    assert.deepEqual((JSON.parse(r.stdout) as {agents: Array<{agent: string}>}).agents.map((a) => a.agent), [agent])
  }
})

test("the JSON-lines family's name claims are its dialects' own, in the same order", () => {
  assert.deepEqual(SESSION_CLAIMS.map((c) => c.name), SESSION_DIALECTS.map((d) => d.name))
  for (const [i, c] of SESSION_CLAIMS.entries()) assert.equal(c.claimsName, SESSION_DIALECTS[i].claimsName, `${c.name}: the same claim`)
  assert.ok(SESSION_CLAIMS.some((c) => c.claimsName !== undefined), 'a member claims names')
})

describe('the bundle', () => {
  test('the files its code names are where it looks: the scan worker of each build, bin/run.js', async () => {
    const {IN_BUNDLE, packageRoot, runJsPath, scanWorkerUrl} = await import('../src/lib/fsio/install.js')
    assert.equal(IN_BUNDLE, false, 'the compiled modules know they are not the bundle')
    assert.equal(packageRoot(), REPO_ROOT)
    assert.equal(runJsPath(), BIN)
    assert.equal(fileURLToPath(scanWorkerUrl(false)), path.join(REPO_ROOT, 'dist', 'src', 'lib', 'pipeline', 'scan-worker.js'))
    assert.equal(fileURLToPath(scanWorkerUrl(true)), path.join(REPO_ROOT, 'dist', 'bundle', 'lib', 'pipeline', 'scan-worker.js'))
    for (const u of [scanWorkerUrl(false), scanWorkerUrl(true)]) assert.ok(existsSync(u), `${u.href} exists`)
  })

  test('with source maps on (DEBUG=chatdoctor), a stack from the bundle names the compiled module and line', () => {
    const scan = pathToFileURL(path.join(REPO_ROOT, 'dist', 'bundle', 'commands', 'scan.js')).href
    // Scan's run() called without oclif throws at its first line (no parse method): where does the stack say it was?
    const code = `process.setSourceMapsEnabled(true); const m = await import(${JSON.stringify(scan)}); try { await m.default.prototype.run.call({}) } catch (e) { process.stdout.write(e.stack) }`
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {encoding: 'utf8'})
    assert.equal(r.status, 0, r.stderr)
    assert.match(r.stdout, /\bat .*[\\/]dist[\\/]src[\\/]commands[\\/]scan\.js:\d+:\d+/)
    assert.doesNotMatch(r.stdout, /dist[\\/]bundle/)
  })

  test('the package folder is the one with bin/run.js: a package.json inside dist/ is passed by', () => {
    const pkg = path.join(root, 'pkg')
    for (const d of ['bin', 'dist/bundle/chunks']) mkdirSync(path.join(pkg, d), {recursive: true})
    for (const f of ['package.json', 'bin/run.js', 'dist/package.json', 'dist/bundle/package.json']) writeFileSync(path.join(pkg, f), '{}')
    assert.equal(packageRootAbove(path.join(pkg, 'dist', 'bundle', 'chunks')), pkg)
    assert.throws(() => packageRootAbove(path.join(root)), /bin\/run\.js is in no folder above .*reinstall chatdoctor/)
  })

  test('a file of the installation missing: one line and exit 8 (not exit 1, "repairs applied"), for a command and for the hook', () => {
    const pkg = path.join(root, 'broken')
    mkdirSync(path.join(pkg, 'dist'), {recursive: true})
    for (const f of ['bin', 'package.json', 'oclif.manifest.json']) cpSync(path.join(REPO_ROOT, f), path.join(pkg, f), {recursive: true})
    cpSync(path.join(REPO_ROOT, 'dist', 'bundle'), path.join(pkg, 'dist', 'bundle'), {recursive: true})
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(pkg, 'node_modules'))
    rmSync(path.join(pkg, 'dist', 'bundle', 'commands', 'scan.js'))
    rmSync(path.join(pkg, 'dist', 'bundle', 'cli', 'snapshot-hook.js'))
    const run = (args: string[]) => spawnSync(process.execPath, [path.join(pkg, 'bin', 'run.js'), ...args], {cwd: root, env: {...process.env, NO_COLOR: '1'}, input: '{}', encoding: 'utf8'})
    const scan = run(['scan', chat])
    assert.equal(scan.status, 8, scan.stderr)
    assert.equal(scan.stdout, '')
    assert.match(scan.stderr, /^chatdoctor: the installation is incomplete: .*scan\.js.*; reinstall chatdoctor\n$/)
    const hook = run(['snapshot', '--hook', 'claude-code'])
    assert.equal(hook.status, 0, 'hook mode always exits 0')
    assert.match(hook.stderr, /^chatdoctor: snapshot hook not run: the installation is incomplete \(ERR_MODULE_NOT_FOUND: .*\); reinstall chatdoctor\n$/)
    assert.equal(run(['--version']).status, 0)
  })

  test('the bundler defined that it is the bundle: no bundle file asks for CHATDOCTOR_BUNDLE at run time', () => {
    const files = Object.keys(META.outputs).filter((f) => f.endsWith('.js'))
    const holder = files.find((f) => Object.keys(META.outputs[f].inputs).includes('dist/src/lib/fsio/install.js'))
    assert.ok(holder, 'a bundle file holds fsio/install.js')
    for (const f of files) assert.ok(!readFileSync(path.join(REPO_ROOT, f), 'utf8').includes('CHATDOCTOR_BUNDLE'), `${f} names CHATDOCTOR_BUNDLE`)
  })
})
