/**
 * Cline CLI's session index (`<data>/db/sessions.db` with its `-wal` and `-shm`) as a chat of its own, role
 * `index`: read on a private copy (`PRAGMA quick_check`, its tables counted), diagnosed, held against the
 * session chats (`annotate`), and repaired.
 *
 * What the session chats already say of the index (a session it does not list, a row whose folder is gone, an
 * index that cannot be read) stays in their own diagnosis (diagnose.ts); this chat says what is wrong with the
 * index file itself and carries its repair.
 *
 * The repair, as the real binary supports it (`shared/realdata/cline/3.0.65/damage/delete-index`): with
 * `sessions.db`, its `-wal` and `-shm` gone, Cline 3.0.65's first `cline history` recreated the database and
 * listed every session again from the session folders, and a resume kept the whole history. So a database that
 * is not one, or fails its check, is moved with its `-wal`/`-shm` into the evidence folder — only when it holds
 * nothing the session folders do not (rows of `schedules`, `schedule_executions`, `subagent_spawn_queue`: then
 * it is left for the user), and never while Cline runs. What Cline does with a present but damaged database was
 * not observed; the move makes it the absent one it was observed to rebuild. A `-wal` without its database, a
 * file that is not SQLite (encrypted) and one of an unknown schema are diagnosed and never written.
 */
import {lstatSync} from 'node:fs'
import path from 'node:path'
import type {ChatDirSnapshot, ChatPlan, Diagnosis, IndexAnnotation, PlannedAction, ScannedChat, StoreListing} from '../../model/adapter.js'
import type {ChatStatus, Finding, Generation} from '../../model/report.js'
import {damageOf, headerVerdict, quickCheck, readHead, rowCount, tableColumns, withPrivateCopy, type HeaderVerdict} from '../../sqlite/index.js'
import {finding} from './findings.js'
import {DB, INDEX_DB} from './layout.js'
import {clineLiveSigns} from './live.js'
import {sortedNames} from '../../fsio/names.js'

/** What chatdoctor read of Cline's session index. */
export interface ClineIndexFacts {
  kind: 'cline-index'
  /** The data dir whose `db/` holds the index. */
  dataDir: string
  /** `sessions.db` (null when only its `-wal` is there). */
  db: {
    bytes: number
    header: HeaderVerdict['kind'] | 'unreadable'
    /** `PRAGMA quick_check` lines (`['ok']` when healthy). */
    check: string[]
    /** Why the copy could not be opened or read (one line), or null. */
    error: string | null
    /** Whether it has the `sessions` table Cline 3.x writes. */
    knownSchema: boolean
    /** Rows of `sessions`. */
    sessions: number
    /** What it holds that the session folders do not (rows of its other tables), in words. */
    userState: string[]
  } | null
  /** `sessions.db-wal` without `sessions.db`. */
  orphanWal: boolean
  /** Signs that Cline runs for this data dir (its hub daemon, a hub lock, a cline process), in words. */
  live: string[]
  /** Always true: the index belongs to a store Cline writes (the `liveReasons` hook asks again before writing). */
  watched: true
}

/** The index facts of a snapshot, when it is Cline's index chat. */
export function clineIndexFactsOf(snapshot: Pick<ChatDirSnapshot, 'unit'>): ClineIndexFacts | null {
  const f = snapshot.unit.facts as ClineIndexFacts | undefined
  return f && f.kind === 'cline-index' ? f : null
}

/** Reads the session index in `<data>/db` (`dir`) into one chat; null when neither the database nor its `-wal` is there. Never throws. */
export async function readClineIndex(dir: string): Promise<StoreListing | null> {
  const names = sortedNames(dir)
  const has = (n: string) => names.includes(n)
  if (!has(INDEX_DB) && !has(`${INDEX_DB}-wal`)) return null
  const dataDir = path.dirname(dir)
  const facts: ClineIndexFacts = {kind: 'cline-index', dataDir, db: null, orphanWal: !has(INDEX_DB), live: clineLiveSigns(dataDir).map((s) => s.what), watched: true}
  if (has(INDEX_DB)) {
    const db: NonNullable<ClineIndexFacts['db']> = {bytes: 0, header: 'unreadable', check: [], error: null, knownSchema: false, sessions: 0, userState: []}
    facts.db = db
    try {
      const st = lstatSync(path.join(dir, INDEX_DB))
      if (!st.isFile()) db.error = 'not a regular file'
      else {
        db.bytes = st.size
        db.header = headerVerdict(await readHead(path.join(dir, INDEX_DB))).kind
      }
    } catch (e) {
      db.header = 'unreadable'
      db.error = String((e as Error)?.message ?? e).split('\n')[0]
    }
    // A first page zeroed or cut off on disk may still be whole in the WAL, which SQLite (and Cline) read with it.
    const inWal = has(`${INDEX_DB}-wal`) && (db.header === 'zeroed' || db.header === 'empty')
    if (db.header === 'sqlite' || inWal) {
      const header = db.header
      const r = await withPrivateCopy(dir, INDEX_DB, ({db: conn}) => {
        db.check = quickCheck(conn)
        const cols = tableColumns(conn)
        db.knownSchema = cols.get('sessions')?.has('session_id') === true
        if (db.knownSchema) db.sessions = rowCount(conn, 'sessions')
        for (const [table] of cols) {
          if (table === 'sessions' || table.startsWith('sqlite_')) continue
          const n = rowCount(conn, table)
          if (n > 0) db.userState.push(`${n} row${n === 1 ? '' : 's'} of ${table}`)
        }
        return true
      })
      if (typeof r === 'object') db.error = r.error
      if (inWal) {
        if (db.error === null && db.knownSchema && db.check.length === 1 && db.check[0] === 'ok') db.header = 'sqlite'
        else Object.assign(db, {header, check: [], error: null, knownSchema: false, sessions: 0, userState: []})
      }
    }
  }
  const members = [INDEX_DB, `${INDEX_DB}-wal`, `${INDEX_DB}-shm`].filter(has)
  return {chats: [{dir, path: dir, members, facts}], errors: []}
}

const damage = damageOf

/** Whether chatdoctor moves the damaged database aside for Cline to recreate (a SQLite file it could judge, holding nothing else). */
function movable(db: NonNullable<ClineIndexFacts['db']>): boolean {
  return db.header !== 'foreign' && db.header !== 'unreadable' && db.error === null && db.userState.length === 0
}

/** Whether a repair moves the index aside. */
function moves(f: ClineIndexFacts): boolean {
  return f.db !== null && damage(f.db) !== null && movable(f.db)
}

const REBUILD = 'Cline recreates it at its next start and lists the sessions from their folders again (observed on Cline 3.0.65 with the index removed)'

/** Diagnoses Cline's index chat. Pure. */
export function diagnoseClineIndex(snapshot: ChatDirSnapshot, f: ClineIndexFacts): Diagnosis {
  const generations: Generation[] = []
  for (const name of snapshot.unit.members ?? []) {
    const e = snapshot.files.find((x) => x.name === name)
    if (!e) continue
    const g: Generation = {file: name, role: 'index', class: null, reasons: [], bytes: e.bytes, mtimeMs: e.mtimeMs, sha256: null, turns: null}
    if (name === INDEX_DB && f.db) {
      const why = damage(f.db)
      if (f.db.header === 'empty') g.class = 'empty'
      else if (why === null) g.class = 'intact'
      else {
        g.class = 'corrupt'
        g.reasons = [f.db.header === 'zeroed' ? 'nul-run' : f.db.header === 'foreign' ? 'wrong-shape' : 'unreadable']
      }
    }
    generations.push(g)
  }
  const findings: Finding[] = []
  let status: ChatStatus = 'healthy'
  const file = `${DB}/${INDEX_DB}`
  if (f.db) {
    const why = damage(f.db)
    if (why !== null) {
      status = 'repairable'
      if (movable(f.db)) findings.push(finding('index-damaged', INDEX_DB, `${file} is ${why}; the session folders are intact: a repair moves it with its -wal and -shm into the evidence folder, and ${REBUILD}`))
      else if (f.db.header === 'foreign' || f.db.header === 'unreadable' || f.db.userState.length === 0) findings.push(finding('index-damaged', INDEX_DB, `${file} is ${why}: chatdoctor never writes it; if Cline cannot open it either, move it (with its -wal and -shm) aside yourself while Cline is not running: ${REBUILD}`))
      else findings.push(finding('index-damaged', INDEX_DB, `${file} is ${why} and holds what the session folders do not (${f.db.userState.join(', ')}): moving it aside would lose that; copy what you need out of it (sqlite3 .recover on a copy), then move it aside while Cline is not running: ${REBUILD}`))
    } else if (!f.db.knownSchema) findings.push(finding('index-unreadable', INDEX_DB, `${file} has no sessions table of the shape chatdoctor knows (a Cline version it does not know): diagnosed as far as it opens, never written`, 'info'))
  }
  if (f.orphanWal) findings.push(finding('index-unreadable', `${INDEX_DB}-wal`, `${DB}/${INDEX_DB}-wal has no database beside it: left as it is, never written (Cline starts a new index and lists the sessions from their folders)`, 'info'))
  return {
    kind: 'chat',
    report: {format: 'cline', id: 'index', status, winner: f.db ? INDEX_DB : `${INDEX_DB}-wal`, transcriptTurns: null, contextTurns: null, findings, generations, ranking: []},
  }
}

/** What Cline's index chat says of one of its sessions: the damaged index its repair replaces. Pure. */
export function annotateClineSession(session: Pick<ScannedChat, 'report' | 'snapshot'>, indexes: ReadonlyArray<Pick<ScannedChat, 'report' | 'snapshot'>>): IndexAnnotation | null {
  const dataDir = (session.snapshot.unit.facts as {dataDir?: string | null} | undefined)?.dataDir
  const idx = indexes.find((i) => clineIndexFactsOf(i.snapshot)?.dataDir === dataDir)
  const f = idx ? clineIndexFactsOf(idx.snapshot) : null
  if (!idx || !f || !f.db || damage(f.db) === null) return null
  const id = session.report.id
  const file = path.basename(session.snapshot.unit.path)
  if (!moves(f)) return {findings: [finding('index-damaged', file, `Cline's session index ${DB}/${INDEX_DB} is ${damage(f.db)}: \`cline history\` cannot list this session from it until it is moved aside (the session's own files are judged on their own)`)]}
  return {
    findings: [finding('index-damaged', file, `Cline's session index ${DB}/${INDEX_DB} is ${damage(f.db)}; after a repair ${REBUILD}; \`cline --id ${id}\` opens this session`)],
    repairedBy: idx.snapshot.unit.path,
  }
}

/** The repair plan of Cline's index chat: the damaged database moved aside with its `-wal`/`-shm`. Pure. */
export function planClineIndex(chat: ScannedChat): ChatPlan {
  const f = clineIndexFactsOf(chat.snapshot)!
  const plan: ChatPlan = {chat, actions: [], watch: chat.snapshot.files.filter((e) => e.kind === 'file').map((e) => ({name: e.name, bytes: e.bytes, mtimeMs: e.mtimeMs})), temps: [], evidenceSub: 'index'}
  if (chat.report.status !== 'repairable') return plan
  if (!moves(f)) {
    plan.manual = chat.report.findings.find((x) => x.id === 'index-damaged')?.message ?? `${DB}/${INDEX_DB} is not repaired by chatdoctor`
    return plan
  }
  if (f.live.length > 0) {
    plan.refusal = `refused: ${f.live[0]}; it writes ${DB}/${INDEX_DB} at any moment. Stop it (cline hub stop, and quit every cline) and run chatdoctor repair again`
    return plan
  }
  const actions: PlannedAction[] = [INDEX_DB, `${INDEX_DB}-wal`, `${INDEX_DB}-shm`]
    .filter((n) => chat.snapshot.files.some((e) => e.name === n && e.kind === 'file'))
    .map((n) => ({type: 'move', from: n, to: n, sha256: null, why: 'damaged-index'}))
  plan.actions = actions
  plan.statusAfter = 'healthy'
  return plan
}
