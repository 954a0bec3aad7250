/**
 * The Gemini CLI adapter's discovery part (the registry's `LIGHT_MEMBERS`): what a scan reads of every adapter
 * before it knows which agents' chats it found. The rest of the adapter (index.ts) is loaded for a Gemini CLI
 * chat only.
 */
import path from 'node:path'
import type {ChatUnit, FormatAdapter} from '../../model/adapter.js'
import {GEMINI_FINDING_KINDS} from './findings.js'
import {defaultRoots, isChatsDir, isSubagentName, parseName, SESSION_ID} from './layout.js'
import {SESSION_FINDING_KINDS} from '../jsonl/findings.js'

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

/** The members of the Gemini CLI adapter that discovery, the help texts and the finding kinds read. */
export const geminiCliLight = {
  name: 'gemini-cli',
  displayName: 'Gemini CLI',
  vocabulary: ['gemini', '.gemini', 'GEMINI_CLI_HOME', 'projectHash', '$rewindTo', '.project_root', 'projects.json'],
  findingKinds: {...SESSION_FINDING_KINDS, ...GEMINI_FINDING_KINDS},
  defaultRoots,
  discoveryPaths: ['.gemini'],
  chatsIn,
  help: {
    roots: "Gemini CLI's ($GEMINI_CLI_HOME or ~)/.gemini/tmp/*/chats",
    find: 'Gemini CLI: gemini --resume <id> from its project folder',
    repair:
      "Gemini CLI sessions: the session file is rewritten with only the allowed line changes (torn tail dropped, NUL runs and a BOM stripped, interleaved lines split, a final record given its line end, a resumed start left without its full checkpoint dropped), and every other session file of its short id that the CLI's next start would not keep (the orphan of a resume in a later minute, an empty or torn sibling) is moved into the evidence folder, so the CLI's start-up cleanup deletes nothing by short id. Refused while Gemini CLI runs in the chat's project.",
    inspect: "Gemini CLI: every damaged line, the planned byte changes, and what the CLI's own next start would delete.",
    bundle: 'Gemini CLI sessions are redacted line by line; every file of the short id goes in.',
    process: 'gemini',
  },
} satisfies Partial<FormatAdapter>
