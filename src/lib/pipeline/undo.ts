/**
 * `undo <repairId>`: puts the files a repair replaced back to their exact pre-repair bytes (and mtimes), from
 * the evidence folder the repair left. Found through the repair log (`fsio/repair-log.ts`).
 *
 * Per chat: take the chat's lock; for each file the repair wrote, compare its current sha256 with what the
 * repair wrote. Changed since (the agent ran again) → refuse the whole chat unless `force`. The current bytes
 * are always preserved first under `.chatdoctor/<repairId>/undo-<stamp>/` (a hard link: cheap), then the
 * pre-repair bytes are written durably (or, where the repair created the file, it is removed). The chat dir's
 * own mtime is put back afterwards.
 *
 * a `rewrite` is undone like a `restore` (its mtime too). A `move` (a file the repair moved out of
 * OpenCode's tree) is undone by writing the evidence copy's bytes back at its place, durably, with its mode and
 * times; the folders that lost a file get their recorded mtimes back (`dirTimes`). A moved file that is back in
 * place with its moved bytes is `already-undone`; one that is back with other bytes (OpenCode wrote a new file
 * with that id) is refused unless `force`. Chats that share a folder are undone one evidence folder at a time.
 */
import path from 'node:path'
import {describeWriteError, unsafeTargetReason} from './apply.js'
import {durableWrite, sha256Hex} from '../fsio/durable-write.js'
import {OWN_DIR, preserveFile, readManifest, type Manifest} from '../fsio/evidence.js'
import type {FileSystem} from '../fsio/fs.js'
import {acquireLock, releaseLock, type LockInfo} from '../fsio/lock.js'
import {appendLog, readLog, type LogEntry} from '../fsio/repair-log.js'
import {isHolderAlive, ownStartMs} from './live.js'

export interface UndoContext {
  fs: FileSystem
  stateDir: string
  version: string
  force: boolean
  now?: () => Date
  isHolderAlive?: (holder: LockInfo) => boolean
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
}

async function currentSha(fs: FileSystem, p: string): Promise<string | null> {
  try {
    return sha256Hex(await fs.readFile(p))
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw e
  }
}

/** Undoes one repair (every chat it wrote). Never throws for file errors: they become `failed` files. */
export async function undoRepair(repairId: string, ctx: UndoContext): Promise<UndoResult> {
  const entries = readLog(ctx.stateDir).filter((e): e is Extract<LogEntry, {type: 'repair'}> => e.type === 'repair' && e.repairId === repairId)
  const result: UndoResult = {found: entries.length > 0, files: [], warnings: []}
  const seen = new Set<string>()
  for (const entry of entries) {
    if (seen.has(entry.evidenceDir)) continue
    seen.add(entry.evidenceDir)
    result.files.push(...(await undoChat(entry.chatDir, entry.evidenceDir, repairId, ctx, result.warnings)))
  }
  return result
}

async function undoChat(chatDir: string, evDir: string, repairId: string, ctx: UndoContext, warnings: string[]): Promise<UndoFile[]> {
  const {fs} = ctx
  const now = ctx.now ?? (() => new Date())
  let manifest: Manifest
  let dirSt
  try {
    manifest = await readManifest(fs, evDir)
    dirSt = await fs.lstat(chatDir)
  } catch (e) {
    return [{chat: chatDir, file: '.', outcome: 'failed', sha256: null, message: `cannot read the evidence of repair ${repairId}: ${describeWriteError(e, '')}`}]
  }
  // What the repair changed: files it wrote (`restore`, `rewrite`: `to`, left with `sha256`) and files it moved
  // out (`move`: `from`, left absent).
  const restores = manifest.actions
    .filter((a) => a.type === 'restore' || a.type === 'rewrite' || a.type === 'move')
    .map((a) => (a.type === 'move' ? {to: a.from ?? a.to, sha256: null as string | null} : {to: a.to, sha256: a.sha256}))
  const me: LockInfo = {pid: process.pid, startedAtMs: ownStartMs(), purpose: `undo ${repairId}`, time: now().toISOString()}
  let lockFile: string | null = null
  const files: UndoFile[] = []
  let touched = false
  try {
    const unsafe = await unsafeTargetReason(fs, chatDir, restores.map((a) => a.to))
    if (unsafe) return restores.map((a) => ({chat: chatDir, file: a.to, outcome: 'refused', sha256: null, message: unsafe.replace(/^refused: /, '').replace('chatdoctor repair', `chatdoctor undo ${repairId}`)}))
    await fs.mkdir(path.join(chatDir, OWN_DIR), {recursive: true})
    const lock = await acquireLock(fs, chatDir, me, ctx.isHolderAlive ?? ((h) => isHolderAlive(h.pid, h.startedAtMs)))
    if (!lock.ok) {
      return restores.map((a) => ({chat: chatDir, file: a.to, outcome: 'refused', sha256: null, message: `another chatdoctor (pid ${lock.holder.pid}, ${lock.holder.purpose}) is writing this chat; let it finish and run undo again`}))
    }
    lockFile = lock.path
    if (lock.tookOverFrom) warnings.push(`took over a stale lock of pid ${lock.tookOverFrom.pid} in ${chatDir}`)

    // Check every file first: the chat is undone whole or not at all.
    const plan: Array<{to: string; before: Manifest['files'][number] | undefined; cur: string | null}> = []
    for (const a of [...restores].reverse()) {
      const target = path.join(chatDir, a.to)
      const cur = await currentSha(fs, target)
      const before = manifest.files.find((f) => f.path === a.to)
      if (cur === (before?.sha256 ?? null)) {
        files.push({chat: chatDir, file: a.to, outcome: 'already-undone', sha256: cur, message: null})
        continue
      }
      if (cur !== a.sha256 && !ctx.force) {
        const refused = `${a.to} changed since repair ${repairId} wrote it (the agent ran again?); chatdoctor undo ${repairId} --force keeps the current bytes as evidence and restores anyway`
        return [...files, {chat: chatDir, file: a.to, outcome: 'refused', sha256: cur, message: refused}]
      }
      if (cur !== a.sha256) warnings.push(`--force: ${a.to} in ${chatDir} changed since the repair; its current bytes are kept as evidence`)
      plan.push({to: a.to, before, cur})
    }
    if (plan.length === 0) return files
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
    await fs.fsyncDir(evDir)
    for (const p of plan) {
      const target = path.join(chatDir, p.to)
      try {
        if (p.cur !== null) await preserveFile(fs, chatDir, p.to, undoDir, p.to, null)
        await fs.fsyncDir(undoDir)
        if (p.before) {
          const data = await fs.readFile(path.join(evDir, p.before.evidence))
          if (sha256Hex(data) !== p.before.sha256) throw new Error(`the evidence copy of ${p.to} no longer has its recorded bytes`)
          touched = true
          await durableWrite(fs, target, data, {tag: `undo-${repairId}`, mode: p.before.mode})
          await fs.utimes(target, p.before.atimeMs, p.before.mtimeMs)
          files.push({chat: chatDir, file: p.to, outcome: 'restored', sha256: p.before.sha256, message: null})
        } else {
          touched = true
          await fs.unlink(target)
          await fs.fsyncDir(chatDir)
          files.push({chat: chatDir, file: p.to, outcome: 'removed', sha256: null, message: `the repair had created ${p.to}; removed (kept in ${undoDir})`})
        }
      } catch (e) {
        files.push({chat: chatDir, file: p.to, outcome: 'failed', sha256: null, message: describeWriteError(e, `restoring ${p.to}`)})
      }
    }
    for (const d of manifest.dirTimes ?? []) {
      try {
        await fs.utimes(path.join(chatDir, d.path), d.atimeMs, d.mtimeMs)
      } catch {
        warnings.push(`the mtime of ${path.join(chatDir, d.path)} could not be put back`)
      }
    }
    await appendLog(fs, ctx.stateDir, {type: 'undo', repairId, time: now().toISOString(), chatdoctorVersion: ctx.version, chatDir, evidenceDir: undoDir})
    return files
  } catch (e) {
    return [...files, {chat: chatDir, file: '.', outcome: 'failed', sha256: null, message: describeWriteError(e, `undoing in ${chatDir}`)}]
  } finally {
    if (lockFile) await releaseLock(fs, lockFile)
    try {
      await fs.utimes(chatDir, dirSt.atimeMs, dirSt.mtimeMs)
    } catch {
      if (touched) warnings.push(`the mtime of ${chatDir} could not be put back`)
    }
  }
}
