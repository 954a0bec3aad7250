/**
 * Claude Code's global config `~/.claude.json` (per-project state, MCP servers; not chat state) and the copies it
 * keeps in `~/.claude/backups/` (`.claude.json.backup.<ms>`, `.claude.json.corrupted.<ms>`, bug-log B09, B16,
 * B28; peer-formats.md §5.5). chatdoctor diagnoses Claude Code's session logs, not this file yet: recognised so
 * a scan says it found it, never silently passed over.
 */
import path from 'node:path'
import type {UnsupportedAgent} from '../../model/adapter.js'

const CONFIG = '.claude.json'
const COPY = /^\.claude\.json\.(?:backup|corrupted)\.\d+$/

export const claudeConfig: UnsupportedAgent = {
  name: 'claude-code-config',
  displayName: 'Claude Code',
  vocabulary: ['.claude.json'],
  defaultRoots: (home, env) => [path.join(env.CLAUDE_CONFIG_DIR ? path.resolve(env.CLAUDE_CONFIG_DIR) : home, CONFIG), path.join(env.CLAUDE_CONFIG_DIR ? path.resolve(env.CLAUDE_CONFIG_DIR) : path.join(home, '.claude'), 'backups')],
  recognize(_dir, names) {
    if (names.includes(CONFIG)) return {what: 'config file', claims: [CONFIG]}
    const copies = names.filter((n) => COPY.test(n))
    if (copies.length > 0) return {what: copies.length === 1 ? 'config backup' : 'config backups folder', claims: copies}
    return null
  },
}
