/**
 * `check --format sarif|junit|github` and `--fail-on`: SARIF validated against the official SARIF
 * 2.1.0 schema (test/fixtures), JUnit parsed back, GitHub annotation lines counted against GitHub's caps.
 */
import assert from 'node:assert/strict'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import AjvDraft04Module from 'ajv-draft-04'
import addFormatsModule from 'ajv-formats'
import {XMLParser} from 'fast-xml-parser'
import {REAL_CHATS, REPO_ROOT, TEN_TURN_TEMP, cleanup, copyRealChat, cutAt, runCli, tempDir, zeroFill} from './helpers/fixtures.js'
import {findingKinds} from '../src/lib/formats/index.js'

interface Rep {
  exitCode: number
  chats: Array<{id: string; path: string; bundle?: string; status: string; findings: Array<{id: string; severity: string; file: string | null}>; generations: Array<{file: string; damage?: {offset: number; length: number}}>}>
  errors: Array<{id: string; path: string}>
}

/**
 * A CI workspace: `bundles/` with a bundle of a torn chat and a healthy one, `chats/` with N damaged chat dirs
 * (zero-filled primary), run from the workspace root as CI does.
 */
function workspace(root: string, damagedDirs: number): void {
  const torn = path.join(root, 'src-chats')
  const ten = copyRealChat(REAL_CHATS.tenTurns, torn, 'chats')
  writeFileSync(path.join(ten, 'run-state.json'), cutAt(readFileSync(path.join(ten, 'run-state.json')), 12000))
  writeFileSync(path.join(ten, 'run-state.json.bak'), cutAt(readFileSync(path.join(ten, 'run-state.json.bak')), 500))
  copyRealChat(REAL_CHATS.small, torn, 'chats')
  mkdirSync(path.join(root, 'bundles'))
  const b = runCli(['bundle', path.join(torn, 'chats'), '-o', path.join(root, 'bundles', 'torn.tar.gz')])
  assert.equal(b.status, 0, b.stderr)
  for (let i = 0; i < damagedDirs; i++) {
    const d = copyRealChat(REAL_CHATS.tenTurns, root, 'chats', `2025-11-04T14-01-${String(10 + i).padStart(2, '0')}.000Z`)
    writeFileSync(path.join(d, 'run-state.json'), zeroFill(readFileSync(path.join(d, 'run-state.json'))))
    writeFileSync(path.join(d, TEN_TURN_TEMP), cutAt(readFileSync(path.join(d, TEN_TURN_TEMP)), 100))
  }
}

test('SARIF: valid against the SARIF 2.1.0 schema, rule ids = finding ids, byte regions of tears, stable fingerprints', () => {
  const root = tempDir()
  try {
    workspace(root, 2)
    const json = JSON.parse(runCli(['check', '--json', 'bundles', 'chats'], {cwd: root}).stdout) as Rep
    const r = runCli(['check', '--format', 'sarif', '-o', 'out.sarif', 'bundles', 'chats'], {cwd: root})
    assert.equal(r.status, json.exitCode)
    assert.match(r.stdout, /turns N\/M/, 'stdout carries the human table when -o is given')
    const sarif = JSON.parse(readFileSync(path.join(root, 'out.sarif'), 'utf8')) as {version: string; runs: Array<Record<string, any>>}
    // Both packages are CommonJS (`module.exports = fn`); under NodeNext their default import is that export.
    const Ajv = AjvDraft04Module as unknown as typeof AjvDraft04Module.default
    const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default
    // unicodeRegExp off: the official schema's `language` pattern is not valid under the `u` flag.
    const ajv = new Ajv({allErrors: true, strict: false, unicodeRegExp: false})
    addFormats(ajv)
    const validate = ajv.compile(JSON.parse(readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'sarif-2.1.0-rtm.5.json'), 'utf8')))
    assert.ok(validate(sarif), JSON.stringify(validate.errors, null, 2))
    // A broken log fails the same validator (the check can fail).
    assert.equal(validate({...sarif, version: '2.0.0'}), false)

    const run = sarif.runs[0]
    const ids = new Set(findingKinds().map((k) => k.id))
    assert.deepEqual(run.tool.driver.rules.map((x: {id: string}) => x.id), [...ids])
    const all = json.chats.flatMap((c) => c.findings.map((f) => ({c, f})))
    assert.equal(run.results.length, all.length + json.errors.length)
    for (const res of run.results) {
      assert.ok(ids.has(res.ruleId), res.ruleId)
      assert.equal(run.tool.driver.rules[res.ruleIndex].id, res.ruleId)
    }
    // The torn primary inside the bundle: addressed as <bundle>/<member>, with its byte region.
    const chat = json.chats.find((c) => c.bundle !== undefined && c.id === REAL_CHATS.tenTurns)!
    const damage = chat.generations.find((g) => g.file === 'run-state.json')!.damage!
    assert.deepEqual(damage, {offset: 12000, length: 0})
    const hit = run.results.find((x: {ruleId: string; locations: Array<{physicalLocation: {artifactLocation: {uri: string}}}>}) => x.ruleId === 'primary-damaged' && x.locations[0].physicalLocation.artifactLocation.uri.startsWith('bundles/'))
    assert.equal(hit.locations[0].physicalLocation.artifactLocation.uri, `bundles/torn.tar.gz/${REAL_CHATS.tenTurns}/run-state.json`)
    assert.equal(hit.locations[0].physicalLocation.region.byteOffset, 12000)
    assert.equal(hit.locations[0].physicalLocation.region.byteLength, 0)
    assert.equal(hit.locations[0].physicalLocation.region.startLine, 1)
    assert.equal(hit.level, 'error')
    // Fingerprints: unique per result, the same on a second run.
    const fps = run.results.map((x: {partialFingerprints: Record<string, string>}) => x.partialFingerprints['chatdoctor/v1'])
    assert.equal(new Set(fps).size, fps.length)
    runCli(['check', '--format', 'sarif', '-o', 'again.sarif', 'bundles', 'chats'], {cwd: root})
    const again = JSON.parse(readFileSync(path.join(root, 'again.sarif'), 'utf8'))
    assert.deepEqual(again.runs[0].results.map((x: {partialFingerprints: Record<string, string>}) => x.partialFingerprints['chatdoctor/v1']), fps)
    assert.ok(run.results.length <= 25_000)
  } finally {
    cleanup(root)
  }
})

test('JUnit: one testsuite per bundle or folder, one testcase per chat, at most one failure listing all its error findings', () => {
  const root = tempDir()
  try {
    workspace(root, 3)
    const json = JSON.parse(runCli(['check', '--json', 'bundles', 'chats'], {cwd: root}).stdout) as Rep
    const r = runCli(['check', '--format', 'junit', 'bundles', 'chats'], {cwd: root})
    assert.equal(r.status, json.exitCode)
    const parser = new XMLParser({ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase', 'failure'].includes(name)})
    const doc = parser.parse(r.stdout)
    const suites = doc.testsuites.testsuite as Array<{name: string; tests: string; failures: string; testcase: Array<{name: string; failure?: Array<{'#text': string; type: string}>}>}>
    assert.deepEqual(suites.map((s) => s.name), ['bundles/torn.tar.gz', 'chats'])
    assert.equal(Number(doc.testsuites.tests), json.chats.length)
    for (const s of suites) {
      assert.equal(Number(s.tests), s.testcase.length)
      assert.equal(Number(s.failures), s.testcase.filter((t) => t.failure).length)
      for (const tc of s.testcase) {
        const chat = json.chats.find((c) => c.id === tc.name && (s.name === 'chats' ? c.bundle === undefined : c.bundle !== undefined))!
        assert.ok(chat, tc.name)
        const errs = chat.findings.filter((f) => f.severity === 'error')
        assert.ok((tc.failure?.length ?? 0) <= 1)
        if (errs.length === 0) assert.equal(tc.failure, undefined)
        else {
          const text = tc.failure![0]['#text']
          assert.equal(text.split('\n').length, errs.length)
          for (const f of errs) assert.ok(text.includes(`error ${f.id}`), `${tc.name}: ${f.id}`)
        }
      }
    }
    assert.equal(suites[0].testcase.filter((t) => t.failure).length, 1, 'the torn chat fails, the healthy one passes')
    assert.equal(suites[1].testcase.length, 3)
  } finally {
    cleanup(root)
  }
})

test('GitHub: at most 10 annotations per type, a final line counting the rest, the full table in $GITHUB_STEP_SUMMARY', () => {
  const root = tempDir()
  try {
    workspace(root, 12)
    const json = JSON.parse(runCli(['check', '--json', 'bundles', 'chats'], {cwd: root}).stdout) as Rep
    const summary = path.join(root, 'summary.md')
    writeFileSync(summary, '# earlier step\n')
    const r = runCli(['check', '--format', 'github', 'bundles', 'chats'], {cwd: root, env: {GITHUB_STEP_SUMMARY: summary}})
    assert.equal(r.status, json.exitCode)
    const lines = r.stdout.trim().split('\n')
    const count = (t: string) => lines.filter((l) => l.startsWith(`::${t} `)).length
    const total = (sev: string) => json.chats.flatMap((c) => c.findings).filter((f) => f.severity === sev).length
    assert.ok(total('error') > 10 && total('warning') > 10, 'the workspace has more than 10 errors and warnings')
    assert.equal(count('error'), 10)
    assert.equal(count('warning'), 10)
    assert.equal(count('notice'), Math.min(10, total('info')))
    const last = lines[lines.length - 1]
    assert.match(last, new RegExp(`^chatdoctor: ${total('error') - 10} more errors, ${total('warning') - 10} more warnings`))
    assert.equal(lines.length, count('error') + count('warning') + count('notice') + 1)
    assert.match(lines.find((l) => l.startsWith('::error'))!, /^::error file=[^,]+,(line=\d+,col=\d+,)?title=chatdoctor [a-z-]+::/)
    const md = readFileSync(summary, 'utf8')
    assert.ok(md.startsWith('# earlier step\n## chatdoctor check'), 'appended, not replaced')
    for (const c of json.chats) assert.ok(md.includes(`| ${c.id} |`), c.id)
    assert.equal(md.split('\n').filter((l) => /^\| (error|warning|info) \|/.test(l)).length, json.chats.flatMap((c) => c.findings).length)
    assert.equal(existsSync(path.join(root, 'out.sarif')), false)
  } finally {
    cleanup(root)
  }
})

test('--fail-on: a healthy chat whose worst finding reaches the level adds exit bit 2', () => {
  const root = tempDir()
  try {
    // The real 10-turn chat is healthy with an info finding (the complete leftover temp).
    copyRealChat(REAL_CHATS.tenTurns, root, 'chats')
    const dir = path.join(root, 'chats')
    const rep = JSON.parse(runCli(['check', '--json', dir]).stdout) as Rep
    assert.equal(rep.chats[0].status, 'healthy')
    assert.deepEqual(rep.chats[0].findings.map((f) => f.severity), ['info'])
    assert.equal(runCli(['check', dir]).status, 0)
    assert.equal(runCli(['check', '--fail-on', 'warning', dir]).status, 0)
    assert.equal(runCli(['check', '--fail-on', 'info', dir]).status, 2)
    assert.equal(JSON.parse(runCli(['check', '--json', '--fail-on', 'info', dir]).stdout).exitCode, 2)
    assert.equal(runCli(['check', '--fail-on', 'nope', dir]).status, 16)
    assert.equal(runCli(['check', '--format', 'xml', dir]).status, 16)
    assert.equal(runCli(['check', '--max-bytes', 'lots', dir]).status, 16)
  } finally {
    cleanup(root)
  }
})
