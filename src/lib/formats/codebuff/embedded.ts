/**
 * Embedded generations: the RunState copies a Codebuff transcript keeps in `metadata.runState` of every
 * completed turn's AI message (codebuff-format.md §2.6, §3.1 item 4). Each is a generation with role
 * `embedded` named `chat-messages.json#<message id>`; restoring one writes the exact bytes of that embedded
 * value, located here by a byte-level scan of the transcript (never a re-serialization of the parsed value).
 */
import {eachMember, INCOMPLETE, keyIs, skipValue, skipWs} from '../../json/walk.js'

/** One embedded RunState: where its bytes sit in the transcript. */
export interface EmbeddedRunState {
  /** The generation name's part after `#`: the message id (`ai-<ms>-<hex>`), made unique when ids repeat. */
  id: string
  /** Index of the message in the transcript array. */
  index: number
  /** Byte range `[start, end)` of the `runState` value inside the transcript's bytes. */
  start: number
  end: number
  /** Creation time from the message id (`ai-<ms>-…`), ms since epoch; null when the id carries none. */
  idTimeMs: number | null
}

/** Separator between the container file and the message id in an embedded generation's name. */
export const EMBEDDED_SEPARATOR = '#'

/** `chat-messages.json#ai-…` for a container file and an embedded id. */
export function embeddedName(file: string, id: string): string {
  return `${file}${EMBEDDED_SEPARATOR}${id}`
}

/** Splits an embedded generation's name into its container file and id; null for a plain file name. */
export function parseEmbeddedName(name: string): {file: string; id: string} | null {
  const at = name.indexOf(EMBEDDED_SEPARATOR)
  if (at <= 0) return null
  return {file: name.slice(0, at), id: name.slice(at + 1)}
}

function decodeStringValue(buf: Uint8Array, start: number, end: number): string | null {
  if (buf[start] !== 0x22) return null
  try {
    const v = JSON.parse(Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('utf8'))
    return typeof v === 'string' ? v : null
  } catch {
    return null
  }
}

/**
 * Every `metadata.runState` of a transcript, in transcript order, located in its bytes. The transcript must
 * be a complete JSON array (an intact transcript); returns `[]` otherwise. A message without a string `id`
 * is named by its index (`[7]`); a repeated id gets `~2`, `~3`, … appended. Keys repeated inside a message
 * resolve as `JSON.parse` does (the last one wins).
 *
 * One pass over the bytes: each message's members are walked once, descending into `metadata`
 * instead of skipping it and again, and keys are compared as bytes, not decoded.
 */
export function locateEmbeddedRunStates(transcript: Uint8Array): EmbeddedRunState[] {
  const buf = transcript
  const end = buf.length
  let i = skipWs(buf, 0, end)
  if (buf[i] !== 0x5b) return []
  const out: EmbeddedRunState[] = []
  const seen = new Map<string, number>()
  i = skipWs(buf, i + 1, end)
  if (i < end && buf[i] === 0x5d) return out
  for (let index = 0; i < end; index++) {
    let elementEnd: number
    let runState: [number, number] | null = null
    let idRange: [number, number] | null = null
    if (buf[i] === 0x7b) {
      const objectEnd = eachMember(buf, i, end, (keyStart, keyEnd, valueStart) => {
        if (keyIs(buf, keyStart, keyEnd, 'metadata')) {
          runState = null // a later `metadata` replaces an earlier one
          if (buf[valueStart] !== 0x7b) return skipValue(buf, valueStart, end)
          const metaEnd = eachMember(buf, valueStart, end, (k0, k1, v0) => {
            const v1 = skipValue(buf, v0, end)
            if (v1 >= 0 && keyIs(buf, k0, k1, 'runState')) runState = [v0, v1]
            return v1
          })
          return metaEnd ?? INCOMPLETE
        }
        const valueEnd = skipValue(buf, valueStart, end)
        if (valueEnd >= 0 && keyIs(buf, keyStart, keyEnd, 'id')) idRange = [valueStart, valueEnd]
        return valueEnd
      })
      if (objectEnd === null) return []
      elementEnd = objectEnd
    } else {
      elementEnd = skipValue(buf, i, end)
      if (elementEnd < 0) return []
    }
    const rs = runState as [number, number] | null
    if (rs) {
      const idr = idRange as [number, number] | null
      const rawId = idr ? decodeStringValue(buf, idr[0], idr[1]) : null
      let id = rawId ?? `[${index}]`
      const n = (seen.get(id) ?? 0) + 1
      seen.set(id, n)
      if (n > 1) id = `${id}~${n}`
      const ms = rawId ? /^ai-(\d+)/.exec(rawId) : null
      out.push({id, index, start: rs[0], end: rs[1], idTimeMs: ms ? Number(ms[1]) : null})
    }
    const j = skipWs(buf, elementEnd, end)
    if (j >= end) return []
    if (buf[j] === 0x5d) return out
    if (buf[j] !== 0x2c) return []
    i = skipWs(buf, j + 1, end)
  }
  return []
}

/**
 * The exact bytes of one embedded generation: the `metadata.runState` value of the message named `id` (as
 * `locateEmbeddedRunStates` names it) in the transcript's bytes. A view into `transcript` (copy it before
 * the buffer is reused); null when no such embedded copy exists.
 */
export function embeddedGenerationBytes(transcript: Uint8Array, id: string): Buffer | null {
  const hit = locateEmbeddedRunStates(transcript).find((e) => e.id === id)
  if (!hit) return null
  return Buffer.from(transcript.buffer, transcript.byteOffset + hit.start, hit.end - hit.start)
}

/**
 * (`scan --quick`) The name of the newest embedded copy in a transcript's bytes that holds agent context (a
 * `sessionState.mainAgentState.messageHistory` array), as a generation is named; null when none does.
 */
export function newestEmbeddedWithContext(file: string, transcript: Uint8Array): string | null {
  const all = locateEmbeddedRunStates(transcript)
  for (let k = all.length - 1; k >= 0; k--) {
    const e = all[k]
    try {
      const v = JSON.parse(Buffer.from(transcript.buffer, transcript.byteOffset + e.start, e.end - e.start).toString("utf8")) as {sessionState?: {mainAgentState?: {messageHistory?: unknown}}}
      if (Array.isArray(v?.sessionState?.mainAgentState?.messageHistory)) return embeddedName(file, e.id)
    } catch {
      // not a whole document: not a copy of the context
    }
  }
  return null
}
