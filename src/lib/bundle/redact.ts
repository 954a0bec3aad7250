/**
 * Redaction for `chatdoctor bundle --redact`: replaces message text, tool inputs and outputs, file contents and
 * absolute paths in a chat's JSON files with placeholders, working on the bytes of the JSON (string tokens are
 * replaced in place; nothing is parsed and re-serialized), so that:
 *
 * - structure, ids, roles, tags, numbers (counts, `sentAt`, timestamps) and whitespace are kept byte for byte;
 * - damage stays where it was: a torn file stays torn inside the same token, NUL runs, control bytes, invalid
 *   UTF-8 bytes and bad escapes are kept (a character cut by the tear is replaced by a same-length cut one);
 * - equal values get equal placeholders and different values different ones (a keyed hash, HMAC-SHA-256, with
 *   a random key per bundle that is never stored), so the redacted chat diagnoses the same: prompt matching
 *   compares `unwrapPrompt(text)` of `USER_PROMPT` history messages with the transcript's trimmed `content`
 *   (formats/codebuff/turns.ts), and both sides are mapped to the same placeholder.
 *
 * Which strings are kept: object keys that look like identifiers (outside maps keyed by path or symbol, e.g.
 * `fileContext.knowledgeFiles`), values of structural keys (`role`, `type`, `tags`, ids, …) that look like ids
 * (no `/`, `\`, newline; at most 100 characters), and the SDK's fixed stand-in messages (codebuff-format.md §4).
 * Everything else becomes `[redacted:<24 hex>]` (the empty string stays empty). After the first irregular byte
 * (damage, garbage, text after the document) every string is replaced, keys included: nothing there is read by
 * a diagnosis.
 */
import {createHmac, randomBytes} from 'node:crypto'
import {COMPACT_SUMMARY_START, CONVERSATION_SUMMARY, nearEmptySummary, summaryBody} from '../formats/codebuff/amnesia.js'
import {INTERRUPTION_MESSAGE, PLACEHOLDER_MESSAGE} from '../formats/codebuff/schema.js'
import {utf8SequenceAt} from '../classify/bytes.js'

/** A redaction context: the per-bundle key and a memo of placeholders. */
export interface Redactor {
  /** The placeholder of a value: `[redacted:<24 hex>]`, or `''` for `''`. */
  placeholder(value: string): string
}

/** A redactor with a fresh random 32-byte key (never stored anywhere). `key` is for tests only. */
export function makeRedactor(key: Buffer = randomBytes(32)): Redactor {
  const memo = new Map<string, string>()
  return {
    placeholder(value: string): string {
      if (value === '') return ''
      let p = memo.get(value)
      if (p === undefined) {
        p = `[redacted:${createHmac('sha256', key).update(Buffer.from(value, 'utf16le')).digest('hex').slice(0, 24)}]`
        memo.set(value, p)
      }
      return p
    },
  }
}

/** Keys whose string values are structure, not content (kept when they look like ids). */
const STRUCTURAL_KEYS = new Set([
  'role', 'type', 'variant', 'tags', 'id', 'messageId', 'toolCallId', 'toolName', 'agentId', 'agentType', 'agentName',
  'runId', 'parentId', 'traceSessionId', 'status', 'mode', 'mediaType', 'textType', 'timestamp', 'completionTime',
  'timeToLive', 'thinkingId', 'spawnToolCallId', 'ancestorRunIds', 'childRunIds', 'keepLastTags', 'thinkingCollapseState',
])
/** What a kept structural value may look like: no path separators, no newlines, short. */
const SAFE_VALUE = /^[\w .:@+#-]{0,100}$/
/** Object keys kept as they are. */
const SAFE_KEY = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/
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

/**
 * Another agent's rules for `redactJsonBytes` (bundle/redact-agents.ts): which keys hold structure (their values
 * are kept when they look like ids), and an optional rule for other string values (undefined: the default
 * placeholder). Without a profile, Codebuff's rules apply.
 */
export interface RedactProfile {
  structuralKeys: ReadonlySet<string>
  value?(value: string, key: string | null, r: Redactor): string | undefined
  /**
   * NUL bytes outside strings are padding (kept as they are, like whitespace) instead of the first irregular
   * byte: JSONL readers strip NUL runs from a line and read the record around them (classify/jsonl.ts).
   */
  nulIsPadding?: boolean
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
 * A compaction summary (formats/codebuff/amnesia.ts), its markers kept so it stays a summary: an empty or
 * near-empty body becomes empty (it carries no content, and stays a wipe), any other body a placeholder that
 * is no near-empty summary either.
 */
function redactSummary(s: string, body: string, r: Redactor): string {
  const red = nearEmptySummary(body) ? '' : `${r.placeholder(body)} (redacted summary)`
  if (s.trim().startsWith(COMPACT_SUMMARY_START)) return `${COMPACT_SUMMARY_START}:\n${red}</system>`
  const open = s.indexOf(CONVERSATION_SUMMARY)
  const pre = s.slice(0, open)
  return `${pre.trim() === '' ? pre : r.placeholder(pre)}${CONVERSATION_SUMMARY}${red}</conversation_summary>`
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

// ---- the byte-level lexer ------------------------------------------------------------------------------

interface Frame {
  kind: 'object' | 'array'
  /** The key this container is the value of (null at the root or in an array). */
  key: string | null
  /** In an object: the last key read. */
  lastKey: string | null
  expectKey: boolean
  /** Inside a map keyed by paths or symbols: keys are redacted. */
  pathMap: boolean
}

const Q = 0x22
const BS = 0x5c

function isHex(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
}

/**
 * A cut character with the same length and kind as the original cut one, carrying none of its bits. `next` is
 * the byte that followed the cut one (undefined at the end): a lead byte is chosen that it cannot continue
 * either, so the cut stays a cut (E0 takes only A0–BF second, ED only 80–9F; F0 only 90–BF, F4 only 80–8F).
 */
function canonicalCut(need: number, len: number, next?: number): Buffer {
  const full = need === 1 ? [0xc3, 0xa9] : need === 2 ? [0xe3, 0x81, 0x82] : [0xf0, 0x9f, 0x98, 0x80]
  if (len === 1 && next !== undefined && next >= 0x80 && next <= 0xbf) {
    if (need === 2) full[0] = next <= 0x9f ? 0xe0 : 0xed
    if (need === 3) full[0] = next <= 0x8f ? 0xf0 : 0xf4
  }
  return Buffer.from(full.slice(0, len))
}

/** One piece of a string token's body: clean JSON string content (raw bytes) or damage kept as it is. */
type Piece = {clean: true; raw: Buffer} | {clean: false; raw: Buffer}

/**
 * Splits a string body starting at `i` (just after the opening quote) into clean runs and damage, up to the
 * closing quote or `end`. Returns the pieces, the offset after the token and whether it was closed.
 */
function lexString(buf: Buffer, i: number, end: number): {pieces: Piece[]; next: number; closed: boolean} {
  const pieces: Piece[] = []
  let runStart = i
  const flush = (to: number) => {
    if (to > runStart) pieces.push({clean: true, raw: buf.subarray(runStart, to)})
  }
  const damage = (raw: Buffer, from: number, to: number) => {
    flush(from)
    pieces.push({clean: false, raw})
    runStart = to
  }
  while (i < end) {
    const b = buf[i]
    if (b === Q) {
      flush(i)
      return {pieces, next: i + 1, closed: true}
    }
    if (b === BS) {
      if (i + 1 >= end) {
        damage(buf.subarray(i, i + 1), i, i + 1)
        i++
        continue
      }
      const e = buf[i + 1]
      if (e === 0x75) {
        let k = 2
        while (k < 6 && i + k < end && isHex(buf[i + k])) k++
        if (k === 6) {
          i += 6
          continue
        }
        damage(buf.subarray(i, i + k), i, i + k)
        i += k
        continue
      }
      if (e === Q || e === BS || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i += 2
        continue
      }
      damage(buf.subarray(i, i + 1), i, i + 1)
      i++
      continue
    }
    if (b < 0x20) {
      damage(buf.subarray(i, i + 1), i, i + 1)
      i++
      continue
    }
    if (b >= 0x80) {
      const u = utf8SequenceAt(buf, i, end)
      if (u === null) {
        damage(buf.subarray(i, i + 1), i, i + 1)
        i++
      } else if (!u.complete) {
        damage(canonicalCut(u.need, u.len, i + u.len < end ? buf[i + u.len] : undefined), i, i + u.len)
        i += u.len
      } else i += u.len
      continue
    }
    i++
  }
  flush(end)
  return {pieces, next: end, closed: false}
}

/**
 * The redacted string, with a lone surrogate appended when the original held one (an unpaired UTF-16 half
 * is damage a diagnosis reports, and it carries no content).
 */
function keepLoneSurrogate(original: string, redacted: string): string {
  const wellFormed = (x: string) => (x as string & {isWellFormed(): boolean}).isWellFormed()
  return wellFormed(original) || !wellFormed(redacted) ? redacted : redacted + '\ud800'
}

function decodeClean(raw: Buffer): string {
  return JSON.parse('"' + raw.toString('utf8') + '"') as string
}

function encode(s: string): string {
  return JSON.stringify(s).slice(1, -1)
}

const LITERALS = ['true', 'false', 'null']

/** A bare word outside strings (garbage, or a torn literal): literals and their prefixes kept, the rest `x`. */
function redactWord(word: string): {out: string; irregular: boolean} {
  for (const lit of LITERALS) {
    if (word === lit) return {out: word, irregular: false}
    if (word.startsWith(lit)) return {out: lit + 'x'.repeat(word.length - lit.length), irregular: true}
    if (lit.startsWith(word)) return {out: word, irregular: true}
  }
  return {out: 'x'.repeat(word.length), irregular: true}
}

function isWordByte(b: number): boolean {
  return (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b === 0x5f || b === 0x24
}

/**
 * Redacts the bytes of one JSON file (any bytes: damaged, torn, garbage). `role` picks how the transcript's
 * top-level `content` values are redacted. Never throws.
 */
export function redactJsonBytes(buf: Buffer, role: RedactRole, r: Redactor, profile?: RedactProfile): Buffer {
  const out: Buffer[] = []
  let pending = ''
  const emit = (s: string) => {
    pending += s
    if (pending.length > 65536) {
      out.push(Buffer.from(pending, 'utf8'))
      pending = ''
    }
  }
  const emitRaw = (b: Buffer) => {
    if (pending) {
      out.push(Buffer.from(pending, 'utf8'))
      pending = ''
    }
    out.push(b)
  }
  const end = buf.length
  const stack: Frame[] = []
  let strict = false
  let rootDone = false
  let i = 0
  if (end >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
    emitRaw(buf.subarray(0, 3))
    i = 3
    strict = true
  }
  while (i < end) {
    const b = buf[i]
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) {
      emit(String.fromCharCode(b))
      i++
      continue
    }
    if (b === 0 && profile?.nulIsPadding) {
      emitRaw(buf.subarray(i, i + 1))
      i++
      continue
    }
    if (rootDone) strict = true
    const top = stack[stack.length - 1]
    if (b === 0x7b || b === 0x5b) {
      if (top && top.kind === 'object' && top.expectKey) strict = true
      const key = top ? (top.kind === 'object' ? top.lastKey : top.key) : null
      const pathMap = Boolean(top && (top.pathMap || (top.kind === 'object' && key !== null && PATH_MAPS.has(key))))
      stack.push({kind: b === 0x7b ? 'object' : 'array', key, lastKey: null, expectKey: b === 0x7b, pathMap})
      emit(b === 0x7b ? '{' : '[')
      i++
      continue
    }
    if (b === 0x7d || b === 0x5d) {
      if (!top || top.kind !== (b === 0x7d ? 'object' : 'array')) strict = true
      if (top) stack.pop()
      if (stack.length === 0) rootDone = true
      emit(b === 0x7d ? '}' : ']')
      i++
      continue
    }
    if (b === 0x2c) {
      if (!top) strict = true
      else if (top.kind === 'object') top.expectKey = true
      emit(',')
      i++
      continue
    }
    if (b === 0x3a) {
      if (!top || top.kind !== 'object') strict = true
      else top.expectKey = false
      emit(':')
      i++
      continue
    }
    if (b === Q) {
      const {pieces, next, closed} = lexString(buf, i + 1, end)
      const damaged = !closed || pieces.some((p) => !p.clean)
      if (damaged) strict = true
      const isKey = Boolean(top && top.kind === 'object' && top.expectKey)
      emit('"')
      if (damaged || strict) {
        for (const p of pieces) {
          if (p.clean) {
            const v = decodeClean(p.raw)
            emit(encode(keepLoneSurrogate(v, r.placeholder(v))))
          } else emitRaw(p.raw)
        }
        if (isKey && top) top.lastKey = null
      } else {
        const value = pieces.length === 0 ? '' : decodeClean(Buffer.concat(pieces.map((p) => p.raw)))
        if (isKey) {
          top!.lastKey = value
          emit(encode(SAFE_KEY.test(value) && !top!.pathMap ? value : keepLoneSurrogate(value, r.placeholder(value))))
        } else {
          const key = top ? (top.kind === 'object' ? top.lastKey : top.key) : null
          emit(encode(keepLoneSurrogate(value, profile ? redactProfileValue(value, key, profile, r) : redactValue(value, key, role, stack.length, r))))
        }
      }
      if (closed) emit('"')
      if (!top) rootDone = true
      i = next
      continue
    }
    if (b === 0x2d || (b >= 0x30 && b <= 0x39)) {
      let k = i + 1
      while (k < end && ((buf[k] >= 0x30 && buf[k] <= 0x39) || buf[k] === 0x2e || buf[k] === 0x65 || buf[k] === 0x45 || buf[k] === 0x2b || buf[k] === 0x2d)) k++
      emit(buf.subarray(i, k).toString('latin1'))
      if (!top) rootDone = true
      i = k
      continue
    }
    if (isWordByte(b)) {
      let k = i + 1
      while (k < end && isWordByte(buf[k])) k++
      const w = redactWord(buf.subarray(i, k).toString('latin1'))
      if (w.irregular) strict = true
      emit(w.out)
      if (!top) rootDone = true
      i = k
      continue
    }
    strict = true
    if (b >= 0x80) {
      const u = utf8SequenceAt(buf, i, end)
      if (u === null) {
        emitRaw(buf.subarray(i, i + 1))
        i++
      } else if (!u.complete) {
        emitRaw(canonicalCut(u.need, u.len, i + u.len < end ? buf[i + u.len] : undefined))
        i += u.len
      } else {
        emit('x')
        i += u.len
      }
      continue
    }
    // NUL, other control bytes, other ASCII punctuation: kept.
    emitRaw(buf.subarray(i, i + 1))
    i++
  }
  if (pending) out.push(Buffer.from(pending, 'utf8'))
  return Buffer.concat(out)
}

/** A string value in a regular region, by another agent's profile. */
function redactProfileValue(value: string, key: string | null, profile: RedactProfile, r: Redactor): string {
  if (key !== null && profile.structuralKeys.has(key) && SAFE_VALUE.test(value)) return value
  return profile.value?.(value, key, r) ?? r.placeholder(value)
}

/** A string value in a regular region, by the key it belongs to. */
function redactValue(value: string, key: string | null, role: RedactRole, depth: number, r: Redactor): string {
  if (key !== null && STRUCTURAL_KEYS.has(key) && SAFE_VALUE.test(value)) return value
  if (isKeptConstant(value)) return value
  if (key === 'content' && role === 'transcript' && depth === 2) return redactTrimmed(value, r)
  if (key === 'text' || key === 'content') return redactPromptText(value, r)
  return r.placeholder(value)
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
    return redactJsonBytes(meta, 'other', r)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || meta[0] === 0xef) return redactJsonBytes(meta, 'other', r)
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
    else if (typeof v === 'object' && v !== null) out[k] = JSON.parse(redactJsonBytes(Buffer.from(JSON.stringify(v)), 'other', r).toString('utf8'))
    else out[k] = v
  }
  const pretty = meta.includes(0x0a)
  const text = pretty ? JSON.stringify(out, null, 2) + (meta[meta.length - 1] === 0x0a ? '\n' : '') : JSON.stringify(out)
  return Buffer.from(text, 'utf8')
}
