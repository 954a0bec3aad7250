/**
 * `find` in Gemini CLI sessions: prompts are `user` messages' text parts (the `<session_context>` the CLI
 * writes first left out), answers the `gemini` messages' content; a `$set` record's `messages` (the CLI
 * rewriting its list) are read the same way, as are the messages of an older `.json` document. The session id
 * is the first record's `sessionId`, the project the `.project_root` beside the chats folder, the time the
 * file's mtime. `gemini --resume <id>` opens it from its project folder.
 */
import {readFileSync} from 'node:fs'
import path from 'node:path'
import type {FindSource, FoundText, SessionFinder} from '../../model/adapter.js'
import {blockTexts, headString, isObject} from '../jsonl/find.js'
import {isSubagentName, parseName} from './layout.js'

function messageTexts(m: unknown): FoundText[] {
  if (!isObject(m)) return []
  if (m.type === 'user') return blockTexts(m.content, 'prompt').filter((t) => !t.text.startsWith('<session_context>'))
  if (m.type === 'gemini') return blockTexts(m.content, 'answer')
  return []
}

function texts(record: unknown): FoundText[] {
  if (!isObject(record)) return []
  const list = isObject(record.$set) ? record.$set.messages : record.messages
  if (Array.isArray(list)) return list.flatMap(messageTexts)
  return messageTexts(record)
}

/** The project folder a chats folder belongs to: `.project_root` in its parent (one line), or null. */
function projectOf(chatsDir: string): string | null {
  for (const dir of [path.dirname(chatsDir), path.dirname(path.dirname(chatsDir))]) {
    try {
      const text = readFileSync(path.join(dir, '.project_root'), 'utf8').trim()
      if (text !== '' && text.length < 4096 && !text.includes('\n')) return text
    } catch {
      // None here.
    }
  }
  return null
}

export const geminiFinder: SessionFinder = {
  sources: (unit) =>
    (unit.files ?? [])
      .filter((n) => parseName(unit.dir, n)?.kind === 'session' || isSubagentName(unit.dir, n))
      .map((name): FindSource => ({name, records: name.endsWith('.jsonl') ? 'lines' : 'document'})),
  texts,
  session(unit, source, {head, mtimeMs}) {
    const id = headString(head, 'sessionId') ?? path.basename(source.name).replace(/\.jsonl?$/, '')
    const project = projectOf(unit.dir)
    const sub = !parseName(unit.dir, source.name)
    const hidden = sub ? "a sub-agent's session: the CLI lists only its parent session" : null
    return {id, project, timeMs: mtimeMs, resume: {argv: ['gemini', '--resume', id], cwd: project}, hidden}
  },
}
