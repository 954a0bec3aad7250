/**
 * `scan --quick`: the same discovery as a full scan, then for each chat only `lstat` and the two ends of each
 * file (`classify/quick.ts`), so the time per chat does not depend on file sizes. No parsing, so no turns, no
 * ranking by content: a chat is `healthy` when its primary looks intact at both ends, `repairable` when it
 * does not but a backup or temp does (the newest by mtime is named winner), `unrecoverable` otherwise.
 * Damage in the middle of a file is not detected: the report says so (`quick.notDetected`).
 */
import {closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync} from 'node:fs'
import path from 'node:path'
import {QUICK_HEAD_BYTES, QUICK_TAIL_BYTES, classifyEnds, type FileEnds} from '../classify/quick.js'
import {discover, searchedOf, type Discovery} from './discover.js'
import {finding} from '../model/findings.js'
import type {FormatAdapter} from '../model/adapter.js'
import {ADAPTERS, UNSUPPORTED_AGENTS} from '../formats/index.js'
import type {ChatReport, Finding, Generation, OperationalError, Role, Skipped} from '../model/report.js'
import {tildify} from '../fsio/paths.js'
import type {ScanOptions} from './scan.js'

/** What a quick scan reports it could not see, for the report's `quick` field. */
export const QUICK_NOT_DETECTED = 'damage in the middle of a file (NUL runs, invalid UTF-8, syntax errors, a wrong shape) and which generation holds more turns'

/** The report's `quick` field: how much of each file was read and what that cannot detect. */
export function quickInfo(): {headBytes: number; tailBytes: number; notDetected: string} {
  return {headBytes: QUICK_HEAD_BYTES, tailBytes: QUICK_TAIL_BYTES, notDetected: QUICK_NOT_DETECTED}
}

/** Reads a file's size and ends: the whole file when it is at most head + tail bytes. Throws on I/O errors. */
export function readEnds(file: string): FileEnds {
  const fd = openSync(file, 'r')
  try {
    const size = fstatSync(fd).size
    if (size <= QUICK_HEAD_BYTES + QUICK_TAIL_BYTES) {
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
    const head = Buffer.allocUnsafe(QUICK_HEAD_BYTES)
    const tail = Buffer.allocUnsafe(QUICK_TAIL_BYTES)
    const h = readSync(fd, head, 0, QUICK_HEAD_BYTES, 0)
    const t = readSync(fd, tail, 0, QUICK_TAIL_BYTES, size - QUICK_TAIL_BYTES)
    return {size, head: head.subarray(0, h), tail: tail.subarray(0, t)}
  } finally {
    closeSync(fd)
  }
}

const STATE_ROLES: readonly Role[] = ['primary', 'backup', 'temp']

/** Quick diagnosis of one chat dir's files. Returns null when the folder holds no file of a known role. */
function quickChat(dir: string, files: string[] | undefined, adapter: FormatAdapter, home: string, errors: OperationalError[]): ChatReport | null {
  const roleOf = adapter.quick?.roleOf
  let names = readdirSync(dir)
  if (files !== undefined) names = names.filter((n) => files.includes(n))
  names.sort()
  const generations: Generation[] = []
  const findings: Finding[] = []
  for (const name of names) {
    const p = path.join(dir, name)
    let st
    try {
      st = lstatSync(p)
    } catch {
      continue
    }
    const role: Role = roleOf && st.isFile() ? roleOf(name) : 'other'
    const g: Generation = {file: name, role, class: null, reasons: [], bytes: st.size, mtimeMs: st.mtimeMs, sha256: null, turns: null}
    if (role !== 'other' && adapter.wantsContent(name)) {
      try {
        const c = classifyEnds(readEnds(p))
        g.class = c.class
        g.reasons = c.reasons
        if (c.damage) g.damage = c.damage
      } catch (e) {
        g.class = 'corrupt'
        g.reasons = ['unreadable']
        errors.push({path: tildify(p, home), message: (e as Error).message})
        findings.push(finding('unreadable', name, `could not read ${name}`))
      }
    }
    generations.push(g)
  }
  const known = generations.filter((g) => g.role !== 'other')
  if (known.length === 0) return null
  let primary = generations.find((g) => g.role === 'primary')
  if (!primary) {
    primary = {file: adapter.quick?.primary ?? 'primary', role: 'primary', class: 'missing', reasons: [], bytes: 0, mtimeMs: null, sha256: null, turns: null}
    generations.unshift(primary)
    findings.push(finding('primary-missing', primary.file, `${primary.file} is missing`))
  } else if (primary.class !== 'intact') findings.push(finding('primary-damaged', primary.file, `${primary.file} is ${primary.class}${primary.reasons.length ? ` (${primary.reasons.join(', ')})` : ''} at its ends`))
  for (const g of generations) {
    if (g.role === 'backup' && g.class !== 'intact') findings.push(finding('backup-damaged', g.file, `backup is ${g.class} at its ends`))
    if (g.role === 'temp') findings.push(g.class === 'intact' ? finding('temp-leftover', g.file, 'leftover temp, intact at its ends') : finding('temp-damaged', g.file, `leftover temp is ${g.class} at its ends`))
    if (g.role === 'transcript' && g.class !== 'intact') findings.push(finding('transcript-damaged', g.file, `transcript is ${g.class} at its ends`))
  }
  const usable = generations.filter((g) => STATE_ROLES.includes(g.role) && g.class === 'intact' && g !== primary)
  usable.sort((a, b) => (b.mtimeMs ?? 0) - (a.mtimeMs ?? 0))
  const status = primary.class === 'intact' ? 'healthy' : usable.length > 0 ? 'repairable' : 'unrecoverable'
  const winner = primary.class === 'intact' ? primary.file : usable[0]?.file ?? null
  if (status === 'unrecoverable') findings.push(finding('context-lost', null, 'no generation of the agent context looks intact at its ends'))
  return {
    path: tildify(dir, home),
    format: adapter.name,
    id: path.basename(dir),
    status,
    winner,
    transcriptTurns: null,
    contextTurns: null,
    findings,
    generations,
    ranking: [],
  }
}

/** Runs discovery and the quick diagnosis over PATHs. Same result shape as a full scan, without snapshots. */
export async function quickScanPaths(paths: string[], opts: ScanOptions): Promise<{chats: ChatReport[]; skipped: Skipped[]; errors: OperationalError[]} & Pick<Discovery, 'roots' | 'notChatFiles'>> {
  const adapters = opts.adapters ?? ADAPTERS
  const found = await discover(paths, adapters, opts.home, opts.env, opts.unsupported ?? UNSUPPORTED_AGENTS)
  const errors: OperationalError[] = found.errors.map((e) => ({...e, path: tildify(e.path, opts.home)}))
  const skipped: Skipped[] = found.skipped.map((s) => ({...s, path: tildify(s.path, opts.home)}))
  const chats: ChatReport[] = []
  const progress = {chatsDone: 0, chatsTotal: found.chats.length, filesRead: 0, bytesRead: 0}
  opts.onProgress?.(progress)
  for (const {unit, adapter} of found.chats) {
    try {
      const r = quickChat(unit.dir, unit.files, adapter, opts.home, errors)
      if (r) {
        r.path = tildify(unit.path, opts.home)
        chats.push(r)
        for (const g of r.generations) if (g.class !== null && g.class !== 'missing') {
          progress.filesRead++
          progress.bytesRead += Math.min(g.bytes, QUICK_HEAD_BYTES + QUICK_TAIL_BYTES)
        }
      } else skipped.push({path: tildify(unit.path, opts.home), reason: 'no file of a known role'})
    } catch (e) {
      errors.push({path: tildify(unit.path, opts.home), message: (e as Error).message})
    }
    progress.chatsDone++
    opts.onProgress?.(progress)
  }
  const byPath = (a: {path: string}, b: {path: string}) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
  chats.sort(byPath)
  skipped.sort(byPath)
  return {chats, skipped, errors, ...searchedOf(found, opts.home)}
}
