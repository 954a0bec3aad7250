/**
 * `find`: the sessions whose prompts or answers hold some words (or match a regular expression), across every
 * agent whose adapter has a `find` hook. Read-only, streaming: each file is read in bounded chunks, and a
 * session is handed to `onSession` as soon as its files are searched.
 *
 * Speed: a record is decoded only when its raw bytes pass a prefilter, a case-insensitive literal search for
 * the longest word's longest run of characters every JSON writer keeps as they are (ASCII letters, digits,
 * space and most punctuation), run by the regular-expression engine over the chunk read as a one-byte
 * string (so offsets are byte offsets). Words with no such run, and `--regex`, decode every record. The match
 * itself is always made on the decoded text of prompts and answers, never on JSON syntax or keys.
 *
 * Damage: a record that does not parse (a torn line, a torn document) is searched by the JSON string values
 * that can be read from its bytes (keys left out), and the session says its file is damaged; NUL bytes and an
 * unterminated last line say so too. Every damaged file searched (or too large to search) is counted and
 * named in the result, whether its session matched or not, so that a search that finds nothing says what it
 * could not read whole. Never throws: an unreadable file is an error and the search goes on.
 */
import {closeSync, constants, fstatSync, openSync, readSync} from 'node:fs'
import path from 'node:path'
import type {FindSource, FormatAdapter, FoundSession, FoundText} from '../model/adapter.js'
import type {OperationalError, Skipped} from '../model/report.js'
import {discover, type FoundChat} from './discover.js'
import {escapeControls} from '../fsio/paths.js'

/** What to look for: every word (case-insensitive, in one prompt or answer), or a regular expression. */
export interface FindQuery {
  words: string[]
  regex: RegExp | null
}

/** One matching prompt or answer. */
export interface FindMatch {
  /** The file, relative to the chat's folder. */
  file: string
  /** 1-based line of a JSON-lines file; null for a document. */
  line: number | null
  /** null when the match was read from a damaged part (its role unknown). */
  role: FoundText['role'] | null
  /** The matching line of the text, shortened around the match, control characters escaped. */
  text: string
}

/** A session with at least one match. */
export interface SessionHit {
  format: string
  agent: string
  /** The chat as discovery names it (its folder or session file). */
  path: string
  session: FoundSession
  matches: FindMatch[]
  /** Matches beyond those listed. */
  more: number
  /** Why a searched file of the session is damaged (only what was readable was searched). */
  damaged: string[]
  /** True when the agent's sources are different documents of one conversation: a match says which file it is in. */
  namesFile: boolean
}

/** How much was searched. */
export interface FindStats {
  chats: number
  files: number
  bytes: number
  sessions: number
  /** Files searched that were damaged (only what is readable in them was searched) or too large to search. */
  damaged: number
}

/** A file searched only in part: damaged (its readable parts searched) or too large to search. */
export interface DamagedFile {
  path: string
  why: string
}

export interface FindOptions {
  home: string
  env: NodeJS.ProcessEnv
  /** Matches listed per session (default 3). */
  maxMatches?: number
  onSession(hit: SessionHit): void
}

export interface FindResult {
  stats: FindStats
  errors: OperationalError[]
  skipped: Skipped[]
  roots: Array<{path: string; format: string | null; present: boolean}>
  notChatFiles: string[]
  /** The files counted in `stats.damaged`, each with its first damage (at most `MAX_DAMAGED_LISTED`). */
  damagedFiles: DamagedFile[]
}

/** Damaged files named in a result (the count in `stats.damaged` goes on past it). */
export const MAX_DAMAGED_LISTED = 1000

/** Bytes read at a time. */
const CHUNK = 4 << 20
/** The read buffer every file is searched in, one after another (grown for a long line or a large document). */
let shared = Buffer.allocUnsafe(CHUNK * 2)
/** A record (a line, a document) longer than this is not searched: bounded memory. */
export const MAX_RECORD = 64 << 20
/** Bytes of a source handed to `session` as its head. */
const HEAD = 64 << 10
/** Characters of a matching line shown. */
const SNIPPET = 100

/** Characters JSON writers keep as they are inside strings (no quote, backslash, slash, `<>&'`, control). */
const KEPT = /[A-Za-z0-9 !#$%()*+,\-.:;=?@[\]^_`{|}~]+/g

/** The prefilter of a query: a case-insensitive, global pattern over raw bytes read as latin1; null for none. */
export function prefilterOf(q: FindQuery): RegExp | null {
  if (q.regex) return null
  let best = ''
  for (const w of q.words) {
    // A word with a non-ASCII letter may be written escaped, or fold to another length: no prefilter.
    const runs = w.match(KEPT) ?? []
    if (runs.length === 0 || runs.join('') !== w) return null
    for (const r of runs) if (r.length > best.length) best = r
  }
  if (best === '') return null
  return new RegExp(best.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'), 'gi')
}

/** The position of the query's match in a text, or -1. */
function matchAt(text: string, q: FindQuery, folded: string[]): number {
  if (q.regex) {
    q.regex.lastIndex = 0
    const m = q.regex.exec(text)
    return m ? m.index : -1
  }
  const lower = text.toLowerCase()
  let first = -1
  for (const w of folded) {
    const at = lower.indexOf(w)
    if (at < 0) return -1
    if (first < 0) first = at
  }
  return first
}

/** The line of `text` holding offset `at`, shortened to `SNIPPET` characters around it, controls escaped. */
export function snippetAt(text: string, at: number): string {
  const start = text.lastIndexOf('\n', Math.max(0, at - 1)) + 1
  let end = text.indexOf('\n', at)
  if (end < 0) end = text.length
  let line = text.slice(start, end).trim()
  let pos = Math.max(0, Math.min(line.length, at - start - (text.slice(start, end).length - text.slice(start, end).trimStart().length)))
  let pre = ''
  let post = ''
  if (line.length > SNIPPET) {
    const from = Math.max(0, Math.min(pos - 30, line.length - SNIPPET))
    if (from > 0) pre = '…'
    if (from + SNIPPET < line.length) post = '…'
    line = line.slice(from, from + SNIPPET)
    pos -= from
  }
  return pre + escapeControls(line) + post
}

/** The JSON string values readable in damaged bytes (a key, a string followed by `:`, left out), decoded. */
export function readableStrings(raw: string): string[] {
  const out: string[] = []
  const re = /"((?:[^"\\\u0000]|\\.)*)("\s*:?|\u0000|$)/gsu
  for (const m of raw.matchAll(re)) {
    if (m[2].endsWith(':')) continue
    try {
      out.push(JSON.parse(`"${m[1].replace(/\\$/u, '')}"`) as string)
    } catch {
      // A string with a broken escape: left out.
    }
  }
  return out
}

/** The search state of one session. */
interface Session {
  matches: FindMatch[]
  more: number
  damaged: string[]
  hit: unknown
  hitSource: FindSource | null
  seen: Set<string>
  /** Each damaged file of the chat with its first damage. */
  damagedFiles: Map<string, string>
}

/** Searches the sessions under `paths` (or every agent's default roots). */
export async function findSessions(paths: string[], query: FindQuery, adapters: readonly FormatAdapter[], opts: FindOptions): Promise<FindResult> {
  const finders = adapters.filter((a) => a.find)
  const found = await discover(paths, finders, opts.home, opts.env)
  const stats: FindStats = {chats: 0, files: 0, bytes: 0, sessions: 0, damaged: 0}
  const damagedFiles: DamagedFile[] = []
  const errors = [...found.errors]
  const pre = prefilterOf(query)
  const folded = query.words.map((w) => w.toLowerCase())
  const max = opts.maxMatches ?? 3
  for (const chat of found.chats) {
    stats.chats++
    const hit = await searchChat(chat, query, pre, folded, max, stats, errors, damagedFiles)
    if (hit) {
      stats.sessions++
      opts.onSession(hit)
    }
  }
  return {stats, errors, skipped: found.skipped, roots: found.roots, notChatFiles: found.notChatFiles, damagedFiles}
}

async function searchChat({unit, adapter}: FoundChat, query: FindQuery, pre: RegExp | null, folded: string[], max: number, stats: FindStats, errors: OperationalError[], damagedFiles: DamagedFile[]): Promise<SessionHit | null> {
  const finder = adapter.find!
  const s: Session = {matches: [], more: 0, damaged: [], hit: undefined, hitSource: null, seen: new Set(), damagedFiles: new Map()}
  let hitHead: {head: Buffer; mtimeMs: number} | null = null
  const sources = finder.sources(unit)
  for (const source of sources) {
    const file = path.join(unit.dir, source.name)
    const onRecord = (record: unknown, line: number | null, damagedRaw: string | null) => {
      const texts: Array<{role: FoundText['role'] | null; text: string}> = damagedRaw === null ? finder.texts(record, source, unit) : readableStrings(damagedRaw).map((text) => ({role: null, text}))
      for (const t of texts) {
        const at = matchAt(t.text, query, folded)
        if (at < 0) continue
        const text = snippetAt(t.text, at)
        const key = `${t.role}\u0000${text}`
        if (s.seen.has(key)) continue
        s.seen.add(key)
        if (s.hitSource === null) {
          s.hitSource = source
          s.hit = damagedRaw === null ? record : null
        }
        if (s.matches.length < max) s.matches.push({file: source.name, line, role: t.role, text})
        else s.more++
      }
    }
    if (source.records === 'rows') {
      try {
        if (!finder.rows) throw new Error('no reader of its rows')
        for (const record of await finder.rows(unit, source)) onRecord(record, null, null)
      } catch (e) {
        errors.push({path: file, message: `not searched: ${String((e as Error)?.message ?? e).split('\n')[0]}`})
      }
      continue
    }
    try {
      // Never through a symbolic link (it may point anywhere), and never blocking on a FIFO.
      const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
      try {
        const st = fstatSync(fd)
        if (!st.isFile()) continue
        stats.files++
        stats.bytes += st.size
        const before = s.hitSource
        if (source.records === 'lines') searchLines(fd, source.name, pre, s, onRecord)
        else searchDocument(fd, st.size, source.name, pre, s, onRecord)
        // The head of the file the first match came from, read once.
        if (before === null && s.hitSource !== null) {
          const head = Buffer.allocUnsafe(Math.min(HEAD, st.size))
          hitHead = {head: head.subarray(0, readSync(fd, head, 0, head.length, 0)), mtimeMs: st.mtimeMs}
        }
      } finally {
        closeSync(fd)
      }
    } catch (e) {
      const err = e as NodeJS.ErrnoException
      if (err.code === 'ENOENT' || err.code === 'ELOOP') continue
      errors.push({path: file, message: err.code === 'EACCES' || err.code === 'EPERM' ? 'permission denied (run as a user who can read it)' : (err.message ?? String(e))})
    }
  }
  for (const [name, why] of s.damagedFiles) {
    stats.damaged++
    if (damagedFiles.length < MAX_DAMAGED_LISTED) damagedFiles.push({path: path.join(unit.dir, name), why})
  }
  if (s.hitSource === null) return null
  const h = hitHead ?? {head: Buffer.alloc(0), mtimeMs: 0}
  let session: FoundSession
  try {
    session = finder.session(unit, s.hitSource, {head: h.head, hit: s.hit, mtimeMs: h.mtimeMs})
  } catch {
    session = {id: path.basename(unit.path), project: null, timeMs: h.mtimeMs, resume: null, hidden: null}
  }
  return {format: session.format ?? adapter.name, agent: session.agent ?? adapter.displayName, path: unit.path, session, matches: s.matches, more: s.more, damaged: s.damaged, namesFile: finder.namesFiles === true && sources.length > 1}
}

type OnRecord = (record: unknown, line: number | null, damagedRaw: string | null) => void

/** Parses one record's bytes and hands it on (or its readable strings, when it does not parse). */
function handle(bytes: Buffer, line: number | null, name: string, s: Session, onRecord: OnRecord): void {
  const text = bytes.toString('utf8')
  let record: unknown
  try {
    record = JSON.parse(text)
  } catch {
    if (text.trim() === '') return
    damage(s, name, line === null ? `${name} does not parse as JSON (torn or overwritten): only its readable strings were searched` : `${name} line ${line} does not parse (torn or overwritten): only its readable strings were searched`)
    onRecord(null, line, text)
    return
  }
  onRecord(record, line, null)
}

function damage(s: Session, name: string, why: string): void {
  if (s.damaged.length < 5 && !s.damaged.includes(why)) s.damaged.push(why)
  if (!s.damagedFiles.has(name)) s.damagedFiles.set(name, why)
}

/** Searches a JSON-lines file in chunks, in the shared buffer. */
function searchLines(fd: number, name: string, pre: RegExp | null, s: Session, onRecord: OnRecord): void {
  let buf = shared
  let have = 0 // bytes in buf not yet searched (a partial line carried over, then the new chunk)
  let lineNo = 1 // line number of buf[0]
  let skipping = false // inside a line longer than MAX_RECORD
  let eof = false
  let nul = false
  while (!eof) {
    if (buf.length - have < CHUNK) {
      if (have + CHUNK > MAX_RECORD + CHUNK) {
        // A line longer than MAX_RECORD: not searched; skip to its end.
        damage(s, name, `${name} line ${lineNo} is longer than ${MAX_RECORD >> 20} MiB: not searched`)
        skipping = true
        have = 0
      } else {
        const bigger = Buffer.allocUnsafe(buf.length * 2)
        buf.copy(bigger, 0, 0, have)
        buf = shared = bigger
      }
    }
    const bytesRead = readSync(fd, buf, have, Math.min(CHUNK, buf.length - have), null)
    if (bytesRead === 0) eof = true
    let end = have + bytesRead
    if (!nul && buf.subarray(have, end).indexOf(0) >= 0) {
      nul = true
      damage(s, name, `${name} holds NUL bytes (a crash left zeros): only its readable lines were searched`)
    }
    if (skipping) {
      const nl = buf.subarray(0, end).indexOf(10)
      if (nl < 0) {
        have = 0
        continue
      }
      skipping = false
      lineNo++
      buf.copy(buf, 0, nl + 1, end)
      end -= nl + 1
    }
    const cut = eof ? end : buf.lastIndexOf(10, end - 1) + 1
    if (cut === 0) {
      have = end
      continue
    }
    if (eof && buf[end - 1] !== 10) damage(s, name, `${name} ends in an unterminated line (torn write): what it holds was searched`)
    lineNo = searchRegion(buf, cut, lineNo, name, pre, s, onRecord)
    buf.copy(buf, 0, cut, end)
    have = end - cut
  }
}

/** Searches complete lines `buf[0, end)` starting at line `lineNo`; returns the line number after them. */
function searchRegion(buf: Buffer, end: number, lineNo: number, name: string, pre: RegExp | null, s: Session, onRecord: OnRecord): number {
  let counted = 0 // offset up to which lines were counted
  let line = lineNo
  const countTo = (at: number) => {
    for (let i = buf.indexOf(10, counted); i >= 0 && i < at; i = buf.indexOf(10, i + 1)) line++
    counted = at
  }
  if (pre === null) {
    let start = 0
    while (start < end) {
      let nl = buf.indexOf(10, start)
      if (nl < 0 || nl >= end) nl = end
      if (nl > start) handle(buf.subarray(start, nl), line, name, s, onRecord)
      line++
      start = nl + 1
    }
    return line
  }
  const str = buf.toString('latin1', 0, end)
  pre.lastIndex = 0
  for (let m = pre.exec(str); m !== null; m = pre.exec(str)) {
    const start = str.lastIndexOf('\n', m.index) + 1
    let stop = str.indexOf('\n', m.index)
    if (stop < 0) stop = end
    countTo(start)
    handle(buf.subarray(start, stop), line, name, s, onRecord)
    pre.lastIndex = stop + 1
  }
  countTo(end)
  return line
}

/** Searches a file that is one JSON document, read whole into the shared buffer. */
function searchDocument(fd: number, size: number, name: string, pre: RegExp | null, s: Session, onRecord: OnRecord): void {
  if (size > MAX_RECORD) {
    damage(s, name, `${name} is larger than ${MAX_RECORD >> 20} MiB: not searched`)
    return
  }
  if (shared.length < size) shared = Buffer.allocUnsafe(size)
  let n = 0
  for (let r = -1; r !== 0 && n < size; n += r) r = readSync(fd, shared, n, size - n, n)
  const buf = shared.subarray(0, n)
  if (pre !== null) {
    pre.lastIndex = 0
    if (!pre.test(buf.toString('latin1'))) {
      // Ruled out without parsing it: judged by what is cheap to see (zeros, an end no whole document has).
      if (buf.indexOf(0) >= 0) damage(s, name, `${name} holds NUL bytes (a crash left zeros): only what is readable was searched`)
      else if (!endsWhole(buf)) damage(s, name, `${name} does not end as a whole JSON document (torn or overwritten): only its readable strings were searched`)
      return
    }
  }
  if (buf.indexOf(0) >= 0) damage(s, name, `${name} holds NUL bytes (a crash left zeros): only what is readable was searched`)
  handle(buf, null, name, s, onRecord)
}

/** Whether a document's last byte that is not blank can end a whole JSON object or array (a blank one holds nothing to search, as when parsed). */
function endsWhole(buf: Buffer): boolean {
  let i = buf.length - 1
  while (i >= 0 && (buf[i] === 0x20 || buf[i] === 0x0a || buf[i] === 0x0d || buf[i] === 0x09)) i--
  return i < 0 || buf[i] === 0x7d || buf[i] === 0x5d
}
