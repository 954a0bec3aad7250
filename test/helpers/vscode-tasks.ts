/**
 * Fixture builder for the VS Code extension task folders (Roo Code, Kilo Code, Cline 3.x). No binary of these
 * extensions runs here, so this code writes exactly the shapes their source writes (docs/formats.md, "VS Code
 * extension task folders", names the file and commit of each fact):
 *
 * - the conversation is a real one: the prompts, assistant texts, tool calls and tool results of the sessions
 *   the real Cline CLI 3.0.65 wrote in `shared/realdata/cline/3.0.65` (its `<id>.messages.json`);
 * - it is laid out per extension: Roo Code (native tool calling, `<user_message>` prompts, `ts` on every
 *   message), Kilo Code (`<task>`, then `[TASK RESUMPTION]` + `<user_message>`), Cline 3.x (XML tool calls in
 *   text, `[tool] Result:` blocks, `<task>` then `<feedback>`, no `ts`);
 * - serialized as the extensions do: `JSON.stringify` compact for the message arrays, the index and
 *   `history_item.json` (json-stream-stringify / stream-json in `safeWriteJson`; `jsonStreamBytes` below runs
 *   the real json-stream-stringify and a test checks the two agree), Cline's `task_metadata.json` with
 *   `JSON.stringify(v, null, 2)`;
 * - the safe writes step by step: Roo Code's and Kilo Code's `safeWriteJson` (`.<name>.new_<ms>_<rand>.tmp`
 *   written, the current file renamed to `.<name>.bak_<ms>_<rand>.tmp`, the new one renamed into place, the
 *   backup unlinked), Cline's `atomicWriteFile` (`<name>.tmp.<ms>.<rand>.json`, then a rename), so a crash
 *   can be stopped after any step.
 *
 * Damage is applied by code to copies (cuts, NULs, stale tails), never by hand-edited files.
 */
import {spawn} from 'node:child_process'
import {mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import {JsonStreamStringify} from 'json-stream-stringify'
import {REALDATA, setMtime} from './fixtures.js'

export type Variant = 'roo' | 'kilo' | 'cline'

export const EXTENSION_ID: Record<Variant, string> = {roo: 'rooveterinaryinc.roo-cline', kilo: 'kilocode.kilo-code', cline: 'saoudrizwan.claude-dev'}

/** The two real Cline CLI sessions: A has 5 prompts, B has 2. */
export const REAL_CLINE_SESSIONS = {A: '1796118198748_i47ig', B: '1796118231767_yakzq'} as const

type Block = Record<string, unknown>
interface RealMessage {
  role: 'user' | 'assistant'
  content: Block[]
  ts: number
}

/** One model step: what the assistant said and did, and the tool results that answered it. */
interface Step {
  assistant: Block[]
  results: Block[] | null
  ts: number
  resultTs: number
}

/** One user turn of the real conversation. */
export interface Turn {
  prompt: string
  ts: number
  steps: Step[]
}

/** The real conversation of one Cline CLI session, as turns. */
export function realTurns(session: keyof typeof REAL_CLINE_SESSIONS = 'A'): Turn[] {
  const id = REAL_CLINE_SESSIONS[session]
  const file = path.join(REALDATA, 'cline', '3.0.65', 'home', '.cline', 'data', 'sessions', id, `${id}.messages.json`)
  const doc = JSON.parse(readFileSync(file, 'utf8')) as {messages: RealMessage[]}
  const turns: Turn[] = []
  for (const m of doc.messages) {
    const text = m.content.find((b) => b.type === 'text')?.text
    if (m.role === 'user' && typeof text === 'string' && text.startsWith('<user_input')) {
      turns.push({prompt: text.replace(/^<user_input[^>]*>/, '').replace(/<\/user_input>$/, ''), ts: m.ts, steps: []})
    } else if (m.role === 'assistant') turns[turns.length - 1].steps.push({assistant: m.content, results: null, ts: m.ts, resultTs: m.ts})
    else {
      const step = turns[turns.length - 1].steps.at(-1)!
      step.results = m.content
      step.resultTs = m.ts
    }
  }
  return turns
}

/** A tool result's content as the text the model saw. */
function resultText(b: Block): string {
  const c = b.content
  if (typeof c === 'string') return c
  return JSON.stringify(c)
}

const ENV = (cwd: string) => `<environment_details>\n# VSCode Visible Files\nsrc/todo.ts\n\n# Current Workspace Directory (${cwd}) Files\nREADME.md\nsrc/\nsrc/todo.ts\n</environment_details>`

/** A task as one extension would hold it in memory: the model context and the transcript. */
export interface Task {
  variant: Variant
  id: string
  api: Block[]
  ui: Block[]
  prompts: string[]
}

function clineToolXml(b: Block): string {
  const input = b.input as Record<string, unknown>
  const params = Object.entries(input)
    .map(([k, v]) => `<${k}>${typeof v === 'string' ? v : JSON.stringify(v)}</${k}>`)
    .join('\n')
  return `<${String(b.name)}>\n${params}\n</${String(b.name)}>`
}

/**
 * The task of one extension from real turns (the first `turns` of them). Roo Code and Kilo Code keep `ts` on
 * every model-context message; Cline keeps none. The transcript holds, per turn, the prompt (`say: "text"` for
 * the task, `say: "user_feedback"` after it), an `api_req_started`, the assistant's text and tool asks, and a
 * `completion_result` at the end of each turn.
 */
export function buildTask(variant: Variant, id: string, turns: Turn[], cwd = '/home/dev/demo-app'): Task {
  const api: Block[] = []
  const ui: Block[] = []
  const withTs = (m: Block, ts: number): Block => (variant === 'cline' ? m : {...m, ts})
  turns.forEach((t, k) => {
    let prompt: string
    if (k === 0) prompt = variant === 'roo' ? `<user_message>\n${t.prompt}\n</user_message>` : `<task>\n${t.prompt}\n</task>`
    else if (variant === 'cline') prompt = `<feedback>\n${t.prompt}\n</feedback>`
    else if (variant === 'kilo') prompt = `[TASK RESUMPTION] This task was interrupted just now. It may or may not be complete, so please reassess the task context.\n\nNew instructions for task continuation:\n<user_message>\n${t.prompt}\n</user_message>`
    else prompt = `<user_message>\n${t.prompt}\n</user_message>`
    const lead: Block[] = variant === 'cline' && k > 0 ? [{type: 'text', text: '[attempt_completion] Result:'}, {type: 'text', text: 'The user has provided feedback on the results. Consider their input to continue the task, and then attempt completion again.'}] : []
    api.push(withTs({role: 'user', content: [...lead, {type: 'text', text: prompt}, {type: 'text', text: ENV(cwd)}]}, t.ts))
    ui.push(k === 0 ? {ts: t.ts, type: 'say', say: 'text', text: t.prompt, images: []} : {ts: t.ts, type: 'say', say: 'user_feedback', text: t.prompt, images: []})
    for (const s of t.steps) {
      ui.push({ts: s.ts - 40, type: 'say', say: 'api_req_started', text: JSON.stringify({request: '...', tokensIn: 5400 + k * 900, tokensOut: 24, cacheWrites: 0, cacheReads: 0, cost: 0})})
      const blocks: Block[] = []
      let said = ''
      for (const b of s.assistant) {
        if (b.type === 'thinking') {
          ui.push({ts: s.ts - 20, type: 'say', say: 'reasoning', text: String(b.thinking), partial: false})
          continue
        }
        if (b.type === 'text') {
          said = String(b.text)
          blocks.push({type: 'text', text: said})
          ui.push({ts: s.ts - 10, type: 'say', say: 'text', text: said, partial: false})
        }
        if (b.type === 'tool_use') {
          if (variant === 'cline') blocks.push({type: 'text', text: clineToolXml(b)})
          else blocks.push({type: 'tool_use', id: b.id, name: b.name, input: b.input})
          ui.push({ts: s.ts, type: 'ask', ask: 'tool', text: JSON.stringify({tool: b.name, ...(b.input as object)}), partial: false})
        }
      }
      api.push(withTs({role: 'assistant', content: blocks}, s.ts))
      if (s.results) {
        const res: Block[] = []
        for (const b of s.results) {
          if (variant === 'cline') res.push({type: 'text', text: `[${String(b.name)}] Result:`}, {type: 'text', text: resultText(b)})
          else res.push({type: 'tool_result', tool_use_id: b.tool_use_id, content: resultText(b)})
        }
        api.push(withTs({role: 'user', content: [...res, {type: 'text', text: ENV(cwd)}]}, s.resultTs))
      }
    }
    ui.push({ts: t.steps.at(-1)!.ts + 5, type: 'ask', ask: 'completion_result', text: '', partial: false})
  })
  return {variant, id, api, ui, prompts: turns.map((t) => t.prompt)}
}

/** The task's history entry (Roo Code `HistoryItem`, Cline `HistoryItem`). */
export function historyItem(task: Task, n = 1, cwd = '/home/dev/demo-app'): Block {
  const first = task.ui[0] as {ts: number; text: string}
  const last = task.ui[task.ui.length - 1] as {ts: number}
  if (task.variant === 'cline') return {id: task.id, ulid: `01JFAKE${task.id.slice(-8)}`.toUpperCase(), ts: last.ts, task: first.text, tokensIn: 27100, tokensOut: 180, cacheWrites: 0, cacheReads: 0, totalCost: 0, size: 48213, cwdOnTaskInitialization: cwd, modelId: 'fake-model'}
  return {id: task.id, number: n, ts: last.ts, task: first.text, tokensIn: 27100, tokensOut: 180, cacheWrites: 0, cacheReads: 0, totalCost: 0, size: 48213, workspace: cwd, mode: 'code', status: 'completed'}
}

/** `task_metadata.json` (files the task read or edited; Cline adds model usage and environments). */
export function taskMetadata(task: Task, cwd = '/home/dev/demo-app'): Block {
  const t0 = (task.ui[0] as {ts: number}).ts
  const files = [{path: 'src/todo.ts', record_state: 'active', record_source: 'read_tool', roo_read_date: t0 + 900, roo_edit_date: null}]
  if (task.variant !== 'cline') return {files_in_context: files}
  return {
    files_in_context: files.map((f) => ({path: f.path, record_state: f.record_state, record_source: f.record_source, cline_read_date: f.roo_read_date, cline_edit_date: null, user_edit_date: null})),
    model_usage: [{ts: t0 + 200, model_id: 'fake-model', model_provider_id: 'openai', mode: 'act'}],
    environment_history: [{ts: t0, os_name: 'linux', os_version: '6.18.44', os_arch: 'x64', host_name: 'Visual Studio Code', host_version: '1.107.0', cline_version: '3.38.3', cwd}],
  }
}

/** The bytes the extensions write for a message array, the index or `history_item.json`: compact JSON, no newline. */
export function compact(v: unknown): Buffer {
  return Buffer.from(JSON.stringify(v), 'utf8')
}

/** The same value through the real json-stream-stringify (Roo Code ≥ 3.42's `safeWriteJson` serializer). */
export async function jsonStreamBytes(v: unknown, pretty = false): Promise<Buffer> {
  const chunks: Buffer[] = []
  const s = new JsonStreamStringify(v, undefined, pretty ? '\t' : undefined)
  for await (const c of s) chunks.push(Buffer.from(c as string, 'utf8'))
  return Buffer.concat(chunks)
}

/** Files of a task folder as the extension leaves them after a clean save. */
export function taskFiles(task: Task, n = 1): Record<string, Buffer> {
  const files: Record<string, Buffer> = {
    'api_conversation_history.json': compact(task.api),
    'ui_messages.json': compact(task.ui),
  }
  if (task.variant === 'cline') files['task_metadata.json'] = Buffer.from(JSON.stringify(taskMetadata(task), null, 2), 'utf8')
  else files['task_metadata.json'] = compact(taskMetadata(task))
  if (task.variant === 'roo') files['history_item.json'] = compact(historyItem(task, n))
  return files
}

/** A fixed base-36 tail like `Math.random().toString(36).substring(2)` (or `.substring(7)` for Cline). */
export function randTail(seed: number, len = 11): string {
  let x = seed >>> 0
  let s = ''
  for (let i = 0; i < len; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    s += '0123456789abcdefghijklmnopqrstuvwxyz'[x % 36]
  }
  return s
}

/** Roo Code / Kilo Code `safeWriteJson` leftover names. */
export const rooNew = (file: string, ms: number, seed = 1) => `.${file}.new_${ms}_${randTail(seed)}.tmp`
export const rooBak = (file: string, ms: number, seed = 2) => `.${file}.bak_${ms}_${randTail(seed)}.tmp`
/** Cline ≥ 3.40 `atomicWriteFile` temp name. */
export const clineTmp = (file: string, ms: number, seed = 3) => `${file}.tmp.${ms}.${randTail(seed, 5)}.json`

/** Where a safe write stops. */
export type SafeWriteStop = 'wrote-new' | 'renamed-old' | 'renamed-new' | 'done'

/**
 * Replays one safe write of `file` with `bytes` in `dir`, stopping after `stop`, as the extension does it:
 * Roo Code / Kilo Code `safeWriteJson` (new temp written → the current file renamed to a backup → the temp
 * renamed into place → the backup unlinked); Cline `atomicWriteFile` (temp written → renamed). Returns the
 * leftover names.
 */
export function safeWrite(variant: Variant, dir: string, file: string, bytes: Buffer, ms: number, stop: SafeWriteStop = 'done'): {temp: string; backup: string | null} {
  const target = path.join(dir, file)
  if (variant === 'cline') {
    const temp = clineTmp(file, ms)
    writeFileSync(path.join(dir, temp), bytes)
    if (stop !== 'wrote-new') renameSync(path.join(dir, temp), target)
    return {temp, backup: null}
  }
  const temp = rooNew(file, ms)
  writeFileSync(path.join(dir, temp), bytes)
  if (stop === 'wrote-new') return {temp, backup: null}
  let backup: string | null = null
  try {
    readFileSync(target)
    backup = rooBak(file, ms + 1)
    renameSync(target, path.join(dir, backup))
  } catch {
    backup = null
  }
  if (stop === 'renamed-old') return {temp, backup}
  renameSync(path.join(dir, temp), target)
  if (stop === 'renamed-new' || backup === null) return {temp, backup}
  unlinkSync(path.join(dir, backup))
  return {temp, backup: null}
}

/** Task ids per variant: Roo Code and Kilo Code a UUID v7, Cline `Date.now()`. */
export function taskId(variant: Variant, k: number): string {
  if (variant === 'cline') return String(1796118198748 + k * 60_000)
  const hex = (1796118198748 + k * 60_000).toString(16).padStart(12, '0')
  const node = (variant === 'roo' ? 0xabcdef000000 : 0xfedcba000000) + k
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${(k + 100).toString(16).padStart(3, '0')}-8${(k + 300).toString(16).padStart(3, '0')}-${node.toString(16)}`
}

/** The globalStorage folder of an extension in an editor's user folder (Linux layout by default). */
export function storageDir(home: string, variant: Variant, editor = path.join('.config', 'Code')): string {
  return path.join(home, editor, 'User', 'globalStorage', EXTENSION_ID[variant])
}

/** One task laid out on disk. */
export interface WrittenTask {
  task: Task
  dir: string
  files: Record<string, Buffer>
}

/**
 * Writes tasks into a storage folder as the extension leaves them after clean saves, with the index this
 * variant keeps on disk (Roo Code: `tasks/_index.json` + each `history_item.json`; Cline:
 * `state/taskHistory.json`; Kilo Code: none, its list is in VS Code's `state.vscdb`). `listed` limits the
 * index to some task ids. mtimes are fixed and distinct (transcript newest), folders after their files.
 */
export function writeStore(storage: string, variant: Variant, tasks: Task[], opts: {listed?: string[]} = {}): WrittenTask[] {
  const out: WrittenTask[] = []
  const base = Date.UTC(2026, 11, 1, 9, 0, 0)
  tasks.forEach((task, k) => {
    const dir = path.join(storage, 'tasks', task.id)
    mkdirSync(dir, {recursive: true})
    const files = taskFiles(task, k + 1)
    let i = 0
    for (const name of ['task_metadata.json', 'history_item.json', 'api_conversation_history.json', 'ui_messages.json']) {
      if (!files[name]) continue
      writeFileSync(path.join(dir, name), files[name])
      setMtime(path.join(dir, name), base + k * 600_000 + i++ * 1000)
    }
    setMtime(dir, base + k * 600_000 + 10_000)
    out.push({task, dir, files})
  })
  const listed = opts.listed ?? tasks.map((t) => t.id)
  const items = tasks.filter((t) => listed.includes(t.id)).map((t, k) => historyItem(t, k + 1))
  if (variant === 'roo') {
    writeFileSync(path.join(storage, 'tasks', '_index.json'), compact({version: 1, updatedAt: base + 3_600_000, entries: [...items].reverse()}))
  }
  if (variant === 'cline') {
    mkdirSync(path.join(storage, 'state'), {recursive: true})
    writeFileSync(path.join(storage, 'state', 'taskHistory.json'), compact(items))
  }
  return out
}

/** Writes a file and gives it an mtime. */
export function put(p: string, data: Buffer, mtimeMs: number): void {
  writeFileSync(p, data)
  setMtime(p, mtimeMs)
}

/** A process holding `file` open, as a running editor holds its profile's `state.vscdb`; `release` ends it. */
export async function holdOpen(file: string): Promise<{pid: number; release: () => Promise<void>}> {
  const holder = spawn(process.execPath, ['-e', `require('fs').openSync(${JSON.stringify(file)}, 'r'); process.stdout.write('open\\n'); setInterval(() => {}, 1000)`], {stdio: ['ignore', 'pipe', 'ignore']})
  await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()))
  return {
    pid: holder.pid!,
    release: async () => {
      holder.kill()
      await new Promise((resolve) => holder.once('exit', resolve))
    },
  }
}

/**
 * VS Code's state database (`<profile>/User/globalStorage/state.vscdb`) as VS Code's storage creates and writes
 * it (microsoft/vscode `src/vs/base/parts/storage/node/storage.ts`: `PRAGMA user_version = 1`, `ItemTable`, one
 * `INSERT` in one transaction), with Kilo Code's global state (key `kilocode.kilo-code`, the `JSON.stringify` of
 * its state object; Cline's `saoudrizwan.claude-dev` with `variant: 'cline'`) holding `listed` as its
 * `taskHistory` and the members of `state`, and a row of another owner beside it.
 */
export function writeStateDb(file: string, listed: Task[], opts: {variant?: 'kilo' | 'cline'; state?: Record<string, unknown>} = {}): void {
  const db = new Database(file)
  try {
    db.exec('PRAGMA user_version = 1;CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)')
    const state = {taskHistory: listed.map((t, k) => historyItem(t, k + 1)), mode: 'code', listApiConfigMeta: [{name: 'default', id: 'x1', apiProvider: 'openai'}], ...opts.state}
    db.transaction(() => {
      db.prepare('INSERT INTO ItemTable VALUES (?,?),(?,?)').run(EXTENSION_ID[opts.variant ?? 'kilo'], JSON.stringify(state), 'workbench.panel.height', '300')
    })()
  } finally {
    db.close()
  }
}
