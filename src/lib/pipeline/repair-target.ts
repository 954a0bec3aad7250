/**
 * What `repair PATH…` plans, as plain data: the scan of PATHs (every index chat kept, since a repair may rewrite
 * what one describes) and each chat's plan (a quiet index stays only when it follows a rewrite of this run);
 * or why not (a PATH that names a file no chat holds; a `--restore-from` that does not name an intact generation
 * of the one chat in scope). `repair --dry-run` prints the plans' report (`dryRunReport`). Read-only.
 */
import type {Report} from '../model/report.js'
import {isQuietIndex} from './indexes.js'
import {planRepairs, restorableGenerations, type ChatPlan} from './plan.js'
import {buildRepairReport, newRepairId} from './repair-report.js'
import {scanPaths, type ScanResult} from './scan.js'

export interface RepairTargetOptions {
  home: string
  env: NodeJS.ProcessEnv
  salvage?: boolean
  restoreFrom?: string
  force?: boolean
  redactedSnapshots?: boolean
}

export type RepairTarget = {result: ScanResult; plans: ChatPlan[]} | {notChatFile: string} | {usage: string}

/** The scan of `paths` and the plan of each chat in it, or why there is none. */
export async function planTarget(paths: string[], opts: RepairTargetOptions): Promise<RepairTarget> {
  const result = await scanPaths(paths, {home: opts.home, env: opts.env, indexes: 'all', redactedSnapshots: opts.redactedSnapshots})
  if (result.notChatFiles.length > 0) return {notChatFile: result.notChatFiles[0]}
  const restoreFrom = opts.restoreFrom
  if (restoreFrom !== undefined) {
    const chats = result.chats.filter((c) => !c.snapshot.unit.index)
    if (chats.length !== 1) return {usage: `--restore-from needs exactly one chat in scope (found ${chats.length}); give its chat dir as PATH`}
    const ok = restorableGenerations(chats[0].report)
    if (!ok.includes(restoreFrom)) return {usage: `--restore-from: ${restoreFrom} is not an intact generation of ${chats[0].report.path} (intact: ${ok.length === 0 ? 'none' : ok.length <= 6 ? ok.join(', ') : `${ok.slice(0, 3).join(', ')} … ${ok.at(-1)}, ${ok.length} in all; chatdoctor inspect lists them`})`}
  }
  // A quiet index (healthy, nothing to say) stays in the report only when it follows a rewrite of this run.
  const plans = planRepairs(result.chats, {salvage: opts.salvage, restoreFrom, force: opts.force}).filter((p) => p.actions.length > 0 || p.refusal !== undefined || !isQuietIndex(p.chat))
  return {result, plans}
}

/** The report `repair --dry-run` prints for a target's plans: nothing attempted, nothing written. */
export function dryRunReport(t: {result: ScanResult; plans: ChatPlan[]}, opts: {version: string; home: string}): Report {
  const report = buildRepairReport({version: opts.version, home: opts.home, dryRun: true, repairId: newRepairId(), plans: t.plans, results: new Map(), skipped: t.result.skipped, errors: t.result.errors, interrupted: false})
  report.roots = t.result.roots
  return report
}
