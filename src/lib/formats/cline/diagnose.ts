/**
 * The diagnosis of one Cline session: classify its files, measure the conversation, rank it against its
 * salvage, say what the index says of it, and — before anything else the user does — what Cline's own next
 * start of the session will destroy. Pure over the snapshot and the facts `listStore` gathered; never throws.
 *
 * There is only one generation of the conversation on disk: Cline rewrites `<id>.messages.json` in place
 * (`open` without `O_TRUNC`, one `write`, `ftruncate`; no temp, no backup, no fsync — new-agents.md §2.4), so a
 * damaged one has no older copy to fall back on. The candidates are the file itself (when Cline's reader gets
 * its messages) and its salvage (`salvage:<id>.messages.json`: the complete messages before the damage, byte
 * for byte, closed again; nothing borrowed).
 *
 * Turns N of M: N counts the user's runs in the winner (the SDK's own rule, messages.ts `userRunSpan`); M is
 * the most the session is known to have had: those runs, or the run count of its latest checkpoint in the
 * session record or the index row.
 *
 * Status: `healthy` when Cline loads every message as written and N = M (and the session record is fine or
 * cannot be helped); `repairable` when a salvage keeps at least one message of a conversation Cline would read
 * as empty, or when only the session record is damaged and its salvage passes Cline's schema; `degraded` when
 * Cline loads the messages only with invalid UTF-8 replaced, or loads fewer turns than the run count says
 * (a conversation reset or cut short); `unrecoverable` when the conversation is empty, NUL-filled, missing, or
 * torn before its first complete message.
 */
import {classifyJsonBytes} from '../../classify/index.js'
import {classifyEntry} from '../../classify/entry.js'
import {finding} from './findings.js'
import type {ChatStatus, Classification, ContextMeasure, Finding, Generation, Role} from '../../model/report.js'
import {rankCandidates, type Candidate} from '../../rank/index.js'
import type {ChatDirSnapshot, Diagnosis, FileEntry} from '../../model/adapter.js'
import {salvageLabel} from '../../salvage/index.js'
import {compactionFile, isChildMessagesFile, messagesFile, recordFile, roleIn} from './layout.js'
import {clineRead, measureMessages, messagesOf, type ClineRead} from './messages.js'
import {conversationSnapshots} from './snapshot.js'
import {recordProblem, runCountOf} from './record.js'
import {salvageMessages, salvageRecord, salvageable, type ClineSalvage} from './salvage.js'
import type {ClineFacts, IndexOnlyFacts, SessionFacts} from './store.js'

/** chatdoctor's own names inside a session folder (evidence), never part of the session. */
const OWN = /^\.chatdoctor(?:$|[.-])/

/** The label of the salvaged conversation as a candidate (and as a restore's source): `salvage:<file>`. */
export const salvageName = salvageLabel

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`


function describe(g: Generation): string {
  const why = g.reasons.length > 0 ? ` (${g.reasons.join(', ')})` : ''
  const at = g.damage && g.class !== 'empty' ? `, damaged from byte ${g.damage.offset} of ${g.bytes}` : ''
  return `${g.class}${why}${at}`
}

/** What a session's files came to, for the planner and `inspect` (recomputed from the snapshot: pure). */
export interface SessionAnalysis {
  id: string
  generations: Generation[]
  primary: Generation
  record: Generation | null
  /** What Cline's reader gets from the conversation file (`empty` when it is missing or unreadable). */
  read: ClineRead
  /** The salvage of a conversation Cline would read as empty, when one can be made. */
  messagesSalvage: ClineSalvage | null
  /** The salvage of a damaged session record, when one can be made. */
  recordSalvage: ClineSalvage | null
  /** Turns the session had, from the best evidence (see `turnsWritten`), and where that figure comes from. */
  written: {turns: number; from: string} | null
}

/** Classifies one file by role: bytes and syntax, then the shape its role needs. */
function classify(role: Role, name: string, data: Buffer): Classification {
  const c = classifyJsonBytes(data)
  if (c.class !== 'intact') return c
  if (role === 'primary' || role === 'transcript') return messagesOf(c.value) !== null ? c : {class: 'corrupt', reasons: ['wrong-shape']}
  if (name.endsWith('.compaction.json')) return messagesOf(c.value) !== null && !Array.isArray(c.value) ? c : {class: 'corrupt', reasons: ['wrong-shape']}
  if (role === 'meta') return recordProblem(c.value) === null ? c : {class: 'corrupt', reasons: ['wrong-shape']}
  return c
}

function generationOf(f: FileEntry, role: Role, values: Map<string, unknown>): Generation {
  const {generation, classification: c} = classifyEntry(f, role, (data) => classify(role, f.name, data))
  if (c?.class === 'intact') values.set(f.name, c.value)
  return generation
}

/**
 * The turns the session had, from the best evidence: the most of the user's runs in the conversation Cline's
 * reader gets (or, when it gets nothing, in the salvage) and the run count of the latest checkpoint in the
 * session record or the index row (the SDK's count of the user's runs when it took the checkpoint: 5 for the
 * real 5-turn session, 2 for the 2-turn one).
 */
function turnsWritten(loaded: ContextMeasure | null, salvage: ClineSalvage | null, recordValue: unknown, facts: SessionFacts): {turns: number; from: string} | null {
  const evidence: Array<{turns: number; from: string}> = []
  if (loaded) evidence.push({turns: loaded.turns, from: 'the conversation'})
  else if (salvage?.measure) evidence.push({turns: salvage.measure.turns, from: 'the salvaged conversation'})
  const recordRuns = recordValue !== undefined ? runCountOf((recordValue as {metadata?: unknown}).metadata) : null
  if (recordRuns !== null) evidence.push({turns: recordRuns, from: 'the run count in the session record'})
  const row = facts.index.state === 'read' ? facts.index.row : null
  if (row?.runCount != null) evidence.push({turns: row.runCount, from: 'the run count in the session index'})
  if (evidence.length === 0) return null
  return evidence.reduce((a, b) => (b.turns > a.turns ? b : a))
}

/** Analyses one session folder (shared by `diagnose`, the planner and `inspect`). */
export function analyzeSession(snapshot: ChatDirSnapshot, facts: SessionFacts): SessionAnalysis {
  const id = facts.sessionId
  const values = new Map<string, unknown>()
  const generations: Generation[] = []
  for (const f of snapshot.files) {
    if (OWN.test(f.name)) continue
    const role: Role = roleIn(id, f.name) !== 'other' ? roleIn(id, f.name) : isChildMessagesFile(id, f.name) ? 'transcript' : 'other'
    generations.push(generationOf(f, role, values))
  }
  let primary = generations.find((g) => g.role === 'primary')
  if (!primary) {
    primary = {file: messagesFile(id), role: 'primary', class: 'missing', reasons: [], bytes: 0, mtimeMs: null, sha256: null, turns: null}
    generations.unshift(primary)
  }
  const record = generations.find((g) => g.file === recordFile(id)) ?? null
  const data = snapshot.files.find((f) => f.name === primary!.file && f.kind === 'file')?.data

  let read: ClineRead = {read: 'empty'}
  if (primary.class === 'intact') read = clineRead(data!, {value: values.get(primary.file)})
  else if (data && primary.class !== 'missing' && !primary.reasons.includes('not-a-file')) read = clineRead(data)
  let loaded: ContextMeasure | null = null
  if (read.read !== 'empty') {
    loaded = measureMessages(read.messages).measure
    primary.measure = loaded
    primary.turns = loaded.turns
  }
  let messagesSalvage: ClineSalvage | null = null
  if (read.read === 'empty' && data && primary.class !== null && salvageable(primary)) {
    messagesSalvage = salvageMessages(primary.file, data, primary.damage?.offset)
    if (messagesSalvage) primary.salvage = messagesSalvage.summary
  }
  let recordSalvage: ClineSalvage | null = null
  const recordData = record ? snapshot.files.find((f) => f.name === record.file && f.kind === 'file')?.data : undefined
  if (record && recordData && record.class !== null && salvageable(record)) {
    recordSalvage = salvageRecord(record.file, recordData, record.damage?.offset)
    if (recordSalvage) record.salvage = recordSalvage.summary
  }
  const recordValue = record?.class === 'intact' ? values.get(record.file) : recordSalvage?.value
  const written = turnsWritten(loaded, messagesSalvage, recordValue, facts)
  return {id, generations, primary, record, read, messagesSalvage, recordSalvage, written}
}

/** The index's view of the session, as findings. */
function indexFindings(facts: SessionFacts, recordUsable: boolean, findings: Finding[]): void {
  const ix = facts.index
  if (ix.state === 'absent') findings.push(finding('index-unreadable', null, `there is no session index (db/sessions.db): Cline recreates it on its next start and lists the sessions from their folders again (observed on Cline 3.0.65)`, 'info'))
  else if (ix.state === 'unreadable') findings.push(finding('index-unreadable', null, `the session index db/sessions.db could not be read (on a private copy): ${ix.error}; whether it lists this session is unknown`))
  else if (ix.state === 'read' && ix.row === null) {
    if (recordUsable) findings.push(finding('not-in-index', null, `the session index db/sessions.db does not list ${facts.sessionId}: Cline's history finds it only through its session record (its fallback, used while the index lists fewer than 200 sessions)`))
    else findings.push(finding('not-in-index', null, `the session index db/sessions.db does not list ${facts.sessionId}, and its session record cannot be read either: Cline's history cannot show this session`, 'error'))
  }
}

/** The live signs, as a finding. */
function liveFinding(facts: ClineFacts, findings: Finding[]): void {
  if (facts.live.length === 0) return
  const more = facts.live.length > 1 ? ` (and ${plural(facts.live.length - 1, 'other sign')})` : ''
  findings.push(finding('agent-running', null, `${facts.live[0].what}${more}: it rewrites this session's files in place at any moment; a repair is refused until it stops (\`cline hub stop\`)`))
}

/** Diagnoses one Cline session folder. */
export function diagnoseSession(snapshot: ChatDirSnapshot, facts: SessionFacts): Diagnosis {
  const a = analyzeSession(snapshot, facts)
  const {id, generations, primary, record, read, messagesSalvage, recordSalvage, written} = a
  const findings: Finding[] = []
  const M = written?.turns ?? null
  const resume = `\`cline --id ${id}\``

  // Candidates: the file itself when Cline reads its messages, else its salvage.
  const candidates: Candidate[] = []
  if (read.read !== 'empty' && primary.measure) candidates.push({file: primary.file, measure: primary.measure, mtimeMs: primary.mtimeMs})
  else if (messagesSalvage?.summary.candidate && messagesSalvage.measure) candidates.push({file: salvageName(primary.file), measure: messagesSalvage.measure, mtimeMs: primary.mtimeMs})
  // chatdoctor's stored snapshots of the conversation: generations of role `snapshot`, ranked with the file.
  for (const snap of conversationSnapshots(snapshot, id)) {
    const mtimeMs = Date.parse(snap.header.time)
    const g: Generation = {file: snap.name, role: 'snapshot', class: null, reasons: [], bytes: snap.data.length, mtimeMs, sha256: snap.header.sha256, turns: null}
    generations.push(g)
    const r = clineRead(snap.data)
    g.class = r.read === 'empty' ? 'corrupt' : 'intact'
    if (r.read === 'empty') continue
    g.measure = measureMessages(r.messages).measure
    g.turns = g.measure.turns
    candidates.push({file: snap.name, measure: g.measure, mtimeMs})
  }
  const {order, entries: ranking} = rankCandidates(candidates, read.read !== 'empty' ? primary.file : undefined)
  const best = order[0]
  const fromSnapshot = best !== undefined && generations.some((g) => g.role === 'snapshot' && g.file === best.file)

  let status: ChatStatus
  if (!best) status = 'unrecoverable'
  else if (read.read === 'empty' || fromSnapshot) status = 'repairable'
  else if (read.read === 'lossy' || (M !== null && best.measure.turns < M)) status = 'degraded'
  else status = 'healthy'
  const recordUsable = record?.class === 'intact' || recordSalvage?.summary.candidate === true
  if (status === 'healthy' && record && record.class !== 'intact' && recordSalvage?.summary.candidate) status = 'repairable'

  // The conversation. A file that could not be read, or only streamed (too large to hold), is not called lost.
  const data = snapshot.files.find((f) => f.name === primary.file && f.kind === 'file')?.data
  const unreadable = primary.reasons.includes('unreadable')
  const streamedOnly = !unreadable && primary.class !== 'missing' && primary.sha256 !== null && data === undefined
  const noOlder = 'Cline rewrites this file in place and keeps no backup or temp: no older copy of it exists on disk'
  if (unreadable) {
    findings.push(finding('unreadable', primary.file, `${primary.file} could not be read: whether Cline can load it is unknown (run chatdoctor as the user who owns it)`))
  } else if (streamedOnly && read.read === 'empty') {
    findings.push(finding('primary-damaged', primary.file, `${primary.file} is ${describe(primary)}, found by streaming it (${plural(primary.bytes, 'byte')}, too large to hold in memory and salvage here): Cline's reader takes it as an empty conversation. ${noOlder}`))
  } else if (primary.class === 'missing') {
    findings.push(finding('primary-missing', primary.file, `${primary.file} is missing: Cline's resume reads an empty conversation. ${noOlder}`))
  } else if (read.read === 'empty') {
    findings.push(finding('primary-damaged', primary.file, `${primary.file} is ${describe(primary)}: Cline's reader takes it as an empty conversation, silently. ${noOlder}`))
  } else if (primary.class !== 'intact') {
    const how = read.read === 'lossy' ? 'but only with its invalid bytes replaced by U+FFFD, and its next save writes the replacements over the original bytes' : 'as written (its reader strips a byte-order mark and surrounding whitespace); strict JSON readers reject it'
    findings.push(finding('primary-irregular', primary.file, `${primary.file} is ${describe(primary)}: Cline loads its ${plural(primary.turns ?? 0, 'turn')} ${how}`))
  }
  if (fromSnapshot) findings.push(finding('snapshot-restores', null, `${best!.file} holds ${plural(best!.measure.turns, 'turn')}, more than ${read.read !== 'empty' ? `${primary.file} (${primary.turns ?? 0})` : 'anything on disk'}; chatdoctor repair writes its bytes back as ${primary.file}`))
  if (messagesSalvage) {
    const s = messagesSalvage.summary
    const lost = M !== null && s.turns !== null && M > s.turns ? `; ${M - s.turns === 1 ? `turn ${M} is` : `turns ${s.turns + 1}–${M} are`} lost with the dropped bytes (${written!.from} says ${M})` : ''
    if (s.candidate) findings.push(finding('salvage-available', primary.file, `a salvage keeps ${plural(s.messages, 'complete message')} byte for byte (${plural(s.turns ?? 0, 'turn')}${M !== null ? ` of ${M}` : ''}), bytes [0, ${s.bytesKept}) of ${primary.bytes}, and only closes the brackets${s.tornElementDropped ? ' (a torn message is dropped)' : ''}${lost}; chatdoctor repair writes it`))
    else findings.push(finding('salvage-available', primary.file, `a salvage keeps no complete message (the damage comes before the first one ends): nothing to restore`, 'info'))
  }
  if (read.read !== 'empty' && best && M !== null && best.measure.turns < M) {
    const gap = M - best.measure.turns
    findings.push(finding('turns-missing', primary.file, `${primary.file} holds ${plural(best.measure.turns, 'turn')}, but ${written!.from} says the session had ${M}: ${gap === 1 ? `turn ${M} is` : `turns ${best.measure.turns + 1}–${M} are`} not in the agent's context, and Cline keeps no older copy that holds ${gap === 1 ? 'it' : 'them'}`))
  }
  if (status === 'unrecoverable' && !unreadable && !streamedOnly) {
    const had = M !== null ? ` (${written!.from} says it had ${plural(M, 'turn')})` : ''
    findings.push(finding('context-lost', null, `no usable copy of the conversation${had}: ${noOlder}`))
  }

  // Before the next start: what Cline's own resume will destroy.
  if (read.read === 'empty' && !unreadable) {
    const first = status === 'repairable' ? `run chatdoctor repair first (it writes the ${fromSnapshot ? 'snapshot' : 'salvage'}, keeping the damaged file as evidence)` : `bundle it first (chatdoctor bundle) to keep what is left`
    findings.push(finding('next-start-loss', primary.file, `before Cline's next start of this session: its resume (${resume}) reads an empty conversation, starts a new one and overwrites ${primary.class === 'missing' ? 'the session files' : `${primary.file} and ${recordFile(id)}`} (title, usage and checkpoint history reset; observed on Cline 3.0.65): ${first}`))
  } else if (read.read !== 'empty' && read.messages.length === 0 && record?.class === 'intact') {
    // An empty conversation is not resumed as it is: the SDK starts the session over (`isReadOnlyResumeStart`).
    findings.push(finding('next-start-loss', record.file, `before Cline's next start of this session: with no message to resume, ${resume} writes a new session record over ${record.file} (its title, usage totals and checkpoint history${M !== null && M > 0 ? `, the last record of the session's ${plural(M, 'turn')}` : ''} are lost): bundle the session first to keep it`, 'warning'))
  } else if (record && record.class !== 'intact') {
    const first = recordSalvage?.summary.candidate ? 'chatdoctor repair salvages the record first (the members before the damage, which Cline accepts)' : 'nothing of it can be salvaged that Cline would accept; bundle it to keep a copy'
    findings.push(finding('next-start-loss', record.file, `before Cline's next start of this session: it ignores the damaged ${record.file} and writes a new one from scratch (the title, usage totals and checkpoint history it held are lost; observed on Cline 3.0.65): ${first}`, 'warning'))
  }

  // The session record and the other files.
  if (!record) findings.push(finding('session-record-damaged', recordFile(id), `${recordFile(id)} is missing: Cline writes a new session record at the next start (title, usage totals and checkpoint history start over)`, 'warning'))
  for (const g of generations) {
    if (g === record && g.class !== 'intact') {
      const salv = recordSalvage ? (recordSalvage.summary.candidate ? `; a salvage keeps the members before the damage (${plural(recordSalvage.summary.bytesKept, 'byte')}) and passes Cline's schema` : `; a salvage would not pass Cline's schema${recordSalvage.summary.keysMissing.length > 0 ? ` (${recordSalvage.summary.keysMissing.join(', ')} cut off)` : ''}`) : ''
      findings.push(finding('session-record-damaged', g.file, `the session record is ${describe(g)}: Cline cannot read it${salv}`))
    }
    if (g.role === 'meta' && g.file === compactionFile(id) && g.class !== 'intact') findings.push(finding('compaction-damaged', g.file, `the compacted view is ${describe(g)}: Cline ignores it (the conversation file holds the whole history)`))
    if (g.role === 'transcript' && g.class !== 'intact') findings.push(finding('transcript-damaged', g.file, `a sub-agent's conversation is ${describe(g)}: Cline reads it as empty`, 'warning'))
    if (g.role === 'other' && g.file !== primary.file) findings.push(finding('unknown-file', g.file, 'not a Cline session file; left untouched'))
    if (g.reasons.includes('unreadable') && g !== primary) findings.push(finding('unreadable', g.file, `could not read ${g.file}`))
  }
  indexFindings(facts, recordUsable, findings)
  liveFinding(facts, findings)

  return {
    kind: 'chat',
    report: {format: 'cline', id, status, winner: best?.file ?? null, transcriptTurns: fromSnapshot && (M ?? 0) < best!.measure.turns ? best!.measure.turns : M, contextTurns: best ? best.measure.turns : null, findings, generations, ranking},
  }
}

/** Diagnoses a session the index lists whose folder is gone. */
export function diagnoseIndexOnly(facts: IndexOnlyFacts): Diagnosis {
  const id = facts.sessionId
  const file = messagesFile(id)
  const M = facts.index.row.runCount
  const findings: Finding[] = [
    finding('index-entry-without-files', null, `the session index db/sessions.db lists ${id}, but its folder sessions/${id}/ is gone: \`cline history\` still shows it, and \`cline --id ${id}\` silently starts a new empty session under that id (observed on Cline 3.0.65)`),
    finding('context-lost', null, `no file of the session survives${M !== null ? ` (the index's run count says it had ${plural(M, 'turn')})` : ''}; the index row holds its settings and metadata only`),
    finding('next-start-loss', null, `before Cline's next start of this session: \`cline --id ${id}\` overwrites the index row's metadata (title, usage, checkpoint history) with the new empty session's; bundle or copy db/sessions.db (with its -wal) first if you need them`, 'warning'),
  ]
  liveFinding(facts, findings)
  const primary: Generation = {file, role: 'primary', class: 'missing', reasons: [], bytes: 0, mtimeMs: null, sha256: null, turns: null}
  return {kind: 'chat', report: {format: 'cline', id, status: 'unrecoverable', winner: null, transcriptTurns: M, contextTurns: null, findings, generations: [primary], ranking: []}}
}

/** Diagnoses one Cline chat from its snapshot and the facts `listStore` gathered. */
export function diagnoseCline(snapshot: ChatDirSnapshot): Diagnosis {
  const facts = snapshot.unit.facts as ClineFacts | undefined
  if (!facts) return {kind: 'skipped', reason: 'not listed by the Cline store listing'}
  if (facts.kind === 'index-only') return diagnoseIndexOnly(facts)
  return diagnoseSession(snapshot, facts)
}
