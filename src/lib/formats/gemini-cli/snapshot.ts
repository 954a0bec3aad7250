/**
 * Snapshots of a Gemini CLI session: the exact bytes of its winning session file (a `.jsonl` log, or a legacy
 * `.json` document), restored as that file. Settled, by the CLI's own records as its loader replays them: the
 * last message is a complete `gemini` answer (text in it), every tool call has its result or a final status
 * (`success`, `error`, `cancelled`), and no `.tmp-<pid>` temp of the session is newer than the file (a rewrite in
 * progress). A stored snapshot is a generation of role `snapshot` (`readStates` in `diagnose.ts`), ranked with
 * the session files; when it wins, the repair writes its bytes as the session file (`plan.ts`).
 *
 * `--redact` (`redactGeminiSnapshot`) rewrites every message the file holds (message records, the messages of a
 * `$set` checkpoint or a metadata line, a legacy document's) without its private tool payloads: a tool call's
 * `args` become `{}`, its `result` parts and every `functionResponse` part keep their id and name with
 * `response` `{}`, a `functionCall` part its id and name with `args` `{}`; the call's `resultDisplay` and
 * `description` (the rendered output and the rendered arguments) are dropped. The CLI stores no system prompt in
 * a session; what it injects as a user message of its own, the `<session_context>` of every start (the folder
 * listing, the date, the OS) and hooks' `<hook_context>`, keeps only its tags (so the loader still skips it).
 * Record kinds and order, message ids, types, texts, thoughts, tool ids, names and statuses stay, so the
 * redacted file replays to the same messages and counts the same turns and tool calls.
 */
import {classifyJsonlBytes} from '../../classify/jsonl.js'
import type {ScannedChat} from '../../model/adapter.js'
import {classifyJsonBytes} from '../../classify/index.js'
import type {SnapshotCaps, SnapshotCapture, SnapshotHeader} from '../../model/snapshot.js'
import {redactRecords} from '../jsonl/snapshot.js'
import {parseName} from './layout.js'
import {partsText, type GeminiRecord, type MessageCounts} from './records.js'
import {analyzeJsonl, analyzeLegacy, type GeminiAnalysis} from './session.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** Why a replayed session is not settled, or null when it is. */
export function geminiUnsettled(messages: readonly GeminiRecord[], counts: MessageCounts): string | null {
  if (counts.prompts === 0) return 'no prompt yet'
  // The CLI's own notes (`info`, `warning`, `error` messages) are not turns of the conversation.
  const last = messages.filter((m) => m.type === 'user' || m.type === 'gemini').at(-1)
  if (last === undefined || last.type !== 'gemini') return 'the last prompt has no answer yet'
  const open = counts.toolCalls - counts.toolCallsWithResult
  if (open > 0) return `${plural(open, 'tool call')} without a result`
  if (Array.isArray(last.toolCalls) && last.toolCalls.length > 0) return 'the last answer is a tool call, not the final answer'
  if (partsText(last.content).trim() === '') return 'the last answer has no text yet'
  return null
}

/** The snapshot of a healthy, settled Gemini CLI session: its winning session file's exact bytes. Pure. */
export function captureGemini(chat: Pick<ScannedChat, 'report' | 'snapshot'>, caps: SnapshotCaps): SnapshotCapture {
  const {report, snapshot} = chat
  if (report.status !== 'healthy') return {ok: false, skip: `the session is ${report.status}, not healthy (chatdoctor repair first); only a healthy session is snapshotted`}
  if (report.findings.some((f) => f.id === 'session-live')) return {ok: false, skip: 'the session file changed while it was read (Gemini CLI is writing it)'}
  const entry = snapshot.files.find((f) => f.name === report.winner && f.kind === 'file')
  const parsed = entry ? parseName(snapshot.dir, entry.name) : null
  if (!entry?.data || (parsed !== null && parsed.kind !== 'session')) return {ok: false, skip: `the winner ${report.winner ?? 'none'} is not a session file that could be read`}
  const temp = snapshot.files.find((f) => {
    const p = parseName(snapshot.dir, f.name)
    return p?.kind === 'temp' && p.session === entry.name && f.mtimeMs > entry.mtimeMs
  })
  if (temp) return {ok: false, skip: `not settled: ${temp.name} is newer than ${entry.name} (a rewrite in progress)`, unsettled: true}
  if (entry.data.length > caps.maxBytes) return {ok: false, skip: `over the byte cap (${entry.data.length} > ${caps.maxBytes} bytes; --max-bytes raises it)`}
  let analysis: GeminiAnalysis | null
  if (entry.name.endsWith('.json')) analysis = analyzeLegacy(entry.data, true).analysis
  else analysis = analyzeJsonl(classifyJsonlBytes(entry.data), true)
  if (!analysis) return {ok: false, skip: `${entry.name} does not load`}
  const why = geminiUnsettled(analysis.replay.messages, analysis.counts)
  if (why !== null) return {ok: false, skip: `not settled: ${why}`, unsettled: true}
  const messages = analysis.replay.messages.length
  if (messages > caps.maxMessages) return {ok: false, skip: `over the message cap (${plural(messages, 'message')} > ${caps.maxMessages}; --max-messages raises it)`}
  return {ok: true, kind: 'generation', target: entry.name, payload: entry.data, messages, turns: report.contextTurns ?? 0}
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The CLI's own context injected as a user text: only its tags are kept. */
const INJECTED = /^(\s*)<(session_context|hook_context)>/

function redactText(t: string): string {
  const m = INJECTED.exec(t)
  return m ? `${m[1]}<${m[2]}>\n</${m[2]}>` : t
}

/** A part list (`PartListUnion`: a string, a part or an array of them) without tool payloads or injected context. */
function redactParts(v: unknown): unknown {
  return Array.isArray(v) ? v.map(redactPart) : redactPart(v)
}

/** One part (or a string) of a part list; anything else is left as it is. */
function redactPart(v: unknown): unknown {
  if (typeof v === 'string') return redactText(v)
  if (!isObj(v)) return v
  if (isObj(v.functionCall)) return {...v, functionCall: {...v.functionCall, args: {}}}
  if (isObj(v.functionResponse)) {
    const {id, name} = v.functionResponse
    return {...v, functionResponse: {...(id !== undefined ? {id} : {}), ...(name !== undefined ? {name} : {}), response: {}}}
  }
  if (typeof v.text === 'string' && v.thought !== true) return {...v, text: redactText(v.text)}
  return v
}

/** One message record (`MessageRecord`) without its tool payloads. */
function redactMessage(m: unknown): unknown {
  if (!isObj(m)) return m
  const out: Record<string, unknown> = {...m}
  if ('content' in m) out.content = redactParts(m.content)
  if ('displayContent' in m) out.displayContent = redactParts(m.displayContent)
  if (Array.isArray(m.toolCalls)) {
    out.toolCalls = m.toolCalls.map((c: unknown) => {
      if (!isObj(c)) return c
      const r: Record<string, unknown> = {...c, args: {}}
      if (c.result !== undefined && c.result !== null) r.result = redactParts(c.result)
      delete r.resultDisplay
      delete r.description
      return r
    })
  }
  return out
}

/** One record of a session file without its tool payloads: messages rewritten wherever the record holds them. */
export function redactGeminiRecord(v: Record<string, unknown>): Record<string, unknown> {
  if (isObj(v.$set)) return Array.isArray(v.$set.messages) ? {...v, $set: {...v.$set, messages: v.$set.messages.map(redactMessage)}} : v
  if (typeof v.id === 'string' && typeof v.type === 'string') return redactMessage(v) as Record<string, unknown>
  if (Array.isArray(v.messages)) return {...v, messages: v.messages.map(redactMessage)}
  return v
}

/**
 * A Gemini CLI snapshot without its private tool payloads (see the module comment): a `.jsonl` session record by
 * record in its own line ending, a legacy `.json` document as the CLI writes one (two-space JSON). `refused` when
 * the file is not all complete records, or not one JSON object. Pure.
 */
export function redactGeminiSnapshot(payload: Buffer, header: Pick<SnapshotHeader, 'format' | 'kind' | 'target'>): Buffer | {refused: string} {
  if (!(header.target ?? '').endsWith('.json')) return redactRecords(payload, redactGeminiRecord)
  const c = classifyJsonBytes(payload)
  if (c.class !== 'intact' || !isObj(c.value)) return {refused: 'the session document is not one JSON object'}
  return Buffer.from(JSON.stringify(redactGeminiRecord(c.value), null, 2), 'utf8')
}
