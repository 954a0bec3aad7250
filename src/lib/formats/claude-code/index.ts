/**
 * The Claude Code adapter: one chat per session log, `~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl`
 * (or under `$CLAUDE_CONFIG_DIR`), side-chains in `<sessionId>/subagents/agent-<id>.jsonl`. Any other
 * `*.jsonl` file no other member of the JSON-lines family claims by name is offered here too and told apart
 * by content (`formats/jsonl/session.ts`), so a session copied anywhere is still found. Source: peer-formats.md §2.1.
 */
import path from 'node:path'
import type {FormatAdapter} from '../../model/adapter.js'
import {claudeRoots} from './roots.js'
import {claudeHook} from './hook.js'
import {captureSession, goneLogChat, redactSession} from '../jsonl/snapshot.js'
import {diagnoseSession, isSessionName, sessionChatsIn, streamsSessionFile} from '../jsonl/session.js'
import {planSessionRepair} from '../jsonl/plan.js'
import {claudeDialect} from './session.js'
import {inspectSession} from '../jsonl/inspect.js'
import {redactSessionFiles} from '../jsonl/redact.js'
import {CLAUDE_FINDING_KINDS} from './findings.js'
import {SESSION_FINDING_KINDS} from '../jsonl/findings.js'
import {annotateClaudeSession, configFactsOf, diagnoseClaudeConfig, planClaudeConfig} from './config-chat.js'
import {CONFIG, CONFIG_GENERATION, claudeStoresOf, readClaudeConfig} from './config-store.js'
import {claudeFinder} from './find.js'

export {claudeRoots}

/** The Claude Code format adapter. */
export const claudeCode: FormatAdapter = {
  name: 'claude-code',
  findingKinds: {...SESSION_FINDING_KINDS, ...CLAUDE_FINDING_KINDS},
  vocabulary: ['claude', 'parentUuid', 'isSidechain', 'compact_boundary', 'CLAUDE_CONFIG_DIR', '.claude', '.claude.json', 'sessions-index.json', 'numStartups', 'mcpServers'],
  displayName: 'Claude Code',
  defaultRoots: claudeRoots,
  chatsIn: (dir, names) => sessionChatsIn(dir, names, claudeDialect),
  wantsContent: (name) => isSessionName(name) || name === CONFIG || CONFIG_GENERATION.test(path.basename(name)),
  streams: streamsSessionFile,
  diagnose: (snapshot) => {
    const f = configFactsOf(snapshot)
    return f ? diagnoseClaudeConfig(snapshot, f) : diagnoseSession(snapshot, claudeDialect)
  },
  planRepair: (chat, opts) => (configFactsOf(chat.snapshot) ? planClaudeConfig(chat) : planSessionRepair(chat, opts)),
  inspect: (chat) => (configFactsOf(chat.snapshot) ? {account: "Claude Code's global config and its backups: what each holds and what a repair restores are in the findings."} : inspectSession(chat)),
  redact: (files, report, r) => (report.id === 'config' && files.some((f) => f.rel.endsWith(CONFIG)) ? {refused: "Claude Code's global config is not redacted (it holds API-key suffixes, ids and paths); bundle the session logs"} : redactSessionFiles(files, report, r)),
  indexes: {
    storesOf: claudeStoresOf,
    read: readClaudeConfig,
    annotate: annotateClaudeSession,
  },
  find: claudeFinder,
  discoveryPaths: ['.claude'],
  texts: {parentKey: 'parentUuid'},
  snapshot: {capture: captureSession, redact: redactSession, hook: claudeHook, goneChat: (key, _found, scope) => goneLogChat(key, scope, claudeRoots(scope.home, scope.env))},
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
