/**
 * The OpenCode adapter's discovery part (the registry's `LIGHT_MEMBERS`): what a scan reads of every adapter
 * before it knows which agents' chats it found. The rest of the adapter (index.ts) is loaded for an OpenCode
 * data dir only; its listing (store.ts) and its projects index (projects.ts) load when they are read.
 */
import type {FormatAdapter} from '../../model/adapter.js'
import {OPENCODE_FINDING_KINDS} from './findings.js'
import {EXPORT_SIZE_CAP_BYTES, defaultRoots, isDataDir} from './layout.js'

/** The members of the OpenCode adapter that discovery, the indexes' stores, the help texts and the finding kinds read. */
export const opencodeLight = {
  name: 'opencode',
  findingKinds: OPENCODE_FINDING_KINDS,
  vocabulary: ['opencode', 'opencode.db', 'sessionID', 'messageID', 'projectID', 'storage/'],
  displayName: 'OpenCode',
  defaultRoots,
  chatsIn: (dir, names) => (isDataDir(dir, names) ? {chats: [], descend: false, store: true} : null),
  listStore: async (dir) => (await import('./store.js')).listStore(dir),
  discoveryPaths: ['.config/opencode', '.local/share/opencode'],
  /** The projects index of the data dirs found; `annotate` comes with the whole adapter (index.ts). */
  indexes: {
    storesOf: (chats) => [...new Set(chats.map((c) => c.dir))],
    read: async (dir) => (await import('./projects.js')).readProjects(dir),
  },
  help: {
    roots: "OpenCode's data dir ($XDG_DATA_HOME/opencode, default ~/.local/share/opencode; its database is read on a private copy, never opened in place)",
    find: 'OpenCode: opencode --session <id> from its project folder (sessions of the JSON tree and of opencode.db, read on a private copy)',
    repair: 'OpenCode JSON-tree sessions: damaged files move out of storage/ into <data dir>/.chatdoctor/<repairId>/ and the report says what each session lost; a damaged OpenCode database is left for a manual repair (next steps given).',
    inspect: 'An OpenCode session lists its session, message and part files with their classes.',
    bundle: 'OpenCode: a session of the JSON tree goes in with its session, message and part files (its data dir as CHAT_DIR); sessions of the 1.2+ database go in as the database files; with --redact, a private copy holding only that session\'s rows, its text replaced.',
    store: {dir: 'an OpenCode data dir', sessionId: 'an OpenCode session id'},
    sessionExport: {
      paragraph: `--session ID -o FILE.json writes one OpenCode JSON-tree session as an \`opencode export\` document instead (the same JSON OpenCode's own export prints, for \`opencode import\` into OpenCode 1.2+), searching CHAT_DIR (an OpenCode data dir) or the default data dir. Sessions whose files exceed --max-session-bytes (default ${EXPORT_SIZE_CAP_BYTES} bytes, 256 MiB) are refused; damaged message and part files are left out and counted. --redact applies (ids, roles, counts and times kept; the result still passes \`check\`).`,
      flag: 'Write this OpenCode JSON-tree session as an `opencode export` JSON document (FILE.json) instead of an archive.',
    },
    examples: {bundle: ['--session ses_dd6249cf0ffevk8ay20nf1cCNR -o session.json']},
  },
} satisfies Partial<FormatAdapter>
