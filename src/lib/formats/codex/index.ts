/**
 * The Codex CLI adapter: one chat per rollout, `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<threadId>.jsonl`
 * and its compressed sibling `….jsonl.zst` (generations of one session), and flat `archived_sessions/`.
 * Told apart from Claude Code by content (`formats/jsonl/session.ts`). Source: peer-formats.md §3.1.
 * Its discovery part (light.ts) is listed on its own until a Codex chat is found.
 */
import type {FormatAdapter} from '../../model/adapter.js'
import {codexRoots} from './roots.js'
import {codexHook} from './hook.js'
import {captureSession, goneLogChat, redactSession} from '../jsonl/snapshot.js'
import {diagnoseSession, isSessionName, streamsSessionFile} from '../jsonl/session.js'
import {planSessionRepair} from '../jsonl/plan.js'
import {codexDialect} from './session.js'
import {inspectSession} from '../jsonl/inspect.js'
import {redactSessionFiles} from '../jsonl/redact.js'
import {annotateCodexSession, diagnoseCodexIndex, followCodexIndex, indexFactsOf, planCodexIndex} from './index-chat.js'
import {codexLight} from './light.js'
import {codexFinder} from './find.js'

export {isCodexName} from './roots.js'

export {codexRoots}

/** The Codex format adapter. */
export const codex: FormatAdapter = {
  ...codexLight,
  wantsContent: isSessionName,
  streams: streamsSessionFile,
  diagnose: (snapshot) => {
    const f = indexFactsOf(snapshot)
    return f ? diagnoseCodexIndex(snapshot, f) : diagnoseSession(snapshot, codexDialect)
  },
  planRepair: (chat, opts) => (indexFactsOf(chat.snapshot) ? planCodexIndex(chat) : planSessionRepair(chat, opts)),
  inspect: (chat) => (indexFactsOf(chat.snapshot) ? {account: "Codex's index of its threads: its databases and what they say of the rollouts are in the findings."} : inspectSession(chat)),
  redact: (files, report, r) => (report.id === 'index' && files.some((f) => /\.sqlite/.test(f.rel)) ? {refused: "Codex's index databases are not redacted (they hold prompts and paths); bundle the rollouts"} : redactSessionFiles(files, report, r)),
  indexes: {...codexLight.indexes, annotate: annotateCodexSession, followUp: followCodexIndex},
  find: codexFinder,
  snapshot: {capture: captureSession, redact: redactSession, hook: codexHook, goneChat: (key, _found, scope) => goneLogChat(key, scope, codexRoots(scope.home, scope.env))},
}
