/**
 * The layers of src/ (docs/architecture.md): imports only point down, and no module imports itself back
 * through others, type-only imports included (an `import type` cycle still ties the modules' types to each
 * other). The graph is dependency-cruiser's over the TypeScript sources.
 *
 * Layers, bottom up: model/ (the data model and the adapter contract); the building blocks that know no agent
 * (classify, json, salvage, archive, fsio, rank, sqlite); formats/ (the registry and the adapters); pipeline/; render/;
 * cli/; commands/ and hooks/, and beside them api/ (the library entry). Inside formats/, an agent's folder
 * imports no other agent's folder, and a family folder (code a family of formats shares) imports its members
 * only through its member lists (`<family>/dialects.ts`, and `<family>/claims.ts` for what discovery reads of the
 * members); the registry, formats/registry.ts, names every adapter.
 */
import assert from 'node:assert/strict'
import {test} from 'node:test'
import {cyclesOf, importGraph, type Edge} from './helpers/import-graph.js'

const BLOCKS = ['classify', 'json', 'salvage', 'archive', 'fsio', 'rank', 'sqlite', 'snapshot']

/** The layer of a module under src/ (higher may import lower), and its folder inside formats/. */
function layerOf(file: string): {rank: number; name: string; format?: string} {
  const p = file.replace(/^src\//, '')
  if (p.startsWith('commands/') || p.startsWith('hooks/')) return {rank: 6, name: 'commands'}
  if (p.startsWith('api/')) return {rank: 6, name: 'api'}
  if (p.startsWith('cli/')) return {rank: 5, name: 'cli'}
  if (p.startsWith('lib/render/')) return {rank: 4, name: 'render'}
  if (p.startsWith('lib/pipeline/')) return {rank: 3, name: 'pipeline'}
  if (p.startsWith('lib/formats/')) return {rank: 2, name: 'formats', format: p.split('/')[2]}
  const block = BLOCKS.find((b) => p.startsWith(`lib/${b}/`))
  if (block) return {rank: 1, name: block}
  if (p.startsWith('lib/model/')) return {rank: 0, name: 'model'}
  return {rank: -1, name: 'outside the layers'}
}

/**
 * The imports that break the layering. `agents` names the folders of formats/ that are agents (the others,
 * like `jsonl`, are family folders).
 */
function layerViolations(edges: readonly Edge[], agents: ReadonlySet<string>): string[] {
  const out: string[] = []
  for (const e of edges) {
    const a = layerOf(e.from)
    const b = layerOf(e.to)
    const why = (w: string) => out.push(`${e.from} → ${e.to}${e.typeOnly ? ' (type-only)' : ''}: ${w}`)
    if (a.rank < 0) why('the importing module is outside the layers')
    else if (b.rank < 0) why('the imported module is outside the layers')
    else if (b.rank > a.rank) why(`${a.name} may not import ${b.name} (a higher layer)`)
    else if (a.name === 'formats' && b.name === 'formats' && a.format !== b.format && a.format !== 'registry.ts' && !/^src\/lib\/formats\/[^/]+\/(?:dialects|claims)\.ts$/.test(e.from)) {
      if (agents.has(b.format!)) why(`only the registry (formats/registry.ts) and a family's member lists (<family>/dialects.ts, <family>/claims.ts) import an agent's folder (${b.format}/)`)
    }
  }
  return out
}

test('no import cycle in src/, type-only imports included', async () => {
  const edges = await importGraph('src')
  assert.ok(edges.length > 200, `the graph has the imports of src/ (${edges.length})`)
  assert.ok(edges.some((e) => e.typeOnly), 'type-only imports are in the graph')
  assert.deepEqual(cyclesOf(edges).map((c) => c.join(' → ')), [])
})

test('the cycle check fails on a cycle closed by a type-only import (fixture)', async () => {
  const edges = await importGraph('test/fixtures/import-cycle')
  assert.deepEqual(edges.map((e) => `${e.from} → ${e.to} ${e.typeOnly}`).sort(), [
    'test/fixtures/import-cycle/a.ts → test/fixtures/import-cycle/b.ts true',
    'test/fixtures/import-cycle/b.ts → test/fixtures/import-cycle/a.ts true',
  ])
  assert.deepEqual(cyclesOf(edges), [['test/fixtures/import-cycle/a.ts', 'test/fixtures/import-cycle/b.ts', 'test/fixtures/import-cycle/a.ts']])
})

test('imports in src/ only point down the layers; no agent imports another agent\'s folder', async () => {
  const edges = await importGraph('src')
  const agents = new Set(edges.filter((e) => e.from === 'src/lib/formats/registry.ts' && e.to.startsWith('src/lib/formats/')).map((e) => e.to.split('/')[3]))
  assert.ok(agents.size >= 4, `the registry imports the agents (${[...agents].join(', ')})`)
  assert.deepEqual(layerViolations(edges, agents), [])
})

test('the layer check fails on an import up the layers and on one agent importing another (synthetic graph)', () => {
  const e = (from: string, to: string): Edge => ({from, to, typeOnly: false})
  const agents = new Set(['a', 'b'])
  assert.deepEqual(layerViolations([e('src/lib/model/x.ts', 'src/lib/pipeline/y.ts')], agents), ['src/lib/model/x.ts → src/lib/pipeline/y.ts: model may not import pipeline (a higher layer)'])
  assert.equal(layerViolations([e('src/lib/formats/a/x.ts', 'src/lib/pipeline/scan.ts')], agents).length, 1)
  assert.equal(layerViolations([e('src/lib/formats/a/x.ts', 'src/lib/formats/b/y.ts')], agents).length, 1)
  assert.equal(layerViolations([e('src/lib/formats/fam/x.ts', 'src/lib/formats/a/y.ts')], agents).length, 1)
  assert.deepEqual(layerViolations([e('src/lib/formats/fam/dialects.ts', 'src/lib/formats/a/y.ts')], agents), [])
  assert.deepEqual(layerViolations([e('src/lib/formats/fam/claims.ts', 'src/lib/formats/a/y.ts')], agents), [])
  assert.deepEqual(layerViolations([e('src/lib/formats/registry.ts', 'src/lib/formats/a/index.ts'), e('src/lib/formats/a/x.ts', 'src/lib/formats/fam/y.ts'), e('src/lib/pipeline/x.ts', 'src/lib/model/y.ts'), e('src/commands/x.ts', 'src/lib/render/y.ts')], agents), [])
})
