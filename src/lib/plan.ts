/**
 * The repair plan: from a scanned chat to the actions that put its best generation back. Pure (no disk):
 * `repair --dry-run` prints exactly this plan and `repair` executes exactly it (`apply.ts`), so the two agree
 * over (type, from, to, sha256) by construction.
 *
 * The agent context (`run-state.json`), for a chat that needs it:
 * 1. `preserve` the primary (when it exists) into the evidence folder;
 * 2. `restore` the chosen generation's exact bytes as the primary (never parsed and re-serialized): the
 *    winner of a `repairable` chat (a file, or an embedded copy `chat-messages.json#<id>`); with
 *    `--salvage`, a salvaged torn generation that covers more turns than every intact candidate; with
 *    `--restore-from`, the generation the user named (e.g. the source of a `degraded` chat's missing turns).
 * The transcript: when the scan names an intact transcript temp for a torn `chat-messages.json`
 * (`transcriptRestore`), `preserve` and `restore` it the same way. Then, when anything is restored:
 * 3. `restore-mtime` of the chat dir, so the agent's "newest chat" choice (Codebuff `--continue`) is unchanged.
 * Healthy, unrecoverable and degraded chats get no actions unless an option or a transcript restore asks.
 */
import {createHash} from 'node:crypto'
import {adapterByName} from './formats/index.js'
import type {ActionType, BorrowedKeyReport, ChatReport, ChatStatus, LineChangeReport, TreeLossReport} from './model.js'
import {compareCandidates, type Candidate} from './rank.js'
import {salvageBytes, type SalvagedGeneration} from './salvage/index.js'
import type {ScannedChat} from './scan.js'
import {shellWord} from './paths.js'

/**
 * Where a `restore` action's bytes come from: a whole file of the chat dir (as the scan read it), or an
 * in-memory byte string with a label (an embedded copy `chat-messages.json#ai-…`, or salvaged bytes
 * `salvage:<torn file>`).
 */
export type ActionSource = {kind: 'file'; name: string} | {kind: 'bytes'; label: string; data: Buffer}

/** One planned action. Names are relative to the chat dir. */
export interface PlannedAction {
  type: ActionType
  /** The source's name or label; for `preserve`, the file preserved; null for `restore-mtime`. */
  from: string | null
  /** The file written (`restore`), the name inside the evidence folder (`preserve`), `.` (`restore-mtime`). */
  to: string
  /** sha256 of the bytes written (`restore`) or of the file preserved (`preserve`, null when unread). */
  sha256: string | null
  /** `restore`: where the bytes come from. */
  source?: ActionSource
  /** `restore`: the exact bytes to write (resolved from `source` at plan time). */
  data?: Buffer
  /** `restore-mtime`: the mtime to put back, ms since epoch. */
  mtimeMs?: number
  /** `restore` of salvaged bytes: the members the tear cut off, each taken from a donor generation. */
  keysBorrowed?: BorrowedKeyReport[]
  /** `rewrite`: the byte changes of the JSONL repair; `mtimeMs` is then the log's own mtime to put back. */
  changes?: LineChangeReport[]
  /** `move`: why the file leaves the tree. */
  why?: string
}

/** A file whose size and mtime must be what the scan saw when the repair writes (else the chat is live). */
export interface WatchedFile {
  name: string
  bytes: number
  mtimeMs: number
}

/** The plan for one chat. */
export interface ChatPlan {
  chat: ScannedChat
  actions: PlannedAction[]
  /** Generations and transcript as the scan saw them. */
  watch: WatchedFile[]
  /** Leftover temps whose name carries the writer's pid. */
  temps: Array<{name: string; pid: number}>
  /** Why a needed restore cannot be planned (its bytes are not at hand or no longer hash as scanned); the chat is then not written. */
  problem?: string
  /** For a chat left as it is on purpose (a `degraded` chat under plain `repair`): what would change it, in words. */
  advice?: string
  /**
   * for formats that keep several chats in one folder (a Claude Code project dir, OpenCode's
   * data dir): the name of this chat's own subfolder of the evidence folder, `.chatdoctor/<repairId>/<name>/`.
   */
  evidenceSub?: string
  /** Why the chat must not be written at all (e.g. the agent is writing the session): outcome `refused`. */
  refusal?: string
  /** Repairable damage chatdoctor does not repair itself, with the next steps: outcome `manual`. */
  manual?: string
  /** The status a scan gives the chat once the actions are done (when it differs from `healthy`, exit bit 4). */
  statusAfter?: ChatStatus
  /** (OpenCode JSON tree) What the session loses by the moves. */
  lost?: TreeLossReport
}

/** What the user asked `repair` for, beyond the default. */
export interface PlanOptions {
  /** `--salvage`: salvaged torn generations are candidates too (used only when they cover more turns). */
  salvage?: boolean
  /** `--restore-from <generation>`: restore this generation (the run must hold exactly one chat). */
  restoreFrom?: string
}

function sha256(buf: Uint8Array): string {
  return createHash('sha256').update(buf).digest('hex')
}

/** The bytes of a source: a file's bytes from the scan's snapshot, or the byte string itself; null if unread. */
export function sourceBytes(source: ActionSource, chat: ScannedChat): Buffer | null {
  if (source.kind === 'bytes') return source.data
  return chat.snapshot.files.find((f) => f.name === source.name && f.kind === 'file')?.data ?? null
}

/** The label of a source as actions show it in `from`. */
export function sourceLabel(source: ActionSource): string {
  return source.kind === 'file' ? source.name : source.label
}

/**
 * Where the bytes of a generation named in the report come from; null when they are not at hand. A whole
 * file of the chat dir as the scan read it; otherwise the adapter's `generationBytes` (an embedded copy
 * `chat-messages.json#<id>`: the exact bytes of that `metadata.runState` value, copied out of the snapshot),
 * accepted only when their sha256 is the one the report gives the generation.
 */
export function generationSource(chat: ScannedChat, generation: string): ActionSource | null {
  const f = chat.snapshot.files.find((e) => e.name === generation && e.kind === 'file')
  if (f?.data) return {kind: 'file', name: generation}
  const view = chat.adapter.generationBytes?.(chat.snapshot, generation)
  if (!view) return null
  const data = Buffer.from(view) // a copy: never a view into the snapshot's buffers
  const expected = chat.report.generations.find((g) => g.file === generation)?.sha256
  if (!expected || sha256(data) !== expected) return null
  return {kind: 'bytes', label: generation, data}
}

/** The label of a salvaged generation as actions show it: `salvage:<torn file>`. */
export function salvageLabel(file: string): string {
  return `salvage:${file}`
}

/**
 * The salvaged generation `repair --salvage` uses for a chat, or null: one whose summary says it is a
 * candidate and whose N is strictly higher than every intact candidate's (the ranking's turns); the best of
 * those by the ranking rules. Its bytes must hash to the summary's sha256.
 */
export function pickSalvage(report: ChatReport, salvaged: readonly SalvagedGeneration[]): {sg: SalvagedGeneration; data: Buffer} | null {
  const best = Math.max(-1, ...report.ranking.map((r) => r.turns))
  const usable = salvaged
    .filter((sg) => sg.summary.candidate && sg.measure !== null && sg.measure.turns > best)
    .map((sg): Candidate & {sg: SalvagedGeneration} => ({file: sg.file, measure: sg.measure!, mtimeMs: report.generations.find((g) => g.file === sg.file)?.mtimeMs ?? null, sg}))
    .sort(compareCandidates)
  for (const c of usable) {
    const data = salvageBytes(c.sg)
    if (sha256(data) === c.sg.summary.sha256) return {sg: c.sg, data}
  }
  return null
}

/** The generations `--restore-from` accepts for a chat: its intact agent-context generations (files or embedded copies). */
export function restorableGenerations(report: ChatReport): string[] {
  return report.generations.filter((g) => g.class === 'intact' && (g.role === 'primary' || g.role === 'backup' || g.role === 'temp' || g.role === 'embedded')).map((g) => g.file)
}

/** True when a plain repair would restore the agent context of this chat (its winner is not the primary). */
export function needsRepair(report: ChatReport): boolean {
  const primary = report.generations.find((g) => g.role === 'primary')
  return report.status === 'repairable' && report.winner !== null && primary !== undefined && report.winner !== primary.file
}

/** What `repair --restore-from` would change for a degraded chat, in words. */
function degradedAdvice(chat: ScannedChat): string {
  const a = chat.report.amnesia
  if (!a?.source) return 'degraded: part of the agent context is missing and no generation holds it; nothing to restore, nothing written'
  const drops = a.restoreDrops ? ` (it would drop turn${a.restoreDrops[0] === a.restoreDrops[1] ? ` ${a.restoreDrops[0]}` : `s ${a.restoreDrops[0]}–${a.restoreDrops[1]}`})` : ''
  return `degraded: left as it is; chatdoctor repair --restore-from ${shellWord(a.source)} ${shellWord(chat.report.path)} restores the generation that holds the missing turns${drops}`
}

/**
 * Plans one chat. Pure. A format with its own planner (`FormatAdapter.planRepair`: Claude Code, Codex,
 * OpenCode) plans its chats itself; Codebuff's plan is made here.
 */
export function planChat(chat: ScannedChat, opts: PlanOptions = {}): ChatPlan {
  const own = (adapterByName(chat.report.format) ?? chat.adapter).planRepair
  const plan = own ? own(chat, opts) : planCodebuffChat(chat, opts)
  // The same refusal `apply` makes (unsafeTargetReason), decided from the snapshot so a dry run tells it too.
  if (!plan.refusal && !plan.problem) {
    const targets = new Set(plan.actions.filter((a) => a.type === 'restore' || a.type === 'rewrite').map((a) => a.to))
    const bad = chat.snapshot.files.find((f) => (targets.has(f.name) && f.kind !== 'file') || (f.name === '.chatdoctor' && f.kind !== 'directory'))
    if (bad) plan.refusal = `refused: ${bad.name} is ${bad.kind === 'symlink' ? 'a symbolic link' : bad.kind === 'directory' ? 'a folder' : 'not a regular file'}; chatdoctor never replaces or writes through it (move it away by hand and run chatdoctor repair again)`
  }
  return plan
}

/** The Codebuff plan (formats without their own `planRepair`). */
function planCodebuffChat(chat: ScannedChat, opts: PlanOptions): ChatPlan {
  const {report, snapshot} = chat
  const watchRoles = new Set(['primary', 'backup', 'temp', 'transcript', 'transcript-temp'])
  const watch: WatchedFile[] = []
  for (const g of report.generations) {
    if (!watchRoles.has(g.role) || g.mtimeMs === null || g.class === 'missing') continue
    const entry = snapshot.files.find((f) => f.name === g.file)
    if (entry) watch.push({name: g.file, bytes: entry.bytes, mtimeMs: entry.mtimeMs})
  }
  const temps: ChatPlan['temps'] = []
  if (chat.adapter.tempWriterPid) {
    for (const g of report.generations) {
      if (g.role !== 'temp' && g.role !== 'transcript-temp') continue
      const pid = chat.adapter.tempWriterPid(g.file)
      if (pid !== null) temps.push({name: g.file, pid})
    }
  }
  const plan: ChatPlan = {chat, actions: [], watch, temps}
  const restores: Array<{to: string; toGeneration: ChatReport['generations'][number] | undefined; source: ActionSource; data: Buffer; keysBorrowed?: BorrowedKeyReport[]}> = []
  const primary = report.generations.find((g) => g.role === 'primary')

  // The agent context.
  if (primary) {
    let state: {source: ActionSource; data: Buffer; keysBorrowed?: BorrowedKeyReport[]} | null = null
    if (opts.restoreFrom !== undefined) {
      const source = generationSource(chat, opts.restoreFrom)
      const data = source ? sourceBytes(source, chat) : null
      if (!source || !data) plan.problem = `the bytes of ${opts.restoreFrom} could not be read as scanned; nothing written`
      else if (sha256(data) !== primary.sha256) state = {source, data}
    } else {
      const salvage = opts.salvage && chat.adapter.salvage ? pickSalvage(report, chat.adapter.salvage(snapshot, report)) : null
      if (salvage) {
        state = {source: {kind: 'bytes', label: salvageLabel(salvage.sg.file), data: salvage.data}, data: salvage.data, keysBorrowed: salvage.sg.summary.keysBorrowed}
      } else if (needsRepair(report)) {
        const source = generationSource(chat, report.winner!)
        const data = source ? sourceBytes(source, chat) : null
        if (!source || !data) plan.problem = `the bytes of the winner ${report.winner} could not be read as scanned; nothing written`
        else state = {source, data}
      } else if (report.status === 'degraded') plan.advice = degradedAdvice(chat)
    }
    if (state) restores.push({to: primary.file, toGeneration: primary, ...state})
  }

  // The transcript.
  const tr = report.transcriptRestore
  if (tr && !plan.problem) {
    const view = chat.adapter.generationBytes ? chat.adapter.generationBytes(snapshot, tr.from) : sourceBytes({kind: 'file', name: tr.from}, chat)
    const data = view ? Buffer.from(view) : null
    if (!data || (tr.sha256 !== null && sha256(data) !== tr.sha256)) plan.problem = `the bytes of the transcript temp ${tr.from} could not be read as scanned; nothing written`
    else restores.push({to: tr.to, toGeneration: report.generations.find((g) => g.file === tr.to), source: {kind: 'bytes', label: tr.from, data}, data})
  }

  if (plan.problem || restores.length === 0) return plan
  for (const r of restores) {
    const g = r.toGeneration
    if (g && g.class !== 'missing') plan.actions.push({type: 'preserve', from: g.file, to: g.file, sha256: g.sha256})
    plan.actions.push({type: 'restore', from: sourceLabel(r.source), to: r.to, sha256: sha256(r.data), source: r.source, data: r.data, ...(r.keysBorrowed ? {keysBorrowed: r.keysBorrowed} : {})})
  }
  plan.actions.push({type: 'restore-mtime', from: null, to: '.', sha256: null, mtimeMs: snapshot.dirMtimeMs})
  return plan
}

/** Plans every chat of a scan, in the scan's order. */
export function planRepairs(chats: ScannedChat[], opts: PlanOptions = {}): ChatPlan[] {
  return chats.map((c) => planChat(c, opts))
}
