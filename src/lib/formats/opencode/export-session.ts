/**
 * `chatdoctor bundle --session <id> -o FILE.json`: one session of OpenCode's JSON tree (≤ 1.1.x)
 * as an `opencode export` document, so it can be moved into a 1.2+ store with `opencode import`. The document
 * is what `exportFromTree` builds (deep-equal after parsing to OpenCode's own export of an undamaged session),
 * pretty-printed as OpenCode prints it (2-space indent, final newline). With `redact`, its strings are replaced
 * by keyed-hash placeholders (bundle/redact-agents.ts, ids, roles, counts and times kept) and the redacted
 * document must pass `checkExport` with the same status and context measure as the unredacted one.
 *
 * Read-only on the store: finds the session with discovery (directory listings only), then reads only that
 * session's files. Writes nothing (the command writes the bytes through `fsio/output.ts`).
 */
import {discover} from '../../pipeline/discover.js'
import type {FormatAdapter} from '../../model/adapter.js'
import {checkExport, EXPORT_SIZE_CAP_BYTES, exportFromTree, ExportRefused} from './export.js'
import {opencode} from './index.js'
import type {OpenCodeFacts} from './store.js'
import {makeRedactor} from '../../json/redact.js'
import {redactOpenCodeBytes} from '../jsonl/redact.js'

export interface SessionExportOptions {
  home: string
  env: NodeJS.ProcessEnv
  redact: boolean
  /** Size cap in bytes of the session's files (default `EXPORT_SIZE_CAP_BYTES`, 256 MiB). */
  capBytes?: number
  /** Redaction key, for tests only (default: 32 random bytes, never stored). */
  key?: Buffer
  adapter?: FormatAdapter
}

/** A session exported: the bytes to write and what they hold. */
export interface SessionExport {
  sessionId: string
  /** The data dir the session was read from. */
  dataDir: string
  /** The export document's bytes (UTF-8 JSON, pretty-printed, final newline). */
  bytes: Buffer
  messages: number
  parts: number
  /** Relative paths of damaged message and part files left out (see `exportFromTree`). */
  omitted: string[]
  /** Total bytes of the session's files read. */
  sessionBytes: number
  redacted: boolean
}

/** Why a session could not be exported: a one-line message saying what to do next. */
export class SessionExportError extends Error {}

/**
 * Finds session `sessionId` in the OpenCode data dirs under `paths` (the default data dir when empty) and
 * builds its export. Throws `SessionExportError` when the session is not found, lives in a database, has no
 * usable session file, is over the cap, or when the redacted document would check differently.
 */
export async function exportSession(paths: string[], sessionId: string, opts: SessionExportOptions): Promise<SessionExport> {
  const adapter = opts.adapter ?? opencode
  const found = await discover(paths, [adapter], opts.home, opts.env)
  const where = paths.length > 0 ? paths.join(', ') : adapter.defaultRoots(opts.home, opts.env).join(', ')
  const unit = found.chats.map((c) => c.unit).find((u) => {
    const f = u.facts as OpenCodeFacts | undefined
    return f !== undefined && (f.kind === 'tree' ? f.sessionId === sessionId : f.session?.id === sessionId)
  })
  if (!unit) {
    const errs = found.errors.length > 0 ? ` (${found.errors[0].path}: ${found.errors[0].message})` : ''
    throw new SessionExportError(`no OpenCode session ${sessionId} found in ${where}${errs}; \`chatdoctor scan\` lists the session ids`)
  }
  if ((unit.facts as OpenCodeFacts).kind === 'database') {
    throw new SessionExportError(`${sessionId} lives in the database of OpenCode 1.2 or later, where \`opencode export ${sessionId}\` exports it; --session exports sessions of the legacy JSON tree`)
  }
  const cap = opts.capBytes ?? EXPORT_SIZE_CAP_BYTES
  let tree
  try {
    tree = exportFromTree(unit.dir, sessionId, cap)
  } catch (e) {
    if (e instanceof ExportRefused) {
      const next = e.reason === 'too-large' ? ' (raise --max-session-bytes to export it anyway)' : e.reason === 'session-damaged' ? '; `chatdoctor scan` shows the damage' : ''
      throw new SessionExportError(`${e.message}${next}`)
    }
    throw new SessionExportError(`could not read session ${sessionId}: ${(e as Error).message}`)
  }
  const doc = tree.document
  let bytes: Buffer = Buffer.from(JSON.stringify(doc, null, 2) + '\n', 'utf8')
  if (opts.redact) {
    const before = checkExport(bytes)
    const redacted = redactOpenCodeBytes(bytes, makeRedactor(opts.key))
    const after = checkExport(redacted)
    if (after.status !== before.status || JSON.stringify(after.context) !== JSON.stringify(before.context) || after.findings.length !== before.findings.length) {
      throw new SessionExportError(`redaction would change how the export of ${sessionId} checks (${before.status} → ${after.status}); nothing written. Please report this with \`chatdoctor scan --json\` of the session`)
    }
    bytes = redacted
  }
  return {
    sessionId,
    dataDir: unit.dir,
    bytes,
    messages: doc.messages.length,
    parts: doc.messages.reduce((n, m) => n + m.parts.length, 0),
    omitted: tree.omitted,
    sessionBytes: tree.bytes,
    redacted: opts.redact,
  }
}
