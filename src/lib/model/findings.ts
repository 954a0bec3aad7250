/**
 * Finding kinds: the closed list of finding ids. CI formats (SARIF rule ids, JUnit, GitHub annotations) use these
 * ids, so they are a contract: add new ones, never rename. The core's kinds are here; each adapter adds its
 * own (`FormatAdapter.findingKinds`), and the registry (`formats/registry.ts`) joins them into the whole list,
 * from which the finding table of the docs is generated (`test/contract.test.ts` keeps them in step).
 */
import type {Finding, Severity} from './report.js'

/** A finding kind: its id, its default severity and a one-line description for rule lists. */
export interface FindingKind {
  id: string
  severity: Severity
  description: string
  /**
   * Shown in the default human output too, not only with `--verbose` (a warning or error of the kind): the
   * user must act before the agent starts again.
   */
  urgent?: boolean
}

/** A finding kind as a list declares it, keyed by its id. */
export type FindingKindSpec = Omit<FindingKind, 'id'>

/** The kinds the core itself reports, or that every chat-file format shares. */
export const CORE_FINDING_KINDS = {
  'primary-missing': {severity: 'error', description: 'The primary state file is absent (e.g. a crash between rotating it to .bak and writing the new one).'},
  'primary-damaged': {severity: 'error', description: 'The primary state file is truncated, empty, zero-filled or corrupt: the agent cannot load it.'},
  'primary-behind': {severity: 'error', description: 'The primary is usable but another generation covers more transcript turns.'},
  'primary-contextless': {severity: 'error', description: "The primary parses but holds no agent context (e.g. the loader's \"Previous run state could not be restored.\" stand-in, or an empty message list while the transcript shows turns)."},
  'context-lost': {severity: 'error', description: 'No usable generation of the agent context exists: the agent context of this chat is lost.'},
  'backup-damaged': {severity: 'warning', description: 'The rotated backup generation is not usable.'},
  'temp-leftover': {severity: 'info', description: 'A complete temp file left by a process that died between write and rename.'},
  'temp-damaged': {severity: 'warning', description: 'A torn or unusable temp file left by an interrupted write.'},
  'transcript-damaged': {severity: 'error', description: 'The transcript the user sees is torn or corrupt; the agent would load it as empty.'},
  'transcript-missing': {severity: 'warning', description: 'The transcript is absent, so turns cannot be counted against it.'},
  'transcript-temp-leftover': {severity: 'info', description: 'A temp file of the transcript left by an interrupted write.'},
  'meta-damaged': {severity: 'info', description: "A sidecar of the chat (a summary or metadata file beside it) is unusable; the agent recomputes it, or cannot list the chat from it (the message says which)."},
  'prompts-without-transcript': {severity: 'warning', description: 'The winning generation holds prompts that match no transcript turn (the transcript lost them).'},
  'context-behind-transcript': {severity: 'info', description: "The transcript has turns after the last one in the agent's memory."},
  'salvage-more-turns': {severity: 'warning', urgent: true, description: 'A salvage of a torn file reaches more turns than every intact generation, but it is lossy (it drops a torn message, or borrows members the tear cut off from other generations): the status follows the intact generations and plain `repair` does not use it; `repair --salvage` does, and every human output gives that command.'},
  'salvage-available': {severity: 'info', description: 'A torn generation still holds complete messages that a salvage would keep byte-identical; a lossless one (nothing written is lost) is ranked under plain `repair` as `salvage:<file>`.'},
  'unknown-file': {severity: 'info', description: 'A file the format does not know; listed, never touched.'},
  'unreadable': {severity: 'error', description: 'A file could not be read (permission or I/O error).'},
  'not-a-regular-file': {severity: 'error', description: "A state file of the chat is a symbolic link, FIFO, socket or device: chatdoctor never reads or writes through it. An error when a repair would replace it (`repair` leaves the chat for a manual step, outcome `manual`, exit bit 2, even with `--force`, until it is moved away by hand), a warning for a primary that is not replaced (what it points to was not checked)."},
  'context-amnesia': {severity: 'error', urgent: true, description: "The agent's memory was replaced by a new session (traceSessionId break, prompts starting after turn 1 with no summary, or the loader's placeholder saved): earlier turns are missing from its context."},
  'chat-id-nonstandard': {severity: 'info', description: "The chat dir's name does not follow the agent's id pattern."},
  'lone-surrogate': {severity: 'warning', description: 'A state file, a session log\'s record or a store\'s record (a tree file, a database row) parses but a string holds a \\uD800–\\uDFFF escape without its other half: JSON.parse and the agents accept it, strict readers and the model API reject it ("no low surrogate in string"); it is kept as it is.'},
  // What the agent itself will do to the chat, and its index of chats.
  'next-start-loss': {severity: 'error', urgent: true, description: "The agent's own next start, or its opening of this chat, will destroy part of it (e.g. it deletes a session file it cannot read, or saves an empty transcript over a damaged one). Repair the chat, or bundle it, before the agent starts again."},
  'not-in-index': {severity: 'warning', description: "The chat is on disk but the agent's index of its chats does not list it, so the agent's history may not show it."},
  'index-unreadable': {severity: 'warning', description: "The agent's index of its chats cannot be read (torn, empty, not the index's shape, or unreadable), so whether it lists the chat is unknown; what the agent does with it next is in the message."},
  'index-damaged': {severity: 'error', description: "An index, registry or config file the agent needs to start, list or resume its chats is torn, corrupt or not a database (its session files may be intact); the message says what the agent does with it and what a repair restores."},
  'index-entry-missing': {severity: 'warning', description: "The agent's index lists a session whose file is not where the entry says (gone, or moved: the message says where it is now), so the agent fails to open it."},
  'index-stale': {severity: 'warning', description: "An entry of the agent's index disagrees with the session file it describes (size, line count, byte offsets, title or time), so the agent reads the session wrongly or lists it wrongly."},
  'archive-entry-escapes': {severity: 'error', description: 'An archive entry names a path outside the archive (../, an absolute path, a link pointing outside); refused, never read.'},
  'archive-too-large': {severity: 'error', description: 'An archive exceeds the entry, uncompressed-size or entry-size cap (--max-entries, --max-bytes, --max-member-bytes); nothing in it was diagnosed.'},
  'archive-unreadable': {severity: 'error', description: 'A bundle is not a readable .tar, .tar.gz/.tgz or .zip archive.'},
  'archive-member-hidden': {severity: 'error', description: 'An archive entry lies under a refused link, under a symbolic link of the archive, or under a file: extracting would not put it there, so it is not read.'},
  'archive-duplicate-member': {severity: 'error', description: 'An archive holds the same entry name more than once; only the last copy (the one extraction leaves) is read.'},
  'manifest-invalid': {severity: 'error', description: "A bundle's chatdoctor-bundle.json is not valid JSON or lacks the bundle layout; the bundle is checked without it."},
  'manifest-missing-file': {severity: 'error', description: "A file or chat listed in the bundle's manifest is not in the bundle."},
  'manifest-extra-file': {severity: 'error', description: "A file in the bundle is not listed in its manifest."},
  'manifest-mismatch': {severity: 'error', description: "A file in the bundle differs from its manifest entry (size or sha256)."},
  'nothing-to-check': {severity: 'error', description: '`check` found no chat, session, export or bundle under its PATHs (exit bit 8).'},
  'chatdoctor-leftover': {severity: 'info', description: "chatdoctor's own leftover of a killed repair or undo (its `.chatdoctor-<id>-<file>.tmp` temp, or an evidence folder without a manifest or of nothing replaced), with its size; `repair` removes it."},
  'snapshot-restores': {severity: 'error', description: "A snapshot chatdoctor stored while the chat was healthy holds more of it than what a repair of the files on disk keeps: `repair` restores the snapshot's exact bytes."},
  'redacted-snapshot-unused': {severity: 'warning', description: "The chat lost context, and chatdoctor holds only a redacted snapshot of it (`snapshot --redact`: tool inputs and outputs removed), which scan and repair rank only with `--redacted-snapshots`; the full context stays lost."},
  'repair-interrupted': {severity: 'info', description: "A chatdoctor repair of the chat was killed before it put the folder's mtime back; `repair` puts back the mtime it recorded before its first write."},
  'unverified': {severity: 'warning', description: "`scan --quick` read only the ends of the file the chat's status rests on (it is larger than the quick windows): they look whole, the middle was not checked (exit bit 8 unless --trust-ends)."},
} as const satisfies Record<string, FindingKindSpec>

/**
 * A `finding` maker over a list of kinds: makes a finding with the kind's default severity unless one is
 * given; the id must be one of the list's (checked by the type system).
 */
export function findingMaker<const K extends Readonly<Record<string, FindingKindSpec>>>(kinds: K) {
  return (id: keyof K & string, file: string | null, message: string, severity?: Severity): Finding => ({id, severity: severity ?? kinds[id].severity, file, message})
}

/** Makes a finding of a core kind. */
export const finding = findingMaker(CORE_FINDING_KINDS)

/**
 * The finding id of a lossy salvage that reaches more turns than every usable generation (`salvageMoreTurns`
 * of `salvage/`): human output gives the exact `repair --salvage` command beside it.
 */
export const SALVAGE_MORE_TURNS = 'salvage-more-turns'

/** All kinds of some lists, in their order, each id once (the first list that declares it wins). */
export function joinFindingKinds(lists: ReadonlyArray<Readonly<Record<string, FindingKindSpec>>>): FindingKind[] {
  const seen = new Map<string, FindingKind>()
  for (const list of lists) for (const [id, k] of Object.entries(list)) if (!seen.has(id)) seen.set(id, {id, severity: k.severity, description: k.description, ...(k.urgent ? {urgent: true} : {})})
  return [...seen.values()]
}

/** True for a finding the default human output shows: a warning or error of an `urgent` kind among `kinds`. */
export function isUrgent(f: Finding, kinds: readonly FindingKind[]): boolean {
  return f.severity !== 'info' && kinds.some((k) => k.id === f.id && k.urgent === true)
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
