/**
 * Codex's finding kinds, beside the JSON-lines family's.
 */
import {CORE_FINDING_KINDS, findingMaker, type FindingKindSpec} from '../../model/findings.js'
import {SESSION_FINDING_KINDS} from '../jsonl/findings.js'

/** The finding kinds only this format reports (joined into the closed list by the registry). */
export const CODEX_FINDING_KINDS = {
  'loader-refuses': {severity: 'error', description: "The agent's loader refuses the session as it is (e.g. Codex: a BOM before the header, bad UTF-8 anywhere, the last paginated record without its ordinal)."},
  'index-holds-state': {severity: 'info', description: "Codex's state database holds what it does not rebuild from the rollouts (thread names, pins, sections, projects, …): a repair changes its rows and never moves it aside."},
} as const satisfies Record<string, FindingKindSpec>

/** Makes a finding of a core kind or of this format's. */
export const finding = findingMaker({...CORE_FINDING_KINDS, ...SESSION_FINDING_KINDS, ...CODEX_FINDING_KINDS})
