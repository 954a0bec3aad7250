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
 * Edits are minimal text edits (`json/edit.ts`): every byte of the file but chatdoctor's entries stays as it was.
 */
import {realpathSync, statSync} from 'node:fs'
import path from 'node:path'
import type {AgentHook, HookCommand, HookInput, HookTarget} from '../../model/adapter.js'
import {appendToArray, parseSettings, removeArrayItem, removeProperty, setProperty} from '../../json/edit.js'
import {claudeRoots} from './roots.js'

/** The events chatdoctor hooks: after each answer, and before a compaction can wipe the only copy. */
export const CLAUDE_HOOK_EVENTS = ['Stop', 'PreCompact'] as const
/** How a command of ours ends: what tells chatdoctor's entries from the user's. */
const MARKER = /(?:^|\s)snapshot --hook claude-code$/
/** Seconds Claude Code gives the command before it cancels it (the hook itself takes well under one). */
const TIMEOUT_S = 30

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function isOurs(h: unknown): boolean {
  return isObj(h) && typeof h.command === 'string' && MARKER.test(h.command)
}

function entry(cmd: HookCommand) {
  return {hooks: [{type: 'command', command: cmd.shell, timeout: TIMEOUT_S}]}
}

/** `settings.json` of the user: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeSettingsFile(home: string, env: NodeJS.ProcessEnv): string {
  return path.join(path.dirname(claudeRoots(home, env)[0]), 'settings.json')
}

function settingsOf(text: string, file = 'settings.json'): {hooks: Record<string, unknown> | undefined; root: Record<string, unknown>} | {error: string} {
  const p = parseSettings(text)
  if ('error' in p) return {error: `${file} is not valid JSON (${p.error}); fix it and run chatdoctor guard again`}
  if (!isObj(p.value)) return {error: `${file} is not a JSON object; fix it and run chatdoctor guard again`}
  const hooks = p.value.hooks
  if (hooks !== undefined && !isObj(hooks)) return {error: `${file}: "hooks" is not an object; fix it and run chatdoctor guard again`}
  return {hooks: hooks as Record<string, unknown> | undefined, root: p.value}
}

/** Events whose groups hold a command of ours. */
function eventsWithOurs(hooks: Record<string, unknown> | undefined): string[] {
  if (!hooks) return []
  return CLAUDE_HOOK_EVENTS.filter((ev) => Array.isArray(hooks[ev]) && (hooks[ev] as unknown[]).some((g) => isObj(g) && Array.isArray(g.hooks) && g.hooks.some(isOurs)))
}

export const claudeHook: AgentHook = {
  source: 'https://code.claude.com/docs/en/hooks; anthropics/claude-agent-sdk-python src/claude_agent_sdk/types.py (BaseHookInput, StopHookInput, PreCompactHookInput)',
  // Claude Code may run the Stop hook before the final answer is on disk: try again for a while, in the background.
  settleMs: 3000,
  stdin: true,
  configFile: claudeSettingsFile,
  install(current, cmd) {
    if (current === null || current.trim() === '') {
      const hooks = Object.fromEntries(CLAUDE_HOOK_EVENTS.map((ev) => [ev, [entry(cmd)]]))
      return {text: JSON.stringify({hooks}, null, 2) + '\n'}
    }
    const s = settingsOf(current)
    if ('error' in s) return s
    const have = new Set(eventsWithOurs(s.hooks))
    const missing = CLAUDE_HOOK_EVENTS.filter((ev) => !have.has(ev))
    if (missing.length === 0) return {already: true}
    let text = current
    if (s.hooks === undefined) return {text: setProperty(text, ['hooks'], Object.fromEntries(missing.map((ev) => [ev, [entry(cmd)]])))}
    for (const ev of missing) {
      const list = s.hooks[ev]
      if (list === undefined) text = setProperty(text, ['hooks', ev], [entry(cmd)])
      else if (!Array.isArray(list)) return {error: `settings.json: "hooks.${ev}" is not an array; fix it and run chatdoctor guard again`}
      else text = appendToArray(text, ['hooks', ev], entry(cmd))
    }
    return {text}
  },
  uninstall(current) {
    const s = settingsOf(current)
    if ('error' in s) return s
    const events = eventsWithOurs(s.hooks)
    if (events.length === 0) return {absent: true}
    let text = current
    for (const ev of events) {
      const groups = s.hooks![ev] as unknown[]
      for (let gi = groups.length - 1; gi >= 0; gi--) {
        const g = groups[gi]
        if (!isObj(g) || !Array.isArray(g.hooks) || !g.hooks.some(isOurs)) continue
        if (g.hooks.every(isOurs)) text = removeArrayItem(text, ['hooks', ev], gi)
        else for (let hi = g.hooks.length - 1; hi >= 0; hi--) if (isOurs(g.hooks[hi])) text = removeArrayItem(text, ['hooks', ev, gi, 'hooks'], hi)
      }
      const after = settingsOf(text)
      if (!('error' in after) && Array.isArray(after.hooks?.[ev]) && (after.hooks![ev] as unknown[]).length === 0) text = removeProperty(text, ['hooks', ev])
    }
    const after = settingsOf(text)
    if (!('error' in after) && after.hooks !== undefined && Object.keys(after.hooks).length === 0) text = removeProperty(text, ['hooks'])
    return {text}
  },
  status(current) {
    if (current === null) return {installed: false, detail: 'no settings.json'}
    const s = settingsOf(current)
    if ('error' in s) return {installed: false, detail: s.error}
    const events = eventsWithOurs(s.hooks)
    if (events.length === CLAUDE_HOOK_EVENTS.length) return {installed: true, detail: `hooks on ${events.join(' and ')}`}
    if (events.length > 0) return {installed: false, detail: `only on ${events.join(', ')} (guard install adds the rest)`}
    return {installed: false, detail: 'no chatdoctor hook'}
  },
  parseInput: parseClaudeHookInput,
}

/**
 * The session a hook call names: `transcript_path` of the JSON on stdin, a `.jsonl` file inside Claude Code's
 * projects folder. Events other than ours are ignored. Reads only the path's real location.
 */
export function parseClaudeHookInput(input: HookInput, home: string, env: NodeJS.ProcessEnv): HookTarget | {error: string} | {ignore: string} {
  let v: unknown
  try {
    v = JSON.parse(input.stdin)
  } catch {
    return {error: 'the hook input on stdin is not JSON (Claude Code passes a JSON object)'}
  }
  if (!isObj(v)) return {error: 'the hook input on stdin is not a JSON object'}
  const event = v.hook_event_name
  if (typeof event === 'string' && !(CLAUDE_HOOK_EVENTS as readonly string[]).includes(event)) return {ignore: `event ${event.slice(0, 40)} is not one chatdoctor snapshots on`}
  const tp = v.transcript_path
  if (typeof tp !== 'string' || tp === '' || !path.isAbsolute(tp) || !tp.endsWith('.jsonl') || tp.includes('\0')) return {error: 'the hook input has no absolute transcript_path to a .jsonl file'}
  let real: string
  try {
    real = realpathSync(tp)
    if (!statSync(real).isFile()) return {error: `transcript_path ${tp} is not a file`}
  } catch {
    return {error: `transcript_path ${tp} does not exist`}
  }
  const roots = claudeRoots(home, env).map((r) => {
    try {
      return realpathSync(r)
    } catch {
      return r
    }
  })
  if (!roots.some((r) => real.startsWith(r + path.sep))) return {error: `transcript_path ${tp} is outside Claude Code's projects folder (${roots.join(', ')}); not snapshotted`}
  return {paths: [real], key: real}
}
