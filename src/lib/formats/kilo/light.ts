/**
 * The Kilo Code CLI adapter's discovery part (the registry's `LIGHT_MEMBERS`): what a scan reads of every
 * adapter before it knows which agents' chats it found. The rest of the adapter (index.ts) is loaded for a Kilo
 * store only; its listing (store.ts, the private copy of the database) loads when a store is listed.
 */
import type {FormatAdapter} from '../../model/adapter.js'
import {KILO_FINDING_KINDS} from './findings.js'
import {defaultRoots, isDataDir} from './layout.js'

/** The members of the Kilo adapter that discovery, the help texts and the finding kinds read. */
export const kiloLight = {
  name: 'kilo',
  displayName: 'Kilo',
  vocabulary: ['kilo', 'kilo.db', 'KILO_DB', 'kilocode', 'session_diff'],
  findingKinds: KILO_FINDING_KINDS,
  defaultRoots,
  discoveryPaths: ['.local/share/kilo'],
  chatsIn: (dir, names) => (isDataDir(dir, names) ? {chats: [], descend: false, store: true} : null),
  listStore: async (dir) => (await import('./store.js')).listStore(dir),
  help: {
    roots: "Kilo Code CLI's data dir ($XDG_DATA_HOME/kilo, default ~/.local/share/kilo, and the folder of $KILO_DB; its database is read on a private copy of kilo.db, its -wal and -shm together, never opened in place)",
    repair:
      "Kilo stores: when Kilo's next start would destroy the WAL beside a database SQLite cannot read (an empty kilo.db is taken for a new store and its WAL reset; a NUL-filled or headless one makes the start delete kilo.db-wal and -shm), kilo.db, its -wal and -shm move together into <data dir>/.chatdoctor/<repairId>/ first, so Kilo starts a new, empty store and chatdoctor undo can put them back; a damaged database SQLite still opens is left for a manual repair (next steps given). Refused while a kilo process uses the store or holds one of its locks.",
    inspect: 'A Kilo session lists the database, its WAL and index with their classes, what the WAL holds and lost, and what Kilo\'s next start would do.',
    bundle: "Kilo sessions go in as the database files (kilo.db, -wal, -shm); with --redact, a private copy holding only that session's rows, its text replaced (refused for a store SQLite cannot read, a damaged database, or a WAL that lost writes).",
    process: 'kilo',
    find: 'Kilo: kilo --session <id> from its project folder (kilo.db read on a private copy)',
    store: {dir: 'a Kilo data dir', sessionId: 'a Kilo session id'},
  },
} satisfies Partial<FormatAdapter>
