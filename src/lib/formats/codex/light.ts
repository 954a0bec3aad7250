/**
 * The Codex adapter's discovery part (the registry's `LIGHT_MEMBERS`): what a scan reads of every adapter
 * before it knows which agents' chats it found. The rest of the adapter (index.ts), with the JSON-lines
 * family's diagnosis and its hook's TOML parser, is loaded for a Codex chat only; its index (index-store.ts,
 * SQLite) loads when it is read.
 */
import type {FormatAdapter} from '../../model/adapter.js'
import {SESSION_FINDING_KINDS} from '../jsonl/findings.js'
import {sessionChatsIn} from '../jsonl/names.js'
import {CODEX_FINDING_KINDS} from './findings.js'
import {CODEX_NAMES, codexRoots, codexStoresOf} from './roots.js'

/** The members of the Codex adapter that discovery, the indexes' stores, the help texts and the finding kinds read. */
export const codexLight = {
  name: 'codex',
  findingKinds: {...SESSION_FINDING_KINDS, ...CODEX_FINDING_KINDS},
  vocabulary: ['codex', 'rollout-', 'session_meta', 'turn_context', 'response_item', 'CODEX_HOME', '.codex', '.jsonl.zst', 'state_5', 'thread_history', 'rollout_path', 'backfill_state'],
  displayName: 'Codex',
  defaultRoots: codexRoots,
  chatsIn: (dir, names) => sessionChatsIn(dir, names, CODEX_NAMES),
  /** Its index of threads (state and thread-history databases); `annotate` and `followUp` come with the whole adapter (index.ts). */
  indexes: {
    storesOf: (chats, roots) => codexStoresOf(chats, roots),
    read: async (dir) => (await import('./index-store.js')).readCodexIndex(dir),
  },
  discoveryPaths: ['.codex'],
  help: {
    roots: "Codex's ($CODEX_HOME or ~/.codex)/sessions and archived_sessions",
    find: 'Codex: codex resume <id> (its picker never lists exec threads)',
    repair: 'A Codex .jsonl.zst winner is written, decoded, as the plain .jsonl Codex reads.',
  },
} satisfies Partial<FormatAdapter>
