/**
 * The names of the JSON-lines session family: which files of a folder are session logs and generations of one,
 * and which member's chats they are (by the members' name claims, `claims.ts`). What every scan's discovery
 * reads of the family, before it knows which agents' chats it found; the rest (classification, diagnosis,
 * repair) is in session.ts and loads with the adapter of a chat found. Pure.
 */
import path from 'node:path'
import type {ChatUnit, FolderChats} from '../../model/adapter.js'
import {SESSION_CLAIMS} from './claims.js'
import type {NameClaim} from './dialect.js'

/** JSONL files the agents keep that are not sessions (prompt history, indexes, Codebuff's logs). */
const NOT_SESSIONS = new Set(['history.jsonl', 'session_index.jsonl', 'log.jsonl', 'trace.jsonl'])

/** Suffixes after `.jsonl` that name a copy of the log someone kept (a backup), or a temp of a rewrite. */
const BACKUP_SUFFIX = /^\.(?:bak|backup|old|orig|prev|save|saved|copy)(?:[.\-_].*)?$|^\.\d+$|^~$/i
const TEMP_SUFFIX = /^\.tmp(?:[.\-_].*)?$/i

/** A session file's name split into the plain log's name and the role the name gives it. */
export interface SessionName {
  /** The plain log's name, `<x>.jsonl`. */
  plain: string
  role: 'primary' | 'compressed' | 'backup' | 'temp'
}

/**
 * What a name is in the family: the plain log `<x>.jsonl` (`primary`), its compressed copy `<x>.jsonl.zst`, a
 * backup or a temp beside it; null for any other name, for dot-files and for the known non-session logs.
 */
export function sessionNameOf(name: string): SessionName | null {
  if (name.startsWith('.')) return null
  const at = name.lastIndexOf('.jsonl')
  if (at <= 0) return null
  const plain = name.slice(0, at + 6)
  if (NOT_SESSIONS.has(plain)) return null
  const rest = name.slice(at + 6)
  if (rest === '') return {plain, role: 'primary'}
  if (rest === '.zst') return {plain, role: 'compressed'}
  if (BACKUP_SUFFIX.test(rest)) return {plain, role: 'backup'}
  if (TEMP_SUFFIX.test(rest)) return {plain, role: 'temp'}
  return null
}

/** True for a name that may be a session log or a generation of one (see `sessionNameOf`). */
export function isSessionName(name: string): boolean {
  return sessionNameOf(name) !== null
}

/**
 * Whether a session file is read by streaming when it is large (`FormatAdapter.streams`): the plain log and the
 * copies beside it; a `.zst` is decoded whole.
 */
export function streamsSessionFile(name: string): boolean {
  const s = sessionNameOf(name)
  return s !== null && s.role !== 'compressed'
}

/** A Codebuff chat dir holds JSONL logs that are not sessions (log.jsonl, trace.jsonl). */
function isCodebuffChatDir(names: string[]): boolean {
  return names.some((n) => n.startsWith('run-state.json') || n.startsWith('chat-messages.json'))
}

/**
 * Groups the session files of a folder into chats: `<x>.jsonl` and `<x>.jsonl.zst` are one chat (named by the
 * plain file when it exists). `me` takes the (plain) names it claims (`claimsName`), or, without a
 * `claimsName`, those no other dialect of the family claims.
 */
export function sessionChatsIn(dir: string, names: string[], me: NameClaim): FolderChats | null {
  if (isCodebuffChatDir(names)) return null
  const zstPlains = new Set(names.filter((n) => n.endsWith('.jsonl.zst')).map((n) => n.slice(0, -4)))
  const claimedBy = (d: NameClaim, name: string) => d.claimsName?.(dir, name, zstPlains.has(name)) ?? false
  const claim = me.claimsName ? (name: string) => claimedBy(me, name) : (name: string) => !SESSION_CLAIMS.some((d) => d.name !== me.name && claimedBy(d, name))
  const groups = new Map<string, string[]>()
  for (const n of names) {
    const s = sessionNameOf(n)
    if (s === null || !claim(s.plain)) continue
    const g = groups.get(s.plain) ?? []
    g.push(n)
    groups.set(s.plain, g)
  }
  if (groups.size === 0) return {chats: [], descend: true}
  const chats: ChatUnit[] = []
  for (const [plain, files] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // Named by the plain log, else its compressed copy, else the first other generation.
    const named = files.includes(plain) ? plain : (files.find((f) => f === `${plain}.zst`) ?? files.sort()[0])
    chats.push({dir, path: path.join(dir, named), files: files.sort()})
  }
  return {chats, descend: true}
}
