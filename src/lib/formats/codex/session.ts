/**
 * Codex CLI rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<threadId>.jsonl[.zst]`,
 * `archived_sessions/`): record kinds, the loader's acceptance rules, what a session holds. Source:
 * peer-formats.md §3 (openai/codex `codex-rs/core/src/rollout/recorder.rs`, `rollout/src/ordinal.rs`,
 * `rollout/src/compression.rs`, `rollout/src/load_error.rs`), checked against the real files in
 * shared/realdata/public/codex/ (one in the pre-`session_meta` format with CRLF line ends).
 */
import path from 'node:path'
import {linesOf, valuesOf, viewOfValues, type JsonlClassification, type ValueView} from '../../classify/jsonl.js'
import {CodexColumns, sharedPayload} from './columns.js'
import {finding} from './findings.js'
import type {ContextMeasure, Finding} from '../../model/report.js'
import type {SessionDialect} from '../jsonl/dialect.js'
import {keptName} from '../jsonl/keep.js'
import {CODEX_NAMES} from './roots.js'

export {isCodexName} from './roots.js'
import {topLevelValueSpan, type JsonlRepairRules, type RecordAmendment} from '../jsonl/repair.js'

/** Line `type`s of the `{timestamp, type, payload}` rollout format (peer-formats §3.2). */
export const ROLLOUT_TYPES = new Set(['session_meta', 'turn_context', 'response_item', 'compacted', 'event_msg', 'world_state'])
/** Item `type`s of the pre-`session_meta` format (bare items after a `{id, timestamp, …}` header). */
const LEGACY_ITEM_TYPES = new Set(['message', 'reasoning', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'local_shell_call', 'web_search_call'])
const CALL_TYPES = new Set(['function_call', 'custom_tool_call', 'local_shell_call'])
const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output'])

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** True when a parsed record looks like Codex's, either format (for detection by content). */
export function isCodexRecord(v: Record<string, unknown>): boolean {
  if (typeof v.type === 'string' && ROLLOUT_TYPES.has(v.type) && isObj(v.payload)) return true
  if (v.record_type === 'state') return true
  if (typeof v.type === 'string' && LEGACY_ITEM_TYPES.has(v.type) && !('sessionId' in v) && !('payload' in v)) return true
  return isLegacyHeader(v)
}

/**
 * The record rule of a rollout in the `{timestamp, type, payload}` format: every line Codex writes has those
 * three keys at top level (the `RolloutLine` it deserialises; a line without them is skipped by Codex's own
 * reader). A payload, a content block or a token count nested in a line has not all three.
 */
export function isRolloutRecordShape(v: Record<string, unknown>): boolean {
  return typeof v.timestamp === 'string' && typeof v.type === 'string' && 'payload' in v
}

/**
 * The record rule of a rollout in the pre-`session_meta` format: the `{id, timestamp, …}` header, a
 * `{record_type: "state"}` line, or a bare response item (`message`, `reasoning`, a call or its output). Content
 * blocks nested in an item (`input_text`, `output_text`, `summary_text`) are none of these.
 */
export function isLegacyRecordShape(v: Record<string, unknown>): boolean {
  if (v.record_type === 'state') return true
  if (typeof v.type === 'string') return LEGACY_ITEM_TYPES.has(v.type) && !('payload' in v) && !('sessionId' in v)
  return isLegacyHeader(v)
}

/** True when a rollout's records are in the pre-`session_meta` format (the legacy header first, or state lines). */
export function isLegacyRollout(records: ReadonlyArray<Record<string, unknown>>): boolean {
  return legacyOf(viewOf(records))
}

function legacyOf(records: ValueView): boolean {
  if (records.count === 0) return false
  if (isLegacyHeader(records.at(0))) return true
  // A row of Codex's columns is never a state record (`factsOfRow`): only the other records are read.
  const cols = records.columns instanceof CodexColumns ? records.columns : null
  for (let k = 0; k < records.count; k++) {
    if (cols !== null && records.row!(k) >= 0) continue
    if (records.at(k).record_type === 'state') return true
  }
  return false
}

/** What the counts, the acceptance rules and the layout test read of one record (`factsAt`). */
export interface RecordFacts {
  /** Its `type`. */
  type: unknown
  /** An `event_msg` with an object payload, and that payload's `type`. */
  event: boolean
  eventType: unknown
  /** `timeOf` and `ordinalOf` of it. */
  time: number | null
  ordinal: number | null
  /** Its `record_type` is `state`. */
  state: boolean
  /** It holds an item (`itemOf`), and the item's `type`, `role`, `call_id`, and whether it is a prompt (`isPrompt`). */
  item: boolean
  itemType: unknown
  itemRole: unknown
  callId: unknown
  prompt: boolean
}

export function newFacts(): RecordFacts {
  return {type: undefined, event: false, eventType: undefined, time: null, ordinal: null, state: false, item: false, itemType: undefined, itemRole: undefined, callId: undefined, prompt: false}
}

/** The facts of a record's (kept or whole) value. */
export function factsOfValue(v: Record<string, unknown>, f: RecordFacts): RecordFacts {
  f.type = v.type
  f.event = v.type === 'event_msg' && isObj(v.payload)
  f.eventType = f.event ? (v.payload as {type?: unknown}).type : undefined
  f.time = timeOf(v)
  f.ordinal = ordinalOf(v)
  f.state = v.record_type === 'state'
  const it = itemOf(v)
  f.item = it !== null
  f.itemType = it?.type
  f.itemRole = it?.role
  f.callId = it?.call_id
  f.prompt = isPrompt(it)
  return f
}

/**
 * The facts of a row of `CodexColumns`, read from its columns (equal to `factsOfValue` of the value it gives
 * back): a row is a `{timestamp, ordinal?, type, payload}` line whose payload holds no text (its `content`, if
 * any, null), so its item's text is empty and never injected context.
 */
export function factsOfRow(cols: CodexColumns, line: number, f: RecordFacts): RecordFacts {
  const type = cols.type(line)
  f.type = type
  f.event = type === 'event_msg'
  f.eventType = f.event ? cols.itemType(line) : undefined
  f.time = cols.time(line)
  const o = cols.ordinal(line)
  f.ordinal = o !== undefined && Number.isInteger(o) && o >= 0 ? o : null
  f.state = false
  if (type === 'response_item') {
    f.item = true
    f.itemType = cols.itemType(line)
    f.itemRole = cols.role(line)
    f.callId = cols.callId(line)
    f.prompt = f.itemType === 'message' && f.itemRole === 'user'
  } else if (LEGACY_ITEM_TYPES.has(type)) {
    f.item = true
    f.itemType = type
    f.itemRole = undefined
    f.callId = undefined
    f.prompt = false
  } else {
    f.item = false
    f.itemType = f.itemRole = f.callId = undefined
    f.prompt = false
  }
  return f
}

/** The facts of record `k` of a view: from its row when Codex's columns hold it, else from its value. */
function factsAt(records: ValueView, k: number, f: RecordFacts): RecordFacts {
  const cols = records.columns
  if (cols instanceof CodexColumns) {
    const r = records.row!(k)
    if (r >= 0) return factsOfRow(cols, r, f)
  }
  return factsOfValue(records.at(k), f)
}

/** A list as a `ValueView` (the classification's own view, with its columns, for a list made of one). */
function viewOf(records: ReadonlyArray<Record<string, unknown>>): ValueView {
  return viewOfValues(records)
}

/** The pre-`session_meta` header: `{id, timestamp, instructions?, git?}` with no `type`. */
export function isLegacyHeader(v: Record<string, unknown>): boolean {
  return v.type === undefined && typeof v.id === 'string' && typeof v.timestamp === 'string'
}

/** The item a line holds: the payload of a rollout `response_item`, or a legacy bare item. */
function itemOf(v: Record<string, unknown>): Record<string, unknown> | null {
  if (v.type === 'response_item' && isObj(v.payload)) return v.payload
  if (typeof v.type === 'string' && LEGACY_ITEM_TYPES.has(v.type)) return v
  return null
}

function firstText(item: Record<string, unknown>): string {
  const c = item.content
  if (typeof c === 'string') return c
  if (Array.isArray(c)) for (const b of c) if (isObj(b) && typeof b.text === 'string') return b.text
  return ''
}

/** Context Codex injects as user messages (`<environment_context>`, `<user_instructions>`, AGENTS.md). */
function isInjected(text: string): boolean {
  const t = text.trimStart()
  return t.startsWith('<') || t.startsWith('# AGENTS.md instructions')
}

function timeOf(v: Record<string, unknown>): number | null {
  if (typeof v.timestamp !== 'string') return null
  const t = Date.parse(v.timestamp)
  return Number.isNaN(t) ? null : t
}

/** A user input item the model sees: a user `message` item whose text is not injected context. */
function isPrompt(item: Record<string, unknown> | null): boolean {
  return item !== null && item.type === 'message' && item.role === 'user' && !isInjected(firstText(item))
}

/**
 * Counts over the records (the file as written, or what the loader reads), in one walk holding no list of them.
 * User turns are the user input items the model sees (`response_item` messages of role user, or the old
 * layout's bare items), not the UI's `user_message` events: a prompt whose item is damaged is lost to the model
 * even when its event survives.
 */
function count(records: ValueView) {
  let events = 0
  let agentMessages = 0
  let assistantItems = 0
  let newestPromptAt: number | null = null
  let userTurns = 0
  const calls = new Map<string, number>()
  const outputs = new Set<string>()
  let lastUserOrOutput = -1
  let lastActivityAt: number | null = null
  let compactions = 0
  const f = newFacts()
  for (let i = 0; i < records.count; i++) {
    factsAt(records, i, f)
    if (f.event) {
      events++
      if (f.eventType === 'agent_message') agentMessages++
    }
    const t = f.time
    if (t !== null && (lastActivityAt === null || t > lastActivityAt)) lastActivityAt = t
    if (f.type === 'compacted') compactions++
    if (!f.item) continue
    if (f.prompt) {
      userTurns++
      if (t !== null && (newestPromptAt === null || t > newestPromptAt)) newestPromptAt = t
    }
    if (f.itemType === 'message' && f.itemRole === 'assistant') assistantItems++
    if (CALL_TYPES.has(f.itemType as string)) calls.set(typeof f.callId === 'string' ? f.callId : `#${i}`, i)
    if (OUTPUT_TYPES.has(f.itemType as string)) {
      if (typeof f.callId === 'string') outputs.add(f.callId)
      lastUserOrOutput = i
    }
    if (f.itemType === 'message' && f.itemRole === 'user') lastUserOrOutput = i
  }
  const assistantMessages = events > 0 ? agentMessages : assistantItems
  let open = 0
  let openAtEnd = true
  for (const [id, i] of calls) {
    if (outputs.has(id)) continue
    open++
    if (i < lastUserOrOutput) openAtEnd = false
  }
  return {userTurns, assistantMessages, newestPromptAt, calls: calls.size, open, openAtEnd, lastActivityAt, compactions}
}

/** True when the rollout's header says it is paginated (every line carries an `ordinal`). */
function isPaginated(records: ValueView): boolean {
  const first = records.count > 0 ? records.at(0) : undefined
  return first !== undefined && first.type === 'session_meta' && isObj(first.payload) && first.payload.history_mode === 'paginated'
}

const ordinalOf = (v: Record<string, unknown>): number | null => (typeof v.ordinal === 'number' && Number.isInteger(v.ordinal) && v.ordinal >= 0 ? v.ordinal : null)

/**
 * The acceptance rules of Codex's loader on a list of records (empty: accepted): `session_meta` first (or the old
 * layout's header); in a paginated rollout, the last record carries an `ordinal` (the writer resumes from it,
 * `rollout/src/ordinal.rs`), and every record carries one, each one more than the record before it (the thread
 * history projection refuses a record without one and a gap no skipped line covers; a repaired log skips none).
 * `skippedBefore[i]`: the lines Codex skips (damaged ones) between record `i - 1` and record `i` of the log as it is.
 */
export function codexAcceptance(records: Array<Record<string, unknown>>, skippedBefore?: readonly number[]): string[] {
  return acceptanceOf(viewOf(records), skippedBefore)
}

/** `codexAcceptance` over a `ValueView` (each record read once, in order). */
function acceptanceOf(records: ValueView, skippedBefore?: readonly number[]): string[] {
  const problems: string[] = []
  if (records.count === 0) return ['no record']
  const first = records.at(0)
  if (isLegacyHeader(first)) return problems
  if (first.type !== 'session_meta' || !isObj(first.payload)) problems.push('the first record is not the session_meta header')
  else if (isPaginated(records)) {
    const last = records.at(records.count - 1)
    if (ordinalOf(last) === null) problems.push('the last record of a paginated rollout has no ordinal')
    let prev: number | null = null
    const f = newFacts()
    for (let i = 0; i < records.count; i++) {
      const o = factsAt(records, i, f).ordinal
      if (o === null) {
        if (i < records.count - 1) {
          problems.push(`record ${i + 1} of a paginated rollout has no ordinal`)
          break
        }
        continue
      }
      if (prev !== null && (o <= prev || o > prev + 1 + (skippedBefore?.[i] ?? 0))) {
        problems.push(`record ${i + 1} of a paginated rollout has ordinal ${o} after ${prev} (Codex refuses a repeat, and a gap no skipped line covers)`)
        break
      }
      prev = o
    }
  }
  return problems
}

/**
 * The `ordinal`s a paginated rollout's last records lack, given as Codex's writer would have: one more than the
 * record before each (`rollout/src/ordinal.rs` resumes from the last record's). Inserted after the record's
 * `timestamp` member, where Codex writes it; nothing else of the record changes. Only a run of records at the
 * end without one is amended (one inside the log cannot be numbered without renumbering others).
 */
export function amendOrdinals(records: ValueView, bytesOf: (i: number) => Uint8Array): RecordAmendment[] {
  if (!isPaginated(records)) return []
  let k = records.count
  while (k > 0 && ordinalOf(records.at(k - 1)) === null) k--
  if (k === records.count || k === 0) return []
  const base = ordinalOf(records.at(k - 1))!
  const out: RecordAmendment[] = []
  for (let i = k; i < records.count; i++) {
    const ordinal = base + (i - k) + 1
    const bytes = Buffer.from(bytesOf(i))
    const ts = topLevelValueSpan(bytes, 'timestamp')
    const insert = ts ? {at: ts.end, text: `,"ordinal":${ordinal}`} : {at: bytes.indexOf(0x7b) + 1, text: `"ordinal":${ordinal},`}
    if (insert.at <= 0) return []
    out.push({index: i, bytes: Buffer.concat([bytes.subarray(0, insert.at), Buffer.from(insert.text), bytes.subarray(insert.at)]), value: {...records.at(i), ordinal}, kind: 'set-ordinal', note: {ordinal}})
  }
  return out
}

/** The thread id and local start time a rollout's file name still tells (`rollout-<YYYY-MM-DDThh-mm-ss>-<id>.jsonl`). */
export function rolloutNameFacts(fileName: string): {threadId: string; startedAt: string} | null {
  const m = /^rollout-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl/i.exec(path.basename(fileName))
  return m ? {threadId: m[5], startedAt: `${m[1]} ${m[2]}:${m[3]}:${m[4]}`} : null
}

/** What Codex does with a rollout whose first record is not its header, what the name still tells, what to do. */
function missingHeaderAccount(fileName: string, records: number, turns: number): string {
  const facts = rolloutNameFacts(fileName)
  const told = facts ? `The file name still tells its thread id ${facts.threadId} and its start time ${facts.startedAt} (local time of the machine that wrote it). ` : 'The file name does not tell the thread id (not a rollout-<time>-<id>.jsonl name). '
  return (
    `its first record is not the session_meta header, though its ${plural(records, 'record')} ${records === 1 ? 'is' : 'are'} intact (${plural(turns, 'user turn')}). ${told}` +
    `Codex leaves this rollout out of codex resume and its thread list, and resuming it${facts ? ` (codex resume ${facts.threadId})` : ''} fails: "does not start with session metadata". ` +
    'To use it again, put its session_meta line back from a copy of it (a backup of the Codex home, or the .jsonl.zst beside it); chatdoctor does not invent a header'
  )
}

function plural(n: number, w: string): string {
  return `${n} ${w}${n === 1 ? '' : 's'}`
}

/** For each clean record of a log, how many damaged lines (which Codex's reader skips) lie just before it. */
function skippedLinesBefore(cls: JsonlClassification): number[] {
  const out: number[] = []
  let pending = 0
  const lines = linesOf(cls)
  for (let i = 0; i < lines.count; i++) {
    const kind = lines.kind(i)
    if (kind === 'damaged') pending++
    else if (kind === 'record') {
      out.push(pending)
      pending = 0
    }
  }
  return out
}

/** What the analysis of one Codex rollout found. */
export interface CodexAnalysis {
  legacy: boolean
  measure: ContextMeasure
  transcriptTurns: number
  /** Thread id from the header, when present. */
  threadId: string | null
  findings: Finding[]
  rules: JsonlRepairRules
  refused: string | null
  /** What a person must do when the header is missing (see `SessionAnalysis.manual`); null otherwise. */
  manual: string | null
}

/**
 * Measures a rollout and applies the loader's rules. The loader reads clean lines only (unparseable lines are
 * skipped and counted), refuses the whole file on invalid UTF-8 anywhere (the stream is decoded first,
 * openai/codex#36802), on a BOM or anything but `session_meta` first (#28139, #38341), and on a paginated
 * rollout whose last record has no `ordinal` (#45150).
 */
export function analyzeCodex(fileName: string, cls: JsonlClassification): CodexAnalysis {
  const all = valuesOf(cls)
  const clean = valuesOf(cls, true)
  const legacy = legacyOf(all)
  const findings: Finding[] = []
  const written = count(all)
  let refused: string | null = null
  if (cls.reasons.includes('invalid-utf8') || cls.reasons.includes('torn-utf8')) refused = 'the file holds invalid UTF-8, so the whole rollout fails to decode'
  else if (cls.lines.length > 0 && cls.lines[0].reasons.includes('bom')) refused = 'a BOM stands before the session_meta header'
  else {
    const problems = acceptanceOf(clean, skippedLinesBefore(cls))
    if (problems.length > 0) refused = problems.join('; ')
  }
  const header = all.count > 0 ? all.at(0) : undefined
  const hasHeader = header !== undefined && (isLegacyHeader(header) || (header.type === 'session_meta' && isObj(header.payload)))
  let manual: string | null = null
  if (all.count > 0 && !hasHeader) {
    manual = missingHeaderAccount(fileName, all.count, written.userTurns)
    findings.push(finding('missing-header', null, manual))
  }
  if (refused !== null && hasHeader) findings.push(finding('loader-refuses', null, `Codex refuses this rollout as it is: ${refused}`))
  const reach = refused === null ? count(clean) : null
  if (written.open > 0) {
    if (written.openAtEnd) findings.push(finding('open-tool-call', null, `${written.open} tool call${written.open === 1 ? '' : 's'} at the end without output (the session stopped during a tool call); normal`, 'info'))
    else findings.push(finding('open-tool-call', null, `${written.open} tool call${written.open === 1 ? '' : 's'} inside the session without output`, 'warning'))
  }
  const threadId = header && header.type === 'session_meta' && isObj(header.payload) && typeof header.payload.id === 'string' ? header.payload.id : header && isLegacyHeader(header) ? (header.id as string) : null
  const turns = reach ? reach.userTurns : 0
  const measure: ContextMeasure = {
    turns,
    prompts: turns,
    newestPromptAt: reach ? reach.newestPromptAt : null,
    historyLength: refused === null ? clean.count : 0,
    unmatchedPrompts: 0,
    unmatchedBeforeFirst: 0,
    firstMatchedTurn: turns > 0 ? 1 : null,
    traceSessionId: null,
    interrupted: written.open > 0 && written.openAtEnd,
    userTurns: written.userTurns,
    assistantMessages: written.assistantMessages,
    toolCalls: written.calls,
    toolCallsWithResult: written.calls - written.open,
    toolCallsOpen: written.open,
    compactions: written.compactions,
    lastActivityAt: written.lastActivityAt,
    records: all.count,
    reachableRecords: refused === null ? clean.count : 0,
  }
  return {legacy, measure, transcriptTurns: written.userTurns, threadId, findings, rules: {accept: codexAcceptance, amend: amendOrdinals, isRecord: legacy ? isLegacyRecordShape : isRolloutRecordShape}, refused, manual}
}

/** The start of a user input item (a rollout's `response_item` payload or the old layout's bare item) and its text. */
const PROMPT_START = /"type":"message",(?:"id":"[^"\\]*",)?"role":"user","content":\[\{"type":"input_text","text":"((?:[^"\\]|\\.)*)/

/** Whether a damaged line's fragment still shows the start of a user input item that is not injected context. */
export function promptInFragment(text: string): boolean {
  const m = PROMPT_START.exec(text)
  return m !== null && !isInjected(m[1].replace(/^(?:\\[nrt]|\s)+/, ''))
}

/**
 * The last turn of a rollout: its prompt (the last user input item the model sees), and why its final answer is
 * not on disk: a tool call without output, a tool output the model never answered, a prompt with no assistant
 * message after it. The answer is the model's last assistant message item after the prompt; a lifecycle event
 * after it (`task_complete`) is not part of the answer.
 */
export function lastTurnCodex(records: ReadonlyArray<Record<string, unknown>>): {prompt: string; unanswered: string | null} | null {
  let at = -1
  for (let i = records.length - 1; i >= 0 && at < 0; i--) if (isPrompt(itemOf(records[i]))) at = i
  if (at < 0) return null
  const prompt = firstText(itemOf(records[at])!)
  const c = count(viewOf(records))
  if (c.open > 0) return {prompt, unanswered: `${c.open} tool call${c.open === 1 ? ' has' : 's have'} no output`}
  let last: Record<string, unknown> | undefined
  for (let i = records.length - 1; i > at && last === undefined; i--) {
    const it = itemOf(records[i])
    if (it !== null && it.type !== 'reasoning') last = it
  }
  if (last && last.type === 'message' && last.role === 'assistant') return {prompt, unanswered: null}
  if (last && OUTPUT_TYPES.has(last.type as string)) return {prompt, unanswered: 'the model has not answered after its last tool output'}
  return {prompt, unanswered: 'the prompt has no answer on disk'}
}

/** Turn lifecycle events of the rollout format (`event_msg` payload types). */
const TURN_EVENTS = new Set(['task_started', 'task_complete', 'turn_aborted'])

/**
 * Whether a rollout's last turn is settled (for a snapshot): a prompt, every tool call with its output, and
 * the last turn-lifecycle event `task_complete` (Codex calls its `notify` program on `agent-turn-complete`,
 * fire-and-forget, possibly before its rollout writer has flushed that turn); a rollout without lifecycle
 * events (the pre-`session_meta` format) must end in an assistant message.
 */
export function settleCodex(records: ReadonlyArray<Record<string, unknown>>): {messages: number; unsettled: string | null} {
  const items = records.map(itemOf)
  const messages = items.filter((it) => it && it.type === 'message').length
  const c = count(viewOf(records))
  if (c.userTurns === 0) return {messages, unsettled: 'no prompt in the session yet'}
  if (c.open > 0) return {messages, unsettled: `${c.open} tool call${c.open === 1 ? ' is' : 's are'} pending (no output yet)`}
  const lifecycle = records.filter((v) => v.type === 'event_msg' && isObj(v.payload) && TURN_EVENTS.has((v.payload as {type: string}).type))
  if (lifecycle.length > 0) {
    const t = (lifecycle[lifecycle.length - 1].payload as {type: string}).type
    if (t === 'task_started') return {messages, unsettled: 'the last turn is still running (no task_complete yet)'}
    if (t === 'turn_aborted') return {messages, unsettled: 'the last turn was interrupted before its answer'}
    return {messages, unsettled: null}
  }
  const last = [...items].reverse().find((it) => it !== null)
  if (!last || last.type !== 'message' || last.role !== 'assistant') return {messages, unsettled: 'the last prompt has no answer on disk yet'}
  return {messages, unsettled: null}
}

/** Keys of a rollout's payloads that hold the per-turn system prompt. */
const INSTRUCTION_KEYS = ['instructions', 'base_instructions', 'user_instructions', 'developer_instructions']

function redactItem(it: Record<string, unknown>): Record<string, unknown> {
  const out = {...it}
  if (out.type === 'function_call') out.arguments = '{}'
  if (out.type === 'custom_tool_call') out.input = ''
  if (out.type === 'local_shell_call') out.action = {}
  if (out.type === 'function_call_output' || out.type === 'custom_tool_call_output') out.output = ''
  return out
}

/**
 * One rollout record without its private tool payloads and per-turn system prompts: tool call arguments and
 * outputs emptied, the instructions of `session_meta` and `turn_context` dropped, command output events
 * emptied; record kinds, order, call ids and turn ids kept.
 */
export function redactCodexRecord(v: Record<string, unknown>): Record<string, unknown> {
  if (v.type === 'response_item' && isObj(v.payload)) return {...v, payload: redactItem(v.payload)}
  if ((v.type === 'session_meta' || v.type === 'turn_context') && isObj(v.payload)) {
    const p = {...v.payload}
    for (const k of INSTRUCTION_KEYS) delete p[k]
    return {...v, payload: p}
  }
  if (v.type === 'event_msg' && isObj(v.payload)) {
    const p = {...v.payload}
    for (const k of ['stdout', 'stderr', 'aggregated_output', 'formatted_output', 'result', 'changes', 'command', 'arguments']) if (k in p) p[k] = typeof p[k] === 'string' ? '' : Array.isArray(p[k]) ? [] : {}
    return {...v, payload: p}
  }
  if (typeof v.type === 'string' && LEGACY_ITEM_TYPES.has(v.type)) return redactItem(v)
  if (isLegacyHeader(v)) {
    const out = {...v}
    delete out.instructions
    return out
  }
  return v
}

/** How much of a user item's text a kept record holds (after its leading whitespace): more than `isInjected` reads. */
const TEXT_KEPT = 64

function keptText(t: unknown): unknown {
  if (typeof t !== 'string') return t
  const s = t.trimStart()
  // A copy, not a slice: a slice of the text would keep the whole text alive.
  return s.length <= TEXT_KEPT && s.length === t.length ? s : Buffer.from(s.slice(0, TEXT_KEPT), 'utf16le').toString('utf16le')
}

/** An item's own members its rules read whole. */
const ITEM_KEYS = ['type', 'role', 'call_id', 'history_mode']

/** An item's members its rules read (`itemOf`, `count`, `isPrompt`): kind, role, call id, and the start of its text. */
function keepItem(it: Record<string, unknown>, out: Record<string, unknown>, header: boolean): void {
  for (const k of ITEM_KEYS) if (k in it) out[k] = k === 'call_id' ? it[k] : keptName(it[k])
  // The id of a header (the thread id), never of an item.
  if ('id' in it && (header || it.type === undefined)) out.id = it.id
  if (!('content' in it)) return
  const c = it.content
  // Text is read only in user messages (is it a prompt or injected context?).
  if (it.role !== 'user') out.content = null
  else if (typeof c === 'string') out.content = keptText(c)
  else if (Array.isArray(c)) out.content = c.map((b) => (isObj(b) ? {type: b.type, ...('text' in b ? {text: keptText(b.text)} : {})} : null))
  else out.content = null
}

/** A rollout line's own keys its rules read. */
const KEPT_KEYS = ['timestamp', 'record_type', 'ordinal', 'sessionId']

/** The time of the record kept last (`keepCodexRecord`). */
let lastTimestamp = ''

/**
 * What of a rollout line Codex's rules read: its kind, time, ordinal and ids, and of its payload (or a legacy
 * bare item) the item's kind, role, call id, the header's history mode and the start of the text; never the
 * text, tool arguments or outputs.
 */
export function keepCodexRecord(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k of KEPT_KEYS) if (k in v) out[k] = k === 'record_type' ? keptName(v[k]) : v[k]
  if (typeof out.timestamp === 'string') {
    // Records written together share their time: kept as one string (an equal value either way).
    if (out.timestamp === lastTimestamp) out.timestamp = lastTimestamp
    else lastTimestamp = out.timestamp
  }
  keepItem(v, out, false)
  if ('payload' in v) {
    if (isObj(v.payload)) {
      const p: Record<string, unknown> = {}
      keepItem(v.payload, p, v.type === 'session_meta')
      out.payload = sharedPayload(p)
    } else out.payload = null
  }
  return out
}

/** An item's members that name it (`keepItem` keeps them whole): kind, role, call id and a header's id. */
function itemKey(it: Record<string, unknown>, header: boolean): unknown[] {
  return [it.type ?? null, it.role ?? null, it.call_id ?? null, 'id' in it && (header || it.type === undefined) ? it.id : null]
}

/**
 * A rollout line's key among the session's (rollout records carry no id of their own): its time, kind, ordinal
 * and its item's kind, role, call id and header id, all kept whole by `keepCodexRecord`.
 */
export function codexRecordKey(v: Record<string, unknown>): string {
  const p = isObj(v.payload) ? itemKey(v.payload, v.type === 'session_meta') : null
  return JSON.stringify([v.timestamp ?? null, v.record_type ?? null, v.ordinal ?? null, ...itemKey(v, false), p])
}

/** Codex in the JSON-lines family: rollouts by name or place, and any log with a compressed `.zst` sibling. */
export const codexDialect: SessionDialect = {
  name: 'codex',
  isRecord: isCodexRecord,
  recordRule: (clean) => (clean === undefined ? (v) => isRolloutRecordShape(v) || isLegacyRecordShape(v) : isLegacyRollout(clean) ? isLegacyRecordShape : isRolloutRecordShape),
  keep: keepCodexRecord,
  columns: () => new CodexColumns(),
  recordKey: codexRecordKey,
  settle: settleCodex,
  lastTurn: lastTurnCodex,
  redactRecord: redactCodexRecord,
  analyze(fileName, cls) {
    const a = analyzeCodex(fileName, cls)
    return {...a, id: a.threadId}
  },
  claimsName: CODEX_NAMES.claimsName,
  promptInFragment,
}
