/**
 * Gemini CLI's hooks for `guard`: a `command` hook on `AfterAgent` (the agent loop finished its turn) and on
 * `PreCompress` (right before the CLI summarises the history, so a compression never wipes the only copy), in the
 * user's `settings.json` (`$GEMINI_CLI_HOME/.gemini/settings.json`, default `~/.gemini/settings.json`) under
 * `hooks.<Event>[] = {matcher?, hooks: [{type: "command", command, name, timeout}]}`, the timeout in
 * milliseconds; the command gets JSON on stdin with `session_id`, `transcript_path` (the session file in
 * `~/.gemini/tmp/<project>/chats/`), `cwd`, `hook_event_name`, `timestamp`. An exit 0 with nothing on stdout or
 * stderr is a success with no output: the turn goes on as if no hook ran.
 *
 * Sources: google-gemini/gemini-cli `docs/hooks/reference.md` (configuration schema, base input, `AfterAgent`,
 * `PreCompress`), `docs/hooks/index.md` (user settings layer, `name`, timeout in ms),
 * `packages/core/src/hooks/hookEventHandler.ts` (`transcript_path` is the chat recording's file),
 * `packages/core/src/hooks/hookRunner.ts` (empty output parsed as none), `packages/core/src/config/storage.ts`
 * (`getGlobalSettingsPath`) and `packages/cli/src/config/settingsSchema.ts` across releases: whether hooks run
 * at all is `tools.enableHooks` (default false up to 0.23, true from 0.24), then also `hooks.enabled` (0.24 and
 * 0.25, default false), then `hooksConfig.enabled` (from 0.26, default true). chatdoctor never changes these
 * switches: `guard install` and `guard status` say when one is off, and what older releases need.
 *
 * How the CLI reads the file (`packages/cli/src/config/settings.ts`, `loadSettings`): `JSON.parse` of the text
 * after `strip-json-comments` 3.1.1 (`packages/cli/package.json`): comments are whitespace, a trailing comma is a
 * syntax error (the file's settings are then dropped with an error), and of a key written twice the last wins.
 */
import path from 'node:path'
import type {AgentHook, HookCommand} from '../../model/adapter.js'
import {settingsHooks} from '../settings-hooks/index.js'
import {defaultRoots} from './layout.js'

/** The events chatdoctor hooks: after each turn, and before a compression can wipe the only copy. */
export const GEMINI_HOOK_EVENTS = ['AfterAgent', 'PreCompress'] as const
/** Milliseconds Gemini CLI gives the command (its default is 60000; the hook itself takes well under one second). */
const TIMEOUT_MS = 30000
/** The hook's name in `/hooks panel` and `/hooks disable`. */
export const GEMINI_HOOK_NAME = 'chatdoctor-snapshot'

/** `settings.json` of the user: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
export function geminiSettingsFile(home: string, env: NodeJS.ProcessEnv): string {
  return path.join(path.dirname(defaultRoots(home, env)[0]), 'settings.json')
}

const hooks = settingsHooks({
  agent: 'gemini-cli',
  displayName: 'Gemini CLI',
  events: GEMINI_HOOK_EVENTS,
  hook: (cmd: HookCommand, event: string) => ({name: GEMINI_HOOK_NAME, type: 'command', command: cmd.shell, description: `chatdoctor snapshot of the session ${event === 'PreCompress' ? 'before compression' : 'after each turn'}`, timeout: TIMEOUT_MS}),
  file: 'settings.json',
  // The loader: JSON.parse(stripJsonComments(text)), strip-json-comments 3.1.1 (comments, no trailing commas).
  syntax: {comments: true, trailingCommas: false},
  transcript: /\.jsonl?$/,
  roots: defaultRoots,
  rootsName: 'sessions folder',
})

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The switches of `settings.json` that keep every hook from running, as they are set there (never changed by chatdoctor). */
export function geminiHookSwitches(current: string | null): string[] {
  if (current === null) return []
  const s = hooks.settingsOf(current)
  if ('error' in s) return []
  const out: string[] = []
  const hc = s.root.hooksConfig
  if (isObj(hc) && hc.enabled === false) out.push('"hooksConfig.enabled" is false in settings.json, so Gemini CLI runs no hook; set it to true (chatdoctor leaves it as you set it)')
  if (isObj(hc) && Array.isArray(hc.disabled) && hc.disabled.includes(GEMINI_HOOK_NAME)) out.push(`"hooksConfig.disabled" lists ${GEMINI_HOOK_NAME}, so Gemini CLI skips it; remove it from the list (or run /hooks enable ${GEMINI_HOOK_NAME})`)
  const tools = s.root.tools
  if (isObj(tools) && tools.enableHooks === false) out.push('"tools.enableHooks" is false in settings.json, so Gemini CLI runs no hook; set it to true (chatdoctor leaves it as you set it)')
  return out
}

/** What a Gemini CLI release older than 0.26 needs before it runs any hook. */
export const GEMINI_OLD_RELEASES = 'Gemini CLI runs hooks from user settings by default since 0.26; 0.24 and 0.25 also need "hooks": {"enabled": true}, and releases before 0.24 "tools": {"enableHooks": true} (chatdoctor changes neither)'

export const geminiHook: AgentHook = {
  source: 'google-gemini/gemini-cli docs/hooks/reference.md (configuration schema, base input, AfterAgent, PreCompress); packages/cli/src/config/settingsSchema.ts (hooksConfig.enabled)',
  // AfterAgent may fire before the CLI's last record of the turn is on disk: try again for a while, in the background.
  settleMs: 3000,
  stdin: true,
  configFile: geminiSettingsFile,
  install: hooks.install,
  uninstall: hooks.uninstall,
  status: (current) => {
    const s = hooks.status(current)
    const off = geminiHookSwitches(current)
    return off.length > 0 ? {installed: s.installed, detail: `${s.detail}; ${off.join('; ')}`} : s
  },
  notes: (current) => [...geminiHookSwitches(current), GEMINI_OLD_RELEASES],
  // The chat holding the transcript is its short id's: every file of it is found from the one named.
  parseInput: (input, home, env) => {
    const t = hooks.parseInput(input, home, env)
    return 'paths' in t ? {paths: t.paths} : t
  },
}
