/**
 * The Gemini CLI adapter: one chat per session short id in a project's chats folder,
 * `~/.gemini/tmp/<project slug>/chats/session-<date>T<HH-MM>-<id8>.jsonl` (and the older `.json` documents),
 * with the CLI's `.unreadable-<ms>` copies and `.tmp-<pid>` temps of those files; sub-agent sessions
 * `chats/<parent session id>/<session id>.jsonl` are a chat each. Sources: layout.ts, records.ts.
 * Its discovery part (light.ts) is listed on its own until a Gemini CLI chat is found.
 */
import path from 'node:path'
import type {FormatAdapter} from '../../model/adapter.js'
import {diagnoseGemini} from './diagnose.js'
import {inspectGemini} from './account.js'
import {AGENT_PROCESS, parseName} from './layout.js'
import {geminiCliLight} from './light.js'
import {geminiLiveReasons} from './live.js'
import {planGeminiRepair} from './plan.js'
import {redactGeminiFiles} from './redact.js'
import {geminiFinder} from './find.js'
import {geminiHook} from './hook.js'
import {captureGemini, redactGeminiSnapshot} from './snapshot.js'

/**
 * The Gemini CLI format adapter. No `quick`: `scan --quick` judges a file as one JSON document from its ends,
 * which a JSON-lines log is not (a torn tail that a repair drops would read as unrecoverable), so quick mode
 * leaves these sessions to the full scan, as it does Claude Code's and Codex's.
 */
export const geminiCli: FormatAdapter = {
  ...geminiCliLight,
  wantsContent: () => true,
  diagnose: diagnoseGemini,
  agentProcess: AGENT_PROCESS,
  liveReasons: (snapshot) => geminiLiveReasons(snapshot),
  planRepair: planGeminiRepair,
  inspect: (chat) => inspectGemini(chat),
  redact: redactGeminiFiles,
  find: geminiFinder,
  snapshot: {
    // A session is its short id's files: named by the folder and the short id, so a snapshot still finds the chat
    // when the file it was named by is gone and another file of the short id is left.
    chatKey: (unit) => {
      const p = parseName(unit.dir, path.basename(unit.path))
      return p ? `${unit.dir}#${p.shortId}` : unit.path
    },
    capture: captureGemini,
    redact: redactGeminiSnapshot,
    hook: geminiHook,
  },
}
