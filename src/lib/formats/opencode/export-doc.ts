/**
 * The `opencode export` document of a session of the JSON tree, from its files as the inventory (or a stored
 * snapshot) holds them: `info` = the session file, `messages` = the message files in id order, each with its
 * part files in id order (OpenCode 1.1.65's own export, checked by test). Pure; loads no schema (the export
 * checker, and zod, are `export.ts`'s), so the scan path can build one.
 */
import type {FileEntry} from '../../model/adapter.js'
import {readTreeSession, usable} from './tree.js'

/** Why a tree session cannot be exported. */
export class ExportRefused extends Error {
  constructor(
    readonly reason: 'no-session' | 'session-damaged' | 'too-large',
    message: string,
  ) {
    super(message)
  }
}

/** What `exportFromTree` produced: the document, and what of the session it had to leave out. */
export interface TreeExport {
  document: {info: Record<string, unknown>; messages: Array<{info: Record<string, unknown>; parts: Array<Record<string, unknown>>}>}
  /** Relative paths of damaged message and part files left out (a message's parts go with it). */
  omitted: string[]
  /** Total bytes of the session's files read. */
  bytes: number
}

/** The pure half of `exportFromTree`: the document from a session's files as the inventory reads them. */
export function exportFromFiles(sessionId: string, files: FileEntry[], bytes = files.reduce((n, f) => n + f.bytes, 0)): TreeExport {
  const s = readTreeSession(sessionId, files)
  if (!s.session) throw new ExportRefused('no-session', `no session file for ${sessionId}`)
  if (!usable(s.session)) throw new ExportRefused('session-damaged', `the session file of ${sessionId} is ${s.session.generation.class}: there is no session info to export`)
  const omitted: string[] = []
  const messages: TreeExport['document']['messages'] = []
  for (const m of s.messages) {
    if (!m.file) continue
    if (!usable(m.file)) {
      omitted.push(m.file.rel, ...m.parts.map((p) => p.rel))
      continue
    }
    const parts: Array<Record<string, unknown>> = []
    for (const p of m.parts) {
      if (usable(p)) parts.push(p.value)
      else omitted.push(p.rel)
    }
    messages.push({info: m.file.value, parts})
  }
  return {document: {info: s.session.value, messages}, omitted, bytes}
}
