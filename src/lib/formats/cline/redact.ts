/**
 * Redaction of a Cline session's files for `bundle --redact`, with the byte-level lexer of
 * `bundle/redact.ts` (string tokens replaced in place; numbers, literals, whitespace and damage kept byte for
 * byte; equal values get equal placeholders). Kept: ids (`id`, `sessionId`, `session_id`, `tool_use_id`),
 * roles, block types, tool names, statuses, sources, modes, provider and model ids, timestamps and every
 * number (`ts`, token counts, `runCount`); replaced: message text, thinking, tool inputs and results, prompts,
 * system prompts, titles, paths (`cwd`, `workspace_root`, `messages_path`), team names and git refs. The
 * redacted session diagnoses the same: prompts are told by role and block type, turns by count.
 */
import {redactJsonBytes, type RedactProfile, type Redactor} from '../../bundle/redact.js'
import type {Role} from '../../model.js'

/** Keys whose values are structure in Cline's session files (new-agents.md §2.2). */
export const CLINE_PROFILE: RedactProfile = {
  structuralKeys: new Set([
    // <id>.messages.json
    'version', 'updated_at', 'agent', 'sessionId', 'taskType', 'source', 'mode', 'id', 'role', 'type', 'tool_use_id', 'name', 'provider',
    // <id>.json
    'session_id', 'status', 'started_at', 'ended_at', 'model', 'terminal_marker', 'terminal_marker_source', 'kind',
  ]),
}

/** The redacted bytes of one file of a Cline session, or null for a file that is not redacted structurally. */
export function redactClineFile(name: string, role: Role, data: Buffer, r: Redactor): Buffer | null {
  if (role === 'other' || !name.endsWith('.json')) return null
  return redactJsonBytes(data, 'other', r, CLINE_PROFILE)
}
