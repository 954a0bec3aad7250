/**
 * `snapshot --redact` of the store family's sessions (OpenCode, Kilo): the export document of a database
 * session, and the session, message and part files of an OpenCode JSON-tree session, without their private
 * tool payloads and per-turn context. Removed: a tool part's `state.input` (`{}`), `state.output`, `state.raw`,
 * `state.error` and `state.title` (`''`, rendered from the input), `state.metadata` (`{}` where present: the
 * tool's previews, diffs and file listings), its `attachments` and `modelOutput`; a user message's per-turn
 * `system` prompt, and the file diffs of its `summary` and the session's (`diffs: []`); the text of a
 * synthetic text part (the agent's own, never the user's words: a file's contents read for an `@` mention,
 * a command's note) becomes `REDACTED_TEXT`. Kept: ids, roles, message and part order and count, part types,
 * a tool part's `callID`, `tool` and `state.status` and `time`, the user's prompts and the assistant's text.
 *
 * What the agents' `import` needs stays (anomalyco/opencode `packages/opencode/src/cli/cmd/import.ts` decodes
 * each message and part against its schema): a completed tool state keeps a string `output`, a string `title`
 * and a `metadata` record, an error state a string `error`, a pending one a string `raw`; `system` and the
 * summary's diffs are optional there. Pure.
 */
import {REDACTED_TEXT} from '../../model/snapshot.js'
import {exportBytes, type ExportDocument} from './export-rows.js'

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A tool state without its payloads, its status and times kept (key order kept). */
function redactToolState(state: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(state)) {
    if (k === 'input' || (k === 'metadata' && isObj(v))) out[k] = {}
    else if ((k === 'output' || k === 'raw' || k === 'error' || k === 'title') && typeof v === 'string') out[k] = ''
    else if (k === 'attachments' || k === 'modelOutput') continue
    else out[k] = v
  }
  return out
}

/** One part without its private payloads (see the module comment). */
export function redactPart(part: Record<string, unknown>): Record<string, unknown> {
  if (part.type === 'tool' && isObj(part.state)) return {...part, state: redactToolState(part.state)}
  if (part.type === 'text' && part.synthetic === true && typeof part.text === 'string') return {...part, text: REDACTED_TEXT}
  return part
}

/** A summary with its file diffs emptied (`diffs: []`), or as it is. */
function redactSummary(summary: unknown): unknown {
  return isObj(summary) && Array.isArray(summary.diffs) ? {...summary, diffs: []} : summary
}

/** A message's info without its per-turn system prompt and its summary's diffs. */
export function redactMessageInfo(info: Record<string, unknown>): Record<string, unknown> {
  if (info.role !== 'user') return info
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(info)) {
    if (k === 'system') continue
    out[k] = k === 'summary' ? redactSummary(v) : v
  }
  return out
}

/** A session's info with its summary's diffs emptied. */
export function redactSessionInfo(info: Record<string, unknown>): Record<string, unknown> {
  return 'summary' in info ? {...info, summary: redactSummary(info.summary)} : info
}

/** An export document's bytes without private payloads, printed as the agent's export prints; `refused` when it is not one. */
export function redactExportPayload(payload: Buffer): Buffer | {refused: string} {
  let v: unknown
  try {
    v = JSON.parse(payload.toString('utf8'))
  } catch {
    return {refused: 'the export document does not parse'}
  }
  if (!isObj(v) || !isObj(v.info) || !Array.isArray(v.messages) || !v.messages.every((m) => isObj(m) && isObj(m.info) && Array.isArray(m.parts) && m.parts.every(isObj))) return {refused: 'the payload is not an export document'}
  const doc = v as unknown as ExportDocument
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) out[k] = k === 'info' ? redactSessionInfo(doc.info) : k === 'messages' ? doc.messages.map((m) => ({...m, info: redactMessageInfo(m.info), parts: m.parts.map(redactPart)})) : x
  return exportBytes(out as unknown as ExportDocument)
}
