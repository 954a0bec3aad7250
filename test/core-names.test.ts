/**
 * The core names no agent: no file under src/ outside src/lib/formats/ (the registry, formats/registry.ts,
 * excepted) spells an agent's name, file name or record key in its code (identifiers, strings, templates,
 * regular expressions; comments may explain). The forbidden words are each adapter's `vocabulary`, each
 * recognised-but-unsupported agent's (`formats/unsupported/`) and the names of the agents chatdoctor is to learn next.
 */
import assert from 'node:assert/strict'
import {test} from 'node:test'
import {ADAPTERS, UNSUPPORTED_AGENTS} from '../src/lib/formats/index.js'
import {REPO_ROOT} from './helpers/fixtures.js'
import {codeTokens, holds, nameHits, sourceFiles, wordsOf} from './helpers/core-names.js'

/** Agents chatdoctor is to learn next: their names are kept out of the core before they arrive. */
const NEXT_AGENTS = ['gemini', 'cline', 'roo', 'kilo']

const vocabulary = [...new Set([...ADAPTERS.flatMap((a) => [a.name, ...a.vocabulary]), ...UNSUPPORTED_AGENTS.flatMap((a) => a.vocabulary), ...NEXT_AGENTS])]

test('every adapter declares its vocabulary: its name, file names and record keys', () => {
  for (const a of UNSUPPORTED_AGENTS) assert.ok(a.vocabulary.length >= 1 && a.vocabulary.every((w) => w.trim() === w && w !== ''), `${a.name} declares its words`)
  for (const a of ADAPTERS) {
    assert.ok(a.vocabulary.length >= 3, `${a.name} declares its words`)
    // Each word must be one the check can see: a whole word, or a name or key as written.
    for (const w of a.vocabulary) assert.ok(w.trim() === w && w !== '', `${a.name}: ${JSON.stringify(w)}`)
  }
})

test('no file of the core spells an agent\'s name, file name or record key', () => {
  const core = sourceFiles(REPO_ROOT, 'src').filter((f) => !f.startsWith('src/lib/formats/'))
  assert.ok(core.length > 50, `the core's files are found (${core.length})`)
  const hits = nameHits(REPO_ROOT, core, vocabulary)
  assert.deepEqual(hits.map((h) => `${h.file}:${h.line}: ${h.word} in ${h.text}`), [])
})

test('the check sees names in identifiers, strings, templates and regular expressions, not in comments', () => {
  const source = [
    '// codebuff in a comment is fine',
    '/** run-state.json in a doc comment too */',
    'const isCodebuffDir = 1',
    "const f = 'run-state.json'",
    'const t = `${x}/.claude/projects`',
    'const r = /codex|rollout/i',
    "const ok = 'the user declined'",
  ].join('\n')
  const texts = codeTokens(source).map((t) => t.text)
  const found = (w: string) => texts.filter((t) => holds(t, w)).length
  assert.equal(found('codebuff'), 1, 'identifier')
  assert.equal(found('run-state.json'), 1, 'string')
  assert.equal(found('claude'), 1, 'template')
  assert.equal(found('codex'), 1, 'regular expression')
  assert.equal(found('cline'), 0, '"declined" is not the word "cline"')
  assert.deepEqual(wordsOf('planCodebuffChat'), ['plan', 'codebuff', 'chat'])
  assert.deepEqual(wordsOf('OPENCODE_PROFILE'), ['opencode', 'profile'])
})

test("scan --help names every adapter's roots (the help is built from the registry)", async () => {
  const {default: Scan} = await import('../src/commands/scan.js')
  for (const a of ADAPTERS) assert.ok(String(Scan.description).replace(/\s+/g, ' ').includes(a.help.roots), `scan --help names ${a.name}'s roots`)
})

test('the finding kinds: one closed list, every id declared once (a family\'s shared kinds identically)', async () => {
  const {findingKinds} = await import('../src/lib/formats/index.js')
  const {CORE_FINDING_KINDS} = await import('../src/lib/model/findings.js')
  const kinds = findingKinds()
  assert.equal(new Set(kinds.map((k) => k.id)).size, kinds.length)
  const seen = new Map<string, string>(Object.entries(CORE_FINDING_KINDS).map(([id, k]) => [id, JSON.stringify(k)]))
  for (const a of ADAPTERS) {
    for (const [id, k] of Object.entries(a.findingKinds ?? {})) {
      const prev = seen.get(id)
      assert.ok(prev === undefined || prev === JSON.stringify(k), `${a.name} redefines ${id}`)
      seen.set(id, JSON.stringify(k))
    }
  }
  assert.deepEqual(kinds.map((k) => k.id).sort(), [...seen.keys()].sort())
})
