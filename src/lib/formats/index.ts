/**
 * Every format adapter chatdoctor knows, in detection order. Kilo comes before OpenCode, its upstream: a
 * `kilo export` file and a pre-rename `opencode-<channel>.db` in Kilo's data dir are Kilo's.
 */
import type {FormatAdapter} from '../model/adapter.js'
import {CORE_FINDING_KINDS, joinFindingKinds, type FindingKind} from '../model/findings.js'

/** The agents in detection order, one line each: the agent's folder, and how its adapters are loaded. */
const REGISTRY: ReadonlyArray<readonly [string, () => Promise<readonly FormatAdapter[]>]> = [
  ['codebuff', async () => [(await import('./codebuff/index.js')).codebuff]],
  ['kilo', async () => [(await import('./kilo/index.js')).kilo]],
  ['opencode', async () => [(await import('./opencode/index.js')).opencode]],
  ['gemini-cli', async () => [(await import('./gemini-cli/index.js')).geminiCli]],
  ['cline', async () => [(await import('./cline/index.js')).cline]],
  ['claude-code', async () => [(await import('./claude-code/index.js')).claudeCode]],
  ['codex', async () => [(await import('./codex/index.js')).codex]],
  ['vscode-tasks', async () => (await import('./vscode-tasks/index.js')).VSCODE_TASK_ADAPTERS],
]

/**
 * Where a process that needs one agent only says so before it first imports this module (hook mode: the agent
 * runs chatdoctor after every turn, and loading every adapter is most of its start-up): the agent's name. Then
 * only that agent's folder is loaded, and every list below holds its adapters alone. Unset (or a name no entry
 * has): every agent.
 */
export const ONLY_AGENT = Symbol.for('chatdoctor.onlyAgent')

const only = (globalThis as Record<symbol, unknown>)[ONLY_AGENT]
const chosen = typeof only === 'string' && REGISTRY.some(([name]) => name === only) ? REGISTRY.filter(([name]) => name === only) : REGISTRY

export const ADAPTERS: readonly FormatAdapter[] = (await Promise.all(chosen.map(([, load]) => load()))).flat()

export {UNSUPPORTED_AGENTS} from './unsupported/index.js'

/** The adapter with this format id (its name, or one of the formats its reports carry), or undefined. */
export function adapterByName(name: string): FormatAdapter | undefined {
  return ADAPTERS.find((a) => a.name === name) ?? ADAPTERS.find((a) => a.formats?.includes(name))
}

/** The closed list of finding kinds: the core's, then each adapter's, in registry order, each id once. */
export function findingKinds(adapters: readonly FormatAdapter[] = ADAPTERS): FindingKind[] {
  return joinFindingKinds([CORE_FINDING_KINDS, ...adapters.map((a) => a.findingKinds ?? {})])
}
