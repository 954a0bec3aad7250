/**
 * Kilo's hook for `guard`: a plugin file, `$XDG_CONFIG_HOME/kilo/plugins/chatdoctor-snapshot.js` (default
 * `~/.config/kilo/plugins/`), the same mechanism as OpenCode's, which Kilo forks (`opencode-family/plugin-hook.ts`):
 * on `session.idle` it starts chatdoctor detached. Sources: Kilo-Org/kilocode
 * `packages/opencode/src/config/paths.ts` (the config folders: the global one, `Global.Path.config` =
 * `$XDG_CONFIG_HOME/kilo`, then `.kilocode`/`.kilo` folders), `packages/opencode/src/config/config.ts` (each
 * config folder's plugin files are loaded, `loadPlugin(dir)`), `packages/opencode/src/plugin/index.ts` (every
 * export of a plugin file is called as a plugin function; its `event` hook gets every bus event).
 */
import path from 'node:path'
import type {AgentHook} from '../../model/adapter.js'
import {PLUGIN_FILE, pluginHook} from '../opencode-family/plugin-hook.js'
import {dataDir} from './layout.js'

function configDir(home: string, env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), 'kilo')
}

export const kiloHook: AgentHook = pluginHook({
  agent: 'kilo',
  displayName: 'Kilo',
  file: (home, env) => path.join(configDir(home, env), 'plugins', PLUGIN_FILE),
  dataDir,
  source: 'Kilo-Org/kilocode packages/opencode/src/config/paths.ts and config.ts (plugin files of the global config folder $XDG_CONFIG_HOME/kilo); packages/opencode/src/plugin/index.ts (plugin exports, event hook)',
})
