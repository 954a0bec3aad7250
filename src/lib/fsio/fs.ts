/**
 * The write seam: every file operation of `repair` and `undo` goes through a `FileSystem`, so a test can
 * record the exact operation trace, inject errors (EACCES, EROFS, EPERM, EBUSY, …) and replay
 * every prefix of the trace under crash models. Nothing outside `src/lib/fsio/` and `apply.ts`/`undo.ts`
 * writes files.
 *
 * - `nodeFileSystem`: the real one, over `node:fs/promises`.
 * - `RecordingFileSystem`: wraps another, records every call (arguments, written bytes, result or error code)
 *   in `trace`, and throws injected errors before the call reaches the wrapped one.
 *
 * File descriptors are plain numbers (the OS's fd for the real one). Paths are absolute. Times are ms since
 * epoch. Errors are Node `ErrnoException`s (with `code`), as `node:fs` throws them.
 *
 * A `rename` or `unlink` that replaces or removes a user file is guarded: it takes what the caller last saw at
 * that path (`Expected`: the same inode, size and mtime, or nothing) and throws `ECHANGED` instead of running
 * when the path holds something else, so another writer's new file is never replaced unseen. The guard is one
 * seam operation: its lstat runs right before the rename(2) or unlink(2), with nothing in between but the
 * comparison (POSIX has no compare-and-rename, so a writer landing in those microseconds is not seen; the
 * check right after the rename is what catches the rest).
 */
import {createHash} from 'node:crypto'
import {constants, type Stats} from 'node:fs'
import {open as fsOpen, link, copyFile, mkdir, readdir, rename, rmdir, unlink, lstat, utimes, type FileHandle} from 'node:fs/promises'

/** Open modes the seam supports: `wx` create exclusively for writing, `a` append (create), `r` read. */
export type OpenFlags = 'wx' | 'a' | 'r'

/** What `lstat` gives: enough to compare sizes and times and to keep a file's mode. */
export interface StatInfo {
  kind: 'file' | 'directory' | 'symlink' | 'other'
  /** Size in bytes. */
  size: number
  /** ms since epoch, fractional as the OS gives it. */
  mtimeMs: number
  atimeMs: number
  /** Permission bits (`mode & 0o7777`). */
  mode: number
  /** Number of hard links. */
  nlink: number
  ino: number
}

/**
 * What a guarded `rename`/`unlink` expects at the path it replaces or removes: the file last seen there (its
 * inode, size and mtime), or `absent`.
 */
export type Expected = {ino: number; size: number; mtimeMs: number} | 'absent'

/** The errno-like code of a guarded operation that found something else at its path. */
export const ECHANGED = 'ECHANGED'

/** A guarded operation found another file (or none) where it expected `Expected`: another writer was there. */
export class ChangedError extends Error {
  readonly code = ECHANGED
  constructor(
    readonly path: string,
    /** What changed, in words: `new mtime`, `100 → 120 bytes`, `replaced by another file`, `disappeared`, `appeared`. */
    readonly what: string,
  ) {
    super(`${path} changed (${what})`)
  }
}

/** How `now` (an lstat, or null when absent) differs from `expected`; null when it does not. */
export function differsFrom(expected: Expected, now: Pick<StatInfo, 'ino' | 'size' | 'mtimeMs'> | null): string | null {
  if (expected === 'absent') return now === null ? null : 'appeared'
  if (now === null) return 'disappeared'
  if (now.ino !== expected.ino) return 'replaced by another file'
  if (now.size !== expected.size) return `${expected.size} → ${now.size} bytes`
  if (now.mtimeMs !== expected.mtimeMs) return 'new mtime'
  return null
}

/** The file operations chatdoctor may perform. All paths absolute. */
export interface FileSystem {
  /** Opens a file; returns its descriptor. `mode` (permission bits) applies when the file is created. */
  open(path: string, flags: OpenFlags, mode?: number): Promise<number>
  /** Writes all of `data` at the descriptor's current position. */
  write(fd: number, data: Uint8Array): Promise<void>
  /** Flushes the file's data and metadata to stable storage (F_FULLFSYNC on macOS, through libuv). */
  fsync(fd: number): Promise<void>
  close(fd: number): Promise<void>
  /**
   * Atomically replaces `to` with `from` (same filesystem). With `expect`, first checks that `to` still is
   * what the caller saw (else throws `ChangedError`, nothing renamed).
   */
  rename(from: string, to: string, expect?: Expected): Promise<void>
  /** Makes a hard link `newPath` to `existing`. */
  link(existing: string, newPath: string): Promise<void>
  /** Copies bytes to a new file; fails with EEXIST when `to` exists. */
  copyFile(from: string, to: string): Promise<void>
  /** Creates a directory (with `recursive`, its missing parents too; no error when it exists). */
  mkdir(path: string, opts?: {recursive?: boolean}): Promise<void>
  /** Sets access and modification times (ms since epoch). */
  utimes(path: string, atimeMs: number, mtimeMs: number): Promise<void>
  /** Removes a name. With `expect`, first checks that it still is what the caller saw (else `ChangedError`). */
  unlink(path: string, expect?: Expected): Promise<void>
  /** Removes an empty directory. */
  rmdir(path: string): Promise<void>
  readFile(path: string): Promise<Buffer>
  /** sha256 (lower-case hex) and size of a file's bytes, read a chunk at a time (for files too large to hold). */
  hashFile(path: string): Promise<{sha256: string; size: number}>
  /** The names in a directory (unsorted). */
  readdir(path: string): Promise<string[]>
  /** Stats without following a symbolic link. */
  lstat(path: string): Promise<StatInfo>
  /**
   * Flushes a directory's entries (a rename or a new name in it) to stable storage. A no-op where the
   * platform cannot open a directory for fsync (Windows) or the filesystem does not support it (EINVAL).
   */
  fsyncDir(path: string): Promise<void>
}

function statInfo(st: Stats): StatInfo {
  return {
    kind: st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other',
    size: st.size,
    mtimeMs: st.mtimeMs,
    atimeMs: st.atimeMs,
    mode: st.mode & 0o7777,
    nlink: st.nlink,
    ino: st.ino,
  }
}

/**
 * Every open refuses a symbolic link as its last component (ELOOP): no operation of the seam reads or writes
 * through one, whatever a caller checked before. Windows has no such flag (0 there).
 */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0

const FLAGS: Record<OpenFlags, number> = {
  wx: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW,
  a: constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | NOFOLLOW,
  r: constants.O_RDONLY | NOFOLLOW,
}

async function lstatOrNull(p: string): Promise<StatInfo | null> {
  try {
    return statInfo(await lstat(p))
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw e
  }
}

/**
 * Throws `ChangedError` when `p` is no longer what `expected` says, or when a file was expected and `p` is a
 * symbolic link or anything else but a regular file (a guarded rename never replaces one, a guarded unlink never
 * removes one).
 */
async function guard(p: string, expected: Expected | undefined): Promise<void> {
  if (expected === undefined) return
  const now = await lstatOrNull(p)
  if (expected !== 'absent' && now !== null && now.kind !== 'file') throw new ChangedError(p, now.kind === 'symlink' ? 'replaced by a symbolic link' : 'replaced by something not a regular file')
  const what = differsFrom(expected, now)
  if (what !== null) throw new ChangedError(p, what)
}

/** The real file system (node:fs). */
export function nodeFileSystem(): FileSystem {
  const handles = new Map<number, FileHandle>()
  const handle = (fd: number): FileHandle => {
    const h = handles.get(fd)
    if (!h) throw Object.assign(new Error(`EBADF: bad file descriptor ${fd}`), {code: 'EBADF'})
    return h
  }
  return {
    async open(p, flags, mode = 0o644) {
      const h = await fsOpen(p, FLAGS[flags], mode)
      handles.set(h.fd, h)
      return h.fd
    },
    async write(fd, data) {
      const h = handle(fd)
      let off = 0
      while (off < data.length) {
        const {bytesWritten} = await h.write(data, off, data.length - off, null)
        off += bytesWritten
      }
    },
    async fsync(fd) {
      await handle(fd).sync()
    },
    async close(fd) {
      const h = handle(fd)
      handles.delete(fd)
      await h.close()
    },
    async rename(a, b, expect) {
      await guard(b, expect)
      await rename(a, b)
    },
    link: (a, b) => link(a, b),
    async copyFile(a, b) {
      // copyfile(3) follows a link at `a`: the seam copies regular files only.
      if (!(await lstat(a)).isFile()) throw Object.assign(new Error(`ELOOP: not a regular file, copyfile '${a}'`), {code: 'ELOOP', syscall: 'copyfile', path: a})
      await copyFile(a, b, constants.COPYFILE_EXCL)
    },
    async mkdir(p, opts) {
      await mkdir(p, {recursive: opts?.recursive ?? false})
    },
    utimes: (p, a, m) => utimes(p, a / 1000, m / 1000),
    async unlink(p, expect) {
      await guard(p, expect)
      await unlink(p)
    },
    rmdir: (p) => rmdir(p),
    async readFile(p) {
      const fh = await fsOpen(p, FLAGS.r)
      try {
        return await fh.readFile()
      } finally {
        await fh.close()
      }
    },
    async hashFile(p) {
      // One buffer reused for every read: a read stream's fresh buffer per chunk leaves hundreds of MB of
      // garbage outside the heap for the collector to find when the file is large.
      const h = createHash('sha256')
      let size = 0
      const fh = await fsOpen(p, FLAGS.r)
      try {
        const buf = Buffer.allocUnsafe(1 << 22)
        for (;;) {
          const {bytesRead} = await fh.read(buf, 0, buf.length, null)
          if (bytesRead === 0) break
          h.update(buf.subarray(0, bytesRead))
          size += bytesRead
        }
      } finally {
        await fh.close()
      }
      return {sha256: h.digest('hex'), size}
    },
    readdir: (p) => readdir(p),
    lstat: async (p) => statInfo(await lstat(p)),
    async fsyncDir(p) {
      if (process.platform === 'win32') return
      let h: FileHandle | undefined
      try {
        h = await fsOpen(p, constants.O_RDONLY)
        await h.sync()
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code
        if (code !== 'EINVAL' && code !== 'ENOTSUP' && code !== 'EISDIR') throw e
      } finally {
        await h?.close()
      }
    },
  }
}

/** The name of every `FileSystem` operation. */
export type OpName = keyof FileSystem

/** Operations that change the file system (the rest only read). */
export const MUTATING_OPS: ReadonlySet<OpName> = new Set<OpName>(['open', 'write', 'fsync', 'close', 'rename', 'link', 'copyFile', 'mkdir', 'utimes', 'unlink', 'rmdir', 'fsyncDir'])

/**
 * One recorded call. `args` holds the call's arguments as given (paths, flags, mode, times); `data` the bytes
 * of a `write` (a copy); `result` the descriptor of an `open`, the size of a `readFile`; `error` the errno
 * code when the call failed (injected or real). A replay needs only `op`, `args` and `data`.
 */
export interface TraceEntry {
  seq: number
  op: OpName
  args: Array<string | number | boolean | null>
  data?: Buffer
  result?: number
  error?: string
}

/**
 * A rule for error injection: when an operation matches, it throws `code` instead of running.
 * `path` matches any path argument (substring or RegExp). `times` limits how often it fires (default: always).
 */
export interface Injection {
  op: OpName | OpName[]
  path?: string | RegExp
  code: string
  times?: number
}

/** An error like the ones node:fs throws. */
export function errnoError(code: string, op: string, p: string): NodeJS.ErrnoException {
  const messages: Record<string, string> = {
    EACCES: 'permission denied',
    EROFS: 'read-only file system',
    EPERM: 'operation not permitted',
    EBUSY: 'resource busy or locked',
    ENOSPC: 'no space left on device',
    EIO: 'i/o error',
    EXDEV: 'cross-device link not permitted',
    ENOENT: 'no such file or directory',
  }
  return Object.assign(new Error(`${code}: ${messages[code] ?? 'injected error'}, ${op} '${p}'`), {code, syscall: op, path: p})
}

/**
 * A `FileSystem` that records every call in `trace` and throws injected errors. `onOp` (optional) runs
 * before each call, after injection is decided: tests use it to change a file "mid-run".
 */
export class RecordingFileSystem implements FileSystem {
  readonly trace: TraceEntry[] = []
  private seq = 0
  private fdPaths = new Map<number, string>()

  constructor(
    private readonly inner: FileSystem,
    public injections: Injection[] = [],
    public onOp?: (op: OpName, args: Array<string | number | boolean | null>) => void | Promise<void>,
  ) {}

  /** Only the calls that change the file system. */
  mutations(): TraceEntry[] {
    return this.trace.filter((t) => MUTATING_OPS.has(t.op))
  }

  private async call<T>(op: OpName, args: Array<string | number | boolean | null>, paths: string[], run: () => Promise<T>, data?: Uint8Array): Promise<T> {
    const entry: TraceEntry = {seq: this.seq++, op, args}
    if (data) entry.data = Buffer.from(data)
    this.trace.push(entry)
    if (this.onOp) await this.onOp(op, args)
    for (const inj of this.injections) {
      const ops = Array.isArray(inj.op) ? inj.op : [inj.op]
      if (!ops.includes(op)) continue
      if (inj.path !== undefined && !paths.some((p) => (typeof inj.path === 'string' ? p.includes(inj.path) : inj.path!.test(p)))) continue
      if (inj.times !== undefined) {
        if (inj.times <= 0) continue
        inj.times--
      }
      entry.error = inj.code
      throw errnoError(inj.code, op, paths[0] ?? '')
    }
    try {
      const r = await run()
      if (typeof r === 'number') entry.result = r
      else if (Buffer.isBuffer(r)) entry.result = r.length
      return r
    } catch (e) {
      entry.error = (e as NodeJS.ErrnoException).code ?? 'ERROR'
      throw e
    }
  }

  private fdPath(fd: number): string {
    return this.fdPaths.get(fd) ?? ''
  }

  async open(p: string, flags: OpenFlags, mode = 0o644) {
    const fd = await this.call('open', [p, flags, mode], [p], () => this.inner.open(p, flags, mode))
    this.fdPaths.set(fd, p)
    return fd
  }
  write(fd: number, data: Uint8Array) {
    return this.call('write', [fd, this.fdPath(fd)], [this.fdPath(fd)], () => this.inner.write(fd, data), data)
  }
  fsync(fd: number) {
    return this.call('fsync', [fd, this.fdPath(fd)], [this.fdPath(fd)], () => this.inner.fsync(fd))
  }
  async close(fd: number) {
    await this.call('close', [fd, this.fdPath(fd)], [this.fdPath(fd)], () => this.inner.close(fd))
    this.fdPaths.delete(fd)
  }
  rename(a: string, b: string, expect?: Expected) {
    return this.call('rename', [a, b], [a, b], () => this.inner.rename(a, b, expect))
  }
  link(a: string, b: string) {
    return this.call('link', [a, b], [a, b], () => this.inner.link(a, b))
  }
  copyFile(a: string, b: string) {
    return this.call('copyFile', [a, b], [a, b], () => this.inner.copyFile(a, b))
  }
  mkdir(p: string, opts?: {recursive?: boolean}) {
    return this.call('mkdir', [p, opts?.recursive ?? false], [p], () => this.inner.mkdir(p, opts))
  }
  utimes(p: string, a: number, m: number) {
    return this.call('utimes', [p, a, m], [p], () => this.inner.utimes(p, a, m))
  }
  unlink(p: string, expect?: Expected) {
    return this.call('unlink', [p], [p], () => this.inner.unlink(p, expect))
  }
  rmdir(p: string) {
    return this.call('rmdir', [p], [p], () => this.inner.rmdir(p))
  }
  readFile(p: string) {
    return this.call('readFile', [p], [p], () => this.inner.readFile(p))
  }
  hashFile(p: string) {
    return this.call('hashFile', [p], [p], () => this.inner.hashFile(p))
  }
  readdir(p: string) {
    return this.call('readdir', [p], [p], () => this.inner.readdir(p))
  }
  lstat(p: string) {
    return this.call('lstat', [p], [p], () => this.inner.lstat(p))
  }
  fsyncDir(p: string) {
    return this.call('fsyncDir', [p], [p], () => this.inner.fsyncDir(p))
  }
}
