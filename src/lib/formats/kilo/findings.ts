/**
 * Kilo's finding kinds: the OpenCode store family's, and what only Kilo's store reports. What Kilo's next start
 * destroys is the core's `next-start-loss` (urgent: shown in the default output).
 */
import {CORE_FINDING_KINDS, findingMaker, type FindingKindSpec} from '../../model/findings.js'
import {STORE_FINDING_KINDS} from '../opencode-family/findings.js'

/** The finding kinds only Kilo reports. */
export const OWN_FINDING_KINDS = {
  'database-missing': {severity: 'error', description: "The agent's database is gone from its data dir (deleted): its sessions are lost to the agent; only what lies beside it (a left-over WAL, per-session file diffs) remains."},
  'wal-missing': {severity: 'info', description: "No write-ahead log beside a database the agent keeps one for (Kilo leaves its -wal after every run): SQLite removed it at a clean close, or it was deleted, and with it any commit not yet in the database."},
} as const satisfies Record<string, FindingKindSpec>

/** The finding kinds this format reports beyond the core's (joined into the closed list by the registry). */
export const KILO_FINDING_KINDS = {...STORE_FINDING_KINDS, ...OWN_FINDING_KINDS}

/** Makes a finding of a core kind or of this format's. */
export const finding = findingMaker({...CORE_FINDING_KINDS, ...KILO_FINDING_KINDS})
