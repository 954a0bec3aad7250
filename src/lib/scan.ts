/**
 * The scan pipeline: discover → inventory → diagnose (classify, measure, rank) → report. `scan`, `repair`,
 * `check` and `inspect` all go through `scanPaths`, so they agree on every verdict. Read-only.
 */
import {discover, type Discovery} from './discover.js'
import type {ChatDirSnapshot, ChatUnit, FormatAdapter} from './formats/adapter.js'
import {ADAPTERS} from './formats/index.js'
import {readChat} from './inventory.js'
import type {ChatReport, OperationalError, Skipped} from './model.js'
import {tildify} from './paths.js'

/** Options of a scan. `home` is used for default roots and to write paths as `~`. */
export interface ScanOptions {
  home: string
  env: NodeJS.ProcessEnv
  adapters?: readonly FormatAdapter[]
  /**
   * Keep the bytes read (`snapshot.files[].data`) in the result. Default true (`repair` writes the exact bytes
   * of a generation). `scan` passes false: each chat's bytes are dropped once it is diagnosed, so memory stays
   * about one chat's worth instead of the whole fleet's (issue #7).
   */
  keepData?: boolean
  /**
   * Parallel diagnosis (issue #7): with n > 0, n + 1 worker threads diagnose the chats while the main thread
   * hands them out (so n = cores - 1 uses every core). Used only when `keepData` is false, the default adapters
   * are in use and there are at least `PARALLEL_MIN_CHATS` chats. Default 0 (all on the main thread).
   */
  workers?: number
  /**
   * Files above this many bytes are classified by streaming (`inventory.ts`, `STREAM_THRESHOLD_BYTES` by
   * default; `CHATDOCTOR_STREAM_THRESHOLD` in `env` overrides it, for tests and the benchmark).
   */
  streamThresholdBytes?: number
  /** Called after discovery and after each chat, with running totals (for a progress display). */
  onProgress?: (progress: ScanProgress) => void
}

/** Running totals of a scan, for a progress display. Bytes are the sizes of the files read. */
export interface ScanProgress {
  chatsDone: number
  chatsTotal: number
  filesRead: number
  bytesRead: number
}

/** One diagnosed chat with what the diagnosis was made from (for `repair`'s plan and live-chat check). */
export interface ScannedChat {
  report: ChatReport
  snapshot: ChatDirSnapshot
  adapter: FormatAdapter
}

/** What a scan found: chats sorted by `path`, skipped dirs and operational errors. */
export interface ScanResult {
  chats: ScannedChat[]
  skipped: Skipped[]
  errors: OperationalError[]
}

/** Diagnoses one chat that discovery found. Never throws: an unreadable folder becomes an error. */
export async function scanChat(unit: ChatUnit, adapter: FormatAdapter, home: string, streamThreshold?: number): Promise<ScannedChat | {skipped: Skipped} | {error: OperationalError}> {
  let snapshot: ChatDirSnapshot
  try {
    snapshot = await readChat(unit, adapter, {streamThresholdBytes: streamThreshold})
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    const why = err.code === 'ENOENT' ? 'the chat disappeared during the scan' : err.message
    return {error: {path: tildify(unit.path, home), message: why}}
  }
  const d = adapter.diagnose(snapshot)
  if (d.kind === 'skipped') return {skipped: {path: tildify(unit.path, home), reason: d.reason}}
  return {report: {path: tildify(unit.path, home), ...d.report}, snapshot, adapter}
}

/** Runs discovery and diagnosis over PATHs (or the default roots when `paths` is empty). */
export async function scanPaths(paths: string[], opts: ScanOptions): Promise<ScanResult> {
  const adapters = opts.adapters ?? ADAPTERS
  const found = await discover(paths, adapters, opts.home, opts.env)
  const result: ScanResult = {
    chats: [],
    skipped: found.skipped.map((s) => ({...s, path: tildify(s.path, opts.home)})),
    errors: found.errors.map((e) => ({...e, path: tildify(e.path, opts.home)})),
  }
  const progress: ScanProgress = {chatsDone: 0, chatsTotal: found.chats.length, filesRead: 0, bytesRead: 0}
  opts.onProgress?.(progress)
  const outcomes = await diagnoseAll(found.chats, opts, progress)
  for (let i = 0; i < outcomes.length; i++) {
    const r = outcomes[i]
    if ('error' in r) result.errors.push(r.error)
    else if ('skipped' in r) result.skipped.push(r.skipped)
    else {
      result.chats.push(r)
      const dir = found.chats[i].unit.dir
      for (const f of r.snapshot.files) if (f.readError) result.errors.push({path: tildify(`${dir}/${f.name}`, opts.home), message: f.readError})
    }
  }
  const byPath = (a: {path: string}, b: {path: string}) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
  result.chats.sort((a, b) => byPath(a.report, b.report))
  result.skipped.sort(byPath)
  return result
}

// ---- parallel diagnosis (issue #7) -----------------------------------------------------------------------

/** Below this many chats a scan stays on the main thread (a worker's start-up, ~0.1–0.2 s, would not pay). */
export const PARALLEL_MIN_CHATS = 8

/** What diagnosing one chat gives, plus the files and bytes it read (for progress). */
export type ChatOutcome = (ScannedChat | {skipped: Skipped} | {error: OperationalError}) & {filesRead?: number; bytesRead?: number}

/** Diagnoses one chat and, unless `keepData`, drops the bytes read. Never throws. */
export async function diagnoseUnit(unit: ChatUnit, adapter: FormatAdapter, home: string, keepData: boolean, streamThreshold?: number): Promise<ChatOutcome> {
  const r: ChatOutcome = await scanChat(unit, adapter, home, streamThreshold)
  if ('report' in r) {
    let files = 0
    let bytes = 0
    for (const f of r.snapshot.files) {
      if (f.data === undefined) continue
      files++
      bytes += f.data.length
      if (!keepData) delete f.data
    }
    r.filesRead = files
    r.bytesRead = bytes
  }
  return r
}

/**
 * Diagnoses every found chat, in discovery order. With workers, chats are handed out in batches to whichever
 * worker is free, so a few huge chats do not leave a core idle; results come back in discovery order whatever
 * finished first.
 */
async function diagnoseAll(chats: Discovery['chats'], opts: ScanOptions, progress: ScanProgress): Promise<ChatOutcome[]> {
  const keepData = opts.keepData !== false
  const envThreshold = Number(opts.env.CHATDOCTOR_STREAM_THRESHOLD)
  const threshold = opts.streamThresholdBytes ?? (Number.isInteger(envThreshold) && envThreshold > 0 ? envThreshold : undefined)
  const out: ChatOutcome[] = new Array(chats.length)
  const done = (i: number, r: ChatOutcome) => {
    out[i] = r
    progress.chatsDone++
    progress.filesRead += r.filesRead ?? 0
    progress.bytesRead += r.bytesRead ?? 0
    opts.onProgress?.(progress)
  }
  const nWorkers = !keepData && opts.adapters === undefined && chats.length >= PARALLEL_MIN_CHATS ? Math.max(0, Math.floor(opts.workers ?? 0)) : 0
  let next = 0
  if (nWorkers === 0) {
    for (; next < chats.length; next++) done(next, await diagnoseUnit(chats[next].unit, chats[next].adapter, opts.home, keepData, threshold))
    return out
  }
  // The main thread only hands out work: `nWorkers + 1` workers (one per core), each given a batch of chats at
  // a time (small batches near the end, so one slow chat does not hold the others back).
  const {Worker} = await import('node:worker_threads')
  const finished: Array<Promise<void>> = []
  const threads = nWorkers + 1
  for (let w = 0; w < threads; w++) {
    const worker = new Worker(new URL('./scan-worker.js', import.meta.url), {workerData: {home: opts.home, streamThreshold: threshold}})
    finished.push(
      new Promise<void>((resolve, reject) => {
        const feed = () => {
          if (next >= chats.length) {
            void worker.terminate()
            resolve()
            return
          }
          const size = Math.max(1, Math.min(32, Math.floor((chats.length - next) / (threads * 4))))
          const items = []
          for (let k = 0; k < size && next < chats.length; k++, next++) items.push({index: next, unit: chats[next].unit, adapter: chats[next].adapter.name})
          worker.postMessage(items)
        }
        worker.on('message', (results: Array<{index: number; outcome: ChatOutcome}>) => {
          for (const {index, outcome} of results) {
            if ('report' in outcome) (outcome as ScannedChat).adapter = chats[index].adapter
            done(index, outcome)
          }
          feed()
        })
        worker.on('error', reject)
        feed()
      }),
    )
  }
  await Promise.all(finished)
  return out
}
