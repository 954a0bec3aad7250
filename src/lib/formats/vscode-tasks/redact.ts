/**
 * `bundle --redact` for task folders, on the byte-level lexer of `json/redact.ts` (string tokens replaced
 * in place; numbers, literals, whitespace and damage kept byte for byte; equal values → equal placeholders).
 * Kept: roles, block types, tool-use ids and names, message kinds (`say`, `ask`), condense and truncation ids
 * and the task's id; every `ts` is a number and stays. Every other string becomes a placeholder, except the
 * user-content tags (`<task>`, `<feedback>`, `<answer>`, `<user_message>` and their closing tags), which are
 * kept where they stand so the redacted task counts the same turns.
 */
import type {BundleFile, Redactor} from '../../model/adapter.js'
import type {ChatReport} from '../../model/report.js'
import {redactJsonBytes, type RedactProfile} from '../../json/redact.js'

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

/**
 * A task folder's files redacted: every JSON file of the task (model context, transcript, their leftovers,
 * sidecars) by `TASK_PROFILE`; anything else (checkpoints, files in subfolders, unknown files) is left out.
 */
export function redactTaskFiles(files: readonly BundleFile[], report: ChatReport, r: Redactor): {files: BundleFile[]; omitted: Array<{path: string; reason: string}>} {
  const roles = new Map(report.generations.map((g) => [g.file, g.role] as const))
  const out: BundleFile[] = []
  const omitted: Array<{path: string; reason: string}> = []
  for (const f of files) {
    const role = f.rel.includes('/') ? 'other' : (roles.get(f.rel) ?? 'other')
    if (role === 'other') omitted.push({path: f.rel, reason: 'content cannot be redacted structurally'})
    else out.push({...f, data: redactJsonBytes(f.data, r, TASK_PROFILE)})
  }
  return {files: out, omitted}
}
