/**
 * An installation whose SQLite module does not load (npm skipped or failed better-sqlite3's native build: the
 * package is there, its binding is not). Every database would then look unreadable, and a repair would move a
 * healthy store aside. Instead each store it cannot read is one operational error saying what to do, nothing
 * is repaired, and the chats that need no SQLite are diagnosed as usual. The CLI runs from a copy of the built
 * bundle whose node_modules links every package but better-sqlite3, which is copied without its build.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, readdirSync, symlinkSync} from 'node:fs'
import path from 'node:path'
import {after, before, test} from 'node:test'
import {storeBytes, copyKiloHome} from './helpers/kilo.js'
import {REAL_CHATS, REPO_ROOT, cleanup, copyRealChat, inheritedEnv, tempDir} from './helpers/fixtures.js'

let root = ''
let bin = ''
let home = ''
let kiloData = ''

before(() => {
  root = tempDir('chatdoctor-nosqlite-')
  const pkg = path.join(root, 'pkg')
  mkdirSync(path.join(pkg, 'dist'), {recursive: true})
  for (const f of ['bin', 'package.json', 'oclif.manifest.json']) cpSync(path.join(REPO_ROOT, f), path.join(pkg, f), {recursive: true})
  cpSync(path.join(REPO_ROOT, 'dist', 'bundle'), path.join(pkg, 'dist', 'bundle'), {recursive: true})
  const modules = path.join(pkg, 'node_modules')
  mkdirSync(modules)
  for (const n of readdirSync(path.join(REPO_ROOT, 'node_modules'))) {
    if (n !== 'better-sqlite3') symlinkSync(path.join(REPO_ROOT, 'node_modules', n), path.join(modules, n))
  }
  const sqlite = path.join(modules, 'better-sqlite3')
  mkdirSync(sqlite)
  for (const f of ['package.json', 'lib']) cpSync(path.join(REPO_ROOT, 'node_modules', 'better-sqlite3', f), path.join(sqlite, f), {recursive: true})
  bin = path.join(pkg, 'bin', 'run.js')
  home = path.join(root, 'home')
  kiloData = copyKiloHome(home)
  copyRealChat(REAL_CHATS.small, home)
})
after(() => cleanup(root))

const run = (args: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...args], {cwd: root, env: {...inheritedEnv(), HOME: home, NO_COLOR: '1', XDG_DATA_HOME: path.join(home, '.local', 'share'), XDG_STATE_HOME: path.join(home, '.local', 'state')}, encoding: 'utf8'})
  return {status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr}
}

const SAYS = /chatdoctor's SQLite module \(better-sqlite3\) does not load \(.+\), so no SQLite store was read or repaired; reinstall chatdoctor letting that module build \(npm install -g --allow-scripts=better-sqlite3/

test('the copied install really has no SQLite binding, and runs', () => {
  assert.ok(!existsSync(path.join(path.dirname(bin), '..', 'node_modules', 'better-sqlite3', 'build')))
  const r = run(['--version'])
  assert.equal(r.status, 0, r.stderr)
})

test('scan: the Kilo store is one error naming the module and what to do, never an unrecoverable store; the Codebuff chat is diagnosed', () => {
  const r = run(['scan', '--json'])
  const doc = JSON.parse(r.stdout) as {exitCode: number; errors: Array<{path: string; message: string}>; chats: Array<{path: string; status: string; format: string}>}
  assert.equal(r.status, doc.exitCode)
  assert.equal(doc.exitCode & 8, 8, 'an operational error')
  assert.equal(doc.exitCode & 4, 0, 'nothing unrecoverable')
  assert.deepEqual(doc.chats.map((c) => [c.format, c.status]), [['codebuff', 'healthy']])
  const mine = doc.errors.filter((e) => SAYS.test(e.message))
  assert.equal(mine.length, 1, JSON.stringify(doc.errors))
  assert.equal(mine[0].path, '~/.local/share/kilo')
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack')
})

test('repair --yes moves nothing: the store is byte for byte as it was, and no evidence folder is made', () => {
  const before = storeBytes(kiloData)
  const r = run(['repair', '--yes', kiloData])
  assert.equal(r.status & 8, 8, r.stdout + r.stderr)
  assert.match(r.stderr + r.stdout, SAYS)
  assert.deepEqual(storeBytes(kiloData), before)
  assert.ok(!existsSync(path.join(kiloData, '.chatdoctor')), 'no evidence folder: nothing was moved')
  assert.deepEqual(readdirSync(kiloData).sort(), ['kilo.db', 'kilo.db-shm', 'kilo.db-wal', 'log', 'snapshot', 'storage', 'telemetry-id'])
})
