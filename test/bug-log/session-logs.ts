/**
 * What the Claude Code and Codex parts of the bug log share: a folder of session logs under construction, built
 * from copies of the real logs the agents' binaries wrote (`shared/realdata/claude-code/2.1.328`,
 * `shared/realdata/codex/0.169.0`, `shared/realdata/public`), and the line operations that damage them.
 */
import {mkdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {setMtime} from '../helpers/fixtures.js'
import {body, linesOf} from '../helpers/sessions.js'

/** The base time of the copied logs (ms since epoch); siblings get their own offsets from it. */
export const T0 = Date.UTC(2026, 11, 1, 9, 0, 0)

export {body, linesOf}

/**
 * One folder of files under construction (a folder of session logs, a chat dir): created if absent; `t0` is the
 * mtime of files written new (ms since epoch).
 */
export class LogFolder {
  constructor(
    readonly dir: string,
    private readonly t0 = T0,
  ) {
    mkdirSync(dir, {recursive: true})
  }
  path(name: string): string {
    return path.join(this.dir, name)
  }
  read(name: string): Buffer {
    return readFileSync(this.path(name))
  }
  /** Writes a file; keeps the mtime of the file it replaces unless `mtimeMs` is given (new files: T0). */
  write(name: string, data: Buffer | string, mtimeMs?: number): void {
    const p = this.path(name)
    let keep = this.t0
    try {
      keep = statSync(p).mtimeMs
    } catch {
      // a new file
    }
    writeFileSync(p, data)
    setMtime(p, mtimeMs ?? keep)
  }
  /** Replaces a file's bytes with `fn` of them (its mtime kept). */
  damage(name: string, fn: (b: Buffer) => Buffer): void {
    this.write(name, fn(this.read(name)))
  }
  /** Replaces a file's lines with `fn` of them (each line with its line ending; its mtime kept). */
  lines(name: string, fn: (lines: Buffer[]) => Buffer[]): void {
    this.damage(name, (b) => Buffer.concat(fn(linesOf(b))))
  }
  remove(name: string): void {
    rmSync(this.path(name))
  }
  touch(name: string, mtimeMs: number): void {
    setMtime(this.path(name), mtimeMs)
  }
}

export const LF = Buffer.from('\n')

/** A line's first `n` bytes (no line ending). */
export function headOf(line: Buffer, n: number): Buffer {
  return Buffer.from(body(line).subarray(0, n))
}

/** A line's first `p` (0–1) of its bytes (no line ending). */
export function partOf(line: Buffer, p: number): Buffer {
  return headOf(line, Math.floor(body(line).length * p))
}

/** `line` with `replace` applied to its text once (the bytes must hold `find`). */
export function edited(line: Buffer, find: string, replace: string): Buffer {
  const s = line.toString('utf8')
  if (!s.includes(find)) throw new Error(`no ${JSON.stringify(find)} in the line`)
  return Buffer.from(s.replace(find, replace))
}

/** `line` with `bytes` spliced in right after the first occurrence of `after`. */
export function spliced(line: Buffer, after: string, bytes: Buffer): Buffer {
  const at = line.indexOf(after)
  if (at < 0) throw new Error(`no ${JSON.stringify(after)} in the line`)
  const pos = at + Buffer.byteLength(after)
  return Buffer.concat([line.subarray(0, pos), bytes, line.subarray(pos)])
}

/** The 1-based numbers of the lines whose text holds `needle`. */
export function linesHolding(lines: Buffer[], needle: string): number[] {
  return lines.flatMap((l, i) => (l.includes(needle) ? [i + 1] : []))
}

/** Text that looks like minified library code (no line is a JSON object), `n` lines of it. */
export function minifiedScript(n: number): Buffer {
  const line = '/*! highlight.js v11.9.0 | BSD3 License */var hljs=function(){"use strict";function e(t){return t instanceof Map?t.clear=t.delete=t.set=()=>{throw Error("map is read-only")}:t}return{name:"javascript",keywords:e}}();\n'
  return Buffer.from(line.repeat(n))
}

/** `n` bytes that look like ciphertext: seeded, the first byte never `{`, no line break. */
export function ciphertextLike(n: number, random: () => number): Buffer {
  const b = Buffer.alloc(n)
  for (let i = 0; i < n; i++) {
    let v = Math.floor(random() * 256)
    while (v === 0x0a || v === 0x0d || (i === 0 && (v === 0x7b || v === 0x20 || v === 0x09 || v === 0x00 || v === 0xef))) v = (v + 37) & 0xff
    b[i] = v
  }
  return b
}
