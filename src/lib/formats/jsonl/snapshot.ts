/**
 * Snapshots of a JSON-lines session log (Claude Code, Codex): the exact bytes of the log, taken only when the
 * chat is healthy and its last turn settled by the agent's own records (its dialect's `settle`), within the
 * caps; `--redact` rewrites each record without its private tool payloads (the dialect's `redactRecord`).
 * A stored snapshot comes back as a generation of role `snapshot` (`snapshotStates` in `session.ts`), ranked
 * with the log; when it wins, the repair writes its bytes as the plain log (`plan.ts`).
 */
import {lstatSync, realpathSync} from 'node:fs'
import path from 'node:path'
import {classifyJsonlBytes} from '../../classify/jsonl.js'
import type {ChatUnit, GoneScope, ScannedChat} from '../../model/adapter.js'
import type {SnapshotCaps, SnapshotCapture, SnapshotHeader} from '../../model/snapshot.js'
import {dialectByName} from './dialects.js'
import {decodeZstd, sessionNameOf} from './session.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/**
 * The records of a log the scan found intact (every line one complete record), parsed line by line: the
 * hook's time budget has no room for classifying the log a second time. Null when a line does not parse as an
 * object (then the caller classifies it).
 */
function intactRecords(bytes: Buffer): Array<Record<string, unknown>> | null {
  const out: Array<Record<string, unknown>> = []
  for (const line of bytes.toString('utf8').split('\n')) {
    if (line.trim() === '') continue
    try {
      const v: unknown = JSON.parse(line)
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return null
      out.push(v as Record<string, unknown>)
    } catch {
      return null
    }
  }
  return out
}

/** The snapshot of a healthy, settled session: the loaded log's exact bytes (a `.zst` winner decoded). Pure. */
export function captureSession(chat: Pick<ScannedChat, 'report' | 'snapshot'>, caps: SnapshotCaps): SnapshotCapture {
  const {report, snapshot} = chat
  if (report.status !== 'healthy') return {ok: false, skip: `the session is ${report.status}, not healthy (chatdoctor repair first); only a healthy session is snapshotted`}
  const dialect = dialectByName(report.format)
  if (!dialect?.settle) return {ok: false, skip: `snapshots of ${report.format} sessions are not supported`}
  const live = report.findings.find((f) => f.id === 'session-live')
  if (live) return {ok: false, skip: 'the log changed while it was read (the agent is writing it)'}
  const entry = snapshot.files.find((f) => f.name === report.winner && f.kind === 'file')
  if (!entry?.data) return {ok: false, skip: `the bytes of ${report.winner ?? 'the log'} could not be read`}
  let bytes = entry.data
  if (entry.name.endsWith('.zst')) {
    const d = decodeZstd(entry.data)
    if (!d.ok) return {ok: false, skip: `${entry.name} cannot be decoded (${d.message})`}
    bytes = d.bytes
  }
  if (bytes.length > caps.maxBytes) return {ok: false, skip: `over the byte cap (${bytes.length} > ${caps.maxBytes} bytes; --max-bytes raises it)`}
  const intact = report.generations.find((g) => g.file === entry.name)?.class === 'intact'
  const s = dialect.settle((intact ? intactRecords(bytes) : null) ?? classifyJsonlBytes(bytes).records.map((r) => r.value))
  if (s.unsettled !== null) return {ok: false, skip: `not settled: ${s.unsettled}`, unsettled: true}
  if (s.messages > caps.maxMessages) return {ok: false, skip: `over the message cap (${plural(s.messages, 'message')} > ${caps.maxMessages}; --max-messages raises it)`}
  const target = entry.name.endsWith('.zst') ? entry.name.slice(0, -4) : entry.name
  return {ok: true, kind: 'generation', target: path.basename(target), payload: bytes, messages: s.messages, turns: report.contextTurns ?? 0}
}

/**
 * The payload with each record rewritten by the dialect's `redactRecord` (`redactRecords`); `refused` for a
 * dialect without redaction. Pure.
 */
export function redactSession(payload: Buffer, header: Pick<SnapshotHeader, 'format' | 'kind' | 'target'>): Buffer | {refused: string} {
  const dialect = dialectByName(header.format)
  if (!dialect?.redactRecord) return {refused: `redaction of ${header.format} sessions is not supported`}
  return redactRecords(payload, dialect.redactRecord)
}

/**
 * A JSON-lines payload with each record rewritten by `redact`, one record per line in the log's own line ending;
 * `refused` for a log that is not all complete records. Pure.
 */
export function redactRecords(payload: Buffer, redact: (v: Record<string, unknown>) => Record<string, unknown>): Buffer | {refused: string} {
  const cls = classifyJsonlBytes(payload)
  if (cls.class !== 'intact') return {refused: `the log is ${cls.class}, not all complete records`}
  const eol = cls.eol === 'crlf' ? '\r\n' : '\n'
  const lines = cls.records.map((r) => JSON.stringify(redact(r.value)))
  return Buffer.from(lines.join(eol) + (lines.length > 0 ? eol : ''), 'utf8')
}

/** True when `p` is `root` or inside it (both absolute, normalized). */
const inside = (p: string, root: string) => p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep)

/**
 * The chat of a session log that is gone from disk while chatdoctor holds snapshots of it (`key`: the log's
 * absolute path, as the snapshot's authenticated header records it): a chat of its agent whose log is missing,
 * restored at that path by `repair`. Only for a plain log name of the family, at a normalized absolute path
 * inside both a folder the scan searches and one of the agent's own roots (`roots`), whose folder is still there
 * (an lstat, the one look at the disk); null otherwise.
 */
export function goneLogChat(key: string, scope: GoneScope, roots: readonly string[]): ChatUnit | null {
  if (!path.isAbsolute(key) || path.normalize(key) !== key || key.includes('\0')) return null
  const name = path.basename(key)
  if (sessionNameOf(name)?.plain !== name || sessionNameOf(name)?.role !== 'primary') return null
  const dir = path.dirname(key)
  const agentRoots = roots.map((r) => path.resolve(r))
  if (!agentRoots.some((r) => inside(dir, r)) || !scope.roots.some((r) => inside(key, path.resolve(r)))) return null
  // The log goes back into its own folder; one that is gone too is no chat (the snapshots stay in the store).
  // Every folder from the agent's root down to it is a real folder, never a link (a dated folder replaced by a
  // link would send the restore and its evidence outside the agent's roots), and resolves where its name says.
  return realFoldersDown(agentRoots.filter((r) => inside(dir, r)), dir) ? {dir, path: key, files: [name]} : null
}

/**
 * True when `dir` is a folder reached from one of `roots` (each containing it) through folders only: every
 * component below the root lstat-ed as a directory, no symbolic link, and its real path the root's real path
 * joined with the rest. The looks at the disk are lstat and realpath only.
 */
function realFoldersDown(roots: readonly string[], dir: string): boolean {
  const root = roots.reduce((a, b) => (b.length > a.length ? b : a), '')
  if (root === '') return false
  try {
    let at = root
    for (const part of path.relative(root, dir).split(path.sep).filter((x) => x !== '')) {
      at = path.join(at, part)
      if (!lstatSync(at).isDirectory()) return false
    }
    return realpathSync(dir) === path.join(realpathSync(root), path.relative(root, dir))
  } catch {
    return false
  }
}
