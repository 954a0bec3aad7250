/**
 * The transcript a Codebuff chat will have after a repair, and the sources that can restore a torn one.
 *
 * The CLI loads an unreadable `chat-messages.json` as an empty transcript (codebuff-format.md §1.6), so a torn
 * transcript is always damage. It can be restored from an intact transcript temp, or from its own salvage:
 * its complete messages kept byte for byte, then only the closing `]` added. The sources rank by agent turns,
 * then messages, then the newer mtime, then the byte-wise larger name. Turns (M) are counted against the
 * transcript itself when it is intact, else against the best source when that is complete (a temp, or a
 * lossless salvage), so the verdict describes the chat as a repair leaves it; the embedded copies are taken
 * from the best source in any case (their bytes are whole inside its complete messages).
 */
import {createHash} from 'node:crypto'
import type {Generation, SalvageReport} from '../../model/report.js'
import {salvageBytes, salvageJson, salvageLabel} from '../../salvage/index.js'
import type {FileEntry} from '../../model/adapter.js'
import {TRANSCRIPT} from './layout.js'
import {isPlainObject} from './schema.js'
import {transcriptTurns, type TranscriptTurn} from './turns.js'

/** A salvage of a torn transcript: its exact bytes, parsed messages and report entry. */
export interface TranscriptSalvage {
  bytes: Buffer
  messages: unknown[]
  summary: SalvageReport
}

/** True for an array of message objects (the shape a transcript needs, §2.6). */
export function isTranscriptValue(v: unknown): v is unknown[] {
  return Array.isArray(v) && v.every((m) => isPlainObject(m))
}

/**
 * Salvages torn transcript bytes: complete messages kept byte for byte, the array closed. Null when no whole
 * message survives or the result is no transcript. `damageOffset` is the classifier's first damaged byte.
 */
export function salvageTranscript(data: Uint8Array, damageOffset?: number): TranscriptSalvage | null {
  const out = salvageJson(data, {spine: [], end: damageOffset})
  if (!out.ok || out.salvage.description.elementsKept === 0 || !isTranscriptValue(out.salvage.value)) return null
  const d = out.salvage.description
  const bytes = salvageBytes(out.salvage)
  const messages = out.salvage.value
  return {
    bytes,
    messages,
    summary: {
      kind: d.kind,
      messages: d.elementsKept,
      turns: transcriptTurns(messages).length,
      tearOffset: d.tearOffset,
      bytesKept: d.bytesKept,
      bytesDropped: d.bytesDropped,
      tornElementDropped: d.tornElementDropped,
      keysBorrowed: [],
      keysMissing: [],
      keysDropped: [],
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      candidate: true,
      lossless: d.lossless,
    },
  }
}

/** Where the transcript a chat is measured against comes from. */
export interface TranscriptSource {
  /** `chat-messages.json` (intact), an intact transcript temp's name, or `salvage:chat-messages.json`. */
  name: string
  kind: 'intact' | 'temp' | 'salvage'
  /** True when it is a whole transcript (intact file or temp, or a lossless salvage): turns are counted against it. */
  complete: boolean
  messages: unknown[]
  turns: TranscriptTurn[]
  /** The bytes a restore writes (for `intact`, the file's own). */
  bytes: Uint8Array
  /** The file whose bytes hold the messages at the same offsets (the salvaged file for a salvage). */
  file: string
  mtimeMs: number | null
  sha256: string | null
}

/** The salvaged transcript of a torn `chat-messages.json`, when its generation says it is torn. */
export function transcriptSalvageOf(entries: readonly FileEntry[], transcript: Generation | undefined): TranscriptSalvage | null {
  if (!transcript || (transcript.class !== 'truncated' && transcript.class !== 'corrupt') || transcript.reasons.some((r) => r === 'not-a-file' || r === 'unreadable' || r === 'foreign-content')) return null
  const data = entries.find((f) => f.name === transcript.file && f.kind === 'file')?.data
  return data ? salvageTranscript(data, transcript.damage?.offset) : null
}

/**
 * The transcript to measure a chat against: `chat-messages.json` when intact; when it is torn, the best of its
 * intact temps and its own salvage (the one a repair restores); null when there is none. `valueOf` gives the
 * parsed value of an intact file.
 */
export function chooseTranscriptSource(
  entries: readonly FileEntry[],
  generations: readonly Generation[],
  valueOf: (file: string) => unknown,
  salvage: TranscriptSalvage | null,
): TranscriptSource | null {
  const transcript = generations.find((g) => g.role === 'transcript')
  const bytesOf = (name: string) => entries.find((f) => f.name === name && f.kind === 'file')?.data
  if (transcript?.class === 'intact') {
    const v = valueOf(transcript.file)
    const bytes = bytesOf(transcript.file)
    if (isTranscriptValue(v) && bytes) return {name: transcript.file, kind: 'intact', complete: true, messages: v, turns: transcriptTurns(v), bytes, file: transcript.file, mtimeMs: transcript.mtimeMs, sha256: transcript.sha256}
    return null
  }
  if (!transcript) return null
  const sources: TranscriptSource[] = []
  for (const g of generations) {
    if (g.role !== 'transcript-temp' || g.class !== 'intact') continue
    const v = valueOf(g.file)
    const bytes = bytesOf(g.file)
    if (isTranscriptValue(v) && bytes) sources.push({name: g.file, kind: 'temp', complete: true, messages: v, turns: transcriptTurns(v), bytes, file: g.file, mtimeMs: g.mtimeMs, sha256: g.sha256})
  }
  if (salvage) {
    sources.push({name: salvageLabel(TRANSCRIPT), kind: 'salvage', complete: salvage.summary.lossless, messages: salvage.messages, turns: transcriptTurns(salvage.messages), bytes: salvage.bytes, file: TRANSCRIPT, mtimeMs: transcript.mtimeMs, sha256: salvage.summary.sha256})
  }
  sources.sort((a, b) => b.turns.length - a.turns.length || b.messages.length - a.messages.length || (b.mtimeMs ?? 0) - (a.mtimeMs ?? 0) || Buffer.compare(Buffer.from(b.name), Buffer.from(a.name)))
  return sources[0] ?? null
}
