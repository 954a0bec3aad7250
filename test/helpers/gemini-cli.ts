/**
 * Fixtures for Gemini CLI: the home tree the real `@google/gemini-cli@0.61.0` wrote
 * (`../shared/realdata/gemini-cli/0.61.0/`, new-agents.md §1) and its `damage/<case>/<step>/` trees, copied into a
 * temp folder with fixed, distinct mtimes (git keeps none); damage made by code on the copies.
 */
import {readFileSync, statSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {REALDATA, copyWithMtimes, setMtime} from './fixtures.js'

export const GEMINI = path.join(REALDATA, 'gemini-cli', '0.61.0')

/** Session A: 5 turns (4 with a tool call, 1 plain answer with thoughts), 4 resumed starts, 58 lines. */
export const SESSION_A = 'session-2026-12-01T09-42-6e65aa12.jsonl'
export const ID_A = '6e65aa12-18d1-407e-a443-edb605205841'
/** Session B: 2 turns (read_file, a plain answer), one resumed start, a summary at the end; 20 lines. */
export const SESSION_B = 'session-2026-12-01T09-42-007b2c73.jsonl'
export const ID_B = '007b2c73-ae8b-4090-af9f-58b8db2fccbe'
/** The orphan a resume of B in a later minute left (meta + session context only, 2 lines). */
export const ORPHAN_B = 'session-2026-12-01T09-43-007b2c73.jsonl'

/** The chats folder below a copied `.gemini`. */
export const CHATS = path.join('.gemini', 'tmp', 'demo-app', 'chats')

/** A real file of the baseline chats folder. */
export function realSession(name: string): Buffer {
  return readFileSync(path.join(GEMINI, 'home', CHATS, name))
}

/** A real file of a damage case's step (e.g. `control-resume-next-minute`, `1-resume`). */
export function damageFile(kase: string, step: string, name: string): Buffer {
  return readFileSync(path.join(GEMINI, 'damage', kase, step, CHATS, name))
}

/**
 * Copies a real `.gemini` tree (the baseline `home/.gemini`, or a damage step's) into `home/.gemini`, writable,
 * files with distinct mtimes in name order (folders after their files). Returns the copied chats folder.
 */
export function copyGemini(home: string, from: {kase: string; step: string} | null = null): string {
  const src = from ? path.join(GEMINI, 'damage', from.kase, from.step, '.gemini') : path.join(GEMINI, 'home', '.gemini')
  const dest = path.join(home, '.gemini')
  copyWithMtimes(src, dest, Date.UTC(2026, 11, 1, 9, 50, 0))
  return path.join(home, CHATS)
}

/** Writes bytes into a chats folder keeping the folder's mtime. */
export function put(chats: string, name: string, data: Buffer, mtimeMs?: number): string {
  const dirMtime = statSync(chats).mtimeMs
  const p = path.join(chats, name)
  writeFileSync(p, data)
  if (mtimeMs !== undefined) setMtime(p, mtimeMs)
  setMtime(chats, dirMtime)
  return p
}

/** The physical lines of a buffer, each with its LF. */
export {linesOf as lines} from './sessions.js'
