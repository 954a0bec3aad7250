/**
 * Deliberately broken write paths, plugged in through the `FileSystem` seam (production code has no switch for
 * them). The crash suite must find a crash state that breaks its invariants for each (test/crash.test.ts).
 *
 * - `skipFsync`: `fsync` of a file does nothing, so the data may not be on disk when the rename is
 *   (the 2009 ext4 zero-length-file class; write-file-atomic with `fsync: false`; steno).
 * - `skipDirFsync`: `fsyncDir` does nothing, so a rename can reach the disk while the directory entries of the
 *   evidence do not.
 * - `inPlace`: a rename over an existing file becomes "remove the target, create it, write the bytes" (how
 *   `fs.writeFile` rewrites: there is a window with no complete target).
 */
import type {FileSystem} from '../../src/lib/fsio/fs.js'

function delegate(inner: FileSystem): FileSystem {
  return {
    open: (p, f, m) => inner.open(p, f, m),
    write: (fd, d) => inner.write(fd, d),
    fsync: (fd) => inner.fsync(fd),
    close: (fd) => inner.close(fd),
    rename: (a, b, e) => inner.rename(a, b, e),
    link: (a, b) => inner.link(a, b),
    copyFile: (a, b) => inner.copyFile(a, b),
    mkdir: (p, o) => inner.mkdir(p, o),
    utimes: (p, a, m) => inner.utimes(p, a, m),
    unlink: (p, e) => inner.unlink(p, e),
    rmdir: (p) => inner.rmdir(p),
    readFile: (p) => inner.readFile(p),
    hashFile: (p) => inner.hashFile(p),
    readdir: (p) => inner.readdir(p),
    lstat: (p) => inner.lstat(p),
    fsyncDir: (p) => inner.fsyncDir(p),
  }
}

export const BROKEN_WRITERS: Record<string, (inner: FileSystem) => FileSystem> = {
  skipFsync: (inner) => ({...delegate(inner), fsync: async () => undefined}),
  skipDirFsync: (inner) => ({...delegate(inner), fsyncDir: async () => undefined}),
  inPlace: (inner) => ({
    ...delegate(inner),
    async rename(from, to) {
      let exists = true
      try {
        await inner.lstat(to)
      } catch {
        exists = false
      }
      if (!exists) return inner.rename(from, to)
      const data = await inner.readFile(from)
      await inner.unlink(to)
      const fd = await inner.open(to, 'wx', 0o644)
      try {
        await inner.write(fd, data)
        await inner.fsync(fd)
      } finally {
        await inner.close(fd)
      }
      await inner.unlink(from)
    },
  }),
}
