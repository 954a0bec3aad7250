/**
 * The repair plan: from a scanned chat to the actions that put its best generation back. Pure (no disk):
 * `repair --dry-run` prints exactly this plan and `repair` executes exactly it (`apply.ts`), so the two agree
 * over (type, from, to, sha256) by construction. What the actions are is the format's business
 * (`FormatAdapter.planRepair`); here the plans are made, chat by chat, and the rule every format shares is
 * added: a target that is not a regular file is never written through. Such a chat needs a step by hand first
 * (outcome `manual`, exit bit 2 as every chat left for a manual repair; no actions), never an operational error:
 * nothing failed, and the same run would refuse it every time.
 *
 * Also for every format: a chat whose candidate generation could not be read (EACCES, …) is refused (it may
 * hold more than what would be restored; `--force` restores the best readable one and says what may be lost);
 * chatdoctor's own leftovers the scan found (`ScannedChat.own`) become `remove-leftover` actions of a healthy
 * chat or of one being repaired; and when an earlier repair of the chat was killed before it put the folder's
 * mtime back, `restore-mtime` puts back the value that repair recorded.
 */
import {adapterByName} from '../formats/registry.js'
import type {ChatDirSnapshot, ChatPlan, FileEntry, PlannedAction, PlanOptions, ScannedChat} from '../model/adapter.js'
import {CONTEXT_ROLES} from '../model/enums.js'
import {snapshotName} from '../model/snapshot.js'
import type {ActionType, ChatReport, Role} from '../model/report.js'

export type {ActionSource, ChatPlan, PlannedAction, PlanOptions, WatchedFile} from '../model/adapter.js'

/** The generations `--restore-from` accepts for a chat: its intact agent-context generations (files, embedded copies, stored snapshots). */
export function restorableGenerations(report: ChatReport): string[] {
  return report.generations.filter((g) => g.class === 'intact' && (g.role === 'primary' || g.role === 'backup' || g.role === 'temp' || g.role === 'embedded' || g.role === 'snapshot')).map((g) => g.file)
}

/**
 * Plans one chat. Pure. Each format plans its own chats (`FormatAdapter.planRepair`), chosen by the report's
 * `format` (a chat one adapter found may be reported under another format of its family); a format without a
 * planner gets no actions.
 */
export function planChat(chat: ScannedChat, opts: PlanOptions = {}): ChatPlan {
  // A chat of named files none of which is a regular file (a session log that is a symbolic link or a FIFO) was
  // never read: what a repair would rewrite is that entry, so it is left for the step by hand, as a primary to restore.
  const odd = onlyNotRegular(chat.snapshot)
  if (odd) return {chat, actions: [], watch: [], temps: [], blocked: odd, manual: manualWords(odd)}
  const own = (adapterByName(chat.report.format) ?? chat.adapter).planRepair
  const plan: ChatPlan = own ? own(chat, opts) : {chat, actions: [], watch: [], temps: []}
  if (!plan.refusal && !plan.problem) refuseUnread(plan, opts)
  if (!plan.refusal && !plan.problem) sayRedacted(plan)
  if (!plan.refusal && !plan.problem && !plan.manual && !plan.advice) addOwnState(plan)
  // What `apply` refuses (unsafeTargetReason), decided from the snapshot so a scan and a dry run tell it too.
  if (!plan.refusal && !plan.problem) {
    const bad = blockedEntry(chat, plan.actions)
    if (bad) {
      plan.blocked = bad
      plan.manual = manualWords(bad)
      plan.actions = []
    }
  }
  return plan
}

/** The manual step of a chat whose repair would go through `bad` (not a regular file). */
function manualWords(bad: FileEntry): string {
  return `${bad.name} is ${bad.kind === 'symlink' ? 'a symbolic link' : bad.kind === 'directory' ? 'a folder' : 'not a regular file'}: chatdoctor never replaces or writes through it, even with --force; move it away by hand, then run chatdoctor repair again; nothing written`
}

/**
 * The entry that stands for a chat of named files (`ChatUnit.files`: a session log, a session file) of which none
 * is a regular file (each a symbolic link, FIFO, socket or device, or a folder beside them), or undefined. Such a
 * chat is never read; a repair of it would rewrite that entry. A chat folder of its own is not such a chat. Pure.
 */
export function onlyNotRegular(snapshot: ChatDirSnapshot): FileEntry | undefined {
  const files = snapshot.files
  if (snapshot.unit.files === undefined || snapshot.unit.members !== undefined || files.length === 0) return undefined
  if (!files.every((f) => f.kind !== 'file')) return undefined
  return files.find((f) => f.kind === 'symlink' || f.kind === 'other')
}

/**
 * The entry a plan's writes would go through that is not chatdoctor's to replace: a `restore` or `rewrite`
 * target that is not a regular file (a symbolic link, folder, FIFO, …), or a `.chatdoctor` that is not a
 * folder. `repair` leaves the chat for a manual step when there is one, even with `--force` (and the scan says so). Pure.
 */
export function blockedEntry(chat: ScannedChat, actions: PlannedAction[]): FileEntry | undefined {
  const targets = new Set(actions.filter((a) => a.type === 'restore' || a.type === 'rewrite').map((a) => a.to))
  return chat.snapshot.files.find((f) => (targets.has(f.name) && f.kind !== 'file') || (f.name === '.chatdoctor' && f.kind !== 'directory'))
}

/** A restore from a redacted snapshot says so: the context it writes back lacks the tool inputs and outputs. */
function sayRedacted(plan: ChatPlan): void {
  const redacted = new Set((plan.chat.snapshot.unit.redactedSnapshots ?? []).map(snapshotName))
  const from = plan.actions.find((a) => (a.type === 'restore' || a.type === 'rewrite') && a.from !== null && redacted.has(a.from))?.from
  if (from) plan.warnings = [...(plan.warnings ?? []), `${from} is a redacted snapshot (chatdoctor snapshot --redact): the context it restores has no tool inputs and outputs and no per-turn system prompts`]
}

/** Roles whose unreadable file may hold more of the chat than what a repair restores. */
const UNREAD_BLOCKS: ReadonlySet<Role> = new Set<Role>([...CONTEXT_ROLES, 'transcript', 'transcript-temp'])

/** True for an action that replaces or removes a user file. */
function replaces(type: ActionType): boolean {
  return type === 'restore' || type === 'rewrite' || type === 'move'
}

/**
 * A repair that would restore a generation while another candidate could not be read is refused: the unread
 * one may cover more turns. With `--force` it goes ahead, and the report says what may be lost.
 */
function refuseUnread(plan: ChatPlan, opts: PlanOptions): void {
  if (!plan.actions.some((a) => replaces(a.type))) return
  const {report, snapshot} = plan.chat
  const unread = report.generations.filter((g) => UNREAD_BLOCKS.has(g.role) && g.reasons.includes('unreadable'))
  if (unread.length === 0) return
  const why = (file: string) => snapshot.files.find((f) => f.name === file)?.readError ?? 'could not be read'
  const names = unread.map((g) => `${g.file} (${why(g.file)})`).join(', ')
  const permission = unread.some((g) => /EACCES|EPERM|permission/i.test(why(g.file)))
  if (!opts.force) {
    plan.refusal = `refused: ${unread.length === 1 ? 'a generation' : `${unread.length} generations`} could not be read: ${names}; ${unread.length === 1 ? 'it' : 'they'} may hold more of the chat than what would be restored; ${permission ? "run chatdoctor as the file's owner" : 'make it readable'} and run chatdoctor repair again (--force restores the best readable generation)`
    plan.actions = []
    return
  }
  const restored = plan.actions.find((a) => replaces(a.type))?.from ?? 'the restored generation'
  plan.warnings = [...(plan.warnings ?? []), `--force: ${names} could not be read; what ${unread.length === 1 ? 'it holds' : 'they hold'} beyond ${restored} (e.g. later turns) is not restored and may be lost`]
}

/** Adds the removal of chatdoctor's leftovers and the mtime an interrupted repair recorded (healthy or repaired chats). */
function addOwnState(plan: ChatPlan): void {
  const own = plan.chat.own
  if (!own) return
  const repairing = plan.actions.some((a) => replaces(a.type))
  if (!repairing && plan.chat.report.status !== 'healthy') return
  const cleanups: PlannedAction[] = own.leftovers.map((l) => ({type: 'remove-leftover', from: null, to: l.path, sha256: null, bytes: l.bytes}))
  plan.actions.unshift(...cleanups)
  if (own.interrupted.length > 0) {
    const recorded = own.interrupted[0].dirMtimeMs
    const rm = plan.actions.find((a) => a.type === 'restore-mtime')
    if (rm) rm.mtimeMs = recorded
    else plan.actions.push({type: 'restore-mtime', from: null, to: '.', sha256: null, mtimeMs: recorded})
    plan.settles = own.interrupted.map((i) => i.repairId)
  }
}

/**
 * Plans every chat of a scan, in the scan's order. An index chat then follows the session files the other plans
 * rewrite (`IndexHook.followUp`), and a chat its index hides gets the index chat's plan as the one that brings it
 * back (`by`), or, when that index is left for a step by hand, that step (`manual`).
 */
export function planRepairs(chats: ScannedChat[], opts: PlanOptions = {}): ChatPlan[] {
  const plans = chats.map((c) => planChat(c, opts))
  const indexes = plans.filter((p) => p.chat.snapshot.unit.index === true)
  for (const ip of indexes) {
    const follow = ip.chat.adapter.indexes?.followUp
    if (follow && !ip.refusal && !ip.problem) follow(ip, plans.filter((p) => p !== ip && !p.chat.snapshot.unit.index))
  }
  for (const p of plans) {
    if (p.chat.repairedBy === undefined) continue
    const by = indexes.find((i) => i.chat.snapshot.unit.path === p.chat.repairedBy)
    if (by && by.actions.length > 0) p.by = by
    // Its index left for a step by hand: the chat is brought back by that step, never reported as repaired.
    else if (by?.manual && p.actions.length === 0 && !p.manual && !p.refusal && !p.problem) p.manual = by.manual
  }
  return plans
}
