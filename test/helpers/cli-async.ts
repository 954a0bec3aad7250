/**
 * The built CLI (or any program) in a child process, asynchronously, so independent CLI tests can run side by
 * side (each start of oclif costs ~0.5 s). Same contract as `runCli` in fixtures.ts.
 */
import {spawn} from 'node:child_process'
import path from 'node:path'
import {REPO_ROOT, inheritedEnv, type CliResult} from './fixtures.js'

export function runCliAsync(args: string[], opts: {env?: NodeJS.ProcessEnv; cwd?: string} = {}): Promise<CliResult> {
  return runAsync(process.execPath, [path.join(REPO_ROOT, 'bin', 'run.js'), ...args], {cwd: opts.cwd ?? REPO_ROOT, env: {...inheritedEnv(), NO_COLOR: '1', ...opts.env}})
}

/** Any program in a child process, its exit status and output collected (stdin closed). */
export function runAsync(cmd: string, args: string[], opts: {cwd: string; env: NodeJS.ProcessEnv}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe']})
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (b: Buffer) => out.push(b))
    child.stderr.on('data', (b: Buffer) => err.push(b))
    child.on('error', reject)
    child.on('close', (code) => resolve({status: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8')}))
  })
}
