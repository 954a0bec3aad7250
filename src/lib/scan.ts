/**
 * The scan pipeline: discover → inventory → diagnose (classify, measure, rank) → report. `scan`, `repair`,
 * `check` and `inspect` all go through `scanPaths`, so they agree on every verdict. Read-only.
 */
import {discover} from './discover.js'
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
export async function scanChat(unit: ChatUnit, adapter: FormatAdapter, home: string): Promise<ScannedChat | {skipped: Skipped} | {error: OperationalError}> {
  let snapshot: ChatDirSnapshot
  try {
    snapshot = await readChat(unit, adapter)
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
  for (const {unit, adapter} of found.chats) {
    const r = await scanChat(unit, adapter, opts.home)
    if ('error' in r) result.errors.push(r.error)
    else if ('skipped' in r) result.skipped.push(r.skipped)
    else {
      result.chats.push(r)
      for (const f of r.snapshot.files) if (f.readError) result.errors.push({path: tildify(`${unit.dir}/${f.name}`, opts.home), message: f.readError})
    }
  }
  const byPath = (a: {path: string}, b: {path: string}) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
  result.chats.sort((a, b) => byPath(a.report, b.report))
  result.skipped.sort(byPath)
  return result
}
