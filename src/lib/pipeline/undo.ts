/**
 * `undo <repairId>`: puts the files a repair replaced back to their exact pre-repair bytes (and mtimes), from
 * the evidence folder the repair left. Found through the repair log (`fsio/repair-log.ts`).
 *
 * Nothing read back from disk is trusted. Before anything is written, for every chat of the repair: the log
 * entry's chat dir is an absolute real folder (no symbolic link on the way) and its evidence folder is
 * `<chat dir>/.chatdoctor/<repairId>[/<sub>]`; the manifest's bytes have the sha256 the log entry (outside the
 * chat dir) recorded, and it parses as a whole manifest for this repair and chat dir; every path in it is a
 * plain relative name that resolves inside the chat dir (evidence: inside the evidence folder) through real
 * folders only; every mode is permission bits only (no setuid, setgid or sticky); the manifest's actions and
 * file list agree exactly with the actions the log entry recorded (`disagreement`). A file a later repair of
 * the chat (not undone since) replaced holds that repair's result: refused, naming it, unless `force`. Any
 * failure refuses the whole undo with one line, and nothing is written.
 *
 * A repair the log records no end of (killed) is undone for what it had replaced. When it replaced nothing
 * (its files are as before it, or a later repair found them so), no file of the chat is written: under the
 * chat's lock its temps and its evidence of nothing are removed, the chat dir's mtime it recorded is put back,
 * and the log gets its `repair-end` (`interrupted`, nothing replaced) and the `cleanup`.
 *
 * Per chat: only the files the repair's `repair-end` says it replaced (all it planned when the repair never
 * ended). Each file's current sha256 is compared with what the repair wrote. Changed since (the agent ran again)
 * → refuse the whole chat unless `force`. A file some process holds open for writing is refused. Then: the
 * chat's lock; the chat dir's times recorded in the log (`undo-start`, or the ones an interrupted undo of the
 * same chat recorded); the current bytes preserved under `.chatdoctor/<repairId>/undo-<stamp>/`; the
 * pre-repair bytes written durably with a guarded rename right after every watched file is checked again (or,
 * where the repair created the file, a guarded unlink), and checked once more right after. A file that is
 * already as before the repair is left alone: a second undo writes nothing and says so (`alreadyUndone`).
 *
 * A `rewrite` is undone like a `restore` (its mtime too). A `move` (a file the repair moved out of
 * OpenCode's tree) is undone by writing the evidence copy's bytes back at its place, durably, with its mode and
 * times; the folders that lost a file get their recorded mtimes back (`dirTimes`). Chats that share a folder
 * are undone one evidence folder at a time.
 */
import {realpathSync} from 'node:fs'
import path from 'node:path'
import {describeWriteError, heldOpenReason, removeTree} from './apply.js'
import {stillLeftover} from './own-state.js'
import {CHUNKED_BYTES, durableCopy, durableWrite, ownTempName, readFileChunks, sha256Hex} from '../fsio/durable-write.js'
import {MANIFEST, OWN_DIR, parseManifest, preserveFile, type ActionRecord, type EvidenceFile, type Manifest} from '../fsio/evidence.js'
import {ChangedError, type FileSystem} from '../fsio/fs.js'
import {notPlain, resolveInside} from '../fsio/inside.js'
import {acquireLock, releaseLock, type LockInfo} from '../fsio/lock.js'
import {REPAIR_ID, appendLog, readLog, repairEnd, type LogEntry} from '../fsio/repair-log.js'
import {Watch, fingerprint, fingerprintChange, type Fingerprint} from '../fsio/watch.js'
import {isHolderAlive, openWriters, ownStartMs, type OpenWriter} from './live.js'

export interface UndoContext {
  fs: FileSystem
  stateDir: string
  version: string
  force: boolean
  now?: () => Date
  isHolderAlive?: (holder: LockInfo) => boolean
  /** The processes holding any of these files open for writing (default: `openWriters`, Linux `/proc`). */
  openWriters?: (files: string[]) => OpenWriter[]
  /**
   * Evidence copies larger than this many bytes are streamed back (read, hashed and written a chunk at a time,
   * `durableCopy`) and the current file's copy into the undo's evidence is hashed a chunk at a time, instead of
   * either being read whole; default `CHUNKED_BYTES` (the command takes a positive integer
   * `CHATDOCTOR_CHUNKED_BYTES` from the environment).
   */
  chunkedBytes?: number
}

/** What undo did with one file. */
export interface UndoFile {
  /** Absolute chat dir. */
  chat: string
  file: string
  /** `restored` (pre-repair bytes back), `removed` (the repair had created it), `already-undone`, `refused`, `failed`. */
  outcome: 'restored' | 'removed' | 'already-undone' | 'refused' | 'failed'
  /** sha256 of the file now (null when absent). */
  sha256: string | null
  message: string | null
}

export interface UndoResult {
  /** False when the log knows no repair with this id. */
  found: boolean
  files: UndoFile[]
  warnings: string[]
  /** Why the whole undo was refused before anything was written (an untrusted log entry or manifest); null otherwise. */
  refusal: string | null
  /** True when nothing needed undoing: every file already as before the repair, or the repair replaced nothing. Nothing was written. */
  alreadyUndone: boolean
  /** Chat dirs where the repair replaced nothing (it was refused or failed there, or killed before its first rename). */
  nothingReplaced: string[]
  /** chatdoctor's own leftovers of the repair (and of an earlier undo of it) this undo removed: absolute chat dir, name in it, bytes. */
  cleaned: Array<{chat: string; path: string; bytes: number}>
}

type RepairEntry = Extract<LogEntry, {type: 'repair'}>

/** One file to put back, resolved and checked. */
interface Target {
  rel: string
  abs: string
  /** sha256 of what the repair left there (null: it removed the file, a `move`). */
  wrote: string | null
  /** The pre-repair file as the manifest records it, with its evidence resolved (absent: the repair created it). */
  before?: EvidenceFile & {evidenceAbs: string}
}

/** A chat of the repair whose log entry and manifest passed every check. */
interface TrustedChat {
  chatDir: string
  evDir: string
  manifest: Manifest
  targets: Target[]
  dirTimes: Array<{abs: string; atimeMs: number; mtimeMs: number}>
  /** Every file the repair planned to write (relative names), whether or not it got to: where its temps were. */
  written: string[]
  /** True when the log does not record which files the repair replaced (it was killed, or only settled by a later repair). */
  unknownEnd: boolean
  /** The chat dir's times the repair recorded before its first write, when it never ended and no later repair of the chat ran (null otherwise). */
  recordedTimes: {dirMtimeMs: number; dirAtimeMs: number} | null
}

/** The action types a repair records (`apply.ts`). */
const RECORDED = new Set(['preserve', 'move', 'restore', 'rewrite', 'restore-mtime'])

/** One recorded action as a comparable string (its kind, paths, hashes and mtime). */
function actionKey(a: ActionRecord): string {
  return JSON.stringify([a.type, a.from, a.to, a.sha256, a.previousSha256 ?? null, a.mtimeMs ?? null])
}

/**
 * Where a manifest and the actions its repair-log entry recorded disagree (null when they agree exactly): the
 * same actions (kinds, paths, hashes), and exactly one preserved file per `preserve` or `move` (its path, its
 * evidence name and its sha256 those of the action) and no other; a `restore` or `rewrite` replaced the
 * preserved file of its target with the recorded `previousSha256`, or (null) created a file nothing was
 * preserved of. The log lives outside the chat dir: a manifest whose file list says other than its actions
 * (a path moved, an evidence name swapped, a file dropped) is not undone.
 */
function disagreement(logged: unknown, manifest: Manifest): string | null {
  if (!Array.isArray(logged)) return 'the log entry records no actions'
  if (logged.length !== manifest.actions.length) return `the log records ${logged.length} action(s), the manifest ${manifest.actions.length}`
  for (const [i, a] of manifest.actions.entries()) {
    const l = logged[i] as ActionRecord
    if (typeof l !== 'object' || l === null || actionKey(l) !== actionKey(a)) {
      const log = typeof l === 'object' && l !== null ? `${String(l.type)} of ${JSON.stringify(l.to)}` : 'nothing'
      return `action ${i + 1} differs (manifest: ${a.type} of ${JSON.stringify(a.to)}; log: ${log}; kinds, paths and hashes must match)`
    }
    if (!RECORDED.has(a.type)) return `action ${i + 1} is of an unknown kind (${JSON.stringify(a.type)})`
  }
  const claimed = new Set<EvidenceFile>()
  for (const a of manifest.actions) {
    if (a.type === 'preserve' || a.type === 'move') {
      const f = manifest.files.filter((x) => x.path === a.from)
      if (f.length !== 1 || f[0].evidence !== a.to || f[0].sha256 !== a.sha256) return `the ${a.type} of ${JSON.stringify(a.from)} has ${f.length === 0 ? 'no preserved file' : f.length > 1 ? 'several preserved files' : 'a preserved file of another evidence name or sha256'}`
      claimed.add(f[0])
    } else if (a.type === 'restore' || a.type === 'rewrite') {
      if (a.previousSha256 === undefined) return `the ${a.type} of ${JSON.stringify(a.to)} records no sha256 of the file it replaced`
      const f = manifest.files.filter((x) => x.path === a.to)
      if (a.previousSha256 === null ? f.length !== 0 : f.length !== 1 || f[0].sha256 !== a.previousSha256) return `the ${a.type} of ${JSON.stringify(a.to)} replaced ${a.previousSha256 === null ? 'no file' : `a file of sha256 ${a.previousSha256.slice(0, 12)}…`}, but the manifest ${f.length === 0 ? 'preserved none' : 'preserved another'}`
    }
  }
  const extra = manifest.files.find((f) => !claimed.has(f))
  if (extra) return `the preserved file ${JSON.stringify(extra.path)} belongs to no recorded action`
  return null
}

/** Checks a repair's log entry and its manifest; returns what undo may use, or why not (one line). */
async function trust(fs: FileSystem, e: RepairEntry, repairId: string, replaced: string[] | null): Promise<TrustedChat | {why: string}> {
  const chatDir = e.chatDir
  if (typeof chatDir !== 'string' || !path.isAbsolute(chatDir) || path.normalize(chatDir) !== chatDir || chatDir.includes('\0')) return {why: `the repair log names a chat dir that is not a plain absolute path (${JSON.stringify(chatDir)})`}
  let real: string
  try {
    real = realpathSync(chatDir)
  } catch (err) {
    return {why: `the chat dir ${chatDir} cannot be resolved (${(err as NodeJS.ErrnoException).code ?? 'error'})`}
  }
  if (real !== chatDir) return {why: `the chat dir ${chatDir} goes through a symbolic link (it resolves to ${real})`}
  const base = path.join(chatDir, OWN_DIR, repairId)
  const sub = typeof e.evidenceDir === 'string' && path.dirname(e.evidenceDir) === base ? path.basename(e.evidenceDir) : null
  if (e.evidenceDir !== base && (sub === null || notPlain(sub) !== null)) return {why: `the repair log names an evidence folder outside ${path.join(OWN_DIR, repairId)} (${JSON.stringify(e.evidenceDir)})`}
  const ev = await resolveInside(fs, chatDir, path.relative(chatDir, e.evidenceDir), 'directory')
  if ('why' in ev) return {why: `the evidence folder: ${ev.why}`}
  const evDir = ev.path
  if (typeof e.manifestSha256 !== 'string') return {why: `its repair-log entry records no sha256 of the manifest (made by an older chatdoctor), so the manifest cannot be trusted`}
  const mf = await resolveInside(fs, evDir, MANIFEST, 'file')
  if ('why' in mf) return {why: `the manifest: ${mf.why}`}
  let bytes: Buffer
  try {
    bytes = await fs.readFile(mf.path)
  } catch (err) {
    return {why: `the manifest cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`}
  }
  if (sha256Hex(bytes) !== e.manifestSha256) return {why: `${path.relative(chatDir, mf.path)} does not match its repair-log entry (sha256 ${sha256Hex(bytes).slice(0, 12)}…, recorded ${e.manifestSha256.slice(0, 12)}…): it was changed after the repair`}
  let manifest: Manifest
  try {
    manifest = parseManifest(bytes)
  } catch (err) {
    return {why: (err as Error).message}
  }
  if (manifest.repairId !== repairId || manifest.chatDir !== chatDir) return {why: `${MANIFEST} belongs to another repair or chat (${manifest.repairId}, ${manifest.chatDir})`}
  const own = (rel: string) => rel.split('/')[0] === OWN_DIR
  for (const f of manifest.files) {
    const bad = notPlain(f.path) ?? (own(f.path) ? `is inside ${OWN_DIR}` : null)
    if (bad) return {why: `${MANIFEST}: file ${JSON.stringify(f.path)} ${bad}`}
    if ((f.mode & ~0o777) !== 0 || f.mode < 0) return {why: `${MANIFEST}: ${f.path} has mode 0o${f.mode.toString(8)}; a recorded mode is permission bits only (no setuid, setgid or sticky bit)`}
  }
  const targets: Target[] = []
  for (const a of manifest.actions) {
    if (a.type !== 'restore' && a.type !== 'rewrite' && a.type !== 'move') continue
    const rel = a.type === 'move' ? a.from : a.to
    const bad = notPlain(rel) ?? (own(rel as string) ? `is inside ${OWN_DIR}` : null)
    if (bad) return {why: `${MANIFEST}: ${a.type} of ${JSON.stringify(rel)} ${bad}`}
    const at = await resolveInside(fs, chatDir, rel as string, 'file-or-absent')
    if ('why' in at) return {why: `${MANIFEST}: ${at.why}`}
    if (replaced !== null && !replaced.includes(rel as string)) continue
    const t: Target = {rel: rel as string, abs: at.path, wrote: a.type === 'move' ? null : a.sha256}
    const f = manifest.files.find((x) => x.path === rel)
    if (f) {
      const kept = await resolveInside(fs, evDir, f.evidence, 'file')
      if ('why' in kept) return {why: `${MANIFEST}: the evidence of ${f.path}: ${kept.why}`}
      t.before = {...f, mode: f.mode & 0o777, evidenceAbs: kept.path}
    } else if (a.type === 'move') return {why: `${MANIFEST}: the move of ${rel} has no evidence file`}
    targets.push(t)
  }
  const missing = (replaced ?? []).find((r) => !targets.some((t) => t.rel === r))
  if (missing !== undefined) return {why: `the repair log says ${JSON.stringify(missing)} was replaced, but ${MANIFEST} holds no action for it`}
  const dirTimes: TrustedChat['dirTimes'] = []
  for (const d of manifest.dirTimes ?? []) {
    const at = d.path === '' || d.path === '.' ? {path: chatDir} : await resolveInside(fs, chatDir, d.path, 'directory')
    if ('why' in at) return {why: `${MANIFEST}: dirTimes ${at.why}`}
    dirTimes.push({abs: at.path, atimeMs: d.atimeMs, mtimeMs: d.mtimeMs})
  }
  // Last, so a path or mode the rules above refuse is named as such.
  const disagree = disagreement(e.actions, manifest)
  if (disagree) return {why: `${MANIFEST} and its repair-log entry disagree: ${disagree}`}
  const written: string[] = []
  for (const a of manifest.actions) if (a.type === 'restore' || a.type === 'rewrite') written.push(a.to)
  return {chatDir, evDir, manifest, targets, dirTimes, written, unknownEnd: false, recordedTimes: null}
}

/**
 * The first later repair of the same chat dir (after the log entry at `from`, not undone since) that replaced
 * (or may have: it never recorded its end) the file `rel`, with the sha256 it recorded of what it replaced
 * (null: there was no file). Null when none did.
 */
function laterReplacer(log: LogEntry[], from: number, own: RepairEntry, rel: string): {repairId: string; previous: string | null} | null {
  for (let i = from + 1; i < log.length; i++) {
    const e = log[i]
    if (e.type !== 'repair' || e.chatDir !== own.chatDir || e.repairId === own.repairId || !Array.isArray(e.actions)) continue
    const a = e.actions.find((x) => ((x.type === 'restore' || x.type === 'rewrite') && x.to === rel) || (x.type === 'move' && x.from === rel))
    if (!a) continue
    const end = repairEnd(log, e.repairId, e.chatDir, e.evidenceDir)
    if (end?.replaced && !end.replaced.includes(rel)) continue
    if (log.slice(i + 1).some((x) => x.type === 'undo' && x.repairId === e.repairId && x.chatDir === e.chatDir)) continue
    return {repairId: e.repairId, previous: a.type === 'move' ? a.sha256 : (a.previousSha256 ?? null)}
  }
  return null
}

/** Undoes one repair (every chat it wrote). Never throws for file errors: they become `failed` files. */
export async function undoRepair(repairId: string, ctx: UndoContext): Promise<UndoResult> {
  const log = readLog(ctx.stateDir)
  const entries = REPAIR_ID.test(repairId) ? log.filter((e): e is RepairEntry => e.type === 'repair' && e.repairId === repairId) : []
  const result: UndoResult = {found: entries.length > 0, files: [], warnings: [], refusal: null, alreadyUndone: false, nothingReplaced: [], cleaned: []}
  const chats: TrustedChat[] = []
  const seen = new Set<string>()
  for (const entry of entries) {
    if (seen.has(entry.evidenceDir)) continue
    seen.add(entry.evidenceDir)
    const end = repairEnd(log, repairId, entry.chatDir, entry.evidenceDir)
    if (end?.replaced && end.replaced.length === 0) {
      result.nothingReplaced.push(entry.chatDir)
      continue
    }
    const t = await trust(ctx.fs, entry, repairId, end?.replaced ?? null)
    if ('why' in t) {
      result.refusal = `undo ${repairId} refused: ${t.why}; nothing written`
      return result
    }
    t.unknownEnd = end?.replaced == null
    // Its recorded times, while no later repair of the chat has put them back (or moved on from them).
    const laterRun = log.slice(log.indexOf(entry) + 1).some((x) => x.chatDir === entry.chatDir && x.repairId !== repairId && (x.type === 'repair' || x.type === 'repair-end' || x.type === 'cleanup'))
    if (end === undefined && !laterRun) {
      const m = typeof entry.dirMtimeMs === 'number' ? entry.dirMtimeMs : t.manifest.dirMtimeMs
      t.recordedTimes = {dirMtimeMs: m, dirAtimeMs: typeof entry.dirAtimeMs === 'number' ? entry.dirAtimeMs : (t.manifest.dirAtimeMs ?? m)}
    }
    // Undo reverts only what is on disk because of this repair: a file a later repair replaced since holds that
    // repair's result (even when the bytes are the same), so it is that repair's to undo first.
    for (const target of [...t.targets]) {
      const later = laterReplacer(log, log.indexOf(entry), entry, target.rel)
      if (later === null) continue
      const before = target.before?.sha256 ?? null
      if (t.unknownEnd && later.previous === before && before !== target.wrote) {
        // The later repair found the file as it was before this one: this repair never replaced it.
        t.targets.splice(t.targets.indexOf(target), 1)
        continue
      }
      if (!ctx.force) {
        result.refusal = `undo ${repairId} refused: ${target.rel} in ${t.chatDir} was replaced since by repair ${later.repairId}; run chatdoctor undo ${later.repairId} first (--force undoes ${repairId} anyway, keeping the current bytes as evidence); nothing written`
        return result
      }
      result.warnings.push(`--force: ${target.rel} in ${t.chatDir} was replaced since by repair ${later.repairId}; undoing ${repairId} anyway (its current bytes are kept as evidence)`)
    }
    chats.push(t)
  }
  let wrote = false
  for (const c of chats) {
    const r = await undoChat(c, repairId, ctx, result.warnings, log)
    wrote ||= r.wrote
    result.files.push(...r.files)
    result.cleaned.push(...(r.cleaned ?? []).map((l) => ({chat: c.chatDir, ...l})))
    if (r.nothing) result.nothingReplaced.push(c.chatDir)
  }
  result.alreadyUndone = !wrote && result.files.every((f) => f.outcome === 'already-undone')
  return result
}

/** The names of this repair's (and its undo's) temps next to the files it planned to write, that are regular files now. */
async function ownTemps(fs: FileSystem, c: TrustedChat, repairId: string): Promise<Array<{path: string; bytes: number}>> {
  const out: Array<{path: string; bytes: number}> = []
  for (const rel of c.written) {
    for (const tag of [repairId, `undo-${repairId}`]) {
      const name = path.posix.join(path.posix.dirname(rel), ownTempName(rel, tag))
      const at = await resolveInside(fs, c.chatDir, name, 'file-or-absent')
      if ('why' in at) continue
      const st = await fs.lstat(at.path).catch(() => null)
      if (st?.kind === 'file' && !out.some((o) => o.path === name)) out.push({path: name, bytes: st.size})
    }
  }
  return out
}

/** The times an undo of this chat recorded before its first write and never finished (an interrupted undo). */
function pendingUndo(log: LogEntry[], repairId: string, chatDir: string, evDir: string): {dirMtimeMs: number; dirAtimeMs: number} | null {
  let pending: {dirMtimeMs: number; dirAtimeMs: number} | null = null
  for (const e of log) {
    if (e.repairId !== repairId || e.chatDir !== chatDir) continue
    if (e.type === 'undo-start' && e.evidenceDir === evDir && pending === null) pending = {dirMtimeMs: e.dirMtimeMs, dirAtimeMs: e.dirAtimeMs}
    if (e.type === 'undo') pending = null
  }
  return pending
}

/** What undo did in one chat: its files; whether it wrote any; chatdoctor's leftovers it removed; `nothing` when the repair had replaced nothing there. */
interface ChatUndo {
  files: UndoFile[]
  wrote: boolean
  cleaned?: Array<{path: string; bytes: number}>
  nothing?: boolean
}

async function undoChat(c: TrustedChat, repairId: string, ctx: UndoContext, warnings: string[], log: LogEntry[]): Promise<ChatUndo> {
  const {fs} = ctx
  const {chatDir, evDir} = c
  const now = ctx.now ?? (() => new Date())
  const files: UndoFile[] = []
  const fail = (message: string, file = '.') => ({files: [...files, {chat: chatDir, file, outcome: 'failed' as const, sha256: null, message}], wrote: false})
  const refuse = (message: string, list: Target[] = c.targets) => ({files: [...files, ...list.map((t) => ({chat: chatDir, file: t.rel, outcome: 'refused' as const, sha256: null, message}))], wrote: false})

  // Read-only first: what each file is now.
  const plan: Array<Target & {seen: Fingerprint; cur: string | null}> = []
  for (const t of [...c.targets].reverse()) {
    let seen: Fingerprint
    let cur: string | null
    try {
      const st = await fs.lstat(t.abs).catch((e) => {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
        throw e
      })
      if (st && st.kind !== 'file') return refuse(`${t.rel} is ${st.kind === 'symlink' ? 'a symbolic link' : 'not a regular file'}; chatdoctor never replaces or writes through it`, [t])
      seen = await fingerprint(fs, t.abs, Infinity)
      cur = seen?.sha256 ?? null
    } catch (e) {
      return fail(`cannot read ${t.rel}: ${describeWriteError(e, '')}`.trim(), t.rel)
    }
    if (cur === (t.before?.sha256 ?? null)) {
      files.push({chat: chatDir, file: t.rel, outcome: 'already-undone', sha256: cur, message: null})
      continue
    }
    if (cur !== t.wrote && !ctx.force) {
      return {files: [...files, {chat: chatDir, file: t.rel, outcome: 'refused', sha256: cur, message: `${t.rel} changed since repair ${repairId} wrote it (the agent ran again?); chatdoctor undo ${repairId} --force keeps the current bytes as evidence and restores anyway`}], wrote: false}
    }
    if (cur !== t.wrote) warnings.push(`--force: ${t.rel} in ${chatDir} changed since the repair; its current bytes are kept as evidence`)
    plan.push({...t, seen, cur})
  }
  const pending = pendingUndo(log, repairId, chatDir, evDir)
  const temps = await ownTemps(fs, c, repairId).catch(() => [])
  // Killed before it replaced anything here (or a later repair found the files as before it, and undid nothing
  // of it): nothing to undo; only its own leftovers to remove and, when it never ended, its recorded mtime.
  const nothing = c.unknownEnd && plan.length === 0 && pending === null && !log.some((e) => e.type === 'undo' && e.repairId === repairId && e.chatDir === chatDir)
  if (plan.length === 0 && pending === null && !nothing && temps.length === 0) return {files, wrote: false}
  const held = heldOpenReason(chatDir, plan.map((p) => p.rel), ctx.openWriters ?? openWriters)
  if (held) return refuse(held.replace(/^refused: /, '').replace('run chatdoctor again', `run chatdoctor undo ${repairId} again`), plan)

  let dirSt
  try {
    dirSt = await fs.lstat(chatDir)
  } catch (e) {
    return fail(describeWriteError(e, `reading ${chatDir}`))
  }
  const me: LockInfo = {pid: process.pid, startedAtMs: ownStartMs(), purpose: `undo ${repairId}`, time: now().toISOString()}
  let lockFile: string | null = null
  let lockIno: number | undefined
  let wrote = false
  /** True once something was written and until the chat dir's times are back. */
  let timesOwed = false
  let agentWrote = false
  const times = pending ?? c.recordedTimes ?? {dirMtimeMs: dirSt.mtimeMs, dirAtimeMs: dirSt.atimeMs}
  const removed: Array<{path: string; bytes: number}> = []
  /** Removes one of chatdoctor's own leftovers of this repair (under the lock). */
  const removeOwn = async (rel: string) => {
    try {
      removed.push({path: rel, bytes: await removeTree(fs, path.join(chatDir, rel))})
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`chatdoctor's leftover ${rel} in ${chatDir} could not be removed (${(e as NodeJS.ErrnoException).code ?? 'error'})`)
    }
  }
  const logCleanup = async () => {
    if (removed.length === 0) return
    await fs.fsyncDir(chatDir)
    await appendLog(fs, ctx.stateDir, {type: 'cleanup', repairId, time: now().toISOString(), chatdoctorVersion: ctx.version, chatDir, removed})
  }
  try {
    await fs.mkdir(path.join(chatDir, OWN_DIR), {recursive: true})
    const lock = await acquireLock(fs, chatDir, me, ctx.isHolderAlive ?? ((h) => isHolderAlive(h.pid, h.startedAtMs)))
    if (!lock.ok) return refuse(`another chatdoctor (pid ${lock.holder.pid}, ${lock.holder.purpose}) is writing this chat; let it finish and run undo again`, plan)
    lockFile = lock.path
    lockIno = lock.ino
    if (lock.tookOverFrom) warnings.push(`took over a stale lock of pid ${lock.tookOverFrom.pid} in ${chatDir}`)
    const watch = await Watch.capture(fs, chatDir, plan.map((p) => p.rel))
    for (const p of plan) {
      if (fingerprintChange(p.seen, watch.get(p.rel) ?? null) !== null) return refuse(`${p.rel} changed while undo ${repairId} was checking it (the agent is writing?); nothing was written; run chatdoctor undo ${repairId} again when the agent is done`, plan)
    }
    // The repair's temps (full copies of what it was writing when it was killed), checked again under the lock.
    for (const t of await ownTemps(fs, c, repairId)) await removeOwn(t.path)
    if (nothing) {
      // Recorded first: from here its evidence (of nothing replaced) is a leftover, removed next.
      await appendLog(fs, ctx.stateDir, {type: 'repair-end', repairId, time: now().toISOString(), chatDir, evidenceDir: evDir, outcome: 'interrupted', replaced: []})
      const evRel = path.relative(chatDir, evDir)
      if (stillLeftover(chatDir, evRel, readLog(ctx.stateDir))) await removeOwn(evRel)
      await logCleanup()
      await releaseLock(fs, lockFile, lockIno)
      lockFile = null
      if (path.dirname(evDir) !== path.join(chatDir, OWN_DIR)) await fs.rmdir(path.dirname(evDir)).catch(() => undefined)
      await fs.rmdir(path.join(chatDir, OWN_DIR)).catch(() => undefined)
      await fs.utimes(chatDir, times.dirAtimeMs, times.dirMtimeMs)
      return {files: [], wrote: false, cleaned: removed, nothing: true}
    }
    await logCleanup()
    if (plan.length === 0 && pending === null) {
      // Only leftovers were left: the files are as before the repair.
      await releaseLock(fs, lockFile, lockIno)
      lockFile = null
      await fs.utimes(chatDir, times.dirAtimeMs, times.dirMtimeMs)
      return {files, wrote: false, cleaned: removed}
    }
    if (plan.length === 0) {
      // An interrupted undo had put every file back: only its recorded dir times are left to put back.
      wrote = true
      await fs.utimes(chatDir, times.dirAtimeMs, times.dirMtimeMs)
      await appendLog(fs, ctx.stateDir, {type: 'undo', repairId, time: now().toISOString(), chatdoctorVersion: ctx.version, chatDir, evidenceDir: null})
      return {files, wrote, cleaned: removed}
    }
    await appendLog(fs, ctx.stateDir, {type: 'undo-start', repairId, time: now().toISOString(), chatdoctorVersion: ctx.version, chatDir, evidenceDir: evDir, ...times})
    const stamp = now().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
    // A fresh folder (a re-run within the same second after an interrupted undo gets `-2`, `-3`, …), its
    // entry made durable before anything is replaced: else a crash can keep the restore and lose the evidence.
    let undoDir = path.join(evDir, `undo-${stamp}`)
    for (let n = 2; ; n++) {
      try {
        await fs.mkdir(undoDir)
        break
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || n > 100) throw e
        undoDir = path.join(evDir, `undo-${stamp}-${n}`)
      }
    }
    wrote = true
    timesOwed = true
    await fs.fsyncDir(evDir)
    const verify = async () => {
      const ch = await watch.changed()
      if (ch) throw new ChangedError(path.join(chatDir, ch.name), ch.what)
    }
    for (const p of plan) {
      try {
        if (p.cur !== null) {
          const dest = path.join(undoDir, p.rel)
          await fs.mkdir(path.dirname(dest), {recursive: true})
          // A file the repair kept by copy (a log appended to in place) is kept by copy again.
          const kept = await preserveFile(fs, chatDir, p.rel, undoDir, p.rel, null, {copy: p.before?.method === 'copy', holdLimit: ctx.chunkedBytes})
          if (kept.sha256 !== p.cur) throw new ChangedError(p.abs, 'new bytes')
          // The new names (and any folders made for them) durable before anything is replaced.
          for (let d = path.dirname(dest); ; d = path.dirname(d)) {
            await fs.fsyncDir(d)
            if (d === undoDir) break
          }
        }
        if (p.before) {
          const gone = () => new Error(`the evidence copy of ${p.rel} no longer has its recorded bytes`)
          const how = {tag: `undo-${repairId}`, mode: p.before.mode & 0o777, expect: watch.expected(p.rel), beforeRename: verify}
          let w
          if (p.before.size > (ctx.chunkedBytes ?? CHUNKED_BYTES)) {
            // Too large to hold: copied from the evidence in chunks, checked against its recorded sha256 on the way.
            await verify()
            w = await durableCopy(fs, p.abs, p.before.evidenceAbs, {...how, sha256: p.before.sha256, bytes: p.before.size, readChunks: readFileChunks, mismatch: gone})
          } else {
            const data = await fs.readFile(p.before.evidenceAbs)
            if (sha256Hex(data) !== p.before.sha256) throw gone()
            await verify()
            w = await durableWrite(fs, p.abs, data, how)
          }
          await fs.utimes(p.abs, p.before.atimeMs, p.before.mtimeMs)
          const st = await fs.lstat(p.abs)
          if (st.ino !== w.ino || st.size !== w.bytes) throw new ChangedError(p.abs, 'replaced by another file right after the rename')
          watch.set(p.rel, {ino: w.ino, size: st.size, mtimeMs: st.mtimeMs, sha256: p.before.sha256})
          await verify()
          files.push({chat: chatDir, file: p.rel, outcome: 'restored', sha256: p.before.sha256, message: null})
        } else {
          await verify()
          await fs.unlink(p.abs, watch.expected(p.rel))
          watch.set(p.rel, null)
          await fs.fsyncDir(path.dirname(p.abs))
          files.push({chat: chatDir, file: p.rel, outcome: 'removed', sha256: null, message: `the repair had created ${p.rel}; removed (kept in ${undoDir})`})
        }
      } catch (e) {
        if (e instanceof ChangedError) agentWrote = true
        if (e instanceof ChangedError) files.push({chat: chatDir, file: p.rel, outcome: 'refused', sha256: null, message: `the agent wrote ${path.relative(chatDir, e.path)} during the undo (${e.what}); its bytes are left as they are; run chatdoctor undo ${repairId} again when the agent is done`})
        else files.push({chat: chatDir, file: p.rel, outcome: 'failed', sha256: null, message: describeWriteError(e, `restoring ${p.rel}`)})
        break
      }
    }
    if (files.some((f) => f.outcome === 'refused' || f.outcome === 'failed')) return {files, wrote}
    for (const d of c.dirTimes) {
      try {
        await fs.utimes(d.abs, d.atimeMs, d.mtimeMs)
      } catch {
        warnings.push(`the mtime of ${d.abs} could not be put back`)
      }
    }
    // The chat dir's times before the end is recorded: until then a re-run puts back the recorded ones.
    if (lockFile) await releaseLock(fs, lockFile, lockIno)
    lockFile = null
    timesOwed = false
    try {
      await fs.utimes(chatDir, times.dirAtimeMs, times.dirMtimeMs)
    } catch {
      warnings.push(`the mtime of ${chatDir} could not be put back`)
    }
    // A repair that never recorded its end: what it had replaced is now known (what this undo put back).
    if (c.unknownEnd) await appendLog(fs, ctx.stateDir, {type: 'repair-end', repairId, time: now().toISOString(), chatDir, evidenceDir: evDir, outcome: 'interrupted', replaced: files.filter((f) => f.outcome === 'restored' || f.outcome === 'removed').map((f) => f.file)})
    await appendLog(fs, ctx.stateDir, {type: 'undo', repairId, time: now().toISOString(), chatdoctorVersion: ctx.version, chatDir, evidenceDir: undoDir})
    return {files, wrote, cleaned: removed}
  } catch (e) {
    return {files: [...files, {chat: chatDir, file: '.', outcome: 'failed', sha256: null, message: describeWriteError(e, `undoing in ${chatDir}`)}], wrote, cleaned: removed}
  } finally {
    if (lockFile) await releaseLock(fs, lockFile, lockIno)
    // Not when the agent wrote during the undo: its own save moved the folder's mtime.
    if (timesOwed && !agentWrote) {
      try {
        await fs.utimes(chatDir, times.dirAtimeMs, times.dirMtimeMs)
      } catch {
        warnings.push(`the mtime of ${chatDir} could not be put back`)
      }
    }
  }
}
