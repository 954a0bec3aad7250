/**
 * Benchmark baseline "the agents' own recovery loop": for every chat dir (a folder holding `run-state.json*`
 * files), try the primary, then `.bak`, then the leftover temps newest-first (by mtime); the first that
 * `JSON.parse`s wins. This is how Codebuff's loader and most agents pick a state to resume. Prints
 * `{chats, recovered, lost, maxRSS}` on stdout.
 */
import {readdirSync, readFileSync, statSync} from 'node:fs'
import path from 'node:path'

let chats = 0
let recovered = 0
let lost = 0
function tryParse(p: string): boolean {
  try {
    JSON.parse(readFileSync(p, 'utf8'))
    return true
  } catch {
    return false
  }
}
function walk(dir: string): void {
  const entries = readdirSync(dir, {withFileTypes: true})
  const names = entries.map((e) => e.name)
  if (names.some((n) => n.startsWith('run-state.json'))) {
    chats++
    const temps = names
      .filter((n) => /^run-state\.json\..*\.tmp$/.test(n))
      .map((n) => ({n, t: statSync(path.join(dir, n)).mtimeMs}))
      .sort((a, b) => b.t - a.t)
      .map((x) => x.n)
    const order = ['run-state.json', 'run-state.json.bak', ...temps].filter((n) => names.includes(n))
    if (order.some((n) => tryParse(path.join(dir, n)))) recovered++
    else lost++
    return
  }
  for (const e of entries) if (e.isDirectory()) walk(path.join(dir, e.name))
}
for (const d of process.argv.slice(2)) walk(d)
process.stdout.write(JSON.stringify({chats, recovered, lost, maxRSS: process.resourceUsage().maxRSS * 1024}) + '\n')
