/**
 * A fake home for the snapshot and guard round trips: the environment that points every agent and chatdoctor
 * into it, the environment a command run by an agent gets, the snapshot store's files, and waiting for a
 * detached hook to store one.
 */
import {existsSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {inheritedEnv, tempDir} from './fixtures.js'

/** A fake home and the environment that points every agent and chatdoctor into it. */
export function fakeHome(prefix = 'chatdoctor-guard-'): {home: string; env: NodeJS.ProcessEnv} {
  const home = tempDir(prefix)
  return {home, env: homeVars(home)}
}

/** HOME and the XDG state, config and data folders under `home` (nothing else). */
function homeVars(home: string): NodeJS.ProcessEnv {
  return {HOME: home, XDG_STATE_HOME: path.join(home, '.local', 'state'), XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share')}
}

/** The test's environment with HOME and the XDG folders under `home`, and nothing pointing elsewhere (`ELSEWHERE`). */
export function homeEnv(home: string): NodeJS.ProcessEnv {
  return agentEnv(homeVars(home))
}

/** Variables of the test's environment that would point an agent or chatdoctor elsewhere. */
export const ELSEWHERE = ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'CHATDOCTOR_SNAPSHOT_KEY', 'KILO_DB']

/** The environment a command run by an agent gets: the test's, without anything pointing elsewhere. */
export function agentEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const e = {...inheritedEnv(), ...env}
  for (const k of ELSEWHERE) delete e[k]
  return e
}

/** The store's snapshot files (under `$XDG_STATE_HOME/chatdoctor/snapshots/`). */
export function storeFiles(env: NodeJS.ProcessEnv): string[] {
  const root = path.join(env.XDG_STATE_HOME!, 'chatdoctor', 'snapshots')
  if (!existsSync(root)) return []
  return readdirSync(root).flatMap((d) => readdirSync(path.join(root, d)).filter((n) => n.endsWith('.snap')).map((n) => path.join(root, d, n)))
}

/** Waits until `cond` holds (a detached hook has stored its snapshot), at most `ms`. */
export async function waitFor(cond: () => boolean, ms = 20000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 100))
  }
}
