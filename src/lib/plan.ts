/**
 * The repair plan: from a scanned chat to the actions that put its best generation back. Pure (no disk):
 * `repair --dry-run` prints exactly this plan and `repair` executes exactly it (`apply.ts`), so the two agree
 * over (type, from, to, sha256) by construction.
 *
 * For a `repairable` chat (the primary unusable, or another generation covers more turns):
 * 1. `preserve` the primary (when it exists) into the evidence folder;
 * 2. `restore` the winner's exact bytes as the primary (never parsed and re-serialized);
 * 3. `restore-mtime` of the chat dir, so the agent's "newest chat" choice (Codebuff `--continue`) is unchanged.
 * Healthy and unrecoverable chats get no actions.
 */
import {createHash} from 'node:crypto'
import type {ActionType, ChatReport} from './model.js'
import type {ScannedChat} from './scan.js'

/**
 * Where a `restore` action's bytes come from: a whole file of the chat dir (as the scan read it), or an
 * in-memory byte string with a label (e.g. an embedded copy `chat-messages.json#ai-…` or salvaged bytes).
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
 * Where the bytes of a generation named in the report (the winner) come from; null when they are not at hand.
 * A whole file of the chat dir today; salvage and embedded copies (issue #5) add `bytes` sources here.
 */
export function generationSource(chat: ScannedChat, generation: string): ActionSource | null {
  const f = chat.snapshot.files.find((e) => e.name === generation && e.kind === 'file')
  if (f?.data) return {kind: 'file', name: generation}
  return null
}

/** True when a repair would write this chat. */
export function needsRepair(report: ChatReport): boolean {
  const primary = report.generations.find((g) => g.role === 'primary')
  return report.status === 'repairable' && report.winner !== null && primary !== undefined && report.winner !== primary.file
}

/** Plans one chat. Pure. */
export function planChat(chat: ScannedChat): ChatPlan {
  const {report, snapshot} = chat
  const watchRoles = new Set(['primary', 'backup', 'temp', 'transcript'])
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
  const actions: PlannedAction[] = []
  const primary = report.generations.find((g) => g.role === 'primary')
  if (needsRepair(report) && primary) {
    const source = generationSource(chat, report.winner!)
    const data = source ? sourceBytes(source, chat) : null
    if (source && data) {
      if (primary.class !== 'missing') actions.push({type: 'preserve', from: primary.file, to: primary.file, sha256: primary.sha256})
      actions.push({type: 'restore', from: sourceLabel(source), to: primary.file, sha256: sha256(data), source, data})
      actions.push({type: 'restore-mtime', from: null, to: '.', sha256: null, mtimeMs: snapshot.dirMtimeMs})
    }
  }
  return {chat, actions, watch, temps}
}

/** Plans every chat of a scan, in the scan's order. */
export function planRepairs(chats: ScannedChat[]): ChatPlan[] {
  return chats.map(planChat)
}
