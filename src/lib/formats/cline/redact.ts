/**
 * Redaction of a Cline session's files for `bundle --redact`, with the byte-level lexer of
 * `bundle/redact.ts` (string tokens replaced in place; numbers, literals, whitespace and damage kept byte for
 * byte; equal values get equal placeholders). Kept: ids (`id`, `sessionId`, `session_id`, `tool_use_id`),
 * roles, block types, tool names, statuses, sources, modes, kinds, provider and model ids, timestamps and
 * every number (`ts`, token counts, `runCount`, `userRunSpan`); replaced: message text, thinking, tool inputs
 * and results, prompts, system prompts, titles, paths (`cwd`, `workspace_root`, `messages_path`), team names
 * and git refs.
 *
 * So that the redacted session counts the same turns (`userRunSpan` in messages.ts), a text keeps the SDK's
 * own markup — its `<user_input mode="…">`/`<user_command …>` tags, its `<mode_notice>` elements, a leading
 * `[TASK RESUMPTION]`, the act-mode continuation prompt — and only the user's words between them are
 * replaced (whitespace-only stretches stay as they are).
 */
import {hasBom} from '../../classify/bytes.js'
import {redactByRole, redactJsonBytes, type RedactedFiles, type RedactProfile} from '../../json/redact.js'
import type {BundleFile, Redactor} from '../../model/adapter.js'
import type {ChatReport} from '../../model/report.js'
import {ACT_MODE_CONTINUATION} from './messages.js'

/** The SDK's markup inside a text: a wrapper tag, or a whole mode notice. */
const MARKUP = /<\/?(?:user_input|user_command)\b[^>]*>|<mode_notice>[\s\S]*?<\/mode_notice>/g
const RESUMPTION = '[TASK RESUMPTION]'

/** A text with the SDK's markup kept and every stretch of the user's words replaced. */
export function redactPromptMarkup(value: string, r: Redactor): string {
  if (value === ACT_MODE_CONTINUATION) return value
  const words = (s: string): string => {
    if (s.trim() === '') return s
    const lead = /^\s*/.exec(s)![0]
    const rest = s.slice(lead.length)
    if (rest.startsWith(RESUMPTION)) return lead + RESUMPTION + words(rest.slice(RESUMPTION.length))
    return r.placeholder(s)
  }
  let out = ''
  let at = 0
  for (const m of value.matchAll(MARKUP)) {
    out += words(value.slice(at, m.index)) + m[0]
    at = m.index + m[0].length
  }
  return out + words(value.slice(at))
}

/** Keys whose values are structure in Cline's session files (new-agents.md §2.2). */
export const CLINE_PROFILE: RedactProfile = {
  structuralKeys: new Set([
    // <id>.messages.json
    'version', 'updated_at', 'agent', 'sessionId', 'taskType', 'source', 'mode', 'id', 'role', 'type', 'tool_use_id', 'name', 'provider', 'kind', 'displayRole',
    // <id>.json
    'session_id', 'status', 'started_at', 'ended_at', 'model', 'terminal_marker', 'terminal_marker_source',
  ]),
  value(value, key, r) {
    if (key !== 'text' && key !== 'content') return undefined
    if (value === ACT_MODE_CONTINUATION || value.includes('<') || value.trimStart().startsWith(RESUMPTION)) return redactPromptMarkup(value, r)
    return undefined
  },
}

/**
 * The `redact` hook: every JSON file of the session folder (conversation, record, compacted view, sub-agent
 * conversations) redacted with the profile above; anything else is left out.
 */
export function redactSessionFiles(files: readonly BundleFile[], report: ChatReport, r: Redactor): RedactedFiles {
  return redactByRole(files, report, (f, role) => (role !== 'other' && f.rel.endsWith('.json') ? redactClineBytes(f.data, r) : {omit: 'content cannot be redacted structurally'}))
}

/**
 * One file redacted. A leading byte-order mark stays and the document after it is redacted as any other:
 * Cline's reader strips a BOM and loads the rest, so the rest must keep its structure (the lexer alone would
 * take a BOM as the first irregular byte and replace every string after it, keys included).
 */
export function redactClineBytes(data: Buffer, r: Redactor): Buffer {
  if (hasBom(data)) return Buffer.concat([data.subarray(0, 3), redactJsonBytes(data.subarray(3), r, CLINE_PROFILE)])
  return redactJsonBytes(data, r, CLINE_PROFILE)
}
