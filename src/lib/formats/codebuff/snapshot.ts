/**
 * Snapshots of a Codebuff chat: the exact bytes of its RunState (`run-state.json`, the winning generation of a
 * healthy chat). Settled: no temp newer than the primary (a save in progress), the history not ending in the
 * interruption note, its last message an assistant message, and every `tool-call` of an assistant message
 * answered by a `tool` message with its `toolCallId`. A stored snapshot is a generation of role `snapshot`
 * (`diagnoseChat`), ranked with the others; the generation plan restores its bytes as the primary.
 *
 * `--redact` (`redactRunState`): in the main agent's `messageHistory`, every `tool-call` part's `input` becomes
 * `{}` and every tool result's value `{}` (a `json` result) or its data `''` (a `media` one), its `toolCallId`,
 * `toolName` and `type` kept (the legacy shape's `output` list the same); the per-turn messages the SDK injects
 * itself (role `system`, or tagged `INSTRUCTIONS_PROMPT` or `STEP_PROMPT`) keep their role, tags and parts with
 * each text `REDACTED_TEXT`; the agent state's `systemPrompt` becomes `''`; the messages the run's `output`
 * repeats go the same way. The user's prompts (`USER_PROMPT`), the interruption note and the assistant's text
 * and reasoning stay, so the redacted RunState settles and counts the same. The project file context
 * (`fileContext`) is not a tool payload and stays. Written as the file was: two-space JSON when it was pretty,
 * else compact, its final newline kept.
 *
 * Codebuff has no hook chatdoctor can use (codebuff-format.md: the CLI runs no user program after a turn):
 * `guard install codebuff` prints a user-level timer instead.
 */
import type {ChatDirSnapshot, ScannedChat} from '../../model/adapter.js'
import {REDACTED_TEXT, type SnapshotCaps, type SnapshotCapture, type SnapshotHeader} from '../../model/snapshot.js'
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

/** Tags of the per-turn messages the SDK adds to a history itself (codebuff-format.md §2.5). */
const INJECTED_TAGS = ['INSTRUCTIONS_PROMPT', 'STEP_PROMPT']

/** A tool result without its value (`json`) or data (`media`). */
function redactResult(r: unknown): unknown {
  if (!isObj(r)) return r
  if (r.type === 'json' && 'value' in r) return {...r, value: {}}
  if (r.type === 'media' && typeof r.data === 'string') return {...r, data: ''}
  return r
}

/** A message's content with every text `REDACTED_TEXT` (a plain string content too). */
function redactTexts(content: unknown): unknown {
  if (typeof content === 'string') return REDACTED_TEXT
  if (!Array.isArray(content)) return content
  return content.map((p) => (isObj(p) && p.type === 'text' && typeof p.text === 'string' ? {...p, text: REDACTED_TEXT} : p))
}

/** One history message without its private payloads (module comment). */
function redactMessage(m: unknown): unknown {
  if (!isObj(m)) return m
  if (m.role === 'assistant' && Array.isArray(m.content)) return {...m, content: m.content.map((p) => (isObj(p) && p.type === 'tool-call' ? {...p, input: {}} : p))}
  if (m.role === 'tool') {
    if (Array.isArray(m.content)) return {...m, content: m.content.map(redactResult)}
    // The legacy shape: one `tool-result` object whose `output` lists the results.
    if (isObj(m.content) && Array.isArray(m.content.output)) return {...m, content: {...m.content, output: m.content.output.map(redactResult)}}
    return m
  }
  const tags = Array.isArray(m.tags) ? m.tags : []
  if (m.role === 'system' || tags.some((t) => INJECTED_TAGS.includes(t as string))) return {...m, content: redactTexts(m.content)}
  return m
}

/** A RunState snapshot without its tool payloads and per-turn instructions (module comment). Pure. */
export function redactRunState(payload: Buffer, _header: Pick<SnapshotHeader, 'format' | 'kind' | 'target'>): Buffer | {refused: string} {
  let value: unknown
  try {
    value = JSON.parse(payload.toString('utf8'))
  } catch {
    return {refused: `${PRIMARY} does not parse`}
  }
  const state = isObj(value) && isObj(value.sessionState) && isObj(value.sessionState.mainAgentState) ? value.sessionState.mainAgentState : null
  if (!isObj(value) || !state || !Array.isArray(state.messageHistory)) return {refused: `${PRIMARY} holds no message history`}
  const agent: Record<string, unknown> = {...state, messageHistory: state.messageHistory.map(redactMessage)}
  if (typeof agent.systemPrompt === 'string') agent.systemPrompt = ''
  // The run's `output` may repeat the last step's messages (`lastMessage`, `allMessages`): the same rule.
  const output = isObj(value.output) && Array.isArray(value.output.value) ? {...value.output, value: value.output.value.map(redactMessage)} : value.output
  const out = {...value, ...('output' in value ? {output} : {}), sessionState: {...(value.sessionState as Record<string, unknown>), mainAgentState: agent}}
  const text = payload.toString('utf8')
  const pretty = /^\s*\{\s*\n/.test(text)
  return Buffer.from((pretty ? JSON.stringify(out, null, 2) : JSON.stringify(out)) + (text.endsWith('\n') ? '\n' : ''), 'utf8')
}
