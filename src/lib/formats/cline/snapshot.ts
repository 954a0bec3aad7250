/**
 * Snapshots of a Cline CLI session: the exact bytes of its conversation `<id>.messages.json` (what resume
 * loads), restored as that file. Settled (`settleMessages`): a prompt in it, the last message the assistant's,
 * every `tool_use` answered by a `tool_result`. Cline rewrites the file in place with no temp (new-agents.md
 * §2.4), so a read that tore it mid-write is a damaged file and not healthy: such a session is skipped. A stored
 * snapshot is a candidate of the diagnosis (`diagnose.ts`), ranked with the file; when it wins, the repair
 * writes its bytes over the file (`plan.ts`), refused while Cline runs like every repair of the session.
 *
 * `--redact` (`redactClineSnapshot`): every `tool_use` input becomes `{}` and every `tool_result` content `''`
 * (`redactToolBlocks`), and the conversation's `system_prompt` (the system prompt Cline saves with each turn,
 * which its reader does not need: it builds the prompt again) is dropped; ids, roles, block types, tool names,
 * texts, thinking, timestamps and metrics stay, written as Cline writes the file (two-space JSON, a final LF).
 *
 * The hook: Cline CLI 3.x runs the file hooks of `$CLINE_DIR/hooks/` (`hook.ts`).
 */
import type {ChatDirSnapshot, ScannedChat} from '../../model/adapter.js'
import type {SnapshotCandidate, SnapshotCaps, SnapshotCapture, SnapshotHeader} from '../../model/snapshot.js'
import {isMessage, redactToolBlocks, settleMessages} from '../anthropic-messages/index.js'
import {messagesFile} from './layout.js'
import {clineRead, isPrompt} from './messages.js'
import type {ClineFacts} from './store.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** The snapshot of a healthy, settled Cline session: its conversation file's exact bytes. Pure. */
export function captureCline(chat: Pick<ScannedChat, 'report' | 'snapshot'>, caps: SnapshotCaps): SnapshotCapture {
  const {report, snapshot} = chat
  const facts = snapshot.unit.facts as ClineFacts | undefined
  if (!facts || facts.kind !== 'session') return {ok: false, skip: 'not a Cline session folder with its files'}
  if (report.status !== 'healthy') return {ok: false, skip: `the session is ${report.status}, not healthy (chatdoctor repair first); only a healthy session is snapshotted`}
  const name = messagesFile(facts.sessionId)
  const entry = snapshot.files.find((f) => f.name === name && f.kind === 'file')
  if (!entry?.data || report.winner !== name) return {ok: false, skip: `${name} could not be read as the winner`}
  if (entry.data.length !== entry.bytes) return {ok: false, skip: `${name} changed while it was read (Cline is writing it)`}
  if (entry.data.length > caps.maxBytes) return {ok: false, skip: `over the byte cap (${entry.data.length} > ${caps.maxBytes} bytes; --max-bytes raises it)`}
  const read = clineRead(entry.data)
  if (read.read === 'empty') return {ok: false, skip: `${name} holds no conversation`}
  const why = settleMessages(read.messages, isPrompt)
  if (why !== null) return {ok: false, skip: `not settled: ${why}`, unsettled: true}
  if (read.messages.length > caps.maxMessages) return {ok: false, skip: `over the message cap (${plural(read.messages.length, 'message')} > ${caps.maxMessages}; --max-messages raises it)`}
  return {ok: true, kind: 'generation', target: name, payload: entry.data, messages: read.messages.length, turns: report.contextTurns ?? 0}
}

/** A Cline conversation snapshot without its tool payloads and system prompt (module comment). Pure. */
export function redactClineSnapshot(payload: Buffer, _header: Pick<SnapshotHeader, 'format' | 'kind' | 'target'>): Buffer | {refused: string} {
  let value: unknown
  try {
    value = JSON.parse(payload.toString('utf8').trim())
  } catch {
    return {refused: 'the conversation is not one JSON document'}
  }
  const redact = (list: unknown[]) => list.map((m) => (isMessage(m) ? redactToolBlocks(m) : m))
  let out: unknown
  if (Array.isArray(value)) out = redact(value)
  else if (typeof value === 'object' && value !== null && Array.isArray((value as {messages?: unknown}).messages)) {
    const doc: Record<string, unknown> = {...(value as Record<string, unknown>), messages: redact((value as {messages: unknown[]}).messages)}
    delete doc.system_prompt
    out = doc
  } else return {refused: 'the conversation holds no message array'}
  return Buffer.from(JSON.stringify(out, null, 2) + '\n', 'utf8')
}

/** The stored snapshots of this session that hold its conversation file, decrypted and checked. */
export function conversationSnapshots(snapshot: ChatDirSnapshot, id: string): Array<SnapshotCandidate & {data: Buffer}> {
  return (snapshot.snapshots ?? []).filter((s): s is SnapshotCandidate & {data: Buffer} => s.data !== undefined && s.header.kind === 'generation' && s.header.target === messagesFile(id))
}
