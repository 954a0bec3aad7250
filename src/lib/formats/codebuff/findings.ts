/**
 * Codebuff's finding kinds: the state file's sidecar, transcript and forensics findings.
 */
import {CORE_FINDING_KINDS, findingMaker, type FindingKindSpec} from '../../model/findings.js'

/** The finding kinds only this format reports (joined into the closed list by the registry). */
export const CODEBUFF_FINDING_KINDS = {
  'primary-contextless': {severity: 'error', description: "The primary parses but holds no agent context (e.g. the loader's \"Previous run state could not be restored.\" stand-in)."},
  'fresh-chat': {severity: 'info', description: "The primary is the SDK's stand-in written before a new chat's first answer; normal while the chat has no agent turn."},
  'transcript-missing': {severity: 'warning', description: 'The transcript is absent, so turns cannot be counted against it.'},
  'transcript-temp-leftover': {severity: 'info', description: 'A temp file of the transcript left by an interrupted write.'},
  'meta-damaged': {severity: 'info', description: 'The chat-meta.json sidecar is unusable; the agent recomputes it.'},
  'transcript-capped': {severity: 'info', description: 'The context holds prompts older than the transcript, which keeps only its last 100 messages. Not damage.'},
  'prompts-without-transcript': {severity: 'warning', description: 'The winning generation holds prompts that match no transcript turn (the transcript lost them).'},
  'context-behind-transcript': {severity: 'info', description: "The transcript has turns after the last one in the agent's memory."},
  'chat-id-nonstandard': {severity: 'info', description: "The chat dir's name does not follow the agent's id pattern."},
  'compaction-wipe': {severity: 'warning', urgent: true, description: 'The history was compacted into an empty or near-empty summary (Codebuff #1166): the agent no longer has the turns it replaced (an error, status degraded, when the primary lost transcript turns so).'},
  'salvage-available': {severity: 'info', description: 'A torn generation still holds complete messages that a salvage would keep byte-identical; a lossless one (nothing written is lost) is ranked under plain `repair` as `salvage:<file>`.'},
  'salvage-more-turns': {severity: 'warning', urgent: true, description: 'A salvage reaches more turns than every intact generation, but only with members borrowed from other generations: plain `repair` does not use it, `repair --salvage` does.'},
  'lone-surrogate': {severity: 'warning', description: 'A state file parses but a string holds a \\uD800–\\uDFFF escape without its other half: strict readers and the model API reject it ("no low surrogate in string"); the file is kept as it is.'},
  'meta-stale': {severity: 'info', description: 'The chat-meta.json sidecar no longer matches the transcript size/mtime; the agent recomputes it.'},
} as const satisfies Record<string, FindingKindSpec>

/** Makes a finding of a core kind or of this format's. */
export const finding = findingMaker({...CORE_FINDING_KINDS, ...CODEBUFF_FINDING_KINDS})
