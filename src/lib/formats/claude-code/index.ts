/**
 * The Claude Code adapter: one chat per session log, `~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl`
 * (or under `$CLAUDE_CONFIG_DIR`), side-chains in `<sessionId>/subagents/agent-<id>.jsonl`. Any other
 * `*.jsonl` file not taken by the Codex adapter is offered here too and told apart by content
 * (`jsonl-session.ts`), so a session copied anywhere is still found. Source: peer-formats.md §2.1.
 */
import path from 'node:path'
import type {FormatAdapter} from '../../model/adapter.js'
import {diagnoseSession, isSessionName, sessionChatsIn} from '../jsonl/session.js'
import {isCodexName} from '../codex/index.js'
import {planSessionRepair} from '../jsonl/plan.js'

/** `$CLAUDE_CONFIG_DIR/projects`, else `<home>/.claude/projects` (peer-formats §2.1). */
export function claudeRoots(home: string, env: NodeJS.ProcessEnv): string[] {
  const base = env.CLAUDE_CONFIG_DIR ? path.resolve(env.CLAUDE_CONFIG_DIR) : path.join(home, '.claude')
  return [path.join(base, 'projects')]
}

/** The Claude Code format adapter. */
export const claudeCode: FormatAdapter = {
  name: 'claude-code',
  defaultRoots: claudeRoots,
  chatsIn: (dir, names) => {
    const zstPlains = new Set(names.filter((n) => n.endsWith('.jsonl.zst')).map((n) => n.slice(0, -4)))
    return sessionChatsIn(dir, names, (name) => !isCodexName(dir, name) && !zstPlains.has(name))
  },
  wantsContent: isSessionName,
  diagnose: (snapshot) => diagnoseSession(snapshot, 'claude-code'),
  planRepair: planSessionRepair,
}
