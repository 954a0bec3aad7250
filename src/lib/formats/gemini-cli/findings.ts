/**
 * Gemini CLI's finding kinds, beside the core's and the JSON-lines family's. What its next start deletes is the
 * core's `next-start-loss` (urgent: shown in the default output).
 */
import {CORE_FINDING_KINDS, findingMaker, type FindingKindSpec} from '../../model/findings.js'
import {SESSION_FINDING_KINDS} from '../jsonl/findings.js'

/** The finding kinds only this format reports (joined into the closed list by the registry). */
export const GEMINI_FINDING_KINDS = {
  'session-sibling': {severity: 'info', description: 'Another file of the same session sits beside the one the agent loads (Gemini CLI: a resume in a later minute starts a second session file with the same short id).'},
  'quarantined-copy': {severity: 'info', description: "A copy of the session the agent itself set aside when it could not reload it (Gemini CLI `<file>.unreadable-<ms>`); the agent never reads it again."},
} as const satisfies Record<string, FindingKindSpec>

/** Makes a finding of a core kind, of the JSON-lines family's, or of this format's. */
export const finding = findingMaker({...CORE_FINDING_KINDS, ...SESSION_FINDING_KINDS, ...GEMINI_FINDING_KINDS})
