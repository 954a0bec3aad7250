/**
 * The concurrent-writer suite for `repair` and `undo`: the agent writes while chatdoctor works. A run is recorded
 * once through the write seam to count its file operations (reads too); then, for every k from 0 to that count,
 * a fresh copy of the chat is repaired (or undone) again with the agent's write injected right before the k-th
 * operation (or after the run, when the run has fewer):
 *
 * - `save`: a new complete generation of the file, written the way Codebuff writes (its own temp
 *   `<file>.<pid>.<uuid>.tmp`, then a rename over the file);
 * - `append`: one record appended to the log (open, append, close: Claude Code's appendFileSync);
 * - `append-held`: the log opened for appending at k and held open to the end of the run, one record appended
 *   at k and one after the run (Codex keeps its rollout open for the whole session).
 *
 * Invariants in every interleaving:
 * 1. the agent's new bytes survive as the file it wrote: a saved generation is the file, byte for byte; an
 *    appended record ends the log, and what precedes it is the log before or after the tool's write, whole;
 * 2. the evidence describes exactly what the tool replaced: for every rename over a user file (and every unlink
 *    of one) that succeeded, the bytes the file held right before it are in the evidence (repair: the
 *    manifest lists them with their sha256 and the repair log's `repair-end` names the file; undo: they are in
 *    an `undo-*` folder), and a repair that replaced nothing leaves no evidence folder;
 * 3. no own temp is left and the lock is released.
 */
import {createHash} from 'node:crypto'
import {closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync, writeSync, appendFileSync} from 'node:fs'
import path from 'node:path'
import {applyChat} from '../../src/lib/pipeline/apply.js'
import {RecordingFileSystem, nodeFileSystem} from '../../src/lib/fsio/fs.js'
import {readLog} from '../../src/lib/fsio/repair-log.js'
import {planChat} from '../../src/lib/pipeline/plan.js'
import {scanPaths} from '../../src/lib/pipeline/scan.js'
import {undoRepair} from '../../src/lib/pipeline/undo.js'
import {cleanup, tempDir} from './fixtures.js'

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
const REPAIR_ID = '20260901T100000Z-0c0c0c'
const UNDO_NOW = new Date(Date.UTC(2026, 8, 1, 11, 0, 0))

/** How the agent writes. */
export type AgentWrite = 'save' | 'append' | 'append-held'

export interface ConcurrentScenario {
  name: string
  kind: 'repair' | 'undo'
  agent: AgentWrite
  /** Builds the damaged chat under `home`; returns what to scan, the folder holding the chat's files and the file the agent writes (relative to it). */
  build(home: string): {scan: string; dir: string; file: string}
  /** The agent's new bytes (given the chat's folder): a complete generation (`save`) or one record with its newline (`append`). */
  agentBytes(dir: string): Buffer
}

export interface ConcurrentResult {
  /** Interleavings run (one per operation boundary of the recorded run, plus one after it). */
  interleavings: number
  /** File operations of the undisturbed run. */
  ops: number
  /** Outcomes over the interleavings (`repaired`, `refused`, …; undo: `restored`, `refused`, …). */
  outcomes: Record<string, number>
  /** How many interleavings had the tool replace a user file (the agent's write came after, or elsewhere). */
  replacedRuns: number
  /** How many interleavings broke an invariant (0 is the requirement). */
  broken: number
  violations: string[]
}

function sandbox(sc: ConcurrentScenario) {
  const root = tempDir('chatdoctor-concurrent-')
  const home = path.join(root, 'home')
  mkdirSync(home)
  mkdirSync(path.join(root, 'state'))
  const built = sc.build(home)
  return {root, home, stateDir: path.join(root, 'state', 'chatdoctor'), ...built}
}

/** Every file below `dir` (absolute paths). */
function filesBelow(dir: string): string[] {
  if (!existsSync(dir)) return []
  const out: string[] = []
  for (const n of readdirSync(dir)) {
    const p = path.join(dir, n)
    if (statSync(p).isDirectory()) out.push(...filesBelow(p))
    else out.push(p)
  }
  return out
}

/** True for a path of the user's (not chatdoctor's own folder, temp or lock). */
function isUserPath(p: string, root: string): boolean {
  if (!p.startsWith(root + path.sep)) return false
  const parts = path.relative(root, p).split(path.sep)
  return !parts.includes('.chatdoctor') && !parts.at(-1)!.startsWith('.chatdoctor-') && !parts.includes('state')
}

async function scanOne(sb: ReturnType<typeof sandbox>) {
  const s = await scanPaths([sb.scan], {home: sb.home, env: {}, stateDir: sb.stateDir})
  if (s.chats.length !== 1) throw new Error(`expected one chat, got ${s.chats.length}`)
  return s.chats[0]
}

const ctxFor = (sb: ReturnType<typeof sandbox>, fs = nodeFileSystem()) => ({fs, repairId: REPAIR_ID, version: 'concurrent-test', stateDir: sb.stateDir, force: false, isAgentProcess: () => false, isHolderAlive: () => false, now: () => UNDO_NOW})

/** One run with the agent's write before operation `k` (null: an undisturbed run); returns its operation count and any violations. */
async function runOnce(sc: ConcurrentScenario, k: number | null): Promise<{ops: number; outcome: string; replaced: boolean; violations: string[]}> {
  const sb = sandbox(sc)
  const fail: string[] = []
  let heldFd: number | null = null
  try {
    const target = path.join(sb.dir, sb.file)
    if (sc.kind === 'undo') {
      const done = await applyChat(planChat(await scanOne(sb)), ctxFor(sb))
      if (done.outcome !== 'repaired') throw new Error(`setup repair: ${done.outcome} ${done.message}`)
    }
    const plan = sc.kind === 'repair' ? planChat(await scanOne(sb)) : null
    const agent = sc.agentBytes(sb.dir)
    let fired = false
    let appended: Buffer | null = null
    let base: Buffer | null = null
    const write = () => {
      fired = true
      if (sc.agent === 'save') {
        const tmp = `${target}.${process.pid}.0c6f2d4e-9b1a-4e37-8d52-1f0e9a7b3c21.tmp`
        writeFileSync(tmp, agent)
        renameSync(tmp, target)
      } else {
        base = readFileSync(target)
        if (sc.agent === 'append') appendFileSync(target, agent)
        else {
          heldFd = openSync(target, 'a')
          writeSync(heldFd, agent)
        }
        appended = agent
      }
    }
    /** What each successful replacement replaced: the user path and its bytes right before. */
    const replacedBytes = new Map<number, {p: string; bytes: Buffer | null}>()
    let n = 0
    const rec = new RecordingFileSystem(nodeFileSystem(), [], (op, args) => {
      if (k !== null && n === k) write()
      n++
      const p = op === 'rename' ? String(args[1]) : op === 'unlink' ? String(args[0]) : null
      if (p !== null && isUserPath(p, sb.root)) replacedBytes.set(rec.trace.length - 1, {p, bytes: existsSync(p) ? readFileSync(p) : null})
    })
    let outcome: string
    if (sc.kind === 'repair') {
      const out = await applyChat(plan!, ctxFor(sb, rec))
      outcome = out.outcome
    } else {
      const out = await undoRepair(REPAIR_ID, {fs: rec, stateDir: sb.stateDir, version: 'concurrent-test', force: false, now: () => UNDO_NOW, isHolderAlive: () => false})
      outcome = out.refusal ? 'refused' : out.files.map((f) => f.outcome).join('+') || 'nothing'
    }
    if (k !== null && !fired) write()
    if (heldFd !== null) {
      writeSync(heldFd, agent)
      closeSync(heldFd)
      heldFd = null
      appended = Buffer.concat([agent, agent])
    }
    if (k === null) return {ops: n, outcome, replaced: false, violations: []}
    const where = (s: string) => `${sc.name}, agent write before op ${k} [${rec.trace[k] ? `${rec.trace[k].op} ${path.relative(sb.root, String(rec.trace[k].args[0]))}` : 'after the run'}] (${outcome}): ${s}`

    // 1. The agent's bytes survive.
    const now = readFileSync(target)
    if (sc.agent === 'save') {
      if (!now.equals(agent)) fail.push(where(`${sb.file} is not the agent's saved generation (${now.length} bytes, sha256 ${sha(now).slice(0, 12)})`))
    } else {
      const tail = appended!
      const head = now.subarray(0, now.length - tail.length)
      // What precedes the records is exactly what the log was when the agent opened it (before or after the tool's write).
      if (!now.subarray(now.length - tail.length).equals(tail) || !head.equals(base!)) fail.push(where(`${sb.file} lost the agent's appended record(s) (${now.length} bytes)`))
    }

    // 2. The evidence describes exactly what was replaced.
    const replaced = [...replacedBytes].filter(([i]) => !rec.trace[i].error).map(([, v]) => v)
    const ev = path.join(sb.dir, '.chatdoctor', REPAIR_ID)
    if (sc.kind === 'repair') {
      const manifests = filesBelow(ev).filter((f) => path.basename(f) === 'manifest.json')
      if (replaced.length === 0) {
        if (existsSync(ev)) fail.push(where('nothing was replaced but an evidence folder is left'))
      } else {
        const end = readLog(sb.stateDir).filter((e) => e.type === 'repair-end' && e.repairId === REPAIR_ID).at(-1)
        for (const r of replaced) {
          const rel = path.relative(sb.dir, r.p)
          const m = manifests.map((f) => ({f, v: JSON.parse(readFileSync(f, 'utf8')) as {files: Array<{path: string; evidence: string; sha256: string}>}})).find((x) => x.v.files.some((g) => g.path === rel))
          const entry = m?.v.files.find((g) => g.path === rel)
          if (r.bytes === null) continue // created: nothing to keep
          if (!entry || entry.sha256 !== sha(r.bytes)) fail.push(where(`${rel} was replaced but the manifest does not record the bytes it replaced`))
          else if (!readFileSync(path.join(path.dirname(m!.f), entry.evidence)).equals(r.bytes)) fail.push(where(`the evidence of ${rel} is not the bytes replaced`))
          if (!end || end.type !== 'repair-end' || !end.replaced?.includes(rel)) fail.push(where(`the repair log's repair-end does not name ${rel}`))
        }
      }
    } else {
      for (const r of replaced) {
        if (r.bytes === null) continue
        const rel = path.relative(sb.dir, r.p)
        const kept = filesBelow(ev).filter((f) => path.relative(ev, f).split(path.sep).some((seg) => seg.startsWith('undo-')) && f.endsWith(path.sep + rel))
        if (!kept.some((f) => readFileSync(f).equals(r.bytes!))) fail.push(where(`undo replaced ${rel} but the bytes it replaced are not in an undo-* evidence folder`))
      }
    }

    // 3. Nothing of the run is left behind.
    if (readdirSync(sb.dir).some((x) => x.startsWith('.chatdoctor-'))) fail.push(where('an own temp is left'))
    if (existsSync(path.join(sb.dir, '.chatdoctor', 'lock'))) fail.push(where('the lock is left'))
    return {ops: n, outcome, replaced: replaced.length > 0, violations: fail}
  } finally {
    if (heldFd !== null) closeSync(heldFd)
    cleanup(sb.root)
  }

}

/** Runs every interleaving of one scenario. */
export async function runConcurrentSuite(sc: ConcurrentScenario): Promise<ConcurrentResult> {
  const probe = await runOnce(sc, null)
  const result: ConcurrentResult = {interleavings: 0, ops: probe.ops, outcomes: {}, replacedRuns: 0, broken: 0, violations: []}
  for (let k = 0; k <= probe.ops; k++) {
    const r = await runOnce(sc, k)
    result.interleavings++
    result.outcomes[r.outcome] = (result.outcomes[r.outcome] ?? 0) + 1
    if (r.replaced) result.replacedRuns++
    if (r.violations.length > 0) result.broken++
    result.violations.push(...r.violations)
  }
  return result
}
