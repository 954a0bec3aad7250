/**
 * The repair log: one JSON line per repaired chat (and per undo) appended to
 * `$XDG_STATE_HOME/chatdoctor/repairs.jsonl` (default `~/.local/state/chatdoctor/`), so `chatdoctor undo`
 * finds a repair from any working directory. The evidence itself stays in the chat dir; the log points to it.
 */
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {durableAppend} from './durable-write.js'
import type {ActionRecord} from './evidence.js'
import type {FileSystem} from './fs.js'

export const LOG_NAME = 'repairs.jsonl'

/** chatdoctor's state folder: `$XDG_STATE_HOME/chatdoctor`, else `<home>/.local/state/chatdoctor`. */
export function stateDir(home: string, env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_STATE_HOME
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.local', 'state'), 'chatdoctor')
}

/** One line of the log. */
export type LogEntry =
  | {type: 'repair'; repairId: string; time: string; chatdoctorVersion: string; chatDir: string; evidenceDir: string; actions: ActionRecord[]}
  | {type: 'undo'; repairId: string; time: string; chatdoctorVersion: string; chatDir: string; evidenceDir: string | null}

/** Appends one entry durably. */
export async function appendLog(fs: FileSystem, dir: string, entry: LogEntry): Promise<void> {
  await durableAppend(fs, path.join(dir, LOG_NAME), JSON.stringify(entry))
}

/** Every readable entry of the log, oldest first (a torn last line is skipped); empty when there is no log. */
export function readLog(dir: string): LogEntry[] {
  let text: string
  try {
    text = readFileSync(path.join(dir, LOG_NAME), 'utf8')
  } catch {
    return []
  }
  const out: LogEntry[] = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try {
      const v = JSON.parse(line) as LogEntry
      if ((v.type === 'repair' || v.type === 'undo') && typeof v.repairId === 'string') out.push(v)
    } catch {
      // A torn line (a crash while appending): skip it.
    }
  }
  return out
}

/** A past repair as `undo --list` shows it. */
export interface RepairSummary {
  repairId: string
  time: string
  chats: string[]
  undone: boolean
}

/** Repairs in the log, oldest first, with whether each was undone (every chat of it). */
export function listRepairs(entries: LogEntry[]): RepairSummary[] {
  const byId = new Map<string, RepairSummary & {undoneChats: Set<string>}>()
  for (const e of entries) {
    let r = byId.get(e.repairId)
    if (e.type === 'repair') {
      if (!r) byId.set(e.repairId, (r = {repairId: e.repairId, time: e.time, chats: [], undone: false, undoneChats: new Set()}))
      if (!r.chats.includes(e.chatDir)) r.chats.push(e.chatDir)
    } else if (r) r.undoneChats.add(e.chatDir)
  }
  return [...byId.values()].map(({undoneChats, ...r}) => ({...r, undone: r.chats.every((c) => undoneChats.has(c))}))
}
