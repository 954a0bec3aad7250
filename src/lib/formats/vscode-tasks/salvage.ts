/**
 * Salvage of a torn message array (`api_conversation_history.json`, `ui_messages.json` and their leftovers):
 * the complete messages before the tear kept byte for byte and the array closed (`prefix`), or a complete
 * array followed by bytes that belong to no document — NULs, whitespace, the stale tail of an older, longer
 * file — kept whole and the tail dropped (`tail`). The byte work is the generic salvager (`src/lib/salvage/`,
 * root array) and the strict scanner (`src/lib/classify/json.ts`); nothing is borrowed, nothing invented.
 */
import {createHash} from 'node:crypto'
import {isUtf8} from 'node:buffer'
import {scanValue, skipWhitespace} from '../../classify/json.js'
import type {Classification, SalvageReport} from '../../model/report.js'
import {salvageJson, type SalvagedGeneration} from '../../salvage/index.js'
import {isMessageArray} from './measure.js'

/** A salvage of one torn file, with its parsed messages and whether it loses nothing that is on disk. */
export interface ArraySalvage {
  file: string
  parts: Uint8Array[]
  summary: SalvageReport
  value: Record<string, unknown>[]
  /**
   * True when every message on disk is kept whole: only closing syntax was missing (the cut fell between two
   * messages), or only bytes after a complete array are dropped.
   */
  lossless: boolean
}

function sha256(parts: readonly Uint8Array[]): string {
  const h = createHash('sha256')
  for (const p of parts) h.update(p)
  return h.digest('hex')
}

function summaryOf(kind: SalvageReport['kind'], elements: number, tearOffset: number, bytesKept: number, total: number, tornElementDropped: boolean, parts: Uint8Array[], lossless: boolean): SalvageReport {
  let bytes = 0
  for (const p of parts) bytes += p.length
  return {kind, messages: elements, turns: null, tearOffset, bytesKept, bytesDropped: total - bytesKept, tornElementDropped, keysBorrowed: [], keysMissing: [], keysDropped: [], bytes, sha256: sha256(parts), candidate: elements > 0, lossless}
}

/**
 * Salvages a torn message array, or null when no complete message survives (or the bytes are not a message
 * array before the tear). `c` is the file's classification. Pure; never throws.
 */
export function salvageMessageArray(file: string, data: Buffer, c: Classification): ArraySalvage | null {
  if (c.class !== 'truncated' && c.class !== 'corrupt') return null
  if (c.reasons.includes('bom') || c.reasons.includes('unreadable') || c.reasons.includes('not-a-file')) return null
  // A complete array with bytes after it: keep the array whole.
  const whole = scanValue(data, 0, data.length)
  if (whole.kind === 'complete') {
    const doc = data.subarray(0, whole.end)
    if (!isUtf8(doc)) return null
    let value: unknown
    try {
      value = JSON.parse(doc.toString('utf8'))
    } catch {
      return null
    }
    if (!isMessageArray(value) || value.length === 0) return null
    const parts = [doc]
    return {file, parts, value, lossless: true, summary: summaryOf('tail', value.length, whole.end, whole.end, data.length, false, parts, true)}
  }
  const end = c.damage?.offset
  const out = salvageJson(data, {spine: [], end: end !== undefined && end > 0 ? end : undefined})
  if (!out.ok) return null
  const {parts, value, description: d} = out.salvage
  if (!isMessageArray(value) || value.length === 0 || d.elementsKept === 0) return null
  // Lossless: between the last whole message and the end of the written bytes only whitespace and one comma.
  const writtenEnd = Math.min(d.tearOffset, data.length)
  let i = skipWhitespace(data, d.bytesKept, writtenEnd)
  if (i < writtenEnd && data[i] === 0x2c) i = skipWhitespace(data, i + 1, writtenEnd)
  const onlyClosingMissing = c.class === 'truncated' && i >= writtenEnd
  return {file, parts, value, lossless: onlyClosingMissing, summary: summaryOf('prefix', d.elementsKept, d.tearOffset, d.bytesKept, data.length, !onlyClosingMissing, parts, onlyClosingMissing)}
}

/** As a `SalvagedGeneration` (for `repair --salvage`), with its measure when it is a model context. */
export function asSalvagedGeneration(s: ArraySalvage, measure: SalvagedGeneration['measure']): SalvagedGeneration {
  return {file: s.file, parts: s.parts, summary: {...s.summary, turns: measure ? measure.turns : null, candidate: s.summary.candidate && measure !== null}, measure}
}
