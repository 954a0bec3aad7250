/** Archives built in tests with exactly the entries given (names, links, duplicates: whatever a hostile bundle holds). */
import {createWriteStream, statSync} from 'node:fs'
import {once} from 'node:events'
import {pipeline} from 'node:stream/promises'
import {createGzip, gzipSync} from 'node:zlib'
import tarStream from 'tar-stream'
import yazl from 'yazl'

export interface TarEntry {
  name: string
  type?: 'file' | 'symlink' | 'link' | 'directory'
  linkname?: string
  data?: Buffer
}

/** A .tar.gz with exactly these headers (tar-stream writes any name it is given). */
export async function tarGz(entries: TarEntry[]): Promise<Buffer> {
  const pack = tarStream.pack()
  const chunks: Buffer[] = []
  const done = (async () => {
    for await (const c of pack) chunks.push(c as Buffer)
  })()
  for (const e of entries) {
    await new Promise<void>((resolve, reject) => {
      const cb = (err?: Error | null) => (err ? reject(err) : resolve())
      if (e.type === 'symlink' || e.type === 'link' || e.type === 'directory') pack.entry({name: e.name, type: e.type, linkname: e.linkname, mtime: new Date(0)}, cb)
      else pack.entry({name: e.name, type: 'file', size: e.data!.length, mtime: new Date(0)}, e.data!, cb)
    })
  }
  pack.finalize()
  await done
  return gzipSync(Buffer.concat(chunks))
}

/** A .zip with exactly these entries (yazl; `mode` sets the Unix mode, e.g. a symbolic link's S_IFLNK). */
export async function zipOf(entries: Array<{name: string; data: Buffer; mode?: number}>): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const e of entries) zip.addBuffer(e.data, e.name, e.mode === undefined ? {} : {mode: e.mode})
  zip.end()
  const chunks: Buffer[] = []
  for await (const c of zip.outputStream) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

/**
 * Writes a `.tar.gz` bomb to `file` by streaming: `members` file entries named by `name(i)`, each of
 * `memberBytes` zeros, gzip level 9 (about 1000:1 on zeros). Never holds more than one MiB of the expansion.
 */
export async function writeZeroBomb(file: string, members: number, memberBytes: number, name: (i: number) => string): Promise<number> {
  const pack = tarStream.pack()
  const out = pipeline(pack, createGzip({level: 9}), createWriteStream(file))
  const zeros = Buffer.alloc(1 << 20)
  for (let i = 0; i < members; i++) {
    const entry = pack.entry({name: name(i), type: 'file', size: memberBytes, mtime: new Date(0)})
    for (let left = memberBytes; left > 0; left -= zeros.length) {
      if (!entry.write(left >= zeros.length ? zeros : zeros.subarray(0, left))) await once(entry, 'drain')
    }
    await new Promise<void>((resolve, reject) => {
      entry.once('error', reject)
      entry.end(resolve)
    })
  }
  pack.finalize()
  await out
  return statSync(file).size
}
