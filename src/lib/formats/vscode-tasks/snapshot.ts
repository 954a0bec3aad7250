/**
 * Snapshots of a VS Code extension task (Roo Code, Kilo Code, Cline 3.x): the exact bytes of its model context
 * `api_conversation_history.json`, restored as that file. Settled (`settleMessages`): a prompt in it, the last
 * message the assistant's, every `tool_use` answered — but for a call in that last message to a tool whose
 * answer is the user's next message (`attempt_completion`, `ask_followup_question`: the task waits for the
 * user), and no leftover of a safe write of the file newer than it (a save in progress). A stored snapshot is a
 * generation of role `snapshot` (`diagnoseTask`), ranked with the others; the generation plan restores its bytes
 * as the primary.
 *
 * `--redact` (`redactTaskSnapshot`) takes the private tool payloads out of every message, for native tool calls
 * and for the text form (tool calls written as XML in the assistant's text, results as `[tool] Result:` text
 * blocks: Cline 3.x, and Roo Code and Kilo Code before native tools): a `tool_use` input becomes `{}`, a
 * `<tool><param>…</param></tool>` element in the assistant's text keeps only its tool's tags, a `tool_result`
 * and the text blocks after a `[tool …] Result:` header keep only the user's words in them (the `<feedback>`,
 * `<answer>` elements the extensions put there; a text block with none becomes `(removed by chatdoctor snapshot
 * --redact)`, as the model APIs refuse an empty one) and the header only `[tool] Result:`. The per-turn context the extension adds to each user message, `<environment_details>` (open
 * files, the folder listing, the time, the mode), keeps only its tags. Roles, message order, `ts`, tool ids and
 * names, which result answers which call, the assistant's own words and the user's prompts stay, so the
 * redacted context counts the same turns and tool calls. Written as the extensions write it (compact JSON).
 *
 * The extensions run no program of the user's after a turn (their hooks, where they have any, are the
 * extension's own settings, not a command chatdoctor can add): `guard install vscode-tasks` prints a timer.
 */
import {classifyJsonBytes} from '../../classify/index.js'
import type {ChatDirSnapshot, ScannedChat} from '../../model/adapter.js'
import type {SnapshotCandidate, SnapshotCaps, SnapshotCapture, SnapshotHeader} from '../../model/snapshot.js'
import {REDACTED_TEXT} from '../../model/snapshot.js'
import {redactToolBlocks, settleMessages} from '../anthropic-messages/index.js'
import {API_HISTORY, leftoverOf} from './layout.js'
import {USER_CONTENT_TAGS, isMessageArray, isTaskPrompt} from './measure.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

export const TASKS_NO_HOOK = "the VS Code extensions run no program of the user's after a turn"

/** Tools whose answer is the user's next message: a task ending in one waits for the user, settled. */
const WAITING_TOOLS = new Set(['attempt_completion', 'ask_followup_question'])

/** The snapshot of a healthy, settled task: its model context's exact bytes. Pure. */
export function captureTask(chat: Pick<ScannedChat, 'report' | 'snapshot'>, caps: SnapshotCaps): SnapshotCapture {
  const {report, snapshot} = chat
  if (report.status !== 'healthy') return {ok: false, skip: `the task is ${report.status}, not healthy (chatdoctor repair first); only a healthy task is snapshotted`}
  if (report.winner !== API_HISTORY) return {ok: false, skip: `the winner is ${report.winner ?? 'none'}, not ${API_HISTORY}`}
  const entry = snapshot.files.find((f) => f.name === API_HISTORY && f.kind === 'file')
  if (!entry?.data) return {ok: false, skip: `${API_HISTORY} could not be read`}
  const saving = snapshot.files.find((f) => leftoverOf(f.name)?.of === API_HISTORY && f.mtimeMs > entry.mtimeMs)
  if (saving) return {ok: false, skip: `not settled: ${saving.name} is newer than ${API_HISTORY} (a save in progress)`, unsettled: true}
  if (entry.data.length > caps.maxBytes) return {ok: false, skip: `over the byte cap (${entry.data.length} > ${caps.maxBytes} bytes; --max-bytes raises it)`}
  const c = classifyJsonBytes(entry.data)
  if (c.class !== 'intact' || !isMessageArray(c.value)) return {ok: false, skip: `${API_HISTORY} is not a message array`}
  const why = settleMessages(c.value, isTaskPrompt, WAITING_TOOLS)
  if (why !== null) return {ok: false, skip: `not settled: ${why}`, unsettled: true}
  if (c.value.length > caps.maxMessages) return {ok: false, skip: `over the message cap (${plural(c.value.length, 'message')} > ${caps.maxMessages}; --max-messages raises it)`}
  return {ok: true, kind: 'generation', target: API_HISTORY, payload: entry.data, messages: c.value.length, turns: report.contextTurns ?? 0}
}

/** The stored snapshots of this task's model context, decrypted and checked. */
export function taskSnapshots(snapshot: ChatDirSnapshot): Array<SnapshotCandidate & {data: Buffer}> {
  return (snapshot.snapshots ?? []).filter((s): s is SnapshotCandidate & {data: Buffer} => s.data !== undefined && s.header.kind === 'generation' && s.header.target === API_HISTORY)
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The user's words the extensions wrap in tags (`<feedback>…</feedback>` and the like), whole elements. */
const USER_WORDS = new RegExp(`<(${USER_CONTENT_TAGS.map((t) => t.slice(1, -1)).join('|')})>[\\s\\S]*?</\\1>`, 'gi')
const ENVIRONMENT = /<environment_details>[\s\S]*?<\/environment_details>/g
/** A text-form tool result's header: `[read_file for 'src/todo.ts'] Result:` (the tool's name first). */
const RESULT_HEADER = /^\[([A-Za-z_][\w-]*)(?:\s[^\n]*)?\] Result:/

/** A text block of a tool's output with no words of the user's in it (the model APIs refuse an empty text block). */
export const REMOVED = REDACTED_TEXT

/** Only the tagged user's words of a tool's output (joined by a blank line), or `''`. */
function userWordsOf(text: string): string {
  return (text.match(USER_WORDS) ?? []).join('\n\n')
}

/** A tool result's content reduced to the user's words in it. */
function resultWords(content: unknown): string {
  if (typeof content === 'string') return userWordsOf(content)
  if (!Array.isArray(content)) return ''
  return content
    .map((b) => (isObj(b) && b.type === 'text' && typeof b.text === 'string' ? userWordsOf(b.text) : ''))
    .filter((t) => t !== '')
    .join('\n\n')
}

/**
 * The assistant's text with every text-form tool call (`<tool>` directly followed by a `<param>` element, up
 * to its `</tool>`) reduced to `<tool>\n</tool>`. One pass, no backtracking.
 */
export function redactToolXml(text: string): string {
  const open = /<([a-z][a-z0-9_]*)>\s*<[a-z][a-z0-9_]*>/g
  let out = ''
  let at = 0
  for (let m = open.exec(text); m !== null; m = open.exec(text)) {
    const close = text.indexOf(`</${m[1]}>`, m.index + m[1].length + 2)
    if (close < 0) continue
    out += text.slice(at, m.index) + `<${m[1]}>\n</${m[1]}>`
    at = close + m[1].length + 3
    open.lastIndex = at
  }
  return out + text.slice(at)
}

/** A user text with its `<environment_details>` emptied. */
const withoutEnvironment = (t: string) => t.replace(ENVIRONMENT, '<environment_details>\n</environment_details>')

/** One message of the model context without its tool payloads (module comment). */
function redactTaskMessage(m: unknown): unknown {
  if (!isObj(m) || (m.role !== 'user' && m.role !== 'assistant')) return m
  if (typeof m.content === 'string') return {...m, content: m.role === 'assistant' ? redactToolXml(m.content) : withoutEnvironment(m.content)}
  const native = redactToolBlocks(m, resultWords)
  if (!Array.isArray(native.content)) return native
  let inResult = false
  const content = native.content.map((b: unknown) => {
    if (!isObj(b) || b.type !== 'text' || typeof b.text !== 'string') return b
    if (m.role === 'assistant') return {...b, text: redactToolXml(b.text)}
    const header = RESULT_HEADER.exec(b.text)
    if (header) {
      inResult = true
      return {...b, text: `[${header[1]}] Result:`}
    }
    if (b.text.includes('<environment_details>')) {
      inResult = false
      return {...b, text: withoutEnvironment(b.text)}
    }
    return inResult ? {...b, text: userWordsOf(b.text) || REMOVED} : b
  })
  return {...native, content}
}

/** A task's model context without its private tool payloads and per-turn context (module comment). Pure. */
export function redactTaskSnapshot(payload: Buffer, _header: Pick<SnapshotHeader, 'format' | 'kind' | 'target'>): Buffer | {refused: string} {
  const c = classifyJsonBytes(payload)
  if (c.class !== 'intact' || !isMessageArray(c.value)) return {refused: `${API_HISTORY} is not a message array`}
  return Buffer.from(JSON.stringify((c.value as unknown[]).map(redactTaskMessage)), 'utf8')
}
