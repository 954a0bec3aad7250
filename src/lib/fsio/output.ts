/**
 * The write seam for reports and bundles (`chatdoctor bundle -o`, `check -o`, `$GITHUB_STEP_SUMMARY`): whole
 * files written durably (temp file beside the target, fsync, rename, fsync of the folder) and appends. Tests
 * inject failures by replacing `outputFs`.
 */
import {constants} from 'node:fs'
import {appendFile, mkdir, open, rename, unlink} from 'node:fs/promises'
import path from 'node:path'

/** The file-system calls this module makes; replaceable in tests (EACCES, EROFS, ENOSPC). */
export const outputFs = {open, rename, unlink, appendFile, mkdir}

/**
 * Writes `data` to `file` durably: `<file>.<pid>.tmp` is written and fsynced, renamed over `file`, and the
 * folder fsynced. With `overwrite` false an existing `file` is never replaced (throws EEXIST). Missing parent
 * folders are created. The temp is removed on failure.
 */
export async function writeFileDurable(file: string, data: Buffer | string, opts: {overwrite: boolean}): Promise<void> {
  const target = path.resolve(file)
  if (!opts.overwrite) {
    try {
      const fh = await outputFs.open(target, constants.O_RDONLY)
      await fh.close()
      const err = new Error(`${file} already exists (use --force to replace it)`) as NodeJS.ErrnoException
      err.code = 'EEXIST'
      throw err
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
    }
  }
  await outputFs.mkdir(path.dirname(target), {recursive: true})
  const tmp = `${target}.${process.pid}.tmp`
  let fh
  try {
    fh = await outputFs.open(tmp, 'wx', 0o644)
    await fh.writeFile(data)
    await fh.sync()
    await fh.close()
    fh = undefined
    await outputFs.rename(tmp, target)
  } catch (e) {
    if (fh) await fh.close().catch(() => undefined)
    await outputFs.unlink(tmp).catch(() => undefined)
    throw e
  }
  try {
    const dir = await outputFs.open(path.dirname(target), constants.O_RDONLY)
    await dir.sync().catch(() => undefined)
    await dir.close()
  } catch {
    // Some file systems cannot open or fsync a folder; the rename is done.
  }
}

/** Appends text to a file (creating it), e.g. the GitHub job summary. */
export async function appendText(file: string, text: string): Promise<void> {
  await outputFs.appendFile(file, text, 'utf8')
}
