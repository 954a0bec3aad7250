/**
 * `find` in Cline CLI sessions: `<id>.messages.json` is one document whose `messages` are the conversation;
 * prompts are the `user` messages' `text` blocks (the `<user_input>` wrapper Cline adds taken off), answers the
 * `assistant` messages' `text` blocks (thinking, tool calls and results are neither). The project is the
 * session record's `cwd`; `cline --id <id>` continues it (the binary's own "Continue" line). A session the
 * index (`sessions.db`) does not list is not in `cline history`.
 */
import {readFileSync} from 'node:fs'
import path from 'node:path'
import type {FoundText, SessionFinder} from '../../model/adapter.js'
import type {ClineFacts} from './store.js'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

const WRAPPER = /^<user_input[^>]*>([\s\S]*)<\/user_input>$/

function blockTexts(content: unknown, role: FoundText['role']): FoundText[] {
  if (typeof content === 'string') return [{role, text: content}]
  if (!Array.isArray(content)) return []
  return content.filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string').map((b) => ({role, text: (b.text as string).replace(WRAPPER, '$1')}))
}

function texts(record: unknown): FoundText[] {
  if (!isObject(record) || !Array.isArray(record.messages)) return []
  return record.messages.flatMap((m) => (!isObject(m) ? [] : m.role === 'user' ? blockTexts(m.content, 'prompt') : m.role === 'assistant' ? blockTexts(m.content, 'answer') : []))
}

export const clineFinder: SessionFinder = {
  sources: (unit) => {
    const facts = unit.facts as ClineFacts | undefined
    return facts?.kind === 'session' ? [{name: `${facts.sessionId}.messages.json`, records: 'document'}] : []
  },
  texts,
  session(unit, _source, {mtimeMs}) {
    const facts = unit.facts as ClineFacts
    let project: string | null = null
    try {
      const record = JSON.parse(readFileSync(path.join(unit.dir, `${facts.sessionId}.json`), 'utf8')) as unknown
      if (isObject(record) && typeof record.cwd === 'string') project = record.cwd
    } catch {
      // A damaged or missing record: no project.
    }
    const hidden = facts.index.state === 'read' && facts.index.row === null ? "Cline's session index (sessions.db) does not list it: `cline history` does not show it" : null
    return {id: facts.sessionId, project, timeMs: mtimeMs, resume: {argv: ['cline', '--id', facts.sessionId], cwd: project}, hidden}
  },
}
