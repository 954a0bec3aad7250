/**
 * Snapshots of a Gemini CLI session: the exact bytes of its winning session file (a `.jsonl` log, or a legacy
 * `.json` document), restored as that file. Settled, by the CLI's own records as its loader replays them: the
 * last message is a complete `gemini` answer (text in it), every tool call has its result or a final status
 * (`success`, `error`, `cancelled`), and no `.tmp-<pid>` temp of the session is newer than the file (a rewrite in
 * progress). A stored snapshot is a generation of role `snapshot` (`readStates` in `diagnose.ts`), ranked with
 * the session files; when it wins, the repair writes its bytes as the session file (`plan.ts`).
 */
import {classifyJsonlBytes} from '../../classify/jsonl.js'
import type {ScannedChat} from '../../model/adapter.js'
import type {SnapshotCaps, SnapshotCapture} from '../../model/snapshot.js'
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
