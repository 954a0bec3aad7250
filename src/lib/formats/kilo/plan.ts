/**
 * The repair plan of one Kilo chat. Pure: from the scanned chat to the actions `pipeline/apply.ts` executes.
 *
 * - A store Kilo's next start would destroy (a database SQLite cannot read, or none at all, with a WAL beside it:
 *   `next-start-loss`): the WAL, its index and the database are moved together into the evidence folder
 *   `<data dir>/.chatdoctor/<repairId>/<database>/`, WAL first (at no moment does a broken database sit beside a
 *   WAL Kilo could reset). Each move is checked against the sha256 the scan took of the file as copied. Kilo then
 *   starts a new, empty store, and `chatdoctor undo` puts the set back byte for byte. The data dir's mtime is
 *   put back.
 * - A damaged database SQLite still opens (`repairable`): not repaired by chatdoctor (its pages are not files to
 *   put back); `manual`, with the next steps.
 * - A session whose last writes the WAL lost, or whose last turn never finished (`degraded`): nothing on disk
 *   holds what is missing; left as it is, and said so, unless a stored snapshot holds more (then, as for a
 *   session gone from the store, the snapshot is imported with `kilo import`: `snapshot.ts`).
 */
import type {ChatPlan, PlannedAction, PlanOptions, ScannedChat, WatchedFile} from '../../model/adapter.js'
import {manualDatabaseSteps, newerStore, newerStoreAdvice} from '../opencode-family/database.js'
import {KILO} from './layout.js'
import {planKiloImport} from './snapshot.js'
import type {KiloFacts} from './store.js'

/** Plans the repair of one Kilo chat. Pure; never throws. */
export function planKiloRepair(chat: ScannedChat, opts: PlanOptions): ChatPlan {
  const {report, snapshot} = chat
  const plan: ChatPlan = {chat, actions: [], watch: [], temps: [], evidenceSub: report.id}
  if (opts.restoreFrom !== undefined) {
    plan.problem = '--restore-from is for Codebuff chats; a Kilo store is set aside whole, or repaired by hand'
    return plan
  }
  const facts = snapshot.unit.facts as KiloFacts | undefined
  if (!facts || facts.kind === 'legacy') return plan
  if (facts.kind === 'session-gone') return report.winner?.startsWith('snapshot:') ? planKiloImport(chat, plan, facts.sessionId) : plan
  if (facts.kind === 'database' && facts.session !== null && report.winner?.startsWith('snapshot:') && !newerStore(facts)) return planKiloImport(chat, plan, facts.session.id)
  const file = facts.file
  if (facts.kind === 'database' && newerStore(facts)) {
    plan[report.status === 'repairable' ? 'manual' : 'advice'] = newerStoreAdvice(KILO, file)
    return plan
  }
  if (report.findings.some((f) => f.id === 'next-start-loss')) {
    const watch: WatchedFile[] = []
    const actions: PlannedAction[] = []
    for (const name of [`${file}-wal`, `${file}-shm`, file]) {
      const entry = snapshot.files.find((f) => f.name === name && f.kind === 'file')
      if (!entry) continue
      const g = report.generations.find((x) => x.file === name)
      watch.push({name, bytes: entry.bytes, mtimeMs: entry.mtimeMs})
      actions.push({type: 'move', from: name, to: name, sha256: g?.sha256 ?? null, why: name === file ? 'broken-database' : 'beside-broken-database'})
    }
    actions.push({type: 'restore-mtime', from: null, to: '.', sha256: null, mtimeMs: snapshot.dirMtimeMs})
    plan.watch = watch
    plan.actions = actions
    plan.statusAfter = 'unrecoverable'
    return plan
  }
  if (facts.kind === 'database' && report.status === 'repairable') plan.manual = manualDatabaseSteps(KILO, file)
  else if (report.status === 'degraded') plan.advice = `degraded: left as it is; what the session lost (${report.findings.filter((f) => f.severity !== 'info').map((f) => f.id).join(', ')}) is not on disk anywhere, so there is nothing to put back; nothing written`
  else if (report.status === 'unrecoverable') {
    plan.advice =
      facts.kind === 'gone'
        ? `nothing to restore: ${file} is gone and nothing beside it holds its pages; nothing written`
        : `nothing to restore: SQLite cannot read ${file} and no WAL beside it holds its pages; nothing written${facts.db?.class === 'empty' ? ` (Kilo's next start makes a new store in ${file})` : ` (Kilo fails to start on it: move ${file} aside by hand to let it start a new store)`}`
  }
  return plan
}
