/**
 * `inspect`: the whole forensic picture of one chat, built from its scan (report + the bytes it was made from):
 * a timeline of every generation, where each tear sits (offset, 4096-byte block alignment, NUL runs), the
 * ranking with reasons, salvage figures, and a plain-language account of what most likely happened. Pure;
 * reads no files (the snapshot holds the bytes). Never includes message text or file contents.
 */
import {nulRuns, type NulRun} from './classify/bytes.js'
import type {AmnesiaReport, ChatReport, FileClass, Finding, RankEntry, Reason, Role, SalvageReport, TranscriptRestore} from './model.js'
import type {FormatAdapter} from './formats/adapter.js'
import type {ScannedChat} from './scan.js'
import {agentForensics, type DamagedLine, type PlannedChange, type PlanSummary} from './inspect-agents.js'

/** Filesystem block size the tear offsets are compared against (ext4/xfs/apfs default page and block size). */
export const BLOCK_SIZE = 4096
/** At most this many NUL runs are listed per file. */
export const MAX_NUL_RUNS = 20

/** One generation on the timeline. */
export interface TimelineEntry {
  file: string
  role: Role
  class: FileClass | null
  reasons: Reason[]
  /** ms since epoch; null when missing. For an embedded copy: its container's mtime. */
  mtimeMs: number | null
  bytes: number
  /** N for usable context generations, else null. */
  turns: number | null
  /** First transcript turn its prompts match (1-based), null when unknown. */
  firstTurn: number | null
  traceSessionId: string | null
  /** True when its last turn is partial (ends in the interruption note). */
  interrupted: boolean
}

/** Where a damaged file is damaged. Offsets in bytes. */
export interface TearLocation {
  file: string
  class: FileClass
  reasons: Reason[]
  bytes: number
  /** Offset of the first damaged byte. */
  offset: number
  /** Damaged bytes from `offset`. */
  length: number
  /** True when `offset` is a multiple of 4096 (a tear at a page/block boundary). */
  blockAligned: boolean
  /** `offset mod 4096`. */
  offsetInBlock: number
  /** NUL runs in the file (at most `MAX_NUL_RUNS`), offset and length in bytes. */
  nulRuns: NulRun[]
  /** Total NUL bytes in the listed runs. */
  nulBytes: number
}

/** The whole forensic picture of one chat. */
export interface Inspection {
  path: string
  id: string
  format: string
  status: ChatReport['status']
  winner: string | null
  transcriptTurns: number | null
  contextTurns: number | null
  /** Every generation, oldest first (missing ones last). */
  timeline: TimelineEntry[]
  tears: TearLocation[]
  ranking: RankEntry[]
  salvage: Array<SalvageReport & {file: string}>
  transcriptRestore: TranscriptRestore | null
  amnesia: AmnesiaReport | null
  findings: Finding[]
  /** One paragraph: what most likely happened, in plain language. */
  account: string
  /** Claude Code / Codex: every damaged line of each session log generation (inspect-agents.ts). */
  damagedLines?: DamagedLine[]
  /** Claude Code / Codex: the byte changes a repair would make, and each generation's plan in brief. */
  plannedChanges?: PlannedChange[]
  plans?: PlanSummary[]
}

const CLASSIFIED: ReadonlySet<Role> = new Set(['primary', 'backup', 'temp', 'transcript', 'transcript-temp', 'meta', 'message', 'part', 'compressed', 'export'])

/** Builds the inspection of one scanned chat (its adapter's own account when it has one). */
export function inspectChat(scanned: Pick<ScannedChat, 'report' | 'snapshot'> & {adapter?: FormatAdapter}): Inspection {
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
    const data = scanned.snapshot.files.find((f) => f.name === g.file)?.data
    const offset = g.damage?.offset ?? (g.class === 'empty' ? 0 : g.bytes)
    const runs = data ? nulRuns(data, 0, data.length, MAX_NUL_RUNS) : []
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
  const own = scanned.adapter?.inspectAccount?.(scanned)
  if (own !== undefined) return {...base, account: own}
  const agent = agentForensics(scanned)
  if (agent) return {...base, account: agent.account, damagedLines: agent.damagedLines, plannedChanges: agent.plannedChanges, plans: agent.plans}
  return {...base, account: accountOf(r, tears)}
}

function turns(a: number, b: number): string {
  return a === b ? `turn ${a}` : `turns ${a}–${b}`
}

function roleWords(role: Role): string {
  switch (role) {
    case 'primary':
      return 'the primary'
    case 'backup':
      return 'the backup'
    case 'temp':
      return 'a leftover temp'
    case 'embedded':
      return 'a copy embedded in the transcript'
    default:
      return role
  }
}

function tearWords(t: TearLocation): string {
  const at = `byte ${t.offset}${t.blockAligned && t.offset > 0 ? ' (a 4096-byte block boundary)' : ''}`
  switch (t.class) {
    case 'empty':
      return `${t.file} is empty: the process died after creating or truncating it and before writing it`
    case 'zero-filled':
      return `${t.file} holds only zeros (${t.bytes} bytes): its size reached the disk but none of its data, as after a power loss or crash shortly after the save`
    case 'truncated':
      return t.reasons.includes('nul-tail')
        ? `${t.file} stops at ${at} and zeros fill the rest of its ${t.bytes} bytes: the system most likely crashed after the file's size was recorded but before all its data was written`
        : `${t.file} stops mid-document at ${at}: the writing process died (or the disk filled) while saving it`
    default:
      if (t.reasons.includes('nul-tail') && !t.reasons.includes('unexpected-end')) return `${t.file} is complete but padded with ${t.nulBytes} zero bytes from ${at}: a crash left its tail unwritten`
      if (t.reasons.includes('nul-run')) return `${t.file} has zeros inside it from ${at}: blocks of it never reached the disk`
      return `${t.file} is damaged from ${at} (${t.reasons.join(', ') || t.class})`
  }
}

/** The plain-language account: most likely events first, then the best recovery. */
export function accountOf(r: ChatReport, tears: TearLocation[]): string {
  const s: string[] = []
  const primary = r.generations.find((g) => g.role === 'primary')
  const backup = r.generations.find((g) => g.role === 'backup')
  const N = r.contextTurns
  const M = r.transcriptTurns
  const of = (n: number | null) => (n === null ? '' : M !== null ? ` (turn ${n} of ${M})` : ` (turn ${n})`)
  const pTear = tears.find((t) => t.file === primary?.file)
  if (primary?.class === 'missing') {
    s.push(backup ? `The primary state file is missing while a backup exists: the process most likely died between rotating the primary to ${backup.file} and writing the new one.` : 'The primary state file is missing: it was deleted, or the process died before the first save completed.')
  } else if (pTear) {
    const sv = primary?.salvage
    const when = sv?.turns != null ? ` while saving the state after turn ${sv.turns}` : ' while saving the state'
    s.push(`The process most likely died${when}: ${tearWords(pTear)}.`)
  } else if (r.amnesia?.patterns.includes('placeholder')) {
    s.push("The agent could not read its previous state when the chat was resumed, and the loader's empty placeholder was saved over it (Codebuff #1168).")
  } else if (r.amnesia) {
    const gap = r.amnesia.missingTurns ? `; it remembers nothing of ${turns(r.amnesia.missingTurns[0], r.amnesia.missingTurns[1])}` : ''
    s.push(`The primary state is complete but amnesiac: a new session replaced the agent's memory, most likely after a failed load of a damaged state${gap}.`)
  } else if (primary?.class === 'contextless') {
    s.push('The primary state parses but holds no agent context.')
  } else if (primary?.class === 'intact') {
    s.push(`The last save of the primary completed${of(primary.turns)}.`)
  }
  for (const t of tears) if (t.file !== primary?.file && (r.generations.find((g) => g.file === t.file)?.role === 'backup' || r.generations.find((g) => g.file === t.file)?.role === 'temp')) s.push(`Also, ${tearWords(t)}.`)
  const completeTemps = r.generations.filter((g) => g.role === 'temp' && g.class === 'intact')
  if (completeTemps.length > 0) s.push(`A process was killed after writing ${completeTemps.map((g) => g.file).join(', ')} and before renaming it into place.`)
  if (backup?.class === 'intact' && (pTear || primary?.class === 'missing')) s.push('The save before it completed (the backup is intact).')
  if (r.winner && r.status !== 'healthy' && r.status !== 'degraded') {
    const w = r.generations.find((g) => g.file === r.winner)
    s.push(`The newest complete state is ${w ? roleWords(w.role) : 'the generation'} ${r.winner}${of(N)}.`)
  }
  if (r.status === 'unrecoverable') s.push('No complete state of the agent context survives.')
  const salv = r.generations.filter((g) => g.salvage)
  for (const g of salv) {
    const sv = g.salvage!
    s.push(`A salvage of ${g.file} would keep ${sv.messages} whole message${sv.messages === 1 ? '' : 's'}${sv.turns !== null ? of(sv.turns) : ''}${sv.candidate ? '' : ', but could not be used as it is'}.`)
  }
  const tr = r.generations.find((g) => g.role === 'transcript')
  if (tr && tr.class !== 'intact' && tr.class !== null) {
    s.push(r.transcriptRestore ? `The transcript is torn; ${r.transcriptRestore.from} holds an intact copy with ${r.transcriptRestore.turns} agent turns.` : 'The transcript is torn and no intact copy of it survives.')
  }
  if (r.amnesia && r.amnesia.source) {
    const drops = r.amnesia.restoreDrops ? `, at the cost of ${turns(r.amnesia.restoreDrops[0], r.amnesia.restoreDrops[1])}` : ''
    s.push(`${r.amnesia.source} still holds the older memory up to turn ${r.amnesia.sourceTurns}${drops}.`)
  }
  if (r.status === 'healthy' && s.length <= 1) s.push('Nothing was lost.')
  return s.join(' ')
}
