/**
 * Writing chat bundles to memory: `.tar.gz` or `.tar` (tar-stream, gzip level 9) or `.zip` (yazl). The caller writes the
 * bytes durably through the fsio seam. Members keep their mtimes as the formats allow (whole seconds); the
 * bundle manifest keeps the exact `mtimeMs`.
 */
import {constants as zlibConstants, gzipSync} from 'node:zlib'
import tarStream from 'tar-stream'
import yazl from 'yazl'

/** One member to write: a folder, or a file with its bytes. `path` is `/`-separated, relative, normalised. */
export interface ArchiveInput {
  path: string
  kind: 'file' | 'directory'
  data?: Buffer
  /** ms since epoch. */
  mtimeMs: number
}

/** A `.tar.gz` (or, with `gzip` false, a plain `.tar`) holding `inputs` in order. */
export async function writeTar(inputs: ArchiveInput[], gzip = true): Promise<Buffer> {
  const pack = tarStream.pack()
  const chunks: Buffer[] = []
  const done = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer)
  })()
  for (const m of inputs) {
    const mtime = new Date(Math.floor(m.mtimeMs / 1000) * 1000)
    await new Promise<void>((resolve, reject) => {
      const cb = (err?: Error | null) => (err ? reject(err) : resolve())
      if (m.kind === 'directory') pack.entry({name: m.path + '/', type: 'directory', mode: 0o755, mtime}, cb)
      else pack.entry({name: m.path, type: 'file', mode: 0o644, mtime, size: m.data!.length}, m.data!, cb)
    })
  }
  pack.finalize()
  await done
  const tar = Buffer.concat(chunks)
  return gzip ? gzipSync(tar, {level: zlibConstants.Z_BEST_COMPRESSION}) : tar
}

/** A `.zip` holding `inputs` in order (deflated). */
export async function writeZip(inputs: ArchiveInput[]): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const m of inputs) {
    const mtime = new Date(m.mtimeMs)
    if (m.kind === 'directory') zip.addEmptyDirectory(m.path, {mtime, mode: 0o40755})
    else zip.addBuffer(m.data!, m.path, {mtime, mode: 0o100644, compress: true})
  }
  zip.end()
  const chunks: Buffer[] = []
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
