/**
 * The Codex CLI adapter: one chat per rollout, `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<threadId>.jsonl`
 * and its compressed sibling `….jsonl.zst` (generations of one session), and flat `archived_sessions/`.
 * Told apart from Claude Code by content (`formats/jsonl/session.ts`). Source: peer-formats.md §3.1.
 */
import type {FormatAdapter} from '../../model/adapter.js'
import {codexRoots} from './roots.js'
import {codexHook} from './hook.js'
import {captureSession, goneLogChat, redactSession} from '../jsonl/snapshot.js'
import {diagnoseSession, isSessionName, sessionChatsIn, streamsSessionFile} from '../jsonl/session.js'
import {planSessionRepair} from '../jsonl/plan.js'
import {codexDialect} from './session.js'
import {inspectSession} from '../jsonl/inspect.js'
import {redactSessionFiles} from '../jsonl/redact.js'
import {CODEX_FINDING_KINDS} from './findings.js'
import {SESSION_FINDING_KINDS} from '../jsonl/findings.js'
import {annotateCodexSession, diagnoseCodexIndex, followCodexIndex, indexFactsOf, planCodexIndex} from './index-chat.js'
import {codexStoresOf, readCodexIndex} from './index-store.js'
import {codexFinder} from './find.js'

export {isCodexName} from './session.js'

export {codexRoots}

/** The Codex format adapter. */
export const codex: FormatAdapter = {
  name: 'codex',
  findingKinds: {...SESSION_FINDING_KINDS, ...CODEX_FINDING_KINDS},
  vocabulary: ['codex', 'rollout-', 'session_meta', 'turn_context', 'response_item', 'CODEX_HOME', '.codex', '.jsonl.zst', 'state_5', 'thread_history', 'rollout_path', 'backfill_state'],
  displayName: 'Codex',
  defaultRoots: codexRoots,
  chatsIn: (dir, names) => sessionChatsIn(dir, names, codexDialect),
  wantsContent: isSessionName,
  streams: streamsSessionFile,
  diagnose: (snapshot) => {
    const f = indexFactsOf(snapshot)
    return f ? diagnoseCodexIndex(snapshot, f) : diagnoseSession(snapshot, codexDialect)
  },
  planRepair: (chat, opts) => (indexFactsOf(chat.snapshot) ? planCodexIndex(chat) : planSessionRepair(chat, opts)),
  inspect: (chat) => (indexFactsOf(chat.snapshot) ? {account: "Codex's index of its threads: its databases and what they say of the rollouts are in the findings."} : inspectSession(chat)),
  redact: (files, report, r) => (report.id === 'index' && files.some((f) => /\.sqlite/.test(f.rel)) ? {refused: "Codex's index databases are not redacted (they hold prompts and paths); bundle the rollouts"} : redactSessionFiles(files, report, r)),
  indexes: {
    storesOf: (chats, roots) => codexStoresOf(chats, roots),
    read: (dir) => readCodexIndex(dir),
    annotate: annotateCodexSession,
    followUp: followCodexIndex,
  },
  find: codexFinder,
  discoveryPaths: ['.codex'],
  snapshot: {capture: captureSession, redact: redactSession, hook: codexHook, goneChat: (key, _found, scope) => goneLogChat(key, scope, codexRoots(scope.home, scope.env))},
  help: {
    roots: "Codex's ($CODEX_HOME or ~/.codex)/sessions and archived_sessions",
    find: 'Codex: codex resume <id> (its picker never lists exec threads)',
    repair: 'A Codex .jsonl.zst winner is written, decoded, as the plain .jsonl Codex reads.',
  },
}
