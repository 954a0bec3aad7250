/**
 * One inventoried entry of a chat dir as a `Generation` of the report: its class and reasons, size, sha256
 * and where the damage starts. An entry the format has no role for (`other`) is listed unclassified; a
 * symbolic link, folder or special file under a role's name is `corrupt` (`not-a-file`), never read. A file too large to read whole keeps the verdict the inventory streamed for it
 * (never `intact`); a file whose bytes could not be read is `corrupt` (`unreadable`); otherwise the format's
 * `classify` (syntax, then the shape the role needs) decides. Pure.
 */
import {createHash} from 'node:crypto'
import type {FileEntry} from '../model/adapter.js'
import type {Classification, Generation, Role} from '../model/report.js'

/** The generation of one entry and its classification (null when the bytes were not classified here). */
export interface ClassifiedEntry {
  generation: Generation
  classification: Classification | null
}

/**
 * Classifies one entry under `role` with the format's own classifier (called for a regular file's bytes only).
 * `classifyLarge`, when the format has one, classifies an intact file the inventory checked and built a
 * measurable value of (`f.large`, see `FormatAdapter.streamValue`) from that value; null from it (or no such
 * classifier) leaves the file to its bytes, or unreadable without them. `hash` false leaves the sha256 of bytes
 * read whole null (the caller hashes them later with `hashEntry` or says in the report that it did not).
 */
export function classifyEntry(f: FileEntry, role: Role, classify: (data: Buffer) => Classification, classifyLarge?: (value: unknown) => Classification | null, hash = true): ClassifiedEntry {
  const g: Generation = {file: f.name, role, class: null, reasons: [], bytes: f.bytes, mtimeMs: f.mtimeMs, sha256: null, turns: null}
  if (role === 'other') return {generation: g, classification: null}
  if (f.kind !== 'file') {
    // A symbolic link, folder or special file under a state file's name: never read, never replaced.
    g.class = 'corrupt'
    g.reasons = ['not-a-file']
    return {generation: g, classification: null}
  }
  if (f.large && classifyLarge) {
    const c = classifyLarge(f.large.value)
    if (c) {
      g.class = c.class
      g.reasons = c.reasons
      g.sha256 = f.large.sha256
      if (f.data) g.bytes = f.data.length
      return {generation: g, classification: c}
    }
  }
  if (f.data === undefined && f.streamed) {
    // A file too large to read whole, classified by streaming: a syntax verdict, never intact.
    const c = f.streamed.classification
    g.class = c.class
    g.reasons = c.reasons
    g.sha256 = f.streamed.sha256
    if (c.damage) g.damage = c.damage
    return {generation: g, classification: null}
  }
  if (f.data === undefined) {
    g.class = 'corrupt'
    g.reasons = ['unreadable']
    return {generation: g, classification: null}
  }
  const c = classify(f.data)
  g.class = c.class
  g.reasons = c.reasons
  g.bytes = f.data.length
  if (hash) g.sha256 = hashEntry(f.data)
  if (c.damage) g.damage = c.damage
  return {generation: g, classification: c}
}

/** The sha256 of a file's bytes as a generation lists it (lower-case hex). */
export function hashEntry(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}
