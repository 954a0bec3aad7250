/**
 * Cline CLI's finding kinds: its running hub, its conversation read leniently, its session record, an index
 * entry without files. What its next start destroys (`next-start-loss`) and the index's view of a session
 * (`not-in-index`, `index-unreadable`) are the core's kinds.
 */
import {CORE_FINDING_KINDS, findingMaker, type FindingKindSpec} from '../../model/findings.js'

/** The finding kinds only this format reports (joined into the closed list by the registry). */
export const CLINE_FINDING_KINDS = {
  'agent-running': {severity: 'warning', description: "Cline is running (its hub daemon, a hub lock it holds, a cline process of this data dir): it rewrites the session's files in place at any moment; repair refuses until it stops (`cline hub stop`)."},
  'primary-irregular': {severity: 'warning', description: "The conversation is not strict JSON, but Cline's own reader still loads it (a byte-order mark it strips, or invalid UTF-8 it replaces with U+FFFD and writes back at its next save)."},
  'turns-missing': {severity: 'error', description: "The conversation holds fewer turns than the session's own run count says (a conversation reset or cut short): the missing turns are not in the agent's context, and Cline keeps no older copy."},
  'session-record-damaged': {severity: 'warning', description: "The session record (`<id>.json`: title, usage, checkpoint history) is missing or damaged; Cline writes a new one from scratch at the next start."},
  'compaction-damaged': {severity: 'info', description: 'The compacted view (`<id>.compaction.json`) is damaged; Cline ignores it (the conversation file holds the whole history).'},
  'index-entry-without-files': {severity: 'error', description: 'The session index lists a session whose folder is gone; `cline --id` starts a new, empty session under that id.'},
} as const satisfies Record<string, FindingKindSpec>

/** Makes a finding of a core kind or of this format's. */
export const finding = findingMaker({...CORE_FINDING_KINDS, ...CLINE_FINDING_KINDS})
