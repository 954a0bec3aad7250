/**
 * Writing chat bundles: `.tar.gz` or `.tar` (tar-stream, gzip level 9) or `.zip` (yazl), as a stream of bytes
 * that the caller writes durably through the fsio seam (`writeStreamDurable`). A member is a folder, bytes
 * held in memory (the manifest, a redacted file), or a file streamed from disk (`source`): read in chunks,
 * hashed as it goes, and checked afterwards to still have the size and mtime it was listed with, so memory
 * stays bounded whatever the size of a file, and a file changed while it was read is an error, never a silent
 * mix of two versions. Members keep their mtimes as the formats allow (whole seconds); the bundle manifest
 * keeps the exact `mtimeMs`.
 */
import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'
import {lstat} from 'node:fs/promises'
import {PassThrough, Readable} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import {constants as zlibConstants, createGzip} from 'node:zlib'
import tarStream from 'tar-stream'
import yazl from 'yazl'

/** A file to stream from disk: where it is, and the size and mtime it was listed with (and must still have). */
export interface FileSource {
  abs: string
  bytes: number
  mtimeMs: number
}

/** One member to write: a folder, or a file with its bytes or its source. `path` is `/`-separated, relative, normalised. */
export interface ArchiveInput {
  path: string
  kind: 'file' | 'directory'
  data?: Buffer
  source?: FileSource
  /** ms since epoch. */
  mtimeMs: number
  /** Whose member this is (a chat's path), for the error when its file changed while it was streamed. */
  owner?: string
  /** Called once a streamed file was read whole and found unchanged, with the sha256 of the bytes written. */
  onStreamed?: (sha256: string) => void
}

/** A streamed file was not the file listed by the time it had been read (shorter, longer, a new mtime). */
export class SourceChangedError extends Error {
  readonly code = 'ESOURCECHANGED'
  constructor(
    readonly input: ArchiveInput,
    why: string,
  ) {
    super(`${input.source!.abs} changed while it was being bundled (${why}); nothing written: bundle again when the agent is idle`)
  }
}

/** The bytes of a streamed member, read lazily (only when the archive reaches it), hashed and re-checked at the end. */
function sourceStream(input: ArchiveInput): Readable {
  const src = input.source!
  async function* chunks(): AsyncGenerator<Buffer> {
    const hash = createHash('sha256')
    let n = 0
    if (src.bytes > 0) {
      for await (const chunk of createReadStream(src.abs, {start: 0, end: src.bytes - 1, highWaterMark: 1 << 20}) as AsyncIterable<Buffer>) {
        n += chunk.length
        hash.update(chunk)
        yield chunk
      }
    }
    if (n !== src.bytes) throw new SourceChangedError(input, `${src.bytes} → ${n} bytes read`)
    const now = await lstat(src.abs).catch(() => null)
    if (now === null) throw new SourceChangedError(input, 'it disappeared')
    if (now.size !== src.bytes) throw new SourceChangedError(input, `${src.bytes} → ${now.size} bytes`)
    if (now.mtimeMs !== src.mtimeMs) throw new SourceChangedError(input, 'new mtime')
    input.onStreamed?.(hash.digest('hex'))
  }
  return Readable.from(chunks(), {objectMode: false})
}

/**
 * The archive of `inputs` in order, then of `trailer()` (members known only once every file was streamed, e.g.
 * a manifest holding their sha256), as a stream of bytes. The stream fails with `SourceChangedError` when a
 * streamed file changed, or with the read error of a file that could not be read.
 */
export function archiveStream(kind: 'tar' | 'tar.gz' | 'zip', inputs: readonly ArchiveInput[], trailer: () => ArchiveInput[] = () => []): Readable {
  const out = new PassThrough()
  const run = kind === 'zip' ? zipInto(out, inputs, trailer) : tarInto(out, inputs, trailer, kind === 'tar.gz')
  run.catch((e: unknown) => out.destroy(e as Error))
  return out
}

async function tarInto(out: PassThrough, inputs: readonly ArchiveInput[], trailer: () => ArchiveInput[], gzip: boolean): Promise<void> {
  const pack = tarStream.pack()
  const piped = gzip ? pipeline(pack, createGzip({level: zlibConstants.Z_BEST_COMPRESSION}), out) : pipeline(pack, out)
  try {
    const add = async (m: ArchiveInput) => {
      const mtime = new Date(Math.floor(m.mtimeMs / 1000) * 1000)
      if (m.kind === 'directory') return entryDone((cb) => pack.entry({name: m.path + '/', type: 'directory', mode: 0o755, mtime}, cb))
      if (m.data) return entryDone((cb) => pack.entry({name: m.path, type: 'file', mode: 0o644, mtime, size: m.data!.length}, m.data!, cb))
      const entry = pack.entry({name: m.path, type: 'file', mode: 0o644, mtime, size: m.source!.bytes})
      await pipeline(sourceStream(m), entry)
    }
    for (const m of inputs) await add(m)
    for (const m of trailer()) await add(m)
    pack.finalize()
  } catch (e) {
    pack.destroy(e as Error)
    await piped.catch(() => undefined)
    throw e
  }
  await piped
}

function entryDone(start: (cb: (err?: Error | null) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => start((err) => (err ? reject(err) : resolve())))
}

async function zipInto(out: PassThrough, inputs: readonly ArchiveInput[], trailer: () => ArchiveInput[]): Promise<void> {
  const zip = new yazl.ZipFile()
  let fail: (e: Error) => void = () => undefined
  const failed = new Promise<never>((_, reject) => (fail = reject))
  ;(zip as unknown as NodeJS.EventEmitter).once('error', fail)
  // yazl streams entries in the order added, so the trailer is added once the last source was read whole.
  const last = [...inputs].reverse().find((m) => m.kind === 'file' && !m.data)
  const addTrailer = () => {
    for (const m of trailer()) add(m)
    zip.end()
  }
  const add = (m: ArchiveInput) => {
    const mtime = new Date(m.mtimeMs)
    if (m.kind === 'directory') zip.addEmptyDirectory(m.path, {mtime, mode: 0o40755})
    else if (m.data) zip.addBuffer(m.data, m.path, {mtime, mode: 0o100644, compress: true})
    else {
      // Opened only when yazl reaches it (one file open at a time); its errors stop the archive.
      zip.addReadStreamLazy(m.path, {mtime, mode: 0o100644, compress: true, size: m.source!.bytes}, (cb) => {
        const s = sourceStream(m === last ? {...m, onStreamed: (sha) => (m.onStreamed?.(sha), addTrailer())} : m)
        s.once('error', fail)
        cb(null, s)
      })
    }
  }
  for (const m of inputs) add(m)
  if (!last) addTrailer()
  await Promise.race([pipeline(zip.outputStream, out), failed])
}

async function collect(s: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of s) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

/** A `.tar.gz` (or, with `gzip` false, a plain `.tar`) holding `inputs` in order, in memory (small archives, tests). */
export async function writeTar(inputs: ArchiveInput[], gzip = true): Promise<Buffer> {
  return collect(archiveStream(gzip ? 'tar.gz' : 'tar', inputs))
}

/** A `.zip` holding `inputs` in order (deflated), in memory (small archives, tests). */
export async function writeZip(inputs: ArchiveInput[]): Promise<Buffer> {
  return collect(archiveStream('zip', inputs))
}
