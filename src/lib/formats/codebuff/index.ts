/**
 * The Codebuff adapter: diagnoses one Codebuff CLI chat dir (`~/.config/manicode/projects/<p>/chats/<id>/`).
 * Classify every file, measure each intact run-state generation against the transcript, rank, decide the
 * chat's status and findings. Pure over a `ChatDirSnapshot`; never throws.
 */
import path from 'node:path'
import {classifyJsonBytes} from '../../classify/index.js'
import {classifyEntry, hashEntry} from '../../classify/entry.js'
import {hasLoneSurrogate} from '../../classify/surrogates.js'
import {finding} from './findings.js'
import type {ChatStatus, Classification, ContextMeasure, Finding, Generation, Role} from '../../model/report.js'
import {rankCandidates, type Candidate} from '../../rank/index.js'
import type {ChatDirSnapshot, Diagnosis, FileEntry, FormatAdapter} from '../../model/adapter.js'
import {salvageLabel} from '../../salvage/index.js'
import {AGENT_PROCESS, CHAT_ID_PATTERN, KNOWN_OTHER, LEGACY_MESSAGES, PRIMARY, TRANSCRIPT, defaultRoots, isChatDir, roleOf, tempWriterPid, unusualTempName, wantsContent} from './layout.js'
import {isChatMeta, runStateShape} from './schema.js'
import {measureRunState} from './measure.js'
import {RUN_STATE_VALUE} from './large.js'
import {addDocumentGenerations, addEmbeddedGenerations, applyForensics, generationBytes, salvageAll, salvageChat} from './forensics.js'
import {chooseTranscriptSource, transcriptSalvageOf} from './transcript.js'
import {newestEmbeddedWithContext} from './embedded.js'
import {planCodebuffChat} from './plan.js'
import {inspectChat} from './inspect.js'
import {redactChatFiles} from './redact.js'
import {CODEBUFF_FINDING_KINDS} from './findings.js'
import {codebuffFinder} from './find.js'
import {CODEBUFF_NO_HOOK, captureCodebuff, redactRunState, snapshotBytes} from './snapshot.js'

/** The CLI keeps only the last 100 transcript messages (codebuff-format.md §3.1, cli/src/utils/run-state-storage.ts). */
export const TRANSCRIPT_CAP = 100

const ROLE_ORDER: Role[] = ['primary', 'backup', 'temp', 'embedded', 'snapshot', 'transcript', 'transcript-temp', 'meta', 'other']

/** Names inside a chat dir that are chatdoctor's own and never part of the chat. */
const OWN_NAMES = /^\.chatdoctor(?:$|[.-])/

/** Classifies one file by role: syntax first, then the shape its role needs. */
function classifyFile(role: Role, data: Buffer): Classification {
  const c = classifyJsonBytes(data)
  if (c.class !== 'intact') return c
  if (role === 'primary' || role === 'backup' || role === 'temp' || role === 'embedded') {
    const shape = runStateShape(c.value)
    return {...c, class: shape.class, reasons: shape.reasons}
  }
  if (role === 'transcript' || role === 'transcript-temp') {
    // A transcript is an array of ChatMessage objects (codebuff-format.md §2.6).
    return Array.isArray(c.value) && c.value.every((m) => typeof m === 'object' && m !== null && !Array.isArray(m)) ? c : {class: 'corrupt', reasons: ['wrong-shape']}
  }
  if (role === 'meta') return isChatMeta(c.value) ? c : {class: 'corrupt', reasons: ['wrong-shape']}
  return c
}

function describeClass(g: Generation): string {
  const why = g.reasons.length > 0 ? ` (${g.reasons.join(', ')})` : ''
  let at = ''
  if (g.damage && g.damage.length === 0) at = `, cut at byte ${g.damage.offset} (its end)`
  else if (g.damage) at = `, damage from byte ${g.damage.offset} of ${g.bytes}`
  return `${g.class}${why}${at}`
}

/**
 * True when a parsed state holds a string with an unpaired UTF-16 surrogate. `JSON.stringify` writes such a
 * half as a `\ud8xx`-`\udfxx` escape, so the bytes are searched for one first (native, cheap) and the value is
 * walked only when one is there. The value the inventory built of a large state (`large.ts`) is walked when
 * its check saw such an escape (it keeps every message holding one whole; a search of the bytes would cost
 * more).
 */
function loneSurrogateIn(f: FileEntry | undefined, value: unknown): boolean {
  if (f?.large) return f.large.escapes && hasLoneSurrogate(value)
  const data = f?.data
  if (!data || (data.indexOf('\\ud') < 0 && data.indexOf('\\uD') < 0)) return false
  return hasLoneSurrogate(value)
}

/** ", an unusual temp name (…)" for a temp the Codebuff CLI would not have named so. */
function unusualName(file: string): string {
  return unusualTempName(file) ? '; an unusual temp name (not one the Codebuff CLI writes: another writer\'s temp or copy of the state)' : ''
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/**
 * What `unmeasured` says when a chat's embedded copies were left out. The transcript holding them is then not
 * hashed either (its sha256 null): it is most of the chat's bytes, and its hash decides nothing.
 */
const EMBEDDED_UNMEASURED = {
  what: `the RunState copies embedded in ${TRANSCRIPT}`,
  reason: `${PRIMARY} is intact and covers every transcript turn, so no copy can win; inspect, scan --verbose or repair of the chat measures them (and hashes ${TRANSCRIPT})`,
  unhashed: [TRANSCRIPT],
}

/**
 * The RunState copies of a parsed transcript: each message's `metadata.runState` (as `locateEmbeddedRunStates`
 * finds them in the bytes: a message object's `metadata` object holding a `runState` member, any value).
 */
function embeddedValues(messages: readonly unknown[]): unknown[] {
  const out: unknown[] = []
  for (const m of messages) {
    const meta = m !== null && typeof m === 'object' && !Array.isArray(m) ? (m as {metadata?: unknown}).metadata : undefined
    if (meta !== null && typeof meta === 'object' && !Array.isArray(meta) && Object.hasOwn(meta, 'runState')) out.push((meta as {runState: unknown}).runState)
  }
  return out
}

/**
 * True when no copy names a trace session other than `id` (so none can hold an older session's trace, which
 * would make the chat degraded): each copy's `traceSessionId`, the member its measure reads, is absent or `id`.
 * With `id` null any copy naming a trace session answers false.
 */
function traceIdsAllAre(copies: readonly unknown[], id: string | null): boolean {
  for (const c of copies) {
    if (c === null || typeof c !== 'object' || !Object.hasOwn(c, 'traceSessionId')) continue
    if (id === null || (c as {traceSessionId: unknown}).traceSessionId !== id) return false
  }
  return true
}

/**
 * Whether a verdict-only scan may leave the embedded copies out: the primary is intact, covers every turn of
 * a complete transcript, no other state file is damaged (a salvage would borrow from the copies) and no copy
 * can carry another trace session (an amnesia pattern). The diagnosis is then checked to be healthy with the
 * primary winning and no amnesia; otherwise it is made again with every copy. The primary's measure goes into
 * `measured`, for the diagnosis to reuse.
 */
function embeddedCannotMatter(generations: readonly Generation[], values: ReadonlyMap<string, unknown>, source: ReturnType<typeof chooseTranscriptSource>, measured: Map<string, ContextMeasure>): boolean {
  if (!source?.complete) return false
  // Nothing to leave out (and nothing to claim) when the transcript holds no copy.
  const copies = embeddedValues(source.messages)
  if (copies.length === 0) return false
  const primary = generations.find((g) => g.role === 'primary')
  if (!primary || primary.class !== 'intact') return false
  for (const g of generations) {
    if ((g.role === 'backup' || g.role === 'temp') && g.class !== 'intact') return false
  }
  const m = measureRunState(values.get(primary.file), source.turns)
  measured.set(primary.file, m) // against the turns the diagnosis counts (a complete source's)
  if (m.turns !== source.turns.length) return false
  return traceIdsAllAre(copies, m.traceSessionId)
}

/** Diagnoses one Codebuff chat dir (a verdict-only snapshot may leave out the embedded copies, saying so). */
export function diagnoseChat(snapshot: ChatDirSnapshot): Diagnosis {
  if (snapshot.verdictOnly) {
    const lean = diagnose(snapshot, true)
    if (lean.kind === 'skipped' || !lean.report.unmeasured) return lean
    const r = lean.report
    if (r.status === 'healthy' && r.winner === PRIMARY && !r.amnesia) return lean
  }
  return diagnose(snapshot, false)
}

function diagnose(snapshot: ChatDirSnapshot, verdictOnly: boolean): Diagnosis {
  const entries = snapshot.files.filter((f) => !OWN_NAMES.test(f.name))
  const generations: Generation[] = []
  const values = new Map<string, unknown>()
  const findings: Finding[] = []

  // A verdict-only diagnosis hashes the transcript only once it knows the copies in it are measured.
  for (const f of entries) {
    const role = roleOf(f.name)
    generations.push(classifyCodebuffEntry(f, role, values, role, !verdictOnly || role !== 'transcript'))
  }
  // The transcript the chat is measured against: itself when intact, else what a repair would restore it from.
  const transcriptSalvage = transcriptSalvageOf(entries, generations.find((g) => g.role === 'transcript'))
  const source = chooseTranscriptSource(entries, generations, (file) => values.get(file), transcriptSalvage)
  // metadata.runState copies, unless only the verdict is asked for and none can change it.
  const measured = new Map<string, ContextMeasure>()
  const leaveOut = verdictOnly && embeddedCannotMatter(generations, values, source, measured)
  if (verdictOnly && !leaveOut) hashTranscript(entries, generations, source)
  const embedded = leaveOut ? new Map() : addEmbeddedGenerations(entries, generations, values, source)
  const documented = addDocumentGenerations(entries, generations, values) // run-state files written twice
  // chatdoctor's stored snapshots of the RunState: generations of role `snapshot`.
  for (const s of snapshot.snapshots ?? []) {
    const data = snapshotBytes(snapshot, s.name)
    if (!data) continue
    const g = classifyCodebuffEntry({name: s.name, kind: 'file', bytes: data.length, mtimeMs: Date.parse(s.header.time), data}, 'snapshot', values, 'primary')
    generations.push(g)
  }
  if (!generations.some((g) => g.role === 'primary')) {
    generations.push({file: PRIMARY, role: 'primary', class: 'missing', reasons: [], bytes: 0, mtimeMs: null, sha256: null, turns: null})
  }
  generations.sort((a, b) => ROLE_ORDER.indexOf(a.role) - ROLE_ORDER.indexOf(b.role) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))

  const primary = generations.find((g) => g.role === 'primary')!
  const transcript = generations.find((g) => g.role === 'transcript')
  if (transcript && transcriptSalvage) transcript.salvage = transcriptSalvage.summary
  // Turns are counted only against a complete transcript: the intact file, an intact temp, or a lossless
  // salvage (a lossy one holds a lower bound of the turns: M stays unknown and N is each generation's own count).
  const counted = source?.complete ? source : null
  const transcriptValue = counted ? counted.messages : null
  const turns = counted ? counted.turns : null
  const M = turns ? turns.length : null
  const stateGens = generations.filter((g) => g.role === 'primary' || g.role === 'backup' || g.role === 'temp' || g.role === 'embedded' || g.role === 'snapshot')

  // Skipped: nothing of the agent context was ever saved and the transcript has no agent turn.
  const hasStateFile = stateGens.some((g) => g.role !== 'embedded' && g.class !== 'missing')
  const meta = generations.find((g) => g.role === 'meta' && g.class === 'intact')
  const metaCount = meta ? (values.get(meta.file) as {messageCount: number}).messageCount : 0
  // A sidecar that counts messages shows a chat existed: its content is missing, not absent.
  const recorded = !transcript && metaCount > 0
  if (!hasStateFile && (M === null || M === 0) && !recorded) {
    const names = entries.map((f) => f.name)
    if (names.includes(LEGACY_MESSAGES)) return {kind: 'skipped', reason: "legacy npm-app chat (messages.json, Codebuff's 2025 CLI): not supported yet"}
    if (transcript === undefined || transcript.class === 'intact') {
      return {kind: 'skipped', reason: transcript ? 'no agent turn and no run-state file (a new chat)' : `no run-state file and no transcript (${names.length === 0 ? 'empty folder' : names.join(', ')})`}
    }
  }

  // Measure every intact run-state generation.
  const candidates: Candidate[] = []
  for (const g of stateGens) {
    if (g.class !== 'intact') continue
    g.measure = measured.get(g.file) ?? measureRunState(values.get(g.file), turns)
    g.turns = g.measure.turns
    candidates.push({file: g.file, measure: g.measure, mtimeMs: g.mtimeMs})
  }
  // Salvages of torn run-state files; a lossless one (nothing written is lost) is a candidate of its own.
  const salvages = salvageAll(snapshot, generations, turns, embedded, documented)
  for (const sv of salvages) {
    const g = generations.find((x) => x.file === sv.file)!
    g.salvage = sv.summary
    if (sv.summary.lossless && sv.summary.candidate && sv.measure) candidates.push({file: salvageLabel(sv.file), measure: sv.measure, mtimeMs: g.mtimeMs})
  }

  const primaryUsable = primary.class === 'intact'
  const {order, entries: ranking} = rankCandidates(candidates, primaryUsable ? primary.file : undefined)
  const best = order[0]
  let status: ChatStatus
  let winner: string | null
  let contextTurns: number | null
  const freshChat = primary.class === 'contextless' && primary.reasons.includes('fresh-chat')
  if (best === undefined) {
    if (freshChat && (M === null || M === 0)) {
      status = 'healthy'
      winner = primary.file
      contextTurns = 0
    } else {
      status = 'unrecoverable'
      winner = null
      contextTurns = null
    }
  } else {
    winner = best.file
    contextTurns = best.measure.turns
    status = primaryUsable && best.file === primary.file ? 'healthy' : 'repairable'
  }

  // Findings about the primary.
  if (primary.class === 'missing') findings.push(finding('primary-missing', primary.file, `${PRIMARY} is missing`))
  else if (primary.class === 'contextless') {
    if (freshChat && status === 'healthy') findings.push(finding('fresh-chat', primary.file, "the SDK's fresh-chat stand-in; the chat has no agent turn yet"))
    else findings.push(finding('primary-contextless', primary.file, `${PRIMARY} holds no agent context (${primary.reasons.join(', ')})`))
  } else if (primary.class !== 'intact') findings.push(finding('primary-damaged', primary.file, `${PRIMARY} is ${describeClass(primary)}`))
  else if (status === 'repairable' && best) {
    findings.push(finding('primary-behind', primary.file, `${PRIMARY} covers turn ${primary.turns}${M !== null ? ` of ${M}` : ''}; ${best.file} covers turn ${best.measure.turns}`))
  }

  // Findings about the other generations.
  for (const g of generations) {
    if (g.role === 'backup' && g.class !== 'intact') findings.push(finding('backup-damaged', g.file, `backup is ${describeClass(g)}`))
    if (g.role === 'temp') {
      if (g.class === 'intact') findings.push(finding('temp-leftover', g.file, `complete leftover temp (covers turn ${g.turns}${M !== null ? ` of ${M}` : ''})${unusualName(g.file)}`))
      else findings.push(finding('temp-damaged', g.file, `leftover temp is ${describeClass(g)}${unusualName(g.file)}`))
    }
    if (g.role === 'transcript' && g.class !== 'intact') findings.push(finding('transcript-damaged', g.file, `transcript is ${describeClass(g)}; the agent would load it as empty`))
    if (g.role === 'transcript-temp') findings.push(finding('transcript-temp-leftover', g.file, `leftover transcript temp, ${describeClass(g)}${unusualName(g.file)}`))
    if (g.role === 'meta' && g.class !== 'intact') findings.push(finding('meta-damaged', g.file, `sidecar is ${describeClass(g)}; the agent recomputes it`))
    if (g.role === 'other' && !KNOWN_OTHER.has(g.file)) findings.push(finding('unknown-file', g.file, 'not a Codebuff file; left untouched'))
    if (g.reasons.includes('unreadable')) findings.push(finding('unreadable', g.file, `could not read ${g.file}`))
    if (g.class === 'intact' && (g.role === 'primary' || g.role === 'backup' || g.role === 'temp') && loneSurrogateIn(entries.find((f) => f.name === g.file), values.get(g.file))) {
      findings.push(finding('lone-surrogate', g.file, `${g.file} holds a lone surrogate escape (a \\uD800–\\uDFFF without its other half, e.g. text cut between the halves of an emoji): JSON.parse accepts it, but the model API rejects a request holding it ("no low surrogate in string"); chatdoctor keeps the file as it is`))
    }
  }
  if (!transcript) findings.push(finding('transcript-missing', TRANSCRIPT, `${TRANSCRIPT} is missing; turns cannot be counted against it`))

  // Findings about the winning context against the transcript.
  if (status === 'unrecoverable') {
    const survives = M !== null ? `the transcript survives with ${plural(M, 'agent turn')}` : recorded ? `no transcript survives either, though ${meta!.file} records ${plural(metaCount, 'message')}` : 'no intact transcript survives either'
    findings.push(finding('context-lost', null, `no usable generation of the agent context: the agent's memory of this chat is lost; ${survives}`))
  } else if (best && M !== null) {
    const m = best.measure
    if (m.unmatchedBeforeFirst > 0 && transcriptValue!.length >= TRANSCRIPT_CAP) {
      findings.push(finding('transcript-capped', winner, `${plural(m.unmatchedBeforeFirst, 'prompt')} older than the transcript's first turn (the transcript keeps only its last ${TRANSCRIPT_CAP} messages)`))
    }
    const unexplained = transcriptValue!.length >= TRANSCRIPT_CAP ? m.unmatchedPrompts - m.unmatchedBeforeFirst : m.unmatchedPrompts
    if (unexplained > 0) findings.push(finding('prompts-without-transcript', winner, `${plural(unexplained, 'prompt')} in ${winner} ${unexplained === 1 ? 'matches' : 'match'} no transcript turn`))
    if (m.turns < M) {
      const gap = M - m.turns
      const sev = gap > 1 ? 'warning' : 'info'
      const range = gap === 1 ? `turn ${M} is` : `turns ${m.turns + 1}–${M} are`
      findings.push(finding('context-behind-transcript', winner, `${range} in the transcript but not in the agent's memory`, sev))
    }
  }
  // Salvage figures, transcript restore, stale sidecar, amnesia (may set `degraded`).
  const forensics = applyForensics({snapshot, generations, values, embedded, turns, source, transcriptSalvage, salvages, status, winner, contextTurns, findings})
  status = forensics.status
  const id = path.basename(snapshot.dir)
  if (!CHAT_ID_PATTERN.test(id)) findings.push(finding('chat-id-nonstandard', null, `chat dir name "${id}" is not a Codebuff chat id`))

  return {
    kind: 'chat',
    report: {
      format: 'codebuff', id, status, winner, transcriptTurns: M, contextTurns, findings, generations, ranking,
      ...(leaveOut ? {unmeasured: {...EMBEDDED_UNMEASURED}} : {}),
      ...(forensics.transcriptRestore ? {transcriptRestore: forensics.transcriptRestore} : {}),
      ...(forensics.amnesia ? {amnesia: forensics.amnesia} : {}),
    },
  }
}

/** Hashes the transcript classified unhashed, also in the transcript source made of it. */
function hashTranscript(entries: readonly FileEntry[], generations: readonly Generation[], source: ReturnType<typeof chooseTranscriptSource>): void {
  const g = generations.find((x) => x.role === 'transcript')
  const data = entries.find((f) => f.name === g?.file)?.data
  if (!g || g.sha256 !== null || g.class === null || !data) return
  g.sha256 = hashEntry(data)
  if (source && source.kind === 'intact' && source.file === g.file) source.sha256 = g.sha256
}

function isState(role: Role): boolean {
  return role === 'primary' || role === 'backup' || role === 'temp'
}

/** An intact large run-state, from the measurable value the inventory built of it (`large.ts`). */
function classifyLargeState(value: unknown): Classification | null {
  const shape = runStateShape(value)
  return {class: shape.class, reasons: shape.reasons, value}
}

/**
 * Classifies one entry, keeping parsed values of intact files for measuring (`as`: the role whose shape it
 * needs; `hash` false: its sha256 left null, see `hashTranscript`).
 */
function classifyCodebuffEntry(f: FileEntry, role: Role, values: Map<string, unknown>, as: Role = role, hash = true): Generation {
  const {generation, classification: c} = classifyEntry(f, role, (data) => classifyFile(as, data), isState(as) ? classifyLargeState : undefined, hash)
  if (c?.class === 'intact') values.set(f.name, c.value)
  return generation
}

/**
 * The Codebuff format adapter. Beside the contract it offers what its own planner uses, for tests: the exact
 * bytes of a generation named as in the report (`generationBytes`: a file, or an embedded copy
 * `<file>#<id>`), the salvaged generations of a chat's torn files (`salvage`) and the pid in a temp's name
 * (`tempWriterPid`).
 */
export const codebuff: FormatAdapter & {
  generationBytes: typeof generationBytes
  salvage: typeof salvageChat
  tempWriterPid: typeof tempWriterPid
} = {
  name: 'codebuff',
  findingKinds: CODEBUFF_FINDING_KINDS,
  vocabulary: ['codebuff', 'freebuff', 'manicode', 'run-state.json', 'chat-messages.json', 'chat-meta.json', 'sessionState', 'mainAgentState', 'messageHistory', 'USER_PROMPT'],
  displayName: 'Codebuff',
  defaultRoots: (home) => defaultRoots(home),
  chatsIn: (dir, names) => (isChatDir(dir, names) ? {chats: [{dir, path: dir}], descend: false} : null),
  wantsContent,
  streamValue: (name) => (isState(roleOf(name)) ? RUN_STATE_VALUE : undefined),
  quick: {roleOf, primary: PRIMARY, embedded: {role: 'transcript', find: newestEmbeddedWithContext}},
  diagnose: diagnoseChat,
  tempWriterPid,
  agentProcess: AGENT_PROCESS,
  generationBytes,
  salvage: salvageChat,
  planRepair: planCodebuffChat,
  inspect: (chat, tears) => inspectChat(chat.report, tears),
  redact: (files, report, r) => redactChatFiles(files, new Map(report.generations.map((g) => [g.file, g.role] as const)), r),
  find: codebuffFinder,
  discoveryPaths: ['.config/manicode*'],
  snapshot: {capture: captureCodebuff, redact: redactRunState, noHook: CODEBUFF_NO_HOOK},
  texts: {
    folderMtime: "chat folder's mtime (so --continue still picks the same chat)",
    notRepairable(chat) {
      const survives = chat.transcriptTurns !== null ? `the transcript survives with ${chat.transcriptTurns} agent turn${chat.transcriptTurns === 1 ? '' : 's'}` : 'no intact transcript survives either'
      return `no usable generation of the agent context: the agent's memory of this chat is lost; ${survives}; nothing written`
    },
  },
  help: {
    roots: "Codebuff's config roots (~/.config/manicode, manicode-dev, manicode-test)",
    find: 'Codebuff: codebuff --continue <id> from the project folder',
    repair:
      'Codebuff: the winner may be an embedded copy (chat-messages.json#<id>) or one of several documents inside a damaged run-state.json (run-state.json@<offset>): its exact bytes are written; a torn file that lost nothing written (only its closing syntax, or only bytes after or a BOM before a complete document) is restored from its own bytes (salvage:<file>). A torn chat-messages.json is restored from an intact transcript temp or from its own complete messages, whichever holds more (the torn file kept as evidence). A degraded chat (amnesiac context, a compaction wipe) is left as it is: the report names the --restore-from that would restore the generation holding the missing turns. --salvage also uses a salvaged torn generation that borrows cut-off members from other generations, when it covers more turns than every intact one.',
    process: 'codebuff/freebuff',
    examples: {
      chat: '~/.config/manicode/projects/my-app/chats/2025-11-04T14-01-15.000Z',
      chats: '~/.config/manicode/projects/my-app/chats',
      root: '~/.config/manicode',
      generation: 'chat-messages.json#ai-1762265497000-d81188ed9dfc1',
    },
  },
}

