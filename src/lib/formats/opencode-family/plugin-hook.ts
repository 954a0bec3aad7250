/**
 * The `guard` hook of a member of the family whose agent loads plugin files (OpenCode, Kilo, its fork): a file
 * `<config dir>/plugins/chatdoctor-snapshot.js` the agent loads at start-up from its global plugin folder
 * (OpenCode and Kilo glob `{plugin,plugins}/*.{ts,js}` in each of their config folders, the global one included).
 * Its one export is a plugin function returning an `event` hook; on `session.idle` (the session finished its
 * turn; properties `{sessionID}`) it starts chatdoctor detached, without waiting for it, with
 * `{"type", "sessionID"}` as its last argument. The plugin loaders call every export of a plugin file as a
 * plugin function, so the file exports nothing else.
 *
 * The file is chatdoctor's whole: install writes it (a file of that name that is not chatdoctor's is never
 * replaced), uninstall removes it.
 */
import {realpathSync} from 'node:fs'
import type {AgentHook, HookCommand, HookInput, HookTarget} from '../../model/adapter.js'
import {ownedFileHook} from '../owned-file-hook/index.js'

export const PLUGIN_FILE = 'chatdoctor-snapshot.js'

const SESSION_ID = /^ses_[0-9A-Za-z]+$/
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** What one member's plugin hook needs. */
export interface PluginHookSpec {
  /** The agent's name for `guard` (`opencode`) and in sentences (`OpenCode`). */
  agent: string
  displayName: string
  /** The plugin file, absolute. */
  file(home: string, env: NodeJS.ProcessEnv): string
  /** The data dir whose sessions the hook snapshots. */
  dataDir(home: string, env: NodeJS.ProcessEnv): string
  /** Where the mechanism is documented. */
  source: string
}

const marker = (displayName: string) => `// chatdoctor snapshot hook for ${displayName}`

/** The plugin's source: one exported plugin function, nothing else (the loader calls every export). */
export function pluginSource(spec: Pick<PluginHookSpec, 'agent' | 'displayName'>, cmd: HookCommand): string {
  return [
    `${marker(spec.displayName)} (written by \`chatdoctor guard install ${spec.agent}\`; \`chatdoctor guard uninstall ${spec.agent}\` removes this file).`,
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

/** The session a plugin call names: `sessionID` of the JSON the plugin passes as the last argument, in the data dir. */
export function parsePluginHookInput(spec: Pick<PluginHookSpec, 'displayName' | 'dataDir'>, input: HookInput, home: string, env: NodeJS.ProcessEnv): HookTarget | {error: string} | {ignore: string} {
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
  if (typeof v.sessionID !== 'string' || !SESSION_ID.test(v.sessionID)) return {error: `the event has no sessionID ${spec.displayName} would write (ses_…)`}
  const dataDir = spec.dataDir(home, env)
  let real: string
  try {
    real = realpathSync(dataDir)
  } catch {
    return {error: `${spec.displayName}'s data dir ${dataDir} does not exist`}
  }
  return {paths: [real], key: `${real}#${v.sessionID}`}
}

/** The member's `AgentHook`. */
export function pluginHook(spec: PluginHookSpec): AgentHook {
  const m = marker(spec.displayName)
  return {
    source: spec.source,
    // The agent publishes session.idle when the turn is done; the answer's rows may land a moment later.
    settleMs: 3000,
    configFile: spec.file,
    ...ownedFileHook({file: PLUGIN_FILE, agent: spec.agent, text: (cmd) => pluginSource(spec, cmd), isOurs: (t) => t.startsWith(m), installed: 'plugin on session.idle', absent: 'no plugin file'}),
    parseInput: (input, home, env) => parsePluginHookInput(spec, input, home, env),
  }
}
