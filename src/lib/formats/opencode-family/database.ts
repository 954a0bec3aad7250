/**
 * Diagnosis of one session of a store's database, from the facts `readDatabase` gathered on a private copy:
 * its integrity, its rows, its context, and what the write-ahead log lost (`wal.ts`). Pure.
 *
 * Status: `unrecoverable` when the database cannot be read; `repairable` when it fails its integrity check (the
 * rows still readable can be exported and imported into a fresh store) or holds unreadable rows; `degraded` when
 * parts have no message, the structure loses context, the WAL lost what the session last wrote, or its last
 * answer never finished; else `healthy`.
 */
import path from 'node:path'
import type {ChatStatus, Finding, Generation, Role, SessionContext} from '../../model/report.js'
import type {ChatDirSnapshot, ChatUnit, Diagnosis} from '../../model/adapter.js'
import {finding, issueFindings, loneSurrogateFindings} from './findings.js'
import {emptyContext} from './measure.js'
import type {StoreMember} from './member.js'
import {storeFiles, type DatabaseFacts, type DbFileFacts, type DbSession, type LastTurn} from './sqlite.js'
import {unknownMigrations} from './migrations.js'
import {walLoss, type ShmFacts, type WalFacts, type WalLoss} from './wal.js'

/** Facts handed to `diagnose` for a session of a database (or for a database that could not be read). */
export interface DatabaseSessionFacts {
  kind: 'database'
  file: string
  error: string | null
  integrity: string[]
  /** Reads of the message/part tables that failed part-way (the session's counts are then incomplete). */
  queryErrors: string[]
  /** Null when the database could not be read at all (the chat then stands for the whole file). */
  session: DbSession | null
  /** The database file's bytes, its WAL and its WAL index, as copied (store-wide). */
  db: DbFileFacts | null
  wal: WalFacts | null
  shm: ShmFacts | null
  /** sha256 of the database's files as copied, when the member asked for them. */
  sha256: Record<string, string>
  /** Why what the WAL lost most likely belongs to this session (see `walSuspects`); null when it does not. */
  walSuspect: WalSuspicion | null
  /** The store's applied migrations chatdoctor does not know (`migrations.ts`): non-empty for a store a newer build migrated. */
  newerMigrations: string[]
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** True for a last answer that never finished (an answer stopped by an error has its `error` and is finished). */
const unfinishedTurn = (t: LastTurn | null): t is LastTurn => t !== null && t.answer !== null && t.unfinished
/** True for a last prompt with no answer at all. */
const unanswered = (t: LastTurn | null): t is LastTurn => t !== null && t.prompt !== null && t.answer === null

/** Why a session is taken for the one whose writes the WAL lost. */
export type WalSuspicion = 'unfinished' | 'in-lost-bytes' | 'written-last'

/**
 * The sessions what the WAL lost most likely belongs to: those whose last turn is unfinished or unanswered;
 * else the one session whose id is written in the bytes SQLite ignores (pages hold rows of many sessions, so
 * only when it is the only one); else the session written last (the one the agent was writing). Empty when the
 * WAL lost nothing.
 */
export function walSuspects(db: DatabaseFacts): Map<string, WalSuspicion> {
  const out = new Map<string, WalSuspicion>()
  if (!db.wal || walLoss(db.wal, db.shm) === null) return out
  for (const s of db.sessions) if (s.lastTurn && (unfinishedTurn(s.lastTurn) || unanswered(s.lastTurn))) out.set(s.id, 'unfinished')
  if (out.size > 0) return out
  if (db.rolledBackSessions.length === 1) return out.set(db.rolledBackSessions[0], 'in-lost-bytes')
  const last = [...db.sessions].filter((s) => s.updatedMs !== null).sort((a, b) => b.updatedMs! - a.updatedMs! || (a.id < b.id ? -1 : 1))[0]
  if (last) out.set(last.id, 'written-last')
  return out
}

/**
 * The chats of one database: one per session row, or one for the whole file when it could not be read. `files`
 * are the database's files present in the data dir (the chat's members).
 */
export function databaseUnits(dataDir: string, db: DatabaseFacts, files: string[]): Array<ChatUnit & {facts: DatabaseSessionFacts}> {
  const store = {file: db.file, error: db.error, integrity: db.integrity, queryErrors: db.queryErrors, db: db.db, wal: db.wal, shm: db.shm, sha256: db.sha256, newerMigrations: unknownMigrations(db.migrations)}
  if (db.error !== null) return [{dir: dataDir, path: path.join(dataDir, db.file), members: files, facts: {kind: 'database', ...store, session: null, walSuspect: null}}]
  const suspects = walSuspects(db)
  return db.sessions.map((s) => ({dir: dataDir, path: `${path.join(dataDir, db.file)}#${s.id}`, members: files, facts: {kind: 'database', ...store, session: s, walSuspect: suspects.get(s.id) ?? null}}))
}

/** The database files of a store present among a data dir's entries. */
export const presentStoreFiles = (file: string, entries: readonly string[]) => storeFiles(file).filter((n) => entries.includes(n))

/** Generations of a database chat: its files, stat only (`roleOf` names each one's role). */
export function statGenerations(snapshot: ChatDirSnapshot, roleOf: (name: string) => Role): Generation[] {
  return snapshot.files.map((f) => ({file: f.name, role: roleOf(f.name), class: null, reasons: [], bytes: f.bytes, mtimeMs: f.mtimeMs, sha256: null, turns: null}))
}

/** Where the WAL stops being read, and what SQLite makes of it, in words. */
export function walStory(file: string, wal: WalFacts, loss: WalLoss, shm: ShmFacts | null): string {
  const wf = `${file}-wal`
  const frameSize = (wal.pageSize ?? 0) + 24
  const last = wal.brokenFrame ?? wal.validFrames
  const where =
    wal.brokenFrame !== null
      ? `frame ${wal.brokenFrame} of ${wf} is torn (its checksum fails)`
      : wal.partialBytes > 0
        ? `${wf} was cut inside frame ${wal.validFrames + 1} (it ends at byte ${wal.bytes}, ${wal.partialBytes} of the frame's ${frameSize} bytes)`
        : `${wf} ends after frame ${wal.validFrames}`
  const open = last - wal.lastCommit + (wal.partialBytes > 0 ? 1 : 0)
  const what =
    loss.committedFrames > 0
      ? `its index (${file}-shm) records ${shm!.mxFrame} committed frames, so the commits in frames ${wal.lastCommit + 1}–${shm!.mxFrame} are gone`
      : `the ${plural(open, 'frame')} after its last commit belong to a transaction that never committed`
  const to = wal.lastCommit > 0 ? `frame ${wal.lastCommit}, its last whole commit` : `${file} alone (the WAL holds no whole commit)`
  return `${where}; ${what}: SQLite silently reads the store as of ${to}`
}

/** What an unfinished last turn looks like, in words (ids and counts only). */
export function turnStory(t: LastTurn): string {
  if (t.answer === null) return `its last prompt ${t.prompt} has no answer`
  const what: string[] = []
  if (t.emptyTexts > 0) what.push(`${plural(t.emptyTexts, 'empty text part')}`)
  if (t.openSteps > 0) what.push(`${t.openSteps === 1 ? 'a model step' : `${t.openSteps} model steps`} without its end (no step-finish)`)
  if (t.pendingTools > 0) what.push(`${plural(t.pendingTools, 'tool call')} still running`)
  if (t.unfinished) what.push('no completion time')
  return `its last answer ${t.answer} (to ${t.prompt}) has ${what.length > 0 ? what.join(', ') : 'every part'}`
}


/** The findings of what the WAL lost and of an unfinished last turn, for one session. */
export function turnFindings(member: StoreMember, facts: DatabaseSessionFacts, s: DbSession): Finding[] {
  const loss = facts.wal ? walLoss(facts.wal, facts.shm) : null
  const t = s.lastTurn
  if (loss && facts.walSuspect && facts.wal) {
    const severity = loss.committedFrames > 0 ? 'error' : 'warning'
    const story = walStory(facts.file, facts.wal, loss, facts.shm)
    if (unfinishedTurn(t) || unanswered(t)) {
      return [finding('turn-rolled-back', `${facts.file}-wal`, `the last turn of ${s.id} was rolled back: ${story}; ${turnStory(t)}. The rest of the turn is not on disk; ${member.displayName} goes on from this state at its next start`, severity)]
    }
    const why = facts.walSuspect === 'in-lost-bytes' ? `its id is written in the bytes SQLite ignores` : `it is the session ${member.displayName} wrote last`
    return [finding('wal-torn', `${facts.file}-wal`, `${story}; what those writes held is lost. Most likely they were ${s.id}'s (${why}); its rows show nothing unfinished, so they changed rows that are still there`, severity)]
  }
  if (unfinishedTurn(t)) return [finding('turn-unfinished', facts.file, `${turnStory(t)}: ${member.displayName} stopped in the middle of that turn (killed, or the machine went down), unless it is answering right now; the write-ahead log is whole`)]
  return []
}

/** True when a newer build than chatdoctor knows migrated the store: chatdoctor then reports only and writes nothing in it. */
export const newerStore = (facts: {newerMigrations?: string[]}): boolean => (facts.newerMigrations?.length ?? 0) > 0

/** The finding of a store migrated by a newer build (none when chatdoctor knows every applied migration). */
export function newerStoreFindings(member: StoreMember, facts: DatabaseSessionFacts): Finding[] {
  const n = facts.newerMigrations
  if (n.length === 0) return []
  return [finding('store-newer', facts.file, `written by a newer ${member.displayName} than chatdoctor knows (its migration table records ${plural(n.length, 'migration')} chatdoctor does not know: ${n.slice(0, 3).join(', ')}${n.length > 3 ? ` (+${n.length - 3} more)` : ''}): use that ${member.displayName}; chatdoctor reports only and will not write; the sessions are diagnosed from the tables it knows`)]
}

/** Diagnoses one session of a database (or the database as a whole when it could not be read). */
export function diagnoseDatabaseSession(member: StoreMember, snapshot: ChatDirSnapshot, facts: DatabaseSessionFacts, roleOf: (name: string) => Role): Diagnosis {
  const generations = statGenerations(snapshot, roleOf)
  const findings: Finding[] = []
  const s = facts.session
  if (s === null) {
    findings.push(finding('database-unreadable', facts.file, `could not read ${facts.file} (on a private copy): ${facts.error ?? 'unknown error'}`))
    return {kind: 'chat', report: {format: member.format, id: facts.file, status: 'unrecoverable', winner: null, transcriptTurns: null, contextTurns: null, findings, generations, ranking: [], context: emptyContext()}}
  }
  const integrityOk = facts.integrity.length === 1 && facts.integrity[0] === 'ok'
  if (!integrityOk) findings.push(finding('database-damaged', facts.file, `integrity check failed: ${facts.integrity.slice(0, 3).join('; ')}${facts.integrity.length > 3 ? ` (+${facts.integrity.length - 3} more)` : ''}`))
  for (const q of facts.queryErrors) findings.push(finding('database-damaged', facts.file, `reading a table stopped part-way: ${q}; the counts of ${s.id} are incomplete`))
  if (s.unreadableRows > 0) findings.push(finding('database-damaged', facts.file, `${plural(s.unreadableRows, 'row')} of ${s.id} whose data is not a JSON object`))
  if (s.orphanParts > 0) findings.push(finding('orphan-parts', facts.file, `${plural(s.orphanParts, 'part row')} of ${s.id} whose message row is gone`))
  // With a table read cut short, missing parts are the damage already reported, not separate losses.
  if (facts.queryErrors.length === 0) findings.push(...issueFindings(s.issues, () => facts.file))
  const turn = facts.queryErrors.length === 0 ? turnFindings(member, facts, s) : []
  findings.push(...turn)
  findings.push(...loneSurrogateFindings(s.loneSurrogates, facts.file, member.displayName))
  findings.push(...newerStoreFindings(member, facts))
  if (facts.newerMigrations.length > 0) for (const g of generations) if (g.file === facts.file) g.reasons = [...g.reasons, 'unsupported-version']
  let status: ChatStatus
  if (!integrityOk || s.unreadableRows > 0 || facts.queryErrors.length > 0) status = 'repairable'
  else if (s.orphanParts > 0 || s.issues.length > 0 || turn.length > 0) status = 'degraded'
  else status = 'healthy'
  const context: SessionContext = s.context
  return {
    kind: 'chat',
    report: {format: member.format, id: s.id, status, winner: facts.file, transcriptTurns: null, contextTurns: s.context.userTurns, findings, generations, ranking: [], context},
  }
}

/**
 * The next steps of a damaged database (not repaired by chatdoctor: its pages are not files to put back), for a
 * repair's `manual` outcome.
 */
export function manualDatabaseSteps(member: StoreMember, db: string): string {
  return `not repairable by chatdoctor: ${db} is damaged (its pages are not files chatdoctor can put back); quit ${member.displayName}, copy ${db}, ${db}-wal and ${db}-shm aside, then run sqlite3 ${db} ".recover" | sqlite3 recovered.db and check the sessions with ${member.command} export <sessionID> before replacing ${db} with recovered.db`
}

/** A repair's advice for a store a newer build migrated: report-only, nothing written in it. */
export function newerStoreAdvice(member: StoreMember, db: string): string {
  return `report-only: ${db} was written by a newer ${member.displayName} than chatdoctor knows; use that ${member.displayName} (its own export) to read or repair it; nothing written`
}
