/**
 * The repair plan: from a scanned chat to the actions that put its best generation back. Pure (no disk):
 * `repair --dry-run` prints exactly this plan and `repair` executes exactly it (`apply.ts`), so the two agree
 * over (type, from, to, sha256) by construction. What the actions are is the format's business
 * (`FormatAdapter.planRepair`); here the plans are made, chat by chat, and the refusal every format shares is
 * added: a target that is not a regular file is never written through.
 */
import {adapterByName} from '../formats/index.js'
import type {ChatPlan, PlanOptions, ScannedChat} from '../model/adapter.js'
import type {ChatReport} from '../model/report.js'

export type {ActionSource, ChatPlan, PlannedAction, PlanOptions, WatchedFile} from '../model/adapter.js'

/** The generations `--restore-from` accepts for a chat: its intact agent-context generations (files or embedded copies). */
export function restorableGenerations(report: ChatReport): string[] {
  return report.generations.filter((g) => g.class === 'intact' && (g.role === 'primary' || g.role === 'backup' || g.role === 'temp' || g.role === 'embedded')).map((g) => g.file)
}

/**
 * Plans one chat. Pure. Each format plans its own chats (`FormatAdapter.planRepair`), chosen by the report's
 * `format` (a chat one adapter found may be reported under another format of its family); a format without a
 * planner gets no actions.
 */
export function planChat(chat: ScannedChat, opts: PlanOptions = {}): ChatPlan {
  const own = (adapterByName(chat.report.format) ?? chat.adapter).planRepair
  const plan: ChatPlan = own ? own(chat, opts) : {chat, actions: [], watch: [], temps: []}
  // The same refusal `apply` makes (unsafeTargetReason), decided from the snapshot so a dry run tells it too.
  if (!plan.refusal && !plan.problem) {
    const targets = new Set(plan.actions.filter((a) => a.type === 'restore' || a.type === 'rewrite').map((a) => a.to))
    const bad = chat.snapshot.files.find((f) => (targets.has(f.name) && f.kind !== 'file') || (f.name === '.chatdoctor' && f.kind !== 'directory'))
    if (bad) plan.refusal = `refused: ${bad.name} is ${bad.kind === 'symlink' ? 'a symbolic link' : bad.kind === 'directory' ? 'a folder' : 'not a regular file'}; chatdoctor never replaces or writes through it (move it away by hand and run chatdoctor repair again)`
  }
  return plan
}

/** Plans every chat of a scan, in the scan's order. */
export function planRepairs(chats: ScannedChat[], opts: PlanOptions = {}): ChatPlan[] {
  return chats.map((c) => planChat(c, opts))
}
