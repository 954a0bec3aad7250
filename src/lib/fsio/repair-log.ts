/**
 * The repair log: JSON lines appended to `$XDG_STATE_HOME/chatdoctor/repairs.jsonl` (default
 * `~/.local/state/chatdoctor/`), so `chatdoctor undo` finds a repair from any working directory. The evidence
 * itself stays in the chat dir; the log points to it and binds it: each `repair` entry holds the sha256 of the
 * manifest it was written with, and the log lives outside the chat dir, so a manifest edited in the chat dir is
 * refused by `undo`.
 *
 * Per chat a repair appends `repair` (after its evidence, before it writes any file of the chat: the manifest's
 * sha256 and the chat dir's times to put back) and `repair-end` (which user files it replaced or removed, and
 * how it ended). A `repair` with no `repair-end` is an interrupted repair: the next `repair` of the chat puts
 * back the dir mtime it recorded.
 * `cleanup` records chatdoctor's own leftovers a repair (or an undo) removed. `undo` appends `undo-start` (with
 * the times to put back, before its first write) and `undo` when done; for a repair that never ended, also its
 * `repair-end` (outcome `interrupted`, with the files the undo found it had replaced).
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

/** The shape of a repair id (`newRepairId`): UTC time and 6 hex digits. */
export const REPAIR_ID = /^\d{8}T\d{6}Z-[0-9a-f]{6}$/

/** One line of the log. */
export type LogEntry =
  | {
      type: 'repair'
      repairId: string
      time: string
      chatdoctorVersion: string
      chatDir: string
      evidenceDir: string
      actions: ActionRecord[]
      /** sha256 of the manifest's bytes as written (`undo` refuses a manifest that no longer has it). */
      manifestSha256?: string
      /** The chat dir's times before the repair (what is put back, also after a crash). */
      dirMtimeMs?: number
      dirAtimeMs?: number
    }
  | {
      type: 'repair-end'
      repairId: string
      time: string
      chatDir: string
      evidenceDir: string
      /**
       * How the chat's repair ended; `settled` when a later repair finished an interrupted one; `interrupted`
       * when an undo of a killed repair found what it had replaced (the files it put back; none when the
       * repair was killed before its first rename).
       */
      outcome: 'repaired' | 'refused' | 'failed' | 'settled' | 'interrupted'
      /** The user files (relative names) the repair replaced or removed; null when not known (`settled`). */
      replaced: string[] | null
    }
  | {type: 'cleanup'; repairId: string; time: string; chatdoctorVersion: string; chatDir: string; removed: Array<{path: string; bytes: number}>}
  | {type: 'undo-start'; repairId: string; time: string; chatdoctorVersion: string; chatDir: string; evidenceDir: string; dirMtimeMs: number; dirAtimeMs: number}
  | {type: 'undo'; repairId: string; time: string; chatdoctorVersion: string; chatDir: string; evidenceDir: string | null}

const TYPES = new Set(['repair', 'repair-end', 'cleanup', 'undo-start', 'undo'])

/** Appends one entry durably. */
export async function appendLog(fs: FileSystem, dir: string, entry: LogEntry): Promise<void> {
  await durableAppend(fs, path.join(dir, LOG_NAME), JSON.stringify(entry))
}

/**
 * Every readable entry of the log, oldest first (a torn or foreign line is skipped); empty when there is no log.
 * Entries are checked for their type, repair id and chat dir only: `undo` checks every path before using it.
 */
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
      if (v && TYPES.has(v.type) && typeof v.repairId === 'string' && typeof v.chatDir === 'string') out.push(v)
    } catch {
      // A torn line (a crash while appending): skip it.
    }
  }
  return out
}

/** The `repair-end` entry of one chat of a repair (the last one), or undefined when the repair never ended there. */
export function repairEnd(entries: LogEntry[], repairId: string, chatDir: string, evidenceDir: string): Extract<LogEntry, {type: 'repair-end'}> | undefined {
  let end: Extract<LogEntry, {type: 'repair-end'}> | undefined
  for (const e of entries) if (e.type === 'repair-end' && e.repairId === repairId && e.chatDir === chatDir && e.evidenceDir === evidenceDir) end = e
  return end
}

/** A past repair as `undo --list` shows it. */
export interface RepairSummary {
  repairId: string
  time: string
  chats: string[]
  undone: boolean
}

/** Repairs in the log, oldest first, with whether each was undone (every chat of it); chats it wrote nothing in are left out. */
export function listRepairs(entries: LogEntry[]): RepairSummary[] {
  const byId = new Map<string, RepairSummary & {undoneChats: Set<string>}>()
  const nothing = new Set<string>()
  for (const e of entries) if (e.type === 'repair-end' && e.replaced !== null && e.replaced.length === 0) nothing.add(`${e.repairId}\0${e.evidenceDir}`)
  for (const e of entries) {
    let r = byId.get(e.repairId)
    if (e.type === 'repair') {
      if (nothing.has(`${e.repairId}\0${e.evidenceDir}`)) continue
      if (!r) byId.set(e.repairId, (r = {repairId: e.repairId, time: e.time, chats: [], undone: false, undoneChats: new Set()}))
      if (!r.chats.includes(e.chatDir)) r.chats.push(e.chatDir)
    } else if (e.type === 'undo' && r) r.undoneChats.add(e.chatDir)
  }
  return [...byId.values()].map(({undoneChats, ...r}) => ({...r, undone: r.chats.every((c) => undoneChats.has(c))}))
}
