/**
 * Snapshots of a Cline CLI session: the exact bytes of its conversation `<id>.messages.json` (what resume
 * loads), restored as that file. Settled (`settleMessages`): a prompt in it, the last message the assistant's,
 * every `tool_use` answered by a `tool_result`. Cline rewrites the file in place with no temp (new-agents.md
 * §2.4), so a read that tore it mid-write is a damaged file and not healthy: such a session is skipped. A stored
 * snapshot is a candidate of the diagnosis (`diagnose.ts`), ranked with the file; when it wins, the repair
 * writes its bytes over the file (`plan.ts`), refused while Cline runs like every repair of the session.
 *
 * The hook: Cline CLI 3.x runs the file hooks of `$CLINE_DIR/hooks/` (`hook.ts`).
 */
import type {ChatDirSnapshot, ScannedChat} from '../../model/adapter.js'
import type {SnapshotCandidate, SnapshotCaps, SnapshotCapture} from '../../model/snapshot.js'
import {settleMessages} from '../anthropic-messages/index.js'
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

/** The stored snapshots of this session that hold its conversation file, decrypted and checked. */
export function conversationSnapshots(snapshot: ChatDirSnapshot, id: string): Array<SnapshotCandidate & {data: Buffer}> {
  return (snapshot.snapshots ?? []).filter((s): s is SnapshotCandidate & {data: Buffer} => s.data !== undefined && s.header.kind === 'generation' && s.header.target === messagesFile(id))
}
