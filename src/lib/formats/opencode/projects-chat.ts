/**
 * OpenCode's projects as a chat: the sessions filed under another project than their directory's (each a
 * finding, and on the session's own chat the command that lists it once fixed), and the repair that files them
 * where OpenCode looks, the way OpenCode moves such sessions itself (`projects.ts`).
 */
import type {ChatDirSnapshot, ChatPlan, Diagnosis, IndexAnnotation, PlannedAction, ScannedChat} from '../../model/adapter.js'
import type {ChatStatus, Finding, Generation} from '../../model/report.js'
import {finding} from './findings.js'
import type {OpenCodeProjectFacts, Orphan} from './projects.js'

/** The project facts of a snapshot, when it is OpenCode's projects chat. */
export function projectFactsOf(snapshot: Pick<ChatDirSnapshot, 'unit'>): OpenCodeProjectFacts | null {
  const f = snapshot.unit.facts as OpenCodeProjectFacts | undefined
  return f && f.kind === 'opencode-projects' ? f : null
}

/** Whether chatdoctor can file this orphan under its project. */
function fixable(o: Orphan, f: OpenCodeProjectFacts): boolean {
  return o.store === 'database' ? f.rowRepair !== null : o.moved !== undefined
}

function why(o: Orphan): string {
  const spelled = o.directory !== o.worktree ? ` (its directory ${JSON.stringify(o.directory)} is not spelled as the worktree ${JSON.stringify(o.worktree)}, so OpenCode's own move of such sessions passes it by)` : ''
  return `filed under project ${o.from}, while its directory belongs to project ${o.to} (${o.worktree}): OpenCode started there lists only that project's sessions, so it does not show this one${spelled}`
}

export function diagnoseProjects(snapshot: ChatDirSnapshot, f: OpenCodeProjectFacts): Diagnosis {
  const generations: Generation[] = snapshot.files.map((e) => ({file: e.name, role: 'index', class: null, reasons: [], bytes: e.bytes, mtimeMs: e.mtimeMs, sha256: null, turns: null}))
  const findings: Finding[] = []
  for (const o of f.orphans) {
    const fix = fixable(o, f) ? `; a repair files it under ${o.to}${o.store === 'tree' ? ` (${o.moved!.to})` : ''}, as OpenCode does` : o.store === 'database' ? `; its row could not be repaired on a copy (${f.rowRepairError ?? 'unknown'})` : '; its session file names its project in an unexpected way: move it by hand'
    findings.push(finding('not-in-index', o.file ?? f.database, `session ${o.sessionId} is ${why(o)}${fix}`))
  }
  const status: ChatStatus = f.orphans.some((o) => fixable(o, f)) ? 'repairable' : f.orphans.length > 0 ? 'repairable' : 'healthy'
  return {kind: 'chat', report: {format: 'opencode', id: 'projects', status, winner: f.database ?? null, transcriptTurns: null, contextTurns: f.projects.length, findings, generations, ranking: []}}
}

export function annotateOpenCodeSession(session: Pick<ScannedChat, 'report' | 'snapshot'>, indexes: ReadonlyArray<Pick<ScannedChat, 'report' | 'snapshot'>>): IndexAnnotation | null {
  const idx = indexes.find((i) => projectFactsOf(i.snapshot)?.dir === session.snapshot.dir)
  const f = idx ? projectFactsOf(idx.snapshot) : null
  if (!idx || !f) return null
  const o = f.orphans.find((x) => x.sessionId === session.report.id)
  if (!o) return null
  const after = fixable(o, f) ? `; after a repair, \`opencode\` in ${o.worktree} lists it (\`opencode --session ${o.sessionId}\` opens it)` : ''
  return {findings: [finding('not-in-index', o.file ?? null, `this session is ${why(o)}${after}`)], ...(fixable(o, f) ? {repairedBy: idx.snapshot.unit.path} : {})}
}

export function planProjects(chat: ScannedChat): ChatPlan {
  const f = projectFactsOf(chat.snapshot)!
  const plan: ChatPlan = {chat, actions: [], watch: chat.snapshot.files.filter((e) => e.kind === 'file').map((e) => ({name: e.name, bytes: e.bytes, mtimeMs: e.mtimeMs})), temps: [], evidenceSub: 'projects'}
  if (chat.report.status !== 'repairable') return plan
  const has = (n: string) => chat.snapshot.files.some((e) => e.name === n && e.kind === 'file')
  if (f.database && f.rowRepair && f.orphans.some((o) => o.store === 'database')) {
    const db = f.database
    plan.actions.push({type: 'preserve', from: db, to: db, sha256: chat.report.generations.find((g) => g.file === db)?.sha256 ?? null})
    for (const s of ['-wal', '-shm']) if (has(db + s)) plan.actions.push({type: 'move', from: db + s, to: db + s, sha256: null, why: 'index-rewritten'})
    plan.actions.push({type: 'restore', from: `rows:${db}`, to: db, sha256: f.rowRepair.sha256, source: {kind: 'bytes', label: `rows:${db}`, data: f.rowRepair.bytes}, data: f.rowRepair.bytes})
  }
  for (const o of f.orphans) {
    if (o.store !== 'tree' || !o.moved || !o.file) continue
    const write: PlannedAction = {type: 'restore', from: `moved:${o.file}`, to: o.moved.to, sha256: o.moved.sha256, source: {kind: 'bytes', label: `moved:${o.file}`, data: o.moved.bytes}, data: o.moved.bytes}
    plan.actions.push(write, {type: 'move', from: o.file, to: o.file, sha256: null, why: 'orphaned-session'})
  }
  const left = f.orphans.filter((o) => !fixable(o, f))
  if (left.length > 0) {
    const m = `${left.length} session${left.length === 1 ? '' : 's'} cannot be filed under ${left.length === 1 ? 'its' : 'their'} project by chatdoctor (${left.map((o) => o.sessionId).join(', ')})`
    if (plan.actions.length === 0) plan.manual = m
    else plan.warnings = [m]
  }
  if (plan.actions.length > 0) plan.statusAfter = 'healthy'
  return plan
}
