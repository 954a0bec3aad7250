/**
 * Complete JSON documents inside one file's bytes: what two writes that landed in the same file left there
 * (a complete document followed by another, bug-log.md K7), located by the strict syntax scanner. Each is a
 * byte range `[start, end)`; nothing is decoded or re-serialized.
 */
import {scanValue, skipWhitespace} from './json.js'

/** A complete JSON value inside a file: `[start, end)` in bytes (trailing whitespace not included). */
export interface DocumentRange {
  start: number
  end: number
}

/** The complete value that starts at `start` (leading whitespace skipped), or null. */
export function documentAt(buf: Uint8Array, start: number, end = buf.length): DocumentRange | null {
  const at = skipWhitespace(buf, start, end)
  if (at >= end) return null
  const r = scanValue(buf, at, end)
  return r.kind === 'complete' ? {start: at, end: r.end} : null
}

/**
 * The chain of complete documents from `start`: a document, whitespace, the next, … up to the first range that
 * is no complete document (or the end). `rest` is the offset where the chain stopped (`end` when it covers every
 * byte but whitespace).
 */
export function documentChain(buf: Uint8Array, start = 0, end = buf.length): {documents: DocumentRange[]; rest: number} {
  const documents: DocumentRange[] = []
  let i = skipWhitespace(buf, start, end)
  while (i < end) {
    const d = documentAt(buf, i, end)
    if (!d) break
    documents.push(d)
    i = skipWhitespace(buf, d.end, end)
  }
  return {documents, rest: i}
}

/** True when `buf[from, end)` holds only JSON whitespace and NUL bytes. */
export function onlyPaddingFrom(buf: Uint8Array, from: number, end = buf.length): boolean {
  for (let i = from; i < end; i++) {
    const b = buf[i]
    if (b !== 0x00 && b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return false
  }
  return true
}
