/**
 * The Gemini CLI adapter: one chat per session short id in a project's chats folder,
 * `~/.gemini/tmp/<project slug>/chats/session-<date>T<HH-MM>-<id8>.jsonl` (and the older `.json` documents),
 * with the CLI's `.unreadable-<ms>` copies and `.tmp-<pid>` temps of those files; sub-agent sessions
 * `chats/<parent session id>/<session id>.jsonl` are a chat each. Sources: layout.ts, records.ts.
 */
import path from 'node:path'
import type {ChatUnit, FormatAdapter} from '../adapter.js'
import {diagnoseGemini} from './diagnose.js'
import {AGENT_PROCESS, defaultRoots, isChatsDir, isSubagentName, parseName, SESSION_ID, tempWriterPid} from './layout.js'
import {geminiLiveReasons} from './live.js'
import {planGeminiRepair} from './plan.js'

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
 * The Gemini CLI format adapter. No `roleOf`: `scan --quick` judges a file as one JSON document from its ends,
 * which a JSON-lines log is not (a torn tail that a repair drops would read as unrecoverable), so quick mode
 * leaves these sessions to the full scan, as it does Claude Code's and Codex's.
 */
export const geminiCli: FormatAdapter = {
  name: 'gemini-cli',
  defaultRoots,
  chatsIn,
  wantsContent: () => true,
  diagnose: diagnoseGemini,
  tempWriterPid,
  agentProcess: AGENT_PROCESS,
  planRepair: planGeminiRepair,
  liveReasons: (snapshot) => geminiLiveReasons(snapshot),
}
