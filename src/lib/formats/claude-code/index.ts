/**
 * The Claude Code adapter: one chat per session log, `~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl`
 * (or under `$CLAUDE_CONFIG_DIR`), side-chains in `<sessionId>/subagents/agent-<id>.jsonl`. Any other
 * `*.jsonl` file no other member of the JSON-lines family claims by name is offered here too and told apart
 * by content (`formats/jsonl/session.ts`), so a session copied anywhere is still found. Source: peer-formats.md §2.1.
 * Its discovery part (light.ts) is listed on its own until a Claude Code chat is found.
 */
import path from 'node:path'
import type {FormatAdapter} from '../../model/adapter.js'
import {claudeRoots} from './roots.js'
import {claudeHook} from './hook.js'
import {captureSession, goneLogChat, redactSession} from '../jsonl/snapshot.js'
import {diagnoseSession, isSessionName, streamsSessionFile} from '../jsonl/session.js'
import {planSessionRepair} from '../jsonl/plan.js'
import {claudeDialect} from './session.js'
import {inspectSession} from '../jsonl/inspect.js'
import {redactSessionFiles} from '../jsonl/redact.js'
import {annotateClaudeSession, configFactsOf, diagnoseClaudeConfig, planClaudeConfig} from './config-chat.js'
import {CONFIG, CONFIG_GENERATION} from './config-store.js'
import {claudeCodeLight} from './light.js'
import {claudeFinder} from './find.js'

export {claudeRoots}

/** The Claude Code format adapter. */
export const claudeCode: FormatAdapter = {
  ...claudeCodeLight,
  wantsContent: (name) => isSessionName(name) || name === CONFIG || CONFIG_GENERATION.test(path.basename(name)),
  streams: streamsSessionFile,
  diagnose: (snapshot) => {
    const f = configFactsOf(snapshot)
    return f ? diagnoseClaudeConfig(snapshot, f) : diagnoseSession(snapshot, claudeDialect)
  },
  planRepair: (chat, opts) => (configFactsOf(chat.snapshot) ? planClaudeConfig(chat) : planSessionRepair(chat, opts)),
  inspect: (chat) => (configFactsOf(chat.snapshot) ? {account: "Claude Code's global config and its backups: what each holds and what a repair restores are in the findings."} : inspectSession(chat)),
  redact: (files, report, r) => (report.id === 'config' && files.some((f) => f.rel.endsWith(CONFIG)) ? {refused: "Claude Code's global config is not redacted (it holds API-key suffixes, ids and paths); bundle the session logs"} : redactSessionFiles(files, report, r)),
  indexes: {...claudeCodeLight.indexes, annotate: annotateClaudeSession},
  find: claudeFinder,
  texts: {parentKey: 'parentUuid'},
  snapshot: {capture: captureSession, redact: redactSession, hook: claudeHook, goneChat: (key, _found, scope) => goneLogChat(key, scope, claudeRoots(scope.home, scope.env))},
}
