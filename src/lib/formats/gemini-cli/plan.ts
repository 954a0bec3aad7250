/**
 * The repair plan of a Gemini CLI session. Pure: from the scanned chat to the actions `apply.ts` executes.
 *
 * - The session file the CLI resumes (`primary`) is rewritten with the repaired bytes of the best generation
 *   (`jsonl-repair.ts` with the Gemini rules: drop a torn tail, strip NUL runs and a BOM, split an interleaved
 *   line, drop an unreadable line, and give a final record its line end; every other line byte-identical). When
 *   the best generation is the CLI's `.unreadable-<ms>` copy or a `.tmp-<pid>` temp, its repaired bytes are
 *   written over the primary. The file's own mtime is put back (`--resume latest` and the session list go by
 *   the recorded `lastUpdated`, but a user's tools may go by mtime).
 * - When the best generation is another session file of the same short id, the primary is set aside instead
 *   (moved into the evidence folder), so the CLI finds the better file.
 * - Every other session file of the short id that the CLI's next start would not keep (an orphan of a resume in
 *   a later minute, an empty, NUL-filled or header-torn sibling) is set aside the same way, so the start-up
 *   cleanup has nothing to delete by short id. A moved file is byte for byte in the evidence folder and comes
 *   back with `chatdoctor undo`.
 * - The chats folder's mtime is put back.
 *
 * Refused outright: a session that changed size while the scan read it (Gemini CLI is writing it), and a plan
 * whose result the CLI would not load.
 */
import {createHash} from 'node:crypto'
import type {ChatPlan, PlannedAction, PlanOptions, ScannedChat} from '../../model/adapter.js'
import {lineChangeReports, startSessionPlan} from '../jsonl/plan.js'
import {readStates, type GenState} from './diagnose.js'
import {tempWriterPid} from './layout.js'

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex')
}

/** The session files the next start would not keep, other than `except`. */
function toSetAside(states: GenState[], except: GenState | undefined): GenState[] {
  return states.filter((s) => s !== except && s.kind === 'session' && s.entry.kind === 'file' && (s.analysis === null || s.analysis.deletes !== null))
}

/** Plans the repair of one Gemini CLI session. Pure; never throws. */
export function planGeminiRepair(chat: ScannedChat, opts: PlanOptions): ChatPlan {
  const {report, snapshot} = chat
  const {plan, done} = startSessionPlan(chat, opts, 'Gemini CLI')
  for (const f of snapshot.files) {
    const pid = tempWriterPid(f.name)
    if (pid !== null) plan.temps.push({name: f.name, pid})
  }
  if (done) return plan
  const states = readStates(snapshot)
  const best = states.find((s) => s.gen.file === report.winner)
  const primaryName = report.generations.find((g) => g.role === 'primary')?.file
  const primary = states.find((s) => s.gen.file === primaryName)
  if (!best || !best.entry.data || !best.repaired) {
    plan.problem = `the bytes of the winner ${report.winner} could not be read as scanned; nothing written`
    return plan
  }
  if (best.plan && !best.plan.accepted) {
    plan.refusal = `refused: the repaired session would not be loaded by Gemini CLI (${best.plan.problems.join('; ')}); nothing written`
    return plan
  }
  const actions: PlannedAction[] = []
  const move = (s: GenState, why: string) => actions.push({type: 'move', from: s.gen.file, to: s.gen.file, sha256: s.gen.sha256, why})
  const rewrite = (target: GenState, source: GenState) => {
    const data = source.plan ? source.plan.bytes : source.entry.data!
    const hash = sha256(data)
    if (target.entry.data && sha256(target.entry.data) === hash) return
    const changes = lineChangeReports(source.plan?.changes ?? [])
    actions.push({type: 'preserve', from: target.gen.file, to: target.gen.file, sha256: target.gen.sha256})
    actions.push({type: 'rewrite', from: source.gen.file, to: target.gen.file, sha256: hash, source: {kind: 'bytes', label: source.gen.file, data}, data, changes, mtimeMs: target.entry.mtimeMs})
  }
  let kept: GenState = best
  if (best.kind === 'snapshot') {
    // A stored snapshot: its bytes, checked against its header once more, written as the session file it was taken of.
    const stored = snapshot.snapshots?.find((c) => c.name === best.gen.file)
    if (!stored?.data || stored.header.target === null || sha256(stored.data) !== stored.header.sha256) {
      plan.problem = `the bytes of ${best.gen.file} do not match its header's sha256; nothing written`
      return plan
    }
    const target = states.find((s) => s.kind === 'session' && s.gen.file === stored.header.target)
    if (target && target.entry.kind !== 'file') {
      plan.problem = `${stored.header.target} is not a regular file; nothing written`
      return plan
    }
    if (target) {
      rewrite(target, best)
      kept = target
    } else {
      const data = best.plan ? best.plan.bytes : stored.data
      actions.push({type: 'rewrite', from: best.gen.file, to: stored.header.target, sha256: sha256(data), source: {kind: 'bytes', label: best.gen.file, data}, data, changes: lineChangeReports(best.plan?.changes ?? []), mtimeMs: best.entry.mtimeMs})
    }
    if (primary && primary !== target && primary.entry.kind === 'file' && primary.gen.file !== stored.header.target) move(primary, 'behind-sibling')
  } else if (best.kind === 'session') {
    if (primary && primary !== best) move(primary, 'behind-sibling')
    rewrite(best, best)
  } else if (primary && primary.entry.kind === 'file') {
    if (best.legacy !== primary.legacy) {
      plan.problem = `the best generation ${best.gen.file} is in the other file format than ${primary.gen.file}; nothing written (copy it by hand)`
      return plan
    }
    rewrite(primary, best)
    kept = primary
  } else {
    plan.problem = `no session file to restore ${best.gen.file} over; nothing written`
    return plan
  }
  for (const s of toSetAside(states, kept)) if (!actions.some((a) => a.type === 'move' && a.from === s.gen.file)) move(s, report.generations.find((g) => g.file === s.gen.file)?.reasons.includes('sibling-orphan') ? 'sibling-orphan' : 'deleted-at-next-start')
  if (actions.length === 0) return plan
  actions.push({type: 'restore-mtime', from: null, to: '.', sha256: null, mtimeMs: snapshot.dirMtimeMs})
  plan.actions = actions
  plan.statusAfter = 'healthy'
  return plan
}
