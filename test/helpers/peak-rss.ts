/**
 * The built CLI in a child process with its peak resident set size: a preloaded hook writes
 * `process.resourceUsage().maxRSS` (the kernel's high-water mark, what /proc/<pid>/status calls VmHWM) when the
 * process exits, so memory bounds are measured on the real command, not on the test's own process.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {REPO_ROOT, inheritedEnv, type CliResult} from './fixtures.js'
import {runAsync} from './cli-async.js'

/** Runs `bin/run.js args` and returns its result with `peakRssBytes`. `scratch` is a folder for the hook's files. */
export async function runCliPeakRss(args: string[], scratch: string, opts: {env?: NodeJS.ProcessEnv; cwd?: string} = {}): Promise<CliResult & {peakRssBytes: number}> {
  const hook = path.join(scratch, 'peak-rss-hook.cjs')
  const out = path.join(scratch, `peak-rss-${process.hrtime.bigint()}.txt`)
  writeFileSync(hook, `process.on('exit', () => require('node:fs').writeFileSync(process.env.CHATDOCTOR_TEST_PEAK_RSS, String(process.resourceUsage().maxRSS * 1024)))\n`)
  const r = await runAsync(process.execPath, ['--require', hook, path.join(REPO_ROOT, 'bin', 'run.js'), ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
    env: {...inheritedEnv(), NO_COLOR: '1', ...opts.env, CHATDOCTOR_TEST_PEAK_RSS: out},
  })
  return {...r, peakRssBytes: Number(readFileSync(out, 'utf8'))}
}
