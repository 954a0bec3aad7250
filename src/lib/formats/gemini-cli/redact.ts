/**
 * `bundle --redact` for Gemini CLI sessions: each file redacted line by line (session files, `.unreadable-<ms>`
 * copies, `.tmp-<pid>` temps) or as one document (a legacy `.json`), with the byte-level lexer of
 * `bundle/redact.ts`, so damage stays where it was. Kept: the keys, the record kinds (`$set`, `$rewindTo` and its
 * target id), ids, message `type`s, timestamps, `sessionId`, `projectHash`, `kind`, tool names and statuses,
 * model names; and at the start of a text the markers the CLI's loader goes by (`/`, `?`, `<session_context>`,
 * `<hook_context>`: such a user message is not a prompt), so the redacted session replays and counts the same.
 * Everything else (prompts, answers, thoughts, tool arguments and results, summaries, paths) becomes a
 * placeholder; an empty text stays empty (an empty model message is not an answer).
 */
import {redactJsonlBytes} from '../../bundle/redact-agents.js'
import {redactJsonBytes, type RedactProfile, type Redactor} from '../../bundle/redact.js'

const MARKER = /^(\s*)(<session_context>|<hook_context>|\/|\?)/

/** The Gemini CLI record keys whose values are structure (records.ts; new-agents.md §1.2). */
export const GEMINI_PROFILE: RedactProfile = {
  structuralKeys: new Set(['sessionId', 'projectHash', 'startTime', 'lastUpdated', 'kind', 'id', 'timestamp', 'type', '$rewindTo', 'model', 'status', 'name', 'displayName', 'mimeType']),
  value(value, _key, r) {
    if (value.trim() === '') return value
    const m = MARKER.exec(value)
    if (!m) return undefined
    const rest = value.slice(m[0].length)
    return m[0] + (rest === '' ? '' : r.placeholder(rest))
  },
  nulIsPadding: true,
}

/** Redacts one file of a Gemini CLI session, by its name. Never throws. */
export function redactGeminiFile(name: string, data: Buffer, r: Redactor): Buffer {
  const legacy = /\.json(?:\.(?:unreadable|tmp)-\d+)?$/.test(name)
  return legacy ? redactJsonBytes(data, 'other', r, GEMINI_PROFILE) : redactJsonlBytes(data, r, GEMINI_PROFILE)
}
