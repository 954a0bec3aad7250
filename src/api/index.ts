/**
 * chatdoctor's library API (`import {…} from 'chatdoctor'`), for agent maintainers who want its verdicts in
 * their own loaders and tools. Each function runs the pipeline the CLI runs, so it gives the same verdicts as
 * `chatdoctor scan --json` and the same plans and repairs as `chatdoctor repair`:
 *
 * - `scanChats`: the scan report of PATHs (or the agents' default roots);
 * - `diagnoseChatDir`: one chat on disk (a chat dir, a session file, a store with `id`), read-only;
 * - `diagnoseFiles`: pure: the chats of one folder given as plain data (names, bytes, mtimes), no disk;
 * - `winnerBytes`: the exact bytes of the generation chatdoctor ranks best (what a loader should load);
 * - `planRepair`: pure: the repair plan of a diagnosed chat (what `repair --dry-run` prints);
 * - `applyRepair`: carries a plan out as `repair` does (evidence, durable writes, the live-chat refusal,
 *   the repair log), and `undoRepair` takes it back;
 * - `classifyJsonBytes`, `classifyJsonlBytes`: the byte-level verdict on one file.
 *
 * The results are plain data: the report's shapes (`ChatReport`, `Generation`, …) are those of the JSON
 * report (schemas/report.schema.json), with paths under the home written `~/…` as the CLI writes them.
 * Nothing here prints, reads the terminal or exits the process.
 */
import {readFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {classifyJsonBytes as classifyJson} from '../lib/classify/index.js'
import {classifyJsonlBytes as classifyJsonl, type JsonlClassification} from '../lib/classify/jsonl.js'
import {ADAPTERS, adapterByName} from '../lib/formats/index.js'
import {nodeFileSystem} from '../lib/fsio/fs.js'
import {tildify} from '../lib/fsio/paths.js'
import {stateDir} from '../lib/fsio/repair-log.js'
import type {ChatDirSnapshot, ChatPlan, FileEntry, FormatAdapter, PlannedAction, PlanOptions, ScannedChat} from '../lib/model/adapter.js'
import type {ChatReport, Classification, Report, Skipped} from '../lib/model/report.js'
import {applyChat} from '../lib/pipeline/apply.js'
import {planChat} from '../lib/pipeline/plan.js'
import {buildRepairReport, newRepairId} from '../lib/pipeline/repair-report.js'
import {buildReport} from '../lib/pipeline/report.js'
import {scanPaths} from '../lib/pipeline/scan.js'
import {undoRepair as undo, type UndoResult} from '../lib/pipeline/undo.js'

export type {
  ActionReport,
  ActionType,
  ChatRepair,
  ChatReport,
  ChatStatus,
  Classification,
  DamageLocation,
  FileClass,
  Finding,
  Generation,
  OperationalError,
  RankEntry,
  Reason,
  RepairOutcome,
  Report,
  Role,
  Severity,
  Skipped,
} from '../lib/model/report.js'
export type {ChatDirSnapshot, FileEntry, PlannedAction, PlanOptions} from '../lib/model/adapter.js'
export type {JsonlClassification, JsonlLine, JsonlRecord} from '../lib/classify/jsonl.js'
export type {UndoFile, UndoResult} from '../lib/pipeline/undo.js'

/** The package's version (its package.json), as the CLI reports it. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {version: string}).version

/** A failure to do what was asked with what was given (no chat there, several chats, a plan not made here). */
export class ChatdoctorError extends Error {
  override readonly name = 'ChatdoctorError'
}

/** Where to look and how to write paths: as the CLI, by default from the process's environment. */
export interface Options {
  /** The home folder: default roots, `~/` in reports, the repair log. Default: `HOME`, else the OS's. */
  home?: string
  /** The environment the agents' roots are read from (`XDG_DATA_HOME`, …). Default: `process.env`. */
  env?: NodeJS.ProcessEnv
}

const homeOf = (o: Options) => o.home ?? (process.env.HOME || os.homedir())
const envOf = (o: Options) => o.env ?? process.env

/**
 * One diagnosed chat: its report and the snapshot the verdict was made from (every entry of the chat with
 * its size and mtime, and the bytes of the files the diagnosis read). Plain data; pass it to `planRepair` or
 * `winnerBytes`.
 */
export interface DiagnosedChat {
  report: ChatReport
  snapshot: ChatDirSnapshot
}

/**
 * The scan report of PATHs (chat dirs, session files, or folders above them; none: every agent's default
 * roots): the object `chatdoctor scan --json` prints, `exitCode` included. Read-only.
 */
export async function scanChats(paths: readonly string[] = [], opts: Options = {}): Promise<Report> {
  const r = await scanPaths([...paths], {home: homeOf(opts), env: envOf(opts), keepData: false, verdictOnly: true})
  const report = buildReport({command: 'scan', version: VERSION, chats: r.chats.map((c) => c.report), skipped: r.skipped, errors: r.errors})
  report.roots = r.roots
  return report
}

/**
 * The diagnosis of the one chat at `chatPath` (a chat dir or a session file; with `id`, the chat of that id
 * among several, e.g. a session of a store), with the bytes it was made from. Read-only. Throws
 * `ChatdoctorError` when the path cannot be read or holds no chat, or several and no `id` picks one.
 */
export async function diagnoseChatDir(chatPath: string, opts: Options & {id?: string} = {}): Promise<DiagnosedChat> {
  const r = await scanPaths([chatPath], {home: homeOf(opts), env: envOf(opts), keepData: true})
  if (r.errors.length > 0) throw new ChatdoctorError(`${r.errors[0].path}: ${r.errors[0].message}`)
  const chats = opts.id === undefined ? r.chats : r.chats.filter((c) => c.report.id === opts.id)
  if (chats.length === 1) return {report: chats[0].report, snapshot: chats[0].snapshot}
  if (opts.id !== undefined && chats.length === 0) throw new ChatdoctorError(`no chat with id ${opts.id} in ${chatPath}`)
  if (chats.length > 1) throw new ChatdoctorError(`${chatPath} holds ${chats.length} chats (${chats.map((c) => c.report.id).join(', ')}); give one, or pick one with the id option`)
  throw new ChatdoctorError(r.skipped.length > 0 ? `nothing to diagnose in ${chatPath}: ${r.skipped[0].reason}` : `no chat found at ${chatPath}`)
}

/** One file of a folder, as plain data. */
export interface ChatFile {
  /** Its name in the folder. */
  name: string
  /** Its bytes. */
  bytes: Uint8Array
  /** Its modification time, ms since epoch (the ranking's tie-breaker between copies). */
  mtimeMs: number
}

/**
 * Pure: the chats one folder holds, diagnosed from plain data (no disk), exactly as a scan of that folder
 * diagnoses them. `dir` is the folder's path (some layouts are recognised by it, e.g. a chat dir under a
 * `chats/` folder); `format` names the format to read it as when the path does not say (a report's
 * `format`). Folders an adapter reads as a whole store (a database, a tree of subfolders) are not taken here:
 * use `diagnoseChatDir`. Returns the chats and the chats skipped (with why).
 */
export function diagnoseFiles(dir: string, files: readonly ChatFile[], opts: {format?: string; dirMtimeMs?: number; home?: string} = {}): {chats: DiagnosedChat[]; skipped: Skipped[]} {
  const names = files.map((f) => f.name).sort()
  const adapters: readonly FormatAdapter[] = opts.format === undefined ? ADAPTERS : [adapterOf(opts.format)]
  const show = (p: string) => tildify(p, opts.home ?? '')
  const out: {chats: DiagnosedChat[]; skipped: Skipped[]} = {chats: [], skipped: []}
  for (const adapter of adapters) {
    const found = adapter.chatsIn(dir, names) ?? (opts.format !== undefined ? {chats: [{dir, path: dir}], descend: false} : null)
    if (!found) continue
    if (found.store) throw new ChatdoctorError(`${dir} is a ${adapter.displayName} store; diagnoseChatDir reads it`)
    for (const unit of found.chats) {
      const wanted = unit.files ? new Set(unit.files) : null
      const entries: FileEntry[] = files
        .filter((f) => wanted === null || wanted.has(f.name))
        .map((f) => {
          const e: FileEntry = {name: f.name, kind: 'file', bytes: f.bytes.length, mtimeMs: f.mtimeMs}
          if (adapter.wantsContent(f.name)) e.data = Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength)
          return e
        })
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      const snapshot: ChatDirSnapshot = {dir, unit, dirMtimeMs: opts.dirMtimeMs ?? 0, files: entries}
      const d = adapter.diagnose(snapshot)
      if (d.kind === 'skipped') out.skipped.push({path: show(unit.path), reason: d.reason})
      else out.chats.push({report: {path: show(unit.path), ...d.report}, snapshot})
    }
  }
  return out
}

function adapterOf(format: string): FormatAdapter {
  const a = adapterByName(format)
  if (!a) throw new ChatdoctorError(`unknown format "${format}"; known: ${ADAPTERS.map((x) => x.name).join(', ')}`)
  return a
}

const scanned = (chat: DiagnosedChat): ScannedChat => ({report: chat.report, snapshot: chat.snapshot, adapter: adapterOf(chat.report.format)})

/**
 * The exact bytes of the chat's winner, the generation chatdoctor ranks best (a file of the chat, or a copy
 * embedded in another file): what the agent should load, and what `repair` would put back. Null when the
 * chat has none (`unrecoverable`). Pure.
 */
export function winnerBytes(chat: DiagnosedChat): Buffer | null {
  const winner = chat.report.winner
  if (winner === null) return null
  const file = chat.snapshot.files.find((f) => f.name === winner)
  if (file?.data) return file.data
  const restore = planChat(scanned(chat), {restoreFrom: winner}).actions.find((a) => a.type === 'restore' && a.data !== undefined)
  return restore?.data ?? null
}

/** A repair plan: the chat's dry-run report (`actions`, `repair.outcome` `planned` or why not) and its actions with their bytes. */
export interface RepairPlan {
  /** The chat as `repair --dry-run --json` reports it. */
  report: ChatReport
  /** The actions `applyRepair` carries out, in order; `restore` and `rewrite` hold the exact bytes written. */
  actions: readonly PlannedAction[]
}

/** The plans `planRepair` made, for `applyRepair` (a plan is carried out only as it was made). */
const made = new WeakMap<RepairPlan, ChatPlan>()

/**
 * Pure: what `repair` would do to a diagnosed chat (`salvage`, `restoreFrom` as `--salvage`,
 * `--restore-from`). A chat with nothing to do gets no actions.
 */
export function planRepair(chat: DiagnosedChat, opts: PlanOptions = {}): RepairPlan {
  const plan = planChat(scanned(chat), opts)
  const report = buildRepairReport({version: VERSION, home: '', dryRun: true, repairId: '', plans: [plan], results: new Map(), skipped: [], errors: [], interrupted: false}).chats[0]
  const out: RepairPlan = {report, actions: plan.actions}
  made.set(out, plan)
  return out
}

/** What `applyRepair` did. */
export interface RepairResult {
  /** The chat as `repair --json` reports it: `repair.outcome` (`repaired`, `refused`, `failed`, …), evidence, undo. */
  report: ChatReport
  /** The id `undoRepair` takes, or null when nothing was written. */
  repairId: string | null
  /** The exit status `repair` would give for this chat. */
  exitCode: number
}

/**
 * Carries out a plan made by `planRepair`, as `chatdoctor repair` does: the files replaced are kept as
 * evidence first, bytes are written durably and verified, a chat that changed since it was diagnosed or whose
 * agent is running is refused (`force` writes anyway), and the repair is logged for `undoRepair`.
 */
export async function applyRepair(plan: RepairPlan, opts: Options & {force?: boolean} = {}): Promise<RepairResult> {
  const chatPlan = made.get(plan)
  if (!chatPlan) throw new ChatdoctorError('applyRepair takes a plan made by planRepair')
  const home = homeOf(opts)
  const repairId = newRepairId()
  const results = new Map()
  if (chatPlan.actions.length > 0 && !chatPlan.problem && !chatPlan.refusal && !chatPlan.manual) {
    results.set(chatPlan, await applyChat(chatPlan, {fs: nodeFileSystem(), repairId, version: VERSION, stateDir: stateDir(home, envOf(opts)), force: Boolean(opts.force)}))
  }
  const report = buildRepairReport({version: VERSION, home, dryRun: false, repairId, plans: [chatPlan], results, skipped: [], errors: [], interrupted: false})
  return {report: report.chats[0], repairId: report.repairId ?? null, exitCode: report.exitCode}
}

/**
 * Takes a repair back, as `chatdoctor undo`: every file it replaced gets its exact bytes and mtime again, the
 * current bytes kept as evidence first; a file changed since the repair is refused unless `force`.
 */
export async function undoRepair(repairId: string, opts: Options & {force?: boolean} = {}): Promise<UndoResult> {
  return undo(repairId, {fs: nodeFileSystem(), stateDir: stateDir(homeOf(opts), envOf(opts)), version: VERSION, force: Boolean(opts.force)})
}

/**
 * The byte-level verdict on a file that should hold one JSON document: `intact` (with the parsed `value`),
 * `empty`, `zero-filled`, `truncated` or `corrupt`, with the reasons and where the damage starts. Pure.
 */
export function classifyJsonBytes(bytes: Uint8Array): Classification {
  return classifyJson(bytes)
}

/** The verdict on a JSON-lines log, line by line (which lines are whole records, which torn, and why). Pure. */
export function classifyJsonlBytes(bytes: Uint8Array): JsonlClassification {
  return classifyJsonl(bytes)
}

/** The path a report names a chat by, made absolute again (`~/…` under `home`). */
export function absolutePath(reportPath: string, opts: Options = {}): string {
  return reportPath === '~' || reportPath.startsWith('~/') ? path.join(homeOf(opts), reportPath.slice(1)) : reportPath
}
