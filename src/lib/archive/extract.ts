/**
 * A private temp folder holding some members of an archive, for store formats whose diagnosis lists a folder
 * tree or opens a database (OpenCode's data dir): `check` extracts just those members, lets the adapter list
 * and read them as on disk, and removes the folder whatever happens ("extracted into a private temp
 * folder that is always removed"). Member paths were normalized by `archive/paths.ts` (no `..`, not absolute,
 * links refused); a path that would still land outside the folder is skipped, never written.
 *
 * Writes only inside its own `mkdtemp` folder under the OS temp dir (chatdoctor's scratch space, not user
 * data: no durable-write recipe needed).
 */
import {mkdir, mkdtemp, rm, utimes, writeFile} from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

/** One file to lay out: `rel` is `/`-separated, relative to the folder; `mtimeMs` ms since epoch. */
export interface ExtractFile {
  rel: string
  data: Buffer
  mtimeMs: number
}

/**
 * Writes `files` into a fresh private folder, runs `fn` on it, and removes the folder (also when `fn` throws).
 * Returns what `fn` returns. Throws what `mkdtemp`/`writeFile` throw (e.g. ENOSPC).
 */
export async function withExtracted<T>(files: ExtractFile[], fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chatdoctor-check-'))
  try {
    for (const f of files) {
      const target = path.resolve(dir, ...f.rel.split('/'))
      if (!target.startsWith(dir + path.sep)) continue
      await mkdir(path.dirname(target), {recursive: true})
      await writeFile(target, f.data, {flag: 'wx', mode: 0o600})
      const t = f.mtimeMs / 1000
      await utimes(target, t, t)
    }
    return await fn(dir)
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
}
