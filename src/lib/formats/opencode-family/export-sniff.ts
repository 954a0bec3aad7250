/**
 * What an `opencode export` file looks like by name and first bytes, without loading the export's checker
 * (and zod): discovery and `check` ask this for every `.json` file they meet.
 */

/** How many leading bytes `looksLikeExport` needs. */
export const EXPORT_SNIFF_BYTES = 4096

/**
 * True when the first bytes of a file look like an `opencode export` document: an object whose first key is
 * `info`, itself an object (OpenCode writes `info` before `messages`; a torn export keeps its head). A BOM and
 * whitespace in front are allowed (the check then reports them).
 */
export function looksLikeExport(head: Uint8Array): boolean {
  const text = Buffer.from(head.subarray(0, EXPORT_SNIFF_BYTES)).toString('latin1')
  return /^(?:\xef\xbb\xbf)?\s*\{\s*"info"\s*:\s*\{/.test(text)
}

/**
 * True for a file name a PATH given to `check` may name as an export: `*.json` that is not one of Codebuff's
 * own files (`run-state.json*`, `chat-messages.json*`, `chat-meta.json`) nor chatdoctor's manifest.
 */
export function mayBeExportName(name: string): boolean {
  if (!name.toLowerCase().endsWith('.json')) return false
  return !/^(?:run-state\.json|chat-messages\.json|chat-meta\.json|chatdoctor-bundle\.json)/.test(name)
}

/**
 * The `version` of the session in an export's first bytes (the agent version that created the session: the
 * `info` object comes first, before `messages`), or null when those bytes do not hold it.
 */
export function exportVersionOf(head: Uint8Array): string | null {
  const text = Buffer.from(head.subarray(0, EXPORT_SNIFF_BYTES)).toString('latin1')
  const end = text.indexOf('"messages"')
  const m = /"version"\s*:\s*"([0-9][0-9A-Za-z.+-]*)"/.exec(end >= 0 ? text.slice(0, end) : text)
  return m ? m[1] : null
}
