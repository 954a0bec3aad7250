/**
 * Run states written twice into one file: each complete RunState document inside a damaged run-state file is a
 * generation of its own, named `<file>@<byte offset>` (role `embedded`), measured and ranked like any other; a
 * restore writes its exact bytes. Two shapes (bug-log.md K7): a complete document followed by another
 * (`concatenated`: two writers, or a rewrite that did not truncate the file), and a torn write followed by a
 * complete one (the stub of an interrupted save, then the next save appended after it).
 */
import {documentAt, documentChain, onlyPaddingFrom, type DocumentRange} from '../../classify/documents.js'
import type {Generation} from '../../model/report.js'

/** Separator between a file and the byte offset of a document inside it. */
export const DOCUMENT_SEPARATOR = '@'

/** `run-state.json@24425` for a file and an offset. */
export function documentName(file: string, offset: number): string {
  return `${file}${DOCUMENT_SEPARATOR}${offset}`
}

/** Splits `<file>@<offset>` into its parts; null for any other name. */
export function parseDocumentName(name: string): {file: string; offset: number} | null {
  const m = /^(.+)@(\d+)$/.exec(name)
  return m ? {file: m[1], offset: Number(m[2])} : null
}

/** The key the SDK writes first in every RunState (codebuff-format.md §2.1). */
const FIRST_KEY = Buffer.from('"sessionState"')

function isWs(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09
}

/**
 * The complete documents inside a run-state file that holds more than one write: the chain of complete
 * documents from the first byte when it has two or more; else the first complete RunState document that starts
 * after the first byte (at a `{` before a `"sessionState"` key) and, with any documents after it, runs to the
 * end of the file (whitespace and NULs aside). Empty when the file holds no such thing.
 */
export function stateDocuments(data: Uint8Array): DocumentRange[] {
  const chain = documentChain(data)
  if (chain.documents.length >= 2) return chain.documents
  const first = chain.documents[0]?.start ?? -1
  const view = Buffer.from(data.buffer, data.byteOffset, data.length)
  for (let at = view.indexOf(FIRST_KEY, 1); at > 0; at = view.indexOf(FIRST_KEY, at + 1)) {
    let p = at - 1
    while (p >= 0 && isWs(data[p])) p--
    if (p <= 0 || p === first || data[p] !== 0x7b) continue
    const d = documentAt(data, p)
    if (!d) continue
    const rest = documentChain(data, d.end)
    const end = rest.documents.length > 0 ? rest.documents[rest.documents.length - 1].end : d.end
    if (onlyPaddingFrom(data, end)) return [d, ...rest.documents]
  }
  return []
}

/** Classes of a run-state file whose bytes may hold more than one write. */
export function mayHoldDocuments(g: Generation): boolean {
  return g.class === 'corrupt' && (g.reasons.includes('concatenated') || g.reasons.includes('syntax-error') || g.reasons.includes('trailing-garbage'))
}
