/**
 * Whole-file outputs of `bundle -o` and `check -o`, and appends to `$GITHUB_STEP_SUMMARY`, through the same
 * write seam (`FileSystem`) and durable-write recipe as repairs (`durable-write.ts`): own temp beside the
 * target, write, fsync, rename, fsync of the folder, read-back check.
 */
import {createReadStream} from 'node:fs'
import path from 'node:path'
import {durableAppend, durableWrite, durableWriteStream} from './durable-write.js'
import {nodeFileSystem, type FileSystem} from './fs.js'

/**
 * Writes `data` to `file` durably. With `overwrite` false an existing `file` is never replaced (throws an
 * error with code `EEXIST` and a message naming `--force`). Missing parent folders are created. Throws the
 * underlying errno error (EACCES, EROFS, ENOSPC, …) when a step fails; the target is then untouched.
 */
export async function writeFileDurable(file: string, data: Buffer | string, opts: {overwrite: boolean}, fs: FileSystem = nodeFileSystem()): Promise<void> {
  const target = await prepareOutput(file, opts, fs)
  await durableWrite(fs, target, typeof data === 'string' ? Buffer.from(data, 'utf8') : data, {tag: `out-${process.pid}`})
}

/**
 * `writeFileDurable` for bytes made as they are written (a bundle): memory bounded by a chunk. Same rules on an
 * existing `file`; an error of `source` leaves `file` untouched (and no temp). Returns the bytes written and
 * their sha256 (checked by reading the file back).
 */
export async function writeStreamDurable(file: string, source: AsyncIterable<Uint8Array>, opts: {overwrite: boolean}, fs: FileSystem = nodeFileSystem()): Promise<{bytes: number; sha256: string}> {
  const target = await prepareOutput(file, opts, fs)
  const r = await durableWriteStream(fs, target, source, {tag: `out-${process.pid}`, readBack: (f) => createReadStream(f, {highWaterMark: 1 << 20})})
  return {bytes: r.bytes, sha256: r.sha256}
}

/** The absolute target of an output: refused when it exists (unless `overwrite`), its folder created. */
async function prepareOutput(file: string, opts: {overwrite: boolean}, fs: FileSystem): Promise<string> {
  const target = path.resolve(file)
  if (!opts.overwrite) {
    let exists = true
    try {
      await fs.lstat(target)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
      exists = false
    }
    if (exists) {
      const err = new Error(`${file} already exists (use --force to replace it)`) as NodeJS.ErrnoException
      err.code = 'EEXIST'
      throw err
    }
  }
  await fs.mkdir(path.dirname(target), {recursive: true})
  return target
}

/** Appends text to a file (creating it), e.g. the GitHub job summary; a final newline is added when missing. */
export async function appendText(file: string, text: string, fs: FileSystem = nodeFileSystem()): Promise<void> {
  await durableAppend(fs, file, text)
}
