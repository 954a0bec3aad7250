/**
 * The scan pipeline: discover → inventory → diagnose (classify, measure, rank) → report. `scan`, `repair`,
 * `check` and `inspect` all go through `scanPaths`, so they agree on every verdict. Read-only.
 */
import {discover, searchedOf, type Discovery, type SearchedRoot} from './discover.js'
import type {ChatDirSnapshot, ChatUnit, FormatAdapter, ScannedChat, UnsupportedAgent} from '../model/adapter.js'

export type {ScannedChat} from '../model/adapter.js'
import {ADAPTERS, UNSUPPORTED_AGENTS, adapterByName, isPartial, loadAdapters} from '../formats/registry.js'
import {readChat, ReadArena} from './inventory.js'
import {readLog, stateDir} from '../fsio/repair-log.js'
import type {OperationalError, Skipped} from '../model/report.js'
import {tildify} from '../fsio/paths.js'
import {scanWorkerUrl} from '../fsio/install.js'
import {addOwnState, unfinishedRepairDirs} from './own-state.js'
import {addNotRegular, markNotRegularChat} from './not-regular.js'
import {attachSnapshots, decryptAll, snapshotError, type SnapshotKeyring} from './snapshot/attach.js'
import {snapshotName} from '../model/snapshot.js'
import {listStore as listSnapshotStore} from '../snapshot/store.js'
import {finding} from '../model/findings.js'
import {availableParallelism, cpus} from 'node:os'
import path from 'node:path'
import {annotateSessions, findIndexChats, isQuietIndex} from './indexes.js'

/** Options of a scan. `home` is used for default roots and to write paths as `~`. */
export interface ScanOptions {
  home: string
  env: NodeJS.ProcessEnv
  adapters?: readonly FormatAdapter[]
  /** The agents recognised but not diagnosed (default: the registry's, `UNSUPPORTED_AGENTS`). */
  unsupported?: readonly UnsupportedAgent[]
  /**
   * Keep the bytes read (`snapshot.files[].data`) in the result. Default true (`repair` writes the exact bytes
   * of a generation). `scan` passes false: each chat's bytes are dropped once it is diagnosed, so memory stays
   * about one chat's worth instead of the whole fleet's.
   */
  keepData?: boolean
  /**
   * Parallel diagnosis: at most this many worker threads diagnose chats beside the main thread.
   * Default: `workerLimit(env)` (one per core beyond the first; `CHATDOCTOR_WORKERS` overrides). Used only
   * when `keepData` is false and the default adapters are in use.
   */
  workers?: number
  /**
   * Start the workers only once the main thread has spent this long (ms) on the chats and the rest looks
   * like at least `PARALLEL_PAYS_MS` more; default `PARALLEL_AFTER_MS`. 0 starts them at once (tests).
   */
  parallelAfterMs?: number
  /**
   * Files above this many bytes are classified by streaming (`inventory.ts`, `STREAM_THRESHOLD_BYTES` by
   * default; `CHATDOCTOR_STREAM_THRESHOLD` in `env` overrides it, for tests and the benchmark).
   */
  streamThresholdBytes?: number
  /**
   * Session logs (and other files an adapter streams itself) above this many bytes are read a chunk at a time
   * (`LOG_STREAM_THRESHOLD_BYTES` by default; `CHATDOCTOR_LOG_STREAM_THRESHOLD` in `env` overrides it).
   */
  logStreamThresholdBytes?: number
  /**
   * Only the verdicts are asked for: adapters may skip candidates that cannot change one (the report's
   * `unmeasured` says so). `scan` sets it unless `--verbose` or the HTML page asks for every generation.
   */
  verdictOnly?: boolean
  /** Called after discovery and after each chat, with running totals (for a progress display). */
  onProgress?: (progress: ScanProgress) => void
  /** chatdoctor's state folder (its repair log and snapshot store), default `stateDir(home, env)`. */
  stateDir?: string
  /**
   * Also read the agents' indexes of their chats (`FormatAdapter.indexes`) as chats of their own and hold them
   * against the session files (`indexes.ts`): `true` keeps the index chats that have something to say (`scan`),
   * `'all'` every one (`repair`: a quiet index may still have to follow a session file the run rewrites).
   * Default false.
   */
  indexes?: boolean | 'all'
  /** Rank chatdoctor's stored snapshots of each chat as generations (default true). */
  snapshots?: boolean
  /** Redacted snapshots are candidates too (they are not the agent's whole context). */
  redactedSnapshots?: boolean
}

/** Running totals of a scan, for a progress display. Bytes are the sizes of the files read. */
export interface ScanProgress {
  chatsDone: number
  chatsTotal: number
  filesRead: number
  bytesRead: number
}

/** What a scan found: chats sorted by `path`, skipped dirs and operational errors. */
export interface ScanResult {
  chats: ScannedChat[]
  skipped: Skipped[]
  errors: OperationalError[]
  /** Where the search started (home as `~`): the PATHs, or every agent's default folders. */
  roots: SearchedRoot[]
  /** PATHs naming a file no chat holds (home as `~`): the commands make them a usage error. */
  notChatFiles: string[]
  /** How many chats worker threads diagnosed (0 when the scan stayed on the main thread). */
  chatsInWorkers: number
}

/** How one chat is read and diagnosed (`scanChat`, `diagnoseUnit`). */
export interface ChatScanOptions {
  /** Files above this many bytes are classified by streaming (default: the inventory's). */
  streamThreshold?: number
  /** Files an adapter streams itself above this many bytes are (default: the inventory's). */
  logStreamThreshold?: number
  /** Where the chat's bytes are read (reused chat after chat); default: fresh buffers. */
  arena?: ReadArena
  /** Decrypts chatdoctor's stored snapshots of the chat; without it they are not ranked. */
  keyring?: SnapshotKeyring
  /** Leave out what cannot change the verdict (`ChatDirSnapshot.verdictOnly`). Default false. */
  verdictOnly?: boolean
}

/** Diagnoses one chat that discovery found. Never throws: an unreadable folder becomes an error. */
export async function scanChat(unit: ChatUnit, adapter: FormatAdapter, home: string, opts: ChatScanOptions = {}): Promise<ScannedChat | {skipped: Skipped} | {error: OperationalError}> {
  const {streamThreshold, logStreamThreshold, arena, keyring, verdictOnly} = opts
  let snapshot: ChatDirSnapshot
  try {
    arena?.reset()
    snapshot = await readChat(unit, adapter, {streamThresholdBytes: streamThreshold, logStreamThresholdBytes: logStreamThreshold, arena})
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    const why = err.code === 'ENOENT' ? 'the chat disappeared during the scan' : err.message
    return {error: {path: tildify(unit.path, home), message: why}}
  }
  if (unit.snapshots && keyring) snapshot.snapshots = decryptAll(unit.snapshots, keyring)
  if (verdictOnly) snapshot.verdictOnly = true
  const d = adapter.diagnose(snapshot)
  if (d.kind === 'skipped') return {skipped: {path: tildify(unit.path, home), reason: d.reason}}
  // The planner and the renderers find a chat's adapter by the format its report names: whole, like the chat's own.
  const named = adapterByName(d.report.format)
  if (named && isPartial(named)) await loadAdapters([named])
  const chat: ScannedChat = {report: {path: tildify(unit.path, home), ...d.report}, snapshot, adapter}
  markNotRegularChat(chat)
  addNotRegular(chat)
  addRedactedSnapshots(chat, unit)
  return chat
}

/**
 * A chat that lost context (unrecoverable or degraded), of which the scan left out redacted snapshots: the
 * finding names the newest and the flag that ranks it. The status stays as it is: the full context is lost.
 */
function addRedactedSnapshots(chat: ScannedChat, unit: ChatUnit): void {
  const ranked = new Set((unit.snapshots ?? []).map((s) => s.header.time))
  const times = (unit.redactedSnapshots ?? []).filter((t) => !ranked.has(t))
  const r = chat.report
  if (times.length === 0 || (r.status !== 'unrecoverable' && r.status !== 'degraded')) return
  const more = times.length > 1 ? ` (and ${times.length - 1} older)` : ''
  r.findings.push(finding('redacted-snapshot-unused', null, `chatdoctor holds a redacted snapshot of this chat, ${snapshotName(times[0])}${more}: tool inputs and outputs removed, so it is not the full context and is ranked only with --redacted-snapshots; chatdoctor repair --redacted-snapshots restores it`))
}

/** Runs discovery and diagnosis over PATHs (or the default roots when `paths` is empty). */
export async function scanPaths(paths: string[], opts: ScanOptions): Promise<ScanResult> {
  const chats: ScannedChat[] = []
  const rest = await scanEach(paths, opts, (c) => chats.push(c))
  return {...rest, chats}
}

/**
 * `scanPaths`, handing each chat to `onChat` in the result's order (sorted by `path`) as soon as it and every
 * chat before it is diagnosed, then letting go of it, so a caller that writes each chat out and drops it holds
 * about one chat at a time, not the fleet. The chats go through exactly what `scanPaths` does to them (the
 * indexes' annotations, chatdoctor's own state, quiet index chats left out): `scanPaths` is this, collected.
 *
 * Chats are diagnosed in their sorted order, index chats first (every session's annotation needs them). A chat
 * is handed on once every chat of its folder is diagnosed (chatdoctor's own state is a folder's) and every
 * index chat is; one diagnosed early (by a worker) waits for the chats before it.
 */
/** The folders a scan searches, absolute: its PATHs, else every adapter's default roots. */
function scanRoots(paths: string[], adapters: readonly FormatAdapter[], opts: Pick<ScanOptions, 'home' | 'env'>): string[] {
  return paths.length > 0 ? paths.filter((p) => p.trim() !== '').map((p) => path.resolve(p)) : adapters.flatMap((a) => a.defaultRoots(opts.home, opts.env))
}

export async function scanEach(paths: string[], opts: ScanOptions, onChat: (chat: ScannedChat) => void): Promise<Omit<ScanResult, 'chats'>> {
  const adapters = opts.adapters ?? ADAPTERS
  const found = await discover(paths, adapters, opts.home, opts.env, opts.unsupported ?? UNSUPPORTED_AGENTS)
  // Discovery read only the registry's `LIGHT_MEMBERS`; the adapters of the chats found are loaded whole now
  // (the others never are: `scan <one chat>` loads one agent's diagnosis).
  await loadAdapters(found.chats.map((c) => c.adapter))
  if (opts.indexes) {
    const roots = scanRoots(paths, adapters, opts)
    const idx = await findIndexChats(found.chats, adapters, roots, opts.home, opts.env)
    await loadAdapters(idx.chats.map((c) => c.adapter))
    found.chats.push(...idx.chats)
    found.errors.push(...idx.errors)
  }
  const result: Omit<ScanResult, 'chats'> = {
    skipped: found.skipped.map((s) => ({...s, path: tildify(s.path, opts.home)})),
    errors: found.errors.map((e) => ({...e, path: tildify(e.path, opts.home)})),
    ...searchedOf(found, opts.home),
    chatsInWorkers: 0,
  }
  const state = opts.stateDir ?? stateDir(opts.home, opts.env)
  const store = opts.snapshots === false ? undefined : listSnapshotStore(state)
  // A snapshot is matched to a chat gone from its agent's store by every adapter's `snapshot.goneChat`, not a
  // light member: with anything in the store (or an error listing it), every adapter is loaded whole.
  if (store && (store.refs.length > 0 || store.errors.length > 0)) await loadAdapters(adapters)
  const snaps = store === undefined ? {keyring: null, errors: [], gone: []} : attachSnapshots(found.chats, {stateDir: state, home: opts.home, env: opts.env, redacted: opts.redactedSnapshots, adapters, roots: scanRoots(paths, adapters, opts), store})
  for (const e of snaps.errors) result.errors.push({...e, path: tildify(e.path, opts.home)})
  // Sessions gone from their agent's store that chatdoctor still holds snapshots of: chats of their own.
  found.chats.push(...snaps.gone)
  await loadAdapters(snaps.gone.map((c) => c.adapter))
  const chats = found.chats
  const n = chats.length
  const order = reportOrder(chats, opts.home)
  const isIndex = (i: number) => opts.indexes !== undefined && opts.indexes !== false && chats[i].unit.index === true
  const queue = [...order.filter(isIndex), ...order.filter((i) => !isIndex(i))]
  const groups = folderGroups(chats)
  const outcomes: Array<ChatOutcome | undefined> = new Array(n)
  /** Per chat: diagnosed and, with its folder, settled (annotated, own state added): it may be handed on. */
  const settled = new Uint8Array(n)
  /** Per chat: an index chat with nothing to say, left out (`isQuietIndex`). */
  const quiet = new Uint8Array(n)
  /** Per folder group: its chats not diagnosed yet. */
  const waiting = Int32Array.from({length: groups.count}, (_, g) => groups.start[g + 1] - groups.start[g])
  const indexChats: Array<[number, ScannedChat]> = []
  let indexesLeft = queue.filter(isIndex).length
  // Errors and skips of the chats, tagged with the chat's discovery index: listed in discovery order.
  const chatErrors: Array<[number, OperationalError]> = []
  const chatSkips: Array<[number, Skipped]> = []
  // A verdict-only scan leaves some hashes out; chatdoctor's own state needs those of a chat a repair did not
  // finish, so such chats are diagnosed in full (the log read now, not at the first folder settled).
  let log: ReturnType<typeof readLog> | undefined = opts.verdictOnly ? readLog(state) : undefined
  const fullDirs = log ? unfinishedRepairDirs(log) : new Set<string>()
  const kept = (i: number): ScannedChat | undefined => {
    const r = outcomes[i]
    return r !== undefined && 'report' in r && quiet[i] === 0 ? r : undefined
  }
  const settle = (g: number) => {
    const group = groups.members.subarray(groups.start[g], groups.start[g + 1])
    const survivors: ScannedChat[] = []
    for (const i of group) {
      const c = kept(i)
      if (!c) continue
      if (opts.indexes) {
        if (!isIndex(i) && indexChats.length > 0) annotateSessions([...indexChats.map(([, x]) => x), c])
        if (opts.indexes !== 'all' && isQuietIndex(c)) {
          quiet[i] = 1
          continue
        }
      }
      survivors.push(c)
    }
    if (survivors.length > 0) addOwnState(survivors, (log ??= readLog(state)))
    for (const i of group) settled[i] = 1
  }
  let emitted = 0
  const emit = () => {
    while (emitted < n && settled[order[emitted]] === 1) {
      const i = order[emitted++]
      const c = kept(i)
      outcomes[i] = undefined
      if (c) onChat(c)
    }
  }
  const progress: ScanProgress = {chatsDone: 0, chatsTotal: n, filesRead: 0, bytesRead: 0}
  opts.onProgress?.(progress)
  const onDone = (i: number, r: ChatOutcome) => {
    outcomes[i] = r
    if ('error' in r) chatErrors.push([i, r.error])
    else if ('skipped' in r) chatSkips.push([i, r.skipped])
    else {
      const dir = chats[i].unit.dir
      for (const f of r.snapshot.files) {
        if (!f.readError) continue
        // A file too large for one string that the format measured from its bytes anyway was read after all.
        if (f.large && r.report.generations.some((g) => g.file === f.name && g.class !== null && !g.reasons.includes('unreadable'))) continue
        chatErrors.push([i, {path: tildify(`${dir}/${f.name}`, opts.home), message: f.readError}])
      }
      for (const c of r.snapshot.snapshots ?? []) if (c.error !== undefined) chatErrors.push([i, snapshotError(c, r.snapshot.unit.path, (p) => tildify(p, opts.home))])
      if (isIndex(i)) indexChats.push([i, r])
    }
    if (isIndex(i)) indexesLeft--
    const g = groups.of[i]
    const left = --waiting[g]
    if (indexesLeft > 0) return
    if (isIndex(i) && indexesLeft === 0) {
      // The last index chat: every folder already diagnosed whole settles now.
      indexChats.sort((a, b) => a[0] - b[0])
      for (let d = 0; d < groups.count; d++) if (waiting[d] === 0 && settled[groups.members[groups.start[d]]] === 0) settle(d)
    } else if (left === 0) settle(g)
    emit()
  }
  result.chatsInWorkers = await diagnoseAll(chats, queue, opts, progress, onDone, snaps.keyring ?? undefined, fullDirs)
  const byIndex = <T>(xs: Array<[number, T]>) => xs.sort((a, b) => a[0] - b[0]).map(([, x]) => x)
  result.errors.push(...byIndex(chatErrors))
  result.skipped.push(...byIndex(chatSkips))
  const byPath = (a: {path: string}, b: {path: string}) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
  result.skipped.sort(byPath)
  return result
}

/**
 * The order chats are reported in: by the report's path (`tildify(unit.path)`), ties in discovery order. (Its
 * own function, so the sort keys, a string per chat under the home, are let go once the order is known.)
 */
function reportOrder(chats: Discovery['chats'], home: string): number[] {
  const keys = chats.map((c) => tildify(c.unit.path, home))
  return Array.from({length: chats.length}, (_, i) => i).sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : a - b))
}

/**
 * The chats of each folder (chatdoctor's own state is per folder), as typed arrays rather than a map of arrays
 * (thousands of chats, most alone in their folder): folder group `g` holds `members[start[g]]` up to
 * `members[start[g + 1]]` in discovery order; groups are numbered in the order their first chat was found;
 * `of[i]` is chat `i`'s group.
 */
function folderGroups(chats: Discovery['chats']): {count: number; of: Int32Array; start: Int32Array; members: Int32Array} {
  const n = chats.length
  const of = new Int32Array(n)
  const ids = new Map<string, number>()
  for (let i = 0; i < n; i++) {
    let g = ids.get(chats[i].unit.dir)
    if (g === undefined) ids.set(chats[i].unit.dir, (g = ids.size))
    of[i] = g
  }
  const count = ids.size
  const start = new Int32Array(count + 1)
  for (let i = 0; i < n; i++) start[of[i] + 1]++
  for (let g = 0; g < count; g++) start[g + 1] += start[g]
  const members = new Int32Array(n)
  const fill = start.slice(0, count)
  for (let i = 0; i < n; i++) members[fill[of[i]]++] = i
  return {count, of, start, members}
}

// ---- parallel diagnosis -----------------------------------------------------------------------

/** The main thread works alone for at least this long (ms) before it considers starting workers. */
export const PARALLEL_AFTER_MS = 50

/** Workers start only when the chats left look like at least this much more work (ms, at the rate so far). */
export const PARALLEL_PAYS_MS = 400

/**
 * Workers start only when the chats so far averaged at most this many bytes read (4 MiB). Diagnosing a
 * multi-MB chat is mostly first touches of fresh memory (each file's decoded string and parsed value), and on
 * the benchmark VM page faults do not run in parallel (measured: two threads, or two processes, each touching
 * 500 MB of fresh memory take twice as long as one alone), so a second thread only added memory there
 * (README "Performance").
 */
export const PARALLEL_MAX_CHAT_BYTES = 4 * 2 ** 20

/**
 * The young generation of a worker's heap, MB. V8's default on this machine lets it grow to about 48 MB of
 * short-lived garbage per thread; a worker diagnoses small chats one at a time, so a few MB do (measured on
 * 20,000 small chats: peak RSS 251 → 208 MB, CPU unchanged).
 */
export const WORKER_YOUNG_MB = 6

/**
 * With the default worker count, workers start only when the machine left at least this much of a core idle
 * (`idleCores`) while the main thread worked: a worker on a core others keep busy shortens no scan and costs
 * CPU (measured on the 5,000-chat fleet: about 0.9 s more than the main thread alone, 7.5 s).
 */
export const WORKER_IDLE_CORES = 0.5

/** How often (ms) a scan that found no idle core looks again before starting workers. */
export const IDLE_RECHECK_MS = 250

/** The machine's idle time so far, summed over its cores (ms, from `os.cpus()`). */
function idleMs(): number {
  let ms = 0
  for (const c of cpus()) ms += c.times.idle
  return ms
}

/**
 * The cores the machine left idle between two readings of `idleMs` `wallMs` apart: 1 means one core idled
 * throughout (the thread measuring is not idle itself, so on an otherwise idle 2-core machine this is about 1).
 */
export function idleCores(idleBefore: number, idleAfter: number, wallMs: number): number {
  return wallMs > 0 ? Math.max(0, idleAfter - idleBefore) / wallMs : 0
}

/**
 * True when `CHATDOCTOR_WORKERS` asks for the default (unset, empty or `auto`): the scan then starts workers
 * only on idle cores (`WORKER_IDLE_CORES`); an explicit count is used whatever the load.
 */
export function workersAuto(env: NodeJS.ProcessEnv): boolean {
  const v = env.CHATDOCTOR_WORKERS
  return v === undefined || v === '' || v === 'auto'
}

/**
 * How many worker threads a scan may start beside the main thread, from `CHATDOCTOR_WORKERS`: unset or
 * `auto`, one per core beyond the first (`os.availableParallelism() - 1`); `0` none; `n` at most n.
 */
export function workerLimit(env: NodeJS.ProcessEnv): number {
  const v = env.CHATDOCTOR_WORKERS
  if (v === undefined || v === '' || v === 'auto') return Math.max(0, availableParallelism() - 1)
  const n = Number(v)
  return Number.isInteger(n) && n >= 0 ? n : 0
}

/** What diagnosing one chat gives, plus the files and bytes it read (for progress). */
export type ChatOutcome = (ScannedChat | {skipped: Skipped} | {error: OperationalError}) & {filesRead?: number; bytesRead?: number}

/** This thread's read arena for scans that drop each chat's bytes (made on first use). */
let dropArena: ReadArena | undefined

/**
 * Diagnoses one chat and, unless `keepData`, drops the bytes read. Without `keepData` the bytes are read into
 * this thread's `ReadArena`, reused chat after chat (callers on one thread run one chat at a time). Never throws.
 */
export async function diagnoseUnit(unit: ChatUnit, adapter: FormatAdapter, home: string, keepData: boolean, opts: Omit<ChatScanOptions, 'arena'> = {}): Promise<ChatOutcome> {
  const arena = keepData ? undefined : (dropArena ??= new ReadArena())
  const r: ChatOutcome = await scanChat(unit, adapter, home, {...opts, arena})
  if ('report' in r) {
    let files = 0
    let bytes = 0
    for (const f of r.snapshot.files) {
      if (f.data === undefined) continue
      files++
      bytes += f.data.length
      if (!keepData) delete f.data
    }
    if (!keepData) for (const c of r.snapshot.snapshots ?? []) delete c.data
    r.filesRead = files
    r.bytesRead = bytes
  }
  return r
}

/**
 * The size above which a scan classifies files by streaming: `streamThresholdBytes`, else a positive integer
 * `CHATDOCTOR_STREAM_THRESHOLD` in `env`; undefined for the default (`STREAM_THRESHOLD_BYTES`).
 */
export function streamThresholdOf(opts: Pick<ScanOptions, 'streamThresholdBytes' | 'env'>): number | undefined {
  const envThreshold = Number(opts.env.CHATDOCTOR_STREAM_THRESHOLD)
  return opts.streamThresholdBytes ?? (Number.isInteger(envThreshold) && envThreshold > 0 ? envThreshold : undefined)
}

/**
 * Diagnoses the found chats `queue` names, handed out in its order; `onDone` gets each outcome as it comes (not
 * necessarily in that order when workers run). Returns how many chats workers diagnosed.
 *
 * The main thread diagnoses chats one after another. When the scan turns out large (`PARALLEL_AFTER_MS` spent
 * and `PARALLEL_PAYS_MS` or more to go at the rate so far) and its chats small (`PARALLEL_MAX_CHAT_BYTES` on
 * average), it starts up to `workers` worker threads, which
 * take batches of the remaining chats from the same queue while the main thread goes on with single chats,
 * so every core works and a small scan never pays a worker's start-up (~0.1–0.2 s of module loading). A
 * worker that dies has its chats diagnosed on the main thread.
 */
async function diagnoseAll(chats: Discovery['chats'], queue: readonly number[], opts: ScanOptions, progress: ScanProgress, onDone: (index: number, outcome: ChatOutcome) => void, keyring?: SnapshotKeyring, fullDirs: ReadonlySet<string> = new Set()): Promise<number> {
  const keepData = opts.keepData !== false
  const threshold = streamThresholdOf(opts)
  const envLog = Number(opts.env.CHATDOCTOR_LOG_STREAM_THRESHOLD)
  const logThreshold = opts.logStreamThresholdBytes ?? (Number.isInteger(envLog) && envLog > 0 ? envLog : undefined)
  const chatOpts = {streamThreshold: threshold, logStreamThreshold: logThreshold, keyring, verdictOnly: opts.verdictOnly === true}
  // A chat of a folder in `fullDirs` is diagnosed in full even by a verdict-only scan.
  const full = (i: number) => fullDirs.has(chats[i].unit.dir)
  const optsOf = (i: number) => (chatOpts.verdictOnly && full(i) ? {...chatOpts, verdictOnly: false} : chatOpts)
  let inWorkers = 0
  const done = (i: number, r: ChatOutcome) => {
    progress.chatsDone++
    progress.filesRead += r.filesRead ?? 0
    progress.bytesRead += r.bytesRead ?? 0
    opts.onProgress?.(progress)
    onDone(i, r)
  }
  const maxWorkers = !keepData && opts.adapters === undefined ? Math.max(0, Math.floor(opts.workers ?? workerLimit(opts.env))) : 0
  const after = opts.parallelAfterMs ?? PARALLEL_AFTER_MS
  // The default count waits for an idle core: the machine's idle time is read now and at each look.
  const onIdle = opts.workers === undefined && workersAuto(opts.env) && maxWorkers > 0
  let idleAt = onIdle ? {ms: idleMs(), t: performance.now()} : null
  let looked = false
  let idle = Infinity
  // The shared queue: chat indexes not yet handed out (`queue` from `next` on), and those a dead worker gave back.
  let next = 0
  const retry: number[] = []
  const take = (): number | undefined => (retry.length > 0 ? retry.pop() : next < queue.length ? queue[next++] : undefined)
  const left = () => queue.length - next + retry.length

  let pool: WorkerPool | null = null
  const t0 = performance.now()
  let mainDone = 0
  let mainBytes = 0
  for (;;) {
    if (pool === null && maxWorkers > 0 && left() >= 2) {
      const spent = performance.now() - t0
      const small = mainBytes <= PARALLEL_MAX_CHAT_BYTES * Math.max(1, mainDone)
      let pays = after === 0 || (small && spent >= after && (spent / Math.max(1, mainDone)) * left() >= PARALLEL_PAYS_MS)
      if (pays && idleAt) {
        const now = performance.now()
        if (looked && now - idleAt.t < IDLE_RECHECK_MS) pays = false
        else {
          const ms = idleMs()
          idle = idleCores(idleAt.ms, ms, now - idleAt.t)
          pays = idle >= WORKER_IDLE_CORES
          idleAt = {ms, t: now}
          looked = true
        }
      }
      if (pays) {
        // On idle cores only: as many workers as cores idled (at least one, since at least half of one did).
        pool = await WorkerPool.start(Math.min(maxWorkers, left() - 1, Math.max(1, Math.round(idle))), {home: opts.home, ...chatOpts}, take, left, (i, r) => {
          if ('report' in r) {
            ;(r as ScannedChat).adapter = chats[i].adapter
            ;(r as ScannedChat).snapshot.unit = chats[i].unit // the worker leaves it out (the main thread has it)
          }
          inWorkers++
          done(i, r)
        }, (items) => retry.push(...items), chats, full)
      }
    }
    const i = take()
    if (i === undefined) break
    const r = await diagnoseUnit(chats[i].unit, chats[i].adapter, opts.home, keepData, optsOf(i))
    done(i, r)
    mainDone++
    mainBytes += r.bytesRead ?? 0
    // Let the workers' results in (and hand them more work) between chats.
    if (pool) await new Promise((resolve) => setImmediate(resolve))
  }
  if (pool) {
    await pool.finished()
    // Chats a dead worker gave back after the main thread ran out of work.
    for (let i = take(); i !== undefined; i = take()) done(i, await diagnoseUnit(chats[i].unit, chats[i].adapter, opts.home, keepData, optsOf(i)))
  }
  return inWorkers
}

/** Worker threads fed in batches from a queue owned by `diagnoseAll`. */
class WorkerPool {
  private readonly pending: Array<Promise<void>> = []

  /**
   * Starts `n` workers; each gets a first batch at once (so a started worker always diagnoses something) and
   * keeps two batches in flight, so it never waits for the main thread to finish a chat before it has more.
   */
  static async start(
    n: number,
    data: {home: string; streamThreshold?: number; logStreamThreshold?: number; keyring?: SnapshotKeyring; verdictOnly?: boolean},
    take: () => number | undefined,
    left: () => number,
    onResult: (index: number, outcome: ChatOutcome) => void,
    giveBack: (indexes: number[]) => void,
    chats: Discovery['chats'],
    full: (index: number) => boolean,
  ): Promise<WorkerPool> {
    const {Worker} = await import('node:worker_threads')
    const pool = new WorkerPool()
    for (let w = 0; w < n; w++) {
      const worker = new Worker(scanWorkerUrl(), {workerData: data, resourceLimits: {maxYoungGenerationSizeMb: WORKER_YOUNG_MB}})
      const inFlight = new Map<number, number[]>()
      let batchId = 0
      let closed = false
      const send = (): boolean => {
        const size = Math.max(1, Math.min(32, Math.floor(left() / ((n + 1) * 4))))
        const items: Array<{index: number; unit: ChatUnit; adapter: string; full?: true}> = []
        for (let k = 0; k < size; k++) {
          const i = take()
          if (i === undefined) break
          items.push({index: i, unit: chats[i].unit, adapter: chats[i].adapter.name, ...(full(i) ? {full: true as const} : {})})
        }
        if (items.length === 0) return false
        inFlight.set(++batchId, items.map((it) => it.index))
        worker.postMessage({batch: batchId, items})
        return true
      }
      pool.pending.push(
        new Promise<void>((resolve) => {
          const close = () => {
            if (closed) return
            closed = true
            for (const indexes of inFlight.values()) giveBack(indexes)
            inFlight.clear()
            void worker.terminate()
            resolve()
          }
          worker.on('message', (msg: {batch: number; results: Array<{index: number; outcome: ChatOutcome}>}) => {
            inFlight.delete(msg.batch)
            for (const {index, outcome} of msg.results) onResult(index, outcome)
            if (!send() && inFlight.size === 0) close()
          })
          worker.on('error', close)
          worker.on('exit', close)
          send()
          send()
          if (inFlight.size === 0) close()
        }),
      )
    }
    return pool
  }

  /** Resolves when every worker has emptied the queue and returned its last batch (or died). */
  async finished(): Promise<void> {
    await Promise.all(this.pending)
  }
}
