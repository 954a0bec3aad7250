/**
 * What a repair (or undo) knows of the files it must not overwrite unseen: per watched file, a fingerprint
 * (inode, size, mtime, and the sha256 of files up to `HASH_LIMIT_BYTES`), taken through the `FileSystem` seam.
 * `Watch.changed` re-takes every fingerprint and names the first file that is no longer what was seen: it runs
 * right before each rename or unlink of a user file and right after it, so a save by the agent in between is
 * seen and nothing is put over it.
 *
 * An agent that saves by temp + rename gives the file a new inode; one that appends in place changes its size;
 * one that rewrites in place with the same size changes its mtime or, below the hash limit, its sha256.
 */
import path from 'node:path'
import {CHUNKED_BYTES, readFileChunks, sha256Chunks, sha256Hex} from './durable-write.js'
import {differsFrom, type Expected, type FileSystem} from './fs.js'

/** Files up to this size are hashed on every check (4 MiB); larger ones are compared by inode, size and mtime. */
export const HASH_LIMIT_BYTES = 4 * 2 ** 20

/** A file as seen at one moment; null when it did not exist. */
export type Fingerprint = {ino: number; size: number; mtimeMs: number; sha256: string | null} | null

/** The fingerprint of `p` now (null when absent; no sha256 when unreadable). Throws what lstat or reading throws, other than ENOENT, EACCES, EPERM. */
export async function fingerprint(fs: FileSystem, p: string, hashLimit = HASH_LIMIT_BYTES): Promise<Fingerprint> {
  let st
  try {
    st = await fs.lstat(p)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw e
  }
  if (st.kind !== 'file') return {ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, sha256: null}
  let sha256: string | null = null
  if (st.size <= hashLimit) {
    try {
      // A file too large to hold is hashed in chunks.
      sha256 = st.size > CHUNKED_BYTES ? await sha256Chunks(readFileChunks(p)) : sha256Hex(await fs.readFile(p))
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === 'ENOENT') return null
      // A file chatdoctor may not read (another user's) is watched by inode, size and mtime alone.
      if (code !== 'EACCES' && code !== 'EPERM') throw e
    }
  }
  return {ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, sha256}
}

/** What a guarded rename or unlink expects, from a fingerprint. */
export function expectedOf(fp: Fingerprint): Expected {
  return fp === null ? 'absent' : {ino: fp.ino, size: fp.size, mtimeMs: fp.mtimeMs}
}

/** How `now` differs from `before`, in words; null when it does not. */
export function fingerprintChange(before: Fingerprint, now: Fingerprint): string | null {
  const what = differsFrom(expectedOf(before), now)
  if (what !== null) return what
  if (before !== null && now !== null && before.sha256 !== null && now.sha256 !== null && before.sha256 !== now.sha256) return 'new bytes'
  return null
}

/** The watched files of one chat dir and what was last seen of each (names relative to the dir). */
export class Watch {
  private constructor(
    private readonly fs: FileSystem,
    private readonly dir: string,
    private readonly seen: Map<string, Fingerprint>,
  ) {}

  /** Fingerprints every name now. */
  static async capture(fs: FileSystem, dir: string, names: Iterable<string>): Promise<Watch> {
    const seen = new Map<string, Fingerprint>()
    for (const n of names) if (!seen.has(n)) seen.set(n, await fingerprint(fs, path.join(dir, n)))
    return new Watch(fs, dir, seen)
  }

  names(): string[] {
    return [...this.seen.keys()]
  }

  /** What was last seen of a name (undefined when it is not watched). */
  get(name: string): Fingerprint | undefined {
    return this.seen.get(name)
  }

  /** What a guarded rename or unlink of `name` must still find (`absent` for a name not watched). */
  expected(name: string): Expected {
    return expectedOf(this.seen.get(name) ?? null)
  }

  /** Records what chatdoctor itself left at `name` (its own write, or nothing after a removal). */
  set(name: string, fp: Fingerprint): void {
    this.seen.set(name, fp)
  }

  /** The first watched file that is no longer what was seen, with what changed; null when none. */
  async changed(): Promise<{name: string; what: string} | null> {
    for (const [name, before] of this.seen) {
      let now: Fingerprint
      try {
        now = await fingerprint(this.fs, path.join(this.dir, name))
      } catch (e) {
        return {name, what: `cannot be checked (${(e as NodeJS.ErrnoException).code ?? 'error'})`}
      }
      const what = fingerprintChange(before, now)
      if (what !== null) return {name, what}
    }
    return null
  }
}
