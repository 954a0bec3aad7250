/**
 * `find` in Codebuff chats. Both documents of a chat are searched, so a chat one of them is torn in is still found
 * by what the other holds (a match names its file): `chat-messages.json`, the transcript the CLI shows (prompts
 * are the `user` messages' `content`, answers the `ai` messages' `content` and their `text` blocks), and
 * `run-state.json`, the model's context (`sessionState.mainAgentState.messageHistory`: prompts are the `user`
 * messages tagged `USER_PROMPT`, their text parts with the `<user_message>` wrapper taken off; answers the
 * `assistant` messages' text; instructions, step prompts, tool results and reasoning are left out,
 * codebuff-format.md §2.5). The chat id is the
 * folder's name, the project the `projects/<name>/` folder above it (Codebuff keys projects by the folder's
 * name only), the time the transcript's mtime. `codebuff --continue <id>` resumes it, run from that project.
 */
import path from 'node:path'
import type {FoundText, SessionFinder} from '../../model/adapter.js'
import {PRIMARY, TRANSCRIPT} from './layout.js'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function messageTexts(m: unknown): FoundText[] {
  if (!isObject(m)) return []
  const role = m.variant === 'user' ? 'prompt' : m.variant === 'ai' ? 'answer' : null
  if (role === null) return []
  const out: FoundText[] = []
  if (typeof m.content === 'string' && m.content !== '') out.push({role, text: m.content})
  if (Array.isArray(m.blocks)) for (const b of m.blocks) if (isObject(b) && b.type === 'text' && typeof b.content === 'string' && b.content !== '') out.push({role, text: b.content})
  return out
}

/** The text parts of a context message's `content` (a plain string in the legacy shape). */
function parts(content: unknown): string[] {
  if (typeof content === 'string') return [content]
  if (!Array.isArray(content)) return []
  return content.filter((p) => isObject(p) && p.type === 'text' && typeof p.text === 'string').map((p) => (p as {text: string}).text)
}

/** The prompts and answers of a parsed `run-state.json`. */
function contextTexts(record: unknown): FoundText[] {
  const history = isObject(record) && isObject(record.sessionState) && isObject(record.sessionState.mainAgentState) ? record.sessionState.mainAgentState.messageHistory : undefined
  if (!Array.isArray(history)) return []
  const out: FoundText[] = []
  for (const m of history) {
    if (!isObject(m)) continue
    if (m.role === 'user' && Array.isArray(m.tags) && m.tags.includes('USER_PROMPT')) {
      for (const t of parts(m.content)) out.push({role: 'prompt', text: t.replace(/^\s*<user_message>\n?/, '').replace(/\n?<\/user_message>\s*$/, '')})
    } else if (m.role === 'assistant') for (const t of parts(m.content)) if (t !== '') out.push({role: 'answer', text: t})
  }
  return out
}

export const codebuffFinder: SessionFinder = {
  sources: () => [
    {name: TRANSCRIPT, records: 'document'},
    {name: PRIMARY, records: 'document'},
  ],
  namesFiles: true,
  texts: (record, source) => (source.name === PRIMARY ? contextTexts(record) : Array.isArray(record) ? record.flatMap(messageTexts) : []),
  session(unit, _source, {mtimeMs}) {
    const id = path.basename(unit.dir)
    const chats = path.dirname(unit.dir)
    const project = path.basename(chats) === 'chats' ? path.basename(path.dirname(chats)) : null
    return {
      id,
      project,
      timeMs: mtimeMs,
      resume: {argv: ['codebuff', '--continue', id], cwd: null},
      hidden: null,
      ...(project !== null ? {howToOpen: `run it from your project folder named ${project}`} : {}),
    }
  },
}
