/**
 * The Cline CLI adapter (Cline 3.x's SDK store: `~/.cline/data/sessions/<id>/`, indexed by
 * `~/.cline/data/db/sessions.db`). Its data dir, sessions dir and session folders are stores (`chatsIn`
 * answers `store: true`); `listStore` lists the sessions with what the index says of them and whether Cline
 * is running (store.ts); `diagnose` judges one session (diagnose.ts); `planRepair` writes salvages
 * (plan.ts); the session index itself is a chat of role-`index` files (index-chat.ts). Not the VS Code extension's `tasks/<taskId>/` folders: another format.
 */
import type {FormatAdapter} from '../../model/adapter.js'
import type {Role} from '../../model/report.js'
import {diagnoseCline} from './diagnose.js'
import {CLINE_FINDING_KINDS} from './findings.js'
import {annotateClineSession, clineIndexFactsOf, clineStoresOf, diagnoseClineIndex, planClineIndex, readClineIndex} from './index-chat.js'
import {clineAccount} from './inspect.js'
import {SESSION_ID, defaultRoots, folderKind, isCertainDataDir, wantsContent} from './layout.js'
import {clineLiveReasons, planClineRepair} from './plan.js'
import {redactSessionFiles} from './redact.js'
import {listStore} from './store.js'
import {clineFinder} from './find.js'
import {clineHook} from './hook.js'
import {captureCline, redactClineSnapshot} from './snapshot.js'

/** The role of a file by its name alone (`scan --quick`): `<id>.messages.json` is the conversation, `<id>.json` the record. */
function roleOf(name: string): Role {
  if (name.endsWith('.messages.json') && SESSION_ID.test(name.slice(0, -'.messages.json'.length))) return 'primary'
  if (name.endsWith('.json') && SESSION_ID.test(name.slice(0, -'.json'.length))) return 'meta'
  return 'other'
}

/** The Cline CLI format adapter. */
export const cline: FormatAdapter = {
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
  wantsContent,
  quick: {roleOf, primary: '<id>.messages.json'},
  diagnose: (snapshot) => {
    const f = clineIndexFactsOf(snapshot)
    return f ? diagnoseClineIndex(snapshot, f) : diagnoseCline(snapshot)
  },
  listStore,
  planRepair: (chat, opts) => (clineIndexFactsOf(chat.snapshot) ? planClineIndex(chat) : planClineRepair(chat, opts)),
  liveReasons: clineLiveReasons,
  inspect: (chat) => ({account: clineIndexFactsOf(chat.snapshot) ? "Cline's session index db/sessions.db: what is wrong with it is in the findings." : clineAccount(chat)}),
  indexes: {
    storesOf: (chats) => clineStoresOf(chats),
    read: (dir) => readClineIndex(dir),
    annotate: annotateClineSession,
  },
  redact: redactSessionFiles,
  find: clineFinder,
  snapshot: {capture: captureCline, redact: redactClineSnapshot, hook: clineHook},
  help: {
    roots: "Cline CLI's data dir ($CLINE_DATA_DIR, else $CLINE_DIR/data, else ~/.cline/data; its session index is read on a private copy)",
    find: 'Cline CLI: cline --id <id> from its project folder (cline history does not list a session sessions.db lost)',
    repair:
      'Cline sessions (no older copy exists: Cline rewrites its files in place): a conversation Cline would read as empty is replaced by its salvage (its complete messages byte for byte, brackets closed), a damaged session record by its salvage when Cline\'s schema accepts it; refused while Cline runs (its hub daemon, a hub lock, a cline process of the data dir): when the scan saw it, even with --force. A damaged db/sessions.db that holds nothing the session folders do not is moved aside with its -wal and -shm, for Cline to recreate from the folders.',
    inspect: "A Cline session folder (or its .messages.json) gets an account of Cline's in-place writes and of what its next start would destroy.",
    bundle: "Cline: each session folder goes in with its files; --redact keeps ids, roles, block types, tool names, numbers and the SDK's prompt markup, so turns count the same. A session only its index lists (its folder gone) has nothing to bundle and is skipped.",
    examples: {chat: '~/.cline/data/sessions/1796118198748_i47ig'},
  },
}
