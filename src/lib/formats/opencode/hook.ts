/**
 * OpenCode's hook for `guard`: a plugin file, `$XDG_CONFIG_HOME/opencode/plugins/chatdoctor-snapshot.js`
 * (default `~/.config/opencode/plugins/`), which OpenCode loads at start-up from its global plugin folder. Its
 * one export is a plugin function returning an `event` hook; on `session.idle` (the session finished its
 * turn; properties `{sessionID}`) it starts chatdoctor detached, without waiting for it, with
 * `{"type", "sessionID"}` as its last argument. Sources: anomalyco/opencode
 * `packages/web/src/content/docs/plugins.mdx` ("From local files": `~/.config/opencode/plugins/`; "Events":
 * `session.idle`; the `event: async ({ event })` hook), `packages/opencode/src/session/status.ts`
 * (`session.idle` with `{sessionID}`, published when a session's status becomes idle), and the plugin loader
 * (`packages/opencode/src/plugin/index.ts`: every export of a file plugin must be a plugin function).
 *
 * The file is chatdoctor's whole: install writes it (a file of that name that is not chatdoctor's is never
 * replaced), uninstall removes it.
 */
import {realpathSync} from 'node:fs'
import path from 'node:path'
import type {AgentHook, HookCommand, HookInput, HookTarget} from '../../model/adapter.js'
import {ownedFileHook} from '../owned-file-hook/index.js'
import {SESSION_ID, defaultRoots} from './layout.js'

export const PLUGIN_FILE = 'chatdoctor-snapshot.js'
const MARKER = '// chatdoctor snapshot hook for OpenCode'

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The plugin's source: one exported plugin function, nothing else (the loader calls every export). */
export function pluginSource(cmd: HookCommand): string {
  return [
    `${MARKER} (written by \`chatdoctor guard install opencode\`; \`chatdoctor guard uninstall opencode\` removes this file).`,
    '// When a session goes idle, it starts chatdoctor in the background to snapshot that session, and never waits for it.',
    "import {spawn} from 'node:child_process'",
    '',
    `const COMMAND = ${JSON.stringify(cmd.argv)}`,
    '',
    'export const ChatdoctorSnapshot = async () => ({',
    '  event: async ({event}) => {',
    "    if (event?.type !== 'session.idle') return",
    '    try {',
    '      const arg = JSON.stringify({type: event.type, sessionID: event.properties?.sessionID})',
    "      const child = spawn(COMMAND[0], [...COMMAND.slice(1), arg], {detached: true, stdio: 'ignore'})",
    "      child.on('error', () => {})",
    '      child.unref()',
    '    } catch {}',
    '  },',
    '})',
    '',
  ].join('\n')
}

function isOurs(text: string): boolean {
  return text.startsWith(MARKER)
}

function configDir(home: string, env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.config'), 'opencode')
}

export const openCodeHook: AgentHook = {
  source: 'anomalyco/opencode packages/web/src/content/docs/plugins.mdx (plugins from local files, session.idle); packages/opencode/src/session/status.ts (session.idle {sessionID})',
  // OpenCode publishes session.idle when the turn is done; the answer's files may land a moment later.
  settleMs: 3000,
  configFile: (home, env) => path.join(configDir(home, env), 'plugins', PLUGIN_FILE),
  ...ownedFileHook({file: PLUGIN_FILE, agent: 'opencode', text: pluginSource, isOurs, installed: 'plugin on session.idle', absent: 'no plugin file'}),
  parseInput: parseOpenCodeHookInput,
}

/** The session a plugin call names: `sessionID` of the JSON the plugin passes as the last argument, in the data dir. */
export function parseOpenCodeHookInput(input: HookInput, home: string, env: NodeJS.ProcessEnv): HookTarget | {error: string} | {ignore: string} {
  const raw = input.args[input.args.length - 1]
  if (raw === undefined) return {error: 'no event argument (the plugin passes a JSON object)'}
  let v: unknown
  try {
    v = JSON.parse(raw)
  } catch {
    return {error: 'the event argument is not JSON'}
  }
  if (!isObj(v)) return {error: 'the event argument is not a JSON object'}
  if (v.type !== 'session.idle') return {ignore: `event ${String(v.type).slice(0, 40)} is not session.idle`}
  if (typeof v.sessionID !== 'string' || !SESSION_ID.test(v.sessionID)) return {error: 'the event has no sessionID OpenCode would write (ses_…)'}
  const dataDir = defaultRoots(home, env)[0]
  let real: string
  try {
    real = realpathSync(dataDir)
  } catch {
    return {error: `OpenCode's data dir ${dataDir} does not exist`}
  }
  return {paths: [real], key: `${real}#${v.sessionID}`}
}
