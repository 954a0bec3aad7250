/**
 * Loaded with `node --import` into a benchmarked child when `/usr/bin/time` is missing: writes the child's
 * peak RSS (KiB) and CPU time (user and sys seconds) to the file named by `BENCH_RSS_OUT` when it exits, in
 * the order `/usr/bin/time -f '%M %U %S'` writes them.
 */
import {writeFileSync} from 'node:fs'

const out = process.env.BENCH_RSS_OUT
if (out) {
  process.on('exit', () => {
    const u = process.resourceUsage()
    writeFileSync(out, `${u.maxRSS} ${u.userCPUTime / 1e6} ${u.systemCPUTime / 1e6}`)
  })
}
