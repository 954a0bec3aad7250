/**
 * Snapshots of a Codebuff chat: the exact bytes of its RunState (`run-state.json`, the winning generation of a
 * healthy chat). Settled: no temp newer than the primary (a save in progress), the history not ending in the
 * interruption note, its last message an assistant message, and every `tool-call` of an assistant message
 * answered by a `tool` message with its `toolCallId`. A stored snapshot is a generation of role `snapshot`
 * (`diagnoseChat`), ranked with the others; the generation plan restores its bytes as the primary.
 *
 * Codebuff has no hook chatdoctor can use (codebuff-format.md: the CLI runs no user program after a turn):
 * `guard install codebuff` prints a user-level timer instead.
 */
import type {ChatDirSnapshot, ScannedChat} from '../../model/adapter.js'
import type {SnapshotCaps, SnapshotCapture} from '../../model/snapshot.js'
import {PRIMARY} from './layout.js'
import {endsInterrupted} from './turns.js'

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

export const CODEBUFF_NO_HOOK = 'the Codebuff CLI runs no program of the user\'s after a turn'

/** Whether a RunState's history is settled, and how many messages it holds. */
export function settleRunState(value: unknown): {messages: number; unsettled: string | null} {
  const rs = value as {sessionState?: {mainAgentState?: {messageHistory?: unknown}}; output?: unknown}
  const history = rs?.sessionState?.mainAgentState?.messageHistory
  if (!Array.isArray(history)) return {messages: 0, unsettled: 'no message history'}
  const messages = history.length
  if (endsInterrupted(history, rs.output)) return {messages, unsettled: 'the last turn was interrupted'}
  const calls = new Set<string>()
  const answered = new Set<string>()
  for (const m of history) {
    if (!isObj(m)) continue
    if (m.role === 'assistant' && Array.isArray(m.content)) for (const p of m.content) if (isObj(p) && p.type === 'tool-call' && typeof p.toolCallId === 'string') calls.add(p.toolCallId)
    if (m.role === 'tool' && typeof m.toolCallId === 'string') answered.add(m.toolCallId)
  }
  const open = [...calls].filter((id) => !answered.has(id)).length
  if (open > 0) return {messages, unsettled: `${plural(open, 'tool call')} without a result`}
  const last = history[history.length - 1]
  if (!isObj(last) || last.role !== 'assistant') return {messages, unsettled: 'the last prompt has no answer yet'}
  return {messages, unsettled: null}
}

/** The snapshot of a healthy, settled Codebuff chat: its primary's exact bytes. Pure. */
export function captureCodebuff(chat: Pick<ScannedChat, 'report' | 'snapshot'>, caps: SnapshotCaps): SnapshotCapture {
  const {report, snapshot} = chat
  if (report.status !== 'healthy') return {ok: false, skip: `the chat is ${report.status}, not healthy (chatdoctor repair first); only a healthy chat is snapshotted`}
  if (report.winner !== PRIMARY) return {ok: false, skip: `the winner is ${report.winner ?? 'none'}, not ${PRIMARY}`}
  const primary = snapshot.files.find((f) => f.name === PRIMARY && f.kind === 'file')
  if (!primary?.data) return {ok: false, skip: `${PRIMARY} could not be read`}
  const temps = report.generations.filter((g) => g.role === 'temp' && g.mtimeMs !== null && g.mtimeMs > primary.mtimeMs)
  if (temps.length > 0) return {ok: false, skip: `not settled: ${temps[0].file} is newer than ${PRIMARY} (a save in progress)`, unsettled: true}
  if (primary.data.length > caps.maxBytes) return {ok: false, skip: `over the byte cap (${primary.data.length} > ${caps.maxBytes} bytes; --max-bytes raises it)`}
  let value: unknown
  try {
    value = JSON.parse(primary.data.toString('utf8'))
  } catch {
    return {ok: false, skip: `${PRIMARY} does not parse`}
  }
  const s = settleRunState(value)
  if (s.unsettled !== null) return {ok: false, skip: `not settled: ${s.unsettled}`, unsettled: true}
  if (s.messages > caps.maxMessages) return {ok: false, skip: `over the message cap (${plural(s.messages, 'message')} > ${caps.maxMessages}; --max-messages raises it)`}
  return {ok: true, kind: 'generation', target: PRIMARY, payload: primary.data, messages: s.messages, turns: report.contextTurns ?? 0}
}

/** The decrypted bytes of a stored snapshot named `name` of this chat (a RunState), or null. */
export function snapshotBytes(snapshot: ChatDirSnapshot, name: string): Buffer | null {
  const s = snapshot.snapshots?.find((c) => c.name === name)
  return s?.data !== undefined && s.header.kind === 'generation' && s.header.target === PRIMARY ? s.data : null
}
