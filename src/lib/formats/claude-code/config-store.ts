/**
 * Claude Code's registry beside its session logs, read as one chat: the global config `~/.claude.json`
 * (`$CLAUDE_CONFIG_DIR/.claude.json` when set) with its generations in `backups/` (`.claude.json.backup.<ms>`,
 * copies the binary makes; `.claude.json.corrupted.<ms>`, copies of a config it could not parse), and what the
 * project folders hold (each log's `cwd`, `entrypoint`; a legacy `sessions-index.json`).
 *
 * Observed on Claude Code 2.1.328 (index-files.md §1): the logs are the only thing `--resume` reads, so the
 * project folders are the index: `claude --resume` in a folder lists the logs of `projects/<slug of the cwd>/`
 * (never the print-mode ones), `claude -p --resume <id>` opens `<id>.jsonl` there. An unparsable `~/.claude.json`
 * stops every command, print mode too ("Configuration error in …/.claude.json", exit 1), and the binary names a
 * backup to copy back that may be far older (here the 84-byte first-run copy). Read-only; every file small.
 */
import {lstatSync, openSync, readFileSync, readSync, closeSync} from 'node:fs'
import path from 'node:path'
import type {ChatUnit, StoreListing} from '../../model/adapter.js'
import {sortedNames} from '../../fsio/names.js'

export {claudeBaseOf, claudeStoresOf, configDirOf} from './roots.js'

/** The config's name. */
export const CONFIG = '.claude.json'
/** A backup or a corrupted copy of the config in `backups/`. */
export const CONFIG_GENERATION = /^\.claude\.json\.(backup|corrupted)\.(\d+)$/
/** The legacy per-project session index of older versions. */
export const LEGACY_INDEX = 'sessions-index.json'
/** Largest config generation read (bytes). */
const MAX_CONFIG_BYTES = 64 << 20
/** Bytes of a log's head read for its `cwd` and `entrypoint`. */
const HEAD_BYTES = 64 << 10

/** What one session log's head says (for the listing rules). */
export interface LogFacts {
  /** Relative to the config dir, `/`-separated. */
  rel: string
  sessionId: string
  /** The project folder's name. */
  slug: string
  /** The first `cwd` a record of the log carries, or null. */
  cwd: string | null
  /** `cli` (the TUI) or `sdk-cli` (print mode), from the first record that says; null when none does. */
  entrypoint: string | null
}

/** A legacy `sessions-index.json` of a project folder, as far as it lists sessions. */
export interface LegacyIndexFacts {
  rel: string
  /** Session ids it lists, or null when it cannot be read as a list of entries. */
  listed: Array<{sessionId: string; messageCount: number | null}> | null
}

/** What `read` hands to `diagnose`, `annotate` and `planRepair`. */
export interface ClaudeConfigFacts {
  kind: 'claude-config'
  /** The config dir (home, or `$CLAUDE_CONFIG_DIR`), absolute. */
  dir: string
  /** The base (`~/.claude` or `$CLAUDE_CONFIG_DIR`), relative to `dir` ('' when the same). */
  base: string
  logs: LogFacts[]
  legacy: LegacyIndexFacts[]
  /** Lines of `history.jsonl` per project cwd (prompts typed in the TUI survive there). */
  historyPrompts: Record<string, number>
  /** Claude Code processes that look alive (its registry of running sessions), in words, at read time. */
  live: string[]
}

/** Encodes a cwd as Claude Code names its project folder: every character but a-z, A-Z, 0-9 becomes `-`. */
export function slugOf(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-')
}

function readHeadText(file: string, n: number): string {
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.alloc(n)
    const got = readSync(fd, buf, 0, n, 0)
    return buf.subarray(0, got).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

function logFacts(baseAbs: string, dir: string, slug: string, name: string): LogFacts | null {
  const file = path.join(baseAbs, 'projects', slug, name)
  let text: string
  try {
    if (!lstatSync(file).isFile()) return null
    text = readHeadText(file, HEAD_BYTES)
  } catch {
    return null
  }
  let cwd: string | null = null
  let entrypoint: string | null = null
  for (const line of text.split('\n')) {
    let v: Record<string, unknown>
    try {
      v = JSON.parse(line) as Record<string, unknown>
    } catch {
      continue
    }
    if (cwd === null && typeof v.cwd === 'string') cwd = v.cwd
    if (entrypoint === null && typeof v.entrypoint === 'string') entrypoint = v.entrypoint
    if (cwd !== null && entrypoint !== null) break
  }
  return {rel: path.relative(dir, file).split(path.sep).join('/'), sessionId: name.slice(0, -'.jsonl'.length), slug, cwd, entrypoint}
}

function legacyFacts(dir: string, file: string): LegacyIndexFacts {
  const rel = path.relative(dir, file).split(path.sep).join('/')
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown
    const entries = Array.isArray(v) ? v : typeof v === 'object' && v !== null && Array.isArray((v as {entries?: unknown}).entries) ? (v as {entries: unknown[]}).entries : null
    if (!entries) return {rel, listed: null}
    const listed: Array<{sessionId: string; messageCount: number | null}> = []
    for (const e of entries) {
      if (typeof e !== 'object' || e === null) continue
      const o = e as Record<string, unknown>
      if (typeof o.sessionId === 'string') listed.push({sessionId: o.sessionId, messageCount: typeof o.messageCount === 'number' ? o.messageCount : null})
    }
    return {rel, listed}
  } catch {
    return {rel, listed: null}
  }
}

/** Claude Code's registry of running sessions: `sessions/<pid>.json` naming a live pid. */
export function claudeLive(baseAbs: string): string[] {
  const out: string[] = []
  for (const n of sortedNames(path.join(baseAbs, 'sessions'))) {
    const m = /^(\d+)\.json$/.exec(n)
    if (!m) continue
    const pid = Number(m[1])
    try {
      process.kill(pid, 0)
      out.push(`a Claude Code session runs (pid ${pid}, sessions/${n})`)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EPERM') out.push(`a Claude Code session runs (pid ${pid}, sessions/${n})`)
    }
  }
  return out
}

/**
 * Reads Claude Code's registry at the config dir `dir` into one chat: `.claude.json` and the generations in
 * `backups/` as members, the project folders' logs and legacy indexes as facts. Null when there is neither a
 * config, nor a backup, nor a project folder. Never throws.
 */
export async function readClaudeConfig(dir: string, home: string, env: NodeJS.ProcessEnv): Promise<StoreListing | null> {
  const baseAbs = env.CLAUDE_CONFIG_DIR && path.resolve(env.CLAUDE_CONFIG_DIR) === dir ? dir : path.join(dir, '.claude')
  const base = path.relative(dir, baseAbs).split(path.sep).join('/')
  const members: string[] = []
  if (sortedNames(dir).includes(CONFIG)) members.push(CONFIG)
  for (const n of sortedNames(path.join(baseAbs, 'backups'))) {
    if (!CONFIG_GENERATION.test(n)) continue
    try {
      const st = lstatSync(path.join(baseAbs, 'backups', n))
      if (st.isFile() && st.size <= MAX_CONFIG_BYTES) members.push(base === '' ? `backups/${n}` : `${base}/backups/${n}`)
    } catch {
      // Gone since the listing.
    }
  }
  const logs: LogFacts[] = []
  const legacy: LegacyIndexFacts[] = []
  const projects = sortedNames(path.join(baseAbs, 'projects'))
  for (const slug of projects) {
    const pdir = path.join(baseAbs, 'projects', slug)
    for (const n of sortedNames(pdir)) {
      if (n.endsWith('.jsonl') && !n.startsWith('.')) {
        const f = logFacts(baseAbs, dir, slug, n)
        if (f) logs.push(f)
      } else if (n === LEGACY_INDEX) legacy.push(legacyFacts(dir, path.join(pdir, n)))
    }
  }
  if (members.length === 0 && projects.length === 0) return null
  const historyPrompts: Record<string, number> = {}
  try {
    for (const line of readFileSync(path.join(baseAbs, 'history.jsonl'), 'utf8').split('\n')) {
      try {
        const v = JSON.parse(line) as {project?: unknown}
        if (typeof v.project === 'string') historyPrompts[v.project] = (historyPrompts[v.project] ?? 0) + 1
      } catch {
        // A torn or blank line.
      }
    }
  } catch {
    // No prompt history.
  }
  const facts: ClaudeConfigFacts = {kind: 'claude-config', dir, base, logs, legacy, historyPrompts, live: claudeLive(baseAbs)}
  const unit: ChatUnit = {dir, path: path.join(dir, CONFIG), members, facts}
  return {chats: [unit], errors: []}
}
