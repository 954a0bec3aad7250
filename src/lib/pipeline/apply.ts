/**
 * Executes a repair plan (`plan.ts`) on one chat: the only code of `repair` that writes, and only through the
 * `FileSystem` seam (`fsio/`). Per chat, in this order:
 *
 * 1. refuse a live chat: a watched file (generations, transcript) whose size or mtime differs from the scan,
 *    or a leftover temp whose pid is a running agent process (`--force` overrides, with a warning);
 * 2. take the chat's lock (`.chatdoctor/lock`; a live holder → refuse), check liveness again;
 * 3. evidence first: preserve every file to be replaced under `.chatdoctor/<repairId>/`, write `manifest.json`,
 *    append the repair log;
 * 4. durable write of the exact planned bytes over the primary (temp, fsync, rename, fsync dir, verify);
 * 5. release the lock and put the chat dir's own mtime back (within 1 ms).
 *
 * Session formats add two actions. `rewrite` (a JSONL session log's repaired bytes) is written like a `restore`,
 * after one more size/mtime check of the log right before the write, and the log's own mtime is put back.
 * `move` (a damaged file of OpenCode's JSON tree) is, in step 3, a hard link (or fsynced copy) into the
 * evidence folder, verified by sha256; in step 4, after the same last check, an unlink of the original and an
 * fsync of its folder: the file is never in neither place. The mtimes of the folders that lost a file are put
 * back and recorded in the manifest (`dirTimes`), so undo can put them back too. Chats that share a folder
 * (`plan.evidenceSub`) get their own subfolder of the evidence folder.
 *
 * A refused chat is left exactly as it was (a `.chatdoctor/` folder made for the lock is removed again).
 * Errors never escape: they become a `failed` outcome with a one-line message.
 */
import path from 'node:path'
import {VerifyError, durableWrite} from '../fsio/durable-write.js'
import {OWN_DIR, evidenceDir as evidenceDirOf, preserveFile, writeManifest, type ActionRecord, type DirTime, type EvidenceFile, type Manifest} from '../fsio/evidence.js'
import type {FileSystem} from '../fsio/fs.js'
import {acquireLock, releaseLock, type LockInfo} from '../fsio/lock.js'
import {appendLog} from '../fsio/repair-log.js'
import {isAgentProcess, isHolderAlive, ownStartMs} from './live.js'
import type {RepairOutcome} from '../model/report.js'
import type {ChatPlan} from './plan.js'

/** What `applyChat` needs besides the plan. */
export interface ApplyContext {
  fs: FileSystem
  repairId: string
  /** chatdoctor's version, for the manifest and the log. */
  version: string
  /** Where the repair log lives (`stateDir()`). */
  stateDir: string
  /** Write even though the chat looks live. */
  force: boolean
  now?: () => Date
  /** Whether a pid is a running agent process (default: `/proc/<pid>/cmdline` matches the adapter's pattern). */
  isAgentProcess?: (pid: number, pattern: RegExp) => boolean
  /** Whether a lock's holder still runs (default: pid running with the same start time). */
  isHolderAlive?: (holder: LockInfo) => boolean
}

/** What happened to one chat. */
export interface ChatOutcome {
  outcome: Extract<RepairOutcome, 'repaired' | 'refused' | 'failed'>
  /** One line: why refused or failed, with what to do next. */
  message: string | null
  /** Absolute evidence folder, when evidence was taken. */
  evidenceDir: string | null
  /** Per planned action (same order): the absolute path of the evidence it left, or null. */
  evidence: Array<string | null>
  warnings: string[]
}

/** A refusal raised inside `applyChat`. */
class Refusal extends Error {}
/** A write that failed, already described in plain words. */
class WriteFailure extends Error {}

function code(e: unknown): string {
  return (e as NodeJS.ErrnoException)?.code ?? ''
}

/** A one-line description of a write error, in plain words. */
export function describeWriteError(e: unknown, what: string): string {
  const c = code(e)
  if (e instanceof VerifyError) return e.message
  if (c === 'EACCES' || c === 'EPERM') return `permission denied ${what} (${c}); run as the user who owns the chat`
  if (c === 'EROFS') return `the file system is read-only ${what} (EROFS); copy the chat somewhere writable and repair the copy`
  if (c === 'ENOSPC') return `no space left on the device ${what} (ENOSPC)`
  return `${(e as Error)?.message ?? String(e)} ${what}`.trim()
}

/** Why a chat looks live right now (empty when it does not). Read-only. */
export async function liveReasons(plan: ChatPlan, ctx: Pick<ApplyContext, 'fs' | 'isAgentProcess'>): Promise<string[]> {
  const dir = plan.chat.snapshot.dir
  const reasons: string[] = []
  for (const w of plan.watch) {
    try {
      const st = await ctx.fs.lstat(path.join(dir, w.name))
      if (st.size !== w.bytes) reasons.push(`${w.name} changed since the scan (${w.bytes} → ${st.size} bytes)`)
      else if (st.mtimeMs !== w.mtimeMs) reasons.push(`${w.name} changed since the scan (new mtime)`)
    } catch (e) {
      reasons.push(code(e) === 'ENOENT' ? `${w.name} disappeared since the scan` : `${w.name} cannot be checked (${code(e) || 'error'})`)
    }
  }
  const pattern = plan.chat.adapter.agentProcess
  if (pattern) {
    const isAgent = ctx.isAgentProcess ?? isAgentProcess
    for (const t of plan.temps) if (isAgent(t.pid, pattern)) reasons.push(`${t.name} belongs to pid ${t.pid}, a running ${plan.chat.adapter.name} process`)
  }
  return reasons
}

const LIVE_HINT = 'the agent may be running: quit it and run chatdoctor repair again (--force writes anyway)'

function kindWord(kind: string): string {
  return kind === 'symlink' ? 'a symbolic link' : kind === 'directory' ? 'a folder' : 'not a regular file'
}

/**
 * Why writing this chat would go through or replace something that is not ours to replace (null when it
 * would not): a file to be written that is a symbolic link or not a regular file (a rename would silently
 * replace the link, and its target would not be repaired), or a `.chatdoctor` entry that is not a real folder
 * (the lock and the evidence would be written wherever it points). `--force` does not override this. Read-only.
 */
export async function unsafeTargetReason(fs: FileSystem, dir: string, targets: string[]): Promise<string | null> {
  for (const name of targets) {
    try {
      const st = await fs.lstat(path.join(dir, name))
      if (st.kind !== 'file') return `refused: ${name} is ${kindWord(st.kind)}; chatdoctor never replaces or writes through it (replace it by hand, or remove it and run chatdoctor repair again)`
    } catch (e) {
      if (code(e) !== 'ENOENT') return `refused: ${name} cannot be checked (${code(e) || 'error'})`
    }
  }
  try {
    const st = await fs.lstat(path.join(dir, OWN_DIR))
    if (st.kind !== 'directory') return `refused: ${OWN_DIR} in the chat dir is ${kindWord(st.kind)}, not chatdoctor's folder; chatdoctor never writes through it (move it away and run again)`
  } catch (e) {
    if (code(e) !== 'ENOENT') return `refused: ${OWN_DIR} cannot be checked (${code(e) || 'error'})`
  }
  return null
}

/** A name usable as one folder name (an id from a report): path separators and leading dots replaced. */
export function evidenceSubName(id: string): string {
  const safe = id.replace(/[/\\\0]/g, '_').replace(/^\.+/, '_')
  return safe === '' ? '_' : safe
}

/** Why a file no longer is what the evidence recorded (size, mtime); null when it still is. */
async function changedSince(fs: FileSystem, dir: string, name: string, kept: EvidenceFile): Promise<string | null> {
  try {
    const st = await fs.lstat(path.join(dir, name))
    if (st.size !== kept.size) return `${name} changed since the scan (${kept.size} → ${st.size} bytes)`
    if (st.mtimeMs !== kept.mtimeMs) return `${name} changed since the scan (new mtime)`
    return null
  } catch (e) {
    return code(e) === 'ENOENT' ? `${name} disappeared since the scan` : `${name} cannot be checked (${code(e) || 'error'})`
  }
}

/** Executes one chat's plan. Never throws. A plan without actions is `repaired` with nothing done. */
export async function applyChat(plan: ChatPlan, ctx: ApplyContext): Promise<ChatOutcome> {
  const {fs} = ctx
  const dir = plan.chat.snapshot.dir
  const own = path.join(dir, OWN_DIR)
  const evDir = plan.evidenceSub !== undefined ? path.join(evidenceDirOf(dir, ctx.repairId), evidenceSubName(plan.evidenceSub)) : evidenceDirOf(dir, ctx.repairId)
  const warnings: string[] = []
  const evidence: Array<string | null> = plan.actions.map(() => null)
  const now = ctx.now ?? (() => new Date())
  const out = (outcome: ChatOutcome['outcome'], message: string | null, evidenceDir: string | null = null): ChatOutcome => ({outcome, message, evidenceDir, evidence, warnings})
  if (plan.actions.length === 0) return out('repaired', null)

  // 1. Live?
  const live = await liveReasons(plan, ctx)
  if (live.length > 0) {
    if (!ctx.force) return out('refused', `refused: ${live[0]}; ${LIVE_HINT}`)
    warnings.push(`--force: writing although ${live.join('; ')}`)
  }

  const unsafe = await unsafeTargetReason(fs, dir, plan.actions.filter((a) => a.type === 'restore' || a.type === 'rewrite').map((a) => a.to))
  if (unsafe) return out('refused', unsafe)

  let dirSt
  try {
    dirSt = await fs.lstat(dir)
  } catch (e) {
    return out('failed', describeWriteError(e, `reading ${dir}`))
  }
  let createdOwn = false
  let lockFile: string | null = null
  let evidenceTaken = false
  let replaced = 0
  let result: ChatOutcome | undefined
  try {
    // 2. Lock.
    try {
      await fs.mkdir(own)
      createdOwn = true
    } catch (e) {
      if (code(e) !== 'EEXIST') throw e
    }
    const me: LockInfo = {pid: process.pid, startedAtMs: ownStartMs(), purpose: `repair ${ctx.repairId}`, time: now().toISOString()}
    const lock = await acquireLock(fs, dir, me, ctx.isHolderAlive ?? ((h) => isHolderAlive(h.pid, h.startedAtMs)))
    if (!lock.ok) throw new Refusal(`refused: another chatdoctor (pid ${lock.holder.pid}, ${lock.holder.purpose || 'unknown'}) is writing this chat; let it finish and run chatdoctor repair again`)
    lockFile = lock.path
    if (lock.tookOverFrom) warnings.push(`took over a stale lock of pid ${lock.tookOverFrom.pid} (${lock.tookOverFrom.purpose || 'unknown'}), which is no longer running`)
    if (!ctx.force) {
      const again = await liveReasons(plan, ctx)
      if (again.length > 0) throw new Refusal(`refused: ${again[0]}; ${LIVE_HINT}`)
    }

    // 3. Evidence first.
    if (plan.evidenceSub !== undefined) await fs.mkdir(path.dirname(evDir), {recursive: true})
    await fs.mkdir(evDir)
    evidenceTaken = true
    const files: EvidenceFile[] = []
    const records: ActionRecord[] = []
    const dirTimes: DirTime[] = []
    const report = plan.chat.report
    for (const [i, a] of plan.actions.entries()) {
      if ((a.type !== 'preserve' && a.type !== 'move') || a.from === null) continue
      const cls = report.generations.find((g) => g.file === a.from)?.class ?? null
      if (a.type === 'move') {
        await fs.mkdir(path.dirname(path.join(evDir, a.to)), {recursive: true})
        const parent = path.dirname(path.join(dir, a.from))
        if (!dirTimes.some((d) => d.path === path.relative(dir, parent))) {
          const st = await fs.lstat(parent)
          dirTimes.push({path: path.relative(dir, parent), atimeMs: st.atimeMs, mtimeMs: st.mtimeMs})
        }
      }
      const ef = await preserveFile(fs, dir, a.from, evDir, a.to, cls)
      if (a.sha256 !== null && ef.sha256 !== a.sha256 && !ctx.force) throw new Refusal(`refused: ${a.from} changed since the scan (new bytes); ${LIVE_HINT}`)
      files.push(ef)
      evidence[i] = path.join(evDir, a.to)
      records.push({type: a.type, from: a.from, to: a.to, sha256: ef.sha256})
    }
    for (const [i, a] of plan.actions.entries()) {
      if (a.type === 'restore' || a.type === 'rewrite') {
        const prev = files.find((f) => f.path === a.to)
        records.push({type: a.type, from: a.from, to: a.to, sha256: a.sha256, previousSha256: prev?.sha256 ?? null})
        evidence[i] = prev ? path.join(evDir, prev.evidence) : null
      } else if (a.type === 'restore-mtime') records.push({type: a.type, from: a.from, to: a.to, sha256: null, mtimeMs: a.mtimeMs})
    }
    const manifest: Manifest = {
      manifestVersion: 1,
      chatdoctorVersion: ctx.version,
      repairId: ctx.repairId,
      time: now().toISOString(),
      chatDir: dir,
      format: plan.chat.report.format,
      dirMtimeMs: plan.chat.snapshot.dirMtimeMs,
      files,
      actions: records,
      ...(dirTimes.length > 0 ? {dirTimes} : {}),
    }
    await writeManifest(fs, evDir, manifest)
    await fs.fsyncDir(own)
    if (createdOwn) await fs.fsyncDir(dir)
    await appendLog(fs, ctx.stateDir, {type: 'repair', repairId: ctx.repairId, time: manifest.time, chatdoctorVersion: ctx.version, chatDir: dir, evidenceDir: evDir, actions: records})

    // 4. The durable write of the planned bytes (and the moves out of the tree).
    for (const a of plan.actions) {
      if (a.type === 'move' && a.from !== null) {
        const kept = files.find((f) => f.path === a.from)!
        if (!ctx.force) {
          const again = await changedSince(fs, dir, a.from, kept)
          if (again) throw new Refusal(`refused: ${again}; ${LIVE_HINT}`)
        }
        try {
          await fs.unlink(path.join(dir, a.from))
          await fs.fsyncDir(path.dirname(path.join(dir, a.from)))
        } catch (e) {
          throw new WriteFailure(describeWriteError(e, `moving ${a.from} out of the tree`))
        }
        replaced++
        continue
      }
      if ((a.type !== 'restore' && a.type !== 'rewrite') || !a.data) continue
      const prev = files.find((f) => f.path === a.to)
      if (a.type === 'rewrite' && prev && !ctx.force) {
        const again = await changedSince(fs, dir, a.to, prev)
        if (again) throw new Refusal(`refused: ${again}; ${LIVE_HINT}`)
      }
      const mode = prev?.mode ?? 0o644
      try {
        await durableWrite(fs, path.join(dir, a.to), a.data, {tag: ctx.repairId, mode})
        if (a.type === 'rewrite' && a.mtimeMs !== undefined) await fs.utimes(path.join(dir, a.to), prev?.atimeMs ?? a.mtimeMs, a.mtimeMs)
      } catch (e) {
        throw new WriteFailure(describeWriteError(e, `writing ${a.to}`))
      }
      replaced++
    }
    for (const d of dirTimes) {
      try {
        await fs.utimes(path.join(dir, d.path), d.atimeMs, d.mtimeMs)
      } catch (e) {
        warnings.push(`the mtime of ${d.path} could not be put back (${code(e) || 'error'})`)
      }
    }
    result = out('repaired', null, evDir)
  } catch (e) {
    const what = replaced > 0 ? '' : evidenceTaken ? '; nothing was replaced (evidence kept)' : '; nothing was written'
    if (e instanceof Refusal) result = out('refused', e.message, evidenceTaken ? evDir : null)
    else result = out('failed', `${e instanceof WriteFailure ? e.message : describeWriteError(e, 'keeping evidence in ' + OWN_DIR)}${what}`, evidenceTaken ? evDir : null)
  }

  // 5. Unlock, tidy, and put the chat dir's mtime back.
  if (lockFile) await releaseLock(fs, lockFile)
  if (createdOwn && !evidenceTaken) await fs.rmdir(own).catch(() => undefined)
  const planned = plan.actions.find((a) => a.type === 'restore-mtime')
  const target = result.outcome === 'repaired' && planned?.mtimeMs !== undefined ? planned.mtimeMs : dirSt.mtimeMs
  if (createdOwn || evidenceTaken || replaced > 0) {
    try {
      await fs.utimes(dir, dirSt.atimeMs, target)
      const after = await fs.lstat(dir)
      if (Math.abs(after.mtimeMs - target) >= 1) warnings.push(`the chat dir's mtime could not be put back within 1 ms (off by ${Math.abs(after.mtimeMs - target).toFixed(3)} ms)`)
    } catch (e) {
      warnings.push(`the chat dir's mtime could not be put back (${code(e) || 'error'}); the agent's --continue may pick another chat`)
    }
  }
  return result
}

