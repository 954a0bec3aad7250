/**
 * `find` in the task folders of Roo Code, Kilo Code and Cline 3.x: `api_conversation_history.json` is one
 * document, an array of messages; prompts are the `user` messages' `text` blocks (the `<environment_details>`
 * the extension appends left out), answers the `assistant` messages' `text` blocks. The task id is the folder's
 * name, the project `history_item.json`'s `workspace` when there is one. No command opens a task: the
 * extension's History view does; a task its index does not list is not in that view.
 */
import {readFileSync} from 'node:fs'
import path from 'node:path'
import type {FoundText, SessionFinder} from '../../model/adapter.js'
import {API_HISTORY, FORMAT_OF, HISTORY_ITEM, PRODUCT_OF, variantOfFiles} from './layout.js'
import type {TaskFacts} from './store.js'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function blocks(content: unknown, role: FoundText['role']): FoundText[] {
  if (typeof content === 'string') return [{role, text: content}]
  if (!Array.isArray(content)) return []
  return content
    .filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string' && !(b.text as string).startsWith('<environment_details>'))
    .map((b) => ({role, text: b.text as string}))
}

function texts(record: unknown): FoundText[] {
  if (!Array.isArray(record)) return []
  return record.flatMap((m) => (!isObject(m) ? [] : m.role === 'user' ? blocks(m.content, 'prompt') : m.role === 'assistant' ? blocks(m.content, 'answer') : []))
}

export const taskFinder: SessionFinder = {
  sources: () => [{name: API_HISTORY, records: 'document'}],
  texts,
  session(unit, _source, {mtimeMs}) {
    const facts = unit.facts as TaskFacts | undefined
    const variant = facts?.kind === 'vscode-task' ? facts.variant : variantOfFiles(unit.listing ?? [])
    let project: string | null = null
    try {
      const item = JSON.parse(readFileSync(path.join(unit.dir, HISTORY_ITEM), 'utf8')) as unknown
      if (isObject(item) && typeof item.workspace === 'string' && item.workspace !== '') project = item.workspace
    } catch {
      // No history item (or a damaged one): no project.
    }
    const product = PRODUCT_OF[variant]
    const hidden = facts?.index?.state === 'not-listed' ? `${product}'s task index (${facts.index.file}) does not list it: its History view does not show it` : null
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
