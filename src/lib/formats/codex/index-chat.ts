/**
 * Codex's index as a chat: its diagnosis (each database a generation of role `index`, each disagreement with
 * the rollouts a finding), what it says of each rollout's chat (`annotate`), its repair plan, and the follow-up
 * that keeps the thread-history projection true to rollouts chatdoctor rewrites in the same run.
 *
 * Repairs (each tried on the real Codex CLI 0.169.0, `scripts/realbin/codex-trials.mjs`):
 * - a state database that does not open, or fails its check, and holds nothing the rollouts do not: moved with
 *   its `-wal`/`-shm` into the evidence folder; Codex rebuilds it from the rollouts at its next start;
 * - an intact state database whose rows disagree with the rollouts: its rows repaired on a private copy in one
 *   transaction (`rollout_path` of a moved rollout set to where it is; the `backfill_state` row deleted so Codex
 *   scans the rollouts again and adds the rows it lacks, keeping names, pins and archive flags), the copy
 *   checkpointed and written over the original, its `-wal`/`-shm` moved aside first;
 * - a thread-history database whose projection no longer matches a rollout, or that describes a rollout the
 *   same run rewrites: moved with its `-wal`/`-shm` into the evidence folder; Codex rebuilds each projection when
 *   the thread is next read.
 * A database chatdoctor cannot read fully, of an unknown schema, or not a SQLite file at all (encrypted), and a
 * `-wal` without its database are diagnosed and never written.
 */
import path from 'node:path'
import type {ChatDirSnapshot, ChatPlan, Diagnosis, IndexAnnotation, PlannedAction, ScannedChat} from '../../model/adapter.js'
import type {ChatStatus, Finding, Generation} from '../../model/report.js'
import {damageOf} from '../../sqlite/index.js'
import {finding} from './findings.js'
import {codexHomeOf, type CodexIndexFacts, type DbFacts, type Drift} from './index-store.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** The index facts of a snapshot, when it is Codex's index chat. */
export function indexFactsOf(snapshot: Pick<ChatDirSnapshot, 'unit'>): CodexIndexFacts | null {
  const f = snapshot.unit.facts as CodexIndexFacts | undefined
  return f && f.kind === 'codex-index' ? f : null
}

const damage = damageOf

/** Whether chatdoctor may move a damaged database aside for Codex to rebuild (a SQLite file it could judge). */
function movable(db: DbFacts): boolean {
  return db.header !== 'foreign' && db.header !== 'unreadable' && db.userState.length === 0
}

/** The repair the index gets, decided from its facts (shared by diagnosis and plan). */
interface IndexRepair {
  stateMove: boolean
  stateRows: boolean
  historyMove: boolean
  /** What chatdoctor does not repair itself, with the next steps (the `manual` outcome). */
  manual: string[]
}

function decide(f: CodexIndexFacts): IndexRepair {
  const r: IndexRepair = {stateMove: false, stateRows: false, historyMove: false, manual: []}
  const rebuilds = `Codex rebuilds it from the ${plural(f.rollouts.length, 'rollout')} at its next start`
  if (f.state) {
    const why = damage(f.state)
    if (why !== null) {
      if (movable(f.state)) r.stateMove = true
      else if (f.state.header === 'foreign') r.manual.push(`${f.state.file} is ${why}: chatdoctor never writes it; if Codex cannot open it either, move ${f.state.file} (with its -wal and -shm) aside yourself while Codex is not running: ${rebuilds}`)
      else r.manual.push(`${f.state.file} is ${why} and holds what Codex cannot rebuild (${f.state.userState.join(', ')}): moving it aside would lose that; copy what you need out of it (sqlite3 .recover on a copy), then move it aside while Codex is not running: ${rebuilds}`)
    } else if (f.state.knownSchema && f.rowRepair) r.stateRows = true
    else if (f.state.knownSchema && f.rowRepairError) r.manual.push(`the rows of ${f.state.file} could not be repaired on a copy (${f.rowRepairError})`)
  }
  const stale = f.drift.some((d) => d.kind === 'projection-stale')
  if (f.history) {
    const why = damage(f.history)
    if ((why !== null || stale) && movable(f.history)) r.historyMove = true
    else if (why !== null || stale) r.manual.push(`${f.history.file} ${why ?? 'no longer matches its rollouts'} and holds what Codex does not rebuild (${f.history.userState.join(', ') || 'rows chatdoctor cannot read'}); move it aside yourself while Codex is not running if that may go`)
  }
  return r
}

function dbGenerations(snapshot: ChatDirSnapshot, db: DbFacts | null): Generation[] {
  if (!db) return []
  const out: Generation[] = []
  for (const name of [db.file, `${db.file}-wal`, `${db.file}-shm`]) {
    const e = snapshot.files.find((x) => x.name === name)
    if (!e) continue
    const g: Generation = {file: name, role: 'index', class: null, reasons: [], bytes: e.bytes, mtimeMs: e.mtimeMs, sha256: null, turns: null}
    if (name === db.file) {
      if (db.header === 'empty') g.class = 'empty'
      else if (db.header === 'zeroed') {
        g.class = 'corrupt'
        g.reasons = ['nul-run']
      } else if (db.header === 'foreign') {
        g.class = 'corrupt'
        g.reasons = ['wrong-shape']
      } else if (db.header !== 'sqlite' || db.error !== null) {
        g.class = 'corrupt'
        g.reasons = ['unreadable']
      } else g.class = damage(db) === null ? 'intact' : 'corrupt'
    }
    out.push(g)
  }
  return out
}

function driftFinding(d: Drift, f: CodexIndexFacts, r: IndexRepair): Finding {
  const db = f.state?.file ?? 'the state database'
  switch (d.kind) {
    case 'moved':
      return finding('index-entry-missing', db, `thread ${d.id}: its row names ${d.listed}, which is gone; the rollout is at ${d.found}, so \`codex exec resume ${d.id}\` fails ("no rollout found for thread id")${r.stateRows ? '; a repair points the row at it' : ''}`)
    case 'gone':
      return finding('index-entry-missing', db, `thread ${d.id}: its row names ${d.listed}, and no rollout of this thread is below ${f.home}: it cannot be resumed, and nothing is on disk to rebuild it from (the row is left as it is)`)
    case 'outside':
      return finding('index-entry-missing', db, `thread ${d.id}: its row names ${d.listed}, outside ${f.home}${d.exists ? '' : ', where no file is'}; reported, never followed for writing`, d.exists ? 'info' : 'warning')
    case 'not-listed':
      if (f.backfillComplete === false) return finding('not-in-index', db, `thread ${d.id} (${d.rel}) has no row yet; Codex's scan of the rollouts is pending, so it adds the row at its next start`, 'info')
      return finding('not-in-index', db, `thread ${d.id} (${d.rel}) has no row, so Codex does not list it (\`codex exec resume ${d.id}\` still opens it and puts the row back)${r.stateRows ? '; a repair clears the backfill marker so Codex scans the rollouts again at its next start and adds it' : ''}`)
    case 'projection-stale':
      return finding('index-stale', f.history?.file ?? null, `thread ${d.id} (${d.rel}): ${d.why}; Codex reads this thread's turns at those offsets and a resume does not correct them${r.historyMove ? `; a repair moves ${f.history?.file} aside and Codex rebuilds the projection` : ''}`)
  }
}

/** Diagnoses Codex's index chat. Pure. */
export function diagnoseCodexIndex(snapshot: ChatDirSnapshot, f: CodexIndexFacts): Diagnosis {
  const generations = [...dbGenerations(snapshot, f.state), ...dbGenerations(snapshot, f.history)]
  for (const w of f.orphanWal) {
    const e = snapshot.files.find((x) => x.name === w)
    if (e) generations.push({file: w, role: 'index', class: null, reasons: [], bytes: e.bytes, mtimeMs: e.mtimeMs, sha256: null, turns: null})
  }
  const r = decide(f)
  const findings: Finding[] = []
  const rebuilds = `Codex rebuilds it from the ${plural(f.rollouts.length, 'rollout')}`
  if (f.state) {
    const why = damage(f.state)
    if (why !== null) findings.push(finding('index-damaged', f.state.file, `${f.state.file} is ${why}: Codex fails every \`codex exec resume\` while it is there (the rollouts are intact)${r.stateMove ? `; a repair moves it with its -wal and -shm into the evidence folder and ${rebuilds} at its next start` : ''}`))
    else if (!f.state.knownSchema) findings.push(finding('index-unreadable', f.state.file, `${f.state.file} has no threads table of the shape chatdoctor knows (a Codex version it does not know): diagnosed as far as it opens, never written`, 'info'))
    if (f.state.userState.length > 0) findings.push(finding('index-holds-state', f.state.file, `${f.state.file} holds what Codex does not rebuild from the rollouts: ${f.state.userState.join(', ')}; a repair changes its rows, never moves it aside`))
  }
  if (f.history) {
    const why = damage(f.history)
    if (why !== null) findings.push(finding('index-damaged', f.history.file, `${f.history.file} is ${why}${r.historyMove ? `; a repair moves it with its -wal and -shm into the evidence folder and Codex rebuilds each projection` : ''}`, 'warning'))
  }
  for (const w of f.orphanWal) findings.push(finding('index-unreadable', w, `${w} has no database beside it: left as it is, never written (Codex starts a new database and rebuilds it from the rollouts)`, 'info'))
  for (const d of f.drift) findings.push(driftFinding(d, f, r))
  for (const m of r.manual) findings.push(finding('index-unreadable', null, m))

  const fixable = r.stateMove || r.stateRows || r.historyMove
  const gone = f.drift.some((d) => d.kind === 'gone')
  let status: ChatStatus = 'healthy'
  if (fixable || r.manual.length > 0) status = 'repairable'
  else if (gone) status = 'degraded'
  const main = f.state?.file ?? f.history?.file ?? f.orphanWal[0] ?? null
  return {
    kind: 'chat',
    report: {format: 'codex', id: 'index', status, winner: main, transcriptTurns: null, contextTurns: f.threads.length, findings, generations, ranking: []},
  }
}

/** What Codex's index says of one rollout's chat. Pure. */
export function annotateCodexSession(session: Pick<ScannedChat, 'report' | 'snapshot'>, indexes: ReadonlyArray<Pick<ScannedChat, 'report' | 'snapshot'>>): IndexAnnotation | null {
  const home = codexHomeOf(session.snapshot.unit.path)
  const idx = indexes.find((i) => indexFactsOf(i.snapshot)?.home === home)
  const f = idx ? indexFactsOf(idx.snapshot) : null
  if (!idx || !f || home === null) return null
  const id = session.report.id.toLowerCase()
  const file = path.basename(session.snapshot.unit.path)
  const r = decide(f)
  const findings: Finding[] = []
  let repairedBy: string | undefined
  const by = idx.snapshot.unit.path
  if (f.state && damage(f.state) !== null) {
    findings.push(finding('index-damaged', file, `${f.state.file} is ${damage(f.state)}: \`codex exec resume ${session.report.id}\` fails until ${r.stateMove ? 'the index is repaired (chatdoctor repair moves it aside; Codex rebuilds it)' : 'it is moved aside'}`))
    if (r.stateMove) repairedBy = by
  }
  for (const d of f.drift) {
    if (d.id.toLowerCase() !== id) continue
    if (d.kind === 'not-listed' && f.backfillComplete === false) {
      findings.push(finding('not-in-index', file, `Codex's ${f.state?.file ?? 'state database'} has no row for this thread yet; its scan of the rollouts is pending, so it adds the row at its next start (\`codex exec resume ${session.report.id}\` opens it now)`, 'info'))
    } else if (d.kind === 'not-listed') {
      findings.push(finding('not-in-index', file, `Codex's ${f.state?.file ?? 'state database'} has no row for this thread, so Codex does not list it (\`codex resume\`, \`codex exec resume --last\`); \`codex exec resume ${session.report.id}\` opens it${r.stateRows ? ', and after a repair Codex adds it back at its next start' : ''}`))
      if (r.stateRows) repairedBy = by
    } else if (d.kind === 'moved') {
      findings.push(finding('index-entry-missing', file, `Codex's index names ${d.listed} for this thread, which is gone, so \`codex exec resume ${session.report.id}\` fails ("no rollout found for thread id")${r.stateRows ? '; after a repair it opens this file' : ''}`))
      if (r.stateRows) repairedBy = by
    } else if (d.kind === 'projection-stale') {
      findings.push(finding('index-stale', file, `Codex's ${f.history?.file ?? 'thread history'} no longer matches this rollout (${d.why}); ${r.historyMove ? `after a repair Codex rebuilds it (\`codex exec resume ${session.report.id}\`)` : 'move it aside while Codex is not running'}`))
      if (r.historyMove) repairedBy = by
    }
  }
  return findings.length > 0 ? {findings, ...(repairedBy ? {repairedBy} : {})} : null
}

/** Moves of a database and its `-wal`/`-shm` (those present) into the evidence folder. */
function moves(snapshot: ChatDirSnapshot, db: DbFacts, why: string, only: Array<'' | '-wal' | '-shm'> = ['', '-wal', '-shm']): PlannedAction[] {
  return only
    .map((s) => db.file + s)
    .filter((n) => snapshot.files.some((e) => e.name === n && e.kind === 'file'))
    .map((n) => ({type: 'move', from: n, to: n, sha256: null, why}))
}

/** The repair plan of Codex's index chat. Pure. */
export function planCodexIndex(chat: ScannedChat): ChatPlan {
  const f = indexFactsOf(chat.snapshot)!
  const plan: ChatPlan = {chat, actions: [], watch: chat.snapshot.files.filter((e) => e.kind === 'file').map((e) => ({name: e.name, bytes: e.bytes, mtimeMs: e.mtimeMs})), temps: [], evidenceSub: 'index'}
  if (chat.report.status !== 'repairable') return plan
  const r = decide(f)
  if (f.live.length > 0) {
    plan.refusal = `refused: ${f.live[0]}; quit Codex (and \`codex app-server daemon stop\`) and run chatdoctor repair again`
    return plan
  }
  if (r.stateMove && f.state) plan.actions.push(...moves(chat.snapshot, f.state, 'damaged-index'))
  else if (r.stateRows && f.state && f.rowRepair) {
    plan.actions.push({type: 'preserve', from: f.state.file, to: f.state.file, sha256: chat.report.generations.find((g) => g.file === f.state!.file)?.sha256 ?? null})
    plan.actions.push(...moves(chat.snapshot, f.state, 'index-rewritten', ['-wal', '-shm']))
    plan.actions.push({type: 'restore', from: `rows:${f.state.file}`, to: f.state.file, sha256: f.rowRepair.sha256, source: {kind: 'bytes', label: `rows:${f.state.file}`, data: f.rowRepair.bytes}, data: f.rowRepair.bytes})
  }
  if (r.historyMove && f.history) plan.actions.push(...moves(chat.snapshot, f.history, f.history && damage(f.history) !== null ? 'damaged-index' : 'stale-index'))
  if (r.manual.length > 0) {
    if (plan.actions.length === 0) plan.manual = r.manual.join('; ')
    else plan.warnings = [...(plan.warnings ?? []), ...r.manual]
  }
  plan.statusAfter = f.drift.some((d) => d.kind === 'gone') ? 'degraded' : 'healthy'
  return plan
}

/**
 * Keeps the thread-history projection true to rollouts other plans of the run rewrite: when one of them
 * rewrites a rollout below this `$CODEX_HOME` whose thread has a projection, the thread-history database moves
 * aside in this plan (Codex rebuilds it; its offsets would name the wrong lines); when it holds what Codex does
 * not rebuild, or Codex is running, that rewrite is refused instead. Pure.
 */
export function followCodexIndex(plan: ChatPlan, others: readonly ChatPlan[]): void {
  const f = indexFactsOf(plan.chat.snapshot)
  if (!f || !f.history) return
  for (const o of others) {
    if (o.refusal || o.problem || o.chat.report.format !== 'codex' || codexHomeOf(o.chat.snapshot.unit.path) !== f.home) continue
    const rewrites = o.actions.some((a) => (a.type === 'rewrite' || a.type === 'restore') && a.data !== undefined)
    if (!rewrites || !f.projected.includes(o.chat.report.id.toLowerCase())) continue
    const rollout = path.relative(f.home, o.chat.snapshot.unit.path)
    if (f.live.length > 0 || !movable(f.history) || plan.refusal) {
      o.refusal = `refused: rewriting ${rollout} would leave ${f.history.file}'s byte offsets into it wrong, and ${f.live[0] ?? plan.refusal ?? `${f.history.file} holds what Codex does not rebuild (${f.history.userState.join(', ')})`}; ${f.live.length > 0 ? 'quit Codex and run chatdoctor repair again' : `move ${f.history.file} aside yourself while Codex is not running, then run chatdoctor repair again`}`
      o.actions = []
      continue
    }
    if (!plan.actions.some((a) => a.type === 'move' && a.from === f.history!.file)) plan.actions.push(...moves(plan.chat.snapshot, f.history, 'stale-index'))
    plan.warnings = [...(plan.warnings ?? []), `${f.history.file} moves aside because ${rollout} is rewritten: its byte offsets into that rollout would be wrong; Codex rebuilds each thread's projection when the thread is next read`]
    plan.statusAfter ??= 'healthy'
  }
}
