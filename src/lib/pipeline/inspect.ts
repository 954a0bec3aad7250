/**
 * `inspect`: the whole forensic picture of one chat, built from its scan (report + the bytes it was made from):
 * a timeline of every generation, where each tear sits (offset, 4096-byte block alignment, NUL runs), the
 * ranking with reasons, salvage figures, and a plain-language account of what most likely happened. Reads
 * no files (the snapshot holds the bytes) but the NUL runs of a damaged file the scan streamed instead of
 * holding (a large log or state), read from disk a chunk at a time. Never includes message text or file contents.
 */
import path from 'node:path'
import {nulRuns} from '../classify/bytes.js'
import {nulRunsOfFile} from '../classify/stream.js'
import type {Role} from '../model/report.js'
import {adapterByName} from '../formats/index.js'
import type {ScannedChat} from '../model/adapter.js'
import type {Inspection, TearLocation, TimelineEntry} from '../model/inspect.js'

export type {DamagedLine, Inspection, PlannedChange, PlanSummary, TearLocation, TimelineEntry} from '../model/inspect.js'

/** Filesystem block size the tear offsets are compared against (ext4/xfs/apfs default page and block size). */
export const BLOCK_SIZE = 4096
/** At most this many NUL runs are listed per file. */
export const MAX_NUL_RUNS = 20

const CLASSIFIED: ReadonlySet<Role> = new Set(['primary', 'backup', 'temp', 'transcript', 'transcript-temp', 'meta', 'message', 'part', 'compressed', 'export', 'sibling'])

/** The NUL runs of a file the scan did not hold (a streamed log or state), read from disk; none when it cannot be read. */
function fileNulRuns(p: string): Array<{offset: number; length: number}> {
  try {
    return nulRunsOfFile(p, MAX_NUL_RUNS)
  } catch {
    return []
  }
}

/** Builds the inspection of one scanned chat. */
export function inspectChat(scanned: Pick<ScannedChat, 'report' | 'snapshot'>): Inspection {
  const r = scanned.report
  const timeline: TimelineEntry[] = r.generations
    .filter((g) => g.role !== 'other')
    .map((g) => ({
      file: g.file,
      role: g.role,
      class: g.class,
      reasons: g.reasons,
      mtimeMs: g.mtimeMs,
      bytes: g.bytes,
      turns: g.turns,
      firstTurn: g.measure?.firstMatchedTurn ?? null,
      traceSessionId: g.measure?.traceSessionId ?? null,
      interrupted: g.measure?.interrupted ?? false,
    }))
    .sort((a, b) => (a.mtimeMs ?? Infinity) - (b.mtimeMs ?? Infinity) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))

  const tears: TearLocation[] = []
  for (const g of r.generations) {
    if (!CLASSIFIED.has(g.role) || g.class === null || g.class === 'intact' || g.class === 'missing' || g.class === 'contextless') continue
    const f = scanned.snapshot.files.find((x) => x.name === g.file)
    const offset = g.damage?.offset ?? (g.class === 'empty' ? 0 : g.bytes)
    const runs = f?.data ? nulRuns(f.data, 0, f.data.length, MAX_NUL_RUNS) : f ? fileNulRuns(f.path ?? path.join(scanned.snapshot.dir, f.name)) : []
    tears.push({
      file: g.file,
      class: g.class,
      reasons: g.reasons,
      bytes: g.bytes,
      offset,
      length: g.damage?.length ?? 0,
      blockAligned: offset % BLOCK_SIZE === 0,
      offsetInBlock: offset % BLOCK_SIZE,
      nulRuns: runs,
      nulBytes: runs.reduce((n, x) => n + x.length, 0),
    })
  }
  const salvage = r.generations.filter((g) => g.salvage).map((g) => ({file: g.file, ...g.salvage!}))
  const base = {
    path: r.path,
    id: r.id,
    format: r.format,
    status: r.status,
    winner: r.winner,
    transcriptTurns: r.transcriptTurns,
    contextTurns: r.contextTurns,
    timeline,
    tears,
    ranking: r.ranking,
    salvage,
    transcriptRestore: r.transcriptRestore ?? null,
    amnesia: r.amnesia ?? null,
    findings: r.findings,
  }
  const agent = adapterByName(r.format)?.inspect?.(scanned, tears) ?? {account: ''}
  if (agent.damagedLines === undefined) return {...base, account: agent.account}
  return {...base, account: agent.account, damagedLines: agent.damagedLines, plannedChanges: agent.plannedChanges, plans: agent.plans}
}
