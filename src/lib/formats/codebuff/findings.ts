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
  'compaction-wipe': {severity: 'warning', description: 'The history was compacted into an empty summary (Codebuff #1166): the agent remembers nothing of the turns before it.'},
  'salvage-available': {severity: 'info', description: 'A torn generation still holds complete messages that a salvage would keep byte-identical (`repair --salvage`).'},
  'meta-stale': {severity: 'info', description: 'The chat-meta.json sidecar no longer matches the transcript size/mtime; the agent recomputes it.'},
} as const satisfies Record<string, FindingKindSpec>

/** Makes a finding of a core kind or of this format's. */
export const finding = findingMaker({...CORE_FINDING_KINDS, ...CODEBUFF_FINDING_KINDS})
