/**
 * The import graph of a source tree, by dependency-cruiser (TypeScript sources; type-only imports counted:
 * `tsPreCompilationDeps`, so an `import type` that closes a loop is a cycle too). Used by the layering
 * tests (`test/layers.test.ts`).
 */
import path from 'node:path'
import {cruise} from 'dependency-cruiser'
import {REPO_ROOT} from './fixtures.js'

/** One import: from a module to a module, both relative to the repository root, and whether it is type-only. */
export interface Edge {
  from: string
  to: string
  typeOnly: boolean
}

/**
 * Every import between the `.ts` files under `dir` (relative to the repository root), type-only imports
 * included. Imports of packages and Node's modules are left out.
 */
export async function importGraph(dir: string): Promise<Edge[]> {
  const result = await cruise(
    [dir],
    {tsPreCompilationDeps: true, baseDir: REPO_ROOT, doNotFollow: {path: 'node_modules'}, exclude: {path: '\\.d\\.ts$'}},
    {extensionAlias: {'.js': ['.ts', '.js']}},
  )
  const out = result.output
  if (typeof out === 'string') throw new Error('dependency-cruiser gave text instead of a result')
  const edges: Edge[] = []
  for (const m of out.modules) {
    for (const d of m.dependencies) {
      if (d.coreModule || d.couldNotResolve || !d.resolved.startsWith(dir.split(path.sep).join('/'))) continue
      edges.push({from: m.source, to: d.resolved, typeOnly: d.dependencyTypes.includes('type-only')})
    }
  }
  return edges
}

/**
 * The cycles of a graph: each a list of modules `a → b → … → a` (first module repeated at the end), one
 * per strongly connected component of more than one module (or a module importing itself), found by
 * Tarjan's algorithm and walked back to a loop through the component.
 */
export function cyclesOf(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>()
  for (const e of edges) {
    next.set(e.from, [...(next.get(e.from) ?? []), e.to])
    if (!next.has(e.to)) next.set(e.to, [])
  }
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const on = new Set<string>()
  const comps: string[][] = []
  const strong = (v: string) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    on.add(v)
    for (const w of next.get(v)!) {
      if (!idx.has(w)) {
        strong(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = []
      let w: string
      do {
        w = stack.pop()!
        on.delete(w)
        comp.push(w)
      } while (w !== v)
      if (comp.length > 1 || next.get(v)!.includes(v)) comps.push(comp)
    }
  }
  for (const v of [...next.keys()].sort()) if (!idx.has(v)) strong(v)
  return comps.map((comp) => loopThrough(comp.sort(), next))
}

/** A loop through a strongly connected component, from its first module back to it (breadth-first). */
function loopThrough(comp: string[], next: Map<string, string[]>): string[] {
  const inside = new Set(comp)
  const start = comp[0]
  const prev = new Map<string, string>()
  const queue = [start]
  while (queue.length > 0) {
    const v = queue.shift()!
    for (const w of next.get(v)!) {
      if (!inside.has(w)) continue
      if (w === start) {
        const loop = [start]
        for (let x: string | undefined = v; x !== undefined && x !== start; x = prev.get(x)) loop.splice(1, 0, x)
        return [...loop, start]
      }
      if (!prev.has(w)) {
        prev.set(w, v)
        queue.push(w)
      }
    }
  }
  return [...comp, start]
}
