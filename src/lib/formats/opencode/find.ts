/**
 * `find` in OpenCode's JSON tree (≤ 1.1.x): every `text` part of a session (`storage/part/<message>/<part>.json`,
 * one document each; `synthetic` parts the CLI adds left out) is a prompt or an answer by its message's
 * `role` (`storage/message/<session>/<message>.json`). The session file gives the project (`directory`) and
 * the time (`time.updated`). `opencode --session <id>` opens it from its project folder. Sessions kept in
 * `opencode.db` (≥ 1.2.0) are searched by the store family's finder (`opencode-family/find.ts`).
 */
import {readFileSync} from 'node:fs'
import path from 'node:path'
import type {ChatUnit, FoundText, SessionFinder} from '../../model/adapter.js'
import {databaseFinder} from '../opencode-family/find.js'
import {OPENCODE, STORAGE} from './layout.js'
import type {OpenCodeFacts} from './store.js'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function readJson(file: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown
    return isObject(v) ? v : null
  } catch {
    return null
  }
}

/** The role of a message by its file, from the part's `sessionID` and `messageID`. */
function roleOf(unit: ChatUnit, part: Record<string, unknown>): FoundText['role'] | null {
  const sid = part.sessionID
  const mid = part.messageID
  if (typeof sid !== 'string' || typeof mid !== 'string' || /[\\/]|^\.\.?$/.test(sid) || /[\\/]|^\.\.?$/.test(mid)) return null
  const m = readJson(path.join(unit.dir, STORAGE, 'message', sid, `${mid}.json`))
  return m?.role === 'user' ? 'prompt' : m?.role === 'assistant' ? 'answer' : null
}

/** The JSON tree's sessions. */
const treeFinder: SessionFinder = {
  sources: (unit) => {
    const facts = unit.facts as OpenCodeFacts | undefined
    if (facts?.kind !== 'tree' || facts.sessionId === null) return []
    return (unit.members ?? []).filter((m) => m.startsWith(`${STORAGE}/part/`) && m.endsWith('.json')).map((name) => ({name, records: 'document' as const}))
  },
  texts(record, _source, unit) {
    if (!isObject(record) || record.type !== 'text' || typeof record.text !== 'string' || record.synthetic === true) return []
    const role = roleOf(unit, record)
    return role === null ? [] : [{role, text: record.text}]
  },
  session(unit, _source, {mtimeMs}) {
    const facts = unit.facts as OpenCodeFacts
    const id = facts.kind === 'tree' && facts.sessionId !== null ? facts.sessionId : path.basename(unit.path, '.json')
    const file = (unit.members ?? []).find((m) => m.startsWith(`${STORAGE}/session/`) && m.endsWith(`/${id}.json`))
    const s = file ? readJson(path.join(unit.dir, file)) : null
    const project = typeof s?.directory === 'string' ? s.directory : null
    const time = isObject(s?.time) && typeof s.time.updated === 'number' ? s.time.updated : mtimeMs
    return {id, project, timeMs: time, resume: {argv: ['opencode', '--session', id], cwd: project}, hidden: null}
  },
}

const dbFinder = databaseFinder(OPENCODE)
const isDatabase = (unit: ChatUnit) => (unit.facts as OpenCodeFacts | undefined)?.kind === 'database'

/** OpenCode's sessions: those of the JSON tree, and those of `opencode.db` (by the store family). */
export const opencodeFinder: SessionFinder = {
  sources: (unit) => (isDatabase(unit) ? dbFinder : treeFinder).sources(unit),
  rows: (unit, source) => dbFinder.rows!(unit, source),
  texts: (record, source, unit) => (isDatabase(unit) ? dbFinder : treeFinder).texts(record, source, unit),
  session: (unit, source, ctx) => (isDatabase(unit) ? dbFinder : treeFinder).session(unit, source, ctx),
}
