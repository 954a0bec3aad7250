/**
 * Fixtures for the agents' indexes, built from the real stores in `../shared/realdata/` by code: Codex's home as
 * the 0.169.0 binary left it (its databases relocated to the copy's path, as if the home were there), Claude
 * Code's home as 2.1.328 left it. Damage is done by code here; the listing logic each agent applies (as
 * index-files.md records it) is implemented here too, as the oracle the tests hold the repairs against.
 */
import {chmodSync, copyFileSync, cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import {REALDATA} from './fixtures.js'

export const CODEX_REAL = path.join(REALDATA, 'codex', '0.169.0')
export const CLAUDE_REAL = path.join(REALDATA, 'claude-code', '2.1.328')
/** Thread C (`codex exec`) and thread D (the TUI) of the real Codex store. */
export const THREAD_C = '01a230d3-910e-7ab3-9c7f-f7f164ff1ff1'
export const THREAD_D = '01a230d3-ac83-7592-b02d-82076d0dd468'
/** The fake home the binaries ran in. */
const FAKE_HOME = '/home/dev'

function makeWritable(p: string): void {
  const st = lstatSync(p)
  if (st.isSymbolicLink()) return
  chmodSync(p, st.isDirectory() ? 0o755 : 0o644)
  if (st.isDirectory()) for (const n of readdirSync(p)) makeWritable(path.join(p, n))
}

/**
 * Copies the real Codex home (`.codex`, without the daemon's package install and the bundled skills) to
 * `<root>/.codex`, keeping mtimes, and points every `threads.rollout_path` at the copy. Returns `$CODEX_HOME`.
 */
export function copyCodexHome(root: string): string {
  const home = path.join(root, '.codex')
  const src = path.join(CODEX_REAL, 'home', '.codex')
  cpSync(src, home, {recursive: true, preserveTimestamps: true, verbatimSymlinks: true, filter: (p) => !/\/\.codex\/(packages|skills)(\/|$)/.test(p)})
  makeWritable(home)
  sqlite(home, 'state_5.sqlite', (db) => db.prepare('UPDATE threads SET rollout_path = replace(rollout_path, ?, ?)').run(`${FAKE_HOME}/.codex`, home))
  // Closing the fixture's connection folded and removed the -wal and -shm the binary left: put them back as it
  // left them (an empty WAL after its checkpoint, and its -shm).
  for (const db of ['state_5.sqlite', 'thread_history_1.sqlite']) {
    for (const s of ['-wal', '-shm']) if (existsSync(path.join(src, db + s)) && !existsSync(path.join(home, db + s))) copyFileSync(path.join(src, db + s), path.join(home, db + s))
    for (const s of ['-wal', '-shm']) if (existsSync(path.join(home, db + s))) chmodSync(path.join(home, db + s), 0o644)
  }
  return home
}

/** Runs `fn` on a database of the fixture, in place (the fixture's own hand: damage, never an oracle's read). */
export function sqlite<T>(home: string, file: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path.join(home, file))
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

/** Reads a database of the store on a private copy with its -wal/-shm (opening the original would change it). */
export function peek<T>(home: string, file: string, fn: (db: Database.Database) => T): T {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'chatdoctor-peek-'))
  try {
    for (const s of ['', '-wal', '-shm']) if (existsSync(path.join(home, file + s))) copyFileSync(path.join(home, file + s), path.join(tmp, file + s))
    return sqlite(tmp, file, fn)
  } finally {
    rmSync(tmp, {recursive: true, force: true})
  }
}

/** The rollout of a thread below `$CODEX_HOME` (sessions/ or archived_sessions/), or undefined. */
export function rolloutOf(home: string, id: string): string | undefined {
  const walk = (d: string): string[] => (existsSync(d) ? readdirSync(d, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : e.name.includes(id) && e.name.endsWith('.jsonl') ? [path.join(d, e.name)] : [])) : [])
  return [...walk(path.join(home, 'sessions')), ...walk(path.join(home, 'archived_sessions'))][0]
}

/** What `codex exec resume <id>` finds, by Codex 0.169.0's rules (index-files.md §2.2, the trials): the resolved file or why it fails. */
export function codexResolve(home: string, id: string): {file: string} | {error: string} {
  const state = path.join(home, 'state_5.sqlite')
  if (!existsSync(state)) {
    const f = rolloutOf(home, id)
    return f ? {file: f} : {error: `no rollout found for thread id ${id}`}
  }
  let row: {rollout_path: string} | undefined
  try {
    row = peek(home, 'state_5.sqlite', (db) => db.prepare('SELECT rollout_path FROM threads WHERE id = ?').get(id) as {rollout_path: string} | undefined)
  } catch {
    return {error: 'list_turns is not supported yet'}
  }
  if (!row) {
    const f = rolloutOf(home, id)
    return f ? {file: f} : {error: `no rollout found for thread id ${id}`}
  }
  return existsSync(row.rollout_path) ? {file: row.rollout_path} : {error: `no rollout found for thread id ${id}`}
}

/** Threads Codex lists (rows of `threads`), by its rules: none when the database is missing until rebuilt (then every rollout). */
export function codexListed(home: string): string[] {
  if (!existsSync(path.join(home, 'state_5.sqlite'))) return [THREAD_C, THREAD_D].filter((id) => rolloutOf(home, id) !== undefined)
  return peek(home, 'state_5.sqlite', (db) => (db.prepare('SELECT id FROM threads ORDER BY id').all() as Array<{id: string}>).map((r) => r.id))
}

/**
 * Checks a thread's projection in `thread_history_1.sqlite` against its rollout the way Codex reads it: each
 * turn's byte offset starts the line of its ordinal, its end offset ends the line of its end ordinal, and the
 * next offset is within the file. Returns the problems (empty: the projection reads right), or null when the
 * database or the thread's projection is absent (Codex then rebuilds it).
 */
export function projectionProblems(home: string, id: string): string[] | null {
  if (!existsSync(path.join(home, 'thread_history_1.sqlite'))) return null
  const file = rolloutOf(home, id)
  if (!file) return ['no rollout']
  const buf = readFileSync(file)
  const {turns, state} = peek(home, 'thread_history_1.sqlite', (db) => ({
    turns: db.prepare('SELECT rollout_ordinal o, rollout_byte_offset b, rollout_end_ordinal eo, rollout_end_byte_offset eb FROM thread_turns WHERE thread_id = ?').all(id) as Array<{o: number; b: number; eo: number; eb: number}>,
    state: db.prepare('SELECT next_rollout_byte_offset n FROM thread_history_projection_state WHERE thread_id = ?').get(id) as {n: number} | undefined,
  }))
  if (!state) return null
  const ordinalOfLineAt = (off: number): number | null => {
    if (off > buf.length || (off > 0 && buf[off - 1] !== 0x0a)) return null
    const end = buf.indexOf(0x0a, off)
    try {
      return (JSON.parse(buf.subarray(off, end < 0 ? buf.length : end).toString('utf8')) as {ordinal?: number}).ordinal ?? null
    } catch {
      return null
    }
  }
  const problems: string[] = []
  if (state.n > buf.length) problems.push(`next offset ${state.n} past the end (${buf.length})`)
  for (const t of turns) {
    if (ordinalOfLineAt(t.b) !== t.o) problems.push(`turn at ordinal ${t.o}: byte ${t.b} does not start its line`)
    const lineStart = buf.lastIndexOf(0x0a, t.eb - 2) + 1
    if (buf[t.eb - 1] !== 0x0a || ordinalOfLineAt(lineStart) !== t.eo) problems.push(`turn at ordinal ${t.o}: byte ${t.eb} does not end the line of ordinal ${t.eo}`)
  }
  return problems
}

/** Every file below a folder with its bytes (for byte-for-byte comparisons), skipping chatdoctor's own folder. */
export function treeBytes(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  const walk = (rel: string) => {
    for (const n of readdirSync(path.join(root, rel)).sort()) {
      const r = rel ? path.join(rel, n) : n
      if (n === '.chatdoctor') continue
      const st = lstatSync(path.join(root, r))
      if (st.isDirectory()) walk(r)
      else if (st.isFile()) out.set(r, readFileSync(path.join(root, r)))
    }
  }
  walk('')
  return out
}

export const sizeOf = (p: string) => statSync(p).size

/**
 * Copies the real Claude Code home (`.claude.json`, `.claude/`, the project) to `root`, writable, mtimes kept.
 * Returns the copy's home (`root`).
 */
export function copyClaudeHome(root: string): string {
  cpSync(path.join(CLAUDE_REAL, 'home'), root, {recursive: true, preserveTimestamps: true, verbatimSymlinks: true})
  makeWritable(root)
  return root
}

/** Claude Code 2.1.328's start-up rule for `~/.claude.json` (index-files.md §1.3): it must parse or be absent. */
export function claudeStarts(home: string): boolean {
  const p = path.join(home, '.claude.json')
  if (!existsSync(p)) return true
  try {
    JSON.parse(readFileSync(p, 'utf8'))
    return true
  } catch {
    return false
  }
}
