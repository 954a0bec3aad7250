/**
 * The Kilo Code CLI adapter. Kilo (an OpenCode fork) keeps its sessions in a SQLite store with the same
 * `session`, `message` and `part` tables as OpenCode ≥ 1.2: `$XDG_DATA_HOME/kilo/kilo.db` (default
 * `~/.local/share/kilo`) with its `-wal` and `-shm`, other channels `kilo-<channel>.db`. A member of the OpenCode
 * store family (`opencode-family/`): the family reads the database on a private copy and diagnoses each session;
 * this folder adds Kilo's names and paths, what Kilo's next start destroys (diagnose.ts), the repair that sets a
 * broken store aside first (plan.ts) and Kilo's live signals (live.ts). `kilo export` files are checked like
 * `opencode export` files. Sources: layout.ts. Its discovery part (light.ts) is listed on its own until a Kilo
 * store is found.
 */
import type {FormatAdapter} from '../../model/adapter.js'
import {databaseFinder} from '../opencode-family/find.js'
import {EXPORT_SNIFF_BYTES, exportVersionOf, looksLikeExport, mayBeExportName} from '../opencode-family/export-sniff.js'
import {inspectKilo} from './account.js'
import {diagnoseKilo} from './diagnose.js'
import {AGENT_PROCESS, KILO, STORAGE, isStoreFile} from './layout.js'
import {kiloLight} from './light.js'
import {kiloLiveReasons} from './live.js'
import {planKiloRepair} from './plan.js'
import {redactKiloFiles} from './redact.js'
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
  ...kiloLight,
  // The database files are only stat'ed (never read in place: the listing reads a private copy).
  wantsContent: () => false,
  diagnose: diagnoseKilo,
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
}
