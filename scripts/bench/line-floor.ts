/**
 * Benchmark baseline "streaming line floor" for JSON-lines logs: walks the folders given and reads every
 * `*.jsonl` file line by line (`readline` over a read stream) and `JSON.parse`s each line, keeping nothing.
 * Prints `{files, lines, failed, maxRSS}` (maxRSS in bytes) on stdout.
 */
import {createReadStream, readdirSync} from 'node:fs'
import path from 'node:path'
import {createInterface} from 'node:readline'

let files = 0
let lines = 0
let failed = 0

async function readLog(p: string): Promise<void> {
  files++
  const rl = createInterface({input: createReadStream(p), crlfDelay: Infinity})
  for await (const line of rl) {
    if (line.length === 0) continue
    lines++
    try {
      JSON.parse(line)
    } catch {
      failed++
    }
  }
}

async function walk(dir: string): Promise<void> {
  for (const e of readdirSync(dir, {withFileTypes: true})) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) await walk(p)
    else if (e.isFile() && e.name.endsWith('.jsonl')) await readLog(p)
  }
}

for (const d of process.argv.slice(2)) await walk(d)
process.stdout.write(JSON.stringify({files, lines, failed, maxRSS: process.resourceUsage().maxRSS * 1024}) + '\n')
