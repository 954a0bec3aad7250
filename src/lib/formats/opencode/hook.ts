/**
 * OpenCode's hook for `guard`: a plugin file, `$XDG_CONFIG_HOME/opencode/plugins/chatdoctor-snapshot.js`
 * (default `~/.config/opencode/plugins/`), which OpenCode loads at start-up from its global plugin folder; on
 * `session.idle` it starts chatdoctor detached (`opencode-family/plugin-hook.ts`). Sources: anomalyco/opencode
 * `packages/web/src/content/docs/plugins.mdx` ("From local files": `~/.config/opencode/plugins/`; "Events":
 * `session.idle`; the `event: async ({ event })` hook), `packages/opencode/src/session/status.ts`
 * (`session.idle` with `{sessionID}`, published when a session's status becomes idle), and the plugin loader
 * (`packages/opencode/src/plugin/index.ts`: every export of a file plugin must be a plugin function).
 */
import path from 'node:path'
import type {AgentHook, HookInput, HookTarget} from '../../model/adapter.js'
import {PLUGIN_FILE, parsePluginHookInput, pluginHook} from '../opencode-family/plugin-hook.js'
import {defaultRoots} from './layout.js'

export {PLUGIN_FILE}

function configDir(home: string, env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), 'opencode')
}

const spec = {
  agent: 'opencode',
  displayName: 'OpenCode',
  file: (home: string, env: NodeJS.ProcessEnv) => path.join(configDir(home, env), 'plugins', PLUGIN_FILE),
  dataDir: (home: string, env: NodeJS.ProcessEnv) => defaultRoots(home, env)[0],
  source: 'anomalyco/opencode packages/web/src/content/docs/plugins.mdx (plugins from local files, session.idle); packages/opencode/src/session/status.ts (session.idle {sessionID})',
}

export const openCodeHook: AgentHook = pluginHook(spec)

/** The session a plugin call names: `sessionID` of the JSON the plugin passes as the last argument, in the data dir. */
export function parseOpenCodeHookInput(input: HookInput, home: string, env: NodeJS.ProcessEnv): HookTarget | {error: string} | {ignore: string} {
  return parsePluginHookInput(spec, input, home, env)
}
