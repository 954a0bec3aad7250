/**
 * Diagnosis of one Kilo chat: a session of a database (the store family's diagnosis, `opencode-family/database.ts`),
 * with what Kilo's own next start does to a store it cannot read (observed on 7.7.7, new-agents.md §3.5), the
 * classes of the database and its WAL as bytes, and the store whose database is gone. Pure.
 *
 * Kilo's next start, observed: on an empty `kilo.db` it runs its migrations into it and resets the WAL beside it
 * (1483232 → 309032 bytes: the old frames are written over); on a `kilo.db` SQLite cannot read ("file is not a
 * database", a NUL-filled file) its first start fails and deletes `kilo.db-wal` and `kilo.db-shm`. A WAL beside a
 * broken database holds the only copy left of the pages it last wrote: `scan` says so in its default output
 * (`next-start-loss`), and `repair` sets the whole set aside first (plan.ts). A database cut short that SQLite
 * still opens makes every start fail at its `wal_checkpoint` and is left untouched (`repairable`, manual).
 */
import type {ChatDirSnapshot, Diagnosis} from '../../model/adapter.js'
import type {Finding, Generation, Role} from '../../model/report.js'
import {diagnoseDatabaseSession, type DatabaseSessionFacts} from '../opencode-family/database.js'
import {emptyContext} from '../opencode-family/measure.js'
import {walLoss, type WalFacts} from '../opencode-family/wal.js'
import {judgeDatabaseSnapshots} from '../opencode-family/snapshot.js'
import {finding} from './findings.js'
import {diagnoseKiloGone} from './snapshot.js'
import {KILO, isStoreFile} from './layout.js'
import type {GoneFacts, KiloFacts} from './store.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** The role of a file of a Kilo chat: the database and its WAL and index, or something else. */
export function roleOf(name: string): Role {
  return isStoreFile(name) ? 'database' : 'other'
}

/** What a WAL holds, in words: `1483232 bytes, 360 frames: 1 of its current cycle (1 commit), 359 older page versions`. */
export function walHolds(wal: WalFacts): string {
  if (!wal.headerValid) return `${wal.bytes} bytes that SQLite does not take for a WAL`
  const cycle = `${wal.validFrames} of its current cycle (${plural(wal.commits, 'commit')})`
  return `${wal.bytes} bytes, ${plural(wal.frames, 'frame')}: ${cycle}${wal.staleFrames > 0 ? `, ${plural(wal.staleFrames, 'older page version')} of earlier cycles` : ''}`
}

/** Sets the byte classes of the database and its WAL on the chat's generations (and their sha256, as copied). */
function classify(generations: Generation[], facts: DatabaseSessionFacts, integrityOk: boolean): void {
  for (const g of generations) {
    if (facts.sha256[g.file]) g.sha256 = facts.sha256[g.file]
    if (g.file === facts.file && facts.db) {
      g.class = facts.db.class === 'intact' && (!integrityOk || facts.error !== null) ? 'corrupt' : facts.db.class
      if (facts.db.class === 'truncated' && facts.db.pages !== null && facts.db.pageSize !== null) {
        g.reasons = ['unexpected-end']
        g.damage = {offset: facts.db.bytes, length: facts.db.pages * facts.db.pageSize - facts.db.bytes}
      }
    } else if (g.file === `${facts.file}-wal` && facts.wal) {
      const wal = facts.wal
      const loss = walLoss(wal, facts.shm)
      const frameSize = (wal.pageSize ?? 0) + 24
      if (wal.bytes === 0) g.class = 'empty'
      else if (!wal.headerValid) g.class = 'corrupt'
      else if (wal.brokenFrame !== null) {
        g.class = 'corrupt'
        g.damage = {offset: 32 + (wal.brokenFrame - 1) * frameSize, length: frameSize}
      } else if (wal.partialBytes > 0 || (loss?.committedFrames ?? 0) > 0) {
        g.class = 'truncated'
        g.reasons = ['unexpected-end']
        g.damage = {offset: wal.bytes - wal.partialBytes, length: wal.partialBytes}
      } else g.class = 'intact'
    }
  }
}

/** What Kilo's next start destroys of a store SQLite cannot read, as a finding (null when nothing). */
function nextStartLoss(facts: DatabaseSessionFacts, files: ChatDirSnapshot['files']): Finding | null {
  const wf = `${facts.file}-wal`
  const wal = files.find((f) => f.name === wf && f.kind === 'file')
  // Only for a database that was read as bytes (one that could not even be copied says nothing of what Kilo does).
  if (facts.session !== null || facts.db === null || !wal || wal.bytes === 0) return null
  const holds = facts.wal ? walHolds(facts.wal) : `${wal.bytes} bytes`
  const set = [facts.file, wf, `${facts.file}-shm`].filter((n) => files.some((f) => f.name === n)).join(', ')
  const what =
    facts.db?.class === 'empty'
      ? `${facts.file} is empty (0 bytes): Kilo's next start takes it for a new store, runs its migrations into it and resets ${wf}, writing over it`
      : `SQLite cannot read ${facts.file} (${facts.error ?? 'not a database'}): Kilo's next start fails, and that first start deletes ${wf} and ${facts.file}-shm`
  return finding('next-start-loss', wf, `${what} (observed on Kilo 7.7.7); ${wf} (${holds}) holds the only copy left of the pages Kilo wrote last. chatdoctor repair moves ${set} together into the evidence folder first (chatdoctor undo puts them back), so Kilo starts a new, empty store and destroys nothing; run it, or chatdoctor bundle the store, before Kilo starts again`)
}

/** The chat of a data dir whose database is gone. */
function diagnoseGone(snapshot: ChatDirSnapshot, facts: GoneFacts): Diagnosis {
  const generations: Generation[] = [{file: facts.file, role: 'database', class: 'missing', reasons: [], bytes: 0, mtimeMs: null, sha256: null, turns: null}]
  for (const f of snapshot.files) generations.push({file: f.name, role: roleOf(f.name), class: null, reasons: [], bytes: f.bytes, mtimeMs: f.mtimeMs, sha256: facts.sha256[f.name] ?? null, turns: null})
  const traced = facts.traced.length > 0 ? `; ${plural(facts.traced.length, 'session')} ${facts.traced.length === 1 ? 'is' : 'are'} still named by Kilo's file diffs in storage/session_diff/ (${facts.traced.slice(0, 3).join(', ')}${facts.traced.length > 3 ? ', …' : ''}), which hold no conversation` : ''
  const findings: Finding[] = [finding('database-missing', facts.file, `no ${facts.file} in Kilo's data dir: its store is gone (deleted), and every session with it${traced}; Kilo's next start makes a new, empty store`)]
  const wal = snapshot.files.find((f) => f.name === `${facts.file}-wal` && f.kind === 'file' && f.bytes > 0)
  if (wal) {
    findings.push(finding('next-start-loss', wal.name, `${wal.name} (${facts.wal ? walHolds(facts.wal) : `${wal.bytes} bytes`}) is left without its database: Kilo's next start creates a new ${facts.file}, and SQLite deletes a WAL it finds beside a new database; that WAL holds the only copy left of the pages Kilo wrote last. chatdoctor repair moves ${facts.leftovers.join(' and ')} into the evidence folder first (chatdoctor undo puts them back); run it, or chatdoctor bundle the data dir, before Kilo starts again`))
  }
  return {kind: 'chat', report: {format: KILO.format, id: facts.file, status: 'unrecoverable', winner: null, transcriptTurns: null, contextTurns: null, findings, generations, ranking: [], context: emptyContext()}}
}

/** Diagnoses one Kilo chat from its snapshot and the facts `listStore` gathered. Never throws. */
export function diagnoseKilo(snapshot: ChatDirSnapshot): Diagnosis {
  const facts = snapshot.unit.facts as KiloFacts | undefined
  if (!facts) return {kind: 'skipped', reason: 'not listed by the Kilo store listing'}
  if (facts.kind === 'legacy') return {kind: 'skipped', reason: "Kilo 1.x JSON storage (storage/session/…) with no kilo.db: not diagnosed yet; Kilo 7 imports it into kilo.db at its next start"}
  if (facts.kind === 'gone') return diagnoseGone(snapshot, facts)
  if (facts.kind === 'session-gone') return {kind: 'chat', report: diagnoseKiloGone(snapshot.snapshots, facts)}
  const diagnosis = diagnoseDatabaseSession(KILO, snapshot, facts, roleOf)
  if (diagnosis.kind !== 'chat') return diagnosis
  const r = diagnosis.report
  classify(r.generations, facts, facts.integrity.length === 1 && facts.integrity[0] === 'ok')
  const d = facts.db
  if (d?.class === 'truncated' && d.pages !== null && d.pageSize !== null) {
    const have = Math.floor(d.bytes / d.pageSize)
    // A cut database is damaged even where SQLite finds the missing pages in the WAL: Kilo's start fails on it.
    if (r.status === 'healthy' || r.status === 'degraded') r.status = 'repairable'
    r.findings.unshift(finding('database-damaged', facts.file, `${facts.file} is cut short: ${d.bytes} of the ${d.pages * d.pageSize} bytes its header records (${have} of its ${plural(d.pages, 'page')}); SQLite reads the ${plural(d.pages - have, 'page')} past the cut only where ${facts.file}-wal holds a copy, and Kilo fails at every start (its WAL checkpoint) and changes nothing (observed on Kilo 7.7.7)`))
  }
  const loss = nextStartLoss(facts, snapshot.files)
  if (loss) r.findings.push(loss)
  const hasWal = snapshot.files.some((f) => f.name === `${facts.file}-wal`)
  if (!hasWal && facts.session !== null && facts.db?.class === 'intact') {
    r.findings.push(finding('wal-missing', facts.file, `no ${facts.file}-wal beside ${facts.file}: Kilo keeps its WAL after every run, so SQLite removed it at a clean close (another tool opened the store), or it was deleted, taking any commit not yet in ${facts.file} with it (Kilo copies the WAL into ${facts.file} at every start, so at most its last run's); what ${facts.file} holds reads whole`))
  }
  // chatdoctor's stored snapshots: generations of the session, and the winner when its rows hold less.
  return snapshot.snapshots?.length ? {kind: 'chat', report: judgeDatabaseSnapshots(KILO, r, snapshot.snapshots, facts)} : diagnosis
}
