/**
 * One entry of the Cline extension's task list (`state/taskHistory.json`, a `HistoryItem[]`) rebuilt from the
 * task folder's own files, for a task the list no longer holds. Pure.
 *
 * What Cline writes (cline/cline v3.89.2, `apps/vscode/src/core/task/message-state.ts`
 * `saveClineMessagesAndUpdateHistoryInternal`, at every save of a task's transcript): `id` the task id (the
 * folder's name, `Date.now()` digits); `ts` the `ts` of the transcript's last message that is not a
 * `resume_task` / `resume_completed_task` ask; `task` the first message's text as it is; `tokensIn`,
 * `tokensOut`, `cacheWrites`, `cacheReads`, `totalCost` summed over the transcript after its first message
 * (`getApiMetrics(combineApiRequests(…))`, `apps/vscode/src/shared/`: each `api_req_started` merged with the
 * next `api_req_finished`, then the `api_req_started`, `deleted_api_reqs` and `subagent_usage` messages
 * counted; `cacheWrites` / `cacheReads` left out when no message records them); `size` the task folder's size
 * in bytes (`get-folder-size` `loose`: the `lstat` size of the folder and of everything below it, each inode
 * once); `cwdOnTaskInitialization` the workspace folder, which Cline writes into the environment details of the
 * task's first request (`# Current Working Directory (<cwd>) Files`, `apps/vscode/src/core/task/index.ts`
 * `formatFileDetailsHeader`): taken only when it is an absolute POSIX path; `modelId` the `modelInfo.modelId` of
 * the last model-context message that carries one. Recorded nowhere in the folder, so left out: `ulid` (Cline
 * gives the task a new one when it is next opened: `historyItem.ulid ?? ulid()`), `isFavorited`,
 * `conversationHistoryDeletedRange`, `shadowGitConfigWorkTree`, `checkpointManagerErrorMessage`, unless an older
 * entry of the task from one of Cline's backups of its list gives them (`fromKnown`); Cline writes a whole entry
 * at its next save of the task (`updateTaskHistory` replaces the entry by id). The entry is compact JSON, as
 * Cline's `JSON.stringify(items)` writes each element, its keys in Cline's order.
 *
 * Nothing is rebuilt for a folder Cline would not keep listed: its name not a Cline task id (the extension's
 * own reconstruction skips those too), no intact `api_conversation_history.json` (opening a listed task without
 * it removes the task from the list, "Task not found"; one that does not parse fails to open), a transcript that
 * is not an intact array whose first message holds the task's text (the History view leaves out an entry
 * without `ts` and `task`).
 */
import {parse} from './history-item.js'
import {API_HISTORY, UI_MESSAGES} from './layout.js'

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/** Cline's task ids: `Date.now()` digits (its reconstruction takes only folders named so). */
export const CLINE_TASK_ID = /^\d+$/

/** A rebuilt entry: its compact JSON text and the fields it holds, in order. */
export interface RebuiltClineEntry {
  json: string
  fields: string[]
}

function parseText(text: unknown): Obj {
  if (typeof text !== 'string' || text === '') return {}
  try {
    const v = JSON.parse(text) as unknown
    return isObj(v) ? v : {}
  } catch {
    return {}
  }
}

/** The usage totals of a transcript after its first message, as Cline's `getApiMetrics(combineApiRequests(…))`. */
function usageOf(messages: readonly Obj[]): {tokensIn: number; tokensOut: number; cacheWrites?: number; cacheReads?: number; totalCost: number} {
  let tokensIn = 0
  let tokensOut = 0
  let cacheWrites: number | undefined
  let cacheReads: number | undefined
  let totalCost = 0
  const isSay = (m: Obj, say: string) => m.type === 'say' && m.say === say
  // combineApiRequests: each start merged with the first `api_req_finished` after it; the finished ones dropped.
  const merged = new Map<unknown, Obj>()
  for (let i = 0; i < messages.length; i++) {
    if (!isSay(messages[i], 'api_req_started')) continue
    const started = parseText(messages[i].text)
    for (let j = i + 1; j < messages.length; j++) {
      if (!isSay(messages[j], 'api_req_finished')) continue
      if (!merged.has(messages[i].ts)) merged.set(messages[i].ts, {...started, ...parseText(messages[j].text)})
      i = j
      break
    }
  }
  for (const m of messages) {
    if (!(isSay(m, 'api_req_started') || isSay(m, 'deleted_api_reqs') || isSay(m, 'subagent_usage'))) continue
    if (typeof m.text !== 'string' || m.text === '') continue
    const d = (isSay(m, 'api_req_started') ? merged.get(m.ts) : undefined) ?? parseText(m.text)
    if (num(d.tokensIn)) tokensIn += d.tokensIn
    if (num(d.tokensOut)) tokensOut += d.tokensOut
    if (num(d.cacheWrites)) cacheWrites = (cacheWrites ?? 0) + d.cacheWrites
    if (num(d.cacheReads)) cacheReads = (cacheReads ?? 0) + d.cacheReads
    if (num(d.cost)) totalCost += d.cost
  }
  return {tokensIn, tokensOut, ...(cacheWrites !== undefined ? {cacheWrites} : {}), ...(cacheReads !== undefined ? {cacheReads} : {}), totalCost}
}

/** The workspace Cline wrote into the environment details of the task's first request, when an absolute POSIX path. */
function cwdOf(api: readonly unknown[]): string | null {
  for (const m of api) {
    if (!isObj(m) || m.role !== 'user') continue
    const blocks = typeof m.content === 'string' ? [{type: 'text', text: m.content}] : Array.isArray(m.content) ? m.content : []
    for (const b of blocks) {
      if (!isObj(b) || b.type !== 'text' || typeof b.text !== 'string') continue
      const hit = /^# Current Working Directory \((\/[^\n]*)\) Files$/m.exec(b.text)
      if (hit && !hit[1].includes('\0')) return hit[1]
    }
  }
  return null
}

/** The `modelInfo.modelId` of the last model-context message that carries one. */
function modelOf(api: readonly unknown[]): string | null {
  for (let i = api.length - 1; i >= 0; i--) {
    const m = api[i]
    if (isObj(m) && isObj(m.modelInfo) && typeof m.modelInfo.modelId === 'string') return m.modelInfo.modelId
  }
  return null
}

/**
 * What an older entry of the task (`known`, from a `taskHistory.backup.<ms>.json`) gives the rebuilt one: the
 * fields the folder does not record, each only when of the type Cline writes: `ulid`, `shadowGitConfigWorkTree`,
 * `isFavorited`, `cwdOnTaskInitialization` (when the folder does not tell it), and
 * `conversationHistoryDeletedRange` only when the older entry's `ts` is the rebuilt one (the range was recorded
 * against this very transcript) and the range lies inside the model context (`apiLength` messages).
 */
function fromKnown(known: Obj, ts: number, apiLength: number): Obj {
  const out: Obj = {}
  if (typeof known.ulid === 'string' && known.ulid !== '') out.ulid = known.ulid
  if (typeof known.shadowGitConfigWorkTree === 'string' && known.shadowGitConfigWorkTree !== '') out.shadowGitConfigWorkTree = known.shadowGitConfigWorkTree
  if (typeof known.cwdOnTaskInitialization === 'string' && known.cwdOnTaskInitialization !== '') out.cwdOnTaskInitialization = known.cwdOnTaskInitialization
  const r = known.conversationHistoryDeletedRange
  if (known.ts === ts && Array.isArray(r) && r.length === 2 && r.every((n) => Number.isInteger(n) && (n as number) >= 0) && (r[0] as number) <= (r[1] as number) && (r[1] as number) < apiLength) out.conversationHistoryDeletedRange = r
  if (typeof known.isFavorited === 'boolean') out.isFavorited = known.isFavorited
  return out
}

/** The keys of a `HistoryItem` in the order Cline's save writes them (`message-state.ts`). */
const KEY_ORDER = ['id', 'ulid', 'ts', 'task', 'tokensIn', 'tokensOut', 'cacheWrites', 'cacheReads', 'totalCost', 'size', 'shadowGitConfigWorkTree', 'cwdOnTaskInitialization', 'conversationHistoryDeletedRange', 'isFavorited', 'checkpointManagerErrorMessage', 'modelId']

/**
 * The `taskHistory.json` entry of task `id` rebuilt from its files' bytes (`files`: name → bytes) and the
 * folder's size (`size`, bytes; null when it could not be measured: left out), with what an older entry of the
 * task (`known`, from one of Cline's backups of its list) records that the folder does not; or why it cannot be.
 */
export function rebuildClineEntry(id: string, files: ReadonlyMap<string, Buffer>, size: number | null, known?: Readonly<Record<string, unknown>>): RebuiltClineEntry | {why: string} {
  if (!CLINE_TASK_ID.test(id)) return {why: `the folder's name is not a Cline task id (Cline's own reconstruction skips it too)`}
  const api = parse(files.get(API_HISTORY))
  if (!Array.isArray(api)) return {why: `${API_HISTORY} is ${files.has(API_HISTORY) ? 'not an intact array' : 'missing'}: Cline would drop a listed task without it as soon as it is opened ("Task not found")`}
  const ui = parse(files.get(UI_MESSAGES))
  if (!Array.isArray(ui) || !ui.every(isObj)) return {why: `${UI_MESSAGES} is not an intact array of messages, the only record of the task's text and time`}
  const messages = ui as Obj[]
  const first = messages[0]
  if (!first || typeof first.text !== 'string' || first.text === '') return {why: `the first message of ${UI_MESSAGES} holds no task text`}
  let last: Obj | undefined
  for (let i = messages.length - 1; i >= 0; i--) {
    if (!(messages[i].ask === 'resume_task' || messages[i].ask === 'resume_completed_task')) {
      last = messages[i]
      break
    }
  }
  if (!last || !num(last.ts) || last.ts === 0) return {why: `the last message of ${UI_MESSAGES} carries no time (ts)`}
  const item: Obj = {id, ts: last.ts, task: first.text, ...usageOf(messages.slice(1))}
  if (size !== null) item.size = size
  const cwd = cwdOf(api)
  if (cwd !== null) item.cwdOnTaskInitialization = cwd
  const model = modelOf(api)
  if (model !== null) item.modelId = model
  const kept = known ? fromKnown(known, last.ts, api.length) : {}
  if (cwd !== null) delete kept.cwdOnTaskInitialization
  const all: Obj = {...item, ...kept}
  const ordered: Obj = {}
  for (const k of KEY_ORDER) if (k in all) ordered[k] = all[k]
  return {json: JSON.stringify(ordered), fields: Object.keys(ordered)}
}
