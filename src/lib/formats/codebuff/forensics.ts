/**
 * The deeper forensics of a Codebuff chat, run by `diagnoseChat`: embedded generations (`metadata.runState`
 * copies, and documents inside a run-state file written twice), salvages of torn run states and of a torn
 * transcript, amnesia and compaction wipes (status `degraded`), transcript restore, a stale `chat-meta.json`,
 * and which turn a torn save was writing. Pure over the snapshot.
 *
 * Also the entry points `repair` uses: `generationBytes` (exact bytes of any generation: a file, an embedded
 * copy, a document inside a file, a lossless salvage) and `salvageChat` (salvaged generations with their exact
 * bytes, for `repair --salvage`).
 */
import {createHash} from 'node:crypto'
import {classifyJsonBytes} from '../../classify/index.js'
import {documentAt} from '../../classify/documents.js'
import {finding} from './findings.js'
import {timesDiffer} from '../../model/time-text.js'
import type {AmnesiaReport, ChatReport, ChatStatus, Finding, Generation, TornSave, TranscriptRestore} from '../../model/report.js'
import {compareCandidates, type Candidate} from '../../rank/index.js'
import {salvageBytes, salvagedFileOf, salvageMoreTurns, type Donor, type SalvagedGeneration} from '../../salvage/index.js'
import type {ChatDirSnapshot, FileEntry} from '../../model/adapter.js'
import {compactionFacts, turnRange} from './amnesia.js'
import {documentName, mayHoldDocuments, parseDocumentName, stateDocuments} from './documents.js'
import {embeddedName, locateEmbeddedRunStates, parseEmbeddedName, type EmbeddedRunState} from './embedded.js'
import {META, PRIMARY, TRANSCRIPT, roleOf} from './layout.js'
import {donorOrder, salvageRunState} from './salvage.js'
import {runStateShape} from './schema.js'
import {chooseTranscriptSource, salvageTranscript, transcriptSalvageOf, type TranscriptSalvage, type TranscriptSource} from './transcript.js'
import type {TranscriptTurn} from './turns.js'

function sha256(buf: Uint8Array): string {
  return createHash('sha256').update(buf).digest('hex')
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

const STATE_ROLES = new Set(['primary', 'backup', 'temp'])

/** Embedded copies found in a chat's transcript, by generation name, with the file (`source`) whose bytes hold them. */
export type EmbeddedIndex = Map<string, EmbeddedRunState & {source: string}>

/**
 * Adds one `embedded` generation per `metadata.runState` of the transcript source (`chat-messages.json` when
 * intact; when it is torn, the intact transcript temp or the salvage a repair would restore it from), classified
 * by shape, sized and hashed over its exact bytes, with the source file's mtime. A salvage keeps the torn file's
 * bytes at their offsets, so its copies are named and read in `chat-messages.json` itself. Their parsed values
 * go into `values`. Returns where each sits.
 */
export function addEmbeddedGenerations(entries: readonly FileEntry[], generations: Generation[], values: Map<string, unknown>, source: TranscriptSource | null): EmbeddedIndex {
  const index: EmbeddedIndex = new Map()
  if (source === null) return index
  const entry = entries.find((f) => f.name === source.file && f.kind === 'file')
  if (!entry?.data) return index
  for (const e of locateEmbeddedRunStates(source.bytes)) {
    const name = embeddedName(source.file, e.id)
    const value = (source.messages[e.index] as {metadata?: {runState?: unknown}} | undefined)?.metadata?.runState
    const shape = runStateShape(value)
    index.set(name, {...e, source: source.file})
    values.set(name, value)
    generations.push({
      file: name,
      role: 'embedded',
      class: shape.class,
      reasons: shape.reasons,
      bytes: e.end - e.start,
      mtimeMs: entry.mtimeMs,
      sha256: sha256(entry.data.subarray(e.start, e.end)),
      turns: null,
    })
  }
  return index
}

/**
 * Adds one `embedded` generation `<file>@<offset>` per complete document inside a run-state file that holds
 * more than one write (`documents.ts`), classified by shape, with the file's mtime. Returns the files that
 * had such documents (their own salvage is then not made: the documents are their content).
 */
export function addDocumentGenerations(entries: readonly FileEntry[], generations: Generation[], values: Map<string, unknown>): Set<string> {
  const files = new Set<string>()
  for (const g of [...generations]) {
    if (!STATE_ROLES.has(g.role) || !mayHoldDocuments(g)) continue
    const data = entries.find((f) => f.name === g.file && f.kind === 'file')?.data
    if (!data) continue
    const docs = stateDocuments(data)
    if (docs.length === 0) continue
    files.add(g.file)
    for (const d of docs) {
      const bytes = data.subarray(d.start, d.end)
      const c = classifyJsonBytes(bytes)
      const shape = c.class === 'intact' ? runStateShape(c.value) : {class: c.class, reasons: c.reasons}
      const name = documentName(g.file, d.start)
      if (shape.class === 'intact') values.set(name, c.value)
      generations.push({file: name, role: 'embedded', class: shape.class, reasons: shape.reasons, bytes: bytes.length, mtimeMs: g.mtimeMs, sha256: sha256(bytes), turns: null})
    }
  }
  return files
}

/** The classifier's first damaged byte of a file's bytes (undefined when none). */
function damageOffsetOf(data: Uint8Array): number | undefined {
  return classifyJsonBytes(data).damage?.offset
}

/**
 * The exact bytes of a generation of a chat: a file's bytes; for `chat-messages.json#<id>` the bytes of that
 * embedded `metadata.runState` value (in a torn transcript: inside its complete messages); for
 * `run-state.json@<offset>` the document at that offset; for `salvage:<file>` the salvage of that torn file
 * (donor-free: what a lossless salvage writes; the caller checks the hash). A view into the snapshot's buffers
 * or a new buffer (copy before mutating); null when the generation does not exist.
 */
export function generationBytes(snapshot: ChatDirSnapshot, file: string): Buffer | null {
  const dataOf = (name: string) => {
    const f = snapshot.files.find((x) => x.name === name && x.kind === 'file')
    return f?.data
  }
  const torn = salvagedFileOf(file)
  if (torn !== null) {
    const data = dataOf(torn)
    if (!data) return null
    const role = roleOf(torn)
    if (role === 'transcript') return salvageTranscript(data, damageOffsetOf(data))?.bytes ?? null
    if (!STATE_ROLES.has(role)) return null
    const s = salvageRunState(torn, data, damageOffsetOf(data), [], null)
    return s ? salvageBytes(s) : null
  }
  const doc = parseDocumentName(file)
  if (doc && STATE_ROLES.has(roleOf(doc.file))) {
    const data = dataOf(doc.file)
    const d = data ? documentAt(data, doc.offset) : null
    return data && d && d.start === doc.offset ? data.subarray(d.start, d.end) : null
  }
  const parsed = parseEmbeddedName(file)
  const emb = parsed && (roleOf(parsed.file) === 'transcript' || roleOf(parsed.file) === 'transcript-temp') ? parsed : null
  const data = dataOf(emb ? emb.file : file)
  if (!data) return null
  if (!emb) return data
  let hit = locateEmbeddedRunStates(data).find((e) => e.id === emb.id)
  if (!hit && roleOf(emb.file) === 'transcript') {
    // A torn transcript: its complete messages keep their offsets in its salvage.
    const s = salvageTranscript(data, damageOffsetOf(data))
    hit = s ? locateEmbeddedRunStates(s.bytes).find((e) => e.id === emb.id) : undefined
  }
  return hit ? data.subarray(hit.start, hit.end) : null
}

/** Donors for salvage: a chat's intact context generations with their bytes, newest first. */
function donorsOf(snapshot: ChatDirSnapshot, generations: readonly Generation[], embedded?: EmbeddedIndex): Donor[] {
  const out: Donor[] = []
  for (const g of donorOrder(generations)) {
    let bytes: Uint8Array | null | undefined
    const e = embedded?.get(g.file)
    const source = e ? snapshot.files.find((f) => f.name === e.source)?.data : undefined
    if (e && source) bytes = source.subarray(e.start, e.end)
    else bytes = generationBytes(snapshot, g.file)
    if (bytes) out.push({name: g.file, bytes})
  }
  return out
}

const SALVAGEABLE = new Set(['truncated', 'corrupt'])

/**
 * Salvages every torn run-state file of a chat (primary, backup, temps) that still holds a complete message,
 * except files whose content is complete documents of their own (`skip`) and files with no JSON at their first
 * byte.
 */
export function salvageAll(snapshot: ChatDirSnapshot, generations: readonly Generation[], turns: TranscriptTurn[] | null, embedded?: EmbeddedIndex, skip: ReadonlySet<string> = new Set()): SalvagedGeneration[] {
  const torn = generations.filter(
    (g) => STATE_ROLES.has(g.role) && g.class !== null && SALVAGEABLE.has(g.class) && !skip.has(g.file) && !g.reasons.some((r) => r === 'foreign-content' || r === 'not-a-file' || r === 'unreadable'),
  )
  if (torn.length === 0) return []
  const donors = donorsOf(snapshot, generations, embedded)
  const out: SalvagedGeneration[] = []
  for (const g of torn) {
    const data = snapshot.files.find((f) => f.name === g.file)?.data
    if (!data) continue
    const s = salvageRunState(g.file, data, g.damage?.offset, donors, turns)
    if (s) out.push(s)
  }
  return out
}

/**
 * The transcript source of a scanned chat rebuilt from its report and bytes (the same choice `diagnoseChat`
 * made), for callers that have the report but not the diagnosis' parsed values.
 */
export function transcriptSourceOfReport(snapshot: ChatDirSnapshot, generations: readonly Generation[]): TranscriptSource | null {
  const parsed = new Map<string, unknown>()
  const valueOf = (file: string): unknown => {
    if (!parsed.has(file)) {
      const data = snapshot.files.find((f) => f.name === file && f.kind === 'file')?.data
      let v: unknown = null
      try {
        v = data ? JSON.parse(data.toString('utf8')) : null
      } catch {
        v = null
      }
      parsed.set(file, v)
    }
    return parsed.get(file)
  }
  const transcript = generations.find((g) => g.role === 'transcript')
  return chooseTranscriptSource(snapshot.files, generations, valueOf, transcriptSalvageOf(snapshot.files, transcript))
}

/**
 * The salvaged generations of a scanned chat, with their exact bytes, for `repair --salvage`: one per torn
 * run-state file that keeps ≥ 1 whole message. Each carries `summary.candidate` (usable as a restore) and its
 * `measure` (for ranking against the intact candidates), measured against the transcript the report used.
 * Pure; never throws.
 */
export function salvageChat(snapshot: ChatDirSnapshot, report: Pick<ChatReport, 'generations'>): SalvagedGeneration[] {
  const source = transcriptSourceOfReport(snapshot, report.generations)
  const skip = new Set(report.generations.filter((g) => parseDocumentName(g.file) && g.role === 'embedded').map((g) => parseDocumentName(g.file)!.file))
  return salvageAll(snapshot, report.generations, source?.complete ? source.turns : null, undefined, skip)
}

/** What `applyForensics` gets from `diagnoseChat`. */
export interface ForensicsInput {
  snapshot: ChatDirSnapshot
  generations: Generation[]
  values: Map<string, unknown>
  embedded: EmbeddedIndex
  turns: TranscriptTurn[] | null
  /** The transcript the chat is measured against, and the salvage of a torn `chat-messages.json`. */
  source: TranscriptSource | null
  transcriptSalvage: TranscriptSalvage | null
  /** Salvages of torn run-state files, made before ranking (lossless ones are ranked). */
  salvages: SalvagedGeneration[]
  status: ChatStatus
  winner: string | null
  /** N of the winner, null when unrecoverable. */
  contextTurns: number | null
  findings: Finding[]
}

/** What forensics adds to a chat's report. */
export interface ForensicsResult {
  status: ChatStatus
  transcriptRestore?: TranscriptRestore
  amnesia?: AmnesiaReport
}

/** Runs salvage, transcript, sidecar, amnesia and tear forensics; pushes findings; returns the (possibly changed) status and report fields. */
export function applyForensics(input: ForensicsInput): ForensicsResult {
  const {snapshot, generations, turns, findings} = input
  const M = turns ? turns.length : null
  let status = input.status
  const result: ForensicsResult = {status}

  // Salvage figures; a lossless salvage was ranked with the intact candidates.
  for (const s of input.salvages) {
    const g = generations.find((x) => x.file === s.file)!
    const sv = s.summary
    const covers =
      sv.turns === null ? '' : sv.turns === 0 && M !== null ? `, covering none of the transcript's ${plural(M, 'turn')}${s.measure && s.measure.unmatchedBeforeFirst > 0 ? ' (its prompts are older than the transcript\'s first turn)' : ''}` : `, covering turn ${sv.turns}${M !== null ? ` of ${M}` : ''}`
    const byDonor = new Map<string, string[]>()
    for (const k of sv.keysBorrowed) byDonor.set(k.from, [...(byDonor.get(k.from) ?? []), k.key.split('.').pop()!])
    const borrowed = [...byDonor].map(([from, keys]) => `; ${plural(keys.length, 'cut-off key')} (${keys.join(', ')}) from ${from}`).join('')
    const not = sv.candidate ? '' : sv.keysMissing.length > 0 ? `; not a candidate: no generation holds ${sv.keysMissing.join(', ')}` : '; not a candidate: it holds no agent context'
    const how = sv.kind === 'tail' ? 'only the bytes after the complete document dropped' : sv.kind === 'bom' ? 'only the byte order mark dropped' : 'only closing syntax added'
    const lossless = sv.lossless && sv.candidate ? `; lossless (every message byte for byte, ${how}): ranked as salvage:${g.file}` : ''
    const kept = sv.kind === 'prefix' ? plural(sv.messages, 'message') : `the complete document of ${plural(sv.bytesKept, 'byte')} (${plural(sv.messages, 'message')})`
    findings.push(finding('salvage-available', g.file, `a salvage would keep ${kept}${covers}, dropping ${plural(sv.bytesDropped, 'byte')} from byte ${sv.bytesKept}${borrowed}${not}${lossless}`))
  }
  // More turns reachable only with borrowed values: say so (plain repair will not use such a salvage).
  const reach = input.salvages
    .filter((s) => s.summary.candidate && !s.summary.lossless && s.measure !== null && s.measure.turns > (input.contextTurns ?? -1))
    .sort((a, b) => b.measure!.turns - a.measure!.turns)[0]
  if (reach) {
    const sv = reach.summary
    const donors = [...new Set(sv.keysBorrowed.map((k) => k.from))]
    const f = salvageMoreTurns(reach.file, reach.measure!.turns, M, input.contextTurns, `with ${plural(sv.keysBorrowed.length, 'member')} borrowed from ${donors.join(', ')}`)
    if (f) findings.push(f)
  }

  // Transcript damage: an intact transcript temp, or the transcript's own salvage, can restore it.
  const transcript = generations.find((g) => g.role === 'transcript')
  if (transcript && transcript.class !== 'intact') {
    const src = input.source && input.source.kind !== 'intact' ? input.source : null
    const f = findings.find((x) => x.id === 'transcript-damaged' && x.file === transcript.file)
    const ts = input.transcriptSalvage
    const salvageWords = ts ? `a salvage keeps ${plural(ts.summary.messages, 'message')} byte for byte (${plural(ts.summary.turns ?? 0, 'agent turn')}) and ${transcriptLoss(ts)}${metaCount(input)}` : null
    if (src) {
      result.transcriptRestore = {from: src.name, to: TRANSCRIPT, turns: src.turns.length, messages: src.messages.length, bytes: src.bytes.length, sha256: src.sha256}
      if (f) {
        f.message += `; restorable from ${src.name} (${plural(src.turns.length, 'agent turn')}, ${plural(src.messages.length, 'message')})`
        if (salvageWords) f.message += `; ${salvageWords}`
      }
      if (status === 'healthy') status = 'repairable'
    } else if (f) f.message += '; no intact transcript temp or salvage to restore it from'
  }

  // A stale sidecar: the agent recomputes it.
  const meta = generations.find((g) => g.role === 'meta' && g.class === 'intact')
  const tEntry = snapshot.files.find((x) => x.name === TRANSCRIPT && x.kind === 'file')
  const metaValue = meta ? (input.values.get(meta.file) as {messagesSize?: number; messagesMtimeMs?: number}) : undefined
  if (meta && tEntry && metaValue) {
    const diffs: string[] = []
    if (metaValue.messagesSize !== tEntry.bytes) diffs.push(`size ${metaValue.messagesSize} ≠ ${tEntry.bytes} bytes`)
    if (metaValue.messagesMtimeMs !== tEntry.mtimeMs) diffs.push(`mtime ${timesDiffer(metaValue.messagesMtimeMs ?? NaN, tEntry.mtimeMs)}`)
    if (diffs.length > 0) findings.push(finding('meta-stale', META, `sidecar no longer matches ${TRANSCRIPT} (${diffs.join(', ')}); the agent recomputes it`))
  }

  // Amnesia and compaction wipes of the primary.
  const amnesia = detectAmnesia(input)
  if (amnesia) {
    result.amnesia = amnesia.report
    const degrades = status === 'healthy' && amnesia.report.patterns.some((p) => p !== 'placeholder')
    if (amnesia.report.patterns.includes('compaction-wipe')) findings.push(finding('compaction-wipe', amnesia.report.file, amnesia.message, 'error'))
    if (amnesia.report.patterns.some((p) => p !== 'compaction-wipe')) findings.push(finding('context-amnesia', amnesia.report.file, amnesia.message))
    if (degrades) status = 'degraded'
  }
  // An empty compaction summary in a winning context that is not the primary (or that loses no transcript turn).
  if (!findings.some((f) => f.id === 'compaction-wipe')) {
    const winnerValue = input.winner ? input.values.get(input.winner) : undefined
    const history = (winnerValue as {sessionState?: {mainAgentState?: {messageHistory?: unknown}}} | undefined)?.sessionState?.mainAgentState?.messageHistory
    if (Array.isArray(history) && compactionFacts(history).emptySummary) {
      findings.push(finding('compaction-wipe', input.winner, 'the history starts with an empty or near-empty compaction summary (Codebuff #1166): the agent remembers nothing of the turns it replaced'))
    }
  }

  // Which turn each torn save was writing.
  for (const g of generations) {
    // Only a save cut short (or a complete one with bytes after it) tells which turn it was writing.
    if (!STATE_ROLES.has(g.role) || (g.class !== 'truncated' && !g.reasons.some((r) => r === 'unexpected-end' || r === 'nul-tail' || r === 'trailing-garbage'))) continue
    if (g.reasons.some((r) => r === 'bom' || r === 'foreign-content' || r === 'not-a-file' || r === 'unreadable' || r === 'concatenated')) continue
    const data = snapshot.files.find((f) => f.name === g.file && f.kind === 'file')?.data
    if (data) g.save = tornSave(g, data, input)
  }
  result.status = status
  return result
}

/** What a transcript salvage loses, in words. */
function transcriptLoss(ts: TranscriptSalvage): string {
  const sv = ts.summary
  if (sv.lossless) {
    if (sv.kind === 'bom') return 'drops only the byte order mark: nothing that was written is lost'
    if (sv.kind === 'tail') return `drops only the ${plural(sv.bytesDropped, 'byte')} after the complete document: nothing that was written is lost`
    return 'adds only the closing bracket: nothing that was written is lost'
  }
  return `drops ${sv.tornElementDropped ? 'the torn message and ' : ''}${plural(sv.bytesDropped, 'byte')} from byte ${sv.bytesKept}`
}

/** ", chat-meta.json last counted N messages" when the sidecar is intact and counts more than the salvage keeps. */
function metaCount(input: ForensicsInput): string {
  const meta = input.generations.find((g) => g.role === 'meta' && g.class === 'intact')
  const count = meta ? (input.values.get(meta.file) as {messageCount?: unknown}).messageCount : undefined
  const kept = input.transcriptSalvage?.summary.messages ?? 0
  return typeof count === 'number' && count > kept ? `; ${META} last counted ${plural(count, 'message')}` : ''
}

/**
 * Which turn a torn run-state save was writing: the intact generation(s) whose bytes continue the surviving
 * bytes (for a NUL-padded file, only those of exactly its size: the size reached the disk), else the last prompt
 * in the surviving bytes up to the transcript's newest turn; or why it cannot tell.
 */
function tornSave(g: Generation, data: Buffer, input: ForensicsInput): TornSave {
  const M = input.turns ? input.turns.length : null
  const salvage = input.salvages.find((s) => s.file === g.file)
  if ((salvage?.summary.kind === 'tail' || salvage?.summary.kind === 'bom') && salvage.measure) {
    const n = salvage.measure.turns
    return {basis: 'complete', turns: [n, n], sameAs: null, note: 'the document itself is complete; only bytes after it are damage'}
  }
  const tear = Math.min(g.damage?.offset ?? data.length, data.length)
  if (tear > 0) {
    const padded = g.reasons.includes('nul-tail') && g.class === 'truncated'
    const matches = donorsOf(input.snapshot, input.generations, input.embedded).filter((d) => d.bytes.length > tear && (!padded || d.bytes.length === data.length) && Buffer.compare(Buffer.from(d.bytes.buffer, d.bytes.byteOffset, tear), data.subarray(0, tear)) === 0)
    const ns = new Set(matches.map((d) => input.generations.find((x) => x.file === d.name)?.turns ?? null))
    if (matches.length > 0 && ns.size === 1 && !ns.has(null)) {
      const n = [...ns][0]!
      return {basis: 'same-as', turns: [n, n], sameAs: matches[0].name, note: null}
    }
  }
  const m = salvage?.measure
  if (!m || m.prompts === 0) return {basis: 'unknown', turns: null, sameAs: null, note: 'no prompt survives in its bytes'}
  if (M === null) return {basis: 'unknown', turns: null, sameAs: null, note: `no usable transcript to place the ${plural(m.prompts, 'prompt')} in its surviving bytes`}
  if (m.turns === 0) {
    return {basis: 'unknown', turns: null, sameAs: null, note: m.unmatchedBeforeFirst > 0 ? "the prompts in its surviving bytes are older than the transcript's first turn, and the transcript keeps only its last 100 messages" : 'no prompt in its surviving bytes matches a transcript turn'}
  }
  return {basis: 'prompts', turns: [m.turns, Math.max(m.turns, M)], sameAs: null, note: null}
}

/** The time a generation's state is from: the file mtime, or for an embedded copy its message id's time. */
function stateTime(g: Generation, embedded: EmbeddedIndex): number | null {
  const e = embedded.get(g.file)
  if (e) return e.idTimeMs ?? g.mtimeMs
  return g.mtimeMs
}

function detectAmnesia(input: ForensicsInput): {report: AmnesiaReport; message: string} | null {
  const {generations, embedded, values, turns} = input
  const M = turns ? turns.length : null
  const primary = generations.find((g) => g.role === 'primary')
  if (!primary) return null
  const others = generations.filter((g) => g !== primary && g.class === 'intact' && g.measure && (g.role === 'backup' || g.role === 'temp' || g.role === 'embedded'))
  const cands: Array<Candidate & {g: Generation}> = others.map((g) => ({file: g.file, measure: g.measure!, mtimeMs: g.mtimeMs, g}))
  // Sources: generations whose memory starts at the transcript's start (or before it, when capped).
  const sources = cands.filter((c) => c.measure.turns > 0 && (c.measure.firstMatchedTurn === 1 || c.measure.unmatchedBeforeFirst > 0)).sort(compareCandidates)

  if (primary.class === 'contextless' && primary.reasons.includes('placeholder')) {
    const src = sources[0]
    const report: AmnesiaReport = {
      file: PRIMARY,
      patterns: ['placeholder'],
      missingTurns: M !== null && M > 0 ? [1, M] : null,
      source: src?.file ?? null,
      sourceTurns: src?.measure.turns ?? null,
      restoreDrops: null,
      olderTraceSessionId: null,
    }
    const gap = report.missingTurns ? `${turnRange(1, M!)} ${M === 1 ? 'is' : 'are'} missing from the agent's memory` : "the agent's memory is empty"
    const from = src ? `; ${src.file} holds them up to turn ${src.measure.turns}` : '; no generation holds them'
    return {report, message: `${PRIMARY} is the loader's placeholder (Codebuff #1168): ${gap}${from}`}
  }

  if (primary.class !== 'intact' || !primary.measure) return null
  const m = primary.measure
  const patterns: AmnesiaReport['patterns'] = []
  // Trace break: an older generation with a different traceSessionId.
  let olderTrace: {id: string; file: string} | null = null
  const pTime = primary.mtimeMs
  if (m.traceSessionId !== null) {
    const older = others
      .filter((g) => g.measure!.traceSessionId !== null && g.measure!.traceSessionId !== m.traceSessionId)
      .filter((g) => {
        const t = stateTime(g, embedded)
        return pTime === null || t === null || t < pTime
      })
      .sort((a, b) => (stateTime(b, embedded) ?? 0) - (stateTime(a, embedded) ?? 0))
    if (older.length > 0) {
      patterns.push('trace-break')
      olderTrace = {id: older[0].measure!.traceSessionId!, file: older[0].file}
    }
  }
  const F = m.firstMatchedTurn
  const history = (values.get(primary.file) as {sessionState: {mainAgentState: {messageHistory: unknown[]}}}).sessionState.mainAgentState.messageHistory
  const compaction = compactionFacts(history)
  let missingTurns: [number, number] | null = null
  if (compaction.emptySummary) {
    // A compaction wipe: an empty or near-empty summary stands for the turns before the first prompt.
    if (F !== null && F > 1 && m.unmatchedBeforeFirst === 0) missingTurns = [1, F - 1]
    else if (F === null && M !== null && M > 0) missingTurns = [1, M]
    if (missingTurns !== null || M === null) patterns.push('compaction-wipe')
  } else if (!compaction.summarized) {
    // Late start: prompts begin after transcript turn 1, nothing older than the transcript, no summary before.
    if (F !== null && F > 1 && m.unmatchedBeforeFirst === 0) {
      patterns.push('late-start')
      missingTurns = [1, F - 1]
    } else if (m.prompts === 0 && M !== null && M > 0) {
      // No prompt and no summary at all while the transcript has agent turns: a reset history.
      patterns.push('empty-history')
      missingTurns = [1, M]
    }
  }
  if (patterns.length === 0) return null

  const src = olderTrace && !missingTurns ? (sources.find((c) => c.measure.traceSessionId === olderTrace!.id) ?? sources[0]) : sources[0]
  const K = src?.measure.turns ?? null
  const N = m.turns
  const restoreDrops: [number, number] | null = src && K !== null && K < N ? [K + 1, N] : null
  const report: AmnesiaReport = {
    file: PRIMARY,
    patterns,
    missingTurns,
    source: src?.file ?? null,
    sourceTurns: K,
    restoreDrops,
    olderTraceSessionId: olderTrace?.id ?? null,
  }
  const parts: string[] = []
  if (patterns.includes('compaction-wipe')) parts.push('the history starts with an empty or near-empty compaction summary (Codebuff #1166)')
  if (patterns.includes('empty-history')) parts.push('the history holds no prompt and no summary')
  if (missingTurns) parts.push(`${turnRange(missingTurns[0], missingTurns[1])} ${missingTurns[0] === missingTurns[1] ? 'is' : 'are'} missing from the agent's memory`)
  else if (patterns.includes('compaction-wipe')) parts.push("the turns it replaced are missing from the agent's memory (no usable transcript to name them)")
  if (olderTrace) parts.push(`its traceSessionId ${m.traceSessionId} differs from ${olderTrace.file}'s ${olderTrace.id} (a new session replaced the agent's memory)`)
  if (src) {
    parts.push(`${src.file} holds ${missingTurns ? 'them' : 'the older session'} up to turn ${K}`)
    parts.push(restoreDrops ? `restoring it would drop ${turnRange(restoreDrops[0], restoreDrops[1])}` : 'restoring it would drop no turn')
  } else parts.push('no generation holds the missing turns')
  return {report, message: parts.join('; ')}
}
