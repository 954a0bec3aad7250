/**
 * Cline CLI's hook for `guard`: a file hook, `$CLINE_DIR/hooks/TaskComplete.sh` (default `~/.cline/hooks/`).
 * Cline CLI 3.x lists the files of its hook folders (`~/Documents/Cline/Hooks/`, `$CLINE_DIR/hooks/`, the
 * workspace's `.cline/hooks/`) named after an event, with any of its script extensions, and runs
 * `TaskComplete` on `agent_end` (a run that completed), detached, without waiting for it, with a JSON payload on
 * stdin: `hookName: "agent_end"`, `taskId` (the session's id), `sessionContext.rootSessionId`, `workspaceRoots`,
 * … A `.sh` file with a `#!/bin/sh` line runs as `sh <file>`. Sources: cline/cline
 * `sdk/packages/shared/src/storage/paths.ts` (`resolveHooksConfigSearchPaths`, `resolveClineDir`),
 * `sdk/packages/core/src/hooks/hook-file-config.ts` (`HookConfigFileName.TaskComplete` → `agent_end`, the
 * extensions), `sdk/packages/core/src/hooks/hook-file-hooks.ts` (the payload, detached runs, the interpreter
 * from the shebang), `sdk/examples/hooks/README.md`. `PreCompact` is not wired for file hooks, so there is no
 * hook before a compaction.
 *
 * The file is chatdoctor's whole: install writes it (a file of that name that is not chatdoctor's is never
 * replaced), uninstall removes it.
 */
import {realpathSync, statSync} from 'node:fs'
import path from 'node:path'
import type {AgentHook, HookCommand, HookInput, HookTarget} from '../../model/adapter.js'
import {ownedFileHook} from '../owned-file-hook/index.js'
import {clineDir, sessionsDir} from './layout.js'

export const HOOK_FILE = 'TaskComplete.sh'
const MARKER = '# chatdoctor snapshot hook for Cline CLI'
/** A session id as one folder name: no separators, no dot names (the hook input is hostile until checked). */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The hook file's text: a shell script handing its stdin to chatdoctor. */
export function hookScript(cmd: HookCommand): string {
  return ['#!/bin/sh', `${MARKER} (written by \`chatdoctor guard install cline\`; \`chatdoctor guard uninstall cline\` removes this file).`, "# Cline runs it after each completed run, with the session's hook payload as JSON on stdin.", `exec ${cmd.shell}`, ''].join('\n')
}

function isOurs(text: string): boolean {
  return text.split('\n', 3)[1]?.startsWith(MARKER) === true
}

export const clineHook: AgentHook = {
  source: 'cline/cline sdk/packages/core/src/hooks/hook-file-config.ts (TaskComplete → agent_end), sdk/packages/shared/src/storage/paths.ts (resolveHooksConfigSearchPaths: $CLINE_DIR/hooks), sdk/examples/hooks/README.md',
  // agent_end fires when the run completes; the conversation file may be rewritten a moment later.
  settleMs: 3000,
  stdin: true,
  configFile: (home, env) => path.join(clineDir(home, env), 'hooks', HOOK_FILE),
  ...ownedFileHook({file: HOOK_FILE, agent: 'cline', text: hookScript, isOurs, installed: 'file hook on TaskComplete', absent: 'no hook file', otherwise: (cmd) => `or add \`${cmd.shell}\` to it yourself`}),
  parseInput: parseClineHookInput,
}

/** The session a TaskComplete call names: `taskId` of the JSON on stdin, a folder of Cline's sessions dir. Never throws. */
export function parseClineHookInput(input: HookInput, home: string, env: NodeJS.ProcessEnv): HookTarget | {error: string} | {ignore: string} {
  let v: unknown
  try {
    v = JSON.parse(input.stdin)
  } catch {
    return {error: 'the hook input on stdin is not JSON (Cline passes a JSON object)'}
  }
  if (!isObj(v)) return {error: 'the hook input on stdin is not a JSON object'}
  if (v.hookName !== 'agent_end') return {ignore: `event ${String(v.hookName).slice(0, 40)} is not agent_end`}
  const root = isObj(v.sessionContext) && typeof v.sessionContext.rootSessionId === 'string' ? v.sessionContext.rootSessionId : undefined
  const id = typeof v.taskId === 'string' ? v.taskId : root
  if (id === undefined || !SAFE_ID.test(id)) return {error: 'the hook input has no taskId Cline would name a session folder by'}
  const dir = path.join(sessionsDir(home, env), id)
  try {
    const real = realpathSync(dir)
    if (!statSync(real).isDirectory()) return {error: `the session folder of ${id} is not a folder`}
    return {paths: [real]}
  } catch {
    return {error: `no session folder for ${id} in ${sessionsDir(home, env)}`}
  }
}
