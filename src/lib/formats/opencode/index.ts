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
import {EXPORT_SIZE_CAP_BYTES, OPENCODE, STORAGE, isDatabaseName, treeFileOf} from './layout.js'
import type {OpenCodeFacts} from './store.js'
import {opencodeLight} from './light.js'
import {diagnoseTreeSession} from './tree.js'
import {planOpenCodeRepair} from './repair.js'
import {inspectSession} from './inspect.js'
import {redactSessionFiles} from './redact.js'
import {finding} from './findings.js'
import {annotateOpenCodeSession, diagnoseProjects, planProjects, projectFactsOf} from './projects-chat.js'
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
  ...opencodeLight,
  // Tree files are classified; database files are only stat'ed (never read in place).
  wantsContent: (name) => treeFileOf(name).kind !== 'other',
  diagnose: diagnoseOpenCode,
  find: opencodeFinder,
  planRepair: (chat, opts) => (projectFactsOf(chat.snapshot) ? planProjects(chat) : planOpenCodeRepair(chat, opts)),
  indexes: {...opencodeLight.indexes, annotate: annotateOpenCodeSession},
  inspect: (chat) => (projectFactsOf(chat.snapshot) ? {account: "OpenCode's projects: the sessions filed under another project than their directory's are in the findings."} : inspectSession(chat.report)),
  redact: redactSessionFiles,
  // The export checker (and zod, its schema) loads only when an export is checked or written.
  sessionExport: {
    capBytes: EXPORT_SIZE_CAP_BYTES,
    export: async (units, id, opts) => (await import('./export-session.js')).exportTreeSession(units, id, opts),
    diagnose: async (name, data, mtimeMs) => (await import('./export-chat.js')).diagnoseExportFile(name, data, mtimeMs),
  },
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
}
