/**
 * Roo Code's per-task history entry (`tasks/<id>/history_item.json`, Roo ≥ 3.48.1) rebuilt from the task's own
 * files, for a task the extension no longer lists. Pure.
 *
 * What Roo Code does (RooCodeInc/Roo-Code `cb83656`, 3.52.1): `TaskHistoryStore` keeps each task's `HistoryItem`
 * in its `history_item.json` (the source of truth) and `tasks/_index.json` as a cache. At every start
 * (`initialize`: `loadIndex`, then `reconcile`), and again every 5 minutes and on changes of `tasks/`, it adds
 * every task folder the cache lacks whose `history_item.json` parses with an `id` (`readTaskFile`: no other
 * check), drops entries whose folder is gone, and writes `_index.json` again. A torn or unreadable
 * `_index.json` is read as empty and rebuilt the same way. The History view lists the entries with a `ts` and a
 * `task` (`ClineProvider.getStateToPostToWebview`), by default only those whose `workspace` is the open folder
 * (`webview-ui/src/components/history/useTaskSearch.ts`). So a task folder with no readable
 * `history_item.json` and no entry in the cache is hidden for good, and writing its `history_item.json` is the
 * whole repair: Roo Code puts the index entry back itself.
 *
 * The values, as Roo's own `taskMetadata` (`src/core/task-persistence/taskMetadata.ts`) derives them from the
 * transcript `ui_messages.json`: `ts` the `ts` of its last message that is not a `resume_task` /
 * `resume_completed_task` ask; `task` the first message's text, trimmed; `tokensIn`, `tokensOut`, `totalCost`
 * (and `cacheWrites`, `cacheReads` when any request recorded them) summed over the `api_req_started` messages
 * after the first, each merged with its `api_req_finished` (`consolidateApiRequests`, `consolidateTokenUsage` of
 * `packages/core/src/message-utils/`), plus each `condense_context`'s cost. `workspace` is the task's cwd, which
 * Roo writes into the environment details of its first request (`# Current Workspace Directory (<cwd>) Files`,
 * `src/core/environment/getEnvironmentDetails.ts`, as a POSIX path): taken only when it is an absolute POSIX
 * path. Nothing else is written: `number` (required by the `historyItemSchema` zod schema, the task's depth in
 * the task stack when it started) is recorded nowhere in the folder and is left out, as are `size`, `mode`,
 * `status` and the parent/child links; Roo Code reads the file without checking the schema, and its next save of
 * the task writes a whole entry.
 */
import {API_HISTORY, UI_MESSAGES} from './layout.js'

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/** A rebuilt entry: its exact bytes (compact JSON, as Roo's `safeWriteJson` writes it) and what it holds. */
export interface RebuiltHistoryItem {
  data: Buffer
  /** The fields written, in order. */
  fields: string[]
}

/** Parses a file's bytes as JSON; undefined when it does not parse. */
export function parse(data: Buffer | undefined): unknown {
  if (!data) return undefined
  try {
    return JSON.parse(data.toString('utf8')) as unknown
  } catch {
    return undefined
  }
}

/** The request data of `api_req_started` messages, each merged with its `api_req_finished` (consolidateApiRequests). */
function requests(messages: readonly Obj[]): Obj[] {
  const out: Obj[] = []
  const open: number[] = []
  const data = (m: Obj): Obj => {
    const v = typeof m.text === 'string' && m.text !== '' ? parse(Buffer.from(m.text, 'utf8')) : undefined
    return isObj(v) ? v : {}
  }
  for (const m of messages) {
    if (m.type !== 'say') continue
    if (m.say === 'api_req_started') {
      // A start whose text does not parse counts nothing (consolidateTokenUsage skips it), but can be merged into.
      out.push(typeof m.text === 'string' && m.text !== '' && isObj(parse(Buffer.from(m.text, 'utf8'))) ? data(m) : {unparsed: true})
      open.push(out.length - 1)
    } else if (m.say === 'api_req_finished') {
      const k = open.pop()
      if (k !== undefined) out[k] = {...out[k], ...data(m), unparsed: false}
    }
  }
  return out.filter((r) => r.unparsed !== true)
}

/** The cwd Roo Code wrote into the environment details of the task's first request, when it is an absolute POSIX path. */
function workspaceOf(api: unknown): string | null {
  if (!Array.isArray(api)) return null
  for (const m of api) {
    if (!isObj(m) || m.role !== 'user' || !Array.isArray(m.content)) continue
    for (const b of m.content) {
      if (!isObj(b) || b.type !== 'text' || typeof b.text !== 'string') continue
      const hit = /^# Current Workspace Directory \((\/[^\n]*)\) Files$/m.exec(b.text)
      if (hit && !hit[1].includes('\0')) return hit[1]
    }
  }
  return null
}

/**
 * The `history_item.json` of task `id` rebuilt from its files' bytes (`files`: name → bytes), or why it cannot
 * be: the transcript must parse as an array of messages whose first holds the task's text and whose last
 * relevant one a `ts`.
 */
export function rebuildHistoryItem(id: string, files: ReadonlyMap<string, Buffer>): RebuiltHistoryItem | {why: string} {
  const ui = parse(files.get(UI_MESSAGES))
  if (!Array.isArray(ui) || !ui.every(isObj)) return {why: `${UI_MESSAGES} is not an intact array of messages, the only record of the task's text and time`}
  const messages = ui as Obj[]
  const first = messages[0]
  const task = first && typeof first.text === 'string' ? first.text.trim() : ''
  if (task === '') return {why: `the first message of ${UI_MESSAGES} holds no task text`}
  let last: Obj = first
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]
    if (!(m.ask === 'resume_task' || m.ask === 'resume_completed_task')) {
      last = m
      break
    }
  }
  if (!num(last.ts)) return {why: `the last message of ${UI_MESSAGES} carries no time (ts)`}
  let tokensIn = 0
  let tokensOut = 0
  let totalCost = 0
  let cacheWrites: number | undefined
  let cacheReads: number | undefined
  for (const r of requests(messages.slice(1))) {
    if (num(r.tokensIn)) tokensIn += r.tokensIn
    if (num(r.tokensOut)) tokensOut += r.tokensOut
    if (num(r.cacheWrites)) cacheWrites = (cacheWrites ?? 0) + r.cacheWrites
    if (num(r.cacheReads)) cacheReads = (cacheReads ?? 0) + r.cacheReads
    if (num(r.cost)) totalCost += r.cost
  }
  for (const m of messages.slice(1)) {
    if (m.type === 'say' && m.say === 'condense_context' && isObj(m.contextCondense) && num(m.contextCondense.cost)) totalCost += m.contextCondense.cost
  }
  const item: Obj = {id, ts: last.ts, task, tokensIn, tokensOut}
  if (cacheWrites !== undefined) item.cacheWrites = cacheWrites
  if (cacheReads !== undefined) item.cacheReads = cacheReads
  item.totalCost = totalCost
  const workspace = workspaceOf(parse(files.get(API_HISTORY)))
  if (workspace !== null) item.workspace = workspace
  return {data: Buffer.from(JSON.stringify(item), 'utf8'), fields: Object.keys(item)}
}
