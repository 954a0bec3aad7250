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
import {keepLeading, redactJsonlBytes} from '../jsonl/redact.js'
import {redactJsonBytes, type RedactProfile} from '../../json/redact.js'
import type {BundleFile, Redactor} from '../../model/adapter.js'
import type {ChatReport} from '../../model/report.js'

const MARKER = /^(\s*)(<session_context>|<hook_context>|\/|\?)/

/** The Gemini CLI record keys whose values are structure (records.ts; new-agents.md §1.2). */
export const GEMINI_PROFILE: RedactProfile = {
  structuralKeys: new Set(['sessionId', 'projectHash', 'startTime', 'lastUpdated', 'kind', 'id', 'timestamp', 'type', '$rewindTo', 'model', 'status', 'name', 'displayName', 'mimeType']),
  value: keepLeading(MARKER),
  nulIsPadding: true,
  lineBreaksInStrings: true,
}

/** Redacts one file of a Gemini CLI session, by its name. Never throws. */
export function redactGeminiFile(name: string, data: Buffer, r: Redactor): Buffer {
  const legacy = /\.json(?:\.(?:unreadable|tmp)-\d+)?$/.test(name)
  return legacy ? redactJsonBytes(data, r, GEMINI_PROFILE) : redactJsonlBytes(data, r, GEMINI_PROFILE)
}

/** The `redact` hook: every file of the session that has a role (session files, quarantine copies, temps). */
export function redactGeminiFiles(files: readonly BundleFile[], report: ChatReport, r: Redactor): {files: BundleFile[]; omitted: Array<{path: string; reason: string}>} {
  const roles = new Map(report.generations.map((g) => [g.file, g.role] as const))
  const out: BundleFile[] = []
  const omitted: Array<{path: string; reason: string}> = []
  for (const f of files) {
    const role = roles.get(f.rel)
    if (role === 'primary' || role === 'sibling' || role === 'backup' || role === 'temp') out.push({...f, data: redactGeminiFile(f.rel, f.data, r)})
    else omitted.push({path: f.rel, reason: 'content cannot be redacted structurally'})
  }
  return {files: out, omitted}
}
