/** Where Claude Code keeps its state. Source: peer-formats.md §2.1. */
import path from 'node:path'
import type {ChatUnit} from '../../model/adapter.js'
import type {NameClaim} from '../jsonl/dialect.js'

/** `$CLAUDE_CONFIG_DIR/projects`, else `<home>/.claude/projects`. */
export function claudeRoots(home: string, env: NodeJS.ProcessEnv): string[] {
  const base = env.CLAUDE_CONFIG_DIR ? path.resolve(env.CLAUDE_CONFIG_DIR) : path.join(home, '.claude')
  return [path.join(base, 'projects')]
}

/** Claude Code in the family's names: it claims no name, and takes the session files no other member claims. */
export const CLAUDE_NAMES: NameClaim = {name: 'claude-code'}

/** `$CLAUDE_CONFIG_DIR`, else `<home>/.claude`, from a path below its `projects/`. */
export function claudeBaseOf(p: string): string | null {
  const parts = p.split(path.sep)
  const i = parts.lastIndexOf('projects')
  return i > 0 ? parts.slice(0, i).join(path.sep) || path.sep : null
}

/** The folder holding the config for a base (`~/.claude` → `~`; a `$CLAUDE_CONFIG_DIR` holds its own). */
export function configDirOf(base: string, home: string, env: NodeJS.ProcessEnv): string {
  if (env.CLAUDE_CONFIG_DIR && path.resolve(env.CLAUDE_CONFIG_DIR) === base) return base
  return path.basename(base) === '.claude' ? path.dirname(base) : base === path.join(home, '.claude') ? home : base
}

/** The folders that may hold Claude Code's config for the logs found and the roots searched. Pure. */
export function claudeStoresOf(chats: readonly ChatUnit[], roots: readonly string[], home: string, env: NodeJS.ProcessEnv): string[] {
  const out = new Set<string>()
  for (const c of chats) {
    const b = claudeBaseOf(c.path)
    if (b) out.add(configDirOf(b, home, env))
  }
  for (const r of roots) {
    const b = claudeBaseOf(r) ?? (path.basename(r) === '.claude' ? r : null)
    if (b) out.add(configDirOf(b, home, env))
  }
  return [...out]
}
