/**
 * Builds a `ChatDirSnapshot` in memory (no disk), so tests can run the Codebuff adapter's classification and
 * diagnosis on exact bytes.
 */
import type {ChatDirSnapshot, FileEntry} from '../../src/lib/model/adapter.js'

/** A chat dir snapshot from file name → bytes (`null` for a file that could not be read). */
export function snapshotOf(files: Record<string, Buffer | null>, dir = '/chats/2026-08-30T09-15-02.417Z', mtimes: Record<string, number> = {}): ChatDirSnapshot {
  const entries: FileEntry[] = Object.keys(files)
    .sort()
    .map((name, i) => {
      const data = files[name]
      const e: FileEntry = {name, kind: 'file', bytes: data?.length ?? 0, mtimeMs: mtimes[name] ?? 1_788_000_000_000 + i * 1000}
      if (data === null) e.readError = 'EIO: i/o error, read'
      else e.data = data
      return e
    })
  return {dir, unit: {dir, path: dir}, dirMtimeMs: 1_788_000_000_000, files: entries}
}
