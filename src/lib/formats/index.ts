/**
 * Every format adapter chatdoctor knows, whole: the registry (`registry.ts`) with every adapter loaded. Modules
 * that read any member of any adapter import this; the scan path imports the registry and loads only the
 * adapters of the chats it found.
 *
 * What reads the adapters is defined here, not re-exported from the registry: the bundle (scripts/bundle.ts)
 * orders modules by the bindings they import, so an importer of a re-exported `ADAPTERS` could run before the
 * `await` below had made every adapter whole (a command's static text listing agents by a member outside
 * `LIGHT_MEMBERS` saw only the adapters loaded whole from the start).
 */
import type {FormatAdapter} from '../model/adapter.js'
import type {FindingKind} from '../model/findings.js'
import {ADAPTERS as REGISTERED, adapterByName as registeredByName, findingKinds as registeredKinds, loadAdapters} from './registry.js'

export {ONLY_AGENT, UNSUPPORTED_AGENTS} from './registry.js'

await loadAdapters()

/** The registry's adapters, every one whole. */
export const ADAPTERS: readonly FormatAdapter[] = REGISTERED

/** The adapter with this format id (its name, or one of the formats its reports carry), or undefined. */
export function adapterByName(name: string): FormatAdapter | undefined {
  return registeredByName(name)
}

/** The closed list of finding kinds: the core's, then each adapter's, in registry order, each id once. */
export function findingKinds(adapters: readonly FormatAdapter[] = ADAPTERS): FindingKind[] {
  return registeredKinds(adapters)
}
