/**
 * `find` in the task folders of Roo Code, Kilo Code and Cline 3.x. Both documents are searched, so that a task
 * one of them is torn in is still found by what the other holds (a match names its file):
 * `api_conversation_history.json`, an array of messages: prompts are the `user` messages' `text` blocks (the
 * `<environment_details>` the extension appends left out), answers the `assistant` messages' `text` blocks;
 * `ui_messages.json`, the transcript of `ClineMessage`s: prompts are the task (Cline `say: "task"`, Roo and Kilo
 * a first `say: "text"`) and every `say: "user_feedback"`, answers the later `say: "text"`, the
 * `completion_result`s and the question of an `ask: "followup"` (its text is JSON `{question, …}`); partial
 * (streaming) messages, reasoning, tool and command messages are left out. The task id is the folder's name,
 * the project `history_item.json`'s `workspace` when there is one. No command opens a task: the extension's
 * History view does; a task its index does not list is not in that view.
 */
import {readFileSync} from 'node:fs'
import path from 'node:path'
import type {FoundText, SessionFinder} from '../../model/adapter.js'
import {API_HISTORY, FORMAT_OF, HISTORY_ITEM, PRODUCT_OF, UI_MESSAGES, variantOfFiles} from './layout.js'
import type {TaskFacts} from './store.js'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function blocks(content: unknown, role: FoundText['role']): FoundText[] {
  if (typeof content === 'string') return [{role, text: content}]
  if (!Array.isArray(content)) return []
  return content
    .filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string' && !(b.text as string).startsWith('<environment_details>'))
    .map((b) => ({role, text: b.text as string}))
}

function historyTexts(record: unknown): FoundText[] {
  if (!Array.isArray(record)) return []
  return record.flatMap((m) => (!isObject(m) ? [] : m.role === 'user' ? blocks(m.content, 'prompt') : m.role === 'assistant' ? blocks(m.content, 'answer') : []))
}

/** The question of a follow-up ask (`{question, …}` as JSON text), or the text itself when it is not that. */
function question(text: string): string {
  try {
    const v = JSON.parse(text) as unknown
    return isObject(v) && typeof v.question === 'string' ? v.question : text
  } catch {
    return text
  }
}

/** The prompts and answers of a parsed `ui_messages.json`. */
function transcriptTexts(record: unknown): FoundText[] {
  if (!Array.isArray(record)) return []
  const out: FoundText[] = []
  record.forEach((m, i) => {
    if (!isObject(m) || m.partial === true || typeof m.text !== 'string' || m.text === '') return
    const text = m.text
    if (m.type === 'say') {
      if (m.say === 'task' || m.say === 'user_feedback' || (i === 0 && m.say === 'text')) out.push({role: 'prompt', text})
      else if (m.say === 'text' || m.say === 'completion_result') out.push({role: 'answer', text})
    } else if (m.type === 'ask') {
      if (m.ask === 'followup') out.push({role: 'answer', text: question(text)})
      else if (m.ask === 'completion_result') out.push({role: 'answer', text})
    }
  })
  return out
}

export const taskFinder: SessionFinder = {
  sources: () => [
    {name: API_HISTORY, records: 'document'},
    {name: UI_MESSAGES, records: 'document'},
  ],
  namesFiles: true,
  texts: (record, source) => (source.name === UI_MESSAGES ? transcriptTexts(record) : historyTexts(record)),
  session(unit, _source, {mtimeMs}) {
    const facts = unit.facts as TaskFacts | undefined
    const variant = facts?.kind === 'vscode-task' ? facts.variant : variantOfFiles(unit.listing ?? [])
    let project: string | null = null
    let listable = false
    try {
      const item = JSON.parse(readFileSync(path.join(unit.dir, HISTORY_ITEM), 'utf8')) as unknown
      if (isObject(item) && typeof item.workspace === 'string' && item.workspace !== '') project = item.workspace
      listable = isObject(item) && typeof item.id === 'string' && item.id !== ''
    } catch {
      // No history item (or a damaged one): no project.
    }
    const product = PRODUCT_OF[variant]
    const idx = facts?.index
    // Roo Code adds a task its index lacks back from an intact history_item.json at its next start.
    let hidden: string | null = null
    if (variant === 'roo' && idx && idx.state !== 'listed' && !listable) hidden = `${product}'s task index (${idx.file}) does not list it and its ${HISTORY_ITEM} is missing or damaged: its History view does not show it (chatdoctor repair rebuilds that file)`
    else if (variant !== 'roo' && idx?.state === 'not-listed') hidden = `${product}'s task index (${variant === 'kilo' ? "the taskHistory of its row in VS Code's globalStorage/state.vscdb" : idx.file}) does not list it: its History view does not show it (chatdoctor repair adds its entry when the task's own files hold what it needs)`
    return {
      id: path.basename(unit.dir),
      project,
      timeMs: mtimeMs,
      resume: null,
      hidden,
      howToOpen: `open ${product}'s History view in the editor and pick the task`,
      format: FORMAT_OF[variant],
      agent: product,
    }
  },
}
