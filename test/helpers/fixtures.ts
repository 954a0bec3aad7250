/**
 * Test fixtures built from real agent output (`../shared/realdata/`), damaged by code here so the repository
 * keeps no hundreds of broken copies. Git keeps no mtimes: tests that depend on them set them.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, utimesSync, chmodSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/** The repository root (the folder holding package.json), found from this compiled file. */
export const REPO_ROOT = (() => {
  let d = path.dirname(fileURLToPath(import.meta.url))
  while (!existsSync(path.join(d, 'package.json'))) d = path.dirname(d)
  return d
})()

/**
 * `shared/realdata`: `$CHATDOCTOR_REALDATA` when set, else the nearest `shared/realdata` in a folder above the
 * repository (CI lays a copy of shared/ beside the clone).
 */
export const REALDATA = (() => {
  if (process.env.CHATDOCTOR_REALDATA) return path.resolve(process.env.CHATDOCTOR_REALDATA)
  for (let d = path.dirname(REPO_ROOT); ; d = path.dirname(d)) {
    const candidate = path.join(d, 'shared', 'realdata')
    if (existsSync(candidate)) return candidate
    if (path.dirname(d) === d) throw new Error('shared/realdata not found above the repository; set CHATDOCTOR_REALDATA')
  }
})()

/** The three real Codebuff chats (see shared/realdata/README.md). */
export const REAL_CHATS = {
  /** 1 turn, pretty JSON, older style: run-state.json + chat-messages.json. */
  small: '2025-11-03T09-14-30.000Z',
  /** 10 turns, compact: primary, .bak (turn 9), a complete leftover temp (turn 11 prompt appended), transcript, meta. */
  tenTurns: '2025-11-04T14-01-15.000Z',
  /** 180 turns, 5.5 MB run-state; transcript capped to its last 100 messages (50 turns). */
  large: '2025-11-06T08-29-40.000Z',
} as const

/** The leftover temp of the 10-turn chat. */
export const TEN_TURN_TEMP = 'run-state.json.41231.c7e25b0f-9d14-4a3e-8f6b-2b9a0d5e1c48.tmp'

/** A fresh temp folder, removed by `cleanup()`. */
export function tempDir(prefix = 'chatdoctor-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix))
}

export function cleanup(dir: string): void {
  rmSync(dir, {recursive: true, force: true})
}

/** Copies a tree (e.g. a real store from shared/realdata, which may come without write bits) and makes it writable. */
export function copyWritable(src: string, dest: string): string {
  cpSync(src, dest, {recursive: true})
  const walk = (d: string) => {
    chmodSync(d, 0o755)
    for (const n of readdirSync(d)) {
      const p = path.join(d, n)
      if (statSync(p).isDirectory()) walk(p)
      else chmodSync(p, 0o644)
    }
  }
  walk(dest)
  return dest
}

/**
 * Copies a real Codebuff chat into `root/<layout>/<chatId>` (default layout: the Codebuff config tree
 * `.config/manicode/projects/demo-app/chats`), makes it writable, and gives the files distinct mtimes in
 * a fixed order (primary newest). The copy's `chat-meta.json` is made to match the copied transcript's size
 * and mtime again, as the agent left it (copies keep no mtimes, so the real sidecar's `messagesMtimeMs` would
 * be stale: a `meta-stale` finding that tests about other things do not want; they make it stale themselves).
 * Returns the chat dir.
 */
export function copyRealChat(chatId: string, root: string, parent = path.join('.config', 'manicode', 'projects', 'demo-app', 'chats'), newName = chatId): string {
  const dest = path.join(root, parent, newName)
  cpSync(path.join(REALDATA, 'codebuff', chatId), dest, {recursive: true})
  chmodSync(dest, 0o755)
  const base = Date.UTC(2026, 7, 30, 9, 0, 0)
  const order = ['chat-meta.json', 'run-state.json.bak', TEN_TURN_TEMP, 'chat-messages.json', 'run-state.json']
  for (const name of readdirSync(dest)) {
    const p = path.join(dest, name)
    chmodSync(p, 0o644)
    const i = order.indexOf(name)
    setMtime(p, base + (i < 0 ? 0 : i) * 1000)
  }
  syncChatMeta(dest)
  return dest
}

/**
 * Rewrites a chat dir's `chat-meta.json` so its `messagesSize`/`messagesMtimeMs` match `chat-messages.json` as
 * it is now (only those two numbers change, in place), keeping the sidecar's own mtime. No-op without either file.
 */
export function syncChatMeta(dir: string): void {
  const meta = path.join(dir, 'chat-meta.json')
  const transcript = path.join(dir, 'chat-messages.json')
  if (!existsSync(meta) || !existsSync(transcript)) return
  const st = lstatSync(transcript)
  const metaMtime = lstatSync(meta).mtimeMs
  const text = readFileSync(meta, 'utf8')
    .replace(/("messagesSize"\s*:\s*)-?[\d.eE+-]+/, (_, k: string) => `${k}${st.size}`)
    .replace(/("messagesMtimeMs"\s*:\s*)-?[\d.eE+-]+/, (_, k: string) => `${k}${st.mtimeMs}`)
  writeFileSync(meta, text)
  setMtime(meta, metaMtime)
}

/**
 * A compact transcript (JSON as the CLI writes it: `JSON.stringify` round-trips the real files byte for byte)
 * whose AI messages keep their embedded `metadata.runState` only for the first `keep` completed turns: the
 * newest AI message normally lacks it on disk until the next save (codebuff-format.md §1.5).
 */
export function keepEmbeddedRunStates(transcript: Buffer, keep: number): Buffer {
  const t = JSON.parse(transcript.toString('utf8')) as Array<{metadata?: {runState?: unknown}}>
  let copies = 0
  for (const m of t) if (m.metadata?.runState && ++copies > keep) delete m.metadata.runState
  return Buffer.from(JSON.stringify(t))
}

/**
 * mulberry32, a small seeded PRNG: the same seed gives the same floats in [0, 1) on every run, so sampled
 * offsets, mutants and generated benchmark inputs are reproducible.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Sets a file's atime and mtime (ms since epoch). */
export function setMtime(p: string, ms: number): void {
  utimesSync(p, ms / 1000, ms / 1000)
}

/**
 * Copies a real tree to `dest`, writable (folders 0755, files 0644), files with distinct mtimes 1 s apart from
 * `base` in name order, each folder's set after its files (git keeps no mtimes; reports and ranking use them).
 */
export function copyWithMtimes(src: string, dest: string, base: number): void {
  cpSync(src, dest, {recursive: true})
  let i = 0
  const walk = (d: string) => {
    chmodSync(d, 0o755)
    for (const n of readdirSync(d).sort()) {
      const p = path.join(d, n)
      if (lstatSync(p).isDirectory()) walk(p)
      else {
        chmodSync(p, 0o644)
        setMtime(p, base + i++ * 1000)
      }
    }
    setMtime(d, base + 1_000_000 + i++ * 1000)
  }
  walk(dest)
}

export function sha256(buf: Uint8Array): string {
  return createHash('sha256').update(buf).digest('hex')
}

/** Every entry under `dir` (not following links, never opening a FIFO or device): relative path → type, size, mtime, sha256 of content. */
export function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    const st = lstatSync(d)
    const rel = path.relative(dir, d) || '.'
    if (st.isSymbolicLink()) out[rel] = `link ${readlinkSync(d)} ${st.mtimeMs}`
    else if (st.isDirectory()) {
      out[rel] = `dir ${st.mtimeMs} ${st.mode}`
      for (const n of readdirSync(d).sort()) walk(path.join(d, n))
    } else if (!st.isFile()) out[rel] = `special ${st.mtimeMs} ${st.mode}`
    else out[rel] = `file ${st.size} ${st.mtimeMs} ${st.mode} ${sha256(readFileSync(d))}`
  }
  walk(dir)
  return out
}

/**
 * Asserts two `hashTree` results are the same tree: same entries, type, size, mode and sha256; mtimes within
 * 1 ms (what `utimes` can set back).
 */
export function assertSameTree(a: Record<string, string>, b: Record<string, string>, msg: string): void {
  assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), msg)
  for (const k of Object.keys(a)) {
    const x = a[k].split(' ')
    const y = b[k].split(' ')
    const mt = x[0] === 'dir' ? 1 : 2
    assert.ok(Math.abs(Number(x[mt]) - Number(y[mt])) < 1, `${msg}: mtime of ${k}`)
    x.splice(mt, 1)
    y.splice(mt, 1)
    assert.deepEqual(x, y, `${msg}: ${k}`)
  }
}

// ---- damage, applied to bytes -------------------------------------------------------------------------

/** The first `n` bytes. */
export const cutAt = (buf: Buffer, n: number): Buffer => Buffer.from(buf.subarray(0, n))
/** Same size, every byte NUL. */
export const zeroFill = (buf: Buffer): Buffer => Buffer.alloc(buf.length)
/** The first `n` bytes, then NULs up to the original size (delayed allocation after a crash). */
export const nulTailAt = (buf: Buffer, n: number): Buffer => Buffer.concat([buf.subarray(0, n), Buffer.alloc(buf.length - n)])
/** The whole document followed by `k` NULs. */
export const nulPadded = (buf: Buffer, k: number): Buffer => Buffer.concat([buf, Buffer.alloc(k)])
/** A UTF-8 BOM in front. */
export const withBom = (buf: Buffer): Buffer => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), buf])
/** `k` NULs overwriting bytes from offset `at` (size kept). */
export const nulRunAt = (buf: Buffer, at: number, k: number): Buffer => {
  const b = Buffer.from(buf)
  b.fill(0, at, at + k)
  return b
}
/** Replaces the byte at `at` with 0xFF (never valid in UTF-8). */
export const invalidByteAt = (buf: Buffer, at: number): Buffer => {
  const b = Buffer.from(buf)
  b[at] = 0xff
  return b
}

/**
 * Inserts text (multi-byte characters, escapes) into the first message text of a compact or pretty JSON file,
 * keeping it valid: finds the first `"text":"` and splices escaped UTF-8 right after it. Returns the new bytes
 * and the byte offset where the insertion starts.
 */
export function insertIntoFirstText(buf: Buffer, text = 'héllo — 日本語 🎉 \\"q\\" \\\\ \\n end'): {buf: Buffer; at: number} {
  const marker = Buffer.from('"text":"')
  let at = buf.indexOf(marker)
  let len = marker.length
  if (at < 0) {
    const pretty = Buffer.from('"text": "')
    at = buf.indexOf(pretty)
    len = pretty.length
  }
  if (at < 0) throw new Error('no "text" field to insert into')
  const pos = at + len
  return {buf: Buffer.concat([buf.subarray(0, pos), Buffer.from(text, 'utf8'), buf.subarray(pos)]), at: pos}
}

// ---- the built CLI, as a user runs it --------------------------------------------------------------

export interface CliResult {
  status: number
  stdout: string
  stderr: string
}

/**
 * The environment a CLI run inherits: this process's, less `COLUMNS` (human output fits `COLUMNS`; tests that
 * want a width give it, and the others must not depend on the terminal of whoever runs them).
 */
export function inheritedEnv(): NodeJS.ProcessEnv {
  const env = {...process.env}
  delete env.COLUMNS
  return env
}

/** Runs `bin/run.js` in a child process (the build must exist: `npm test` builds first). */
export function runCli(args: string[], opts: {env?: NodeJS.ProcessEnv; cwd?: string; input?: string} = {}): CliResult {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'run.js'), ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
    env: {...inheritedEnv(), NO_COLOR: '1', ...opts.env},
    input: opts.input ?? '',
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  })
  return {status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr}
}
