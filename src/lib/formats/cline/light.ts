/**
 * The Cline CLI adapter's discovery part (the registry's `LIGHT_MEMBERS`): what a scan reads of every adapter
 * before it knows which agents' chats it found. The rest of the adapter (index.ts) is loaded for a Cline data
 * dir only; its listing (store.ts) and its session index (index-chat.ts) load when they are read.
 */
import type {FormatAdapter} from '../../model/adapter.js'
import {CLINE_FINDING_KINDS} from './findings.js'
import {clineStoresOf, defaultRoots, folderKind, isCertainDataDir} from './layout.js'

/** The members of the Cline adapter that discovery, the indexes' stores, the help texts and the finding kinds read. */
export const clineLight = {
  name: 'cline',
  displayName: 'Cline CLI',
  findingKinds: CLINE_FINDING_KINDS,
  vocabulary: ['cline', '.cline', 'CLINE_DATA_DIR', 'CLINE_DIR', 'sessions.db', '.messages.json', 'user_input', '--cline-hub-daemon'],
  defaultRoots,
  chatsIn: (dir, names) => {
    const kind = folderKind(dir, names)
    if (kind === null) return null
    // A data dir that is surely Cline's, a sessions dir and a session folder hold nothing else to search.
    return {chats: [], store: true, descend: kind === 'data' && !isCertainDataDir(dir, names)}
  },
  discoveryPaths: ['.cline'],
  listStore: async (dir) => (await import('./store.js')).listStore(dir),
  /** The session index of the data dirs found; `annotate` comes with the whole adapter (index.ts). */
  indexes: {
    storesOf: (chats) => clineStoresOf(chats),
    read: async (dir) => (await import('./index-chat.js')).readClineIndex(dir),
  },
  help: {
    roots: "Cline CLI's data dir ($CLINE_DATA_DIR, else $CLINE_DIR/data, else ~/.cline/data; its session index is read on a private copy)",
    find: 'Cline CLI: cline --id <id> from its project folder (cline history does not list a session sessions.db lost)',
    repair:
      'Cline sessions (no older copy exists: Cline rewrites its files in place): a conversation Cline would read as empty is replaced by its salvage (its complete messages byte for byte, brackets closed), a damaged session record by its salvage when Cline\'s schema accepts it; refused while Cline runs (its hub daemon, a hub lock, a cline process of the data dir): when the scan saw it, even with --force. A damaged db/sessions.db that holds nothing the session folders do not is moved aside with its -wal and -shm, for Cline to recreate from the folders.',
    inspect: "A Cline session folder (or its .messages.json) gets an account of Cline's in-place writes and of what its next start would destroy.",
    bundle: "Cline: each session folder goes in with its files; --redact keeps ids, roles, block types, tool names, numbers and the SDK's prompt markup, so turns count the same. A session only its index lists (its folder gone) has nothing to bundle and is skipped.",
    examples: {chat: '~/.cline/data/sessions/1796118198748_i47ig'},
  },
} satisfies Partial<FormatAdapter>
