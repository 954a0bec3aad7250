/**
 * Every format adapter chatdoctor knows, whole: the registry (`registry.ts`) with every adapter loaded. Modules
 * that read any member of any adapter import this; the scan path imports the registry and loads only the
 * adapters of the chats it found.
 */
import {loadAdapters} from './registry.js'

export {ADAPTERS, ONLY_AGENT, UNSUPPORTED_AGENTS, adapterByName, findingKinds} from './registry.js'

await loadAdapters()
