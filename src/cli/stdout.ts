/**
 * Blocking writes to stdout for the `--json` report. When stdout is a pipe, Node's
 * `process.stdout.write` queues what the reader has not taken yet in memory (measured: +90 MB for a
 * 5,000-chat report piped to another process), because the report is written in one synchronous go. Writing
 * to the file descriptor directly, waiting while the pipe is full, keeps at most one chunk in memory.
 */
import {writeSync} from 'node:fs'

const SLEEP = new Int32Array(new SharedArrayBuffer(4))

/**
 * A writer for `writeJson`: blocking writes to fd 1 when nothing is queued on `process.stdout` (so the order
 * of output is kept), else `process.stdout.write`. A reader that went away (EPIPE) ends the output quietly,
 * as a closed pipe does for `process.stdout.write`. Other write errors are thrown.
 */
export function stdoutWriter(): (text: string | Uint8Array) => void {
  const direct = process.platform !== 'win32' && process.stdout.writableLength === 0
  // `process.stdout.write` may hold what it is given until the reader takes it: bytes are lent (`writeJson`), so a copy.
  if (!direct) return (text) => void process.stdout.write(typeof text === 'string' ? text : Buffer.from(text))
  let closed = false
  return (text) => {
    if (closed) return
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
        } else throw e
      }
    }
  }
}
