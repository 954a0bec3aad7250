/**
 * Codex's hook for `guard`: the `notify` program of `$CODEX_HOME/config.toml` (default `~/.codex/`), a
 * top-level `notify = ["program", "arg", …]` (array<string>). Codex runs it, fire-and-forget, with one more
 * argument: a JSON object `{"type": "agent-turn-complete", "thread-id", "turn-id", "cwd", "input-messages",
 * "last-assistant-message"}`. Sources: openai/codex `docs/config.md` ("notify", its reference table:
 * `notify` array<string>) and `codex-rs/core/src/user_notification.rs` (`UserNotification`, serialized
 * kebab-case with `type` as tag; `invoke_notify` appends it as the last argument and spawns without waiting).
 *
 * Codex runs one notify program: a `notify` someone else set is never replaced (guard says how to chain
 * chatdoctor in instead). chatdoctor's `notify` goes at the top of the file (TOML's root keys must come
 * before the first table), under one comment line, and uninstall removes exactly those two lines.
 */
import {readdirSync, realpathSync} from 'node:fs'
import path from 'node:path'
import {parse as parseToml} from 'smol-toml'
import type {AgentHook, HookInput, HookTarget} from '../../model/adapter.js'
import {codexHome, codexRoots} from './roots.js'

const COMMENT = '# chatdoctor: snapshot each settled session after its turn (chatdoctor guard uninstall codex removes these two lines)'

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Whether a `notify` value is chatdoctor's. */
function isOurs(v: unknown): boolean {
  return Array.isArray(v) && v.length >= 3 && v.every((x) => typeof x === 'string') && v[v.length - 1] === 'codex' && v[v.length - 2] === '--hook' && v[v.length - 3] === 'snapshot'
}

/** A TOML array of basic strings (JSON's string escapes are TOML's). */
function tomlArray(argv: readonly string[]): string {
  return `[${argv.map((a) => JSON.stringify(a)).join(', ')}]`
}

function parsed(text: string): {value: Record<string, unknown>} | {error: string} {
  try {
    return {value: parseToml(text) as Record<string, unknown>}
  } catch (e) {
    return {error: `config.toml is not valid TOML (${String((e as Error).message).split('\n')[0]}); fix it and run chatdoctor guard again`}
  }
}

/** Lines of chatdoctor's notify (a line `notify = [...]` that parses to ours), with the comment above it. */
function ourLines(text: string): {start: number; end: number} | null {
  const lines = text.split(/(?<=\n)/)
  let offset = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (/^\s*notify\s*=/.test(line)) {
      const p = parsed(line)
      if (!('error' in p) && isOurs(p.value.notify)) {
        const prev = i > 0 ? lines[i - 1] : ''
        const withComment = prev.replace(/\r?\n$/, '') === COMMENT
        return {start: withComment ? offset - prev.length : offset, end: offset + line.length}
      }
    }
    offset += line.length
  }
  return null
}

export const codexHook: AgentHook = {
  source: 'openai/codex docs/config.md (notify); codex-rs/core/src/user_notification.rs (UserNotification::AgentTurnComplete, invoke_notify)',
  // Codex calls notify without waiting, possibly before its rollout writer has the turn on disk.
  settleMs: 3000,
  configFile: (home, env) => path.join(codexHome(home, env), 'config.toml'),
  install(current, cmd) {
    const line = `notify = ${tomlArray(cmd.argv)}`
    if (current === null || current.trim() === '') return {text: `${COMMENT}\n${line}\n${current ?? ''}`}
    const p = parsed(current)
    if ('error' in p) return p
    if (p.value.notify !== undefined) {
      if (isOurs(p.value.notify)) return {already: true}
      return {error: `config.toml already sets notify = ${JSON.stringify(p.value.notify)}; Codex runs one notify program, and chatdoctor does not replace another's: have that program also run ${cmd.shell} with the same JSON argument, or remove it and run chatdoctor guard install codex again`}
    }
    const eol = current.includes('\r\n') ? '\r\n' : '\n'
    const text = `${COMMENT}${eol}${line}${eol}${current}`
    const check = parsed(text)
    if ('error' in check || !isOurs(check.value.notify)) return {error: 'config.toml would not parse with the notify line added; nothing written'}
    return {text}
  },
  uninstall(current) {
    const at = ourLines(current)
    if (!at) return {absent: true}
    const text = current.slice(0, at.start) + current.slice(at.end)
    return {text: text === '' ? null : text}
  },
  status(current) {
    if (current === null) return {installed: false, detail: 'no config.toml'}
    const p = parsed(current)
    if ('error' in p) return {installed: false, detail: p.error}
    if (isOurs(p.value.notify)) return {installed: true, detail: 'notify program'}
    if (p.value.notify !== undefined) return {installed: false, detail: `notify is another program (${JSON.stringify(p.value.notify)})`}
    return {installed: false, detail: 'no notify program'}
  },
  parseInput: parseCodexHookInput,
}

/** A thread id as Codex writes it (a UUID); anything else is refused before it reaches a path. */
const THREAD_ID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/

function names(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

/** The rollout of a thread: `sessions/YYYY/MM/DD/rollout-<ts>-<threadId>.jsonl`, newest day first, then archived. */
export function findRollout(home: string, env: NodeJS.ProcessEnv, threadId: string): string | null {
  const suffix = `-${threadId}.jsonl`
  const [sessions, archived] = codexRoots(home, env)
  const desc = (xs: string[]) => xs.filter((x) => /^\d+$/.test(x)).sort().reverse()
  for (const y of desc(names(sessions))) {
    for (const m of desc(names(path.join(sessions, y)))) {
      for (const d of desc(names(path.join(sessions, y, m)))) {
        const hit = names(path.join(sessions, y, m, d)).find((n) => n.startsWith('rollout-') && n.endsWith(suffix))
        if (hit) return path.join(sessions, y, m, d, hit)
      }
    }
  }
  const hit = names(archived).find((n) => n.startsWith('rollout-') && n.endsWith(suffix))
  return hit ? path.join(archived, hit) : null
}

/** The rollout a notify call names: the thread of the JSON argument Codex appended (its last argument). */
export function parseCodexHookInput(input: HookInput, home: string, env: NodeJS.ProcessEnv): HookTarget | {error: string} | {ignore: string} {
  const raw = input.args[input.args.length - 1]
  if (raw === undefined) return {error: 'no notification argument (Codex appends a JSON object to the notify command)'}
  let v: unknown
  try {
    v = JSON.parse(raw)
  } catch {
    return {error: 'the notification argument is not JSON'}
  }
  if (!isObj(v)) return {error: 'the notification argument is not a JSON object'}
  if (v.type !== 'agent-turn-complete') return {ignore: `notification ${String(v.type).slice(0, 40)} is not agent-turn-complete`}
  const id = v['thread-id']
  if (typeof id !== 'string' || !THREAD_ID.test(id)) return {error: 'the notification has no thread-id Codex would write (a UUID)'}
  const file = findRollout(home, env, id)
  if (!file) return {error: `no rollout of thread ${id} under ${codexRoots(home, env).join(' or ')}`}
  let real: string
  try {
    real = realpathSync(file)
  } catch {
    return {error: `the rollout ${file} disappeared`}
  }
  return {paths: [real], key: real}
}
