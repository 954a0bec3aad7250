/**
 * Executes a repair plan (`plan.ts`) on one chat: the only code of `repair` that writes, and only through the
 * `FileSystem` seam (`fsio/`). Per chat, in this order:
 *
 * 1. refuse a live chat: a watched file (generations, transcript) whose size or mtime differs from the scan,
 *    or a leftover temp whose pid is a running agent process (`--force` overrides, with a warning);
 * 2. take the chat's lock (`.chatdoctor/lock`; a live holder → refuse), fingerprint every watched file
 *    (`fsio/watch.ts`: inode, size, mtime, sha256 up to 4 MiB) and compare it with the scan: a file to be
 *    replaced or removed that changed is refused even with `--force` (the plan was made from its earlier bytes;
 *    the agent's newer save may be the better generation), another changed file only without `--force`;
 *    remove chatdoctor's own leftovers the plan names (logged as `cleanup`);
 * 3. evidence first: preserve every file to be replaced under `.chatdoctor/<repairId>/` (a copy for a file
 *    that may be appended to in place), check that it is the file fingerprinted, write `manifest.json`, append
 *    the repair log entry bound to the manifest's sha256, with the chat dir's times to put back (recorded
 *    before the first write to the chat's files: a re-run after a crash puts back this value, not the crash's);
 * 4. per file replaced or removed: every watched file fingerprinted again right before the rename (or unlink),
 *    which is itself guarded (`FileSystem.rename` with `expect`), and again right after it. Any change means the
 *    agent wrote during the repair: nothing more is written (not even with `--force`), the agent's file is left
 *    as it is, and the chat is refused. Right before each rename, a file to be replaced that a process holds
 *    open for writing (`live.ts`: it would keep writing to the replaced inode) is refused too, even with
 *    `--force` (one walk of `/proc` per rename: about 10 ms with 100 processes);
 * 5. append `repair-end` (which files were replaced), release the lock and put the chat dir's own mtime back
 *    (within 1 ms; not when the agent wrote during the repair: its own save moved it).
 *
 * Evidence describes what was replaced: when nothing was replaced (refused, failed, or the agent wrote first),
 * the evidence made for the chat is removed again and the outcome says nothing was written.
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
import {VerifyError, durableCopy, durableWrite, readFileChunks, sha256Hex} from '../fsio/durable-write.js'
import {OWN_DIR, evidenceDir as evidenceDirOf, preserveFile, writeManifest, type ActionRecord, type DirTime, type EvidenceFile, type Manifest} from '../fsio/evidence.js'
import {ChangedError, type FileSystem} from '../fsio/fs.js'
import {acquireLock, releaseLock, type LockInfo} from '../fsio/lock.js'
import {appendLog, readLog} from '../fsio/repair-log.js'
import {HASH_LIMIT_BYTES, Watch, fingerprintChange} from '../fsio/watch.js'
import {isAgentProcess, isHolderAlive, openWriters, ownStartMs, type OpenWriter} from './live.js'
import type {RepairOutcome} from '../model/report.js'
import {stillLeftover} from './own-state.js'
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
  /** The processes holding any of these files open for writing (default: `openWriters`, Linux `/proc`). */
  openWriters?: (files: string[]) => OpenWriter[]
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
class Refusal extends Error {
  constructor(
    message: string,
    /** True when the agent wrote during the repair (its save moved the dir mtime: it is not put back). */
    readonly agentWrote = false,
  ) {
    super(message)
  }
}
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

/**
 * How the watched files differ from the scan by size and mtime (none when they do not), in words; `checked`:
 * the file was looked at (false when it could not be, for a reason other than being gone). Read-only.
 */
async function watchedChanges(plan: ChatPlan, fs: FileSystem): Promise<Array<{name: string; what: string; checked: boolean}>> {
  const dir = plan.chat.snapshot.dir
  const out: Array<{name: string; what: string; checked: boolean}> = []
  for (const w of plan.watch) {
    try {
      const st = await fs.lstat(path.join(dir, w.name))
      if (st.size !== w.bytes) out.push({name: w.name, what: `${w.name} changed since the scan (${w.bytes} → ${st.size} bytes)`, checked: true})
      else if (st.mtimeMs !== w.mtimeMs) out.push({name: w.name, what: `${w.name} changed since the scan (new mtime)`, checked: true})
    } catch (e) {
      out.push({name: w.name, what: code(e) === 'ENOENT' ? `${w.name} disappeared since the scan` : `${w.name} cannot be checked (${code(e) || 'error'})`, checked: code(e) === 'ENOENT'})
    }
  }
  return out
}

/** Why a chat looks live right now (empty when it does not). Read-only. */
export async function liveReasons(plan: ChatPlan, ctx: Pick<ApplyContext, 'fs' | 'isAgentProcess'>): Promise<string[]> {
  const reasons = (await watchedChanges(plan, ctx.fs)).map((c) => c.what)
  const pattern = plan.chat.adapter.agentProcess
  if (pattern) {
    const isAgent = ctx.isAgentProcess ?? isAgentProcess
    for (const t of plan.temps) if (isAgent(t.pid, pattern)) reasons.push(`${t.name} belongs to pid ${t.pid}, a running ${plan.chat.adapter.name} process`)
  }
  // The agent's own live signals (lock files, a process holding its store open).
  if (plan.chat.adapter.liveReasons) reasons.push(...plan.chat.adapter.liveReasons(plan.chat.snapshot))
  return reasons
}

const LIVE_HINT = 'the agent may be running: quit it and run chatdoctor repair again (--force writes anyway)'

/**
 * The refusal when a file the repair replaces or removes changed since the scan: `--force` does not write over
 * it (the plan was made from its earlier bytes; the agent's newer save may be the better generation).
 */
function replacedChangedMessage(what: string): string {
  return `refused: ${what}: the plan was made from its earlier bytes, so nothing was written over it (not even with --force); run chatdoctor repair again`
}

/** Why a file to be replaced must not be (a process holds it open for writing); null when none does. */
export function heldOpenReason(dir: string, names: string[], find: (files: string[]) => OpenWriter[] = openWriters): string | null {
  if (names.length === 0) return null
  const w = find(names.map((n) => path.join(dir, n)))[0]
  if (!w) return null
  return `refused: ${path.relative(dir, w.file)} is held open for writing by pid ${w.pid}${w.command ? ` (${w.command})` : ''}: it would keep writing to the replaced file and those records would be lost; quit it and run chatdoctor again (--force does not override this)`
}

/** What a stopped repair had already replaced, in words (with the undo that puts it back). */
function alreadyReplaced(replaced: string[], repairId: string): string {
  return replaced.length > 0 ? `already replaced: ${replaced.join(', ')} (chatdoctor undo ${repairId} puts ${replaced.length === 1 ? 'it' : 'them'} back)` : 'nothing was replaced'
}

/**
 * The refusal when the agent wrote during the repair. `after`: the agent replaced `name` right after
 * chatdoctor had (its bytes are the file now; what chatdoctor replaced is in the evidence).
 */
function agentWroteMessage(name: string, what: string, replaced: string[], repairId: string, after = false): string {
  const others = replaced.filter((r) => !after || r !== name)
  const head = after
    ? `refused: the agent wrote ${name} right after chatdoctor replaced it (${what}); the agent's bytes are left as they are (what chatdoctor replaced is kept as evidence)`
    : `refused: the agent wrote ${name} during the repair (${what}); nothing was put over its bytes`
  return `${head}; ${others.length > 0 || !after ? alreadyReplaced(others, repairId) + '; ' : ''}let the agent finish and run chatdoctor repair again`
}

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

/** The sha256 of a file as the scan read it (null when it was not read). */
function scannedSha(plan: ChatPlan, name: string): string | null {
  const g = plan.chat.report.generations.find((x) => x.file === name)
  if (g?.sha256) return g.sha256
  const f = plan.chat.snapshot.files.find((x) => x.name === name)
  return f?.data ? sha256Hex(f.data) : null
}

/** Why the watched files are no longer what the scan read (size, mtime, sha256); null when they are. */
function sinceScan(plan: ChatPlan, watch: Watch, replaced: ReadonlySet<string>): {what: string; replaced: boolean} | null {
  let first: {what: string; replaced: boolean} | null = null
  for (const w of plan.watch) {
    const now = watch.get(w.name)
    if (now === undefined) continue
    let what: string | null = null
    if (now === null) what = `${w.name} disappeared since the scan`
    else if (now.size !== w.bytes) what = `${w.name} changed since the scan (${w.bytes} → ${now.size} bytes)`
    else if (now.mtimeMs !== w.mtimeMs) what = `${w.name} changed since the scan (new mtime)`
    else {
      const sha = now.sha256 !== null ? scannedSha(plan, w.name) : null
      if (sha !== null && sha !== now.sha256) what = `${w.name} changed since the scan (new bytes)`
    }
    if (what === null) continue
    // A change to a file the repair replaces wins over any other: it is refused even with --force.
    if (replaced.has(w.name)) return {what, replaced: true}
    first ??= {what, replaced: false}
  }
  return first
}

/** The user files a plan replaces or removes, with the action's index. */
function replacingActions(plan: ChatPlan): Array<{i: number; name: string}> {
  const out: Array<{i: number; name: string}> = []
  for (const [i, a] of plan.actions.entries()) {
    if (a.type === 'move' && a.from !== null) out.push({i, name: a.from})
    else if ((a.type === 'restore' || a.type === 'rewrite') && (a.data || a.copyFrom || a.stream)) out.push({i, name: a.to})
  }
  return out
}

/** A leftover name the plan may remove: chatdoctor's own temp, or a folder directly in `.chatdoctor/`. */
const LEFTOVER_NAME = /^(?:\.chatdoctor-(?:undo-)?\d{8}T\d{6}Z-[0-9a-f]{6}-[^/]+\.tmp|\.chatdoctor\/\d{8}T\d{6}Z-[0-9a-f]{6}(?:\/[^/]+)?)$/

/** Removes a file, or a folder and everything in it (never following a link); returns the bytes removed. */
export async function removeTree(fs: FileSystem, p: string): Promise<number> {
  const st = await fs.lstat(p)
  if (st.kind !== 'directory') {
    await fs.unlink(p)
    return st.kind === 'file' ? st.size : 0
  }
  let bytes = 0
  for (const n of await fs.readdir(p)) bytes += await removeTree(fs, path.join(p, n))
  await fs.rmdir(p)
  return bytes
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
  // A chat left for a step by hand (an entry to replace that is not a regular file) is never written.
  if (plan.blocked) return out('refused', plan.manual ?? `refused: ${plan.blocked.name} is not a regular file`)
  if (plan.actions.length === 0) return out('repaired', null)
  const replacing = replacingActions(plan)
  const targets = replacing.map((r) => r.name)
  const findWriters = ctx.openWriters ?? openWriters

  // 1. Live? A file the repair replaces that changed since the scan is refused first, --force or not: the
  // hint to a live agent offers --force, which would refuse again on it.
  const stale = (await watchedChanges(plan, fs)).find((c) => c.checked && targets.includes(c.name))
  if (stale) return out('refused', replacedChangedMessage(stale.what))
  const blocker = plan.chat.adapter.writeBlockers?.(plan.chat.snapshot)[0]
  if (blocker) return out('refused', `refused: ${blocker} (--force does not override this)`)
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
  const planned = plan.actions.find((a) => a.type === 'restore-mtime')
  const dirMtimeMs = planned?.mtimeMs ?? dirSt.mtimeMs
  let logged = false
  let createdOwn = false
  let lockFile: string | null = null
  let lockIno: number | undefined
  let evidenceTaken = false
  let agentWrote = false
  const replaced: string[] = []
  /** What this run made in the evidence folder: files, then folders (deepest last). */
  const madeFiles: string[] = []
  const madeDirs: string[] = []
  const removed: Array<{path: string; bytes: number}> = []
  let stage = ''
  let result: ChatOutcome | undefined
  try {
    // 2. Lock, fingerprint.
    stage = `taking the chat's lock in ${OWN_DIR}`
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
    lockIno = lock.ino
    stage = "checking the chat's files"
    if (lock.tookOverFrom) warnings.push(`took over a stale lock of pid ${lock.tookOverFrom.pid} (${lock.tookOverFrom.purpose || 'unknown'}), which is no longer running`)
    const watch = await Watch.capture(fs, dir, [...plan.watch.map((w) => w.name), ...targets])
    // A file the repair replaces or removes must hold the very bytes the plan was made from, --force or not:
    // the agent's newer save may be the better generation. Other watched files changed: --force writes, and says so.
    // Checked before liveness again, so that a refusal offers --force only where --force would write.
    const off = sinceScan(plan, watch, new Set(targets))
    if (off?.replaced) throw new Refusal(replacedChangedMessage(off.what))
    const blockedNow = plan.chat.adapter.writeBlockers?.(plan.chat.snapshot)[0]
    if (blockedNow) throw new Refusal(`refused: ${blockedNow} (--force does not override this)`)
    if (!ctx.force) {
      const again = await liveReasons(plan, ctx)
      if (again.length > 0) throw new Refusal(`refused: ${again[0]}; ${LIVE_HINT}`)
    }
    if (off && !ctx.force) throw new Refusal(`refused: ${off.what}; ${LIVE_HINT}`)
    if (off) warnings.push(`--force: writing although ${off.what}`)
    /** Fingerprints every watched file again (and who holds a target open); refuses on any change. */
    const verify = async (after: string | null = null, writers = true) => {
      const c = await watch.changed()
      if (c) throw new Refusal(agentWroteMessage(c.name, c.what, replaced, ctx.repairId, c.name === after), true)
      if (after === null) {
        const b = plan.chat.adapter.writeBlockers?.(plan.chat.snapshot)[0]
        if (b) throw new Refusal(`refused: ${b} (--force does not override this)`)
      }
      const h = writers ? heldOpenReason(dir, targets.filter((t) => !replaced.includes(t)), findWriters) : null
      if (h) throw new Refusal(h)
    }

    // chatdoctor's own leftovers of interrupted runs, checked again under the lock (another chatdoctor may
    // have finished the repair whose evidence folder looked partial at the scan).
    const cleanups = plan.actions.filter((a) => a.type === 'remove-leftover' && LEFTOVER_NAME.test(a.to))
    const log = cleanups.length > 0 ? readLog(ctx.stateDir) : []
    for (const a of cleanups) {
      if (!stillLeftover(dir, a.to, log)) continue
      try {
        removed.push({path: a.to, bytes: await removeTree(fs, path.join(dir, a.to))})
      } catch (e) {
        if (code(e) !== 'ENOENT') warnings.push(`chatdoctor's leftover ${a.to} could not be removed (${code(e) || 'error'})`)
      }
    }
    stage = "removing chatdoctor's leftovers"
    if (removed.length > 0) {
      await fs.fsyncDir(dir)
      await appendLog(fs, ctx.stateDir, {type: 'cleanup', repairId: ctx.repairId, time: now().toISOString(), chatdoctorVersion: ctx.version, chatDir: dir, removed})
    }

    const dirTimes: DirTime[] = []
    if (replacing.length > 0) {
      // 3. Evidence first.
      if (plan.evidenceSub !== undefined) {
        try {
          await fs.mkdir(path.dirname(evDir))
          madeDirs.push(path.dirname(evDir))
        } catch (e) {
          if (code(e) !== 'EEXIST') throw e
        }
      }
      stage = `keeping evidence in ${OWN_DIR}`
      await fs.mkdir(evDir)
      madeDirs.push(evDir)
      evidenceTaken = true
      const files: EvidenceFile[] = []
      const records: ActionRecord[] = []
      const report = plan.chat.report
      for (const [i, a] of plan.actions.entries()) {
        if ((a.type !== 'preserve' && a.type !== 'move') || a.from === null) continue
        const cls = report.generations.find((g) => g.file === a.from)?.class ?? null
        const dest = path.join(evDir, a.to)
        if (a.type === 'move') {
          for (let d = path.dirname(dest), missing: string[] = []; ; d = path.dirname(d)) {
            try {
              await fs.lstat(d)
              for (const m of missing) {
                await fs.mkdir(m)
                madeDirs.push(m)
              }
              break
            } catch (e) {
              if (code(e) !== 'ENOENT') throw e
              missing.unshift(d)
            }
          }
          const parent = path.dirname(path.join(dir, a.from))
          if (!dirTimes.some((d) => d.path === path.relative(dir, parent))) {
            const st = await fs.lstat(parent)
            dirTimes.push({path: path.relative(dir, parent), atimeMs: st.atimeMs, mtimeMs: st.mtimeMs})
          }
        }
        const ef = await preserveFile(fs, dir, a.from, evDir, a.to, cls, {copy: a.copy})
        madeFiles.push(dest)
        // The evidence must be the very file fingerprinted: else the agent wrote in between.
        const seen = watch.get(a.from)
        if (seen !== undefined) {
          const kept = await fs.lstat(dest)
          let what: string | null
          if (seen === null) what = 'appeared'
          else if (ef.method === 'link') what = fingerprintChange(seen, {ino: kept.ino, size: kept.size, mtimeMs: kept.mtimeMs, sha256: ef.sha256})
          else what = kept.size !== seen.size ? `${seen.size} → ${kept.size} bytes` : seen.sha256 !== null && seen.sha256 !== ef.sha256 ? 'new bytes' : null
          if (what) throw new Refusal(agentWroteMessage(a.from, what, replaced, ctx.repairId), true)
        }
        if (a.sha256 !== null && ef.sha256 !== a.sha256) {
          if (targets.includes(a.from)) throw new Refusal(replacedChangedMessage(`${a.from} changed since the scan (new bytes)`))
          if (!ctx.force) throw new Refusal(`refused: ${a.from} changed since the scan (new bytes); ${LIVE_HINT}`)
          warnings.push(`--force: writing although ${a.from} changed since the scan (new bytes)`)
        }
        files.push(ef)
        evidence[i] = dest
        records.push({type: a.type, from: a.from, to: a.to, sha256: ef.sha256})
      }
      await verify(null, false)
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
        dirMtimeMs,
        dirAtimeMs: dirSt.atimeMs,
        files,
        actions: records,
        ...(dirTimes.length > 0 ? {dirTimes} : {}),
      }
      madeFiles.push(path.join(evDir, 'manifest.json'))
      const manifestSha256 = await writeManifest(fs, evDir, manifest)
      await fs.fsyncDir(own)
      if (createdOwn) await fs.fsyncDir(dir)
      stage = 'recording the repair in the repair log'
      await appendLog(fs, ctx.stateDir, {type: 'repair', repairId: ctx.repairId, time: manifest.time, chatdoctorVersion: ctx.version, chatDir: dir, evidenceDir: evDir, actions: records, manifestSha256, dirMtimeMs, dirAtimeMs: dirSt.atimeMs})
      logged = true

      // 4. The durable write of the planned bytes (and the moves out of the tree), each guarded.
      for (const a of plan.actions) {
        if (a.type === 'move' && a.from !== null) {
          await verify()
          const target = path.join(dir, a.from)
          try {
            await fs.unlink(target, watch.expected(a.from))
          } catch (e) {
            if (e instanceof ChangedError) throw new Refusal(agentWroteMessage(a.from, e.what, replaced, ctx.repairId), true)
            throw new WriteFailure(describeWriteError(e, `moving ${a.from} out of the tree`))
          }
          replaced.push(a.from)
          watch.set(a.from, null)
          try {
            await fs.fsyncDir(path.dirname(target))
          } catch (e) {
            throw new WriteFailure(describeWriteError(e, `moving ${a.from} out of the tree`))
          }
          await verify(null, false)
          continue
        }
        if ((a.type !== 'restore' && a.type !== 'rewrite') || (!a.data && !a.copyFrom && !a.stream)) continue
        const prev = files.find((f) => f.path === a.to)
        const target = path.join(dir, a.to)
        const mode = prev?.mode ?? 0o644
        const size = a.data ? a.data.length : a.stream ? a.stream.size : a.copyFrom!.bytes
        let written
        try {
          const how = {tag: ctx.repairId, mode, expect: watch.expected(a.to), beforeRename: () => verify(), onRenamed: () => void replaced.push(a.to)}
          // A file too large to hold is copied from disk in chunks, and must still hash as scanned.
          written = a.data || a.stream ? await durableWrite(fs, target, (a.data ?? a.stream)!, how) : await durableCopy(fs, target, path.join(dir, a.copyFrom!.name), {...how, sha256: a.sha256!, bytes: size, readChunks: readFileChunks})
          if (a.type === 'rewrite' && a.mtimeMs !== undefined) await fs.utimes(target, prev?.atimeMs ?? a.mtimeMs, a.mtimeMs)
        } catch (e) {
          if (e instanceof Refusal) throw e
          if (e instanceof ChangedError) throw new Refusal(agentWroteMessage(a.to, e.what, replaced, ctx.repairId, replaced.includes(a.to)), true)
          throw new WriteFailure(describeWriteError(e, `writing ${a.to}`))
        }
        const st = await fs.lstat(target).catch(() => null)
        const mine = {ino: written.ino, size, mtimeMs: st?.mtimeMs ?? written.mtimeMs, sha256: size <= HASH_LIMIT_BYTES ? written.sha256 : null}
        const what = fingerprintChange(mine, st === null ? null : {ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, sha256: null})
        if (what) throw new Refusal(agentWroteMessage(a.to, what, replaced, ctx.repairId, true), true)
        watch.set(a.to, mine)
        await verify(a.to, false)
      }
      for (const d of dirTimes) {
        try {
          await fs.utimes(path.join(dir, d.path), d.atimeMs, d.mtimeMs)
        } catch (e) {
          warnings.push(`the mtime of ${d.path} could not be put back (${code(e) || 'error'})`)
        }
      }
    }
    result = out('repaired', null, replacing.length > 0 ? evDir : null)
  } catch (e) {
    const what = replaced.length > 0 ? '' : '; nothing was written'
    if (e instanceof Refusal) {
      agentWrote = e.agentWrote
      result = out('refused', e.message, replaced.length > 0 ? evDir : null)
    } else result = out('failed', `${e instanceof WriteFailure ? e.message : describeWriteError(e, stage)}${replaced.length > 0 ? `; ${alreadyReplaced(replaced, ctx.repairId)}` : what}`, replaced.length > 0 ? evDir : null)
  }

  // 5. Tidy, unlock, put the chat dir's mtime back, and record how it ended: when something was replaced,
  // the end is recorded after the mtime (until then the repair is interrupted, and a re-run puts back the
  // recorded mtime); when nothing was, before its evidence is removed (evidence of nothing is no evidence).
  const recordEnd = async () => {
    if (!logged && result.outcome !== 'repaired') return
    const time = now().toISOString()
    try {
      if (logged) await appendLog(fs, ctx.stateDir, {type: 'repair-end', repairId: ctx.repairId, time, chatDir: dir, evidenceDir: evDir, outcome: result.outcome, replaced: [...replaced]})
      if (result.outcome === 'repaired') {
        for (const id of plan.settles ?? []) {
          // Under the evidence folder its log entry names (a chat of a shared folder has its own subfolder).
          const i = plan.chat.own?.interrupted.find((x) => x.repairId === id)
          await appendLog(fs, ctx.stateDir, {type: 'repair-end', repairId: id, time, chatDir: dir, evidenceDir: i?.evidenceDir ?? evidenceDirOf(dir, id), outcome: 'settled', replaced: null})
        }
      }
    } catch (e) {
      warnings.push(`the end of the repair could not be recorded in the repair log (${code(e) || 'error'}); the next repair of this chat puts its folder's mtime back`)
    }
  }
  if (replaced.length === 0) {
    await recordEnd()
    for (const f of madeFiles) await fs.unlink(f).catch(() => undefined)
    for (const d of [...madeDirs].reverse()) await fs.rmdir(d).catch(() => undefined)
    for (const [i] of evidence.entries()) evidence[i] = null
  }
  if (lockFile) await releaseLock(fs, lockFile, lockIno)
  if (createdOwn && (replaced.length === 0 || !evidenceTaken)) await fs.rmdir(own).catch(() => undefined)
  const target = result.outcome === 'repaired' ? dirMtimeMs : dirSt.mtimeMs
  if (!agentWrote && (createdOwn || evidenceTaken || replaced.length > 0 || removed.length > 0 || (result.outcome === 'repaired' && planned !== undefined))) {
    try {
      await fs.utimes(dir, dirSt.atimeMs, target)
      const after = await fs.lstat(dir)
      if (Math.abs(after.mtimeMs - target) >= 1) warnings.push(`the chat dir's mtime could not be put back within 1 ms (off by ${Math.abs(after.mtimeMs - target).toFixed(3)} ms)`)
    } catch (e) {
      warnings.push(`the chat dir's mtime could not be put back (${code(e) || 'error'}); the agent's --continue may pick another chat`)
    }
  }
  if (replaced.length > 0) await recordEnd()
  return result
}
