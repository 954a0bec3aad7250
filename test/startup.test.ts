/**
 * Start-up: which modules a command loads before it does any work. Not timed (speed belongs in
 * `npm run bench`): a heavy import that creeps back onto the path of `scan`, `--help` or `check` fails here.
 * The CLI runs from its bundle (`dist/bundle/`, scripts/bundle.ts): a bundle file it loads stands for the
 * modules of ours it holds, named by the bundler's metafile as their compiled paths (`/dist/src/…`).
 * Also the start-up check of @oclif/core's package index that bin/run.js keeps (a deleted current directory).
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {after, before, describe, test} from 'node:test'
import {packageRootAbove} from '../src/lib/fsio/install.js'
import {REAL_CHATS, REPO_ROOT, cleanup, copyRealChat, tempDir} from './helpers/fixtures.js'

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

/** Runs the built CLI under the module tracer: exit status, stdout, and every module loaded (`/`-separated). */
function traced(args: string[]): {status: number; stdout: string; modules: string[]; files: string[]} {
  const out = path.join(root, `trace-${args.join('_').replace(/[^a-z0-9_-]/gi, '')}.txt`)
  const r = spawnSync(process.execPath, ['--import', TRACER, BIN, ...args], {
    cwd: REPO_ROOT,
    env: {...process.env, NO_COLOR: '1', CHATDOCTOR_TRACE_MODULES: out},
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

describe('what a command loads', {concurrency: 2}, () => {
  test('scan --json: oclif by subpath, no chalk, no table, no renderer, no report schemas (model.ts), no zod', () => {
    const r = traced(['scan', '--json', chat])
    assert.equal(r.status, 0)
    assert.equal((JSON.parse(r.stdout) as {summary: {healthy: number}}).summary.healthy, 1)
    // The trace works: the command and oclif's entry point are in it.
    assert.ok(loads(r.modules, '/dist/src/commands/scan.js'))
    assert.ok(loads(r.modules, '/node_modules/@oclif/core/lib/execute.js'))
    assert.ok(loads(r.modules, '/dist/src/lib/render/json.js'), 'the --json writer')
    // From the bundle only: no compiled module is loaded as a file of its own.
    assert.ok(loads(r.files, '/dist/bundle/commands/scan.js'))
    assert.deepEqual(r.files.filter((f) => f.includes('/dist/src/')), [])
    for (const part of [...NEVER, '/node_modules/chalk/', '/node_modules/cli-table3/', ...RENDERERS, '/dist/src/lib/model/report.js', ZOD]) {
      assert.ok(!loads(r.modules, part), `scan --json loaded ${part}`)
    }
  })

  test('scan (table): chalk and cli-table3, but no CI renderer, no report schemas, no zod', () => {
    const r = traced(['scan', chat])
    assert.equal(r.status, 0)
    assert.match(r.stdout, /^1 chat: 1 healthy/m)
    assert.ok(loads(r.modules, '/node_modules/chalk/') && loads(r.modules, '/node_modules/cli-table3/'))
    for (const part of [...NEVER, '/dist/src/lib/render/sarif.js', '/dist/src/lib/render/junit.js', '/dist/src/lib/render/github.js', '/node_modules/fast-xml-parser/', '/dist/src/lib/model/report.js', ZOD]) {
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

  test('the bundler defined that it is the bundle: no bundle file asks for CHATDOCTOR_BUNDLE at run time', () => {
    const files = Object.keys(META.outputs).filter((f) => f.endsWith('.js'))
    const holder = files.find((f) => Object.keys(META.outputs[f].inputs).includes('dist/src/lib/fsio/install.js'))
    assert.ok(holder, 'a bundle file holds fsio/install.js')
    for (const f of files) assert.ok(!readFileSync(path.join(REPO_ROOT, f), 'utf8').includes('CHATDOCTOR_BUNDLE'), `${f} names CHATDOCTOR_BUNDLE`)
  })
})
