/**
 * A run-state too large for one string (over V8's ~512 MiB limit), read for measuring from its bytes: the
 * document's members are parsed one by one, and `sessionState.mainAgentState.messageHistory` element by
 * element, each message kept only as far as measuring needs it (a user message whole: prompts, summaries and
 * the interruption note are in user messages; any other message as its `role`). The result has the shape
 * of the RunState for `runStateShape` and `measureRunState`, never the bytes to restore (those stay the
 * file's own). The file's syntax was already checked by streaming (`classify/stream.ts`).
 */
import {decodeKey, eachMember, INCOMPLETE, keyIs, skipValue, skipWs} from '../../json/walk.js'
import {isPlainObject} from './schema.js'

/** Parses `buf[start, end)` as JSON; undefined when it is too large for one string or does not parse. */
function parseRange(buf: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(buf.toString('utf8', start, end))
  } catch {
    return undefined
  }
}

/** A message as measuring needs it. */
function slim(m: unknown): unknown {
  if (!isPlainObject(m) || m.role === 'user') return m
  return {role: m.role}
}

/** The array at `i` parsed element by element through `each`; the offset after it, or INCOMPLETE. */
function eachElement(buf: Buffer, i: number, end: number, each: (v: unknown) => boolean): number {
  if (buf[i] !== 0x5b) return INCOMPLETE
  i = skipWs(buf, i + 1, end)
  if (buf[i] === 0x5d) return i + 1
  while (i < end) {
    const e = skipValue(buf, i, end)
    if (e < 0) return INCOMPLETE
    const v = parseRange(buf, i, e)
    if (v === undefined || !each(v)) return INCOMPLETE
    const j = skipWs(buf, e, end)
    if (buf[j] === 0x5d) return j + 1
    if (buf[j] !== 0x2c) return INCOMPLETE
    i = skipWs(buf, j + 1, end)
  }
  return INCOMPLETE
}

/** The measurable value of a large intact run-state's bytes; undefined when it cannot be read so. */
export function largeRunStateValue(buf: Buffer): unknown {
  const end = buf.length
  const start = skipWs(buf, 0, end)
  if (buf[start] !== 0x7b) return parseRange(buf, start, end)
  const history = (at: number, set: (v: unknown) => void) => {
    const messages: unknown[] = []
    const e = eachElement(buf, at, end, (m) => messages.push(slim(m)) > 0)
    if (e >= 0) set(messages)
    return e
  }
  const objectOr = (descend: (k0: number, k1: number) => ((at: number, set: (v: unknown) => void) => number) | null) => (at: number, set: (v: unknown) => void) => {
    if (buf[at] !== 0x7b) {
      const e = skipValue(buf, at, end)
      const v = e < 0 ? undefined : parseRange(buf, at, e)
      if (v === undefined) return INCOMPLETE
      set(v)
      return e
    }
    let after = INCOMPLETE
    const o = readObjectEnd(buf, at, end, descend, (n) => (after = n))
    if (o === null) return INCOMPLETE
    set(o)
    return after
  }
  const main = objectOr((k0, k1) => (keyIs(buf, k0, k1, 'messageHistory') ? history : null))
  const session = objectOr((k0, k1) => (keyIs(buf, k0, k1, 'mainAgentState') ? main : null))
  const value = readObjectEnd(buf, start, end, (k0, k1) => (keyIs(buf, k0, k1, 'sessionState') ? session : null), () => {})
  return value ?? undefined
}

/**
 * The object at `i` with members parsed one by one; `inner(key)` names a member to descend into instead
 * (returning how to read it); the offset after the object goes to `endAt`. Null when a member cannot be read.
 */
function readObjectEnd(buf: Buffer, i: number, end: number, inner: (k0: number, k1: number) => ((at: number, set: (v: unknown) => void) => number) | null, endAt: (n: number) => void): Record<string, unknown> | null {
  const out: Record<string, unknown> = {}
  const done = eachMember(buf, i, end, (k0, k1, v0) => {
    const key = decodeKey(buf, k0, k1)
    const read = inner(k0, k1)
    if (read) return read(v0, (v) => (out[key] = v))
    const v1 = skipValue(buf, v0, end)
    if (v1 < 0) return INCOMPLETE
    const v = parseRange(buf, v0, v1)
    if (v === undefined) return INCOMPLETE
    out[key] = v
    return v1
  })
  if (done === null) return null
  endAt(done)
  return out
}
