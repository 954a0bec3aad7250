/**
 * Blocking writes to stdout for the `--json` report. When stdout is a pipe, Node's
 * `process.stdout.write` queues what the reader has not taken yet in memory (measured: +90 MB for a
 * 5,000-chat report piped to another process), because the report is written in one synchronous go. Writing
 * to the file descriptor directly, waiting while the pipe is full, keeps at most one chunk in memory.
 */
import {writeSync} from 'node:fs'

const SLEEP = new Int32Array(new SharedArrayBuffer(4))

/** Set once standard output could not be written: every later write is dropped. */
let stdoutLost = false

/**
 * Standard output could not be written (a full disk, an I/O error): said once on stderr in one line, the exit
 * code gets the operational-error bit (8), and the rest of the output is dropped while the command finishes
 * what it is doing (a repair is never cut short by its report). A reader that went away (EPIPE) ends the output
 * quietly, as a closed pipe does.
 */
export function stdoutFailed(e: unknown): void {
  if (stdoutLost) return
  stdoutLost = true
  // Every later write is dropped, oclif's own included (it writes to stdout once more when the command ends).
  process.stdout.write = (() => true) as typeof process.stdout.write
  const code = (e as NodeJS.ErrnoException)?.code ?? 'EIO'
  if (code === 'EPIPE') return
  const why = code === 'ENOSPC' ? 'no space left on its device' : code === 'EDQUOT' ? 'disk quota exceeded' : ((e as Error)?.message ?? String(e))
  process.stderr.write(`chatdoctor: cannot write to standard output: ${why} (${code}); the output is incomplete. Free space where it goes, or send it elsewhere.\n`)
  process.on('exit', () => {
    process.exitCode = (Number(process.exitCode) | 0) | 8
  })
}

/**
 * Makes a failed write to standard output `stdoutFailed` instead of an uncaught error with a stack trace
 * (`process.stdout` may report a failed write as an 'error' event after the write).
 */
export function guardStdout(): void {
  // In place of oclif's listener, which ignores EPIPE and throws anything else from the event.
  if (process.stdout.listeners('error').includes(stdoutFailed)) return
  process.stdout.removeAllListeners('error')
  process.stdout.on('error', stdoutFailed)
}

/** `process.stdout.write`, dropped once standard output failed; a write that fails at once is `stdoutFailed`. */
export function writeStdout(text: string | Uint8Array): void {
  if (stdoutLost) return
  try {
    process.stdout.write(text)
  } catch (e) {
    stdoutFailed(e)
  }
}

/**
 * A writer for `writeJson`: blocking writes to fd 1 when nothing is queued on `process.stdout` (so the order
 * of output is kept), else `process.stdout.write`. A reader that went away (EPIPE) ends the output quietly,
 * as a closed pipe does for `process.stdout.write`. Any other write error is `stdoutFailed`.
 */
export function stdoutWriter(): (text: string | Uint8Array) => void {
  const direct = process.platform !== 'win32' && process.stdout.writableLength === 0
  // `process.stdout.write` may hold what it is given until the reader takes it: bytes are lent (`writeJson`), so a copy.
  if (!direct) return (text) => writeStdout(typeof text === 'string' ? text : Buffer.from(text))
  let closed = false
  return (text) => {
    if (closed || stdoutLost) return
    const buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text
    let off = 0
    while (off < buf.length) {
      try {
        off += writeSync(1, buf, off, buf.length - off)
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code
        if (code === 'EAGAIN') Atomics.wait(SLEEP, 0, 0, 2) // the pipe is full: wait for the reader
        else if (code === 'EPIPE') {
          closed = true
          return
        } else {
          stdoutFailed(e)
          return
        }
      }
    }
  }
}
