/**
 * A chat the agent's store lost altogether, brought back through the agent's own importer (`ChatPlan.agentImport`):
 * the document is written durably into the state folder (`imports/<repair id>/<name>`, mode 0600, through the
 * write seam), then the agent's command runs on it, in the chat's own working folder, when the command is on
 * PATH, bounded by a timeout. chatdoctor writes nothing into the agent's store itself: what the importer does is
 * the agent's, and an importer that fails or times out is reported with the exact command to run again (the
 * document stays where it was written). Without the command on PATH, the command is printed. Names no agent.
 */
import {spawnSync} from 'node:child_process'
import {accessSync, constants, statSync} from 'node:fs'
import path from 'node:path'
import {durableWrite} from '../fsio/durable-write.js'
import type {FileSystem} from '../fsio/fs.js'
import {shellWord} from '../fsio/paths.js'
import type {AgentImport} from '../model/adapter.js'
import {mkdirs} from '../snapshot/key.js'

/** How long the agent's importer may run, in ms. */
export const IMPORT_TIMEOUT_MS = 60_000

/** What running an import came to. */
export interface ImportOutcome {
  outcome: 'repaired' | 'failed' | 'manual'
  message: string
  /** The document written, absolute. */
  file: string | null
}

/** Runs a command: its exit status (null on a timeout or a start failure), its output, whether it timed out. */
export type CommandRunner = (argv: string[], opts: {cwd: string | undefined; timeoutMs: number; env: NodeJS.ProcessEnv}) => {status: number | null; output: string; timedOut: boolean; error?: string}

const defaultRunner: CommandRunner = (argv, opts) => {
  const r = spawnSync(argv[0], argv.slice(1), {cwd: opts.cwd, env: opts.env, timeout: opts.timeoutMs, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 20})
  const timedOut = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT'
  return {status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim(), timedOut, ...(r.error && !timedOut ? {error: r.error.message} : {})}
}

/** The absolute path of an executable `name` on `PATH`, or null. */
export function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  if (name.includes('/')) return null
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '' || !path.isAbsolute(dir)) continue
    const p = path.join(dir, name)
    try {
      if (!statSync(p).isFile()) continue
      accessSync(p, constants.X_OK)
      return p
    } catch {
      continue
    }
  }
  return null
}

/** Writes the document and runs the agent's importer on it. Never throws. */
export async function runAgentImport(imp: AgentImport, opts: {fs: FileSystem; stateDir: string; repairId: string; env: NodeJS.ProcessEnv; run?: CommandRunner; timeoutMs?: number}): Promise<ImportOutcome> {
  const dir = path.join(opts.stateDir, 'imports', opts.repairId)
  const file = path.join(dir, path.basename(imp.name))
  try {
    await mkdirs(opts.fs, dir)
    await durableWrite(opts.fs, file, imp.data, {tag: 'import', mode: 0o600, expect: 'absent'})
  } catch (e) {
    return {outcome: 'failed', message: `could not write the document for ${imp.argv[0]} import (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); nothing written`, file: null}
  }
  const argv = imp.argv.map((a) => (a === '{file}' ? file : a))
  const command = `${imp.cwd ? `cd ${shellWord(imp.cwd)} && ` : ''}${argv.map(shellWord).join(' ')}`
  const exe = onPath(argv[0], opts.env)
  if (exe === null) return {outcome: 'manual', message: `${imp.what}: written to ${file}; ${argv[0]} is not on PATH, so import it yourself: ${command}`, file}
  let cwd: string | undefined
  if (imp.cwd !== null) {
    try {
      if (statSync(imp.cwd).isDirectory()) cwd = imp.cwd
    } catch {
      // The chat's folder is gone: the importer files it under the project of wherever it runs.
    }
    if (cwd === undefined) return {outcome: 'manual', message: `${imp.what}: written to ${file}; its folder ${imp.cwd} is gone, so import it yourself from the project it belongs to: ${argv.map(shellWord).join(' ')}`, file}
  }
  const timeoutMs = opts.timeoutMs ?? IMPORT_TIMEOUT_MS
  const r = (opts.run ?? defaultRunner)([exe, ...argv.slice(1)], {cwd, timeoutMs, env: opts.env})
  const said = r.output.split('\n').filter(Boolean).slice(-1)[0]?.slice(0, 200)
  if (r.status === 0) return {outcome: 'repaired', message: `${imp.what}: imported with ${command}${said ? ` (${argv[0]}: ${said})` : ''}`, file}
  const why = r.timedOut ? `did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped` : r.error ? `could not start (${r.error})` : `exited with status ${r.status}${said ? ` (${said})` : ''}`
  return {outcome: 'failed', message: `${imp.what}: ${argv[0]} import ${why}; chatdoctor wrote nothing into the store itself (the importer adds what it does not hold yet, so running it again completes it): ${command}`, file}
}
