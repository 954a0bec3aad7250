/**
 * Snapshots of a VS Code extension task (Roo Code, Kilo Code, Cline 3.x): the exact bytes of its model context
 * `api_conversation_history.json`, restored as that file. Settled (`settleMessages`): a prompt in it, the last
 * message the assistant's, every `tool_use` answered — but for a call in that last message to a tool whose
 * answer is the user's next message (`attempt_completion`, `ask_followup_question`: the task waits for the
 * user), and no leftover of a safe write of the file newer than it (a save in progress). A stored snapshot is a
 * generation of role `snapshot` (`diagnoseTask`), ranked with the others; the generation plan restores its bytes
 * as the primary.
 *
 * The extensions run no program of the user's after a turn (their hooks, where they have any, are the
 * extension's own settings, not a command chatdoctor can add): `guard install vscode-tasks` prints a timer.
 */
import {classifyJsonBytes} from '../../classify/index.js'
import type {ChatDirSnapshot, ScannedChat} from '../../model/adapter.js'
import type {SnapshotCandidate, SnapshotCaps, SnapshotCapture} from '../../model/snapshot.js'
import {settleMessages} from '../anthropic-messages/index.js'
import {API_HISTORY, leftoverOf} from './layout.js'
import {isMessageArray, isTaskPrompt} from './measure.js'

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
