/**
 * The hooks of agents that keep them in a JSON `settings.json` as `hooks.<Event>[] = {matcher?, hooks: [{type:
 * "command", command, timeout, …}]}` and pass the hook a JSON object on stdin naming the session's transcript
 * (`session_id`, `transcript_path`, `cwd`, `hook_event_name`): Claude Code and Gemini CLI. Each member gives its
 * events, the entry it writes and the transcript names it takes; the edits and the input checks are here, once.
 *
 * The file is read the way the agent's own loader reads it (the member's `syntax`: comments or not, trailing
 * commas or not; of duplicate keys the last is in effect, as with `JSON.parse`), so `status` says what the agent
 * will run. Edits are minimal text edits (`json/edit.ts`): every byte of the file but chatdoctor's entries stays
 * as it was. A file the agent would not load is refused with what is wrong and where; so is one that holds a key
 * twice on the way to the hooks or inside them (the agent reads only the last; an edit of either copy would
 * not be what the user sees). An entry is chatdoctor's when its command ends in `snapshot --hook <agent>`.
 */
import {realpathSync, statSync} from 'node:fs'
import path from 'node:path'
import type {AgentHook, HookCommand, HookInput, HookTarget} from '../../model/adapter.js'
import {appendToArray, duplicateKey, insertProperty, parseSettings, removeArrayItem, removeProperty, type JsonSyntax} from '../../json/edit.js'

/** What one member of the family hooks, and how. */
export interface SettingsHooksSpec {
  /** The agent's name (as `snapshot --hook` takes it). */
  agent: string
  /** The agent as people write it, for messages. */
  displayName: string
  /** The events chatdoctor hooks, in the order they are added. */
  events: readonly string[]
  /** The hook configuration chatdoctor adds to `event`: `{type: "command", command, …}`. */
  hook(cmd: HookCommand, event: string): Record<string, unknown>
  /** The settings file's name, for messages. */
  file: string
  /** What the agent's settings loader accepts beyond strict JSON. */
  syntax: JsonSyntax
  /** The transcript names the agent passes (tested on `transcript_path`). */
  transcript: RegExp
  /** The folders the transcript must lie in (its roots), and what they are called in messages. */
  roots(home: string, env: NodeJS.ProcessEnv): string[]
  rootsName: string
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The text edits, status and input check of a member's hook. */
export type SettingsHooks = Pick<AgentHook, 'install' | 'uninstall' | 'status' | 'parseInput'> & {
  /** The parsed settings (root object and its `hooks`), or why not. */
  settingsOf(text: string): {hooks: Record<string, unknown> | undefined; root: Record<string, unknown>} | {error: string}
}

/** The hook functions of one member. */
export function settingsHooks(spec: SettingsHooksSpec): SettingsHooks {
  const marker = new RegExp(`(?:^|\\s)snapshot --hook ${spec.agent.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}$`)
  const isOurs = (h: unknown): boolean => isObj(h) && typeof h.command === 'string' && marker.test(h.command)
  const entry = (cmd: HookCommand, event: string) => ({hooks: [spec.hook(cmd, event)]})
  const fix = `fix it and run chatdoctor guard again`

  const accepts = spec.syntax.comments ? (spec.syntax.trailingCommas ? 'JSON with comments and trailing commas' : 'JSON with comments, no trailing commas') : spec.syntax.trailingCommas ? 'JSON with trailing commas, no comments' : 'strict JSON, no comments or trailing commas'

  function settingsOf(text: string): {hooks: Record<string, unknown> | undefined; root: Record<string, unknown>} | {error: string} {
    const p = parseSettings(text, spec.syntax)
    if ('error' in p) return {error: `${spec.file} is not valid JSON as ${spec.displayName} reads it (${accepts}): ${p.error}; ${spec.displayName} ignores the file as it is, so ${fix}`}
    if (!isObj(p.value)) return {error: `${spec.file} is not a JSON object; ${fix}`}
    const hooks = p.value.hooks
    if (hooks !== undefined && !isObj(hooks)) return {error: `${spec.file}: "hooks" is not an object; ${fix}`}
    return {hooks: hooks as Record<string, unknown> | undefined, root: p.value}
  }

  /** Why the file cannot be edited safely: a key twice on the way to the hooks or inside them; null when none. */
  function duplicated(text: string): string | null {
    const d = duplicateKey(text, ['hooks'])
    if (!d) return null
    return `${spec.file} has the key ${JSON.stringify(d.key)} more than once (lines ${d.lines.join(', ')}); ${spec.displayName} reads only the last, so chatdoctor does not edit the file; merge them into one and run chatdoctor guard again`
  }

  /** Events whose groups hold a command of ours. */
  function eventsWithOurs(hooks: Record<string, unknown> | undefined): string[] {
    if (!hooks) return []
    return spec.events.filter((ev) => Array.isArray(hooks[ev]) && (hooks[ev] as unknown[]).some((g) => isObj(g) && Array.isArray(g.hooks) && g.hooks.some(isOurs)))
  }

  return {
    settingsOf,
    install(current, cmd) {
      if (current === null || current.trim() === '') {
        const hooks = Object.fromEntries(spec.events.map((ev) => [ev, [entry(cmd, ev)]]))
        return {text: JSON.stringify({hooks}, null, 2) + '\n'}
      }
      const s = settingsOf(current)
      if ('error' in s) return s
      const dup = duplicated(current)
      if (dup) return {error: dup}
      const have = new Set(eventsWithOurs(s.hooks))
      const missing = spec.events.filter((ev) => !have.has(ev))
      if (missing.length === 0) return {already: true}
      let text = current
      if (s.hooks === undefined) text = insertProperty(text, [], 'hooks', Object.fromEntries(missing.map((ev) => [ev, [entry(cmd, ev)]])))
      else
        for (const ev of missing) {
          const list = s.hooks[ev]
          if (list === undefined) text = insertProperty(text, ['hooks'], ev, [entry(cmd, ev)])
          else if (!Array.isArray(list)) return {error: `${spec.file}: "hooks.${ev}" is not an array; ${fix}`}
          else text = appendToArray(text, ['hooks', ev], entry(cmd, ev))
        }
      // The agent must read the edited file with chatdoctor's hook on every event, or nothing is written.
      const after = settingsOf(text)
      if ('error' in after || eventsWithOurs(after.hooks).length !== spec.events.length) return {error: `chatdoctor could not add its hook to ${spec.file} without changing the rest; nothing written (add it by hand, or run chatdoctor guard install on a file without comments inside "hooks")`}
      return {text}
    },
    uninstall(current, before) {
      const s = settingsOf(current)
      if ('error' in s) return s
      const dup = duplicated(current)
      if (dup) return {error: dup}
      const events = eventsWithOurs(s.hooks)
      if (events.length === 0) return {absent: true}
      // What the file held before the install: a container the user had stays even when it is left empty.
      const had = before === undefined || before === null ? null : settingsOf(before)
      const hadHooks = had !== null && !('error' in had) && had.hooks !== undefined
      const hadEvent = (ev: string) => hadHooks && (had as {hooks: Record<string, unknown>}).hooks[ev] !== undefined
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
        if (!('error' in after) && Array.isArray(after.hooks?.[ev]) && (after.hooks![ev] as unknown[]).length === 0 && !hadEvent(ev)) text = removeProperty(text, ['hooks', ev])
      }
      const after = settingsOf(text)
      if (!('error' in after) && after.hooks !== undefined && Object.keys(after.hooks).length === 0 && !hadHooks) text = removeProperty(text, ['hooks'])
      return {text}
    },
    status(current) {
      if (current === null) return {installed: false, detail: `no ${spec.file}`}
      const s = settingsOf(current)
      if ('error' in s) return {installed: false, detail: s.error}
      const events = eventsWithOurs(s.hooks)
      // What the agent runs is the last of duplicate keys: said so, whatever the other copy holds.
      const dup = duplicateKey(current, ['hooks'])
      const note = dup ? `; ${spec.file} has the key ${JSON.stringify(dup.key)} more than once (lines ${dup.lines.join(', ')}) and ${spec.displayName} reads only the last` : ''
      if (events.length === spec.events.length) return {installed: true, detail: `hooks on ${events.join(' and ')}${note}`}
      if (events.length > 0) return {installed: false, detail: `only on ${events.join(', ')} (guard install adds the rest)${note}`}
      return {installed: false, detail: `no chatdoctor hook${note}`}
    },
    parseInput: (input, home, env) => parseTranscriptInput(spec, input, home, env),
  }
}

function realOr(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

/**
 * The session a hook call names: `transcript_path` of the JSON on stdin, a file of the agent's transcript name
 * inside its roots (symbolic links followed). Events other than the member's are ignored. Reads only the path's
 * real location; never throws.
 */
export function parseTranscriptInput(spec: SettingsHooksSpec, input: HookInput, home: string, env: NodeJS.ProcessEnv): HookTarget | {error: string} | {ignore: string} {
  let v: unknown
  try {
    v = JSON.parse(input.stdin)
  } catch {
    return {error: `the hook input on stdin is not JSON (${spec.displayName} passes a JSON object)`}
  }
  if (!isObj(v)) return {error: 'the hook input on stdin is not a JSON object'}
  const event = v.hook_event_name
  if (typeof event === 'string' && !spec.events.includes(event)) return {ignore: `event ${event.slice(0, 40)} is not one chatdoctor snapshots on`}
  const tp = v.transcript_path
  if (typeof tp !== 'string' || tp === '' || !path.isAbsolute(tp) || !spec.transcript.test(path.basename(tp)) || tp.includes('\0')) return {error: `the hook input has no absolute transcript_path to a ${spec.displayName} session file`}
  let real: string
  try {
    real = realpathSync(tp)
    if (!statSync(real).isFile()) return {error: `transcript_path ${tp} is not a file`}
  } catch {
    return {error: `transcript_path ${tp} does not exist`}
  }
  const roots = spec.roots(home, env).map(realOr)
  if (!roots.some((r) => real.startsWith(r + path.sep))) return {error: `transcript_path ${tp} is outside ${spec.displayName}'s ${spec.rootsName} (${roots.join(', ')}); not snapshotted`}
  return {paths: [real], key: real}
}
