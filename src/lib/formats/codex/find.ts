/**
 * `find` in Codex rollouts: prompts and answers are the `response_item` messages of role `user` and
 * `assistant` (their `input_text`/`output_text` blocks; older logs carry the message as the record itself).
 * The thread id is `session_meta`'s `id` (the file name's suffix), the project its `cwd`, the time the
 * rollout's mtime. `codex resume <id>` opens it; the picker never lists an `exec` thread (`source: exec`:
 * index-files.md §2.2).
 */
import path from 'node:path'
import type {FindSource, FoundText, SessionFinder} from '../../model/adapter.js'
import {blockTexts, headString, isObject, plainLogs} from '../jsonl/find.js'

function texts(record: unknown): FoundText[] {
  if (!isObject(record)) return []
  const m = record.type === 'response_item' ? record.payload : record
  if (!isObject(m) || m.type !== 'message') return []
  if (m.role === 'user') return blockTexts(m.content, 'prompt')
  if (m.role === 'assistant') return blockTexts(m.content, 'answer')
  return []
}

const UUID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i

export const codexFinder: SessionFinder = {
  sources: (unit) => plainLogs(unit),
  texts,
  session(_unit, source: FindSource, {head, mtimeMs}) {
    const id = headString(head, 'id') ?? UUID.exec(source.name)?.[1] ?? path.basename(source.name, '.jsonl')
    const project = headString(head, 'cwd')
    const hidden = headString(head, 'source') === 'exec' ? "a `codex exec` thread: Codex's resume picker never lists these; it resumes by id" : null
    return {id, project, timeMs: mtimeMs, resume: {argv: ['codex', 'resume', id], cwd: project}, hidden}
  },
}
