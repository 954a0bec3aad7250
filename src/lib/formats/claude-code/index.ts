/**
 * The Claude Code adapter: one chat per session log, `~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl`
 * (or under `$CLAUDE_CONFIG_DIR`), side-chains in `<sessionId>/subagents/agent-<id>.jsonl`. Any other
 * `*.jsonl` file no other member of the JSON-lines family claims by name is offered here too and told apart
 * by content (`formats/jsonl/session.ts`), so a session copied anywhere is still found. Source: peer-formats.md §2.1.
 */
import type {FormatAdapter} from '../../model/adapter.js'
import {claudeRoots} from './roots.js'
import {claudeHook} from './hook.js'
import {captureSession, redactSession} from '../jsonl/snapshot.js'
import {diagnoseSession, isSessionName, sessionChatsIn} from '../jsonl/session.js'
import {planSessionRepair} from '../jsonl/plan.js'
import {claudeDialect} from './session.js'
import {inspectSession} from '../jsonl/inspect.js'
import {redactSessionFiles} from '../jsonl/redact.js'
import {CLAUDE_FINDING_KINDS} from './findings.js'
import {SESSION_FINDING_KINDS} from '../jsonl/findings.js'
import {claudeFinder} from './find.js'

export {claudeRoots}

/** The Claude Code format adapter. */
export const claudeCode: FormatAdapter = {
  name: 'claude-code',
  findingKinds: {...SESSION_FINDING_KINDS, ...CLAUDE_FINDING_KINDS},
  vocabulary: ['claude', 'parentUuid', 'isSidechain', 'compact_boundary', 'CLAUDE_CONFIG_DIR', '.claude'],
  displayName: 'Claude Code',
  defaultRoots: claudeRoots,
  chatsIn: (dir, names) => sessionChatsIn(dir, names, claudeDialect),
  wantsContent: isSessionName,
  diagnose: (snapshot) => diagnoseSession(snapshot, claudeDialect),
  planRepair: planSessionRepair,
  inspect: inspectSession,
  redact: redactSessionFiles,
  find: claudeFinder,
  discoveryPaths: ['.claude'],
  texts: {parentKey: 'parentUuid'},
  snapshot: {capture: captureSession, redact: redactSession, hook: claudeHook},
  help: {
    roots: "Claude Code's ($CLAUDE_CONFIG_DIR or ~/.claude)/projects",
    find: 'Claude Code: claude --resume <id> from its project folder (its picker never lists print-mode sessions)',
    repair:
      'Claude Code and Codex session logs are rewritten with only the allowed line changes (torn tail dropped, NUL runs and a BOM stripped, interleaved lines split, an unrecoverable line dropped and the parentUuid after it re-linked), each reported; every other line stays byte-identical and the log keeps its mtime. A session that grew while it was read is refused.',
    inspect: 'A Claude Code or Codex session is inspected by its file: every damaged line (line number, byte offset and length, reasons) and the byte changes a repair would make are listed.',
    bundle: "Claude Code and Codex sessions: give the session file (or a folder of them); each session goes in with its sibling generations (Codex's .jsonl.zst). --redact works line by line: every complete record is redacted on its own, damaged lines keep their damage where it is, and the session must diagnose the same.",
    examples: {bundle: ['~/.claude/projects/-home-me-app/0a1b2c3d-1111-2222-3333-444455556666.jsonl -o session.tar.gz']},
  },
}
