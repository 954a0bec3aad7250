/**
 * `chatdoctor bundle --session <id> -o FILE.json`: one session of OpenCode's JSON tree (≤ 1.1.x)
 * as an `opencode export` document, so it can be moved into a 1.2+ store with `opencode import`. The document
 * is what `exportFromTree` builds (deep-equal after parsing to OpenCode's own export of an undamaged session),
 * pretty-printed as OpenCode prints it (2-space indent, final newline). With `redact`, its strings are replaced
 * by keyed-hash placeholders (redact.ts: ids, roles, counts and times kept) and the redacted document must pass
 * `checkExport` with the same status and context measure as the unredacted one.
 *
 * Read-only on the store: gets the chats discovery found (directory listings only), then reads only that
 * session's files. Writes nothing (the command writes the bytes through `fsio/output.ts`).
 */
import type {ChatUnit, SessionExport, SessionExportOptions} from '../../model/adapter.js'
import {checkExport, EXPORT_SIZE_CAP_BYTES, exportFromTree, ExportRefused} from './export.js'
import type {OpenCodeFacts} from './store.js'
import {makeRedactor} from '../../json/redact.js'
import {redactOpenCodeBytes} from './redact.js'

/**
 * Builds the export of session `sessionId` among the chats of the OpenCode data dirs discovery found: null
 * when none is that session; `{error}` (one line, what to do next) when it lives in a database, has no usable
 * session file, is over the cap, or when the redacted document would check differently. Never throws.
 */
export function exportTreeSession(units: readonly ChatUnit[], sessionId: string, opts: SessionExportOptions): SessionExport | {error: string} | null {
  const unit = units.find((u) => {
    const f = u.facts as OpenCodeFacts | undefined
    return f !== undefined && (f.kind === 'tree' ? f.sessionId === sessionId : f.kind === 'database' && f.session?.id === sessionId)
  })
  if (!unit) return null
  if ((unit.facts as OpenCodeFacts).kind === 'database') {
    return {error: `${sessionId} lives in the database of OpenCode 1.2 or later, where \`opencode export ${sessionId}\` exports it; --session exports sessions of the legacy JSON tree`}
  }
  const cap = opts.capBytes ?? EXPORT_SIZE_CAP_BYTES
  let tree
  try {
    tree = exportFromTree(unit.dir, sessionId, cap)
  } catch (e) {
    if (e instanceof ExportRefused) {
      const next = e.reason === 'too-large' ? ' (raise --max-session-bytes to export it anyway)' : e.reason === 'session-damaged' ? '; `chatdoctor scan` shows the damage' : ''
      return {error: `${e.message}${next}`}
    }
    return {error: `could not read session ${sessionId}: ${(e as Error).message}`}
  }
  const doc = tree.document
  let bytes: Buffer = Buffer.from(JSON.stringify(doc, null, 2) + '\n', 'utf8')
  if (opts.redact) {
    const before = checkExport(bytes)
    const redacted = redactOpenCodeBytes(bytes, makeRedactor(opts.key))
    const after = checkExport(redacted)
    if (after.status !== before.status || JSON.stringify(after.context) !== JSON.stringify(before.context) || after.findings.length !== before.findings.length) {
      return {error: `redaction would change how the export of ${sessionId} checks (${before.status} → ${after.status}); nothing written. Please report this with \`chatdoctor scan --json\` of the session`}
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
