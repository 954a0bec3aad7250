/**
 * The crash suite for `repair` and `undo`: run one through the recording seam, build every crash
 * state of its trace (`crash-sim.ts`), and for each state check the invariants, then re-run the command on the
 * real file system and check that it converges.
 *
 * Invariants per crash state (repair; undo the same with old and new swapped):
 * 1. the primary is byte-identical to the old primary (absent when it was missing) or to the new one;
 * 2. when the primary is the new one, the evidence is complete: `manifest.json` of this repair parses, records
 *    the old primary's sha256 and the restore's, the preserved bytes have that sha256, and the repair log
 *    holds the repair's entry (so `undo` finds it);
 * 3. nothing outside the chat dir's primary, chatdoctor's own entries (`.chatdoctor/`, `.chatdoctor-*.tmp`)
 *    and the repair log changed; the log is only appended to (its old bytes are a prefix of the new);
 * 4. a re-run (in process, real file system, the crashed run's lock holder dead) converges: the primary is the
 *    new one, the transcript is unchanged, a run after it plans nothing, and the re-run's log entry is
 *    readable.
 */
import {createHash} from 'node:crypto'
import {mkdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {applyChat} from '../../src/lib/pipeline/apply.js'
import {RecordingFileSystem, nodeFileSystem, type FileSystem, type Injection} from '../../src/lib/fsio/fs.js'
import {readLog} from '../../src/lib/fsio/repair-log.js'
import {planChat} from '../../src/lib/pipeline/plan.js'
import {newRepairId} from '../../src/lib/pipeline/repair-report.js'
import {scanPaths} from '../../src/lib/pipeline/scan.js'
import {undoRepair} from '../../src/lib/pipeline/undo.js'
import {crashStates, materialize, snapshotTree, type CrashModel, type CrashState, type Tree} from './crash-sim.js'
import {REAL_CHATS, cleanup, copyRealChat, tempDir} from './fixtures.js'

const P = 'run-state.json'
const T = 'chat-messages.json'
export const CRASH_REPAIR_ID = '20260830T090000Z-c4a5b1'
const NOW = new Date(Date.UTC(2026, 7, 30, 11, 0, 0))

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

/** A crash state that broke an invariant. */
export interface Violation {
  prefix: number
  model: CrashModel
  variant: string
  after: string
  problem: string
}

export interface SuiteResult {
  /** Crash states checked (distinct within each model; the sum over the models). */
  checked: number
  /** Distinct trees among them (a tree two models both produce is checked once). */
  distinct: number
  /** Crash states built before duplicates were removed. */
  generated: number
  byModel: Record<CrashModel, number>
  /** Mutating operations in the trace. */
  ops: number
  violations: Violation[]
}

export interface SuiteOptions {
  /** Damages the fresh copy of the 10-turn real chat (its dir given). */
  damage: (chatDir: string) => void
  kind: 'repair' | 'undo'
  /** Errors injected into the crashed run (e.g. EXDEV on link, to take the copy path of the evidence). */
  injections?: Injection[]
  /** Wraps the recording seam: how tests plug in a broken write path without touching production code. */
  wrap?: (fs: FileSystem) => FileSystem
  /** Stop after this many violations (the broken-variant tests need only one). */
  stopAfter?: number
}

function sandbox(damage: (d: string) => void) {
  const root = tempDir('chatdoctor-crash-')
  const home = path.join(root, 'home')
  const chatDir = copyRealChat(REAL_CHATS.tenTurns, home)
  damage(chatDir)
  // XDG_STATE_HOME exists; chatdoctor's folder in it does not yet (a first repair creates it).
  const xdg = path.join(root, 'state')
  mkdirSync(xdg)
  return {root, home, chatDir, stateDir: path.join(xdg, 'chatdoctor')}
}


const fileBytes = (tree: Tree, p: string): Buffer | null => {
  const n = tree.get(p)
  return n?.kind === 'file' ? n.data : null
}

function logEntries(bytes: Buffer | null): Array<{type: string; repairId: string}> {
  if (!bytes) return []
  const out: Array<{type: string; repairId: string}> = []
  for (const line of bytes.toString('utf8').split('\n')) {
    try {
      const v = JSON.parse(line)
      if (v && typeof v.repairId === 'string') out.push(v)
    } catch {
      // torn or garbage line
    }
  }
  return out
}

/** Runs the suite for one scenario. Never throws for a violated invariant: it is returned. */
export async function runCrashSuite(opts: SuiteOptions): Promise<SuiteResult> {
  const sb = sandbox(opts.damage)
  try {
    const primary = path.join(sb.chatDir, P)
    const transcript = readFileSync(path.join(sb.chatDir, T))
    const logPath = path.join(sb.stateDir, 'repairs.jsonl')
    const evDir = path.join(sb.chatDir, '.chatdoctor', CRASH_REPAIR_ID)
    const real = nodeFileSystem()
    const repairCtx = (fs: FileSystem, repairId: string) => ({fs, repairId, version: 'crash-test', stateDir: sb.stateDir, force: false, now: () => NOW, isAgentProcess: () => false, isHolderAlive: () => false})
    const scanOne = async () => {
      const s = await scanPaths([sb.chatDir], {home: sb.home, env: {}, stateDir: sb.stateDir})
      if (s.chats.length !== 1) throw new Error(`expected one chat, got ${s.chats.length}`)
      return s.chats[0]
    }

    // The crashed run's before/after bytes of the primary.
    let before: Buffer | null
    let after: Buffer | null
    if (opts.kind === 'repair') {
      const plan = planChat(await scanOne())
      before = fileBytes(snapshotTree(sb.root), primary)
      after = plan.actions.find((a) => a.type === 'restore')!.data!
    } else {
      before = null
      const pre = fileBytes(snapshotTree(sb.root), primary)
      const done = await applyChat(planChat(await scanOne()), repairCtx(real, CRASH_REPAIR_ID))
      if (done.outcome !== 'repaired') throw new Error(`setup repair: ${done.outcome} ${done.message}`)
      before = readFileSync(primary)
      after = pre
    }
    const start = snapshotTree(sb.root)
    const startLog = fileBytes(start, logPath) ?? Buffer.alloc(0)

    const rec = new RecordingFileSystem(real, opts.injections ?? [])
    const fs = opts.wrap ? opts.wrap(rec) : rec
    if (opts.kind === 'repair') {
      const out = await applyChat(planChat(await scanOne()), repairCtx(fs, CRASH_REPAIR_ID))
      // A broken write path may also trip the post-rename check (a new inode): its crash states are what count.
      if (out.outcome !== 'repaired' && !opts.wrap) throw new Error(`crashed run: ${out.outcome} ${out.message}`)
    } else {
      const out = await undoRepair(CRASH_REPAIR_ID, {fs, stateDir: sb.stateDir, version: 'crash-test', force: false, now: () => NOW, isHolderAlive: () => false})
      const bad = out.files.filter((f) => f.outcome !== 'restored' && f.outcome !== 'removed')
      if (bad.length > 0) throw new Error(`crashed undo: ${JSON.stringify(bad)}`)
    }

    const {states, generated} = crashStates(start, rec.trace, sb.root)
    const result: SuiteResult = {checked: 0, distinct: 0, generated, byModel: {ordered: 0, 'unsynced-lost': 0, 'unsynced-scrambled': 0}, ops: 0, violations: []}
    result.ops = rec.mutations().filter((t) => !t.error).length
    const own = path.join(sb.chatDir, '.chatdoctor')
    const mayChange = (p: string): boolean =>
      p === primary ||
      p === own ||
      (opts.kind === 'repair' ? p.startsWith(own + path.sep) : p === path.join(own, 'lock') || p.startsWith(path.join(own, 'lock.')) || p.startsWith(path.join(evDir, 'undo-'))) ||
      (path.dirname(p) === sb.chatDir && path.basename(p).startsWith('.chatdoctor-')) ||
      p === sb.stateDir ||
      p === logPath

    // First the invariants of every state (cheap, in memory), then the re-runs of those that hold them.
    const full = () => opts.stopAfter !== undefined && result.violations.length >= opts.stopAfter
    const report = (st: CrashState, problems: string[]) => {
      for (const problem of problems) result.violations.push({prefix: st.prefix, model: st.model, variant: st.variant, after: st.after, problem})
    }
    const sound: CrashState[] = []
    for (const st of states) {
      if (full()) return result
      result.checked++
      result.byModel[st.model]++
      if (st.repeat) continue
      result.distinct++
      const problems = checkState(st.tree)
      if (problems.length === 0) sound.push(st)
      else report(st, problems)
    }
    for (const st of sound) {
      if (full()) break
      report(st, await rerun(st))
    }
    return result

    function checkState(tree: Tree): string[] {
      const problems: string[] = []
      const now = fileBytes(tree, primary)
      const isBefore = before === null ? !tree.has(primary) : now !== null && now.equals(before)
      const isAfter = after === null ? !tree.has(primary) : now !== null && now.equals(after)
      if (!isBefore && !isAfter) problems.push(`primary is neither the old nor the new bytes (${now === null ? (tree.has(primary) ? 'not a file' : 'absent') : `${now.length} bytes, sha256 ${sha(now).slice(0, 12)}`})`)
      if (!isBefore && isAfter) problems.push(...evidenceProblems(tree))
      for (const [p, n] of start) {
        if (mayChange(p)) continue
        const m = tree.get(p)
        if (!m) problems.push(`${path.relative(sb.root, p)} disappeared`)
        else if (m.kind !== n.kind || (n.kind === 'file' && !(m as typeof n).data.equals(n.data))) problems.push(`${path.relative(sb.root, p)} changed`)
      }
      for (const p of tree.keys()) if (!start.has(p) && !mayChange(p)) problems.push(`${path.relative(sb.root, p)} appeared outside chatdoctor's own entries`)
      const log = fileBytes(tree, logPath)
      if (startLog.length > 0 && (log === null || !log.subarray(0, startLog.length).equals(startLog))) problems.push('the repair log lost bytes it had before the run')
      return problems
    }

    function evidenceProblems(tree: Tree): string[] {
      const problems: string[] = []
      if (opts.kind === 'undo') {
        // What undo replaced (the repaired primary) must be kept under .chatdoctor/<id>/undo-*/.
        const kept = [...tree].some(([p, n]) => p.startsWith(path.join(evDir, 'undo-')) && path.basename(p) === P && n.kind === 'file' && n.data.equals(before!))
        if (!kept) problems.push('undo replaced the primary but the bytes it replaced are not in an undo-* evidence folder')
        return problems
      }
      const mbytes = fileBytes(tree, path.join(evDir, 'manifest.json'))
      if (!mbytes) return ['primary replaced but the evidence manifest is missing']
      let manifest: {repairId: string; files: Array<{path: string; evidence: string; sha256: string}>; actions: Array<{type: string; sha256: string | null}>}
      try {
        manifest = JSON.parse(mbytes.toString('utf8'))
      } catch {
        return ['primary replaced but the evidence manifest does not parse']
      }
      if (manifest.repairId !== CRASH_REPAIR_ID) problems.push('manifest names another repair')
      if (!manifest.actions.some((a) => a.type === 'restore' && a.sha256 === sha(after!))) problems.push('manifest does not record the restore')
      if (before !== null) {
        const f = manifest.files.find((x) => x.path === P)
        if (!f || f.sha256 !== sha(before)) problems.push('manifest does not record the old primary')
        else {
          const kept = fileBytes(tree, path.join(evDir, f.evidence))
          if (!kept || !kept.equals(before)) problems.push('the preserved copy of the old primary is missing or not byte-identical')
        }
      }
      if (!logEntries(fileBytes(tree, logPath)).some((e) => e.type === 'repair' && e.repairId === CRASH_REPAIR_ID)) problems.push('primary replaced but the repair log has no entry for the repair (undo cannot find it)')
      return problems
    }

    async function rerun(st: CrashState): Promise<string[]> {
      materialize(sb.root, st.tree)
      const problems: string[] = []
      const rerunId = newRepairId(NOW)
      if (opts.kind === 'repair') {
        const plan = planChat(await scanOne())
        if (plan.actions.length > 0) {
          const out = await applyChat(plan, repairCtx(real, rerunId))
          if (out.outcome !== 'repaired') return [`re-run ${out.outcome}: ${out.message}`]
          // A re-run that only puts back the mtime an interrupted run recorded replaces nothing: nothing to undo.
          if (out.evidenceDir !== null && !readLog(sb.stateDir).some((e) => e.type === 'repair' && e.repairId === rerunId)) problems.push("the re-run's repair log entry is unreadable (undo could not find it)")
        }
      } else {
        const later = NOW // the same second as the crashed run: the undo folder name must not collide
        const out = await undoRepair(CRASH_REPAIR_ID, {fs: real, stateDir: sb.stateDir, version: 'crash-test', force: false, now: () => later, isHolderAlive: () => false})
        const bad = out.files.filter((f) => f.outcome === 'failed' || f.outcome === 'refused')
        if (!out.found) return ['re-run of undo: the repair is no longer in the log']
        if (bad.length > 0) return [`re-run of undo: ${bad.map((f) => `${f.outcome} ${f.message}`).join('; ')}`]
      }
      let now: Buffer | null = null
      try {
        now = readFileSync(primary)
      } catch {
        now = null
      }
      const converged = after === null ? now === null : now !== null && now.equals(after)
      if (!converged) problems.push(`after the re-run the primary is not the expected bytes (${now === null ? 'absent' : `${now.length} bytes`})`)
      if (!readFileSync(path.join(sb.chatDir, T)).equals(transcript)) problems.push('the transcript changed')
      if (opts.kind === 'repair') {
        if (planChat(await scanOne()).actions.length > 0) problems.push('a second re-run would still write')
      } else {
        const again = await undoRepair(CRASH_REPAIR_ID, {fs: real, stateDir: sb.stateDir, version: 'crash-test', force: false, now: () => new Date(NOW.getTime() + 2000), isHolderAlive: () => false})
        if (!again.files.every((f) => f.outcome === 'already-undone')) problems.push('a second undo would still write')
      }
      return problems
    }
  } finally {
    cleanup(sb.root)
  }
}

/** A short, readable summary of the first violations (for assertion messages). */
export function describeViolations(v: Violation[], n = 5): string {
  return v
    .slice(0, n)
    .map((x) => `after ${x.prefix} ops [${x.after}], ${x.model}/${x.variant}: ${x.problem}`)
    .join('\n')
}
