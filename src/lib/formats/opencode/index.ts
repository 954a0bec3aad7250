/**
 * The OpenCode adapter. Its data dir (`$XDG_DATA_HOME/opencode`, default `~/.local/share/opencode`) is a store:
 * one session spreads over a session file, a message folder and one part folder per message (JSON tree,
 * ≤ 1.1.x), or over rows of `opencode.db` (≥ 1.2.0). `chatsIn` recognises the data dir, `listStore` lists its
 * sessions (store.ts), `diagnose` judges one session (tree.ts for the tree, here for the database).
 */
import {finding} from './findings.js'
import type {ChatStatus, Finding, Generation} from '../../model/report.js'
import type {ChatDirSnapshot, Diagnosis, FormatAdapter} from '../../model/adapter.js'
import {EXPORT_SIZE_CAP_BYTES, STORAGE, defaultRoots, isDatabaseName, isDataDir, treeFileOf} from './layout.js'
import {emptyContext} from './measure.js'
import {listStore, type DatabaseSessionFacts, type OpenCodeFacts} from './store.js'
import {diagnoseTreeSession, issueFindings} from './tree.js'
import {planOpenCodeRepair} from './repair.js'
import {inspectSession} from './inspect.js'
import {redactSessionFiles} from './redact.js'
import {EXPORT_SNIFF_BYTES, looksLikeExport, mayBeExportName} from './export-sniff.js'
import {OPENCODE_FINDING_KINDS} from './findings.js'
import {opencodeFinder} from './find.js'
import {captureOpenCode, judgeSnapshots, openCodeChatKey} from './snapshot.js'
import {openCodeHook} from './hook.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

function statGenerations(snapshot: ChatDirSnapshot): Generation[] {
  return snapshot.files.map((f) => ({
    file: f.name,
    role: isDatabaseName(f.name.replace(/-(?:wal|shm)$/, '')) ? 'database' : treeFileOf(f.name).kind === 'session' ? 'backup' : 'other',
    class: null,
    reasons: [],
    bytes: f.bytes,
    mtimeMs: f.mtimeMs,
    sha256: null,
    turns: null,
  }))
}

/**
 * Diagnoses one session of the database (or the database as a whole when it could not be read).
 * Status: `unrecoverable` when the database cannot be read; `repairable` when it fails its integrity check
 * (the rows still readable can be exported and imported into a fresh store) or holds unreadable rows;
 * `degraded` when parts have no message or the structure loses context; else `healthy`.
 */
export function diagnoseDatabaseSession(snapshot: ChatDirSnapshot, facts: DatabaseSessionFacts): Diagnosis {
  const generations = statGenerations(snapshot)
  const findings: Finding[] = []
  const s = facts.session
  if (s === null) {
    findings.push(finding('database-unreadable', facts.file, `could not read ${facts.file} (on a private copy): ${facts.error ?? 'unknown error'}`))
    return {kind: 'chat', report: {format: 'opencode', id: facts.file, status: 'unrecoverable', winner: null, transcriptTurns: null, contextTurns: null, findings, generations, ranking: [], context: emptyContext()}}
  }
  const integrityOk = facts.integrity.length === 1 && facts.integrity[0] === 'ok'
  if (!integrityOk) findings.push(finding('database-damaged', facts.file, `integrity check failed: ${facts.integrity.slice(0, 3).join('; ')}${facts.integrity.length > 3 ? ` (+${facts.integrity.length - 3} more)` : ''}`))
  for (const q of facts.queryErrors) findings.push(finding('database-damaged', facts.file, `reading a table stopped part-way: ${q}; the counts of ${s.id} are incomplete`))
  if (s.unreadableRows > 0) findings.push(finding('database-damaged', facts.file, `${plural(s.unreadableRows, 'row')} of ${s.id} whose data is not a JSON object`))
  if (s.orphanParts > 0) findings.push(finding('orphan-parts', facts.file, `${plural(s.orphanParts, 'part row')} of ${s.id} whose message row is gone`))
  // With a table read cut short, missing parts are the damage already reported, not separate losses.
  if (facts.queryErrors.length === 0) findings.push(...issueFindings(s.issues, () => facts.file))
  let status: ChatStatus
  if (!integrityOk || s.unreadableRows > 0 || facts.queryErrors.length > 0) status = 'repairable'
  else if (s.orphanParts > 0 || s.issues.length > 0) status = 'degraded'
  else status = 'healthy'
  return {
    kind: 'chat',
    report: {format: 'opencode', id: s.id, status, winner: facts.file, transcriptTurns: null, contextTurns: s.context.userTurns, findings, generations, ranking: [], context: s.context},
  }
}

/** Diagnoses one OpenCode chat from its snapshot and the facts `listStore` gathered. Never throws. */
export function diagnoseOpenCode(snapshot: ChatDirSnapshot): Diagnosis {
  const facts = snapshot.unit.facts as OpenCodeFacts | undefined
  if (!facts) return {kind: 'skipped', reason: 'not listed by the OpenCode store listing'}
  if (facts.kind === 'database') return diagnoseDatabaseSession(snapshot, facts)
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
  planRepair: planOpenCodeRepair,
  inspect: (chat) => inspectSession(chat.report),
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
    looksLike: looksLikeExport,
    skipFolders: [STORAGE],
    diagnose: async (name, data, mtimeMs) => (await import('./export-chat.js')).diagnoseExportFile(name, data, mtimeMs),
  },
  // Export files and tree files are JSON (told apart by content); a store's database files are needed whole.
  archiveWants: (name) => name.toLowerCase().endsWith('.json') || isDatabaseName(name.replace(/-(?:wal|shm)$/, '')),
  snapshot: {chatKey: openCodeChatKey, capture: captureOpenCode, hook: openCodeHook},
  texts: {sessionUnlisted: 'OpenCode still cannot list this session, but the other sessions of the store are listed again'},
  help: {
    roots: "OpenCode's data dir ($XDG_DATA_HOME/opencode, default ~/.local/share/opencode; its database is read on a private copy, never opened in place)",
    find: 'OpenCode: opencode --session <id> from its project folder (sessions of the JSON tree; not yet those of opencode.db)',
    repair: 'OpenCode JSON-tree sessions: damaged files move out of storage/ into <data dir>/.chatdoctor/<repairId>/ and the report says what each session lost; a damaged OpenCode database is left for a manual repair (next steps given).',
    inspect: 'An OpenCode session lists its session, message and part files with their classes.',
    bundle: 'OpenCode: a session of the JSON tree goes in with its session, message and part files (its data dir as CHAT_DIR); sessions of the 1.2+ database go in as the database files and cannot be redacted.',
    store: {dir: 'an OpenCode data dir', sessionId: 'an OpenCode session id'},
    sessionExport: {
      paragraph: `--session ID -o FILE.json writes one OpenCode JSON-tree session as an \`opencode export\` document instead (the same JSON OpenCode's own export prints, for \`opencode import\` into OpenCode 1.2+), searching CHAT_DIR (an OpenCode data dir) or the default data dir. Sessions whose files exceed --max-session-bytes (default ${EXPORT_SIZE_CAP_BYTES} bytes, 256 MiB) are refused; damaged message and part files are left out and counted. --redact applies (ids, roles, counts and times kept; the result still passes \`check\`).`,
      flag: 'Write this OpenCode JSON-tree session as an `opencode export` JSON document (FILE.json) instead of an archive.',
    },
    examples: {bundle: ['--session ses_dd6249cf0ffevk8ay20nf1cCNR -o session.json']},
  },
}
