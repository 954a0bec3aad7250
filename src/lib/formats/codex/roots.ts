/** Where Codex keeps its state. Source: peer-formats.md §3.1. */
import path from 'node:path'
import type {ChatUnit} from '../../model/adapter.js'
import type {NameClaim} from '../jsonl/dialect.js'

/** `$CODEX_HOME` (default `<home>/.codex`). */
export function codexHome(home: string, env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(home, '.codex')
}

/** `$CODEX_HOME/sessions` and `archived_sessions`. */
export function codexRoots(home: string, env: NodeJS.ProcessEnv): string[] {
  const base = codexHome(home, env)
  return [path.join(base, 'sessions'), path.join(base, 'archived_sessions')]
}

/**
 * Whether a (plain) session name belongs to Codex by name or place: `rollout-*.jsonl`, or anything inside a
 * `.codex` tree.
 */
export function isCodexName(dir: string, name: string): boolean {
  return /^rollout-.*\.jsonl$/.test(name) || dir.split(path.sep).includes('.codex')
}

/** Codex in the family's names: rollouts by name or place, and any log with a compressed `.zst` sibling. */
export const CODEX_NAMES: NameClaim = {name: 'codex', claimsName: (dir, name, compressedSibling) => isCodexName(dir, name) || compressedSibling}

/** The folders of rollouts below `$CODEX_HOME`. */
export const ROLLOUT_DIRS = ['sessions', 'archived_sessions'] as const

/** `$CODEX_HOME` of a path below it: the folder above its `sessions/` or `archived_sessions/`. */
export function codexHomeOf(p: string): string | null {
  const parts = p.split(path.sep)
  for (let i = parts.length - 1; i > 0; i--) if ((ROLLOUT_DIRS as readonly string[]).includes(parts[i])) return parts.slice(0, i).join(path.sep) || path.sep
  return null
}

/** The folders that may hold Codex's index for the rollouts found and the roots searched. Pure. */
export function codexStoresOf(chats: readonly ChatUnit[], roots: readonly string[]): string[] {
  const out = new Set<string>()
  for (const c of chats) {
    const h = codexHomeOf(c.path)
    if (h) out.add(h)
  }
  for (const r of roots) {
    const h = codexHomeOf(r)
    if (h) out.add(h)
    else if (path.basename(r) === '.codex') out.add(r)
  }
  return [...out]
}
