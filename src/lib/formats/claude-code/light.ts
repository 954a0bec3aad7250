/**
 * The Claude Code adapter's discovery part (the registry's `LIGHT_MEMBERS`): what a scan reads of every adapter
 * before it knows which agents' chats it found. The rest of the adapter (index.ts), with the JSON-lines
 * family's diagnosis, is loaded for a Claude Code chat only; its config store (config-store.ts) loads when it
 * is read.
 */
import type {FormatAdapter} from '../../model/adapter.js'
import {SESSION_FINDING_KINDS} from '../jsonl/findings.js'
import {sessionChatsIn} from '../jsonl/names.js'
import {CLAUDE_FINDING_KINDS} from './findings.js'
import {CLAUDE_NAMES, claudeRoots, claudeStoresOf} from './roots.js'

/** The members of the Claude Code adapter that discovery, the indexes' stores, the help texts and the finding kinds read. */
export const claudeCodeLight = {
  name: 'claude-code',
  findingKinds: {...SESSION_FINDING_KINDS, ...CLAUDE_FINDING_KINDS},
  vocabulary: ['claude', 'parentUuid', 'isSidechain', 'compact_boundary', 'CLAUDE_CONFIG_DIR', '.claude', '.claude.json', 'sessions-index.json', 'numStartups', 'mcpServers'],
  displayName: 'Claude Code',
  defaultRoots: claudeRoots,
  chatsIn: (dir, names) => sessionChatsIn(dir, names, CLAUDE_NAMES),
  /** Its global config and its backups; `annotate` comes with the whole adapter (index.ts). */
  indexes: {
    storesOf: claudeStoresOf,
    read: async (dir, home, env) => (await import('./config-store.js')).readClaudeConfig(dir, home, env),
  },
  discoveryPaths: ['.claude'],
  help: {
    roots: "Claude Code's ($CLAUDE_CONFIG_DIR or ~/.claude)/projects",
    find: 'Claude Code: claude --resume <id> from its project folder (its picker never lists print-mode sessions)',
    repair:
      'Claude Code and Codex session logs are rewritten with only the allowed line changes (torn tail dropped, NUL runs and a BOM stripped, interleaved lines split, an unrecoverable line dropped and the parentUuid after it re-linked), each reported; every other line stays byte-identical and the log keeps its mtime. A session that grew while it was read is refused.',
    inspect: 'A Claude Code or Codex session is inspected by its file: every damaged line (line number, byte offset and length, reasons) and the byte changes a repair would make are listed.',
    bundle: "Claude Code and Codex sessions: give the session file (or a folder of them); each session goes in with its sibling generations (Codex's .jsonl.zst). --redact works line by line: every complete record is redacted on its own, damaged lines keep their damage where it is, and the session must diagnose the same.",
    examples: {bundle: ['~/.claude/projects/-home-me-app/0a1b2c3d-1111-2222-3333-444455556666.jsonl -o session.tar.gz']},
  },
} satisfies Partial<FormatAdapter>
