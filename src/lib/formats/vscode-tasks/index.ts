/**
 * The VS Code extension task-folder adapter (Roo Code, Kilo Code, Cline 3.x): one chat per `tasks/<taskId>/`.
 * The model context (`api_conversation_history.json`) is the agent context: its generations (the file, and
 * the leftovers of the extensions' safe writes) are classified, measured in turns and ranked as for Codebuff;
 * the transcript (`ui_messages.json`) gives M; sidecars are checked; the task index says whether the extension
 * lists the task. Pure over the snapshot; never throws.
 */
import {createHash} from 'node:crypto'
import path from 'node:path'
import {classifyJsonBytes} from '../../classify/index.js'
import {classifyEntry} from '../../classify/entry.js'
import {finding} from './findings.js'
import type {ChatReport, ChatStatus, Classification, Finding, Generation, Role, TranscriptRestore} from '../../model/report.js'
import {rankCandidates, type Candidate} from '../../rank/index.js'
import {salvageMoreTurns, type SalvagedGeneration} from '../../salvage/index.js'
import type {ChatDirSnapshot, ChatPlan, Diagnosis, FileEntry, FormatAdapter, PlanOptions, PlannedAction, ScannedChat} from '../../model/adapter.js'
import {planGenerations, salvageLabel, type GenerationFormat} from '../generations/plan.js'
import {rebuildHistoryItem} from './history-item.js'
import {rebuildClineEntry} from './cline-entry.js'
import {annotateKiloTask, diagnoseKiloIndex, kiloListFactsOf, kiloWalReasons, planKiloIndex} from './kilo-index.js'
import {TASK_HISTORY, annotateClineTask, clineHistoryFactsOf, diagnoseClineHistory, followClineHistory, planClineHistory} from './cline-index.js'
import {API_HISTORY, CLINE_INDEX, FORMAT_OF, HISTORY_ITEM, KNOWN_OTHER, ROO_INDEX, PRODUCT_OF, TASK_ID, UI_MESSAGES, defaultRoots, leftoverOf, lockedFileOf, roleOf, variantOfFiles, wantsContent, type Variant} from './layout.js'
import {liveReasons} from './live.js'
import {contextMeasure, historyFacts, isMessageArray, transcriptPrompts, type HistoryFacts} from './measure.js'
import {redactTaskFiles} from './redact.js'
import {asSalvagedGeneration, salvageMessageArray, type ArraySalvage} from './salvage.js'
import type {IndexFacts, TaskFacts} from './store.js'
import {taskAccount} from './account.js'
import {vscodeTaskStoresLight, vscodeTasksLight} from './light.js'
import {taskFinder} from './find.js'
import {captureTask, redactTaskSnapshot, taskSnapshots, TASKS_NO_HOOK} from './snapshot.js'
import {sha256Hex} from '../../fsio/durable-write.js'

const ROLE_ORDER: Role[] = ['primary', 'backup', 'temp', 'transcript', 'transcript-temp', 'meta', 'other']
/** Names inside a chat dir that are chatdoctor's own and never part of the chat. */
const OWN_NAMES = /^\.chatdoctor(?:$|[.-])/
const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`
/** The roles of the model context's generations (a salvage of one of them is a generation of the model's memory). */
const API_ROLES: ReadonlySet<Role> = new Set<Role>(['primary', 'backup', 'temp'])

/** The label of a salvaged generation: `salvage:<torn file>`. */
export const salvageName = salvageLabel

/** Classifies one file by its role: syntax, then the shape the extension loads. */
function classifyFile(role: Role, name: string, data: Buffer): Classification {
  const c = classifyJsonBytes(data)
  if (c.class !== 'intact') return c
  if (role === 'primary' || role === 'backup' || role === 'temp') {
    if (!isMessageArray(c.value)) return {class: 'corrupt', reasons: ['wrong-shape']}
    return c.value.length === 0 ? {class: 'contextless', reasons: ['semantic-empty'], value: c.value} : c
  }
  if (role === 'transcript' || role === 'transcript-temp') return isMessageArray(c.value) ? c : {class: 'corrupt', reasons: ['wrong-shape']}
  if (role === 'meta') {
    const v = c.value as Record<string, unknown> | null
    if (name === 'context_history.json') return Array.isArray(v) ? c : {class: 'corrupt', reasons: ['wrong-shape']}
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return {class: 'corrupt', reasons: ['wrong-shape']}
    if (name === HISTORY_ITEM && typeof v.id !== 'string') return {class: 'corrupt', reasons: ['wrong-shape']}
  }
  return c
}

function describeClass(g: Generation): string {
  const why = g.reasons.length > 0 ? ` (${g.reasons.join(', ')})` : ''
  const at = g.damage && g.damage.length > 0 ? `, damage from byte ${g.damage.offset} of ${g.bytes}` : ''
  return `${g.class}${why}${at}`
}

/** Classifies one entry, keeping parsed values of intact and empty (`contextless`) files. */
function classifyTaskEntry(f: FileEntry, role: Role, values: Map<string, unknown>): Generation {
  const {generation, classification: c} = classifyEntry(f, role, (data) => classifyFile(role, f.name, data))
  if (c && (c.class === 'intact' || c.class === 'contextless')) values.set(f.name, c.value)
  return generation
}

/** The facts `listStore` gathered, or the variant the folder's own names betray. */
function factsOf(snapshot: ChatDirSnapshot): TaskFacts {
  const f = snapshot.unit.facts as TaskFacts | undefined
  if (f && f.kind === 'vscode-task') return f
  const recorded = (Object.entries(FORMAT_OF) as Array<[Variant, string]>).find(([, name]) => name === snapshot.unit.recordedFormat)?.[0]
  return {kind: 'vscode-task', variant: recorded ?? variantOfFiles(snapshot.files.map((x) => x.name)), index: null}
}

/** Salvages of the torn message arrays of a task folder (model context and transcript generations). */
function salvageAll(snapshot: ChatDirSnapshot, generations: readonly Generation[]): Map<string, ArraySalvage> {
  const out = new Map<string, ArraySalvage>()
  for (const g of generations) {
    if (g.role !== 'primary' && g.role !== 'backup' && g.role !== 'temp' && g.role !== 'transcript' && g.role !== 'transcript-temp') continue
    if (g.class !== 'truncated' && g.class !== 'corrupt') continue
    const data = snapshot.files.find((f) => f.name === g.file && f.kind === 'file')?.data
    if (!data) continue
    const s = salvageMessageArray(g.file, data, {class: g.class, reasons: g.reasons, damage: g.damage})
    if (s) out.set(g.file, s)
  }
  return out
}

/** A transcript source ranked for restoring a torn or missing `ui_messages.json`. */
interface TranscriptSource {
  from: string
  prompts: number
  messages: number
  bytes: number
  sha256: string
  mtimeMs: number | null
  salvage: boolean
}

function bestTranscriptSource(sources: TranscriptSource[]): TranscriptSource | undefined {
  return sources.sort(
    (a, b) =>
      b.prompts - a.prompts ||
      b.messages - a.messages ||
      Number(a.salvage) - Number(b.salvage) ||
      (b.mtimeMs ?? 0) - (a.mtimeMs ?? 0) ||
      Buffer.compare(Buffer.from(b.from), Buffer.from(a.from)),
  )[0]
}

/** What opening the task does to a damaged file, per extension (docs/formats.md). */
function nextStartLoss(variant: Variant, file: string, g: Generation | undefined): string | null {
  if (variant === 'cline' || variant === 'kilo') return null
  const product = 'Roo Code'
  // Only bytes the extension cannot parse are replaced: an empty array `[]` is read as it is.
  const unreadable = g !== undefined && g.class !== 'intact' && g.class !== 'missing' && g.class !== 'contextless'
  if (file === UI_MESSAGES && unreadable) {
    return `opening this task in ${product} (3.47.3 and later) loads ${UI_MESSAGES} as an empty transcript and saves it over the damaged file at once (the old bytes are renamed aside and deleted): repair the task, or bundle it, before opening it`
  }
  if (file === API_HISTORY && unreadable) {
    return `${product} (3.47.3 and later) reads the damaged ${API_HISTORY} as an empty history; its next save of this task writes that over the file: repair the task, or bundle it, before resuming it`
  }
  if (file === API_HISTORY && g?.class === 'missing') {
    return `${product} up to 3.45 removes a task whose ${API_HISTORY} is missing from its history as soon as it is opened (the folder stays on disk, unlisted): repair the task before opening it`
  }
  return null
}

/** Diagnoses one task folder (or the Cline extension's task list, read as a chat of its own). */
export function diagnoseTask(snapshot: ChatDirSnapshot): Diagnosis {
  const list = clineHistoryFactsOf(snapshot)
  if (list) return diagnoseClineHistory(snapshot, list)
  const kiloList = kiloListFactsOf(snapshot)
  if (kiloList) return diagnoseKiloIndex(snapshot, kiloList)
  const facts = factsOf(snapshot)
  const variant = facts.variant
  const product = PRODUCT_OF[variant]
  const entries = snapshot.files.filter((f) => !OWN_NAMES.test(f.name))
  const generations: Generation[] = []
  const values = new Map<string, unknown>()
  const findings: Finding[] = []
  const locks: FileEntry[] = []

  for (const f of entries) {
    const role = roleOf(f.name)
    if (role === 'other' && f.kind === 'directory' && lockedFileOf(f.name)) locks.push(f)
    generations.push(classifyTaskEntry(f, role, values))
  }
  const hasContextFile = generations.some((g) => g.role === 'primary' || g.role === 'backup' || g.role === 'temp')
  const transcript = generations.find((g) => g.role === 'transcript')
  if (!hasContextFile && !transcript && !generations.some((g) => g.role === 'transcript-temp')) {
    const names = entries.map((f) => f.name)
    return {kind: 'skipped', reason: `no ${API_HISTORY} and no ${UI_MESSAGES} (${names.length === 0 ? 'empty folder' : names.join(', ')})`}
  }
  // chatdoctor's stored snapshots of the model context: generations of role `snapshot`, ranked with the others.
  for (const snap of taskSnapshots(snapshot)) {
    const g = classifyTaskEntry({name: snap.name, kind: 'file', bytes: snap.data.length, mtimeMs: Date.parse(snap.header.time), data: snap.data}, 'primary', values)
    g.role = 'snapshot'
    generations.push(g)
  }
  if (!generations.some((g) => g.role === 'primary')) generations.push({file: API_HISTORY, role: 'primary', class: 'missing', reasons: [], bytes: 0, mtimeMs: null, sha256: null, turns: null})
  generations.sort((a, b) => ROLE_ORDER.indexOf(a.role) - ROLE_ORDER.indexOf(b.role) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
  const primary = generations.find((g) => g.role === 'primary')!

  // M: the user's prompts in the transcript.
  const uiValue = transcript?.class === 'intact' ? (values.get(transcript.file) as unknown[]) : null
  const M = uiValue ? transcriptPrompts(uiValue) : null

  // Measure every usable model-context generation; salvage the torn ones.
  const salvages = salvageAll(snapshot, generations)
  const candidates: Candidate[] = []
  const factsByFile = new Map<string, HistoryFacts>()
  for (const g of generations) {
    if (g.role !== 'primary' && g.role !== 'backup' && g.role !== 'temp' && g.role !== 'snapshot') continue
    if (g.class === 'intact') {
      const hf = historyFacts(values.get(g.file) as unknown[])
      factsByFile.set(g.file, hf)
      g.measure = contextMeasure(hf)
      g.turns = g.measure.turns
      candidates.push({file: g.file, measure: g.measure, mtimeMs: g.mtimeMs})
    }
    const s = salvages.get(g.file)
    if (s) {
      const hf = historyFacts(s.value)
      const measure = contextMeasure(hf)
      g.salvage = {...s.summary, turns: measure.turns}
      // A salvage that keeps every message on disk is a candidate like any file; a lossy one waits for --salvage.
      if (s.lossless) {
        factsByFile.set(salvageName(g.file), hf)
        candidates.push({file: salvageName(g.file), measure, mtimeMs: g.mtimeMs})
      }
    }
  }
  const primaryUsable = primary.class === 'intact'
  const {order, entries: ranking} = rankCandidates(candidates, primaryUsable ? primary.file : undefined)
  const best = order[0]
  let status: ChatStatus
  let winner: string | null = null
  let contextTurns: number | null = null
  if (best === undefined) {
    // An empty history with nothing in the transcript either is a task that has not reached the model yet.
    if (primary.class === 'contextless' && (M === null || M === 0)) {
      status = 'healthy'
      winner = primary.file
      contextTurns = 0
    } else status = 'unrecoverable'
  } else {
    winner = best.file
    contextTurns = best.measure.turns
    status = primaryUsable && best.file === primary.file ? 'healthy' : 'repairable'
  }

  // The model context.
  if (primary.class === 'missing') findings.push(finding('primary-missing', primary.file, `${API_HISTORY} is missing${generations.some((g) => g.role === 'backup' || g.role === 'temp') ? ' (a safe write stopped between renaming it aside and renaming the new file into place)' : ''}`))
  else if (primary.class === 'contextless') {
    if (!(status === 'healthy' && contextTurns === 0)) findings.push(finding('primary-contextless', primary.file, `${API_HISTORY} is an empty array${M ? ` while the transcript shows ${plural(M, 'user turn')}` : ''}: the model would start this task with no memory`))
  } else if (primary.class !== 'intact') findings.push(finding('primary-damaged', primary.file, `${API_HISTORY} is ${describeClass(primary)}`))
  else if (status === 'repairable' && best) findings.push(finding('primary-behind', primary.file, `${API_HISTORY} holds ${plural(primary.turns ?? 0, 'turn')}${M !== null ? ` of ${M}` : ''}; ${best.file} holds ${best.measure.turns}`))
  for (const g of generations) {
    if (g.role === 'backup') {
      if (g.class === 'intact') findings.push(finding('temp-leftover', g.file, `the previous ${API_HISTORY}, renamed aside by a safe write that did not finish (${plural(g.turns ?? 0, 'turn')})`))
      else findings.push(finding('backup-damaged', g.file, `backup is ${describeClass(g)}`))
    }
    if (g.role === 'temp') {
      if (g.class === 'intact') findings.push(finding('temp-leftover', g.file, `complete new bytes of ${API_HISTORY} never renamed into place (${plural(g.turns ?? 0, 'turn')}${M !== null ? ` of ${M}` : ''})`))
      else findings.push(finding('temp-damaged', g.file, `leftover temp is ${describeClass(g)}`))
    }
    if (g.role === 'meta' && g.class !== 'intact') findings.push(finding('meta-damaged', g.file, `${g.file} is ${describeClass(g)}${g.file === HISTORY_ITEM ? `; ${product} cannot list the task from it` : `; ${product} starts it afresh`}`))
    if (g.role === 'other') {
      const l = leftoverOf(g.file)
      if (l) findings.push(finding('temp-leftover', g.file, `leftover of an unfinished safe write of ${l.of}`))
      else if (!KNOWN_OTHER.has(g.file) && !locks.some((x) => x.name === g.file)) findings.push(finding('unknown-file', g.file, `not a ${product} task file; left untouched`))
    }
    if (g.reasons.includes('unreadable')) findings.push(finding('unreadable', g.file, `could not read ${g.file}`))
  }
  for (const l of locks) {
    findings.push(finding('write-lock', l.name, `${product}'s write lock of ${lockedFileOf(l.name)}: held while it writes that file and refreshed every 10 s; left behind by a write that did not finish it is stale after 31 s and the next write takes it over (repair refuses while it is fresh)`))
  }

  // Salvage figures.
  for (const [file, s] of salvages) {
    const g = generations.find((x) => x.file === file)!
    if (g.role === 'transcript' || g.role === 'transcript-temp') continue
    const sv = g.salvage!
    findings.push(finding('salvage-available', file, `a salvage would keep ${plural(sv.messages, 'message')} (${plural(sv.turns ?? 0, 'turn')}${M !== null ? ` of ${M}` : ''}), dropping ${plural(sv.bytesDropped, 'byte')} from byte ${sv.bytesKept}${s.lossless ? '; it loses nothing that is on disk, so plain repair can use it' : '; chatdoctor repair --salvage uses it when it holds more turns than every intact generation'}`))
  }
  // More turns reachable only with a lossy salvage of the model context: said, with the command (the core's rule).
  const lossy = [...salvages.values()]
    .filter((s) => !s.lossless && s.summary.candidate && API_ROLES.has(generations.find((g) => g.file === s.file)!.role))
    .map((s) => ({s, turns: generations.find((g) => g.file === s.file)!.salvage?.turns ?? 0}))
    .sort((a, b) => b.turns - a.turns)[0]
  const more = lossy ? salvageMoreTurns(lossy.s.file, lossy.turns, M, contextTurns, `by dropping the torn message and the ${plural(lossy.s.summary.bytesDropped, 'byte')} after the last complete one`) : null
  if (more) findings.push(more)

  // The transcript.
  let transcriptRestore: TranscriptRestore | undefined
  const sources: TranscriptSource[] = []
  for (const g of generations) {
    if (g.role === 'transcript-temp' && g.class === 'intact' && g.sha256) {
      const v = values.get(g.file) as unknown[]
      sources.push({from: g.file, prompts: transcriptPrompts(v), messages: v.length, bytes: g.bytes, sha256: g.sha256, mtimeMs: g.mtimeMs, salvage: false})
    }
  }
  const uiSalvage = transcript ? salvages.get(transcript.file) : undefined
  if (uiSalvage) {
    transcript!.salvage = {...uiSalvage.summary, turns: transcriptPrompts(uiSalvage.value)}
    sources.push({from: salvageName(transcript!.file), prompts: transcriptPrompts(uiSalvage.value), messages: uiSalvage.value.length, bytes: uiSalvage.summary.bytes, sha256: uiSalvage.summary.sha256, mtimeMs: transcript!.mtimeMs, salvage: true})
  }
  if (!transcript || transcript.class !== 'intact') {
    const src = bestTranscriptSource(sources)
    const loadsAs = variant === 'roo' ? `${product} 3.47.3 and later load it as empty` : variant === 'unknown' ? 'the extension loads it as empty or refuses to open the task' : `${product} refuses to open the task`
    if (transcript) {
      const how = src ? `; restorable from ${src.from} (${plural(src.prompts, 'user turn')}, ${plural(src.messages, 'message')}${src.salvage ? `, ${uiSalvage!.lossless ? 'every message on disk kept' : 'the torn message dropped'}` : ''})` : '; nothing to restore it from'
      findings.push(finding('transcript-damaged', transcript.file, `${UI_MESSAGES} is ${describeClass(transcript)}: ${loadsAs}${how}`))
    } else findings.push(finding('transcript-missing', UI_MESSAGES, `${UI_MESSAGES} is missing${src ? `; restorable from ${src.from} (${plural(src.prompts, 'user turn')})` : ''}`))
    if (src) {
      transcriptRestore = {from: src.from, to: UI_MESSAGES, turns: src.prompts, messages: src.messages, bytes: src.bytes, sha256: src.sha256}
      if (status === 'healthy') status = 'repairable'
    }
  } else {
    // An intact transcript and complete new bytes of it never renamed into place that hold more.
    const ahead = sources.filter((s) => !s.salvage && leftoverOf(s.from)?.kind !== 'bak' && s.messages > (uiValue?.length ?? 0))
    const src = bestTranscriptSource(ahead)
    if (src) {
      transcriptRestore = {from: src.from, to: UI_MESSAGES, turns: src.prompts, messages: src.messages, bytes: src.bytes, sha256: src.sha256}
      if (status === 'healthy') status = 'repairable'
    }
  }
  for (const g of generations) {
    if (g.role !== 'transcript-temp') continue
    findings.push(finding('transcript-temp-leftover', g.file, `leftover of an unfinished safe write of ${UI_MESSAGES}, ${describeClass(g)}${transcriptRestore?.from === g.file ? '; a repair restores the transcript from it' : ''}`))
  }

  // Context against the transcript.
  if (status === 'unrecoverable') {
    const survives = M !== null ? `the transcript survives with ${plural(M, 'user turn')}` : 'no intact transcript survives either'
    findings.push(finding('context-lost', null, `no usable generation of ${API_HISTORY}: the model's memory of this task is lost; ${survives}`))
  } else if (winner !== null && contextTurns !== null && M !== null) {
    const hf = factsByFile.get(winner)
    const condensed = hf !== undefined && hf.summaries + hf.truncationMarkers > 0
    if (contextTurns < M) {
      const gap = M - contextTurns
      const range = gap === 1 ? `turn ${M} is` : `turns ${contextTurns + 1}–${M} are`
      if (condensed) findings.push(finding('context-behind-transcript', winner, `${range} in the transcript but not in the stored context; the context was condensed, which older versions did by dropping messages`, 'info'))
      else findings.push(finding('context-behind-transcript', winner, `${range} in the transcript but not in the agent's memory`, gap > 1 ? 'warning' : 'info'))
    } else if (contextTurns > M) findings.push(finding('prompts-without-transcript', winner, `${plural(contextTurns - M, 'turn')} of ${winner} ${contextTurns - M === 1 ? 'is' : 'are'} not in the transcript (the transcript lost them)`))
  }
  const wf = winner ? factsByFile.get(winner) : undefined
  if (wf && wf.summaries + wf.truncationMarkers > 0) {
    const parts: string[] = []
    if (wf.summaries > 0) parts.push(plural(wf.summaries, 'condensation'))
    if (wf.truncationMarkers > 0) parts.push(plural(wf.truncationMarkers, 'sliding-window truncation'))
    findings.push(finding('context-condensed', winner, `${parts.join(' and ')}: ${plural(wf.hiddenPrompts, 'turn')} of ${wf.prompts} stay stored but the model no longer sees ${wf.hiddenPrompts === 1 ? 'it' : 'them'}`))
  }

  // The task index.
  const idx = facts.index
  const id = path.basename(snapshot.dir)
  const hi = generations.find((g) => g.file === HISTORY_ITEM)
  // Roo Code lists a task its cache lacks only from an intact history_item.json (TaskHistoryStore reconcile).
  const rooHidden = variant === 'roo' && idx !== null && idx.state !== 'listed' && hi?.class !== 'intact'
  // Listing again a task whose model context is lost would not bring it back: only a usable task is rebuilt.
  const usable = status === 'healthy' || status === 'repairable'
  const rebuilt = rooHidden && usable ? rebuildHistoryItem(id, fileBytes(snapshot)) : null
  const lacks = hi === undefined ? `has no ${HISTORY_ITEM}` : `has a ${hi.class} ${HISTORY_ITEM}`
  const rebuild = rebuilt === null ? (rooHidden ? `; chatdoctor does not rebuild it while the task is ${status}` : '') : 'data' in rebuilt ? `; a repair writes ${HISTORY_ITEM} from the task's own files (${rebuilt.fields.join(', ')}), and ${product} adds the task to ${ROO_INDEX} itself at its next start` : `; it cannot be rebuilt from the task's files (${rebuilt.why})`
  if (idx?.state === 'not-listed') {
    const heals = variant === 'roo' ? (hi?.class === 'intact' ? `; ${product} adds it back from ${HISTORY_ITEM} at its next start` : `; ${product} adds tasks back only from an intact ${HISTORY_ITEM}, and this folder ${lacks}, so the task stays hidden${rebuild}`) : variant === 'cline' ? clineHeals(id, snapshot, idx) : variant === 'kilo' ? kiloHeals(id, snapshot) : `; ${product}'s "Reconstruct Task History" command (command palette) rebuilds the whole list from the task folders, backing the old one up to state/taskHistory.backup.<ms>.json; the entries it writes keep no favourite, truncation range or model, and get a new ulid`
    findings.push(finding('not-in-index', idx.file, `${indexLabel(variant, idx.file)} (${idx.entries ?? 0} ${idx.entries === 1 ? 'entry' : 'entries'}) does not list this task, so ${product} does not show it${heals}`))
  } else if (idx?.state === 'damaged') {
    const next = variant === 'kilo' ? `${idx.why ? `: ${idx.why}` : ''}; so whether ${product} lists this task is unknown (VS Code replaces a database it cannot open with its state.vscdb.backup, the copy of its last clean close, at its next start); chatdoctor reads it only on a private copy and never writes it` : variant === 'cline' ? (idx.class === 'missing' ? `: ${idx.why ?? 'it is missing'}; chatdoctor does not create the list while that is unknown (an entry could be listed twice)` : `; at its next start ${product} offers to reconstruct it from the task folders, and declining wipes its list${idx.reasons?.includes('bom') ? '' : idx.folder === 'link' || idx.folder === 'list-link' ? `; ${idx.folder === 'link' ? 'state/' : idx.file} is a symbolic link, which chatdoctor never writes through: repair the list it leads to by hand (with Cline closed), or run Cline's "Reconstruct Task History" command` : `; a repair of ${idx.file} keeps its complete entries byte for byte and adds those of the task folders it lacks, rebuilt from their own files`}`) : `; ${product} rebuilds it from each task's ${HISTORY_ITEM} at its next start`
    findings.push(finding('index-unreadable', idx.file, `${indexLabel(variant, idx.file)} is ${idx.class}${idx.reasons && idx.reasons.length > 0 ? ` (${idx.reasons.join(', ')})` : ''}${next}`))
    if (rooHidden) findings.push(finding('not-in-index', HISTORY_ITEM, `this task folder ${lacks}, so the rebuilt index leaves it out and ${product} does not show it${rebuild}`))
  } else if (idx?.state === 'listed' && variant === 'roo' && hi?.class !== 'intact') {
    findings.push(finding('index-only', HISTORY_ITEM, `${product} lists this task only through ${idx.file}: the folder ${lacks}, so an index that is reset, lost or rebuilt would leave the task out (${product} writes the file again at its next save of the task)`))
  } else if (idx?.state === 'absent' && variant === 'cline') {
    const pending = idx.pending ? ` but the ${idx.pending === 1 ? 'entry' : `${idx.pending} entries`} its next start takes from VS Code's globalStorage/state.vscdb (this task is not among them)` : ''
    findings.push(finding('not-in-index', idx.file, `${idx.file} is missing while task folders exist, so ${product} lists nothing${pending} and does not show this task${clineHeals(id, snapshot, idx)}`))
  } else if (idx?.state === 'absent' && rooHidden) {
    findings.push(finding('not-in-index', HISTORY_ITEM, `${idx.file} is missing (${product} rebuilds it from each task's ${HISTORY_ITEM} at its next start) and this task folder ${lacks}, so ${product} does not show it${rebuild}`))
  }
  if (rebuilt !== null && 'data' in rebuilt && status === 'healthy') status = 'repairable'
  // A Cline task its list does not show, where chatdoctor does not write the list (a link, no state/ folder):
  // hidden all the same, so not healthy; its plan is the manual step (`clineManual`).
  if (status === 'healthy' && clineManual(variant, idx) !== null) status = 'repairable'

  // What opening the task in the extension destroys.
  for (const file of [UI_MESSAGES, API_HISTORY]) {
    const g = generations.find((x) => x.file === file)
    const loss = nextStartLoss(variant, file, g)
    if (loss) findings.push(finding('next-start-loss', file, loss))
  }
  if (!TASK_ID.test(id)) findings.push(finding('chat-id-nonstandard', null, `task folder name "${id}" is not a ${product} task id`))

  return {
    kind: 'chat',
    report: {format: FORMAT_OF[variant], id, status, winner, transcriptTurns: M, contextTurns, findings, generations, ranking, ...(transcriptRestore ? {transcriptRestore} : {})},
  }
}

/**
 * What happens to a Kilo Code task its global state's `taskHistory` does not list, in words (after a `; `):
 * Kilo Code has no command that rebuilds the list; the list chat's repair adds the entry (kilo-index.ts), or the
 * manual step when it cannot.
 */
function kiloHeals(id: string, snapshot: ChatDirSnapshot): string {
  const r = rebuildHistoryItem(id, fileBytes(snapshot))
  const manual = "quit every window of the editor, copy state.vscdb (with any -wal and -shm beside it) aside, and add an entry with this task's id, ts and task to the taskHistory array of the kilocode.kilo-code value in its ItemTable (sqlite3)"
  if (!('data' in r)) return `; Kilo Code has no command that rebuilds its list, and this task's entry cannot be rebuilt from its files (${r.why}): to list it again, ${manual}`
  return `; Kilo Code has no command that rebuilds its list: a repair of VS Code's state.vscdb adds the task's entry, rebuilt from its own files, in one transaction on a private copy (only while no editor runs with this profile, and only when the list chat's findings leave it to chatdoctor; when they do not, ${manual})`
}

/** The task index in words: its file, or for Kilo Code the row of VS Code's state database that holds it. */
function indexLabel(variant: Variant, file: string): string {
  return variant === 'kilo' ? `the taskHistory of kilocode.kilo-code in VS Code's globalStorage/state.vscdb` : file
}

/**
 * What happens to a Cline task its `state/taskHistory.json` does not list (or that is missing), in words (after
 * a `; `): the list repair, or the manual step when the repair does not write there (a `state` folder that is a
 * symbolic link is never written through; one that is not there is not made).
 */
function clineHeals(id: string, snapshot: ChatDirSnapshot, idx: IndexFacts): string {
  const r = rebuildClineEntry(id, fileBytes(snapshot), null)
  const absent = idx.state === 'absent'
  const repair = absent ? `a repair creates ${CLINE_INDEX} with the entries of the task folders it lacks, this one's rebuilt from the task's own files${idx.pending ? `, leaving out the ${idx.pending} Cline's next start takes from VS Code's state.vscdb (so none is listed twice)` : ''}` : `a repair of ${CLINE_INDEX} adds its entry, rebuilt from the task's own files, every other entry kept byte for byte`
  const own =
    !('json' in r) ? `; its entry cannot be rebuilt from the task's files (${r.why})`
    : idx.folder === 'link' || idx.folder === 'list-link' ? `; ${idx.folder === 'link' ? 'state/' : CLINE_INDEX} is a symbolic link, which chatdoctor never writes through, so no repair adds the entry: to list the task again, add its entry to the list the link leads to by hand (with Cline closed), or run Cline's command below`
    : idx.folder === 'missing' ? `; the folder state/ is not there either and chatdoctor does not make it: create it (empty) and run chatdoctor repair again, or run Cline's command below`
    : `; ${repair} (unless the list chat's findings leave the list for a step by hand, which the repair then gives)`
  return `${own}; Cline's own "Reconstruct Task History" command (command palette) rebuilds the whole list instead, backing the old one up to state/taskHistory.backup.<ms>.json: the entries it writes keep no favourite, truncation range, workspace or model, and get a new ulid`
}

/**
 * The manual step of a Cline task its list does not show when chatdoctor does not write that list (`state/` or
 * the list a symbolic link, or no `state/` folder); null otherwise.
 */
function clineManual(variant: Variant, idx: IndexFacts | null): string | null {
  if (variant !== 'cline' || !idx || (idx.state !== 'not-listed' && idx.state !== 'absent') || idx.folder === undefined) return null
  if (idx.folder === 'missing') return `the folder state/ is not there and chatdoctor does not make it: create it (empty) and run chatdoctor repair again, or run Cline's "Reconstruct Task History" command`
  return `${idx.folder === 'link' ? 'state/' : CLINE_INDEX} is a symbolic link, which chatdoctor never writes through: add this task's entry to the list it leads to by hand (with Cline closed), or run Cline's "Reconstruct Task History" command`
}

/** The bytes of the task folder's files that the scan read, by name. */
function fileBytes(snapshot: ChatDirSnapshot): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  for (const f of snapshot.files) if (f.kind === 'file' && f.data) out.set(f.name, f.data)
  return out
}

/**
 * The `history_item.json` a repair writes for a Roo Code task the extension does not list (its index lacks it
 * and its own `history_item.json` is missing or damaged), rebuilt from the task's files; null when none is due.
 */
function historyItemRepair(snapshot: ChatDirSnapshot): ReturnType<typeof rebuildHistoryItem> | null {
  const facts = factsOf(snapshot)
  if (facts.variant !== 'roo' || facts.index === null || facts.index.state === 'listed') return null
  const hi = snapshot.files.find((f) => f.name === HISTORY_ITEM && f.kind === 'file')
  if (hi?.data) {
    const c = classifyFile('meta', HISTORY_ITEM, hi.data)
    if (c.class === 'intact') return null
  }
  return rebuildHistoryItem(path.basename(snapshot.dir), fileBytes(snapshot))
}

/**
 * The repair plan of a task: its generations (`planGenerations`), then, for a Roo Code task its index no longer
 * lists, its `history_item.json` written from the task's own files (the damaged one kept as evidence first), so
 * that Roo Code lists it again.
 */
function planTask(chat: ScannedChat, opts: PlanOptions): ChatPlan {
  if (clineHistoryFactsOf(chat.snapshot)) return planClineHistory(chat)
  if (kiloListFactsOf(chat.snapshot)) return planKiloIndex(chat)
  const plan = planGenerations(chat, opts, TASKS)
  const facts = factsOf(chat.snapshot)
  const manual = facts ? clineManual(facts.variant, facts.index) : null
  if (manual !== null && !plan.problem && !plan.refusal && !plan.actions.some((a) => a.type !== 'restore-mtime')) return {...plan, actions: [], manual}
  const item = chat.report.status === 'repairable' ? historyItemRepair(chat.snapshot) : null
  if (plan.problem || plan.refusal || item === null || !('data' in item)) return plan
  const hi = chat.report.generations.find((g) => g.file === HISTORY_ITEM)
  const entry = chat.snapshot.files.find((f) => f.name === HISTORY_ITEM && f.kind === 'file')
  if (hi && entry) plan.watch.push({name: HISTORY_ITEM, bytes: entry.bytes, mtimeMs: entry.mtimeMs})
  const mtime = plan.actions.findIndex((a) => a.type === 'restore-mtime')
  const actions: PlannedAction[] = []
  if (hi && hi.class !== 'missing') actions.push({type: 'preserve', from: HISTORY_ITEM, to: HISTORY_ITEM, sha256: hi.sha256})
  actions.push({type: 'restore', from: REBUILT, to: HISTORY_ITEM, sha256: createHash('sha256').update(item.data).digest('hex'), source: {kind: 'bytes', label: REBUILT, data: item.data}, data: item.data})
  if (mtime >= 0) plan.actions.splice(mtime, 0, ...actions)
  else plan.actions.push(...actions, {type: 'restore-mtime', from: null, to: '.', sha256: null, mtimeMs: chat.snapshot.dirMtimeMs})
  return plan
}

/** The label of the rebuilt `history_item.json` as a repair's source. */
const REBUILT = `rebuilt:${HISTORY_ITEM}`

/**
 * The exact bytes of a generation of a task: a file's bytes, or for `salvage:<file>` the salvaged bytes of that
 * torn file (recomputed from the snapshot). Null when not available.
 */
export function generationBytes(snapshot: ChatDirSnapshot, file: string): Buffer | null {
  if (file.startsWith('salvage:')) {
    const torn = file.slice('salvage:'.length)
    const entry = snapshot.files.find((f) => f.name === torn && f.kind === 'file')
    if (!entry?.data) return null
    const c = classifyJsonBytes(entry.data)
    const s = salvageMessageArray(torn, entry.data, c)
    return s ? Buffer.concat(s.parts) : null
  }
  const stored = taskSnapshots(snapshot).find((s) => s.name === file)
  if (stored) return sha256Hex(stored.data) === stored.header.sha256 ? stored.data : null
  return snapshot.files.find((f) => f.name === file && f.kind === 'file')?.data ?? null
}

/** The salvaged model-context generations of a task (`repair --salvage`), with their measures. */
export function salvageTask(snapshot: ChatDirSnapshot, report: Pick<ChatReport, 'generations'>): SalvagedGeneration[] {
  const out: SalvagedGeneration[] = []
  for (const [, s] of salvageAll(snapshot, report.generations)) {
    const role = roleOf(s.file)
    if (role !== 'primary' && role !== 'backup' && role !== 'temp') continue
    out.push(asSalvagedGeneration(s, contextMeasure(historyFacts(s.value))))
  }
  return out
}

/** What the shared planner of whole-file generations asks of this format. */
const TASKS: GenerationFormat = {generationBytes, salvage: salvageTask}

/**
 * Task folders found one by one (a PATH below the storage folder, a bundle's folder). Its reports carry the
 * extension's format (`roo-code`, `kilo-code`, `cline-extension`, or `vscode-tasks` when nothing tells).
 * Beside the contract, for tests: the exact bytes of a generation (`generationBytes`: a file, or a salvage
 * `salvage:<file>`) and the salvaged generations of a task (`salvage`).
 */
export const vscodeTasks: FormatAdapter & {generationBytes: typeof generationBytes; salvage: typeof salvageTask} = {
  ...vscodeTasksLight,
  wantsContent: (name) => wantsContent(name) || name === TASK_HISTORY,
  quick: {roleOf, primary: API_HISTORY},
  diagnose: diagnoseTask,
  generationBytes,
  salvage: salvageTask,
  planRepair: planTask,
  liveReasons: (snapshot) => liveReasons(snapshot.dir),
  // A WAL beside VS Code's database would be replayed over the list's rebuilt database: never written, --force or not.
  writeBlockers: (snapshot) => (kiloListFactsOf(snapshot) ? kiloWalReasons(snapshot.dir) : []),
  inspect: (chat) => ({account: kiloListFactsOf(chat.snapshot) ? "Kilo Code's task list in VS Code's state.vscdb: what it lacks and what a repair adds are in the findings." : clineHistoryFactsOf(chat.snapshot) ? `The Cline extension's task list ${CLINE_INDEX}: what is wrong with it and what a repair adds are in the findings.` : taskAccount(chat.report)}),
  redact: redactTaskFiles,
  find: taskFinder,
  snapshot: {capture: captureTask, redact: redactTaskSnapshot, noHook: TASKS_NO_HOOK, timerRoots: defaultRoots},
}

/** An extension's storage folder: its task folders with what the task index says of each. */
export const vscodeTaskStores: FormatAdapter = {
  ...vscodeTasks,
  ...vscodeTaskStoresLight,
  indexes: {
    ...vscodeTaskStoresLight.indexes,
    annotate: (session, indexes) => annotateClineTask(session, indexes) ?? annotateKiloTask(session, indexes),
    followUp: followClineHistory,
  },
  // Snapshots of the tasks it lists, but no guard entry of its own: `guard` names the task format.
  snapshot: {capture: captureTask, redact: redactTaskSnapshot},
}

/** Both, in detection order (the registry's one line). */
export const VSCODE_TASK_ADAPTERS: readonly FormatAdapter[] = [vscodeTaskStores, vscodeTasks]
