/**
 * Benchmark baseline "`jq empty` on every file", as people check JSON from a shell: one `jq empty FILE`
 * process per generation file (jq reads several files as one concatenated stream, so one call per file is
 * the only correct use). With `--every N`, only every N-th chat dir is checked (a sample; the harness scales
 * the time). Prints `{files, bytes, failed}`.
 */
import {spawnSync} from 'node:child_process'
import {readdirSync, statSync} from 'node:fs'
import path from 'node:path'

const GENERATION = /^(?:run-state\.json|chat-messages\.json|chat-meta\.json)/
const args = process.argv.slice(2)
let every = 1
if (args[0] === '--every') {
  every = Number(args[1])
  args.splice(0, 2)
}
let files = 0
let bytes = 0
let failed = 0
let chat = 0
function walk(dir: string): void {
  const entries = readdirSync(dir, {withFileTypes: true}).sort((a, b) => (a.name < b.name ? -1 : 1))
  const gens = entries.filter((e) => e.isFile() && GENERATION.test(e.name))
  if (gens.length > 0) {
    if (chat++ % every !== 0) return
    for (const e of gens) {
      const p = path.join(dir, e.name)
      files++
      bytes += statSync(p).size
      if (spawnSync('jq', ['empty', p], {stdio: 'ignore'}).status !== 0) failed++
    }
    return
  }
  for (const e of entries) if (e.isDirectory()) walk(path.join(dir, e.name))
}
for (const d of args) walk(d)
process.stdout.write(JSON.stringify({files, bytes, failed}) + '\n')
