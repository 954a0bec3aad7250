/**
 * The Codex CLI adapter: one chat per rollout, `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<threadId>.jsonl`
 * and its compressed sibling `….jsonl.zst` (generations of one session), and flat `archived_sessions/`.
 * Told apart from Claude Code by content (`jsonl-session.ts`). Source: peer-formats.md §3.1.
 */
import path from 'node:path'
import type {FormatAdapter} from '../../model/adapter.js'
import {diagnoseSession, isSessionName, sessionChatsIn} from '../jsonl/session.js'
import {planSessionRepair} from '../jsonl/plan.js'

/** `$CODEX_HOME` (default `<home>/.codex`): `sessions/` and `archived_sessions/` (peer-formats §3.1). */
export function codexRoots(home: string, env: NodeJS.ProcessEnv): string[] {
  const base = env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(home, '.codex')
  return [path.join(base, 'sessions'), path.join(base, 'archived_sessions')]
}

/**
 * Whether a (plain) session name belongs to Codex by name or place: `rollout-*.jsonl`, a compressed
 * `*.jsonl.zst` sibling, or anything inside a `.codex` tree.
 */
export function isCodexName(dir: string, name: string): boolean {
  return /^rollout-.*\.jsonl$/.test(name) || dir.split(path.sep).includes('.codex')
}

/** The Codex format adapter. */
export const codex: FormatAdapter = {
  name: 'codex',
  defaultRoots: codexRoots,
  chatsIn: (dir, names) => {
    const zstPlains = new Set(names.filter((n) => n.endsWith('.jsonl.zst')).map((n) => n.slice(0, -4)))
    return sessionChatsIn(dir, names, (name) => isCodexName(dir, name) || zstPlains.has(name))
  },
  wantsContent: isSessionName,
  diagnose: (snapshot) => diagnoseSession(snapshot, 'codex'),
  planRepair: planSessionRepair,
}
