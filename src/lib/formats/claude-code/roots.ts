/** Where Claude Code keeps its state. Source: peer-formats.md §2.1. */
import path from 'node:path'

/** `$CLAUDE_CONFIG_DIR/projects`, else `<home>/.claude/projects`. */
export function claudeRoots(home: string, env: NodeJS.ProcessEnv): string[] {
  const base = env.CLAUDE_CONFIG_DIR ? path.resolve(env.CLAUDE_CONFIG_DIR) : path.join(home, '.claude')
  return [path.join(base, 'projects')]
}
