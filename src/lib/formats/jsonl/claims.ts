/**
 * The members of the JSON-lines session family by their name claims, in the order of their dialects
 * (`dialects.ts`): what discovery reads of the family (`names.ts`) without loading any member's dialect. Each
 * member's dialect carries the same claim (`test/startup.test.ts`). A new member adds its claim here too.
 */
import {CLAUDE_NAMES} from '../claude-code/roots.js'
import {CODEX_NAMES} from '../codex/roots.js'
import {GEMINI_NAMES} from '../gemini-cli/layout.js'
import type {NameClaim} from './dialect.js'

export const SESSION_CLAIMS: readonly NameClaim[] = [CLAUDE_NAMES, CODEX_NAMES, GEMINI_NAMES]
