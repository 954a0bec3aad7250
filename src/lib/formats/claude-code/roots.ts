/** Where Claude Code keeps its state. Source: peer-formats.md §2.1. */
import path from 'node:path'
import type {NameClaim} from '../jsonl/dialect.js'

/** `$CLAUDE_CONFIG_DIR/projects`, else `<home>/.claude/projects`. */
export function claudeRoots(home: string, env: NodeJS.ProcessEnv): string[] {
  const base = env.CLAUDE_CONFIG_DIR ? path.resolve(env.CLAUDE_CONFIG_DIR) : path.join(home, '.claude')
  return [path.join(base, 'projects')]
}

/** Claude Code in the family's names: it claims no name, and takes the session files no other member claims. */
export const CLAUDE_NAMES: NameClaim = {name: 'claude-code'}
