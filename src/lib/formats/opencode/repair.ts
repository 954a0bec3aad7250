/**
 * The repair plan of one OpenCode chat. Pure: from the scanned chat to the actions `pipeline/apply.ts`
 * executes.
 *
 * JSON tree: each damaged file `planTreeRepair` names (plan.ts in this folder) is a `move`: out of
 * `storage/` into the evidence folder `<data dir>/.chatdoctor/<repairId>/<session id>/`, under the same
 * relative path. That folder is outside `storage/` (OpenCode globs every non-dot file below `storage/` and
 * nothing else of the data dir as sessions, peer-formats.md §1.3) and dot-named (chatdoctor's discovery and any
 * tool that skips dot-folders leave it alone). `pipeline/apply.ts` makes a move a hard link (or a fsynced copy) into the
 * evidence folder, verified by sha256, then an unlink of the original: at every instant the file is in the
 * tree, in the evidence folder, or in both; never in neither. Nothing is rewritten: the files that stay are
 * untouched. The report says exactly what the session loses (`lost`: message and part ids, context before and
 * after). A damaged session file is moved too, although its session stays unrecoverable: left in place it
 * hides every session of the store (B04).
 *
 * A session whose winner is a stored snapshot (`snapshot:<time>`) gets the snapshot's files written back
 * (`planSnapshotRestore`, snapshot.ts) instead.
 *
 * A database session whose winner is a stored export snapshot is imported with `opencode import`
 * (`planDatabaseImport`, opencode-family/snapshot.ts), which adds the rows the store lacks.
 *
 * SQLite store: not repaired by chatdoctor (its pages are not files to move); the chat's outcome is `manual`
 * with the next steps, and nothing is written. The same for a session that is only missing from the database
 * beside the tree (the fix is an import, which OpenCode itself must write).
 */
import type {ChatPlan, PlannedAction, PlanOptions, ScannedChat, WatchedFile} from '../../model/adapter.js'
import {manualDatabaseSteps, newerStore, newerStoreAdvice} from '../opencode-family/database.js'
import {planDatabaseImport} from '../opencode-family/snapshot.js'
import {OPENCODE} from './layout.js'
import {planTreeRepair} from './plan.js'
import {planGoneImport, planSnapshotRestore} from './snapshot.js'
import type {OpenCodeFacts} from './store.js'

/** Plans the repair of one OpenCode chat. Pure; never throws. */
export function planOpenCodeRepair(chat: ScannedChat, opts: PlanOptions): ChatPlan {
  const {report, snapshot} = chat
  const plan: ChatPlan = {chat, actions: [], watch: [], temps: [], evidenceSub: report.id}
  if (opts.restoreFrom !== undefined) {
    plan.problem = '--restore-from is for Codebuff chats; an OpenCode session is repaired by moving its damaged files out of the tree'
    return plan
  }
  const facts = snapshot.unit.facts as OpenCodeFacts | undefined
  if (!facts) return plan
  if (facts.kind === 'gone') return planGoneImport(chat, plan, facts)
  if (facts.kind === 'database') {
    if (report.winner?.startsWith('snapshot:') && facts.session !== null && !newerStore(facts)) return planDatabaseImport(OPENCODE, chat, plan, facts.session.id)
    if (newerStore(facts)) plan[report.status === 'repairable' ? 'manual' : 'advice'] = newerStoreAdvice(OPENCODE, facts.file)
    else if (report.status === 'repairable') plan.manual = manualDatabaseSteps(OPENCODE, facts.file)
    return plan
  }
  if (report.winner?.startsWith('snapshot:') && facts.sessionId !== null) return planSnapshotRestore(chat, plan, facts.sessionId)
  const tp = planTreeRepair(facts.sessionId, snapshot.files)
  plan.lost = tp.loss
  if (tp.moves.length === 0) {
    delete plan.lost
    if (report.status === 'repairable' && facts.inDatabase === false && facts.sessionId !== null) {
      plan.manual = `not repairable by chatdoctor: ${facts.sessionId} is only in the legacy JSON tree, which OpenCode 1.16+ no longer imports; chatdoctor bundle --session ${facts.sessionId} -o ${facts.sessionId}.json, then opencode import ${facts.sessionId}.json`
    } else if (report.status === 'degraded') {
      const lostParts = tp.loss.parts.length
      plan.advice = `degraded: left as it is; ${lostParts > 0 ? `${lostParts} part${lostParts === 1 ? '' : 's'} whose message file is gone (OpenCode never reads them) and ` : ''}no damaged file to move out of the tree; nothing written`
    }
    return plan
  }
  const watch: WatchedFile[] = []
  const actions: PlannedAction[] = []
  for (const m of tp.moves) {
    const entry = snapshot.files.find((f) => f.name === m.file)
    if (entry) watch.push({name: m.file, bytes: entry.bytes, mtimeMs: entry.mtimeMs})
    actions.push({type: 'move', from: m.file, to: m.file, sha256: m.sha256, why: m.why})
  }
  actions.push({type: 'restore-mtime', from: null, to: '.', sha256: null, mtimeMs: snapshot.dirMtimeMs})
  plan.watch = watch
  plan.actions = actions
  plan.statusAfter = tp.statusAfter
  return plan
}
