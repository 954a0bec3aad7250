/**
 * The Gemini CLI adapter: one chat per session short id in a project's chats folder,
 * `~/.gemini/tmp/<project slug>/chats/session-<date>T<HH-MM>-<id8>.jsonl` (and the older `.json` documents),
 * with the CLI's `.unreadable-<ms>` copies and `.tmp-<pid>` temps of those files; sub-agent sessions
 * `chats/<parent session id>/<session id>.jsonl` are a chat each. Sources: layout.ts, records.ts.
 */
import path from 'node:path'
import type {ChatUnit, FormatAdapter} from '../../model/adapter.js'
import {diagnoseGemini} from './diagnose.js'
import {inspectGemini} from './account.js'
import {GEMINI_FINDING_KINDS} from './findings.js'
import {AGENT_PROCESS, defaultRoots, isChatsDir, isSubagentName, parseName, SESSION_ID} from './layout.js'
import {geminiLiveReasons} from './live.js'
import {planGeminiRepair} from './plan.js'
import {redactGeminiFiles} from './redact.js'
import {SESSION_FINDING_KINDS} from '../jsonl/findings.js'
import {geminiFinder} from './find.js'
import {geminiHook} from './hook.js'
import {captureGemini, redactGeminiSnapshot} from './snapshot.js'

/** Groups a folder's Gemini CLI files into chats: by short id, or one per sub-agent session file. */
function chatsIn(dir: string, names: string[]): {chats: ChatUnit[]; descend: boolean} | null {
  const groups = new Map<string, string[]>()
  for (const n of names) {
    if (n.startsWith('.')) continue
    const p = parseName(dir, n)
    const key = p ? `id:${p.shortId}` : isSubagentName(dir, n) ? `file:${n}` : null
    if (key === null) continue
    const g = groups.get(key) ?? []
    g.push(n)
    groups.set(key, g)
  }
  // A sub-agent folder `chats/<parent session id>/` whose parent session file is gone (the CLI deletes both together).
  if (isChatsDir(dir)) {
    for (const n of names) {
      const m = SESSION_ID.exec(n)
      if (m && !groups.has(`id:${m[1]}`)) groups.set(`orphan:${n}`, [n])
    }
  }
  if (groups.size === 0) return null
  const chats: ChatUnit[] = []
  for (const files of groups.values()) {
    files.sort()
    // Named by its earliest session file (the one the conversation started in), a `.jsonl` before its `.json`.
    const sessions = files.filter((f) => parseName(dir, f)?.kind === 'session' || isSubagentName(dir, f))
    const named = [...sessions].sort((a, b) => {
      const x = a.replace(/\.jsonl?$/, '')
      const y = b.replace(/\.jsonl?$/, '')
      return x < y ? -1 : x > y ? 1 : a.endsWith('.jsonl') ? -1 : 1
    })[0] ?? files[0]
    chats.push({dir, path: path.join(dir, named), files})
  }
  chats.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return {chats, descend: true}
}

/**
 * The Gemini CLI format adapter. No `quick`: `scan --quick` judges a file as one JSON document from its ends,
 * which a JSON-lines log is not (a torn tail that a repair drops would read as unrecoverable), so quick mode
 * leaves these sessions to the full scan, as it does Claude Code's and Codex's.
 */
export const geminiCli: FormatAdapter = {
  name: 'gemini-cli',
  displayName: 'Gemini CLI',
  vocabulary: ['gemini', '.gemini', 'GEMINI_CLI_HOME', 'projectHash', '$rewindTo', '.project_root', 'projects.json'],
  findingKinds: {...SESSION_FINDING_KINDS, ...GEMINI_FINDING_KINDS},
  defaultRoots,
  discoveryPaths: ['.gemini'],
  chatsIn,
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
  help: {
    roots: "Gemini CLI's ($GEMINI_CLI_HOME or ~)/.gemini/tmp/*/chats",
    find: 'Gemini CLI: gemini --resume <id> from its project folder',
    repair:
      "Gemini CLI sessions: the session file is rewritten with only the allowed line changes (torn tail dropped, NUL runs and a BOM stripped, interleaved lines split, a final record given its line end, a resumed start left without its full checkpoint dropped), and every other session file of its short id that the CLI's next start would not keep (the orphan of a resume in a later minute, an empty or torn sibling) is moved into the evidence folder, so the CLI's start-up cleanup deletes nothing by short id. Refused while Gemini CLI runs in the chat's project.",
    inspect: "Gemini CLI: every damaged line, the planned byte changes, and what the CLI's own next start would delete.",
    bundle: 'Gemini CLI sessions are redacted line by line; every file of the short id goes in.',
    process: 'gemini',
  },
}
