/**
 * The members of the JSON-lines session family, in the order content detection prefers them on a tie.
 * A new member adds its dialect here, its name claim to `claims.ts` (and its adapter to the registry, `formats/registry.ts`).
 */
import {claudeDialect} from '../claude-code/session.js'
import {codexDialect} from '../codex/session.js'
import {geminiDialect} from '../gemini-cli/dialect.js'
import type {SessionDialect} from './dialect.js'

export const SESSION_DIALECTS: readonly SessionDialect[] = [claudeDialect, codexDialect, geminiDialect]

/** The dialect of a format id; undefined for a format outside the family. */
export function dialectByName(name: string): SessionDialect | undefined {
  return SESSION_DIALECTS.find((d) => d.name === name)
}
