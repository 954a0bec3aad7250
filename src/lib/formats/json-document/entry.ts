/**
 * One file of a chat that holds a single JSON document (Codebuff's run states and transcript, Cline's session
 * files), turned into its generation: read or streamed, hashed, classified by the format's own rule. Shared by
 * the formats whose files are whole JSON documents.
 */
import {createHash} from 'node:crypto'
import type {Classification, Generation, Role} from '../../model/report.js'
import type {FileEntry} from '../../model/adapter.js'

/**
 * The generation of a file entry, classified by `classify` over its bytes; its parsed value when intact. A
 * file above the streaming threshold keeps its streamed verdict (never intact); one whose bytes could not be
 * read is `corrupt` (`unreadable`).
 */
export function documentGeneration(f: FileEntry, role: Role, classify: (data: Buffer) => Classification): {generation: Generation; value?: unknown} {
  const g: Generation = {file: f.name, role, class: null, reasons: [], bytes: f.bytes, mtimeMs: f.mtimeMs, sha256: null, turns: null}
  if (f.data === undefined && f.streamed) {
    // A file too large to read whole, classified by streaming: a syntax verdict, never intact.
    const c = f.streamed.classification
    g.class = c.class
    g.reasons = c.reasons
    g.sha256 = f.streamed.sha256
    if (c.damage) g.damage = c.damage
    return {generation: g}
  }
  if (f.data === undefined) {
    g.class = 'corrupt'
    g.reasons = ['unreadable']
    return {generation: g}
  }
  const c = classify(f.data)
  g.class = c.class
  g.reasons = c.reasons
  g.bytes = f.data.length
  g.sha256 = createHash('sha256').update(f.data).digest('hex')
  if (c.damage) g.damage = c.damage
  return c.class === 'intact' ? {generation: g, value: c.value} : {generation: g}
}
