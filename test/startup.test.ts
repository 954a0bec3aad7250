/**
 * Start-up: a scan loads the diagnosis of the agents whose chats it found, not every agent's. Checked by the
 * modules a child process imports (a module loader hook logs every one), never by timing; and the discovery
 * parts the registry lists stand for their whole adapters exactly (the same members, the same values).
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {test} from 'node:test'
import {pathToFileURL} from 'node:url'
import {ADAPTERS, LIGHT_MEMBERS, isPartial, loadAdapters} from '../src/lib/formats/registry.js'
import {inheritedEnv, REAL_CHATS, REALDATA, REPO_ROOT} from './helpers/fixtures.js'

/** Runs `bin/run.js` with a loader hook; returns its exit status and the repository-relative modules it imported. */
function importsOf(args: string[]): {status: number; modules: string[]} {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatdoctor-imports-'))
  try {
    const log = path.join(dir, 'modules.txt')
    writeFileSync(path.join(dir, 'hook.mjs'), `import {appendFileSync} from 'node:fs'\nexport async function resolve(s, c, next) {\n  const r = await next(s, c)\n  appendFileSync(${JSON.stringify(log)}, r.url + '\\n')\n  return r\n}\n`)
    writeFileSync(path.join(dir, 'register.mjs'), `import {register} from 'node:module'\nregister(${JSON.stringify(pathToFileURL(path.join(dir, 'hook.mjs')).href)})\n`)
    writeFileSync(log, '')
    const r = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(dir, 'register.mjs')).href, path.join(REPO_ROOT, 'bin', 'run.js'), ...args], {cwd: REPO_ROOT, env: {...inheritedEnv(), NO_COLOR: '1', HOME: dir}, encoding: 'utf8'})
    const root = pathToFileURL(REPO_ROOT).href + '/'
    const modules = [...new Set(readFileSync(log, 'utf8').split('\n').filter((u) => u.startsWith(root)).map((u) => u.slice(root.length)))]
    return {status: r.status ?? -1, modules}
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

const KILO_STORE = path.join(REALDATA, 'kilo')
const GEMINI_CHATS = path.join(REALDATA, 'gemini-cli', '0.61.0', 'damage', 'delete-index', '0-damaged', '.gemini', 'tmp')

test("a plain scan of a Codebuff chat imports the discovery parts of Gemini CLI, Kilo, OpenCode and Cline only, not their diagnosis", () => {
  const r = importsOf(['scan', path.join(REALDATA, 'codebuff', REAL_CHATS.tenTurns)])
  assert.equal(r.status, 0)
  assert.ok(r.modules.includes('dist/src/lib/formats/codebuff/index.js'), 'the Codebuff adapter is loaded whole')
  for (const agent of ['gemini-cli', 'kilo', 'opencode', 'cline']) assert.ok(r.modules.includes(`dist/src/lib/formats/${agent}/light.js`), `${agent}'s discovery part is loaded`)
  for (const m of ['gemini-cli/index.js', 'gemini-cli/diagnose.js', 'gemini-cli/plan.js', 'kilo/index.js', 'kilo/diagnose.js', 'kilo/store.js', 'kilo/plan.js', 'opencode/index.js', 'opencode/store.js', 'opencode/tree.js', 'opencode/projects.js', 'opencode-family/database.js', 'cline/index.js', 'cline/store.js', 'cline/index-chat.js', 'cline/diagnose.js', 'index.js'].map((f) => `dist/src/lib/formats/${f}`)) {
    assert.ok(!r.modules.includes(m), `${m} is not imported`)
  }
})

test('a plain scan of Gemini CLI chats imports its whole adapter (the check above can fail)', () => {
  const r = importsOf(['scan', GEMINI_CHATS])
  assert.ok(r.status >= 0 && r.status < 16, `exit ${r.status}`)
  assert.ok(r.modules.includes('dist/src/lib/formats/gemini-cli/diagnose.js'), "Gemini CLI's diagnosis is loaded")
})

test('a scan of a Kilo store lists it through its discovery part, then loads Kilo whole', () => {
  const r = importsOf(['scan', KILO_STORE])
  assert.ok(r.status >= 0 && r.status < 16, `exit ${r.status}`)
  for (const m of ['kilo/store.js', 'kilo/diagnose.js']) assert.ok(r.modules.includes(`dist/src/lib/formats/${m}`), `${m} is loaded`)
})

test('every discovery part holds exactly the registry\'s light members of its whole adapter, the same values', async () => {
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
