/**
 * An export file of a member of the family as a chat of `check`: found by PATH or, in folders and bundles, by
 * its content (`{"info": {…}, "messages": […]}` at the start), verified with `checkStoreExport`, reported like
 * any other chat with the member's `format`. Keyed by its session id (`info.id`), or by its file name when it
 * cannot be parsed. Pure; reads nothing (the caller hands over the bytes).
 */
import {createHash} from 'node:crypto'
import type {ChatReport, Generation} from '../../model/report.js'
import {checkStoreExport} from './export.js'
import type {StoreMember} from './member.js'

/** The report body (without `path`) of one export file. `name` is the file's name, `mtimeMs` its mtime. */
export function diagnoseExportFile(member: StoreMember, name: string, data: Buffer, mtimeMs: number): Omit<ChatReport, 'path'> {
  const c = checkStoreExport(data, member)
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
    format: member.format,
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
