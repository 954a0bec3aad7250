/**
 * The repair plan of a Cline session (pure: no disk). Cline keeps one copy of each session file and rewrites
 * it in place, so a repair writes the salvage of the damaged file over it (never a parse and re-serialize):
 *
 * 1. `preserve` `<id>.messages.json` into the evidence folder, `restore` its salvage (`salvage:<id>.messages.json`:
 *    the complete messages before the damage, byte for byte, brackets closed) — when Cline's reader would take
 *    the file as an empty conversation and the salvage keeps at least one message;
 * 2. `preserve` `<id>.json`, `restore` its salvage — when the session record is damaged, its salvage passes
 *    Cline's schema, and the conversation survives (when it does not, Cline rebuilds the record anyway);
 * 3. `restore-mtime` of the session folder.
 *
 * Refused outright (never written, even with `--force`) when the scan saw Cline running (its hub daemon, a
 * lock it holds, a `cline` process of this data dir: `live.ts`); it rewrites these files in place at any
 * moment. The same check runs again right before the write and under the lock (`liveReasons`; there `--force`
 * overrides it, as for every live reason).
 */
import {createHash} from 'node:crypto'
import type {ChatDirSnapshot, ChatPlan, PlannedAction, PlanOptions, ScannedChat, WatchedFile} from '../../model/adapter.js'
import {salvageBytes} from '../../salvage/index.js'
import {analyzeSession, salvageName} from './diagnose.js'
import {clineLiveSigns} from './live.js'
import {conversationSnapshots} from './snapshot.js'
import type {ClineFacts} from './store.js'

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex')
}

/** Plans the repair of one Cline session. Pure; never throws. */
export function planClineRepair(chat: ScannedChat, opts: PlanOptions): ChatPlan {
  const {report, snapshot} = chat
  const facts = snapshot.unit.facts as ClineFacts | undefined
  const watch: WatchedFile[] = snapshot.files.filter((f) => f.kind === 'file' && f.name.endsWith('.json')).map((f) => ({name: f.name, bytes: f.bytes, mtimeMs: f.mtimeMs}))
  const plan: ChatPlan = {chat, actions: [], watch, temps: []}
  if (opts.restoreFrom !== undefined) {
    plan.problem = `--restore-from is for Codebuff chats; a Cline session keeps one copy of its conversation, repaired from its salvage`
    return plan
  }
  if (report.status !== 'repairable' || !facts || facts.kind !== 'session') return plan
  const a = analyzeSession(snapshot, facts)
  const restores: Array<{file: string; sha: string | null; label: string; data: Buffer}> = []
  const take = (file: string, sha: string | null, salvage: {parts: Uint8Array[]; summary: {sha256: string}}) => {
    const data = salvageBytes(salvage)
    if (sha256(data) !== salvage.summary.sha256) {
      plan.problem = `the salvage of ${file} did not come out as scanned; nothing written`
      return
    }
    restores.push({file, sha, label: salvageName(file), data})
  }
  const stored = conversationSnapshots(snapshot, a.id).find((s) => s.name === report.winner)
  if (stored) {
    // A stored snapshot: its bytes, checked against its header once more, written as the conversation file.
    if (sha256(stored.data) !== stored.header.sha256) {
      plan.problem = `the bytes of ${stored.name} do not match its header's sha256; nothing written`
      return plan
    }
    restores.push({file: a.primary.file, sha: a.primary.class === 'missing' ? null : a.primary.sha256, label: stored.name, data: stored.data})
  }
  const messagesRestored = stored !== undefined || (report.winner === salvageName(a.primary.file) && a.messagesSalvage?.summary.candidate === true)
  if (messagesRestored && !stored) take(a.primary.file, a.primary.sha256, a.messagesSalvage!)
  const conversationSurvives = a.read.read !== 'empty' || messagesRestored
  if (a.record && a.record.class !== 'intact' && a.recordSalvage?.summary.candidate && conversationSurvives) take(a.record.file, a.record.sha256, a.recordSalvage)
  if (plan.problem || restores.length === 0) return plan
  if (facts.live.length > 0) {
    plan.refusal = `refused: ${facts.live[0].what}; it rewrites this session's files in place at any moment. Stop it (cline hub stop, and quit every cline) and run chatdoctor repair again`
    return plan
  }
  const actions: PlannedAction[] = []
  for (const r of restores) {
    if (r.sha !== null || snapshot.files.some((f) => f.name === r.file)) actions.push({type: 'preserve', from: r.file, to: r.file, sha256: r.sha})
    actions.push({type: 'restore', from: r.label, to: r.file, sha256: sha256(r.data), source: {kind: 'bytes', label: r.label, data: r.data}, data: r.data})
  }
  actions.push({type: 'restore-mtime', from: null, to: '.', sha256: null, mtimeMs: snapshot.dirMtimeMs})
  plan.actions = actions
  // A salvage that drops turns leaves the conversation shorter than the session's own run count: degraded.
  const after = stored ? (report.contextTurns ?? 0) : messagesRestored ? a.messagesSalvage!.measure?.turns ?? 0 : a.primary.turns ?? 0
  plan.statusAfter = report.transcriptTurns !== null && after < report.transcriptTurns ? 'degraded' : 'healthy'
  return plan
}

/**
 * The `liveReasons` hook: why this session looks live right now (Cline is running for its data dir), in words;
 * empty when it does not. Read-only; apply asks right before the write and again under its lock.
 */
export function clineLiveReasons(snapshot: ChatDirSnapshot): string[] {
  const facts = snapshot.unit.facts as ClineFacts | undefined
  if (!facts || !facts.watched) return []
  return clineLiveSigns(facts.dataDir).map((s) => `${s.what}: it rewrites this session's files in place at any moment (stop it: cline hub stop)`)
}
