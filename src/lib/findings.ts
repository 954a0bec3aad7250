/**
 * The closed list of finding ids. CI formats (SARIF rule ids, JUnit, GitHub annotations) use these ids, so
 * they are a contract: add new ones, never rename. The README's table is generated from this list
 * (`test/readme.test.ts` keeps them in step).
 */
import type {Finding, Severity} from './model.js'

/** A finding kind: its id, its default severity and a one-line description for rule lists. */
export interface FindingKind {
  id: string
  severity: Severity
  description: string
}

export const FINDING_KINDS = {
  'primary-missing': {severity: 'error', description: 'The primary state file is absent (e.g. a crash between rotating it to .bak and writing the new one).'},
  'primary-damaged': {severity: 'error', description: 'The primary state file is truncated, empty, zero-filled or corrupt: the agent cannot load it.'},
  'primary-contextless': {severity: 'error', description: "The primary parses but holds no agent context (e.g. the loader's \"Previous run state could not be restored.\" stand-in)."},
  'primary-behind': {severity: 'error', description: 'The primary is usable but another generation covers more transcript turns.'},
  'fresh-chat': {severity: 'info', description: "The primary is the SDK's stand-in written before a new chat's first answer; normal while the chat has no agent turn."},
  'context-lost': {severity: 'error', description: 'No usable generation of the agent context exists: the agent context of this chat is lost.'},
  'backup-damaged': {severity: 'warning', description: 'The rotated backup generation is not usable.'},
  'temp-leftover': {severity: 'info', description: 'A complete temp file left by a process that died between write and rename.'},
  'temp-damaged': {severity: 'warning', description: 'A torn or unusable temp file left by an interrupted write.'},
  'transcript-missing': {severity: 'warning', description: 'The transcript is absent, so turns cannot be counted against it.'},
  'transcript-damaged': {severity: 'error', description: 'The transcript the user sees is torn or corrupt; the agent would load it as empty.'},
  'transcript-temp-leftover': {severity: 'info', description: 'A temp file of the transcript left by an interrupted write.'},
  'meta-damaged': {severity: 'info', description: 'The chat-meta.json sidecar is unusable; the agent recomputes it.'},
  'transcript-capped': {severity: 'info', description: 'The context holds prompts older than the transcript, which keeps only its last 100 messages. Not damage.'},
  'prompts-without-transcript': {severity: 'warning', description: 'The winning generation holds prompts that match no transcript turn (the transcript lost them).'},
  'context-behind-transcript': {severity: 'info', description: "The transcript has turns after the last one in the agent's memory."},
  'unknown-file': {severity: 'info', description: 'A file the format does not know; listed, never touched.'},
  'unreadable': {severity: 'error', description: 'A file could not be read (permission or I/O error).'},
  'chat-id-nonstandard': {severity: 'info', description: "The chat dir's name does not follow the agent's id pattern."},
  // OpenCode: sessions spread over a JSON tree or database rows, and `opencode export` files.
  'message-damaged': {severity: 'error', description: "A message file is truncated, empty, zero-filled or corrupt: the agent cannot open the session, and the message's parts are lost with it."},
  'part-damaged': {severity: 'error', description: 'A part file (text, tool call, step) is truncated, empty, zero-filled or corrupt: the agent cannot open the session.'},
  'orphan-parts': {severity: 'warning', description: 'Parts whose message is gone: the agent never reads them, so their context is lost.'},
  'tool-output-missing': {severity: 'warning', description: 'A completed tool call has no output: the model will not see what the tool returned.'},
  'message-without-parts': {severity: 'warning', description: 'A message has no parts left: its content is lost.'},
  'parent-missing': {severity: 'warning', description: "An assistant message's parentID names no user message of the session."},
  'not-in-database': {severity: 'error', description: 'A session exists only in the legacy JSON tree beside the database: OpenCode 1.16 and later no longer read it.'},
  'database-damaged': {severity: 'error', description: "The database fails SQLite's integrity check (e.g. \"database disk image is malformed\")."},
  'database-unreadable': {severity: 'error', description: 'The database could not be opened or queried (on a private copy): its sessions cannot be listed.'},
  'export-damaged': {severity: 'error', description: 'An export file is truncated, empty, zero-filled or corrupt JSON.'},
  'export-invalid': {severity: 'error', description: 'An export file parses but does not have the shape of an `opencode export` document.'},
  'duplicate-id': {severity: 'error', description: 'A message or part id occurs more than once in a session.'},
  'role-order': {severity: 'error', description: 'Messages are out of id order, or the session does not start with a user message.'},
  'part-link': {severity: 'error', description: "A part's messageID or sessionID, or a message's sessionID, does not name the record that holds it."},
  // ---- forensics
  'context-amnesia': {severity: 'error', description: "The agent's memory was replaced by a new session (traceSessionId break, prompts starting after turn 1 with no summary, or the loader's placeholder saved): earlier turns are missing from its context."},
  'compaction-wipe': {severity: 'warning', description: 'The history was compacted into an empty summary (Codebuff #1166): the agent remembers nothing of the turns before it.'},
  'salvage-available': {severity: 'info', description: 'A torn generation still holds complete messages that a salvage would keep byte-identical (`repair --salvage`).'},
  'meta-stale': {severity: 'info', description: 'The chat-meta.json sidecar no longer matches the transcript size/mtime; the agent recomputes it.'},
  // `scan --quick`.
  'unverified': {severity: 'warning', description: '`scan --quick` read only the ends of the file the chat\'s status rests on (it is larger than the quick windows): they look whole, the middle was not checked (exit bit 8 unless --trust-ends).'},
  // Session logs (JSONL: Claude Code, Codex).
  'session-truncated': {severity: 'error', description: "The session log's final line is a torn record (a crash mid-append); the agent loses it or shows a blank chat."},
  'session-corrupt': {severity: 'error', description: 'Lines of the session log are damaged (NUL runs, interleaved, torn or split records, bad encoding); the agent skips them or stops there.'},
  'missing-header': {severity: 'error', description: "The session log does not start with the agent's header record (Codex: session_meta); the agent refuses or hides the session."},
  'dangling-parent': {severity: 'warning', description: 'A record links to a parent record that is not in the file (normal for a side-chain, whose parents live in the parent session).'},
  'open-tool-call': {severity: 'info', description: 'A tool call has no result in the file (normal at the very end of a session).'},
  'loader-refuses': {severity: 'error', description: "The agent's loader refuses the session as it is (e.g. Codex: a BOM before the header, bad UTF-8 anywhere, the last paginated record without its ordinal)."},
  'compressed-damaged': {severity: 'warning', description: 'A compressed generation (Codex .jsonl.zst) cannot be decoded or its log is damaged.'},
  'session-live': {severity: 'warning', description: 'The session file changed while it was read: the agent is probably writing it. Repair leaves it alone.'},
  // Bundles and `check`.
  'archive-entry-escapes': {severity: 'error', description: 'An archive entry names a path outside the archive (../, an absolute path, a link pointing outside); refused, never read.'},
  'archive-too-large': {severity: 'error', description: 'An archive exceeds the entry or uncompressed-size cap (--max-entries, --max-bytes); nothing in it was diagnosed.'},
  'archive-unreadable': {severity: 'error', description: 'A bundle is not a readable .tar, .tar.gz/.tgz or .zip archive.'},
  'archive-member-hidden': {severity: 'error', description: 'An archive entry lies under a refused link, under a symbolic link of the archive, or under a file: extracting would not put it there, so it is not read.'},
  'archive-duplicate-member': {severity: 'error', description: 'An archive holds the same entry name more than once; only the last copy (the one extraction leaves) is read.'},
  'manifest-invalid': {severity: 'error', description: "A bundle's chatdoctor-bundle.json is not valid JSON or lacks the bundle layout; the bundle is checked without it."},
  'manifest-missing-file': {severity: 'error', description: "A file or chat listed in the bundle's manifest is not in the bundle."},
  'manifest-extra-file': {severity: 'error', description: "A file in the bundle is not listed in its manifest."},
  'manifest-mismatch': {severity: 'error', description: "A file in the bundle differs from its manifest entry (size or sha256)."},
  // `check` with nothing to check (a CI job pointed at the wrong folder must not pass).
  'nothing-to-check': {severity: 'error', description: '`check` found no chat, session, export or bundle under its PATHs (exit bit 8).'},
} as const satisfies Record<string, Omit<FindingKind, 'id'>>

export type FindingId = keyof typeof FINDING_KINDS

/** All finding kinds, in a stable order, for rule lists (SARIF, README). */
export function findingKinds(): FindingKind[] {
  return Object.entries(FINDING_KINDS).map(([id, k]) => ({id, severity: k.severity, description: k.description}))
}

/** Makes a finding with the kind's default severity unless one is given. */
export function finding(id: FindingId, file: string | null, message: string, severity?: Severity): Finding {
  return {id, severity: severity ?? FINDING_KINDS[id].severity, file, message}
}

const ORDER: Record<Severity, number> = {error: 0, warning: 1, info: 2}

/** The worst severity among findings, or null when there are none. */
export function worstSeverity(findings: Finding[]): Severity | null {
  let worst: Severity | null = null
  for (const f of findings) if (worst === null || ORDER[f.severity] < ORDER[worst]) worst = f.severity
  return worst
}

/** True when `severity` is at least as bad as `level` (error > warning > info). */
export function reaches(severity: Severity, level: Severity): boolean {
  return ORDER[severity] <= ORDER[level]
}
