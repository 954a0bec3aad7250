/**
 * Scenario tests in the e2fsprogs style: each scenario builds an input tree from the real Codebuff chats by
 * code (copy, damage, set mtimes), runs the BUILT CLI (`chatdoctor scan --json --verbose`) as a user would, and compares
 * a normalised projection of the report with `test/scenarios/<name>.expect.json`.
 *
 * Regenerate the expect files with `UPDATE_EXPECT=1 npm test`, then review every changed value by hand against
 * the classification rules: an expectation copied from buggy output is a defect. Every scenario also checks that
 * the scan is read-only (tree hash with content and mtimes before = after) and that the exit status equals the
 * report's `exitCode`.
 */
import assert from 'node:assert/strict'
import {existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {after, describe, test} from 'node:test'
import {runCliAsync} from './helpers/cli-async.js'
import {REPO_ROOT, cleanup, hashTree, tempDir} from './helpers/fixtures.js'
import {SCENARIOS} from './helpers/scenarios.js'

const EXPECT_DIR = path.join(REPO_ROOT, 'test', 'scenarios')
const UPDATE = process.env.UPDATE_EXPECT === '1'

/** The part of a report a scenario pins down; the scan root is written `<root>` wherever it appears. */
function project(report: Record<string, unknown>, root: string): unknown {
  const r = report as {
    exitCode: number
    summary: unknown
    errors: Array<{path: string; message: string}>
    skipped: Array<{path: string; reason: string}>
    chats: Array<{
      path: string
      status: string
      winner: string | null
      transcriptTurns: number | null
      contextTurns: number | null
      generations: Array<{file: string; role: string; class: string | null; reasons: string[]; turns: number | null}>
      ranking: Array<{file: string; rank: number; turns: number; lostBecause: string | null}>
      findings: Array<{id: string; severity: string; file: string | null}>
    }>
  }
  const projection = {
    exitCode: r.exitCode,
    summary: r.summary,
    errors: r.errors,
    skipped: r.skipped,
    chats: r.chats.map((c) => ({
      path: c.path,
      status: c.status,
      winner: c.winner,
      transcriptTurns: c.transcriptTurns,
      contextTurns: c.contextTurns,
      generations: c.generations.map((g) => ({file: g.file, role: g.role, class: g.class, reasons: g.reasons, turns: g.turns})),
      ranking: c.ranking.map((e) => ({file: e.file, rank: e.rank, turns: e.turns, lostBecause: e.lostBecause})),
      findings: c.findings.map((f) => ({id: f.id, severity: f.severity, file: f.file})),
    })),
  }
  return JSON.parse(JSON.stringify(projection).split(root).join('<root>'))
}

const roots: string[] = []
after(() => roots.forEach(cleanup))

describe('scenarios: scan --json on trees built from the real chats', {concurrency: 2}, () => {
  test('every expect file belongs to a scenario', {skip: UPDATE}, () => {
    const names = new Set(SCENARIOS.map((s) => `${s.name}.expect.json`))
    for (const f of readdirSafe(EXPECT_DIR)) assert.ok(names.has(f), `stale expect file ${f}`)
  })
  for (const s of SCENARIOS) {
    test(s.name, async () => {
      const root = realpathSync(tempDir(`chatdoctor-${s.name}-`))
      roots.push(root)
      const args = s.build(root)
      const before = hashTree(root)
      // --verbose: every generation measured (a plain scan leaves out embedded copies that cannot change the verdict).
      const r = await runCliAsync(['scan', '--json', '--verbose', ...args], {env: {HOME: root}})
      assert.deepEqual(hashTree(root), before, 'scan changed the tree (content, mtime or mode)')
      const report = JSON.parse(r.stdout) as {exitCode: number}
      assert.equal(r.status, report.exitCode, 'the exit status is the report exitCode')
      const got = project(report, root)
      const file = path.join(EXPECT_DIR, `${s.name}.expect.json`)
      if (UPDATE) {
        mkdirSync(EXPECT_DIR, {recursive: true})
        writeFileSync(file, JSON.stringify(got, null, 2) + '\n')
        return
      }
      assert.ok(existsSync(file), `no ${path.relative(REPO_ROOT, file)}: run with UPDATE_EXPECT=1 and review it`)
      assert.deepEqual(got, JSON.parse(readFileSync(file, 'utf8')))
    })
  }
})

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}
