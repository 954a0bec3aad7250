/**
 * OpenCode's finding kinds: its JSON tree's, then the store family's (sessions in a database, export files).
 */
import {CORE_FINDING_KINDS, findingMaker, type FindingKindSpec} from '../../model/findings.js'
import {STORE_FINDING_KINDS} from '../opencode-family/findings.js'

/** The finding kinds only the JSON tree reports. */
export const TREE_FINDING_KINDS = {
  'message-damaged': {severity: 'error', description: "A message file is truncated, empty, zero-filled or corrupt: the agent cannot open the session, and the message's parts are lost with it."},
  'part-damaged': {severity: 'error', description: 'A part file (text, tool call, step) is truncated, empty, zero-filled or corrupt: the agent cannot open the session.'},
  'not-in-database': {severity: 'error', description: 'A session exists only in the legacy JSON tree beside the database: OpenCode 1.16 and later no longer read it.'},
} as const satisfies Record<string, FindingKindSpec>

/** The finding kinds this format reports beyond the core's (joined into the closed list by the registry). */
export const OPENCODE_FINDING_KINDS = {...TREE_FINDING_KINDS, ...STORE_FINDING_KINDS}

/** Makes a finding of a core kind or of this format's. */
export const finding = findingMaker({...CORE_FINDING_KINDS, ...OPENCODE_FINDING_KINDS})
