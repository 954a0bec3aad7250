/**
 * Claude Code's hooks for `guard`: a `command` hook on `Stop` (Claude finished responding) and on `PreCompact`
 * (right before a compaction), in the user's `settings.json` (`$CLAUDE_CONFIG_DIR/settings.json`, default
 * `~/.claude/settings.json`) under `hooks.<Event>[] = {matcher?, hooks: [{type: "command", command, timeout}]}`;
 * the command gets JSON on stdin with `session_id`, `transcript_path`, `cwd`, `hook_event_name` (and
 * `stop_hook_active` on Stop, `trigger` on PreCompact). Sources: the hooks reference,
 * https://code.claude.com/docs/en/hooks (configuration, hook input); the input types of
 * anthropics/claude-agent-sdk-python `src/claude_agent_sdk/types.py` (`BaseHookInput`, `StopHookInput`,
 * `PreCompactHookInput`); anthropics/claude-code `CHANGELOG.md` ("Added a PreCompact hook", "Added
 * hook_event_name to hook input", the timeout in seconds of `examples`/plugins' hooks.json). The hook exits 0
 * and writes nothing on stdout, so it never blocks the stop or the compaction.
 *
 * `settings.json` is strict JSON to Claude Code: a `//` comment or a trailing comma makes it report the file
 * "Invalid or malformed JSON" and ignore all of it (reports in anthropics/claude-code's issue tracker, and the
 * SchemaStore schema's `allowTrailingCommas` questioned against 2.1.104), so guard refuses such a file rather
 * than install a hook Claude Code would not read.
 *
 * Edits and the input check are the settings-hooks family's (`formats/settings-hooks/`).
 */
import path from 'node:path'
import type {AgentHook, HookCommand} from '../../model/adapter.js'
import {settingsHooks} from '../settings-hooks/index.js'
import {claudeRoots} from './roots.js'

/** The events chatdoctor hooks: after each answer, and before a compaction can wipe the only copy. */
export const CLAUDE_HOOK_EVENTS = ['Stop', 'PreCompact'] as const
/** Seconds Claude Code gives the command before it cancels it (the hook itself takes well under one). */
const TIMEOUT_S = 30

/** `settings.json` of the user: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeSettingsFile(home: string, env: NodeJS.ProcessEnv): string {
  return path.join(path.dirname(claudeRoots(home, env)[0]), 'settings.json')
}

const hooks = settingsHooks({
  agent: 'claude-code',
  displayName: 'Claude Code',
  events: CLAUDE_HOOK_EVENTS,
  hook: (cmd: HookCommand) => ({type: 'command', command: cmd.shell, timeout: TIMEOUT_S}),
  file: 'settings.json',
  // Strict JSON: Claude Code drops a settings.json with a comment or a trailing comma as "Invalid or malformed JSON".
  syntax: {comments: false, trailingCommas: false},
  transcript: /\.jsonl$/,
  roots: claudeRoots,
  rootsName: 'projects folder',
})

export const claudeHook: AgentHook = {
  source: 'https://code.claude.com/docs/en/hooks; anthropics/claude-agent-sdk-python src/claude_agent_sdk/types.py (BaseHookInput, StopHookInput, PreCompactHookInput)',
  // Claude Code may run the Stop hook before the final answer is on disk: try again for a while, in the background.
  settleMs: 3000,
  stdin: true,
  configFile: claudeSettingsFile,
  install: hooks.install,
  uninstall: hooks.uninstall,
  status: hooks.status,
  parseInput: hooks.parseInput,
}
