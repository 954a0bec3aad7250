/**
 * The report of `repair` (and `repair --dry-run`): the `scan` report plus, per chat, its `actions` and what
 * the repair did (`repair`), and at the top `repairId` and `dryRun`. Pure.
 *
 * Exit status: the `scan` bitmask, where a repaired chat contributes 1 instead of 2; a chat left repairable
 * (dry run, declined, stopped) contributes 2; a refused or failed chat 2 + 8; a degraded chat left untouched 4;
 * a chat chatdoctor does not repair itself (`manual`) 2. A repair whose result still loses context
 * (`statusAfter` degraded or unrecoverable, e.g. an OpenCode session whose damaged files were moved out) adds 4,
 * so a second run exits with the first run's code minus bits 1 and 2.
 */
import {randomBytes} from 'node:crypto'
import type {ChatOutcome} from './apply.js'
import {runAgentImport, type ImportOutcome} from './agent-import.js'
import type {FileSystem} from '../fsio/fs.js'
import type {AgentImport} from '../model/adapter.js'
import {EXIT_CONTEXT_LOST, EXIT_OPERATIONAL, EXIT_REPAIRABLE, EXIT_REPAIRED} from '../model/exit-codes.js'
import type {ActionReport, ChatReport, ChatRepair, OperationalError, Report, Skipped} from '../model/report.js'
import {tildify} from '../fsio/paths.js'
import type {ChatPlan} from './plan.js'
import {buildReport} from './report.js'

/** A new repair id: the UTC time and 6 random hex digits, e.g. `20260830T090000Z-3fa91c` (sortable, unique). */
export function newRepairId(now = new Date()): string {
  const t = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
  return `${t}-${randomBytes(3).toString('hex')}`
}

/** What became of one chat: an outcome of `applyChat`, or a state that never reached it. */
export type ChatResult = ChatOutcome | ImportResult | 'planned' | 'not-attempted'

/** What an agent's importer made of a chat the store lost (`ChatPlan.agentImport`). */
export interface ImportResult {
  imported: ImportOutcome
}

/** Writes a lost chat's document and runs the agent's importer on it (`pipeline/agent-import.ts`). Never throws. */
export async function importChat(imp: AgentImport, ctx: {fs: FileSystem; stateDir: string; repairId: string; env: NodeJS.ProcessEnv}): Promise<ImportResult> {
  return {imported: await runAgentImport(imp, ctx)}
}

/**
 * The exit bit(s) one chat contributes to a `repair` run. An unrecoverable chat whose plan restores no agent
 * context (e.g. only its torn transcript) still contributes 4: its agent context stays lost.
 */
export function repairExitBits(chat: ChatReport): number {
  const r = chat.repair
  if (!r) return 0
  const primary = chat.generations.find((g) => g.role === 'primary')?.file
  const after = r.statusAfter
  const contextStaysLost =
    after !== undefined && (r.outcome === 'repaired' || r.outcome === 'planned')
      ? after === 'unrecoverable' || after === 'degraded'
        ? EXIT_CONTEXT_LOST
        : 0
      : chat.status === 'unrecoverable' && !(chat.actions ?? []).some((a) => a.type === 'restore' && a.to === primary)
        ? EXIT_CONTEXT_LOST
        : 0
  switch (r.outcome) {
    case 'repaired':
      return EXIT_REPAIRED | contextStaysLost
    case 'planned':
    case 'not-attempted':
      return EXIT_REPAIRABLE | contextStaysLost
    case 'refused':
    case 'failed':
      return EXIT_REPAIRABLE | EXIT_OPERATIONAL | contextStaysLost
    case 'not-repairable':
    case 'left-untouched':
      return EXIT_CONTEXT_LOST
    case 'manual':
      return EXIT_REPAIRABLE
    case 'not-needed':
      return 0
  }
}

/** Assembles the report of a `repair` run. `results` holds an entry for each plan with actions. */
export function buildRepairReport(args: {
  version: string
  home: string
  dryRun: boolean
  repairId: string
  plans: ChatPlan[]
  results: Map<ChatPlan, ChatResult>
  skipped: Skipped[]
  errors: OperationalError[]
  interrupted: boolean
}): Report {
  const t = (p: string | null) => (p === null ? null : tildify(p, args.home))
  let anyWritten = false
  const chats: ChatReport[] = args.plans.map((plan) => {
    const report = plan.chat.report
    const res = args.results.get(plan)
    let repair: ChatRepair
    let evidence: Array<string | null> = plan.actions.map(() => null)
    if (plan.problem) repair = {outcome: 'failed', message: plan.problem, evidence: null, undo: null, warnings: []}
    else if (plan.agentImport && res !== undefined && res !== 'planned' && res !== 'not-attempted' && 'imported' in res) repair = {outcome: res.imported.outcome, message: res.imported.message, evidence: t(res.imported.file), undo: null, warnings: []}
    else if (plan.agentImport) repair = {outcome: res === 'not-attempted' ? 'not-attempted' : args.dryRun ? 'planned' : 'not-attempted', message: args.dryRun ? `${plan.agentImport.what}: would be written as ${plan.agentImport.name} into chatdoctor's state folder, then imported with ${plan.agentImport.argv[0]} import (run when ${plan.agentImport.argv[0]} is on PATH, else the command is printed)` : `${plan.agentImport.what}: not written as ${plan.agentImport.name} and not imported with ${plan.agentImport.argv[0]} import`, evidence: null, undo: null, warnings: []}
    else if (plan.refusal) repair = {outcome: 'refused', message: plan.refusal, evidence: null, undo: null, warnings: []}
    else if (plan.manual) repair = {outcome: 'manual', message: plan.manual, evidence: null, undo: null, warnings: []}
    else if (plan.actions.length === 0 && report.status === 'unrecoverable') repair = {outcome: 'not-repairable', message: plan.advice ?? 'no usable generation of the agent context: nothing to restore, nothing written', evidence: null, undo: null, warnings: []}
    else if (plan.actions.length === 0 && report.status === 'degraded') repair = {outcome: 'left-untouched', message: plan.advice ?? 'the generation asked for is already the primary; nothing written', evidence: null, undo: null, warnings: []}
    else if (plan.actions.length === 0 && plan.by) {
      const byRes = args.results.get(plan.by)
      const byWhat = `through the repair of its index ${t(plan.by.chat.snapshot.unit.path)}`
      if (byRes === undefined || byRes === 'planned') repair = {outcome: args.dryRun ? 'planned' : 'not-attempted', message: `brought back ${byWhat}`, evidence: null, undo: null, warnings: []}
      else if (byRes === 'not-attempted' || 'imported' in byRes) repair = {outcome: 'not-attempted', message: `its index ${t(plan.by.chat.snapshot.unit.path)} was not repaired; nothing written`, evidence: null, undo: null, warnings: []}
      else repair = {outcome: byRes.outcome, message: byRes.outcome === 'repaired' ? `brought back ${byWhat}` : byRes.message, evidence: t(byRes.evidenceDir), undo: byRes.evidenceDir !== null ? `chatdoctor undo ${args.repairId}` : null, warnings: []}
    } else if (plan.actions.length === 0 && report.status === 'repairable') repair = {outcome: 'failed', message: `no repair can be planned for this ${report.format} chat yet; nothing written`, evidence: null, undo: null, warnings: []}
    else if (plan.actions.length === 0) repair = {outcome: 'not-needed', message: null, evidence: null, undo: null, warnings: []}
    else if (res === undefined || res === 'planned') repair = {outcome: args.dryRun ? 'planned' : 'not-attempted', message: null, evidence: null, undo: null, warnings: []}
    else if (res === 'not-attempted') repair = {outcome: 'not-attempted', message: args.interrupted ? 'stopped (Ctrl-C or a termination signal) before this chat; nothing written' : 'not confirmed; nothing written', evidence: null, undo: null, warnings: []}
    else if ('imported' in res) repair = {outcome: 'failed', message: res.imported.message, evidence: null, undo: null, warnings: []}
    else {
      evidence = res.evidence
      const wrote = res.evidenceDir !== null
      anyWritten ||= wrote
      repair = {outcome: res.outcome, message: res.message, evidence: t(res.evidenceDir), undo: wrote ? `chatdoctor undo ${args.repairId}` : null, warnings: res.warnings}
    }
    if (plan.warnings?.length) repair.warnings = [...plan.warnings, ...repair.warnings]
    if (plan.actions.length > 0 && plan.statusAfter !== undefined) repair.statusAfter = plan.statusAfter
    if (plan.actions.length > 0 && plan.lost) repair.lost = plan.lost
    const actions: ActionReport[] = plan.actions.map((a, i) => ({
      type: a.type,
      from: a.from,
      to: a.to,
      sha256: a.sha256,
      evidence: t(evidence[i]),
      ...(a.keysBorrowed ? {keysBorrowed: a.keysBorrowed} : {}),
      ...(a.changes ? {changes: a.changes} : {}),
      ...(a.why ? {why: a.why} : {}),
    }))
    return {...report, actions, repair}
  })
  let code = args.errors.length > 0 ? EXIT_OPERATIONAL : 0
  for (const c of chats) code |= repairExitBits(c)
  return {
    ...buildReport({command: 'repair', version: args.version, chats, skipped: args.skipped, errors: args.errors, exitCode: code}),
    repairId: args.dryRun || !anyWritten ? null : args.repairId,
    dryRun: args.dryRun,
    interrupted: args.interrupted,
  }
}
