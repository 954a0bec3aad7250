/**
 * Snapshots of a session of a store's database (OpenCode ≥ 1.2, Kilo): the `<agent> export <sessionID>`
 * document of the session, as the agent's own export writes it (`export-rows.ts`), read from a private copy of
 * the database with its WAL, never the original; payload kind `export`. Taken only when the session is healthy
 * and settled by the same rule as the JSON tree's: its last message is an assistant message with
 * `time.completed`, no tool part is `pending` or `running`, and the session has a user message (checked on the
 * document stored, not on the scan's earlier read).
 *
 * A stored export is a generation of the session (role `snapshot`). When the session's rows hold less than it
 * (a turn the WAL rolled back, rows gone) and the session is not healthy, the snapshot wins and the repair
 * imports it with `<agent> import` (`planDatabaseImport`): the agent adds the rows its store does not hold yet,
 * and keeps the rows it has (its import inserts each message and part only when its id is absent). A session
 * gone from the database altogether is a chat of its own, restored the same way. Pure except
 * `captureDatabaseSession`, which reads the private copy.
 */
import {createHash} from 'node:crypto'
import type {ChatPlan, ScannedChat} from '../../model/adapter.js'
import type {ChatReport, Finding, Generation, RankEntry, SessionContext} from '../../model/report.js'
import type {SnapshotCandidate, SnapshotCaps, SnapshotCapture} from '../../model/snapshot.js'
import type {DatabaseSessionFacts} from './database.js'
import {newerStore} from './database.js'
import {exportBytes, readSessionExport, type ExportDocument} from './export-rows.js'
import {finding} from './findings.js'
import {measureSession} from './measure.js'
import type {StoreMember} from './member.js'

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** Why a document's last turn is not settled, or null when it is. */
export function unsettledWhy(doc: ExportDocument): string | null {
  if (!doc.messages.some((m) => m.info.role === 'user')) return 'no prompt in the session yet'
  const pending = doc.messages.reduce((n, m) => n + m.parts.filter((p) => p.type === 'tool' && isObj(p.state) && (p.state.status === 'pending' || p.state.status === 'running')).length, 0)
  if (pending > 0) return `${plural(pending, 'tool call')} pending or running`
  const last = doc.messages[doc.messages.length - 1].info
  if (last.role !== 'assistant') return 'the last prompt has no answer yet'
  if (!isObj(last.time) || typeof last.time.completed !== 'number') return 'the last answer has no time.completed yet'
  return null
}

/**
 * The snapshot of a healthy, settled database session: its export document, read now from a private copy of
 * the store. Never throws.
 */
export async function captureDatabaseSession(member: StoreMember, chat: Pick<ScannedChat, 'report' | 'snapshot'>, facts: DatabaseSessionFacts, caps: SnapshotCaps): Promise<SnapshotCapture> {
  const {report, snapshot} = chat
  if (facts.session === null) return {ok: false, skip: `${facts.file} could not be read; there is no session to snapshot`}
  if (newerStore(facts)) return {ok: false, skip: `the store was written by a newer ${member.displayName} than chatdoctor knows; not snapshotted (its rows may not be what chatdoctor reads)`}
  if (report.status !== 'healthy') return {ok: false, skip: `the session is ${report.status}, not healthy (chatdoctor repair first); only a healthy session is snapshotted`}
  const doc = await readSessionExport(snapshot.unit.dir, facts.file, facts.session.id, member.tempPrefix)
  if ('error' in doc) return {ok: false, skip: `its rows could not be read as an export (${doc.error})`}
  const document = member.exportView ? member.exportView(doc) : doc
  if (document.messages.length > caps.maxMessages) return {ok: false, skip: `over the message cap (${plural(document.messages.length, 'message')} > ${caps.maxMessages}; --max-messages raises it)`}
  const why = unsettledWhy(document)
  if (why !== null) return {ok: false, skip: `not settled: ${why}`, unsettled: true}
  const payload = exportBytes(document)
  if (payload.length > caps.maxBytes) return {ok: false, skip: `over the byte cap (${payload.length} > ${caps.maxBytes} bytes of export; --max-bytes raises it)`}
  return {ok: true, kind: 'export', target: null, payload, messages: document.messages.length, turns: measureDoc(document).userTurns}
}

/** The export document of a snapshot of session `id`, when it is one. */
export function exportOfSnapshot(c: SnapshotCandidate, id: string): ExportDocument | null {
  if (c.data === undefined || c.header.kind !== 'export') return null
  let v: unknown
  try {
    v = JSON.parse(c.data.toString('utf8'))
  } catch {
    return null
  }
  if (!isObj(v) || !isObj(v.info) || v.info.id !== id || !Array.isArray(v.messages)) return null
  if (!v.messages.every((m) => isObj(m) && isObj(m.info) && typeof m.info.id === 'string' && Array.isArray(m.parts) && m.parts.every(isObj))) return null
  return v as unknown as ExportDocument
}

/** The context an export document holds. */
export function measureDoc(doc: ExportDocument): SessionContext {
  return measureSession(doc.messages.map((m) => ({id: String(m.info.id), info: m.info, parts: m.parts, unreadableParts: 0}))).context
}

/** Whether context `a` holds more than `b`: user turns, then messages, then parts. */
export function holdsMore(a: SessionContext, b: SessionContext): boolean {
  return a.userTurns !== b.userTurns ? a.userTurns > b.userTurns : a.messages !== b.messages ? a.messages > b.messages : a.parts > b.parts
}

/** The usable snapshots of a session (export documents of it), newest first, measured. */
function usableExports(snapshots: readonly SnapshotCandidate[] | undefined, id: string): Array<{c: SnapshotCandidate; doc: ExportDocument; context: SessionContext}> {
  const out: Array<{c: SnapshotCandidate; doc: ExportDocument; context: SessionContext}> = []
  for (const c of snapshots ?? []) {
    const doc = exportOfSnapshot(c, id)
    if (doc) out.push({c, doc, context: measureDoc(doc)})
  }
  return out
}

/** A snapshot as a generation of its chat. */
function generationOf(c: SnapshotCandidate, usable: boolean, turns: number | null): Generation {
  return {file: c.name, role: 'snapshot', class: usable ? 'intact' : 'corrupt', reasons: usable ? [] : [c.data ? 'wrong-shape' : 'unreadable'], bytes: c.data?.length ?? 0, mtimeMs: Date.parse(c.header.time), sha256: c.header.sha256, turns}
}

/**
 * A database session's report with its stored snapshots as generations; when the session is not healthy and
 * a snapshot holds more than its rows, that snapshot wins: status `repairable`, finding `snapshot-restores`.
 * A healthy session keeps its verdict (the agent may have removed messages itself: a revert); a damaged database
 * keeps its manual repair. Pure.
 */
export function judgeDatabaseSnapshots<R extends Omit<ChatReport, 'path'>>(member: StoreMember, report: R, snapshots: readonly SnapshotCandidate[] | undefined, facts: DatabaseSessionFacts): R {
  const s = facts.session
  if (!s || !snapshots || snapshots.length === 0) return report
  const usable = usableExports(snapshots, s.id)
  const generations = [...report.generations, ...snapshots.map((c) => {
    const u = usable.find((x) => x.c === c)
    return generationOf(c, u !== undefined, u?.context.userTurns ?? null)
  })]
  let best: (typeof usable)[number] | null = null
  for (const u of usable) if (best === null || holdsMore(u.context, best.context)) best = u
  // Only a degraded session (its database whole, rows missing) is restored: the import adds missing rows and
  // keeps those it has, so it cannot mend a damaged database or rows that are there but unreadable.
  if (report.status !== 'degraded' || best === null || !holdsMore(best.context, s.context) || newerStore(facts)) return {...report, generations}
  const c = best.context
  const ranking: RankEntry[] = [
    {file: best.c.name, rank: 1, turns: c.userTurns, lostBecause: null},
    {file: facts.file, rank: 2, turns: s.context.userTurns, lostBecause: `its rows hold less (${plural(s.context.userTurns, 'user turn')}, ${plural(s.context.messages, 'message')}, ${plural(s.context.parts, 'part')})`},
  ]
  const f = finding('snapshot-restores', null, `${best.c.name} holds ${plural(c.userTurns, 'user turn')}, ${plural(c.messages, 'message')} and ${plural(c.parts, 'part')}, more than the rows of ${s.id}; repair writes it as an \`${member.command} export\` document and imports it with \`${member.command} import\` (or prints that command), which adds the rows the store lacks`)
  return {...report, generations, status: 'repairable', winner: best.c.name, contextTurns: c.userTurns, ranking, findings: [...report.findings, f]}
}

/** The newest usable snapshot of a session the store no longer holds, with its document and context. */
export function goneExport(snapshots: readonly SnapshotCandidate[] | undefined, id: string): {c: SnapshotCandidate; doc: ExportDocument; context: SessionContext} | null {
  return usableExports(snapshots, id)[0] ?? null
}

/** The findings of a gone session restored from an export snapshot. */
export function goneExportFinding(member: StoreMember, w: {c: SnapshotCandidate; context: SessionContext}): Finding {
  return finding('snapshot-restores', null, `${w.c.name} holds ${plural(w.context.userTurns, 'user turn')} and ${plural(w.context.messages, 'message')}; repair writes it as an \`${member.command} export\` document and imports it with \`${member.command} import\` (or prints that command)`)
}

/**
 * Fills the plan of a session whose winner is an export snapshot: the snapshot's exact bytes (checked against
 * its header's sha256) as the document of `<agent> import`, run in the session's own directory (the agent files
 * an imported session under the project of its working folder). Pure.
 */
export function planDatabaseImport(member: StoreMember, chat: Pick<ScannedChat, 'report' | 'snapshot'>, plan: ChatPlan, id: string): ChatPlan {
  const c = chat.snapshot.snapshots?.find((x) => x.name === chat.report.winner)
  const doc = c ? exportOfSnapshot(c, id) : null
  if (!c || !doc || !c.data) {
    plan.problem = `the bytes of the winner ${chat.report.winner} are not at hand as scanned; nothing written`
    return plan
  }
  if (createHash('sha256').update(c.data).digest('hex') !== c.header.sha256) {
    plan.problem = `the bytes of ${c.name} do not match its header's sha256; nothing written`
    return plan
  }
  const dir = typeof doc.info.directory === 'string' && doc.info.directory.startsWith('/') ? doc.info.directory : null
  plan.agentImport = {name: `${id}.json`, data: c.data, argv: [member.command, 'import', '{file}'], cwd: dir, what: `${id} from ${c.name}`}
  plan.statusAfter = 'healthy'
  return plan
}

/**
 * The diagnosis of a session a store's database no longer holds (no row of it), from its export snapshots: the
 * newest usable one wins (`repairable`), else `unrecoverable`. `missing` names the absent primary. Pure.
 */
export function diagnoseGoneSession(member: StoreMember, snapshots: readonly SnapshotCandidate[] | undefined, id: string, missing: string): Omit<ChatReport, 'path'> {
  const usable = usableExports(snapshots, id)
  const generations: Generation[] = [{file: missing, role: 'primary', class: 'missing', reasons: [], bytes: 0, mtimeMs: null, sha256: null, turns: null}]
  for (const c of snapshots ?? []) {
    const u = usable.find((x) => x.c === c)
    generations.push(generationOf(c, u !== undefined, u?.context.userTurns ?? null))
  }
  const w = usable[0] ?? null
  const findings = [finding('context-lost', null, `${id} is gone from the ${member.displayName} store altogether: no row of it in ${missing}`, w ? 'warning' : 'error')]
  if (w) findings.push(goneExportFinding(member, w))
  return {format: member.format, id, status: w ? 'repairable' : 'unrecoverable', winner: w?.c.name ?? null, transcriptTurns: w?.context.userTurns ?? null, contextTurns: w?.context.userTurns ?? null, findings, generations, ranking: w ? [{file: w.c.name, rank: 1, turns: w.context.userTurns, lostBecause: null}] : []}
}
