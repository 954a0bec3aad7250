/**
 * `bundle --session ID`: one session as a single document (the format's own export, e.g. an `opencode
 * export` document), from the adapter that exports sessions (`FormatAdapter.sessionExport`). Discovery finds
 * that adapter's chats under the PATHs (its default roots when none), the adapter builds the document.
 * Read-only; writes nothing (the command writes the bytes through `fsio/output.ts`).
 */
import {ADAPTERS} from '../formats/index.js'
import type {FormatAdapter, SessionExport, SessionExporter} from '../model/adapter.js'
import {discover} from './discover.js'

export type {SessionExport} from '../model/adapter.js'

/** Why a session could not be exported: a one-line message saying what to do next. */
export class SessionExportError extends Error {}

export interface SessionExportRun {
  home: string
  env: NodeJS.ProcessEnv
  redact: boolean
  /** Size cap in bytes of the session's files (default: the exporter's). */
  capBytes?: number
  /** Redaction key, for tests only. */
  key?: Buffer
  /** The exporting adapter (default: the first of the registry that exports sessions). */
  adapter?: FormatAdapter
}

/** The adapter that exports sessions, with its exporter; undefined when no adapter does. */
export function sessionExporter(adapters: readonly FormatAdapter[] = ADAPTERS): (FormatAdapter & {sessionExport: SessionExporter}) | undefined {
  return adapters.find((a): a is FormatAdapter & {sessionExport: SessionExporter} => a.sessionExport !== undefined)
}

/**
 * Finds session `sessionId` under `paths` and builds its document. Throws `SessionExportError` when no adapter
 * exports sessions, the session is not found, or the adapter cannot export it.
 */
export async function exportSession(paths: string[], sessionId: string, opts: SessionExportRun): Promise<SessionExport> {
  const adapter = opts.adapter && opts.adapter.sessionExport ? (opts.adapter as FormatAdapter & {sessionExport: SessionExporter}) : sessionExporter()
  if (!adapter) throw new SessionExportError('no format of this chatdoctor exports sessions')
  const found = await discover(paths, [adapter], opts.home, opts.env)
  const where = paths.length > 0 ? paths.join(', ') : adapter.defaultRoots(opts.home, opts.env).join(', ')
  const r = await adapter.sessionExport.export(
    found.chats.map((c) => c.unit),
    sessionId,
    {redact: opts.redact, capBytes: opts.capBytes ?? adapter.sessionExport.capBytes, key: opts.key},
  )
  if (r === null) {
    const errs = found.errors.length > 0 ? ` (${found.errors[0].path}: ${found.errors[0].message})` : ''
    throw new SessionExportError(`no ${adapter.displayName} session ${sessionId} found in ${where}${errs}; \`chatdoctor scan\` lists the session ids`)
  }
  if ('error' in r) throw new SessionExportError(r.error)
  return r
}
