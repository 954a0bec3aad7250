/**
 * The deeper forensics of a Codebuff chat, run by `diagnoseChat` after classify/measure/rank:
 * embedded generations, salvage figures of torn run states, amnesia (status `degraded`), transcript damage
 * (restore from an intact transcript temp) and a stale `chat-meta.json`. Pure over the snapshot.
 *
 * Also the entry points `repair` uses: `generationBytes` (exact bytes of any generation, embedded ones
 * included) and `salvageChat` (salvaged generations with their exact bytes).
 */
import {createHash} from 'node:crypto'
import {finding} from './findings.js'
import type {AmnesiaReport, ChatReport, ChatStatus, Finding, Generation, TranscriptRestore} from '../../model/report.js'
import {compareCandidates, type Candidate} from '../../rank/index.js'
import type {Donor, SalvagedGeneration} from '../../salvage/index.js'
import type {ChatDirSnapshot, FileEntry} from '../../model/adapter.js'
import {compactionFacts, turnRange} from './amnesia.js'
import {embeddedName, locateEmbeddedRunStates, parseEmbeddedName, type EmbeddedRunState} from './embedded.js'
import {META, PRIMARY, TRANSCRIPT, roleOf} from './layout.js'
import {donorOrder, salvageRunState} from './salvage.js'
import {runStateShape} from './schema.js'
import {transcriptTurns, type TranscriptTurn} from './turns.js'

function sha256(buf: Uint8Array): string {
  return createHash('sha256').update(buf).digest('hex')
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/** Embedded copies found in a chat's transcript, by generation name, with the file (`source`) they sit in. */
export type EmbeddedIndex = Map<string, EmbeddedRunState & {source: string}>

/**
 * The transcript generation to take embedded copies from: `chat-messages.json` when intact, else the intact
 * transcript temp a repair would restore it from (most agent turns, then most messages, newest, name), so a
 * repair that restores the transcript and the context together converges in one run. Null when none.
 */
function transcriptSourceFor(generations: readonly Generation[], values: Map<string, unknown>): string | null {
  const transcript = generations.find((g) => g.role === 'transcript')
  if (transcript?.class === 'intact' && Array.isArray(values.get(transcript.file))) return transcript.file
  return bestTranscriptTemp(generations, values)?.g.file ?? null
}

/** The intact transcript temp that best replaces a torn transcript, with its agent turns and messages. */
function bestTranscriptTemp(generations: readonly Generation[], values: Map<string, unknown>): {g: Generation; turns: number; messages: number} | undefined {
  return generations
    .filter((g) => g.role === 'transcript-temp' && g.class === 'intact' && Array.isArray(values.get(g.file)))
    .map((g) => {
      const v = values.get(g.file) as unknown[]
      return {g, turns: transcriptTurns(v).length, messages: v.length}
    })
    .sort((a, b) => b.turns - a.turns || b.messages - a.messages || (b.g.mtimeMs ?? 0) - (a.g.mtimeMs ?? 0) || Buffer.compare(Buffer.from(b.g.file), Buffer.from(a.g.file)))[0]
}

/**
 * Adds one `embedded` generation per `metadata.runState` of the transcript (`chat-messages.json`, or when that
 * is torn the intact transcript temp that would replace it), classified by shape, sized and hashed over its
 * exact bytes, with the source file's mtime. Their parsed values go into `values` (taken from the parsed
 * transcript: the same bytes, parsed once). Returns where each sits.
 */
export function addEmbeddedGenerations(entries: readonly FileEntry[], generations: Generation[], values: Map<string, unknown>): EmbeddedIndex {
  const index: EmbeddedIndex = new Map()
  const source = transcriptSourceFor(generations, values)
  if (source === null) return index
  const entry = entries.find((f) => f.name === source && f.kind === 'file')
  const parsed = values.get(source)
  if (!entry?.data || !Array.isArray(parsed)) return index
  for (const e of locateEmbeddedRunStates(entry.data)) {
    const name = embeddedName(source, e.id)
    const value = (parsed[e.index] as {metadata?: {runState?: unknown}} | undefined)?.metadata?.runState
    const shape = runStateShape(value)
    index.set(name, {...e, source})
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
 * The exact bytes of a generation of a chat: a file's bytes, or for `chat-messages.json#<id>` the bytes of
 * that embedded `metadata.runState` value. A view into the snapshot's buffers (copy before mutating); null
 * when the file was not read or the embedded copy does not exist.
 */
export function generationBytes(snapshot: ChatDirSnapshot, file: string): Buffer | null {
  const parsed = parseEmbeddedName(file)
  const emb = parsed && (roleOf(parsed.file) === 'transcript' || roleOf(parsed.file) === 'transcript-temp') ? parsed : null
  const entry = snapshot.files.find((f) => f.name === (emb ? emb.file : file))
  if (!entry?.data) return null
  if (!emb) return entry.data
  const hit = locateEmbeddedRunStates(entry.data).find((e) => e.id === emb.id)
  return hit ? entry.data.subarray(hit.start, hit.end) : null
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

/** Salvages every torn run-state file of a chat (primary, backup, temps) that still holds a complete message. */
function salvageAll(snapshot: ChatDirSnapshot, generations: readonly Generation[], turns: TranscriptTurn[] | null, embedded?: EmbeddedIndex): SalvagedGeneration[] {
  const torn = generations.filter((g) => (g.role === 'primary' || g.role === 'backup' || g.role === 'temp') && g.class !== null && SALVAGEABLE.has(g.class) && !g.reasons.includes('bom'))
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
 * The salvaged generations of a scanned chat, with their exact bytes, for `repair --salvage`: one per torn
 * run-state file that keeps ≥ 1 whole message. Each carries `summary.candidate` (usable as a restore) and its
 * `measure` (for ranking against the intact candidates). Pure; never throws.
 */
export function salvageChat(snapshot: ChatDirSnapshot, report: Pick<ChatReport, 'generations'>): SalvagedGeneration[] {
  const transcript = report.generations.find((g) => g.file === TRANSCRIPT)
  let turns: TranscriptTurn[] | null = null
  if (transcript?.class === 'intact') {
    const data = snapshot.files.find((f) => f.name === TRANSCRIPT)?.data
    try {
      const v = data ? JSON.parse(data.toString('utf8')) : null
      if (Array.isArray(v)) turns = transcriptTurns(v)
    } catch {
      turns = null
    }
  }
  return salvageAll(snapshot, report.generations, turns)
}

/** What `applyForensics` gets from `diagnoseChat`. */
export interface ForensicsInput {
  snapshot: ChatDirSnapshot
  generations: Generation[]
  values: Map<string, unknown>
  embedded: EmbeddedIndex
  turns: TranscriptTurn[] | null
  status: ChatStatus
  winner: string | null
  findings: Finding[]
}

/** What forensics adds to a chat's report. */
export interface ForensicsResult {
  status: ChatStatus
  transcriptRestore?: TranscriptRestore
  amnesia?: AmnesiaReport
}

/** Runs salvage, transcript, sidecar and amnesia forensics; pushes findings; returns the (possibly changed) status and report fields. */
export function applyForensics(input: ForensicsInput): ForensicsResult {
  const {snapshot, generations, turns, findings} = input
  const M = turns ? turns.length : null
  let status = input.status
  const result: ForensicsResult = {status}

  // Salvage figures (reported only; the status does not change because of them).
  for (const s of salvageAll(snapshot, generations, turns, input.embedded)) {
    const g = generations.find((x) => x.file === s.file)!
    g.salvage = s.summary
    const sv = g.salvage
    const covers = sv.turns !== null ? `, covering turn ${sv.turns}${M !== null ? ` of ${M}` : ''}` : ''
    const byDonor = new Map<string, string[]>()
    for (const k of sv.keysBorrowed) byDonor.set(k.from, [...(byDonor.get(k.from) ?? []), k.key.split('.').pop()!])
    const borrowed = [...byDonor].map(([from, keys]) => `; ${plural(keys.length, 'cut-off key')} (${keys.join(', ')}) from ${from}`).join('')
    const not = sv.candidate ? '' : sv.keysMissing.length > 0 ? `; not a candidate: no generation holds ${sv.keysMissing.join(', ')}` : '; not a candidate: it holds no agent context'
    findings.push(finding('salvage-available', g.file, `a salvage would keep ${plural(sv.messages, 'message')}${covers}, dropping ${plural(sv.bytesDropped, 'byte')} from byte ${sv.bytesKept}${borrowed}${not}`))
  }

  // Transcript damage: an intact transcript temp can replace a torn transcript.
  const transcript = generations.find((g) => g.role === 'transcript')
  if (transcript && transcript.class !== 'intact') {
    const best = bestTranscriptTemp(generations, input.values)
    const f = findings.find((x) => x.id === 'transcript-damaged' && x.file === transcript.file)
    if (best) {
      result.transcriptRestore = {from: best.g.file, to: TRANSCRIPT, turns: best.turns, messages: best.messages, bytes: best.g.bytes, sha256: best.g.sha256}
      if (f) f.message += `; restorable from ${best.g.file} (${plural(best.turns, 'agent turn')}, ${plural(best.messages, 'message')})`
      if (status === 'healthy') status = 'repairable'
    } else if (f) f.message += '; no intact transcript temp to restore it from'
  }

  // A stale sidecar: the agent recomputes it.
  const meta = generations.find((g) => g.role === 'meta' && g.class === 'intact')
  const tEntry = snapshot.files.find((x) => x.name === TRANSCRIPT && x.kind === 'file')
  const metaValue = meta ? (input.values.get(meta.file) as {messagesSize?: number; messagesMtimeMs?: number}) : undefined
  if (meta && tEntry && metaValue) {
    const diffs: string[] = []
    if (metaValue.messagesSize !== tEntry.bytes) diffs.push(`size ${metaValue.messagesSize} ≠ ${tEntry.bytes} bytes`)
    if (metaValue.messagesMtimeMs !== tEntry.mtimeMs) diffs.push(`mtime ${metaValue.messagesMtimeMs} ≠ ${tEntry.mtimeMs} ms`)
    if (diffs.length > 0) findings.push(finding('meta-stale', META, `sidecar no longer matches ${TRANSCRIPT} (${diffs.join(', ')}); the agent recomputes it`))
  }

  // Amnesia.
  const amnesia = detectAmnesia(input)
  if (amnesia) {
    result.amnesia = amnesia.report
    findings.push(finding('context-amnesia', amnesia.report.file, amnesia.message))
    if (status === 'healthy' && amnesia.report.patterns.some((p) => p !== 'placeholder')) status = 'degraded'
  }
  // An empty compaction summary in the winning context.
  const winnerValue = input.winner ? input.values.get(input.winner) : undefined
  const history = (winnerValue as {sessionState?: {mainAgentState?: {messageHistory?: unknown}}} | undefined)?.sessionState?.mainAgentState?.messageHistory
  if (Array.isArray(history) && compactionFacts(history).emptySummary) {
    findings.push(finding('compaction-wipe', input.winner, "the history starts with an empty compaction summary (Codebuff #1166): the agent remembers nothing of the turns before it"))
  }
  result.status = status
  return result
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
  // Late start: prompts begin after transcript turn 1, nothing older than the transcript, no summary before.
  const F = m.firstMatchedTurn
  if (F !== null && F > 1 && m.unmatchedBeforeFirst === 0) {
    const history = (values.get(primary.file) as {sessionState: {mainAgentState: {messageHistory: unknown[]}}}).sessionState.mainAgentState.messageHistory
    if (!compactionFacts(history).summarized) patterns.push('late-start')
  }
  if (patterns.length === 0) return null

  const missingTurns: [number, number] | null = patterns.includes('late-start') ? [1, F! - 1] : null
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
  if (missingTurns) parts.push(`${turnRange(missingTurns[0], missingTurns[1])} ${missingTurns[0] === missingTurns[1] ? 'is' : 'are'} missing from the agent's memory`)
  if (olderTrace) parts.push(`its traceSessionId ${m.traceSessionId} differs from ${olderTrace.file}'s ${olderTrace.id} (a new session replaced the agent's memory)`)
  if (src) {
    parts.push(`${src.file} holds ${missingTurns ? 'them' : 'the older session'} up to turn ${K}`)
    parts.push(restoreDrops ? `restoring it would drop ${turnRange(restoreDrops[0], restoreDrops[1])}` : 'restoring it would drop no turn')
  } else parts.push('no generation holds the missing turns')
  return {report, message: parts.join('; ')}
}
