/**
 * Installing chatdoctor the way the README and docs/ci.md tell a new user to, on a fresh copy of the
 * repository (what a clone holds: the tracked files and new ones not ignored; no node_modules, no dist):
 *
 * - the action's install step (`npm ci`, `npm run build` in the action's checkout), then `npm pack`, which
 *   builds the release tarball;
 * - the tarball: built code, manifest, schemas, README, no tests, no sources, no install-time scripts;
 * - `npm install -g` of the tarball into a fresh prefix, `npx` of the tarball, `npm link` of the checkout:
 *   each runs and gives the verdicts of the repository's own build, with no devDependency installed;
 * - the library, installed from the tarball into a fresh project: docs/api.md's loader, the same report as
 *   the CLI, only the package entry exported, TypeScript declarations that type a strict consumer;
 * - the composite action's steps (action.yml) run as the runner would, and the GitLab job's script;
 * - the workflow examples use only inputs the action has, the permissions SARIF upload needs, and the
 *   README's install commands are exactly the ones run here.
 *
 * npm runs offline first (`--prefer-offline`: the packages `npm ci` put in its cache; CI reaches the registry
 * for anything missing). The installs run side by side; each takes the better-sqlite3 addon this checkout
 * built (see offerBuiltAddon) rather than compiling its own.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {after, before, describe, test} from 'node:test'
import {XMLParser} from 'fast-xml-parser'
import {parse} from 'yaml'
import {runAsync} from './helpers/cli-async.js'
import {readAction, runAction, type ActionFile, type ActionStep} from './helpers/composite-action.js'
import {REAL_CHATS, REPO_ROOT, TEN_TURN_TEMP as TEN_TURN, cleanup, copyRealChat, cutAt, runCli, tempDir, type CliResult} from './helpers/fixtures.js'

const PKG = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {version: string; devDependencies: Record<string, string>; dependencies: Record<string, string>}
const TGZ = `chatdoctor-${PKG.version}.tgz`

/** The environment without what `npm test` adds for its child processes (npm_*), so nested npm runs start clean. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'INIT_CWD') env[k] = v
  return {...env, NO_COLOR: '1', ...prebuilt, ...extra}
}

/**
 * better-sqlite3's install script asks prebuild-install for a prebuilt addon before it compiles one (a
 * minute or more of both cores per install). Offline, the download fails and every install compiles. The
 * addon this repository's own `npm ci` built is packed the way a release prebuild is and offered to each
 * install through prebuild-install's `local-prebuilds` setting: the install script still runs, loads the
 * addon (prebuild-install requires it) and falls back to compiling when the name does not fit this Node.
 */
let prebuilt: NodeJS.ProcessEnv = {}
function offerBuiltAddon(dir: string): void {
  const pkg = path.join(REPO_ROOT, 'node_modules', 'better-sqlite3')
  const addon = path.join('build', 'Release', 'better_sqlite3.node')
  if (!existsSync(path.join(pkg, addon))) return
  const version = (JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as {version: string}).version
  mkdirSync(dir, {recursive: true})
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`
  const r = spawnSync('tar', ['-czf', path.join(dir, name), '-C', pkg, addon], {encoding: 'utf8'})
  assert.equal(r.status, 0, r.stderr)
  prebuilt = {npm_config_better_sqlite3_local_prebuilds: dir}
}

const run = (cmd: string, args: string[], opts: {cwd: string; env?: NodeJS.ProcessEnv}) => runAsync(cmd, args, {cwd: opts.cwd, env: opts.env ?? cleanEnv()})

const sh = (line: string, cwd: string, env?: NodeJS.ProcessEnv) => run('bash', ['-eo', 'pipefail', '-c', line], {cwd, env})

/** What `git clone` of this working tree would hold: tracked files and new files not ignored, modes kept. */
function copyCheckout(to: string): void {
  const r = spawnSync('git', ['-C', REPO_ROOT, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], {encoding: 'utf8'})
  assert.equal(r.status, 0, r.stderr)
  for (const rel of r.stdout.split('\0').filter(Boolean)) {
    const from = path.join(REPO_ROOT, rel)
    if (!existsSync(from)) continue // deleted in the working tree
    const dest = path.join(to, rel)
    mkdirSync(path.dirname(dest), {recursive: true})
    copyFileSync(from, dest)
    chmodSync(dest, statSync(from).mode & 0o777)
  }
}

/** The commands of the first ```<lang> block after `heading` in a Markdown file, comments and blank lines dropped. */
function codeBlock(file: string, heading: string, lang: string): string {
  const md = readFileSync(path.join(REPO_ROOT, file), 'utf8')
  const at = md.indexOf(`\n${heading}\n`)
  assert.ok(at >= 0, `${file}: no heading ${heading}`)
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(md.slice(at))
  assert.ok(m, `${file}: no ${lang} block under ${heading}`)
  return m[1]
}

const commands = (block: string) =>
  block
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean)

let root = ''
/** The fresh checkout, laid out as a CI workspace keeps it: `<workspace>/tools/chatdoctor`. */
let workspace = ''
let checkout = ''
let tarball = ''
let action: ActionFile
/** A home with a healthy chat and a torn one, for the CLI runs; its scan by the repository's own build. */
let home = ''
let expected: {status: number; report: unknown}
const installs: Record<string, Promise<CliResult>> = {}

const step = (name: string): ActionStep => {
  const s = action.runs.steps.find((x) => x.name === name)
  assert.ok(s, `action.yml has no step "${name}"`)
  return s
}

before(async () => {
  root = tempDir('chatdoctor-install-')
  offerBuiltAddon(path.join(root, 'prebuilds'))
  workspace = path.join(root, 'workspace')
  checkout = path.join(workspace, 'tools', 'chatdoctor')
  copyCheckout(checkout)
  assert.ok(!existsSync(path.join(checkout, 'node_modules')) && !existsSync(path.join(checkout, 'dist')), 'a fresh checkout')
  action = readAction(path.join(checkout, 'action.yml'))

  home = path.join(root, 'home')
  copyRealChat(REAL_CHATS.small, home)
  const torn = copyRealChat(REAL_CHATS.tenTurns, home)
  writeFileSync(path.join(torn, 'run-state.json'), cutAt(readFileSync(path.join(torn, 'run-state.json')), 5000))
  const mine = runCli(['scan', '--json'], {env: {HOME: home}})
  expected = {status: mine.status, report: JSON.parse(mine.stdout)}
  assert.equal(expected.status, 2)

  // The action's install step, as the runner runs it (its commands are also the GitLab job's first two).
  const installed = await runAction({action, actionPath: checkout, workspace, with: {paths: '.'}, env: cleanEnv(), summary: path.join(root, 'summary-install.md'), only: (s) => s.name === "Install chatdoctor from the action's checkout"})
  const last = installed.steps.at(-1)!
  assert.equal(last.status, 0, `${last.stdout}\n${last.stderr}`)
  // The README's release tarball: `npm pack` builds it (prepack) in the checkout.
  const pack = await run('npm', ['pack'], {cwd: checkout})
  assert.equal(pack.status, 0, pack.stderr)
  tarball = path.join(checkout, TGZ)
  assert.ok(existsSync(tarball), pack.stdout)

  // The installs from the tarball, side by side (each builds better-sqlite3).
  const prefix = path.join(root, 'prefix')
  installs.global = run('npm', ['install', '-g', '--allow-scripts=better-sqlite3', `./${TGZ}`, '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund'], {cwd: checkout})
  // As the README has it, in the folder `npm pack` wrote the tarball to (npx takes a path that is not
  // `./`-relative for a program to run, not a package).
  // chatdoctor gets the test's HOME; npm keeps the user's config and cache, which HOME would otherwise move.
  const npmHome = {npm_config_userconfig: path.join(os.homedir(), '.npmrc'), npm_config_cache: npmCache()}
  installs.npx = run('npx', ['--yes', '--prefer-offline', `./${TGZ}`, 'scan'], {cwd: checkout, env: cleanEnv({HOME: home, ...npmHome})})
  // The global prefix from the environment: `--prefix` on the command line would also move the package
  // `npm link` links (its local prefix).
  installs.link = run('npm', ['link', '--no-audit', '--no-fund'], {cwd: checkout, env: cleanEnv({npm_config_prefix: path.join(root, 'link-prefix')})})
  // A project of an agent maintainer's that depends on the tarball, as docs/api.md says (allowScripts in its
  // package.json: a project install takes no --allow-scripts).
  const project = path.join(root, 'project')
  mkdirSync(project)
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({name: 'a-loader', private: true, type: 'module', allowScripts: {'better-sqlite3': true}}, null, 2))
  installs.library = run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], {cwd: project})
})

/** npm's cache folder, as npm itself says. */
function npmCache(): string {
  return spawnSync('npm', ['config', 'get', 'cache'], {encoding: 'utf8', env: cleanEnv()}).stdout.trim() || path.join(os.homedir(), '.npm')
}

after(() => {
  // npx installs into npm's cache (`_npx/<hash>`): remove the folders this run made, and only those.
  const npx = path.join(npmCache(), '_npx')
  if (root && existsSync(npx)) {
    for (const d of readdirSync(npx)) {
      const pj = path.join(npx, d, 'package.json')
      if (existsSync(pj) && readFileSync(pj, 'utf8').includes(path.basename(root))) rmSync(path.join(npx, d), {recursive: true, force: true})
    }
  }
  if (root) cleanup(root)
})

describe('the release tarball', () => {
  test('holds the built CLI, its manifest, schemas and README; no tests, no sources, no install-time scripts', () => {
    const r = spawnSync('tar', ['-tzf', tarball], {encoding: 'utf8'})
    assert.equal(r.status, 0)
    const files = r.stdout.split('\n').filter(Boolean)
    for (const f of ['package/bin/run.js', 'package/package.json', 'package/README.md', 'package/oclif.manifest.json', 'package/schemas/report.schema.json', 'package/dist/bundle/commands/scan.js', 'package/dist/bundle/hooks/command-not-found.js', 'package/dist/bundle/cli/help-class.js', 'package/dist/bundle/cli/snapshot-hook.js', 'package/dist/bundle/lib/pipeline/scan-worker.js', 'package/dist/src/api/index.js', 'package/dist/src/api/index.d.ts']) {
      assert.ok(files.includes(f), f)
    }
    for (const f of files) {
      assert.ok(!/^package\/(test|src|scripts|dist\/test|dist\/scripts|examples|docs|node_modules)\//.test(f), `${f} is in the tarball`)
      assert.ok(!f.endsWith('.ts') || f.endsWith('.d.ts'), `${f}: TypeScript source in the tarball`)
      assert.notEqual(f, 'package/dist/bundle.meta.json', 'the bundle metafile (for the tests) is in the tarball')
    }
    const pj = JSON.parse(spawnSync('tar', ['-xzOf', tarball, 'package/package.json'], {encoding: 'utf8'}).stdout) as {scripts: Record<string, string>; bin: Record<string, string>}
    for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(pj.scripts[s], undefined, `the packed package.json has a ${s} script: it would run at install time`)
    assert.deepEqual(pj.bin, {chatdoctor: 'bin/run.js'})
  })
})

describe('installed from the tarball', {concurrency: 3}, () => {
  test('npm install -g into a fresh prefix: `chatdoctor` on its PATH gives the verdicts of this build; no devDependency installed', async () => {
    const r = await installs.global
    assert.equal(r.status, 0, r.stderr)
    const prefix = path.join(root, 'prefix')
    const bin = path.join(prefix, 'bin', 'chatdoctor')
    const version = await run(bin, ['--version'], {cwd: root})
    assert.match(version.stdout, new RegExp(`^chatdoctor/${PKG.version.replace(/\./g, '\\.')} `))
    const scan = await run(bin, ['scan', '--json'], {cwd: root, env: cleanEnv({HOME: home})})
    assert.equal(scan.status, expected.status, scan.stderr)
    assert.deepEqual(JSON.parse(scan.stdout), expected.report)
    const help = await run(bin, ['help', 'scan'], {cwd: root})
    assert.equal(help.status, 0)
    assert.match(help.stdout, /\$ chatdoctor scan/)
    // The OpenCode database reader's native module was built and loads.
    const installed = path.join(prefix, 'lib', 'node_modules', 'chatdoctor')
    const sqlite = await run(process.execPath, ['-e', "const D = require('better-sqlite3'); new D(':memory:').prepare('select 1').get()"], {cwd: installed})
    assert.equal(sqlite.status, 0, sqlite.stderr)
    for (const dev of Object.keys(PKG.devDependencies)) {
      assert.ok(!existsSync(path.join(installed, 'node_modules', ...dev.split('/'))) || Object.hasOwn(PKG.dependencies, dev), `devDependency ${dev} was installed`)
    }
    assert.ok(!existsSync(path.join(installed, 'dist', 'test')))
  })

  test('npx of the tarball runs chatdoctor: the same scan as this build', async () => {
    const r = await installs.npx
    const mine = runCli(['scan'], {env: {HOME: home}})
    assert.equal(r.status, mine.status, r.stderr)
    assert.equal(r.stdout, mine.stdout)
    assert.match(r.stdout, /^2 chats: 1 healthy, 1 repairable/m)
  })

  test('npm link of the checkout (for working on it): `chatdoctor` runs the checkout', async () => {
    const r = await installs.link
    assert.equal(r.status, 0, r.stderr)
    const scan = await run(path.join(root, 'link-prefix', 'bin', 'chatdoctor'), ['scan', '--json'], {cwd: root, env: cleanEnv({HOME: home})})
    assert.equal(scan.status, expected.status, scan.stderr)
    assert.deepEqual(JSON.parse(scan.stdout), expected.report)
  })

  test("the README's install commands are the ones run here", () => {
    const readme = commands(codeBlock('README.md', '## Install', 'sh'))
    assert.deepEqual(readme, [
      'git clone <chatdoctor repository URL> chatdoctor && cd chatdoctor', // the fresh copy above
      'npm ci && npm pack', // npm ci: the action's install step; npm pack: above
      `npm install -g --allow-scripts=better-sqlite3 ./${TGZ}`, // run with --prefix and --prefer-offline added
      `npx --yes ./${TGZ} scan`, // run with --prefer-offline added
    ])
    assert.match(readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8'), /`npm ci && npm run build && npm link`/)
  })
})

describe('the library, imported from the tarball in a fresh project', {concurrency: 2}, () => {
  const project = () => path.join(root, 'project')
  const node = (file: string, env: NodeJS.ProcessEnv = {}) => run(process.execPath, [file], {cwd: project(), env: cleanEnv(env)})

  test("docs/api.md's loader loads the winner: the temp of a torn chat, the primary of a healthy one, nothing of a lost one", async () => {
    const r = await installs.library
    assert.equal(r.status, 0, r.stderr)
    writeFileSync(path.join(project(), 'loader.mjs'), codeBlock('docs/api.md', '## A loader that asks chatdoctor which generation to load', 'js'))
    const chats = path.join(root, 'loader-chats')
    const healthy = copyRealChat(REAL_CHATS.small, chats)
    const torn = copyRealChat(REAL_CHATS.tenTurns, chats)
    writeFileSync(path.join(torn, 'run-state.json'), cutAt(readFileSync(path.join(torn, 'run-state.json')), 5000))
    const lost = copyRealChat(REAL_CHATS.small, chats, undefined, '2025-11-05T10-00-00.000Z')
    writeFileSync(path.join(lost, 'run-state.json'), Buffer.alloc(readFileSync(path.join(lost, 'run-state.json')).length))
    writeFileSync(path.join(lost, 'chat-messages.json'), cutAt(readFileSync(path.join(lost, 'chat-messages.json')), 2000))
    writeFileSync(
      path.join(project(), 'main.mjs'),
      `import {loadContext} from './loader.mjs'\nconst warnings = []\nconst out = {}\nfor (const dir of process.argv.slice(2)) out[dir] = await loadContext(dir, (w) => warnings.push(w))\nprocess.stdout.write(JSON.stringify({out, warnings}))\n`,
    )
    const m = await run(process.execPath, ['main.mjs', healthy, torn, lost], {cwd: project(), env: cleanEnv({HOME: chats})})
    assert.equal(m.status, 0, m.stderr)
    const {out, warnings} = JSON.parse(m.stdout) as {out: Record<string, unknown>; warnings: string[]}
    assert.deepEqual(out[healthy], JSON.parse(readFileSync(path.join(healthy, 'run-state.json'), 'utf8')))
    assert.deepEqual(out[torn], JSON.parse(readFileSync(path.join(torn, TEN_TURN), 'utf8')))
    assert.equal(out[lost], null)
    assert.deepEqual(warnings, [`${torn}: run-state.json is truncated; loading ${TEN_TURN} (turns 10/10)`, `${lost}: no usable copy of the agent context (unrecoverable); starting without it`])
  })

  test('the same report as the CLI; only the package entry is exported; importing it prints nothing', async () => {
    const r = await installs.library
    assert.equal(r.status, 0, r.stderr)
    writeFileSync(
      path.join(project(), 'scan.mjs'),
      `import {scanChats, VERSION} from 'chatdoctor'\nconst report = await scanChats()\nlet internal = null\ntry { await import('chatdoctor/dist/src/lib/pipeline/scan.js') } catch (e) { internal = e.code }\nprocess.stdout.write(JSON.stringify({report, VERSION, internal}))\n`,
    )
    const s = await node(path.join(project(), 'scan.mjs'), {HOME: home})
    assert.equal(s.status, 0, s.stderr)
    assert.equal(s.stderr, '')
    const got = JSON.parse(s.stdout) as {report: unknown; VERSION: string; internal: string}
    assert.deepEqual(got.report, expected.report)
    assert.equal(got.VERSION, PKG.version)
    assert.equal(got.internal, 'ERR_PACKAGE_PATH_NOT_EXPORTED')
  })

  test('TypeScript: the declarations type a consumer under strict NodeNext, and catch a wrong use', async () => {
    const r = await installs.library
    assert.equal(r.status, 0, r.stderr)
    const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
    const dir = path.join(project(), 'ts')
    mkdirSync(dir, {recursive: true})
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({compilerOptions: {strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true, types: ['node'], typeRoots: [path.join(REPO_ROOT, 'node_modules', '@types')]}, include: ['*.ts']}))
    const good = [
      "import {diagnoseChatDir, planRepair, winnerBytes, classifyJsonBytes, type ChatReport, type ChatStatus, type DiagnosedChat} from 'chatdoctor'",
      'const chat: DiagnosedChat = await diagnoseChatDir(process.argv[2])',
      'const report: ChatReport = chat.report',
      'const status: ChatStatus = report.status',
      'const bytes: Buffer | null = winnerBytes(chat)',
      "const cls: 'intact' | 'truncated' | 'empty' | 'zero-filled' | 'corrupt' | 'contextless' = classifyJsonBytes(bytes ?? new Uint8Array()).class",
      'console.log(status, cls, planRepair(chat).actions.length, report.generations.map((g) => g.file))',
    ].join('\n')
    writeFileSync(path.join(dir, 'good.ts'), good + '\nexport {}\n')
    const ok = await run(process.execPath, [tsc, '-p', dir], {cwd: dir})
    assert.equal(ok.status, 0, ok.stdout + ok.stderr)
    writeFileSync(path.join(dir, 'bad.ts'), "import type {ChatReport} from 'chatdoctor'\nconst s: ChatReport['status'] = 'fine'\nexport {s}\n")
    const bad = await run(process.execPath, [tsc, '-p', dir], {cwd: dir})
    assert.notEqual(bad.status, 0)
    assert.match(bad.stdout, /bad\.ts\(2,7\): error TS2322: Type '"fine"' is not assignable to type '"healthy" \| "repairable" \| "unrecoverable" \| "degraded"'/)
  })
})

describe('the GitHub Action (action.yml), its steps run as the runner runs them', {concurrency: 2}, () => {
  /** A workspace's chat bundles: one healthy (10-turn chat with its leftover temp), one torn. */
  let bundles = ''
  before(() => {
    bundles = path.join(workspace, 'test', 'chat-bundles')
    // bundle -o writes into an existing folder only.
    mkdirSync(bundles, {recursive: true})
    const src = path.join(root, 'bundle-src')
    copyRealChat(REAL_CHATS.tenTurns, path.join(src, 'ok'), 'chats')
    const torn = copyRealChat(REAL_CHATS.tenTurns, path.join(src, 'torn'), 'chats')
    writeFileSync(path.join(torn, 'run-state.json'), cutAt(readFileSync(path.join(torn, 'run-state.json')), 5000))
    for (const name of ['ok', 'torn']) {
      const b = runCli(['bundle', path.join(src, name, 'chats'), '-o', path.join(bundles, `${name}.tar.gz`)])
      assert.equal(b.status, 0, b.stderr)
    }
  })

  /** Runs the action's steps after the install (done once, above) with these inputs, in a fresh job folder. */
  async function job(name: string, inputs: Record<string, string>) {
    const summary = path.join(root, `summary-${name}.md`)
    writeFileSync(summary, '')
    const result = await runAction({action, actionPath: checkout, workspace, with: inputs, env: cleanEnv(), summary, only: (s) => s.name !== "Install chatdoctor from the action's checkout"})
    const byName = (n: string) => result.steps.find((s) => s.step.name === n)
    return {...result, summary: readFileSync(summary, 'utf8'), byName}
  }

  /** `check --json` of the same paths from the workspace: the verdict the action must turn into the job's. */
  const verdict = (paths: string[], failOn = 'error') => {
    const r = runCli(['check', '--json', '--fail-on', failOn, ...paths], {cwd: workspace})
    return (JSON.parse(r.stdout) as {exitCode: number}).exitCode
  }

  test('the steps: setup-node, install from the checkout, check, SARIF upload when asked, fail by --fail-on', () => {
    assert.equal(action.runs.using, 'composite')
    assert.deepEqual(
      action.runs.steps.map((s) => s.uses ?? s.name),
      ['actions/setup-node@v4', "Install chatdoctor from the action's checkout", 'Check chat bundles', 'github/codeql-action/upload-sarif@v3', 'Fail by --fail-on'],
    )
    assert.equal(step('Set up Node.js').with!['node-version'], '${{ inputs.node-version }}')
    assert.deepEqual(Object.keys(action.inputs).sort(), ['fail-on', 'node-version', 'paths', 'sarif-file', 'upload-sarif'])
  })

  test('a passing job: annotations none, the summary lists every chat, SARIF written, not uploaded, the job green', async () => {
    const j = await job('pass', {paths: 'test/chat-bundles/ok.tar.gz'})
    assert.equal(j.failed, false, JSON.stringify(j.steps.map((s) => [s.step.name, s.status, s.stderr])))
    assert.equal(verdict(['test/chat-bundles/ok.tar.gz']), 0)
    assert.equal(j.outputs['exit-code'], '0')
    assert.equal(j.outputs['sarif-file'], 'chatdoctor.sarif')
    assert.doesNotMatch(j.byName('Check chat bundles')!.stdout!, /^::error/m)
    assert.match(j.summary, new RegExp(REAL_CHATS.tenTurns.replace(/\./g, '\\.')))
    const sarif = JSON.parse(readFileSync(path.join(workspace, 'chatdoctor.sarif'), 'utf8')) as {version: string}
    assert.equal(sarif.version, '2.1.0')
    const upload = j.steps.find((s) => s.step.uses?.startsWith('github/codeql-action/upload-sarif'))!
    assert.equal(upload.ran, false, 'upload-sarif defaults to false')
    assert.equal(j.byName('Fail by --fail-on')!.status, 0)
  })

  test('a torn bundle: an error annotation on the bundle member, SARIF uploaded when asked, the job red with the check exit status', async () => {
    const j = await job('torn', {paths: 'test/chat-bundles/*.tar.gz\n', 'upload-sarif': 'true', 'sarif-file': 'out/report.sarif'})
    const code = verdict(['test/chat-bundles/ok.tar.gz', 'test/chat-bundles/torn.tar.gz'])
    assert.equal(code, 2)
    assert.equal(j.outputs['exit-code'], String(code))
    const check = j.byName('Check chat bundles')!
    assert.equal(check.status, 0, 'the check step itself passes, so the upload still runs')
    assert.match(check.stdout!, new RegExp(`^::error file=test/chat-bundles/torn\\.tar\\.gz/${REAL_CHATS.tenTurns.replace(/\./g, '\\.')}/run-state\\.json,.*title=chatdoctor primary-damaged::`, 'm'))
    const upload = j.steps.find((s) => s.step.uses?.startsWith('github/codeql-action/upload-sarif'))!
    assert.equal(upload.ran, true)
    assert.equal(upload.with!.sarif_file, 'out/report.sarif')
    const sarif = JSON.parse(readFileSync(path.join(workspace, 'out', 'report.sarif'), 'utf8')) as {runs: Array<{results: Array<{ruleId: string}>}>}
    assert.ok(sarif.runs[0].results.some((r) => r.ruleId === 'primary-damaged'))
    const fail = j.byName('Fail by --fail-on')!
    assert.equal(fail.status, code)
    assert.equal(j.failed, true)
  })

  test('--fail-on: a finding below the rule passes, at the rule fails; no SARIF when sarif-file is empty', async () => {
    const paths = ['test/chat-bundles/ok.tar.gz']
    assert.equal(verdict(paths, 'error'), 0)
    const info = verdict(paths, 'info')
    assert.notEqual(info, 0, 'the healthy chat has an info finding (its leftover temp)')
    rmSync(path.join(workspace, 'none.sarif'), {force: true})
    const j = await job('info', {paths: paths[0], 'fail-on': 'info', 'sarif-file': ''})
    assert.equal(j.outputs['exit-code'], String(info))
    assert.equal(j.byName('Fail by --fail-on')!.status, info)
    assert.equal(j.steps.find((s) => s.step.uses?.startsWith('github/codeql-action/upload-sarif'))!.ran, false)
    assert.equal(j.outputs['sarif-file'], '')
  })

  test('paths that name nothing fail the job: an empty input (16), a folder with nothing to check (8)', async () => {
    const empty = await job('empty', {paths: '\n  \n', 'sarif-file': ''})
    assert.equal(empty.outputs['exit-code'], '16')
    assert.match(empty.byName('Check chat bundles')!.stdout!, /^::error title=chatdoctor::the paths input names nothing to check$/m)
    assert.equal(empty.failed, true)
    mkdirSync(path.join(workspace, 'nothing'), {recursive: true})
    const nothing = await job('nothing', {paths: 'nothing', 'sarif-file': ''})
    assert.equal(nothing.outputs['exit-code'], '8')
    assert.equal(nothing.failed, true)
  })

  test('the example workflow in docs/ci.md: checkout with the submodule, security-events: write, the action with its own inputs, the SARIF artifact', () => {
    const wf = parse(codeBlock('docs/ci.md', '## GitHub Actions', 'yaml')) as {permissions: Record<string, string>; jobs: Record<string, {steps: Array<{uses?: string; with?: Record<string, unknown>; if?: string}>}>}
    assert.equal(wf.permissions['security-events'], 'write')
    const steps = Object.values(wf.jobs)[0].steps
    assert.equal(steps[0].uses, 'actions/checkout@v4')
    assert.equal(steps[0].with!.submodules, true)
    const uses = steps.find((s) => s.uses === './tools/chatdoctor')!
    for (const k of Object.keys(uses.with!)) assert.ok(Object.hasOwn(action.inputs, k), `the example gives input ${k}, which action.yml does not have`)
    assert.equal(uses.with!['upload-sarif'], true)
    const artifact = steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!
    assert.equal(artifact.with!.path, uses.with!['sarif-file'])
    assert.equal(artifact.if, 'always()')
    // No placeholder to replace and no install from git (which fails: npm leaves out the build's devDependencies).
    for (const doc of ['README.md', 'docs/ci.md']) {
      const text = readFileSync(path.join(REPO_ROOT, doc), 'utf8')
      assert.doesNotMatch(text, /OWNER\/chatdoctor|placeholder repo URL/, doc)
      assert.doesNotMatch(text.replace(/`npm install -g git\+https:\/\/…`\) does not work/, ''), /npm install -g "?git\+/, doc)
    }
    // The README's short example is the same use of the action.
    const short = parse(codeBlock('README.md', '## In CI', 'yaml')) as Array<{uses: string; with: Record<string, unknown>}>
    assert.deepEqual(short.map((s) => s.uses), ['actions/checkout@v4', './tools/chatdoctor'])
    assert.ok(Object.keys(short[1].with).every((k) => Object.hasOwn(action.inputs, k)))
  })

  test('the GitLab job in docs/ci.md: its install lines are the action\'s, its check line writes JUnit and exits by the verdict', async () => {
    const job = parse(codeBlock('docs/ci.md', '## GitLab CI', 'yaml')) as {chatdoctor: {script: string[]; artifacts: {reports: {junit: string}}}}
    const script = job.chatdoctor.script
    const installLines = step("Install chatdoctor from the action's checkout").run!.trim().split('\n').map((l) => l.replaceAll('"$ACTION_PATH"', 'tools/chatdoctor'))
    assert.deepEqual(script.slice(0, 2), installLines)
    // The check line, from a workspace whose bundles are test/chat-bundles/ (above).
    const r = await sh(script[2], workspace)
    const code = verdict(['test/chat-bundles/'])
    assert.equal(r.status, code, r.stderr)
    const xml = new XMLParser({ignoreAttributes: false}).parse(readFileSync(path.join(workspace, job.chatdoctor.artifacts.reports.junit), 'utf8')) as {testsuites: {testsuite: Array<{testcase: unknown}> | {testcase: unknown}}}
    const suites = ([] as Array<{testcase: unknown}>).concat(xml.testsuites.testsuite)
    assert.equal(suites.length, 2, 'one suite per bundle')
  })
})
