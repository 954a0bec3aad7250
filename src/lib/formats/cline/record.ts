/**
 * Cline CLI's session record `<id>.json` (the SDK calls it the session manifest): the session's settings,
 * status and `metadata` (title, usage totals, checkpoint history), pretty JSON.
 *
 * Cline reads it through `SessionManifestSchema` (`sdk/packages/core/src/session/models/session-manifest.ts`):
 * a record that does not parse or lacks a required member is ignored, and the next start of the session
 * writes a new one from scratch — observed on 3.0.65 (`damage/session-json-truncate`): the resumed session kept
 * its messages, but its record was rebuilt (new title, usage and checkpoint history gone) and the index row's
 * metadata with it.
 */

/** Members `SessionManifestSchema` requires, with the type each must have. */
export const RECORD_REQUIRED: Readonly<Record<string, 'string' | 'number' | 'boolean'>> = {
  version: 'number',
  session_id: 'string',
  source: 'string',
  pid: 'number',
  started_at: 'string',
  status: 'string',
  interactive: 'boolean',
  provider: 'string',
  model: 'string',
  cwd: 'string',
  workspace_root: 'string',
  enable_tools: 'boolean',
  enable_spawn: 'boolean',
  enable_teams: 'boolean',
}

/** The statuses the schema accepts (`SESSION_STATUS_VALUES`, `sdk/packages/shared/src/session/records.ts`). */
const STATUSES = new Set(['idle', 'running', 'pending', 'completed', 'failed', 'cancelled'])

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Why Cline would ignore this parsed record (null when it accepts it): a required member missing or of the
 * wrong type, `version` not 1, an unknown status, a non-integer pid, an empty required string, or an optional
 * member of the wrong type.
 */
export function recordProblem(v: unknown): string | null {
  if (!isObj(v)) return 'not a JSON object'
  for (const [key, type] of Object.entries(RECORD_REQUIRED)) {
    if (!(key in v)) return `no ${key}`
    if (typeof v[key] !== type) return `${key} is not a ${type}`
    if (type === 'string' && (v[key] as string).length === 0) return `${key} is empty`
  }
  if (v.version !== 1) return `version is ${String(v.version)}, not 1`
  if (!Number.isInteger(v.pid)) return 'pid is not an integer'
  if (!STATUSES.has(v.status as string)) return `unknown status ${JSON.stringify(v.status)}`
  for (const key of ['ended_at', 'team_name', 'messages_path', 'compaction_path']) {
    if (key in v && (typeof v[key] !== 'string' || (v[key] as string).length === 0)) return `${key} is not a non-empty string`
  }
  if ('prompt' in v && typeof v.prompt !== 'string') return 'prompt is not a string'
  if ('exit_code' in v && v.exit_code !== null && !Number.isInteger(v.exit_code)) return 'exit_code is not an integer'
  if ('metadata' in v && !isObj(v.metadata)) return 'metadata is not an object'
  return null
}

/**
 * How many runs (turns) the session record says the session had: `metadata.checkpoint.latest.runCount`
 * (one checkpoint per run while checkpoints are on; 5 for the real 5-turn session, 2 for the 2-turn one).
 * Null when absent.
 */
export function runCountOf(metadata: unknown): number | null {
  if (!isObj(metadata)) return null
  const cp = metadata.checkpoint
  if (!isObj(cp) || !isObj(cp.latest)) return null
  const n = cp.latest.runCount
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null
}
