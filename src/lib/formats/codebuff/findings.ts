/**
 * Codebuff's own finding kinds: the SDK's fresh-chat stand-in, the transcript cap, compaction and the sidecar's staleness.
 */
import {CORE_FINDING_KINDS, findingMaker, type FindingKindSpec} from '../../model/findings.js'

/** The finding kinds only this format reports (joined into the closed list by the registry). */
export const CODEBUFF_FINDING_KINDS = {
  'fresh-chat': {severity: 'info', description: "The primary is the SDK's stand-in written before a new chat's first answer; normal while the chat has no agent turn."},
  'transcript-capped': {severity: 'info', description: 'The context holds prompts older than the transcript, which keeps only its last 100 messages. Not damage.'},
  'compaction-wipe': {severity: 'warning', urgent: true, description: 'The history was compacted into an empty or near-empty summary (Codebuff #1166): the agent no longer has the turns it replaced (an error, status degraded, when the primary lost transcript turns so).'},
  'meta-stale': {severity: 'info', description: 'The chat-meta.json sidecar no longer matches the transcript size/mtime; the agent recomputes it.'},
} as const satisfies Record<string, FindingKindSpec>

/** Makes a finding of a core kind or of this format's. */
export const finding = findingMaker({...CORE_FINDING_KINDS, ...CODEBUFF_FINDING_KINDS})
