/**
 * `find` in Codebuff chats: `chat-messages.json` is one document, the transcript the CLI shows; prompts are the
 * `user` messages' `content`, answers the `ai` messages' `content` and their `text` blocks. The chat id is the
 * folder's name, the project the `projects/<name>/` folder above it (Codebuff keys projects by the folder's
 * name only), the time the transcript's mtime. `codebuff --continue <id>` resumes it, run from that project.
 */
import path from 'node:path'
import type {FoundText, SessionFinder} from '../../model/adapter.js'

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

export const codebuffFinder: SessionFinder = {
  sources: () => [{name: 'chat-messages.json', records: 'document'}],
  texts: (record) => (Array.isArray(record) ? record.flatMap(messageTexts) : []),
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
