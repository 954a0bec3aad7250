/**
 * Fixtures for the JSONL session formats (Claude Code, Codex): the real public session logs in
 * `../shared/realdata/public/`, line helpers to damage them, and a minimal zstd writer (raw blocks) so tests
 * can make `.jsonl.zst` siblings without a zstd binary.
 */
import {existsSync, readFileSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {REALDATA, invalidByteAt, nulRunAt} from './fixtures.js'

export const PUBLIC = path.join(REALDATA, 'public')

/** The real session logs (see shared/realdata/public/SOURCES.md). */
export const REAL_SESSIONS = {
  claude: {
    /** 5 lines, 1 user turn, queue-operation + last-prompt records. */
    kvsankar: path.join(PUBLIC, 'claude-code', 'kvsankar-agent-history__session-01.jsonl'),
    /** 15 lines, parallel tool results, ends with local_command system records. */
    short: path.join(PUBLIC, 'claude-code', 'marot-spotter__short.jsonl'),
    /** A compaction side-chain: parents of its first records live in the parent session. */
    sidechain: path.join(PUBLIC, 'claude-code', 'marot-spotter__agent-acompact-e1f845.jsonl'),
    /** 14 lines, ends in an open tool call. */
    openTool: path.join(PUBLIC, 'claude-code', 'jnarowski-agentcmd__06381696-0074-49f8-863e-6ad4fac507f9.jsonl'),
  },
  codex: {
    /** 11 lines, session_meta header, Codex 0.135.0. */
    kvsankar: path.join(PUBLIC, 'codex', 'kvsankar-agent-history__session-01.jsonl'),
    /** 1,370 lines, pre-session_meta format, CRLF. */
    legacy: path.join(PUBLIC, 'codex', 'AcidicSoil-codex-session-viewer__example.jsonl'),
  },
} as const

export function read(p: string): Buffer {
  return readFileSync(p)
}

/** The physical lines of a buffer, each with its line ending. */
export function linesOf(buf: Buffer): Buffer[] {
  const out: Buffer[] = []
  let s = 0
  while (s < buf.length) {
    const i = buf.indexOf(0x0a, s)
    if (i < 0) {
      out.push(buf.subarray(s))
      break
    }
    out.push(buf.subarray(s, i + 1))
    s = i + 1
  }
  return out
}

/** A line without its LF / CR LF. */
export function body(line: Buffer): Buffer {
  let e = line.length
  if (line[e - 1] === 0x0a) e--
  if (line[e - 1] === 0x0d) e--
  return line.subarray(0, e)
}

/**
 * A `progress` record as Claude Code writes a subagent's step (`data.type` `agent_progress`): the subagent's
 * message nested in `data.message`, with `type` and `uuid` of its own. Built from real record `o` of a log.
 */
export function agentProgress(o: Record<string, unknown>): Buffer {
  const inner = {type: 'assistant', uuid: 'deadbeef-0000-4000-8000-000000000001', timestamp: o.timestamp, message: {role: 'assistant', content: [{type: 'text', text: 'SUBAGENT STEP text'}]}}
  const rec = {parentUuid: o.uuid, isSidechain: false, type: 'progress', data: {type: 'agent_progress', message: inner, prompt: 'x'}, uuid: 'aaaaaaaa-0000-4000-8000-000000000002', sessionId: o.sessionId, timestamp: o.timestamp}
  return Buffer.from(JSON.stringify(rec))
}

/**
 * A real Claude Code log with an `agentProgress` line after line `k` (0-based), and NULs over that line's head up
 * to its nested message; `line` is the index of the inserted line.
 */
export function nulOverNestedHead(doc: Buffer, k: number): {buf: Buffer; line: number} {
  const L = linesOf(doc)
  const progress = agentProgress(JSON.parse(body(L[k]).toString()) as Record<string, unknown>)
  const head = progress.indexOf('"message":{"type":"assistant"') + '"message":'.length
  progress.fill(0, 0, head)
  return {buf: Buffer.concat([...L.slice(0, k + 1), progress, Buffer.from('\n'), ...L.slice(k + 1)]), line: k + 1}
}

export const join = (parts: Buffer[]): Buffer => Buffer.concat(parts)
export const LF = Buffer.from('\n')

/** A valid zstd frame holding `data` in raw blocks (the writer `bundle --redact` uses for `.jsonl.zst`). */
export {zstdRawFrame as zstdStored} from '../../src/lib/formats/jsonl/redact.js'

/**
 * Every real Claude Code and Codex session log in shared/realdata: the public ones and those in the homes the
 * real binaries wrote (`claude-code/<version>/home/.claude/projects/**`, `codex/<version>/home/.codex/sessions/**`),
 * with the format each was written by. Prompt histories and request logs are not sessions and are left out.
 */
export function allRealSessionLogs(): Array<{file: string; format: 'claude-code' | 'codex'}> {
  const out: Array<{file: string; format: 'claude-code' | 'codex'}> = []
  const walk = (dir: string, format: 'claude-code' | 'codex') => {
    for (const e of readdirSync(dir, {withFileTypes: true}).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p, format)
      else if (e.isFile() && e.name.endsWith('.jsonl')) out.push({file: p, format})
    }
  }
  walk(path.join(PUBLIC, 'claude-code'), 'claude-code')
  walk(path.join(PUBLIC, 'codex'), 'codex')
  for (const v of readdirSync(path.join(REALDATA, 'claude-code')).sort()) {
    const p = path.join(REALDATA, 'claude-code', v, 'home', '.claude', 'projects')
    if (existsSync(p)) walk(p, 'claude-code')
  }
  for (const v of readdirSync(path.join(REALDATA, 'codex')).sort()) {
    const p = path.join(REALDATA, 'codex', v, 'home', '.codex', 'sessions')
    if (existsSync(p)) walk(p, 'codex')
  }
  return out
}

/** A damage of a JSON-lines log that property tests apply at a relative place `at` (0–1) of its bytes. */
export type LineDamageKind = 'nul' | 'break' | 'join' | 'bad' | 'crlf'

/**
 * `buf` with one damage at relative place `at` (0–1): a NUL run there, a line break inserted, the next line
 * break removed (two lines joined), an invalid UTF-8 byte, a CR before the next line break.
 */
export function lineDamage(buf: Buffer, kind: LineDamageKind, rel: number): Buffer {
  const at = Math.min(buf.length - 1, Math.floor(rel * buf.length))
  const lf = buf.indexOf(0x0a, at)
  switch (kind) {
    case 'nul':
      return nulRunAt(buf, at, Math.min(buf.length - at, 1 + (at % 7)))
    case 'break':
      return Buffer.concat([buf.subarray(0, at), Buffer.from('\n'), buf.subarray(at)])
    case 'join':
      return lf < 0 ? buf : Buffer.concat([buf.subarray(0, lf), buf.subarray(lf + 1)])
    case 'bad':
      return invalidByteAt(buf, at)
    case 'crlf':
      return lf < 0 ? buf : Buffer.concat([buf.subarray(0, lf), Buffer.from('\r'), buf.subarray(lf)])
  }
}
