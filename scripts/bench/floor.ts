/**
 * Benchmark baseline "floor": the least any checker must do. Walks the folders given, reads every
 * generation file (`run-state.json*`, `chat-messages.json*`, `chat-meta.json`) and `JSON.parse`s it, nothing
 * else. Prints `{files, bytes, failed, maxRSS}` (maxRSS in bytes) on stdout.
 */
import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'

const GENERATION = /^(?:run-state\.json|chat-messages\.json|chat-meta\.json)/

let files = 0
let bytes = 0
let failed = 0
function walk(dir: string): void {
  for (const e of readdirSync(dir, {withFileTypes: true})) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) walk(p)
    else if (e.isFile() && GENERATION.test(e.name)) {
      const text = readFileSync(p, 'utf8')
      files++
      bytes += text.length
      try {
        JSON.parse(text)
      } catch {
        failed++
      }
    }
  }
}
for (const d of process.argv.slice(2)) walk(d)
process.stdout.write(JSON.stringify({files, bytes, failed, maxRSS: process.resourceUsage().maxRSS * 1024}) + '\n')
