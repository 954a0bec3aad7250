/**
 * `find` in Claude Code's session logs: prompts are `user` records' text (a string or `text` blocks; records the
 * CLI injects, `isMeta`, left out), answers the `assistant` records' `text` blocks. The session id is the log's
 * name (a side-chain's is its parent's folder), the project the records' `cwd`, the time the log's mtime (what
 * the picker shows). `claude --resume <id>` opens it from its project folder; the picker never lists a
 * print-mode session (`entrypoint: sdk-cli`: index-files.md §1.2), nor a side-chain.
 */
import path from 'node:path'
import type {FindSource, FoundText, SessionFinder} from '../../model/adapter.js'
import {blockTexts, headString, isObject, plainLogs} from '../jsonl/find.js'

function texts(record: unknown): FoundText[] {
  if (!isObject(record) || !isObject(record.message) || record.isMeta === true) return []
  if (record.type === 'user') return blockTexts(record.message.content, 'prompt')
  if (record.type === 'assistant') return blockTexts(record.message.content, 'answer')
  return []
}

export const claudeFinder: SessionFinder = {
  sources: (unit) => plainLogs(unit),
  texts,
  session(unit, source: FindSource, {head, hit, mtimeMs}) {
    const rec = isObject(hit) ? hit : {}
    const project = typeof rec.cwd === 'string' ? rec.cwd : headString(head, 'cwd')
    const entrypoint = typeof rec.entrypoint === 'string' ? rec.entrypoint : headString(head, 'entrypoint')
    const sideChain = path.basename(unit.dir) === 'subagents'
    const id = sideChain ? path.basename(path.dirname(unit.dir)) : path.basename(source.name, '.jsonl')
    const hidden = sideChain
      ? "a subagent's side-chain: the picker lists only its parent session, which this resumes"
      : entrypoint === 'sdk-cli'
        ? 'a print-mode (claude -p) session: Claude Code\'s picker never lists these; it resumes by id'
        : null
    return {id, project, timeMs: mtimeMs, resume: {argv: ['claude', '--resume', id], cwd: project}, hidden}
  },
}
