/**
 * An `opencode export` file as a chat of `check`: found by PATH or, in folders and bundles, by its
 * content (`{"info": {…}, "messages": […]}` at the start), verified with `checkExport`, reported like any other
 * chat with `format: opencode`. Keyed by its session id (`info.id`), or by its file name when it cannot be
 * parsed. Pure; reads nothing (the caller hands over the bytes).
 */
import {createHash} from 'node:crypto'
import type {ChatReport, Generation} from '../../model/report.js'
import {checkExport} from './export.js'

/** How many leading bytes `looksLikeExport` needs. */
export const EXPORT_SNIFF_BYTES = 4096

/**
 * True when the first bytes of a file look like an `opencode export` document: an object whose first key is
 * `info`, itself an object (OpenCode writes `info` before `messages`; a torn export keeps its head). A BOM and
 * whitespace in front are allowed (the check then reports them).
 */
export function looksLikeExport(head: Uint8Array): boolean {
  const text = Buffer.from(head.subarray(0, EXPORT_SNIFF_BYTES)).toString('latin1')
  return /^(?:\xef\xbb\xbf)?\s*\{\s*"info"\s*:\s*\{/.test(text)
}

/**
 * True for a file name a PATH given to `check` may name as an export: `*.json` that is not one of Codebuff's
 * own files (`run-state.json*`, `chat-messages.json*`, `chat-meta.json`) nor chatdoctor's manifest.
 */
export function mayBeExportName(name: string): boolean {
  if (!name.toLowerCase().endsWith('.json')) return false
  return !/^(?:run-state\.json|chat-messages\.json|chat-meta\.json|chatdoctor-bundle\.json)/.test(name)
}

/** The report body (without `path`) of one export file. `name` is the file's name, `mtimeMs` its mtime. */
export function diagnoseExportFile(name: string, data: Buffer, mtimeMs: number): Omit<ChatReport, 'path'> {
  const c = checkExport(data)
  const usable = c.status !== 'unrecoverable'
  const turns = usable ? c.context.userTurns : null
  const generation: Generation = {
    file: name,
    role: 'export',
    class: c.class,
    reasons: c.reasons,
    bytes: data.length,
    mtimeMs,
    sha256: createHash('sha256').update(data).digest('hex'),
    turns,
    ...(c.damage ? {damage: c.damage} : {}),
  }
  return {
    format: 'opencode',
    id: c.sessionId ?? name,
    status: c.status,
    winner: usable ? name : null,
    transcriptTurns: null,
    contextTurns: turns,
    findings: c.findings.map((f) => ({...f, file: f.file ?? name})),
    generations: [generation],
    ranking: [],
    context: c.context,
  }
}
