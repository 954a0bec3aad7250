/**
 * The OpenCode adapter. Its data dir (`$XDG_DATA_HOME/opencode`, default `~/.local/share/opencode`) is a store:
 * one session spreads over a session file, a message folder and one part folder per message (JSON tree,
 * ≤ 1.1.x), or over rows of `opencode.db` (≥ 1.2.0). `chatsIn` recognises the data dir, `listStore` lists its
 * sessions (store.ts), `diagnose` judges one session (tree.ts for the tree, here for the database).
 */
import {finding} from '../../model/findings.js'
import type {ChatStatus, Finding, Generation} from '../../model/report.js'
import type {ChatDirSnapshot, Diagnosis, FormatAdapter} from '../../model/adapter.js'
import {defaultRoots, isDatabaseName, isDataDir, treeFileOf} from './layout.js'
import {emptyContext} from './measure.js'
import {listStore, type DatabaseSessionFacts, type OpenCodeFacts} from './store.js'
import {diagnoseTreeSession, issueFindings} from './tree.js'
import {planOpenCodeRepair} from './repair.js'

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
  return {kind: 'chat', report: diagnoseTreeSession(snapshot.files, facts)}
}

/** The OpenCode format adapter. */
export const opencode: FormatAdapter = {
  name: 'opencode',
  defaultRoots,
  chatsIn: (dir, names) => (isDataDir(dir, names) ? {chats: [], descend: false, store: true} : null),
  // Tree files are classified; database files are only stat'ed (never read in place).
  wantsContent: (name) => treeFileOf(name).kind !== 'other',
  diagnose: diagnoseOpenCode,
  listStore,
  planRepair: planOpenCodeRepair,
}
