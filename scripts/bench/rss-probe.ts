/**
 * Loaded with `node --import` into a benchmarked child when `/usr/bin/time` is missing: writes the child's
 * peak RSS (bytes) to the file named by `BENCH_RSS_OUT` when it exits.
 */
import {writeFileSync} from 'node:fs'

const out = process.env.BENCH_RSS_OUT
if (out) process.on('exit', () => writeFileSync(out, String(process.resourceUsage().maxRSS * 1024)))
