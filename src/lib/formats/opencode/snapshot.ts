/**
 * Snapshots of an OpenCode session of the JSON tree (≤ 1.1.x): the session's own files (its session file,
 * message files and part files), exact bytes each, as a `files` payload. Taken only when the session is
 * healthy and settled: its last message is an assistant message with `time.completed`, no tool part is
 * `pending` or `running`, and a user message exists (the hosted design this follows refuses a capture while a
 * tool call is pending or running and when the expected completion is absent). A session of the 1.2+ database
 * is snapshotted as its `opencode export` document, by the store family (`opencode-family/snapshot.ts`).
 *
 * A stored snapshot is a generation of the session (role `snapshot`): when the tree's files are damaged
 * beyond what moving them out keeps, the snapshot wins and the repair (`repair.ts`) writes its files back,
 * byte for byte. `--redact` (`redactOpenCodeSnapshot`) rewrites each file, or the database session's export
 * document, by the family's rule (`opencode-family/snapshot-redact.ts`).
 */
import {createHash} from 'node:crypto'
import type {ChatPlan, ChatUnit, FileEntry, PlannedAction, ScannedChat, WatchedFile} from '../../model/adapter.js'
import type {ChatReport, Generation, RankEntry, SessionContext} from '../../model/report.js'
import {decodeFiles, encodeFiles, type SnapshotCandidate, type SnapshotCaps, type SnapshotCapture, type SnapshotHeader} from '../../model/snapshot.js'
import {OPENCODE, SESSION_ID, missingSessionFile, treeFileOf} from './layout.js'
import {exportFromFiles, type TreeExport} from './export-doc.js'
import {finding} from './findings.js'
import {measureSession} from '../opencode-family/measure.js'
import {planTreeRepair} from './plan.js'
import type {DatabaseSessionFacts, GoneFacts, OpenCodeFacts} from './store.js'
import {readTreeSession, sessionMessages, usable} from './tree.js'
import {captureDatabaseSession, goneExport} from '../opencode-family/snapshot.js'
import {redactExportPayload, redactMessageInfo, redactPart, redactSessionInfo} from '../opencode-family/snapshot-redact.js'


const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** A session's identity in the store: its data dir and session id (its file path changes when its file is gone). */
export function openCodeChatKey(unit: ChatUnit): string {
  const f = unit.facts as OpenCodeFacts | undefined
  if ((f?.kind === 'tree' && f.sessionId !== null) || f?.kind === 'gone') return `${unit.dir}#${f.sessionId}`
  if (f?.kind === 'database' && f.session) return `${unit.dir}#${f.session.id}`
  return unit.path
}

/**
 * The snapshot of a healthy, settled session: a tree session's files' exact bytes (pure), a database session's
 * export document (read from a private copy of the store).
 */
export function captureOpenCode(chat: Pick<ScannedChat, 'report' | 'snapshot'>, caps: SnapshotCaps): SnapshotCapture | Promise<SnapshotCapture> {
  const {report, snapshot} = chat
  const facts = snapshot.unit.facts as OpenCodeFacts | undefined
  if (facts?.kind === 'database') return captureDatabaseSession(OPENCODE, chat, facts, caps)
  if (facts?.kind !== 'tree' || facts.sessionId === null) return {ok: false, skip: 'parts that name no readable session are not snapshotted'}
  if (report.status !== 'healthy') return {ok: false, skip: `the session is ${report.status}, not healthy (chatdoctor repair first); only a healthy session is snapshotted`}
  const files = snapshot.files.filter((f) => f.kind === 'file' && treeFileOf(f.name).kind !== 'other')
  if (files.some((f) => f.data === undefined)) return {ok: false, skip: 'a file of the session could not be read'}
  const bytes = files.reduce((n, f) => n + f.data!.length, 0)
  if (bytes > caps.maxBytes) return {ok: false, skip: `over the byte cap (${bytes} > ${caps.maxBytes} bytes of session files; --max-bytes raises it)`}
  const s = readTreeSession(facts.sessionId, files)
  const msgs = sessionMessages(s)
  if (msgs.length > caps.maxMessages) return {ok: false, skip: `over the message cap (${plural(msgs.length, 'message')} > ${caps.maxMessages}; --max-messages raises it)`}
  if (!msgs.some((m) => m.info?.role === 'user')) return {ok: false, skip: 'not settled: no prompt in the session yet', unsettled: true}
  const pending = msgs.reduce((n, m) => n + m.parts.filter((p) => p.type === 'tool' && isObj(p.state) && (p.state.status === 'pending' || p.state.status === 'running')).length, 0)
  if (pending > 0) return {ok: false, skip: `not settled: ${plural(pending, 'tool call')} pending or running`, unsettled: true}
  const last = msgs[msgs.length - 1].info
  if (last?.role !== 'assistant') return {ok: false, skip: 'not settled: the last prompt has no answer yet', unsettled: true}
  if (!isObj(last.time) || typeof last.time.completed !== 'number') return {ok: false, skip: 'not settled: the last answer has no time.completed yet', unsettled: true}
  const payload = encodeFiles(files.map((f) => ({rel: f.name, data: f.data!})))
  return {ok: true, kind: 'files', target: null, payload, messages: msgs.length, turns: report.contextTurns ?? 0}
}

/**
 * A snapshot without its private tool payloads and per-turn context (`opencode-family/snapshot-redact.ts`): a
 * database session's export document printed as `opencode export` prints it; a tree session's session, message
 * and part files each rewritten as OpenCode writes them (two-space JSON, a final newline only where the file had
 * one). `refused` for a file that does not parse as an object. Pure.
 */
export function redactOpenCodeSnapshot(payload: Buffer, header: Pick<SnapshotHeader, 'format' | 'kind' | 'target'>): Buffer | {refused: string} {
  if (header.kind === 'export') return redactExportPayload(payload)
  if (header.kind !== 'files') return {refused: `a ${header.kind} snapshot of OpenCode is not redacted`}
  const files = decodeFiles(payload)
  if (!files) return {refused: 'the payload is not the session\'s files'}
  const out: Array<{rel: string; data: Buffer}> = []
  for (const f of files) {
    const t = treeFileOf(f.rel)
    let v: unknown
    try {
      v = JSON.parse(f.data.toString('utf8'))
    } catch {
      return {refused: `${f.rel} does not parse`}
    }
    if (!isObj(v)) return {refused: `${f.rel} is not a JSON object`}
    const red = t.kind === 'session' ? redactSessionInfo(v) : t.kind === 'message' ? redactMessageInfo(v) : t.kind === 'part' ? redactPart(v) : v
    out.push({rel: f.rel, data: Buffer.from(JSON.stringify(red, null, 2) + (f.data[f.data.length - 1] === 0x0a ? '\n' : ''), 'utf8')})
  }
  return encodeFiles(out)
}

/** The files of a snapshot of this session, when they are that (each a session, message or part file of it). */
export function snapshotFilesOf(c: SnapshotCandidate, sessionId: string): FileEntry[] | null {
  if (c.data === undefined || c.header.kind !== 'files') return null
  const files = decodeFiles(c.data)
  if (!files) return null
  const mtimeMs = Date.parse(c.header.time)
  const out: FileEntry[] = []
  for (const f of files) {
    const t = treeFileOf(f.rel)
    if (t.kind === 'other' || (t.kind === 'session' && t.sessionId !== sessionId) || (t.kind === 'message' && t.sessionId !== sessionId)) return null
    out.push({name: f.rel, kind: 'file', bytes: f.data.length, mtimeMs, data: f.data})
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** A snapshot's measure: the context of its files, whether it holds a usable session file. */
export function measureSnapshot(files: FileEntry[], sessionId: string): {context: SessionContext; listed: boolean} {
  const s = readTreeSession(sessionId, files)
  return {context: measureSession(sessionMessages(s)).context, listed: usable(s.session)}
}

/** Whether context `a` holds more than `b`: user turns, then messages, then parts. */
function more(a: SessionContext, b: SessionContext): boolean {
  return a.userTurns !== b.userTurns ? a.userTurns > b.userTurns : a.messages !== b.messages ? a.messages > b.messages : a.parts > b.parts
}

/** The stored snapshots of a tree session as generations, and the one that wins over the files on disk, if any. */
export interface SnapshotVerdict {
  generations: Generation[]
  win: {name: string; context: SessionContext; ranking: RankEntry[]} | null
}

/**
 * The stored snapshots of a tree session as generations, and the best of them when it holds more than a
 * repair of the files on disk keeps (or the session would not be listed without it). Pure.
 */
export function judgeSnapshots(snapshots: readonly SnapshotCandidate[] | undefined, files: FileEntry[], sessionId: string): SnapshotVerdict {
  const out: SnapshotVerdict = {generations: [], win: null}
  if (!snapshots || snapshots.length === 0) return out
  const after = planTreeRepair(sessionId, files)
  let best: {name: string; context: SessionContext} | null = null
  for (const c of snapshots) {
    const sf = snapshotFilesOf(c, sessionId)
    if (!sf) continue
    const m = measureSnapshot(sf, sessionId)
    out.generations.push({file: c.name, role: 'snapshot', class: m.listed ? 'intact' : 'corrupt', reasons: m.listed ? [] : ['wrong-shape'], bytes: c.data!.length, mtimeMs: Date.parse(c.header.time), sha256: createHash('sha256').update(c.data!).digest('hex'), turns: m.context.userTurns})
    if (m.listed && (best === null || more(m.context, best.context))) best = {name: c.name, context: m.context}
  }
  if (best === null || (after.loss.sessionListed && !more(best.context, after.loss.after))) return out
  const disk = files.find((f) => treeFileOf(f.name).kind === 'session')?.name ?? missingSessionFile(sessionId)
  const lost = after.loss.sessionListed ? `holds less after a repair of the files on disk (${plural(after.loss.after.userTurns, 'user turn')}, ${plural(after.loss.after.messages, 'message')})` : 'its session file is not usable'
  out.win = {name: best.name, context: best.context, ranking: [{file: best.name, rank: 1, turns: best.context.userTurns, lostBecause: null}, {file: disk, rank: 2, turns: after.loss.after.userTurns, lostBecause: lost}]}
  return out
}

/** The name a preserved file gets in the evidence folder (its path below the data dir, flattened). */
function evidenceName(rel: string): string {
  return rel.split('/').join('__')
}

/**
 * Fills the plan of a tree session whose winner is a stored snapshot: each file of the snapshot whose bytes
 * differ on disk is preserved and restored (one that is gone is written anew, into a folder that still
 * exists), each damaged file the snapshot does not hold moves out of the tree as in a plain repair, and the
 * data dir's mtime is put back. A redacted snapshot restores only the files that are gone or damaged on disk
 * (its copies of sound files lack their tool payloads). Files of the session that are intact and not in the
 * snapshot (later messages) stay. Pure.
 */
export function planSnapshotRestore(chat: Pick<ScannedChat, 'report' | 'snapshot'>, plan: ChatPlan, sessionId: string): ChatPlan {
  const {report, snapshot} = chat
  const stored = snapshot.snapshots?.find((c) => c.name === report.winner)
  const files = stored ? snapshotFilesOf(stored, sessionId) : null
  if (!stored || !files || !stored.data) {
    plan.problem = `the bytes of the winner ${report.winner} are not at hand as scanned; nothing written`
    return plan
  }
  if (createHash('sha256').update(stored.data).digest('hex') !== stored.header.sha256) {
    plan.problem = `the bytes of ${stored.name} do not match its header's sha256; nothing written`
    return plan
  }
  const folders = new Set(snapshot.files.map((f) => f.name.slice(0, f.name.lastIndexOf('/'))))
  const actions: PlannedAction[] = []
  const watch: WatchedFile[] = []
  const restored = new Set<string>()
  // A redacted snapshot lacks the tool payloads: a file of it whose copy on disk is sound is left as it is.
  const damaged = new Set(planTreeRepair(sessionId, snapshot.files).moves.map((m) => m.file))
  for (const f of files) {
    const cur = snapshot.files.find((x) => x.name === f.name)
    if (cur?.data && cur.data.equals(f.data!)) continue
    if (stored.header.redacted && cur?.data && !damaged.has(cur.name)) continue
    const folder = f.name.slice(0, f.name.lastIndexOf('/'))
    if (!cur && !folders.has(folder)) {
      plan.problem = `${folder}/ is gone from the data dir; restoring ${stored.name} needs it (mkdir -p it and run chatdoctor repair again); nothing written`
      return plan
    }
    const sha = createHash('sha256').update(f.data!).digest('hex')
    if (cur) {
      watch.push({name: cur.name, bytes: cur.bytes, mtimeMs: cur.mtimeMs})
      actions.push({type: 'preserve', from: cur.name, to: evidenceName(cur.name), sha256: cur.data ? createHash('sha256').update(cur.data).digest('hex') : null})
    }
    actions.push({type: 'restore', from: stored.name, to: f.name, sha256: sha, source: {kind: 'bytes', label: stored.name, data: f.data!}, data: f.data!})
    restored.add(f.name)
  }
  for (const m of planTreeRepair(sessionId, snapshot.files).moves) {
    if (restored.has(m.file) || files.some((f) => f.name === m.file)) continue
    const entry = snapshot.files.find((f) => f.name === m.file)
    if (entry) watch.push({name: m.file, bytes: entry.bytes, mtimeMs: entry.mtimeMs})
    actions.push({type: 'move', from: m.file, to: m.file, sha256: m.sha256, why: m.why})
  }
  if (actions.length === 0) return plan
  actions.push({type: 'restore-mtime', from: null, to: '.', sha256: null, mtimeMs: snapshot.dirMtimeMs})
  plan.actions = actions
  plan.watch = watch
  plan.statusAfter = 'healthy'
  return plan
}

/**
 * The chat of a session whose snapshots name a data dir discovery listed but which the store no longer holds
 * at all (no session, message or part file, no database row): its key is `<data dir>#<session id>`. Pure.
 */
export function openCodeGoneChat(key: string, found: readonly ChatUnit[]): ChatUnit | null {
  const at = key.lastIndexOf('#')
  if (at < 0) return null
  const dir = key.slice(0, at)
  const sessionId = key.slice(at + 1)
  if (!SESSION_ID.test(sessionId) || !found.some((u) => u.dir === dir)) return null
  // A database that could not be read lists none of its sessions: they are not gone, and nothing is imported into it.
  if (found.some((u) => u.dir === dir && (u.facts as OpenCodeFacts | undefined)?.kind === 'database' && (u.facts as {session: unknown}).session === null)) return null
  const db = found.find((u) => u.dir === dir && (u.facts as OpenCodeFacts | undefined)?.kind === 'database')?.facts as DatabaseSessionFacts | undefined
  const facts: GoneFacts = {kind: 'gone', sessionId, database: db?.file ?? null}
  return {dir, path: `${dir}/${goneName(facts)}`, members: [], facts}
}

/**
 * The newest snapshot of a gone session that holds a usable session, with its export document: a database
 * session's snapshot is that document (its exact bytes are imported), a tree session's is built from its files. Pure.
 */
function goneWinner(snapshots: readonly SnapshotCandidate[] | undefined, sessionId: string): {c: SnapshotCandidate; context: SessionContext; doc: TreeExport['document']; exact: boolean} | null {
  for (const c of snapshots ?? []) {
    if (c.header.kind === 'export') {
      const w = goneExport([c], sessionId)
      if (w) return {...w, exact: true}
      continue
    }
    const files = snapshotFilesOf(c, sessionId)
    if (!files) continue
    try {
      const doc = exportFromFiles(sessionId, files).document
      return {c, context: measureSnapshot(files, sessionId).context, doc, exact: false}
    } catch {
      continue
    }
  }
  return null
}

/** The name of a gone session: its row in the database (`opencode.db#<id>`), else its file in the tree. */
const goneName = (f: GoneFacts) => (f.database !== null ? `${f.database}#${f.sessionId}` : missingSessionFile(f.sessionId))

/** The diagnosis of a session the store lost altogether: its snapshots are its generations, the newest usable one wins. Pure. */
export function diagnoseGone(snapshots: readonly SnapshotCandidate[] | undefined, facts: GoneFacts, unitPath: string): ChatReport {
  const generations: Generation[] = (snapshots ?? []).map((c) => ({file: c.name, role: 'snapshot', class: c.data ? 'intact' : 'corrupt', reasons: c.data ? [] : ['unreadable'], bytes: c.data?.length ?? 0, mtimeMs: Date.parse(c.header.time), sha256: c.header.sha256, turns: c.header.turns}))
  generations.unshift({file: goneName(facts), role: 'primary', class: 'missing', reasons: [], bytes: 0, mtimeMs: null, sha256: null, turns: null})
  const w = goneWinner(snapshots, facts.sessionId)
  const findings = [finding('context-lost', null, `${facts.sessionId} is gone from the OpenCode store altogether: no session file, message or part of it, no database row`, w ? 'warning' : 'error')]
  if (w) findings.push(finding('snapshot-restores', null, `${w.c.name} holds ${plural(w.context.userTurns, 'user turn')} and ${plural(w.context.messages, 'message')}; repair writes it as an \`opencode export\` document and imports it with \`opencode import\` (or prints that command)`))
  return {path: unitPath, format: 'opencode', id: facts.sessionId, status: w ? 'repairable' : 'unrecoverable', winner: w?.c.name ?? null, transcriptTurns: w?.context.userTurns ?? null, contextTurns: w?.context.userTurns ?? null, findings, generations, ranking: w ? [{file: w.c.name, rank: 1, turns: w.context.userTurns, lostBecause: null}] : []}
}

/**
 * The plan of a gone session: the winning snapshot's export document (what \`opencode export\` prints for the
 * session, built from its files), for \`opencode import\`, run in the session's own directory (OpenCode files an
 * imported session under the project of its working folder). Pure.
 */
export function planGoneImport(chat: Pick<ScannedChat, 'report' | 'snapshot'>, plan: ChatPlan, facts: GoneFacts): ChatPlan {
  const w = goneWinner(chat.snapshot.snapshots, facts.sessionId)
  if (!w || w.c.name !== chat.report.winner) return plan
  if (createHash('sha256').update(w.c.data!).digest('hex') !== w.c.header.sha256) {
    plan.problem = `the bytes of ${w.c.name} do not match its header's sha256; nothing written`
    return plan
  }
  const dir = typeof w.doc.info.directory === 'string' && w.doc.info.directory.startsWith('/') ? w.doc.info.directory : null
  const data = w.exact ? w.c.data! : Buffer.from(JSON.stringify(w.doc, null, 2) + '\n', 'utf8')
  plan.agentImport = {name: `${facts.sessionId}.json`, data, argv: ['opencode', 'import', '{file}'], cwd: dir, what: `${facts.sessionId} from ${w.c.name}`}
  plan.statusAfter = 'healthy'
  return plan
}
