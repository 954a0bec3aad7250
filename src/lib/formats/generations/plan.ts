/**
 * The repair plan of the formats whose chat is a set of whole-file generations of one state file, ranked
 * against each other (Codebuff's chat dirs, the VS Code extensions' task folders): from a scanned chat to the
 * actions that put its best generation back. Pure (no disk): `repair --dry-run` prints exactly this plan and
 * `repair` executes exactly it (`pipeline/apply.ts`), so the two agree over (type, from, to, sha256) by
 * construction. What differs per format (where a generation's bytes come from, its salvages, a temp's
 * writer) is the format's `GenerationFormat`.
 *
 * The agent context (the primary), for a chat that needs it:
 * 1. `preserve` the primary (when it exists) into the evidence folder;
 * 2. `restore` the chosen generation's exact bytes as the primary (never parsed and re-serialized): the
 *    winner of a `repairable` chat (a file, an embedded copy `chat-messages.json#<id>`, or a salvage that
 *    loses nothing on disk); with `--salvage`, a salvaged torn generation that covers more turns than every
 *    intact candidate; with `--restore-from`, the generation the user named (e.g. the source of a `degraded`
 *    chat's missing turns).
 * The transcript: when the scan names a source for a torn or missing transcript (`transcriptRestore`: an
 * intact temp, or a salvage), `preserve` and `restore` it the same way. Then, when anything is restored:
 * 3. `restore-mtime` of the chat dir, so the agent's "newest chat" choice (Codebuff `--continue`) is unchanged.
 * Healthy, unrecoverable and degraded chats get no actions unless an option or a transcript restore asks.
 */
import {createHash} from 'node:crypto'
import type {ActionSource, ChatPlan, PlanOptions, ScannedChat, WatchedFile} from '../../model/adapter.js'
import type {BorrowedKeyReport, ChatReport} from '../../model/report.js'
import {compareCandidates, type Candidate} from '../../rank/index.js'
import {salvageBytes, salvagedFileOf, salvageLabel, type SalvagedGeneration} from '../../salvage/index.js'
import {shellWord} from '../../fsio/paths.js'

function sha256(buf: Uint8Array): string {
  return createHash('sha256').update(buf).digest('hex')
}

/** The bytes of a source: a file's bytes from the scan's snapshot, or the byte string itself; null if unread. */
export function sourceBytes(source: ActionSource, chat: ScannedChat): Buffer | null {
  if (source.kind === 'bytes') return source.data
  return chat.snapshot.files.find((f) => f.name === source.name && f.kind === 'file')?.data ?? null
}

/** A file of the chat held without its bytes (`FileEntry.large`): what a restore copies from disk, or null. */
function fileCopy(source: ActionSource | null, chat: ScannedChat): {name: string; bytes: number; sha256: string} | null {
  if (source?.kind !== 'file') return null
  const f = chat.snapshot.files.find((e) => e.name === source.name && e.kind === 'file')
  return f && !f.data && f.large ? {name: f.name, bytes: f.bytes, sha256: f.large.sha256} : null
}

/** The label of a source as actions show it in `from`. */
export function sourceLabel(source: ActionSource): string {
  return source.kind === 'file' ? source.name : source.label
}

/**
 * Where the bytes of a generation named in the report come from; null when they are not at hand. A whole
 * file of the chat dir as the scan read it (or measured without holding it: copied from disk when written);
 * otherwise the format's `generationBytes` (an embedded copy
 * `chat-messages.json#<id>`: the exact bytes of that `metadata.runState` value; a salvage `salvage:<file>`),
 * accepted only when their sha256 is the one the report gives the generation (for a salvage, its torn file's
 * salvage summary).
 */
export function generationSource(chat: ScannedChat, generation: string, format: Pick<GenerationFormat, 'generationBytes'>): ActionSource | null {
  const f = chat.snapshot.files.find((e) => e.name === generation && e.kind === 'file')
  if (f?.data || f?.large) return {kind: 'file', name: generation}
  const view = format.generationBytes(chat.snapshot, generation)
  if (!view) return null
  const data = Buffer.from(view) // a copy: never a view into the snapshot's buffers
  const tornFile = salvagedFileOf(generation)
  const expected = tornFile !== null ? chat.report.generations.find((g) => g.file === tornFile)?.salvage?.sha256 : chat.report.generations.find((g) => g.file === generation)?.sha256
  if (!expected || sha256(data) !== expected) return null
  return {kind: 'bytes', label: generation, data}
}

/** The label of a salvaged generation as actions and rankings show it: `salvage:<torn file>`. */
export {salvageLabel}


/**
 * The salvaged generation `repair --salvage` uses for a chat, or null: one whose summary says it is a
 * candidate and whose N is strictly higher than every intact candidate's (the ranking's turns); the best of
 * those by the ranking rules. Its bytes must hash to the summary's sha256.
 */
export function pickSalvage(report: ChatReport, salvaged: readonly SalvagedGeneration[]): {sg: SalvagedGeneration; data: Buffer} | null {
  const best = Math.max(-1, ...report.ranking.map((r) => r.turns))
  const usable = salvaged
    .filter((sg) => sg.summary.candidate && sg.measure !== null && sg.measure.turns > best)
    .map((sg): Candidate & {sg: SalvagedGeneration} => ({file: sg.file, measure: sg.measure!, mtimeMs: report.generations.find((g) => g.file === sg.file)?.mtimeMs ?? null, sg}))
    .sort(compareCandidates)
  for (const c of usable) {
    const data = salvageBytes(c.sg)
    if (sha256(data) === c.sg.summary.sha256) return {sg: c.sg, data}
  }
  return null
}

/** True when a plain repair would restore the agent context of this chat (its winner is not the primary). */
export function needsRepair(report: ChatReport): boolean {
  const primary = report.generations.find((g) => g.role === 'primary')
  return report.status === 'repairable' && report.winner !== null && primary !== undefined && report.winner !== primary.file
}

/** What `repair --restore-from` would change for a degraded chat, in words. */
function degradedAdvice(chat: ScannedChat): string {
  const a = chat.report.amnesia
  if (!a?.source) return 'degraded: part of the agent context is missing and no generation holds it; nothing to restore, nothing written'
  const drops = a.restoreDrops ? ` (it would drop turn${a.restoreDrops[0] === a.restoreDrops[1] ? ` ${a.restoreDrops[0]}` : `s ${a.restoreDrops[0]}–${a.restoreDrops[1]}`})` : ''
  return `degraded: left as it is; chatdoctor repair --restore-from ${shellWord(a.source)} ${shellWord(chat.report.path)} restores the generation that holds the missing turns${drops}`
}

/** What the planner asks of a format of the family. */
export interface GenerationFormat {
  /**
   * The exact bytes of a generation named as in the report, when it is not a whole file of the chat dir: an
   * embedded copy (`<file>#<id>`), salvaged bytes (`salvage:<torn file>`), a temp of the transcript; null when
   * not at hand. A whole file's bytes may be returned too.
   */
  generationBytes(snapshot: ScannedChat['snapshot'], name: string): Uint8Array | null
  /** The salvaged generations of the chat's torn files (`repair --salvage`), with their measures. */
  salvage(snapshot: ScannedChat['snapshot'], report: Pick<ChatReport, 'generations'>): SalvagedGeneration[]
  /** The pid of the process that wrote a temp, when its name carries one (for the live check). */
  tempWriterPid?(name: string): number | null
}

/** Plans one chat of the family. Pure. */
export function planGenerations(chat: ScannedChat, opts: PlanOptions, format: GenerationFormat): ChatPlan {
  const {report, snapshot} = chat
  const watchRoles = new Set(['primary', 'backup', 'temp', 'transcript', 'transcript-temp'])
  const watch: WatchedFile[] = []
  for (const g of report.generations) {
    if (!watchRoles.has(g.role) || g.mtimeMs === null || g.class === 'missing') continue
    const entry = snapshot.files.find((f) => f.name === g.file)
    if (entry) watch.push({name: g.file, bytes: entry.bytes, mtimeMs: entry.mtimeMs})
  }
  const temps: ChatPlan['temps'] = []
  for (const g of report.generations) {
    if (g.role !== 'temp' && g.role !== 'transcript-temp') continue
    const pid = format.tempWriterPid?.(g.file) ?? null
    if (pid !== null) temps.push({name: g.file, pid})
  }
  const plan: ChatPlan = {chat, actions: [], watch, temps}
  type Bytes = {data: Buffer; copy?: undefined} | {data: null; copy: {name: string; bytes: number; sha256: string}}
  const restores: Array<{to: string; toGeneration: ChatReport['generations'][number] | undefined; source: ActionSource; keysBorrowed?: BorrowedKeyReport[]} & Bytes> = []
  /** The bytes of a source, in memory or as a file to copy; null when neither is at hand. */
  const bytesOf = (source: ActionSource | null): Bytes | null => {
    const data = source ? sourceBytes(source, chat) : null
    if (data) return {data}
    const copy = fileCopy(source, chat)
    return copy ? {data: null, copy} : null
  }
  const shaOf = (b: Bytes) => (b.data ? sha256(b.data) : b.copy.sha256)
  const primary = report.generations.find((g) => g.role === 'primary')

  // The agent context.
  if (primary) {
    let state: ({source: ActionSource; keysBorrowed?: BorrowedKeyReport[]} & Bytes) | null = null
    if (opts.restoreFrom !== undefined) {
      const source = generationSource(chat, opts.restoreFrom, format)
      const bytes = bytesOf(source)
      if (!source || !bytes) plan.problem = `the bytes of ${opts.restoreFrom} could not be read as scanned; nothing written`
      else if (shaOf(bytes) !== primary.sha256) state = {source, ...bytes}
    } else {
      const salvage = opts.salvage ? pickSalvage(report, format.salvage(snapshot, report)) : null
      if (salvage) {
        state = {source: {kind: 'bytes', label: salvageLabel(salvage.sg.file), data: salvage.data}, data: salvage.data, keysBorrowed: salvage.sg.summary.keysBorrowed}
      } else if (needsRepair(report)) {
        const source = generationSource(chat, report.winner!, format)
        const bytes = bytesOf(source)
        if (!source || !bytes) plan.problem = `the bytes of the winner ${report.winner} could not be read as scanned; nothing written`
        else state = {source, ...bytes}
      } else if (report.status === 'degraded') plan.advice = degradedAdvice(chat)
    }
    if (state) restores.push({to: primary.file, toGeneration: primary, ...state})
  }

  // The transcript.
  const tr = report.transcriptRestore
  if (tr && !plan.problem) {
    const view = format.generationBytes(snapshot, tr.from)
    const data = view ? Buffer.from(view) : null
    if (!data || (tr.sha256 !== null && sha256(data) !== tr.sha256)) plan.problem = `the bytes of the transcript temp ${tr.from} could not be read as scanned; nothing written`
    else restores.push({to: tr.to, toGeneration: report.generations.find((g) => g.file === tr.to), source: {kind: 'bytes', label: tr.from, data}, data})
  }

  if (plan.problem || restores.length === 0) return plan
  for (const r of restores) {
    const g = r.toGeneration
    if (g && g.class !== 'missing') plan.actions.push({type: 'preserve', from: g.file, to: g.file, sha256: g.sha256})
    const bytes = r.data ? {data: r.data} : {copyFrom: {name: r.copy.name, bytes: r.copy.bytes}}
    plan.actions.push({type: 'restore', from: sourceLabel(r.source), to: r.to, sha256: shaOf(r), source: r.source, ...bytes, ...(r.keysBorrowed ? {keysBorrowed: r.keysBorrowed} : {})})
  }
  plan.actions.push({type: 'restore-mtime', from: null, to: '.', sha256: null, mtimeMs: snapshot.dirMtimeMs})
  return plan
}
