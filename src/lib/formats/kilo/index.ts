/**
 * The Kilo Code CLI adapter. Kilo (an OpenCode fork) keeps its sessions in a SQLite store with the same
 * `session`, `message` and `part` tables as OpenCode ≥ 1.2: `$XDG_DATA_HOME/kilo/kilo.db` (default
 * `~/.local/share/kilo`) with its `-wal` and `-shm`, other channels `kilo-<channel>.db`. A member of the OpenCode
 * store family (`opencode-family/`): the family reads the database on a private copy and diagnoses each session;
 * this folder adds Kilo's names and paths, what Kilo's next start destroys (diagnose.ts), the repair that sets a
 * broken store aside first (plan.ts) and Kilo's live signals (live.ts). `kilo export` files are checked like
 * `opencode export` files. Sources: layout.ts.
 */
import type {FormatAdapter} from '../../model/adapter.js'
import {databaseFinder} from '../opencode-family/find.js'
import {EXPORT_SNIFF_BYTES, exportVersionOf, looksLikeExport, mayBeExportName} from '../opencode-family/export-sniff.js'
import {inspectKilo} from './account.js'
import {diagnoseKilo} from './diagnose.js'
import {KILO_FINDING_KINDS} from './findings.js'
import {AGENT_PROCESS, KILO, STORAGE, defaultRoots, isDataDir, isStoreFile} from './layout.js'
import {kiloLiveReasons} from './live.js'
import {planKiloRepair} from './plan.js'
import {redactKiloFiles} from './redact.js'
import {listStore} from './store.js'
import {captureKilo, kiloChatKey, kiloGoneChat, redactKiloSnapshot} from './snapshot.js'
import {kiloHook} from './hook.js'

/**
 * True for an export whose session a Kilo build created: its `version` is 2.0 or later. OpenCode has released
 * only 0.x and 1.x, and the Kilo CLI built on OpenCode numbers from 1.0 (its database came with 7.0.26), so a
 * Kilo 1.x export is checked as OpenCode's (the same checks, `format: opencode`).
 */
export function isKiloExport(head: Uint8Array): boolean {
  if (!looksLikeExport(head)) return false
  const v = exportVersionOf(head)
  return v !== null && (Number.parseInt(v, 10) || 0) >= 2
}

/** The Kilo Code CLI format adapter. No `quick`: a database is not judged from the ends of its files. */
export const kilo: FormatAdapter = {
  name: 'kilo',
  displayName: 'Kilo',
  vocabulary: ['kilo', 'kilo.db', 'KILO_DB', 'kilocode', 'session_diff'],
  findingKinds: KILO_FINDING_KINDS,
  defaultRoots,
  discoveryPaths: ['.local/share/kilo'],
  chatsIn: (dir, names) => (isDataDir(dir, names) ? {chats: [], descend: false, store: true} : null),
  // The database files are only stat'ed (never read in place: the listing reads a private copy).
  wantsContent: () => false,
  diagnose: diagnoseKilo,
  listStore,
  planRepair: planKiloRepair,
  agentProcess: AGENT_PROCESS,
  liveReasons: (snapshot) => kiloLiveReasons(snapshot),
  inspect: (chat) => inspectKilo(chat),
  redact: redactKiloFiles,
  find: databaseFinder(KILO),
  documents: {
    mayBeName: mayBeExportName,
    sniffBytes: EXPORT_SNIFF_BYTES,
    looksLike: isKiloExport,
    skipFolders: [STORAGE],
    diagnose: async (name, data, mtimeMs) => (await import('./export-chat.js')).diagnoseExportFile(name, data, mtimeMs),
  },
  archiveWants: (name) => name.toLowerCase().endsWith('.json') || isStoreFile(name),
  snapshot: {chatKey: kiloChatKey, capture: captureKilo, redact: redactKiloSnapshot, hook: kiloHook, goneChat: kiloGoneChat},
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
}
