/**
 * `bundle --redact` for task folders, on the byte-level lexer of `bundle/redact.ts` (string tokens replaced
 * in place; numbers, literals, whitespace and damage kept byte for byte; equal values → equal placeholders).
 * Kept: roles, block types, tool-use ids and names, message kinds (`say`, `ask`), condense and truncation ids
 * and the task's id; every `ts` is a number and stays. Every other string becomes a placeholder, except the
 * user-content tags (`<task>`, `<feedback>`, `<answer>`, `<user_message>` and their closing tags), which are
 * kept where they stand so the redacted task counts the same turns.
 */
import type {Role} from '../../model/report.js'
import {redactJsonBytes, type RedactProfile, type Redactor} from '../../json/redact.js'

/** Keys whose values are structure (kept when they look like ids). */
const STRUCTURAL_KEYS = new Set([
  'role', 'type', 'id', 'tool_use_id', 'name', 'say', 'ask', 'condenseId', 'condenseParent', 'truncationId', 'truncationParent',
  'media_type', 'status', 'mode', 'record_state', 'record_source', 'apiProtocol', 'rootTaskId', 'parentTaskId', 'ulid',
])

const TAGS = /(<\/?(?:task|feedback|answer|user_message)>)/gi

/** A string with the user-content tags kept and every piece between them replaced. */
function redactKeepingTags(value: string, r: Redactor): string | undefined {
  if (!/<\/?(?:task|feedback|answer|user_message)>/i.test(value)) return undefined
  return value
    .split(TAGS)
    .map((piece, i) => (i % 2 === 1 ? piece : r.placeholder(piece)))
    .join('')
}

export const TASK_PROFILE: RedactProfile = {
  structuralKeys: STRUCTURAL_KEYS,
  value: (value, _key, r) => redactKeepingTags(value, r),
}

/** The redacted bytes of one file of a task folder, or null for a file that cannot be redacted structurally. */
export function redactTaskFile(_name: string, role: Role, data: Buffer, r: Redactor): Buffer | null {
  if (role === 'other') return null
  return redactJsonBytes(data, 'other', r, TASK_PROFILE)
}
