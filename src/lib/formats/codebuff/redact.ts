/**
 * Codebuff's rules for `bundle --redact` (on the byte-level lexer of `json/redact.ts`): message text, tool
 * inputs and outputs, file contents and absolute paths in a chat's JSON files become placeholders, so that the
 * redacted chat diagnoses the same: prompt matching compares `unwrapPrompt(text)` of `USER_PROMPT` history
 * messages with the transcript's trimmed `content` (turns.ts), and both sides are mapped to the same
 * placeholder.
 *
 * Which strings are kept: values of structural keys (`role`, `type`, `tags`, ids, …) that look like ids, keys
 * outside maps keyed by path or symbol (e.g. `fileContext.knowledgeFiles`), and the SDK's fixed stand-in
 * messages (codebuff-format.md §4). `chat-meta.json` is recomputed for the redacted transcript.
 */
import type {BundleFile, Redactor} from '../../model/adapter.js'
import type {Role} from '../../model/report.js'
import {redactJsonBytes, type RedactProfile} from '../../json/redact.js'
import {COMPACT_SUMMARY_START, CONVERSATION_SUMMARY, nearEmptySummary, summaryBody} from './amnesia.js'
import {stateDocuments} from './documents.js'
import {INTERRUPTION_MESSAGE, PLACEHOLDER_MESSAGE} from './schema.js'

/** Keys whose string values are structure, not content (kept when they look like ids). */
const STRUCTURAL_KEYS = new Set([
  'role', 'type', 'variant', 'tags', 'id', 'messageId', 'toolCallId', 'toolName', 'agentId', 'agentType', 'agentName',
  'runId', 'parentId', 'traceSessionId', 'status', 'mode', 'mediaType', 'textType', 'timestamp', 'completionTime',
  'timeToLive', 'thinkingId', 'spawnToolCallId', 'ancestorRunIds', 'childRunIds', 'keepLastTags', 'thinkingCollapseState',
])
/** Maps keyed by file path or code symbol (ProjectFileContext, codebuff-format.md §2.3): keys below are redacted. */
const PATH_MAPS = new Set(['fileTokenScores', 'tokenCallers', 'knowledgeFiles', 'userKnowledgeFiles', 'changesSinceLastChat', 'shellConfigFiles'])
/** Fixed texts written by the SDK or the CLI, never by the user (codebuff-format.md §4). */
const CONSTANTS = new Set([PLACEHOLDER_MESSAGE, INTERRUPTION_MESSAGE, 'Run cancelled by user.', 'See attached image(s)', '(empty chat)'])

function isKeptConstant(s: string): boolean {
  if (CONSTANTS.has(s)) return true
  // The SDK's interruption note at the end of a history (turns.ts `endsInterrupted`).
  return s.length <= 400 && /^\s*<system>[\s\S]*<\/system>\s*$/.test(s) && s.includes('ended before this response completed') && !s.includes('<user_message>')
}

/** The file being redacted: the transcript's top-level `content` values are redacted as transcript turns. */
export type RedactRole = 'transcript' | 'state' | 'other'

function profileFor(role: RedactRole): RedactProfile {
  return {
    structuralKeys: STRUCTURAL_KEYS,
    pathMapKeys: PATH_MAPS,
    value(value, key, r, depth) {
      if (isKeptConstant(value)) return value
      if (key === 'content' && role === 'transcript' && depth === 2) return redactTrimmed(value, r)
      if (key === 'text' || key === 'content') return redactPromptText(value, r)
      return r.placeholder(value)
    },
  }
}

const PROFILES: Record<RedactRole, RedactProfile> = {transcript: profileFor('transcript'), state: profileFor('state'), other: profileFor('other')}

/** Redacts one Codebuff JSON file's bytes; `role` picks how the transcript's top-level `content` values go. */
export function redactCodebuffBytes(buf: Buffer, role: RedactRole, r: Redactor): Buffer {
  return redactJsonBytes(buf, r, PROFILES[role])
}

const ATTACHED_IMAGES = 'See attached image(s)'
const USER_OPEN = '<user_message>'
const USER_CLOSE = '</user_message>'
const TERMINAL_BLOCK = /^\s*<user_terminal_commands>[\s\S]*?<\/user_terminal_commands>\s*/
const PASTED_TAIL = /\n+\[(?:Pasted Text|File: [^\]\n]*|Directory: [^\]\n]*)\][\s\S]*$/

function norm(s: string): string {
  return s.replace(/\r\n/g, '\n').trim()
}

/** Leading and trailing whitespace kept, the trimmed rest (CRLF as LF) replaced: `norm(out) = R(norm(s))`. */
function redactTrimmed(s: string, r: Redactor): string {
  const lead = /^\s*/.exec(s)![0]
  if (lead.length === s.length) return s
  const trail = /\s*$/.exec(s)![0]
  return lead + r.placeholder(norm(s)) + trail
}

/**
 * Redacts a message text so that `unwrapPrompt(out) === R(unwrapPrompt(s))` (R = placeholder, R('') = ''),
 * and `out` starts with `<user_message>` exactly when `s` does (after leading whitespace): the prompt key of
 * turns.ts is preserved. The terminal-commands block and the pasted/file tail are kept as redacted sections.
 */
export function redactPromptText(s: string, r: Redactor): string {
  if (isKeptConstant(s)) return s
  const summary = summaryBody(s)
  if (summary !== null) return redactSummary(s, summary, r)
  const open = s.indexOf(USER_OPEN)
  const close = s.lastIndexOf(USER_CLOSE)
  if (open >= 0 && close > open) {
    const pre = s.slice(0, open)
    const post = s.slice(close + USER_CLOSE.length)
    const inner = s.slice(open + USER_OPEN.length, close)
    const pre2 = pre.trim() === '' ? pre : r.placeholder(pre)
    const post2 = post.trim() === '' ? post : r.placeholder(post)
    return pre2 + USER_OPEN + redactPromptBody(inner, r) + USER_CLOSE + post2
  }
  if (s.trimStart().startsWith(USER_OPEN)) return USER_OPEN + redactPromptBody(s, r) + USER_CLOSE
  return redactPromptBody(s, r)
}

/**
 * A compaction summary (amnesia.ts), its markers kept so it stays a summary: an empty or near-empty body
 * becomes empty (it carries no content, and stays a wipe), any other body a placeholder that is no near-empty
 * summary either.
 */
function redactSummary(s: string, body: string, r: Redactor): string {
  const red = nearEmptySummary(body) ? '' : `${r.placeholder(body)} (redacted summary)`
  if (s.trim().startsWith(COMPACT_SUMMARY_START)) return `${COMPACT_SUMMARY_START}:\n${red}</system>`
  const open = s.indexOf(CONVERSATION_SUMMARY)
  const pre = s.slice(0, open)
  return `${pre.trim() === '' ? pre : r.placeholder(pre)}${CONVERSATION_SUMMARY}${red}</conversation_summary>`
}

/**
 * Redacts a state file; one that holds several writes (complete documents after a torn or complete first one,
 * `stateDocuments`) is redacted document by document, so each stays a document the diagnosis reads.
 */
function redactStateFile(buf: Buffer, r: Redactor): Buffer {
  const docs = stateDocuments(buf)
  if (docs.length === 0) return redactCodebuffBytes(buf, 'state', r)
  const parts: Buffer[] = []
  let at = 0
  for (const d of docs) {
    if (d.start > at) parts.push(redactCodebuffBytes(buf.subarray(at, d.start), 'state', r))
    parts.push(redactCodebuffBytes(buf.subarray(d.start, d.end), 'state', r))
    at = d.end
  }
  if (at < buf.length) parts.push(redactCodebuffBytes(buf.subarray(at), 'state', r))
  return Buffer.concat(parts)
}

/** The body between the wrapper tags, decomposed as `unwrapPrompt` does: terminal block, core, pasted tail. */
function redactPromptBody(t: string, r: Redactor): string {
  let rest = t
  let head = ''
  const term = TERMINAL_BLOCK.exec(rest)
  if (term) {
    head = `<user_terminal_commands>${r.placeholder(term[0])}</user_terminal_commands>\n`
    rest = rest.slice(term[0].length)
  }
  let tail = ''
  const pasted = PASTED_TAIL.exec(rest)
  if (pasted) {
    tail = `\n[Pasted Text]${r.placeholder(pasted[0])}`
    rest = rest.slice(0, pasted.index)
  }
  const core = norm(rest)
  const core2 = core === ATTACHED_IMAGES ? ATTACHED_IMAGES : r.placeholder(core)
  return head + core2 + tail
}

/**
 * `chat-meta.json` recomputed for the redacted transcript (codebuff-format.md §2.8): `firstPrompt` is the first
 * `user` message's trimmed `content` of the redacted transcript (cut to 97 characters + `...` over 100, as the
 * CLI does; `(empty chat)` when none), `messagesSize` the redacted transcript's size when the original sidecar
 * matched the original transcript (a stale sidecar stays stale), `messageCount` and `messagesMtimeMs` kept
 * (redaction keeps the message count; the bundle keeps mtimes). A sidecar that does not parse is redacted
 * like any JSON file, so its damage stays.
 */
export function redactChatMeta(meta: Buffer, transcript: {original: Buffer; redacted: Buffer} | null, r: Redactor): Buffer {
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder('utf-8', {fatal: true}).decode(meta))
  } catch {
    return redactCodebuffBytes(meta, 'other', r)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || meta[0] === 0xef) return redactCodebuffBytes(meta, 'other', r)
  let messages: unknown = null
  if (transcript) {
    try {
      messages = JSON.parse(transcript.redacted.toString('utf8'))
    } catch {
      messages = null
    }
  }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (k === 'firstPrompt' && typeof v === 'string') {
      if (Array.isArray(messages)) {
        const first = messages.find((m) => typeof m === 'object' && m !== null && (m as {variant?: unknown}).variant === 'user') as {content?: unknown} | undefined
        const text = typeof first?.content === 'string' ? first.content.trim() : ''
        out[k] = first === undefined ? '(empty chat)' : text.length > 100 ? text.slice(0, 97) + '...' : text
      } else out[k] = isKeptConstant(v) ? v : r.placeholder(v)
    } else if (k === 'messagesSize' && typeof v === 'number' && transcript && v === transcript.original.length) out[k] = transcript.redacted.length
    else if (typeof v === 'string') out[k] = isKeptConstant(v) ? v : r.placeholder(v)
    else if (typeof v === 'object' && v !== null) out[k] = JSON.parse(redactCodebuffBytes(Buffer.from(JSON.stringify(v)), 'other', r).toString('utf8'))
    else out[k] = v
  }
  const pretty = meta.includes(0x0a)
  const text = pretty ? JSON.stringify(out, null, 2) + (meta[meta.length - 1] === 0x0a ? '\n' : '') : JSON.stringify(out)
  return Buffer.from(text, 'utf8')
}

/** Redacts a chat's files by role; files that cannot be redacted structurally are omitted. */
export function redactChatFiles(files: readonly BundleFile[], roles: ReadonlyMap<string, Role>, r: Redactor): {files: BundleFile[]; omitted: Array<{path: string; reason: string}>} {
  const out: BundleFile[] = []
  const omitted: Array<{path: string; reason: string}> = []
  const transcript = files.find((f) => roles.get(f.rel) === 'transcript')
  const redactedTranscript = transcript ? redactCodebuffBytes(transcript.data, 'transcript', r) : undefined
  for (const f of files) {
    const role = roles.get(f.rel) ?? 'other'
    let data: Buffer
    if (role === 'primary' || role === 'backup' || role === 'temp' || role === 'embedded') data = redactStateFile(f.data, r)
    else if (role === 'transcript') data = redactedTranscript!
    else if (role === 'transcript-temp') data = redactCodebuffBytes(f.data, 'transcript', r)
    else if (role === 'meta') data = redactChatMeta(f.data, transcript ? {original: transcript.data, redacted: redactedTranscript!} : null, r)
    else {
      omitted.push({path: f.rel, reason: 'content cannot be redacted structurally'})
      continue
    }
    out.push({...f, data})
  }
  return {files: out, omitted}
}
