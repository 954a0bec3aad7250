/**
 * The durable write (prior-art.md §2.5; PostgreSQL's durable_rename): chatdoctor's own temp in the target's
 * directory → write → fsync the file → close → rename over the target → fsync the directory → re-read the
 * target and compare its sha256 with the planned bytes.
 *
 * The temp name is chatdoctor's own (`.chatdoctor-<tag>-<target name>.tmp`): dot-named, so it never matches an
 * agent's temp patterns (Codebuff: `run-state.json.*.tmp`) and never becomes a candidate generation itself.
 * A rename that fails with EPERM/EBUSY (Windows scanners and indexers holding the target) is retried with
 * backoff for a bounded time (`RENAME_RETRY_MS`).
 *
 * Over a user file the rename is guarded (`expect`: what must still be at the target, else `ChangedError` and
 * the target is untouched), after a caller's last check (`beforeRename`). A read-back that finds another inode
 * than the one written, or another size, means another writer renamed over it or appended to it right after:
 * `ChangedError`, never a retry.
 */
import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'
import path from 'node:path'
import type {ChunkedBytes} from '../model/adapter.js'
import {ChangedError, type Expected, type FileSystem} from './fs.js'

/** How long a rename failing with EPERM/EBUSY is retried, in ms (prior-art.md §7.1 S4). */
export const RENAME_RETRY_MS = 2000

/** sha256 of bytes, lower-case hex. */
export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

/** The read-back after a durable write did not give the planned bytes. */
export class VerifyError extends Error {
  readonly code = 'EVERIFY'
  constructor(
    readonly target: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`read-back of ${path.basename(target)} does not match the bytes written (sha256 ${actual.slice(0, 12)}…, expected ${expected.slice(0, 12)}…)`)
  }
}

/** chatdoctor's temp name for a target: dot-named, never an agent temp pattern. */
export function ownTempName(target: string, tag: string): string {
  return `.chatdoctor-${tag}-${path.basename(target)}.tmp`
}

export interface DurableWriteOptions {
  /** A tag that makes the temp name unique to this run (the repair id). */
  tag: string
  /** Permission bits of the new file (subject to the umask); default 0o644. */
  mode?: number
  /** Retry budget for EPERM/EBUSY renames, ms; default `RENAME_RETRY_MS`. */
  retryMs?: number
  /** How to wait between rename attempts (tests pass a no-op). */
  sleep?: (ms: number) => Promise<void>
  /** What must still be at the target when it is replaced (a guarded rename); a mismatch throws `ChangedError`. */
  expect?: Expected
  /** Runs once the temp is durable, right before the rename; throwing aborts with the target untouched. */
  beforeRename?: () => Promise<void>
  /** Called right after the rename succeeded: the target is replaced, whatever happens next. */
  onRenamed?: () => void
}

export interface DurableWriteResult {
  /** sha256 of the bytes now in the target (equal to the planned bytes'). */
  sha256: string
  bytes: number
  /** Rename attempts made (1 when the first succeeded). */
  renameAttempts: number
  /** The inode and mtime of the file written (the temp, now the target). */
  ino: number
  mtimeMs: number
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/**
 * Writes `data` to `target` durably and verifies it. Throws the underlying errno error (EACCES, EROFS,
 * ENOSPC, …) when a step fails, after removing its own temp (best effort); throws `VerifyError` when the
 * read-back differs. Never leaves the target half-written: the target is either untouched or replaced whole.
 *
 * `data` may come in chunks (`ChunkedBytes`, memory bounded by a chunk): they are hashed as they are written,
 * and when they are not the planned bytes (their source changed since the plan) the temp is removed and
 * `ChangedError` thrown before the rename, the target untouched; the read-back is then hashed a chunk at a
 * time.
 */
export async function durableWrite(fs: FileSystem, target: string, data: Uint8Array | ChunkedBytes, opts: DurableWriteOptions): Promise<DurableWriteResult> {
  const chunked = data instanceof Uint8Array ? null : data
  const expected = chunked ? chunked.sha256 : sha256Hex(data as Uint8Array)
  const size = chunked ? chunked.size : (data as Uint8Array).length
  let attempts = 0
  const written = await viaOwnTemp(
    fs,
    target,
    opts,
    async (fd) => {
      if (!chunked) {
        await fs.write(fd, data as Uint8Array)
        return
      }
      const h = createHash('sha256')
      let n = 0
      for (const chunk of chunked.chunks()) {
        await fs.write(fd, chunk)
        h.update(chunk)
        n += chunk.length
      }
      const got = h.digest('hex')
      if (got !== expected || n !== size) throw new ChangedError(target, `changed since the scan (its bytes read again for the repair are not those planned: ${n} bytes, sha256 ${got.slice(0, 12)}…)`)
    },
    async (temp) => {
      if (opts.beforeRename) await opts.beforeRename()
      attempts = await renameRetrying(fs, temp, target, opts)
    },
  )
  const actual = chunked ? (await fs.hashFile(target)).sha256 : sha256Hex(await fs.readFile(target))
  await checkReadBack(fs, target, written, {expected, actual, size})
  return {sha256: actual, bytes: size, renameAttempts: attempts, ...written}
}

/**
 * Renames `temp` over `target` (guarded by `opts.expect`), retrying EPERM/EBUSY within the budget; calls
 * `opts.onRenamed` once it succeeded. Returns the attempts made.
 */
async function renameRetrying(fs: FileSystem, temp: string, target: string, opts: DurableWriteOptions): Promise<number> {
  const budget = opts.retryMs ?? RENAME_RETRY_MS
  const sleep = opts.sleep ?? defaultSleep
  let waited = 0
  let delay = 10
  for (let attempts = 1; ; attempts++) {
    try {
      await fs.rename(temp, target, opts.expect)
      opts.onRenamed?.()
      return attempts
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if ((code !== 'EPERM' && code !== 'EBUSY') || waited >= budget) throw e
      await sleep(delay)
      waited += delay
      delay = Math.min(delay * 2, 250)
    }
  }
}

/** Reads a file in chunks (for bytes too large to hold: a restore from a file, a read-back). */
export type ReadChunks = (file: string) => AsyncIterable<Uint8Array>

/** `ReadChunks` from disk, 1 MiB at a time (reads only: writes go through the `FileSystem`). */
export const readFileChunks: ReadChunks = (file) => createReadStream(file, {highWaterMark: 1 << 20})

/** Files above this many bytes are hashed and copied in chunks (`readFileChunks`) instead of read whole. */
export const CHUNKED_BYTES = 64 * 2 ** 20

/** sha256 of chunks (hex). */
export async function sha256Chunks(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const h = createHash('sha256')
  for await (const c of chunks) h.update(c)
  return h.digest('hex')
}

/**
 * `durableWrite` of bytes too large to hold, read in chunks from a file (`readChunks(source)`: a generation
 * file of the chat, an evidence copy): chatdoctor's own temp, each chunk written as it is read and hashed,
 * fsync, close; the bytes must be the planned ones (`sha256`, `bytes`), else `ChangedError` (the source changed
 * since it was scanned) with the target untouched; then the same guarded rename as `durableWrite` (`expect`,
 * `beforeRename`, retries), fsync of the folder, and a read-back of the target in chunks compared with the
 * sha256. Memory: one chunk, whatever the size.
 */
export async function durableCopy(fs: FileSystem, target: string, source: string, opts: DurableWriteOptions & {sha256: string; bytes: number; readChunks: ReadChunks; mismatch?: () => Error}): Promise<DurableWriteResult> {
  let attempts = 0
  const written = await viaOwnTemp(
    fs,
    target,
    opts,
    async (fd) => {
      const hash = createHash('sha256')
      let bytes = 0
      for await (const chunk of opts.readChunks(source)) {
        await fs.write(fd, chunk)
        hash.update(chunk)
        bytes += chunk.length
      }
      if (bytes !== opts.bytes || hash.digest('hex') !== opts.sha256) throw opts.mismatch?.() ?? new ChangedError(source, 'changed since the scan (its bytes are not the ones planned)')
    },
    async (temp) => {
      if (opts.beforeRename) await opts.beforeRename()
      attempts = await renameRetrying(fs, temp, target, opts)
    },
  )
  const actual = await sha256Chunks(opts.readChunks(target))
  await checkReadBack(fs, target, written, {expected: opts.sha256, actual, size: opts.bytes})
  return {sha256: actual, bytes: opts.bytes, renameAttempts: attempts, ...written}
}

/**
 * `durableWrite` for bytes that come as a stream (an archive being made): chatdoctor's own temp beside the
 * target, each chunk written as it comes (memory bounded by a chunk, whatever the total) and hashed, fsync,
 * close, rename over the target, fsync of the folder; then the target is read back in chunks and its sha256
 * compared with the bytes written. An error from `source` (or any step) removes the temp and is rethrown: the
 * target is either untouched or replaced whole. No guarded rename: for outputs of chatdoctor's own, not user
 * state.
 */
export async function durableWriteStream(
  fs: FileSystem,
  target: string,
  source: AsyncIterable<Uint8Array>,
  opts: Pick<DurableWriteOptions, 'tag' | 'mode'> & {readBack: (file: string) => AsyncIterable<Uint8Array>},
): Promise<DurableWriteResult> {
  const hash = createHash('sha256')
  let bytes = 0
  const written = await viaOwnTemp(
    fs,
    target,
    opts,
    async (fd) => {
      for await (const chunk of source) {
        await fs.write(fd, chunk)
        hash.update(chunk)
        bytes += chunk.length
      }
    },
    (temp) => fs.rename(temp, target),
  )
  const expected = hash.digest('hex')
  const actual = await sha256Chunks(opts.readBack(target))
  await checkReadBack(fs, target, written, {expected, actual, size: null})
  return {sha256: actual, bytes, renameAttempts: 1, ...written}
}

/**
 * The steps every durable write shares: chatdoctor's own temp beside `target` is created (one a crashed earlier
 * run with the same tag left, e.g. an undo re-run, is garbage of ours: removed first), `fill` writes it, it is
 * fsynced and closed, `replace` renames it over the target, and the folder is fsynced. On an error of any step
 * the temp is removed (best effort) unless it was renamed, and the error is rethrown. Returns the inode and
 * mtime of the file written.
 */
async function viaOwnTemp(
  fs: FileSystem,
  target: string,
  opts: Pick<DurableWriteOptions, 'tag' | 'mode'>,
  fill: (fd: number) => Promise<void>,
  replace: (temp: string) => Promise<void>,
): Promise<{ino: number; mtimeMs: number}> {
  const dir = path.dirname(target)
  const temp = path.join(dir, ownTempName(target, opts.tag))
  let fd: number | undefined
  let created = false
  let renamed = false
  try {
    try {
      fd = await fs.open(temp, 'wx', opts.mode ?? 0o644)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      await fs.unlink(temp)
      fd = await fs.open(temp, 'wx', opts.mode ?? 0o644)
    }
    created = true
    await fill(fd)
    await fs.fsync(fd)
    const f = fd
    fd = undefined
    await fs.close(f)
    const st = await fs.lstat(temp)
    await replace(temp)
    renamed = true
    await fs.fsyncDir(dir)
    return {ino: st.ino, mtimeMs: st.mtimeMs}
  } catch (e) {
    if (fd !== undefined) await fs.close(fd).catch(() => undefined)
    if (created && !renamed) await fs.unlink(temp).catch(() => undefined)
    throw e
  }
}

/**
 * A read-back whose sha256 is not the bytes written: another file renamed over the target, or the target
 * written to (its size changed, where the size is known) right after the rename, is `ChangedError`; else
 * `VerifyError`.
 */
async function checkReadBack(fs: FileSystem, target: string, written: {ino: number}, r: {expected: string; actual: string; size: number | null}): Promise<void> {
  if (r.actual === r.expected) return
  const now = await fs.lstat(target).catch(() => null)
  if (now === null || now.ino !== written.ino) throw new ChangedError(target, now === null ? 'disappeared right after the rename' : 'replaced by another file right after the rename')
  if (r.size !== null && now.size !== r.size) throw new ChangedError(target, `written to right after the rename (${r.size} → ${now.size} bytes)`)
  throw new VerifyError(target, r.expected, r.actual)
}

/**
 * Appends one line to a log file durably: open for append (creating it), write, fsync, close; fsync the
 * directory when the file was new. The log's directory is created when missing, and the parent of every folder
 * created is fsynced too (else a crash can lose the folder, and the log with it, while later writes survive).
 * When the file does not end in a newline (a torn line left by a crash), the line starts on a new line, so it
 * never glues onto the torn one and stays readable.
 */
export async function durableAppend(fs: FileSystem, file: string, line: string): Promise<void> {
  const dir = path.dirname(file)
  const missing: string[] = []
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    try {
      await fs.lstat(d)
      break
    } catch {
      missing.unshift(d)
    }
  }
  await fs.mkdir(dir, {recursive: true})
  for (const d of missing) await fs.fsyncDir(path.dirname(d))
  let existed = true
  let tornTail = false
  try {
    const st = await fs.lstat(file)
    if (st.size > 0) {
      const old = await fs.readFile(file)
      tornTail = old.length > 0 && old[old.length - 1] !== 0x0a
    }
  } catch {
    existed = false
  }
  const fd = await fs.open(file, 'a', 0o600)
  try {
    await fs.write(fd, Buffer.from((tornTail ? '\n' : '') + (line.endsWith('\n') ? line : line + '\n')))
    await fs.fsync(fd)
  } finally {
    await fs.close(fd)
  }
  if (!existed) await fs.fsyncDir(dir)
}
