/**
 * An `opencode export` file as a chat of `check`: found by PATH or, in folders and bundles, by its
 * content (`{"info": {…}, "messages": […]}` at the start), verified with `checkExport`, reported like any other
 * chat with `format: opencode`. Keyed by its session id (`info.id`), or by its file name when it cannot be
 * parsed. Pure; reads nothing (the caller hands over the bytes).
 */
import {createHash} from 'node:crypto'
import type {ChatReport, Generation} from '../../model/report.js'
import {checkExport} from './export.js'

export {EXPORT_SNIFF_BYTES, looksLikeExport, mayBeExportName} from './export-sniff.js'

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
