/**
 * `scan --quick`: the same discovery as a full scan, then for each chat only `lstat` and the two ends of each
 * file (`classify/quick.ts`), so the time per chat does not depend on file sizes. A file no larger than the two
 * windows is read whole and classified exactly; a larger one only from its ends (`verified: false`). No
 * measuring, so no turns, no ranking by content: a chat is `healthy` when its primary is intact (or, read at
 * its ends only, looks whole there), `repairable` when it is not but a backup or temp is (the newest by mtime
 * is named winner); with none, a file the adapter says embeds copies of the context (`quick.embedded`) decides:
 * read whole, its newest copy holding context is the winner (`repairable`); read at its ends only, the chat is
 * `repairable` and unverified with no winner (never called lost on what was not read); `unrecoverable` otherwise. Damage in the middle of a file read at its ends is not detected:
 * the report says so (`quick.notDetected`), and a chat whose status rests on such a file is `verified: false`
 * and sets exit bit 8 unless the user accepts ends that look whole (`--trust-ends`, `quickExitCode`).
 */
import {closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync} from 'node:fs'
import path from 'node:path'
import {QUICK_WINDOW, classifyQuick, type FileEnds, type QuickWindow} from '../classify/quick.js'
import {discover, searchedOf, type Discovery} from './discover.js'
import {EXIT_OPERATIONAL} from '../model/exit-codes.js'
import {finding} from '../model/findings.js'
import type {FormatAdapter} from '../model/adapter.js'
import {ADAPTERS, UNSUPPORTED_AGENTS} from '../formats/index.js'
import type {ChatReport, Finding, Generation, OperationalError, Role, Skipped} from '../model/report.js'
import {tildify} from '../fsio/paths.js'
import {scanExitCode} from './report.js'
import type {ScanOptions} from './scan.js'
import {addQuickNotRegular} from './not-regular.js'

/** What a quick scan reports it could not see, for the report's `quick` field. */
export const QUICK_NOT_DETECTED = 'damage in the middle of a file larger than the head and tail windows (NUL runs, invalid UTF-8, syntax errors, a cut that happens to end in a closing brace, a wrong shape), which generation holds more turns, and the copies of the agent context embedded in a file read only at its ends (a full scan reads them)'

/** The report's `quick` field: how much of each file was read, what that cannot detect, and the exit rule. */
export function quickInfo(unverified: number, trustEnds = false): {headBytes: number; tailBytes: number; notDetected: string; trustEnds: boolean; unverified: number} {
  return {headBytes: QUICK_WINDOW.headBytes, tailBytes: QUICK_WINDOW.tailBytes, notDetected: QUICK_NOT_DETECTED, trustEnds, unverified}
}

/**
 * The exit status of a quick scan: the `scan` bitmask, plus bit 8 when a chat's status rests on a file read
 * only at its ends (`verified: false`), unless `trustEnds`: quick mode never exits 0 on what it did not read.
 */
export function quickExitCode(chats: ChatReport[], errors: OperationalError[], trustEnds: boolean): number {
  return quickExit(scanExitCode(chats, errors), chats.filter((c) => c.verified === false).length, trustEnds)
}

/** `quickExitCode` from the `scan` exit status and the number of chats judged by the ends of a file only. */
export function quickExit(scanCode: number, unverified: number, trustEnds: boolean): number {
  return !trustEnds && unverified > 0 ? scanCode | EXIT_OPERATIONAL : scanCode
}

/** Reads a file's size and ends: the whole file when it is at most head + tail bytes. Throws on I/O errors. */
export function readEnds(file: string, window: QuickWindow = QUICK_WINDOW): FileEnds {
  const {headBytes, tailBytes} = window
  const fd = openSync(file, 'r')
  try {
    const size = fstatSync(fd).size
    if (size <= headBytes + tailBytes) {
      const all = Buffer.allocUnsafe(size)
      let got = 0
      while (got < size) {
        const n = readSync(fd, all, got, size - got, got)
        if (n === 0) break
        got += n
      }
      const b = all.subarray(0, got)
      return {size: got, head: b, tail: b}
    }
    const head = Buffer.allocUnsafe(headBytes)
    const tail = Buffer.allocUnsafe(tailBytes)
    const h = readSync(fd, head, 0, headBytes, 0)
    const t = readSync(fd, tail, 0, tailBytes, size - tailBytes)
    return {size, head: head.subarray(0, h), tail: tail.subarray(0, t)}
  } finally {
    closeSync(fd)
  }
}

const STATE_ROLES: readonly Role[] = ['primary', 'backup', 'temp']

/** One entry of a chat dir as quick mode saw it: lstat facts, and the ends of a file it classifies. */
export interface QuickEntry {
  name: string
  isFile: boolean
  size: number
  mtimeMs: number
  /** The file's ends, for a file of a known role the adapter reads; absent otherwise. */
  ends?: FileEnds
  /** Why the file could not be read, when it could not. */
  readError?: string
}

/**
 * Quick diagnosis of one chat from its entries (pure; `quickChat` reads them). Returns null when the chat holds
 * no file of a known role. `path` and `id` are the chat dir's; the caller names it.
 */
export function quickDiagnose(dir: string, entries: QuickEntry[], adapter: FormatAdapter): {report: ChatReport; unreadable: Array<{name: string; message: string}>} | null {
  const roleOf = adapter.quick?.roleOf
  const generations: Generation[] = []
  const findings: Finding[] = []
  const unreadable: Array<{name: string; message: string}> = []
  for (const e of entries) {
    const role: Role = roleOf && e.isFile ? roleOf(e.name) : 'other'
    const g: Generation = {file: e.name, role, class: null, reasons: [], bytes: e.size, mtimeMs: e.mtimeMs, sha256: null, turns: null}
    if (role !== 'other' && adapter.wantsContent(e.name)) {
      if (e.ends) {
        const c = classifyQuick(e.ends)
        g.class = c.class
        g.reasons = c.reasons
        if (c.damage) g.damage = c.damage
        g.verified = c.verified
      } else {
        g.class = 'corrupt'
        g.reasons = ['unreadable']
        unreadable.push({name: e.name, message: e.readError ?? 'could not be read'})
        findings.push(finding('unreadable', e.name, `could not read ${e.name}`))
      }
    }
    generations.push(g)
  }
  const known = generations.filter((g) => g.role !== 'other')
  if (known.length === 0) return null
  const atEnds = (g: Generation) => (g.verified === false ? ' at its ends' : '')
  let primary = generations.find((g) => g.role === 'primary')
  if (!primary) {
    primary = {file: adapter.quick?.primary ?? 'primary', role: 'primary', class: 'missing', reasons: [], bytes: 0, mtimeMs: null, sha256: null, turns: null}
    generations.unshift(primary)
    findings.push(finding('primary-missing', primary.file, `${primary.file} is missing`))
  } else if (primary.class !== 'intact') findings.push(finding('primary-damaged', primary.file, `${primary.file} is ${primary.class}${primary.reasons.length ? ` (${primary.reasons.join(', ')})` : ''}${atEnds(primary)}`))
  for (const g of generations) {
    if (g.role === 'backup' && g.class !== 'intact') findings.push(finding('backup-damaged', g.file, `backup is ${g.class}${atEnds(g)}`))
    if (g.role === 'temp') findings.push(g.class === 'intact' ? finding('temp-leftover', g.file, g.verified === false ? 'leftover temp, its ends look whole' : 'leftover temp, intact') : finding('temp-damaged', g.file, `leftover temp is ${g.class}${atEnds(g)}`))
    if (g.role === 'transcript' && g.class !== 'intact') findings.push(finding('transcript-damaged', g.file, `transcript is ${g.class}${atEnds(g)}`))
  }
  const usable = generations.filter((g) => STATE_ROLES.includes(g.role) && g.class === 'intact' && g !== primary)
  usable.sort((a, b) => (b.mtimeMs ?? 0) - (a.mtimeMs ?? 0))
  let status: ChatReport['status'] = primary.class === 'intact' ? 'healthy' : usable.length > 0 ? 'repairable' : 'unrecoverable'
  let winner: string | null = primary.class === 'intact' ? primary.file : usable[0]?.file ?? null
  // What the status rests on: the primary of a healthy chat, the winner of a repairable one.
  let basis = status === 'healthy' ? primary : status === 'repairable' ? usable[0] : undefined
  // No state file is usable: a file that embeds copies of the context is looked into when it was read whole; one
  // read only at its ends may hold them, so the chat is never called lost on it (a full scan decides).
  const embeds = adapter.quick?.embedded
  if (status === 'unrecoverable' && embeds) {
    for (const g of generations) {
      if (g.role !== embeds.role || g.class !== 'intact') continue
      const ends = entries.find((e) => e.name === g.file)?.ends
      if (!ends) continue
      if (g.verified !== false && ends.head.length === ends.size) {
        const copy = embeds.find(g.file, ends.head)
        if (copy === null) continue
        status = 'repairable'
        winner = copy
        basis = g
        break
      }
      status = 'repairable'
      winner = null
      basis = g
      findings.push(finding('unverified', g.file, `no state file is usable, and ${g.file} was read only at its ends (${g.bytes} bytes, more than the quick windows): quick mode does not look for the copies of the agent context embedded in it; a full scan does, and says whether the chat is repairable or lost`))
      break
    }
  }
  if (status === 'unrecoverable') findings.push(finding('context-lost', null, `no generation of the agent context is intact or looks whole at its ends${embeds ? `, and ${generations.some((g) => g.role === embeds.role && g.class === 'intact') ? 'no copy embedded in a file read whole holds it' : `no intact ${embeds.role} holds a copy of it`}` : ''}`))
  const verified = basis?.verified !== false && !(basis && winner === null)
  if (!verified && winner !== null) findings.push(finding('unverified', basis!.file, `${basis!.file} was read only at its ends (${basis!.bytes} bytes, more than the quick windows): they look whole, the middle was not checked; a full scan verifies it`))
  return {
    report: {path: dir, format: adapter.name, id: path.basename(dir), status, winner, transcriptTurns: null, contextTurns: null, findings, generations, ranking: [], verified},
    unreadable,
  }
}

/**
 * The entry standing for a chat of named files none of which is a regular file (a symbolic link, FIFO, socket or
 * device, or a folder beside them), with its kind as `lstat` gives it; undefined for any other chat.
 */
function onlyNotRegularEntry(dir: string, entries: QuickEntry[]): {name: string; kind: 'symlink' | 'other'} | undefined {
  if (entries.length === 0 || entries.some((e) => e.isFile)) return undefined
  for (const e of entries) {
    const st = lstatSync(path.join(dir, e.name), {throwIfNoEntry: false})
    if (st && !st.isDirectory()) return {name: e.name, kind: st.isSymbolicLink() ? 'symlink' : 'other'}
  }
  return undefined
}

/** Quick diagnosis of one chat dir's files (reads them, then `quickDiagnose`). Null when no file has a known role. */
function quickChat(dir: string, files: string[] | undefined, adapter: FormatAdapter, home: string, errors: OperationalError[]): ChatReport | null {
  let names = readdirSync(dir)
  if (files !== undefined) names = names.filter((n) => files.includes(n))
  names.sort()
  const entries: QuickEntry[] = []
  for (const name of names) {
    const p = path.join(dir, name)
    let st
    try {
      st = lstatSync(p)
    } catch {
      continue
    }
    const e: QuickEntry = {name, isFile: st.isFile(), size: st.size, mtimeMs: st.mtimeMs}
    const roleOf = adapter.quick?.roleOf
    const role: Role = roleOf && st.isFile() ? roleOf(name) : 'other'
    if (role !== 'other' && adapter.wantsContent(name)) {
      try {
        e.ends = readEnds(p)
      } catch (err) {
        e.readError = (err as Error).message
      }
    }
    entries.push(e)
  }
  const only = files === undefined ? undefined : onlyNotRegularEntry(dir, entries)
  if (only) {
    // As a full scan says (`onlyNotRegular`): never read, left for the step by hand, never a lost session.
    const report: ChatReport = {path: tildify(dir, home), format: adapter.name, id: path.basename(dir), status: 'repairable', winner: null, transcriptTurns: null, contextTurns: null, findings: [], generations: [{file: only.name, role: 'primary', class: null, reasons: [], bytes: 0, mtimeMs: null, sha256: null, turns: null}], ranking: [], verified: true}
    addQuickNotRegular(report, dir, only.name, only.kind)
    return report
  }
  const d = quickDiagnose(tildify(dir, home), entries, adapter)
  if (!d) return null
  for (const u of d.unreadable) errors.push({path: tildify(path.join(dir, u.name), home), message: u.message})
  // A primary that is a symbolic link or special file: what repair never replaces (`not-regular.ts`).
  const primary = adapter.quick?.primary
  const odd = primary !== undefined && entries.some((e) => e.name === primary && !e.isFile) ? lstatSync(path.join(dir, primary), {throwIfNoEntry: false}) : undefined
  if (odd && primary !== undefined) {
    addQuickNotRegular(d.report, dir, primary, odd.isSymbolicLink() ? 'symlink' : odd.isDirectory() ? 'directory' : 'other')
  }
  return d.report
}

/**
 * Runs discovery and the quick diagnosis over PATHs, handing each chat's report to `onChat` in the report's
 * order (by path, ties in discovery order) as soon as it is made, so no report is held. Errors and skips
 * come in the result, in the order a held scan gives them (discovery's, the chats' in discovery order).
 */
export async function quickScanEach(paths: string[], opts: ScanOptions, onChat: (chat: ChatReport) => void): Promise<{skipped: Skipped[]; errors: OperationalError[]} & Pick<Discovery, 'roots' | 'notChatFiles'>> {
  const adapters = opts.adapters ?? ADAPTERS
  const found = await discover(paths, adapters, opts.home, opts.env, opts.unsupported ?? UNSUPPORTED_AGENTS)
  const errors: OperationalError[] = found.errors.map((e) => ({...e, path: tildify(e.path, opts.home)}))
  const skipped: Skipped[] = found.skipped.map((s) => ({...s, path: tildify(s.path, opts.home)}))
  const progress = {chatsDone: 0, chatsTotal: found.chats.length, filesRead: 0, bytesRead: 0}
  opts.onProgress?.(progress)
  const keys = found.chats.map((c) => tildify(c.unit.path, opts.home))
  const order = keys.map((_, i) => i).sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : a - b))
  // Each chat's errors, by its discovery index (listed in discovery order, as the chats were read before).
  const chatErrors: Array<[number, OperationalError[]]> = []
  for (const i of order) {
    const {unit, adapter} = found.chats[i]
    const own: OperationalError[] = []
    try {
      const r = quickChat(unit.dir, unit.files, adapter, opts.home, own)
      if (r) {
        r.path = keys[i]
        for (const g of r.generations) if (g.class !== null && g.class !== 'missing') {
          progress.filesRead++
          progress.bytesRead += Math.min(g.bytes, QUICK_WINDOW.headBytes + QUICK_WINDOW.tailBytes)
        }
        onChat(r)
      } else skipped.push({path: keys[i], reason: 'no file of a known role'})
    } catch (e) {
      own.push({path: keys[i], message: (e as Error).message})
    }
    if (own.length > 0) chatErrors.push([i, own])
    progress.chatsDone++
    opts.onProgress?.(progress)
  }
  for (const [, own] of chatErrors.sort((a, b) => a[0] - b[0])) errors.push(...own)
  const byPath = (a: {path: string}, b: {path: string}) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
  skipped.sort(byPath)
  return {skipped, errors, ...searchedOf(found, opts.home)}
}

/** `quickScanEach` with the reports held, sorted by path. Same result shape as a full scan, without snapshots. */
export async function quickScanPaths(paths: string[], opts: ScanOptions): Promise<{chats: ChatReport[]; skipped: Skipped[]; errors: OperationalError[]} & Pick<Discovery, 'roots' | 'notChatFiles'>> {
  const chats: ChatReport[] = []
  const r = await quickScanEach(paths, opts, (c) => chats.push(c))
  return {chats, ...r}
}
