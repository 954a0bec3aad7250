/**
 * Claude Code's finding kinds, beside the JSON-lines family's.
 */
import {CORE_FINDING_KINDS, findingMaker, type FindingKindSpec} from '../../model/findings.js'
import {SESSION_FINDING_KINDS} from '../jsonl/findings.js'

/** The finding kinds only this format reports (joined into the closed list by the registry). */
export const CLAUDE_FINDING_KINDS = {
  'dangling-parent': {severity: 'warning', description: 'A record links to a parent record that is not in the file (normal for a side-chain, whose parents live in the parent session).'},
} as const satisfies Record<string, FindingKindSpec>

/** Makes a finding of a core kind or of this format's. */
export const finding = findingMaker({...CORE_FINDING_KINDS, ...SESSION_FINDING_KINDS, ...CLAUDE_FINDING_KINDS})
