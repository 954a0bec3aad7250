/**
 * The OpenCode adapter. Its data dir (`$XDG_DATA_HOME/opencode`, default `~/.local/share/opencode`) is a store:
 * one session spreads over a session file, a message folder and one part folder per message (JSON tree,
 * ≤ 1.1.x), or over rows of `opencode.db` (≥ 1.2.0). `chatsIn` recognises the data dir, `listStore` lists its
 * sessions (store.ts), `diagnose` judges one session (tree.ts for the tree, here for the database).
 */
import type {Role} from '../../model/report.js'
import type {ChatDirSnapshot, Diagnosis, FormatAdapter} from '../../model/adapter.js'
import {diagnoseDatabaseSession} from '../opencode-family/database.js'
import {judgeDatabaseSnapshots} from '../opencode-family/snapshot.js'
import {EXPORT_SNIFF_BYTES, exportVersionOf, looksLikeExport, mayBeExportName} from '../opencode-family/export-sniff.js'
import {EXPORT_SIZE_CAP_BYTES, OPENCODE, STORAGE, defaultRoots, isDatabaseName, isDataDir, treeFileOf} from './layout.js'
import {listStore, type OpenCodeFacts} from './store.js'
import {diagnoseTreeSession} from './tree.js'
import {planOpenCodeRepair} from './repair.js'
import {inspectSession} from './inspect.js'
import {redactSessionFiles} from './redact.js'
import {OPENCODE_FINDING_KINDS, finding} from './findings.js'
import {annotateOpenCodeSession, diagnoseProjects, planProjects, projectFactsOf} from './projects-chat.js'
import {readProjects} from './projects.js'
import {opencodeFinder} from './find.js'
import {captureOpenCode, diagnoseGone, judgeSnapshots, openCodeChatKey, openCodeGoneChat, redactOpenCodeSnapshot} from './snapshot.js'
import {openCodeHook} from './hook.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** The role of a file of a database chat: the database files, or the tree's session file (an older generation). */
function roleOf(name: string): Role {
  return isDatabaseName(name.replace(/-(?:wal|shm)$/, '')) ? 'database' : treeFileOf(name).kind === 'session' ? 'backup' : 'other'
}

/**
 * True for an export OpenCode wrote: the export's shape, and its session's `version` (when its first bytes hold
 * it) one OpenCode has released, 0.x or 1.x; a later one is a fork's, whose adapter takes it.
 */
export function isOpenCodeExport(head: Uint8Array): boolean {
  if (!looksLikeExport(head)) return false
  const v = exportVersionOf(head)
  return v === null || (Number.parseInt(v, 10) || 0) < 2
}

/** Diagnoses one OpenCode chat from its snapshot and the facts `listStore` gathered. Never throws. */
export function diagnoseOpenCode(snapshot: ChatDirSnapshot): Diagnosis {
  const projects = projectFactsOf(snapshot)
  if (projects) return diagnoseProjects(snapshot, projects)
  const facts = snapshot.unit.facts as OpenCodeFacts | undefined
  if (!facts) return {kind: 'skipped', reason: 'not listed by the OpenCode store listing'}
  if (facts.kind === 'database') {
    const d = diagnoseDatabaseSession(OPENCODE, snapshot, facts, roleOf)
    return d.kind === 'chat' && snapshot.snapshots?.length ? {kind: 'chat', report: judgeDatabaseSnapshots(OPENCODE, d.report, snapshot.snapshots, facts)} : d
  }
  if (facts.kind === 'gone') {
    const {path: _p, ...report} = diagnoseGone(snapshot.snapshots, facts, snapshot.unit.path)
    return {kind: 'chat', report}
  }
  const report = diagnoseTreeSession(snapshot.files, facts)
  if (facts.sessionId === null || !snapshot.snapshots?.length) return {kind: 'chat', report}
  // chatdoctor's stored snapshots: generations of the session, and the winner when the files on disk are worse.
  const v = judgeSnapshots(snapshot.snapshots, snapshot.files, facts.sessionId)
  const generations = [...report.generations, ...v.generations]
  if (!v.win || report.status === 'healthy') return {kind: 'chat', report: {...report, generations}}
  const c = v.win.context
  const f = finding('snapshot-restores', null, `${v.win.name} holds ${plural(c.userTurns, 'user turn')} and ${plural(c.messages, 'message')}, more than a repair of the files on disk keeps; repair writes its files back`)
  return {kind: 'chat', report: {...report, generations, status: 'repairable', winner: v.win.name, contextTurns: c.userTurns, ranking: v.win.ranking, findings: [...report.findings, f]}}
}

/** The OpenCode format adapter. */
export const opencode: FormatAdapter = {
  name: 'opencode',
  findingKinds: OPENCODE_FINDING_KINDS,
  vocabulary: ['opencode', 'opencode.db', 'sessionID', 'messageID', 'projectID', 'storage/'],
  displayName: 'OpenCode',
  defaultRoots,
  chatsIn: (dir, names) => (isDataDir(dir, names) ? {chats: [], descend: false, store: true} : null),
  // Tree files are classified; database files are only stat'ed (never read in place).
  wantsContent: (name) => treeFileOf(name).kind !== 'other',
  diagnose: diagnoseOpenCode,
  listStore,
  find: opencodeFinder,
  planRepair: (chat, opts) => (projectFactsOf(chat.snapshot) ? planProjects(chat) : planOpenCodeRepair(chat, opts)),
  indexes: {
    storesOf: (chats) => [...new Set(chats.map((c) => c.dir))],
    read: (dir) => readProjects(dir),
    annotate: annotateOpenCodeSession,
  },
  inspect: (chat) => (projectFactsOf(chat.snapshot) ? {account: "OpenCode's projects: the sessions filed under another project than their directory's are in the findings."} : inspectSession(chat.report)),
  redact: redactSessionFiles,
  // The export checker (and zod, its schema) loads only when an export is checked or written.
  sessionExport: {
    capBytes: EXPORT_SIZE_CAP_BYTES,
    export: async (units, id, opts) => (await import('./export-session.js')).exportTreeSession(units, id, opts),
    diagnose: async (name, data, mtimeMs) => (await import('./export-chat.js')).diagnoseExportFile(name, data, mtimeMs),
  },
  discoveryPaths: ['.config/opencode', '.local/share/opencode'],
  documents: {
    mayBeName: mayBeExportName,
    sniffBytes: EXPORT_SNIFF_BYTES,
    looksLike: isOpenCodeExport,
    skipFolders: [STORAGE],
    fallback: true,
    diagnose: async (name, data, mtimeMs) => (await import('./export-chat.js')).diagnoseExportFile(name, data, mtimeMs),
  },
  // Export files and tree files are JSON (told apart by content); a store's database files are needed whole.
  archiveWants: (name) => name.toLowerCase().endsWith('.json') || isDatabaseName(name.replace(/-(?:wal|shm)$/, '')),
  snapshot: {chatKey: openCodeChatKey, capture: captureOpenCode, redact: redactOpenCodeSnapshot, hook: openCodeHook, goneChat: openCodeGoneChat},
  texts: {sessionUnlisted: 'OpenCode still cannot list this session, but the other sessions of the store are listed again'},
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
}
