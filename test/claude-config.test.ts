/**
 * Claude Code's registry: `~/.claude.json` with its generations in `~/.claude/backups/`, and the project folders
 * that list and resume a session, on copies of the home the real Claude Code 2.1.328 wrote
 * (`shared/realdata/claude-code/2.1.328/`), damaged by code. Claude Code's own rules (index-files.md §1.2–1.3:
 * the config must parse or be absent; `claude --resume` lists the TUI logs of `projects/<slug of the cwd>/`) are
 * the oracle (`helpers/indexes.ts`); undo puts every byte back.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {mkdirSync, readFileSync, renameSync, utimesSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {cleanup, REPO_ROOT, tempDir} from './helpers/fixtures.js'
import {claudeStarts, copyClaudeHome, treeBytes} from './helpers/indexes.js'

const BIN = path.join(REPO_ROOT, 'bin', 'run.js')
const A = '3306629b-a8aa-4dc1-8716-233d3cbaea4c'
const B = 'd9527693-b315-4674-9957-32bc6697096e'
const SLUG = '-home-dev-demo-app'

interface Chat {
  path: string
  id: string
  format: string
  status: string
  winner: string | null
  findings: Array<{id: string; severity: string; message: string}>
  actions?: Array<{type: string; from: string | null; to: string}>
  repair?: {outcome: string; message: string | null; warnings: string[]}
}
interface Report {
  exitCode: number
  chats: Chat[]
  repairId?: string | null
}

function run(home: string, args: string[]): Report {
  const r = spawnSync(process.execPath, [BIN, ...args, '--json'], {encoding: 'utf8', env: {...process.env, HOME: home, XDG_STATE_HOME: path.join(home, '.state'), CLAUDE_CONFIG_DIR: ''}})
  assert.ok(r.stdout.trim().startsWith('{'), `no JSON from ${args.join(' ')}: ${r.stderr}`)
  return JSON.parse(r.stdout) as Report
}
const config = (r: Report) => r.chats.find((c) => c.id === 'config' && c.format === 'claude-code')!
const session = (r: Report, id: string) => r.chats.find((c) => c.id === id && !c.path.includes('/subagents/'))!

const full = (home: string) => readFileSync(path.join(home, '.claude.json'))
const backups = (home: string) => path.join(home, '.claude', 'backups')
function put(file: string, data: Buffer | string, mtimeMs: number): void {
  writeFileSync(file, data)
  utimesSync(file, mtimeMs / 1000, mtimeMs / 1000)
}

/** `claude --resume`'s picker in `cwd`, by 2.1.328's rule: the TUI logs (entrypoint cli) of projects/<slug of cwd>/. */
function pickerLists(home: string, cwd: string): string[] {
  const dir = path.join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'))
  let names: string[] = []
  try {
    names = spawnSync('ls', [dir], {encoding: 'utf8'}).stdout.split('\n').filter((n) => n.endsWith('.jsonl'))
  } catch {
    names = []
  }
  return names.filter((n) => readFileSync(path.join(dir, n), 'utf8').includes('"entrypoint":"cli"')).map((n) => n.slice(0, -6)).sort()
}

function repairAndUndo(home: string, check: (r: Report) => void): void {
  const before = treeBytes(home)
  const rep = run(home, ['repair', '--yes', path.join(home, '.claude')])
  assert.equal(rep.exitCode & 1, 1, JSON.stringify(rep.chats.map((c) => [c.id, c.repair])))
  check(rep)
  const undo = spawnSync(process.execPath, [BIN, 'undo', rep.repairId!, '--json'], {encoding: 'utf8', env: {...process.env, HOME: home, XDG_STATE_HOME: path.join(home, '.state')}})
  assert.equal(undo.status, 0, undo.stdout + undo.stderr)
  const after = treeBytes(home)
  for (const [k, v] of before) if (!k.startsWith('.state')) assert.ok(after.get(k)?.equals(v), `undo puts back every byte of ${k}`)
  assert.deepEqual([...after.keys()].filter((k) => !k.startsWith('.state')).sort(), [...before.keys()].filter((k) => !k.startsWith('.state')).sort())
}

describe("Claude Code's registry (~/.claude.json, backups, project folders)", () => {
  it('the real home: the config is healthy; the print-mode session is not listed by the picker, and that is said as info', () => {
    const home = tempDir()
    try {
      copyClaudeHome(home)
      const r = run(home, ['scan', path.join(home, '.claude')])
      assert.equal(r.exitCode, 0)
      assert.equal(config(r), undefined, 'a healthy config with nothing to say is left out of the report')
      assert.deepEqual(pickerLists(home, '/home/dev/demo-app'), [B])
      const f = session(r, A).findings.find((x) => x.id === 'not-in-index')!
      assert.equal(f.severity, 'info')
      assert.match(f.message, new RegExp(`cd /home/dev/demo-app && claude --resume ${A}`))
      assert.equal(session(r, B).findings.some((x) => x.id === 'not-in-index'), false)
    } finally {
      cleanup(home)
    }
  })

  it('B09 global config truncated by concurrent writers: restored from the intact backup, not from the torn copies; undo restores every byte', () => {
    const home = tempDir()
    try {
      copyClaudeHome(home)
      const good = full(home)
      put(path.join(backups(home), '.claude.json.backup.1796115400000'), good, 1796115400000)
      put(path.join(backups(home), '.claude.json.corrupted.1796115500000'), good.subarray(0, 157), 1796115500000)
      put(path.join(home, '.claude.json'), good.subarray(0, 234), 1796115600000)
      assert.equal(claudeStarts(home), false)
      const r = run(home, ['scan', path.join(home, '.claude')])
      assert.equal(r.exitCode, 2)
      const c = config(r)
      assert.equal(c.status, 'repairable')
      assert.equal(c.winner, '.claude/backups/.claude.json.backup.1796115400000')
      assert.match(c.findings.find((f) => f.id === 'index-damaged')!.message, /truncated.*every Claude Code command stops on it.*1 project, 1 trusted/)
      assert.equal(session(r, B).status, 'repairable', 'every session is unresumable until the config is restored')
      repairAndUndo(home, (rep) => {
        assert.deepEqual(config(rep).actions?.map((a) => [a.type, a.from, a.to]), [
          ['preserve', '.claude.json', '.claude.json'],
          ['restore', '.claude/backups/.claude.json.backup.1796115400000', '.claude.json'],
        ])
        assert.ok(config(rep).repair?.warnings.some((w) => /what changed in \.claude\.json after it is lost/.test(w)))
        assert.ok(full(home).equals(good))
        assert.equal(claudeStarts(home), true)
        assert.equal(session(rep, B).repair?.outcome, 'repaired')
        assert.equal(run(home, ['scan', path.join(home, '.claude')]).exitCode, 0)
      })
    } finally {
      cleanup(home)
    }
  })

  it('B16 two complete config objects back to back: the later one is restored, byte for byte', () => {
    const home = tempDir()
    try {
      copyClaudeHome(home)
      const a = full(home)
      const b = Buffer.from(a.toString('utf8').replace('"numStartups": 1,', '"numStartups": 2,'))
      assert.notDeepEqual(a, b)
      put(path.join(home, '.claude.json'), Buffer.concat([a, b]), 1796115600000)
      const r = run(home, ['scan', path.join(home, '.claude')])
      assert.equal(config(r).winner, '.claude.json#2')
      repairAndUndo(home, () => {
        assert.ok(full(home).equals(b))
        assert.equal(claudeStarts(home), true)
      })
    } finally {
      cleanup(home)
    }
  })

  it('B28 a valid skeleton replaced the config and the recent backups are torn: the oldest, richest backup is restored', () => {
    const home = tempDir()
    try {
      copyClaudeHome(home)
      const good = full(home)
      const skeleton = readFileSync(path.join(backups(home), '.claude.json.backup.1796115411707'))
      put(path.join(backups(home), '.claude.json.backup.1796115100000'), good, 1796115100000)
      put(path.join(backups(home), '.claude.json.backup.1796115200000'), skeleton, 1796115200000)
      for (const [ms, pct] of [[1796115300000, 0.3], [1796115400000, 0.15], [1796115500000, 0.05]] as const) put(path.join(backups(home), `.claude.json.backup.${ms}`), good.subarray(0, Math.floor(good.length * pct)), ms)
      put(path.join(home, '.claude.json'), '{\n  "firstStartTime": "2026-12-01T08:56:50.000Z"\n}\n', 1796115600000)
      assert.equal(claudeStarts(home), true, 'it parses: only its emptiness tells')
      const r = run(home, ['scan', path.join(home, '.claude')])
      const c = config(r)
      assert.equal(c.status, 'repairable')
      assert.equal(c.winner, '.claude/backups/.claude.json.backup.1796115100000')
      assert.match(c.findings.find((f) => f.id === 'index-damaged')!.message, /first-run skeleton while/)
      repairAndUndo(home, () => assert.ok(full(home).equals(good)))
    } finally {
      cleanup(home)
    }
  })

  it('never silently the 84-byte first-run backup: a torn config with nothing richer is left for the manual cp the binary names', () => {
    const home = tempDir()
    try {
      copyClaudeHome(home)
      put(path.join(home, '.claude.json'), '{\n  "numStartups', 1796115600000)
      const before = treeBytes(home)
      const rep = run(home, ['repair', '--yes', path.join(home, '.claude')])
      const c = config(rep)
      assert.equal(c.repair?.outcome, 'manual')
      assert.match(c.repair?.message ?? '', /first-run skeleton: chatdoctor does not restore it by itself \(`cp -f ".*\.claude\.json\.backup\.1796115411707" ".*\.claude\.json"`/)
      const after = treeBytes(home)
      for (const [k, v] of before) if (!k.startsWith('.state')) assert.ok(after.get(k)?.equals(v))
    } finally {
      cleanup(home)
    }
  })

  it('refuses while a Claude Code session runs (its registry names a live pid)', () => {
    const home = tempDir()
    try {
      copyClaudeHome(home)
      const good = full(home)
      put(path.join(backups(home), '.claude.json.backup.1796115400000'), good, 1796115400000)
      put(path.join(home, '.claude.json'), good.subarray(0, 234), 1796115600000)
      mkdirSync(path.join(home, '.claude', 'sessions'), {recursive: true})
      writeFileSync(path.join(home, '.claude', 'sessions', `${process.pid}.json`), JSON.stringify({pid: process.pid, sessionId: B}))
      const rep = run(home, ['repair', '--yes', path.join(home, '.claude')])
      assert.equal(config(rep).repair?.outcome, 'refused')
      assert.match(config(rep).repair?.message ?? '', /a Claude Code session runs/)
      assert.ok(full(home).equals(good.subarray(0, 234)))
    } finally {
      cleanup(home)
    }
  })

  it('on disk, not listed: a log in a project folder its cwd does not encode to is found and named, with where Claude Code looks', () => {
    const home = tempDir()
    try {
      copyClaudeHome(home)
      const from = path.join(home, '.claude', 'projects', SLUG)
      const to = path.join(home, '.claude', 'projects', '-home-dev-old-name')
      mkdirSync(to)
      renameSync(path.join(from, `${B}.jsonl`), path.join(to, `${B}.jsonl`))
      assert.deepEqual(pickerLists(home, '/home/dev/demo-app'), [])
      const r = run(home, ['scan', path.join(home, '.claude')])
      const f = session(r, B).findings.find((x) => x.id === 'not-in-index')!
      assert.equal(f.severity, 'warning')
      assert.match(f.message, /lies in projects\/-home-dev-old-name\/, but Claude Code looks for the sessions of \/home\/dev\/demo-app in projects\/-home-dev-demo-app\//)
    } finally {
      cleanup(home)
    }
  })

  it('B41 a stale legacy session index beside intact logs: reported, not used by 2.1.328, never written', () => {
    const home = tempDir()
    try {
      copyClaudeHome(home)
      const idx = path.join(home, '.claude', 'projects', SLUG, 'sessions-index.json')
      writeFileSync(idx, JSON.stringify({version: 1, entries: [{sessionId: A, messageCount: 0}]}))
      const before = readFileSync(idx)
      const r = run(home, ['scan', path.join(home, '.claude')])
      const f = config(r).findings.find((x) => x.id === 'index-stale')!
      assert.match(f.message, /lists 1 of the 2 logs in its folder \(1 not listed\)/)
      run(home, ['repair', '--yes', path.join(home, '.claude')])
      assert.ok(readFileSync(idx).equals(before))
    } finally {
      cleanup(home)
    }
  })

  it('B42 the legacy index survives but the logs are gone: content missing, prompts in history.jsonl counted, the index never rebuilt to empty', () => {
    const home = tempDir()
    try {
      copyClaudeHome(home)
      const dir = path.join(home, '.claude', 'projects', SLUG)
      const ids = Array.from({length: 12}, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`)
      writeFileSync(path.join(dir, 'sessions-index.json'), JSON.stringify({version: 1, entries: ids.map((sessionId) => ({sessionId, messageCount: 4}))}))
      for (const id of [A, B]) renameSync(path.join(dir, `${id}.jsonl`), path.join(home, `${id}.jsonl.gone`))
      const before = readFileSync(path.join(dir, 'sessions-index.json'))
      const r = run(home, ['scan', path.join(home, '.claude')])
      const c = config(r)
      assert.equal(c.status, 'degraded')
      const f = c.findings.find((x) => x.id === 'index-entry-missing')!
      assert.match(f.message, /lists 12 sessions whose logs are gone.*prompts? typed in that project survive in history\.jsonl.*never rebuilds this index/)
      run(home, ['repair', '--yes', path.join(home, '.claude')])
      assert.ok(readFileSync(path.join(dir, 'sessions-index.json')).equals(before))
    } finally {
      cleanup(home)
    }
  })
})
