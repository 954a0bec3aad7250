/**
 * The registry: every format adapter chatdoctor knows, in detection order. Kilo comes before OpenCode, its
 * upstream: a `kilo export` file and a pre-rename `opencode-<channel>.db` in Kilo's data dir are Kilo's.
 *
 * An agent whose folder has a discovery part (`light.ts`: the members discovery reads, `LIGHT_MEMBERS`) is
 * listed by that part only until `loadAdapters` loads the rest of its folder into the same object; the others
 * are loaded whole. Importing `formats/index.ts` loads every adapter whole; a scan imports this module and
 * loads only the adapters of the chats it found (`pipeline/scan.ts`).
 */
import type {FormatAdapter} from '../model/adapter.js'
import {CORE_FINDING_KINDS, joinFindingKinds, type FindingKind} from '../model/findings.js'

type Load = () => Promise<readonly FormatAdapter[]>
/** Loads an agent's discovery part: its adapters' `LIGHT_MEMBERS`, in the order its whole loader gives them. */
type LoadLight = () => Promise<ReadonlyArray<Partial<FormatAdapter>>>

/**
 * The agents in detection order, one line each: the agent's folder, how its adapters are loaded whole, and (when
 * its folder has one) how its discovery part is loaded.
 */
const REGISTRY: ReadonlyArray<readonly [string, Load, LoadLight?]> = [
  ['codebuff', async () => [(await import('./codebuff/index.js')).codebuff]],
  ['kilo', async () => [(await import('./kilo/index.js')).kilo], async () => [(await import('./kilo/light.js')).kiloLight]],
  ['opencode', async () => [(await import('./opencode/index.js')).opencode], async () => [(await import('./opencode/light.js')).opencodeLight]],
  ['gemini-cli', async () => [(await import('./gemini-cli/index.js')).geminiCli], async () => [(await import('./gemini-cli/light.js')).geminiCliLight]],
  ['cline', async () => [(await import('./cline/index.js')).cline], async () => [(await import('./cline/light.js')).clineLight]],
  ['claude-code', async () => [(await import('./claude-code/index.js')).claudeCode], async () => [(await import('./claude-code/light.js')).claudeCodeLight]],
  ['codex', async () => [(await import('./codex/index.js')).codex], async () => [(await import('./codex/light.js')).codexLight]],
  ['vscode-tasks', async () => (await import('./vscode-tasks/index.js')).VSCODE_TASK_ADAPTERS, async () => {
    const {vscodeTaskStoresLight, vscodeTasksLight} = await import('./vscode-tasks/light.js')
    return [vscodeTaskStoresLight, vscodeTasksLight]
  }],
]

/**
 * The members of an adapter a scan reads before it knows which agents' chats it found (discovery, the indexes'
 * stores, the help texts, the closed list of finding kinds). An agent's discovery part holds exactly these of
 * its whole adapter, the very same values (`test/startup.test.ts`; a hook object such as `indexes` may gain
 * members the scan reads only of loaded adapters, like `annotate`). A scan whose snapshot store holds anything
 * loads every adapter whole first (a snapshot of a chat gone from its agent's store is matched by `snapshot`).
 */
export const LIGHT_MEMBERS = ['name', 'displayName', 'formats', 'vocabulary', 'findingKinds', 'defaultRoots', 'chatsIn', 'discoveryPaths', 'listStore', 'indexes', 'help'] as const

/**
 * Where a process that needs one agent only says so before it first imports this module (hook mode: the agent
 * runs chatdoctor after every turn, and loading every adapter is most of its start-up): the agent's name. Then
 * only that agent's folder is loaded, and every list below holds its adapters alone. Unset (or a name no entry
 * has): every agent.
 */
export const ONLY_AGENT = Symbol.for('chatdoctor.onlyAgent')

const only = (globalThis as Record<symbol, unknown>)[ONLY_AGENT]
const chosen = typeof only === 'string' && REGISTRY.some(([name]) => name === only) ? REGISTRY.filter(([name]) => name === only) : REGISTRY

/** The adapters listed by their discovery part, each with how its whole adapter is loaded (the same position). */
const partial = new Map<FormatAdapter, () => Promise<FormatAdapter>>()

export const ADAPTERS: readonly FormatAdapter[] = (
  await Promise.all(
    chosen.map(async ([, whole, light]) => {
      // A process that named its agent (hook mode) reads its whole adapter at once: no discovery part first.
      if (!light || chosen.length === 1) return whole()
      // Listed as adapters: nothing reads a member outside `LIGHT_MEMBERS` before `loadAdapters` made them whole.
      const parts = (await light()) as FormatAdapter[]
      parts.forEach((p, i) => partial.set(p, async () => (await whole())[i]))
      return parts
    }),
  )
).flat()

/**
 * Loads the rest of these adapters (default: all) into their registry objects, which from then on are the whole
 * adapters (the same objects: sets and lookups made before stay true). Adapters already whole are left as they
 * are. Call it before any member outside `LIGHT_MEMBERS` is read.
 */
export async function loadAdapters(adapters: Iterable<FormatAdapter> = ADAPTERS): Promise<void> {
  await Promise.all(
    [...new Set(adapters)].map(async (a) => {
      const load = partial.get(a)
      if (!load) return
      Object.assign(a, await load())
      partial.delete(a)
    }),
  )
}

/** True while only the discovery part of this adapter is loaded (`loadAdapters` not called for it yet). */
export function isPartial(adapter: FormatAdapter): boolean {
  return partial.has(adapter)
}

export {UNSUPPORTED_AGENTS} from './unsupported/index.js'

/** The adapter with this format id (its name, or one of the formats its reports carry), or undefined. */
export function adapterByName(name: string): FormatAdapter | undefined {
  return ADAPTERS.find((a) => a.name === name) ?? ADAPTERS.find((a) => a.formats?.includes(name))
}

/** The closed list of finding kinds: the core's, then each adapter's, in registry order, each id once. */
export function findingKinds(adapters: readonly FormatAdapter[] = ADAPTERS): FindingKind[] {
  return joinFindingKinds([CORE_FINDING_KINDS, ...adapters.map((a) => a.findingKinds ?? {})])
}
