/**
 * Reading chat bundles: `.tar`, `.tar.gz`/`.tgz` (tar-stream over node:zlib) and `.zip` (yauzl), entirely in
 * memory: nothing from an archive is ever written to disk, so no entry can land outside a private folder.
 *
 * Safety rules:
 * - entries whose names escape the archive root (`../`, absolute paths) and symbolic or hard links pointing
 *   outside it are refused (never looked at further) and reported as `archive-entry-escapes`;
 * - caps stop archive bombs: at most `maxEntries` entries, `maxBytes` uncompressed bytes in all and
 *   `maxMemberBytes` in one member whose bytes are held. They are enforced before any member's bytes are held: a zip's central
 *   directory (sizes yauzl then holds each entry to) is summed first; a tar is streamed through once holding
 *   nothing (headers counted, data passed over, the inflated stream itself bounded) and read only when it
 *   passes, with the caps checked again while reading. Over a cap the archive is abandoned with
 *   `archive-too-large` and nothing from it is diagnosed. Memory therefore stays bounded by the caps of a
 *   readable archive, whatever a bomb expands to;
 * - an archive that cannot be decoded is `archive-unreadable`;
 * - every entry is accounted for: a member that lies under a refused link, under a symbolic link of the
 *   archive (links are never followed) or under a file member is never given out (extracting it would put it
 *   somewhere else, or nowhere) and is reported as `archive-member-hidden`; a name that occurs more than once
 *   (tar and zip both allow it) is reported as `archive-duplicate-member`, and only its last copy, the one
 *   extracting the archive leaves, is given out;
 * - a directory entry for the root itself (`./`, as `tar -C dir -cf x.tar .` writes) is passed over: the root
 *   needs no entry.
 * Only the bytes of members for which `keepData(path)` is true are held in memory; every file is hashed.
 */
import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'
import {open as openFile} from 'node:fs/promises'
import {Transform, type TransformCallback} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import {createGunzip} from 'node:zlib'
import tarStream, {type Header as TarHeader} from 'tar-stream'
import yauzl from 'yauzl'
import {isRootName, normalizeMemberPath, resolveLinkTarget, type MemberPath} from './paths.js'

/**
 * Default caps: 1 GiB uncompressed and 100,000 entries per archive, 512 MiB per member (about V8's largest
 * string: a bigger member could not be decoded as one document anyway).
 */
export const DEFAULT_LIMITS: ArchiveLimits = {maxBytes: 1024 ** 3, maxEntries: 100_000, maxMemberBytes: 512 * 1024 ** 2}

/**
 * Caps on one archive. `maxBytes` counts uncompressed member bytes; `maxMemberBytes` those of one member whose
 * bytes are held (what a diagnosis reads); other members are only hashed, in chunks.
 */
export interface ArchiveLimits {
  maxBytes: number
  maxEntries: number
  maxMemberBytes: number
}

/** One member of an archive, as an inventory would see a file on disk (links never followed). */
export interface ArchiveMember {
  path: MemberPath
  kind: 'file' | 'directory' | 'symlink' | 'other'
  /** Uncompressed size in bytes (0 for non-files). */
  bytes: number
  /** Modification time from the archive header, ms since epoch (tar: whole seconds; zip: 2 s or 1 s). */
  mtimeMs: number
  /** sha256 of the bytes, lower-case hex; null for non-files. */
  sha256: string | null
  /** The bytes, when `keepData` asked for them. */
  data?: Buffer
}

/** Finding ids of archive-level problems (src/lib/findings.ts). */
export type ArchiveProblemId = 'archive-entry-escapes' | 'archive-too-large' | 'archive-unreadable' | 'archive-member-hidden' | 'archive-duplicate-member'

/** Something wrong with an archive or one of its entries. */
export interface ArchiveProblem {
  id: ArchiveProblemId
  /** The entry's name exactly as stored (human output escapes it: `render/terminal.ts`), or null for the archive as a whole. */
  member: string | null
  message: string
}

export interface ArchiveContents {
  format: 'tar' | 'tar.gz' | 'zip'
  members: ArchiveMember[]
  problems: ArchiveProblem[]
  /** False when the archive was abandoned (over a cap, undecodable): `members` is then empty. */
  complete: boolean
}

/** The archive kind a file name says: `.tar`, `.tar.gz`/`.tgz`, `.zip`; null for anything else. */
export function archiveKindByName(file: string): 'tar' | 'tar.gz' | 'zip' | null {
  const f = file.toLowerCase()
  if (f.endsWith('.tar.gz') || f.endsWith('.tgz')) return 'tar.gz'
  if (f.endsWith('.tar')) return 'tar'
  if (f.endsWith('.zip')) return 'zip'
  return null
}

class CapExceeded extends Error {}

/** Collects members with the rules shared by both formats. */
class Collector {
  readonly members = new Map<string, ArchiveMember>()
  readonly problems: ArchiveProblem[] = []
  /** Normalised paths of link entries that were refused (a member below one is hidden by it). */
  readonly refusedLinks = new Set<MemberPath>()
  /** How many times each name that occurred more than once did (directories repeated are not counted). */
  readonly duplicates = new Map<MemberPath, number>()
  entries = 0
  declared = 0
  actual = 0
  constructor(
    readonly limits: ArchiveLimits,
    readonly keepData: (path: MemberPath) => boolean,
  ) {}

  /** Counts one entry and its declared size; throws CapExceeded over a cap. */
  admit(declaredBytes: number, raw: string): void {
    admitEntry(this.limits, this, declaredBytes, raw, this.kept(raw))
  }

  /** Counts bytes actually read; throws CapExceeded over the cap. */
  count(n: number): void {
    this.actual += n
    if (this.actual > this.limits.maxBytes) throw new CapExceeded(tooManyBytes(this.limits))
  }

  escape(raw: string, why: string): void {
    this.problems.push({id: 'archive-entry-escapes', member: raw, message: `entry "${raw}" refused: ${why}; it was not read`})
  }

  /** A link entry at `path` refused for `why`: reported, and remembered so that members below it are hidden. */
  refuseLink(path: MemberPath, raw: string, why: string): void {
    this.refusedLinks.add(path)
    this.escape(raw, why)
  }

  /** Adds a member; a name seen before (other than a folder repeated) is counted as a duplicate, the last copy kept. */
  put(m: ArchiveMember): void {
    const prior = this.members.get(m.path)
    if (prior && !(prior.kind === 'directory' && m.kind === 'directory')) this.duplicates.set(m.path, (this.duplicates.get(m.path) ?? 1) + 1)
    this.members.set(m.path, m)
  }

  /** Whether the member stored as `raw` would have its bytes held (`keepData`); refused names never are. */
  kept(raw: string): boolean {
    const norm = normalizeMemberPath(raw)
    return !('refused' in norm) && this.keepData(norm.path)
  }

  /**
   * Reads one file member of `declared` bytes (its header's size, which the caps already took), hashing it;
   * its bytes go into one buffer of that size when kept (never a list of chunks joined after: no second copy).
   * More bytes than declared, or more than a member may hold, throw CapExceeded.
   */
  async readFile(path: MemberPath, raw: string, declared: number, mtimeMs: number, chunks: AsyncIterable<Buffer>): Promise<void> {
    const hash = createHash('sha256')
    const keep = this.keepData(path)
    const data = keep ? Buffer.allocUnsafe(declared) : null
    let bytes = 0
    for await (const chunk of chunks) {
      this.count(chunk.length)
      if (bytes + chunk.length > Math.max(declared, 0) || (keep && bytes + chunk.length > this.limits.maxMemberBytes)) throw new CapExceeded(tooBigMember(this.limits, raw))
      if (data) chunk.copy(data, bytes)
      bytes += chunk.length
      hash.update(chunk)
    }
    const m: ArchiveMember = {path, kind: 'file', bytes, mtimeMs, sha256: hash.digest('hex')}
    if (data) m.data = bytes === declared ? data : data.subarray(0, bytes)
    this.put(m)
  }

  /**
   * Why a member is hidden: the first folder above it that is a refused link, a symbolic link of the archive or
   * a file member; null when every folder above it is a folder.
   */
  hiddenBy(path: MemberPath): string | null {
    const segments = path.split('/')
    for (let i = 1; i < segments.length; i++) {
      const above = segments.slice(0, i).join('/')
      if (this.refusedLinks.has(above)) return `it lies under "${above}", a link that was refused`
      const m = this.members.get(above)
      if (m?.kind === 'symlink') return `it lies under "${above}", a symbolic link inside the archive (links are never followed)`
      if (m && m.kind !== 'directory') return `it lies under "${above}", which is ${m.kind === 'file' ? 'a file' : 'not a folder'} in the archive`
    }
    return null
  }

  result(format: ArchiveContents['format']): ArchiveContents {
    const given: ArchiveMember[] = []
    for (const m of this.members.values()) {
      const why = this.hiddenBy(m.path)
      if (why === null) given.push(m)
      else this.problems.push({id: 'archive-member-hidden', member: m.path, message: `entry "${m.path}" not read: ${why}; extracting the archive would not put it there`})
    }
    for (const [p, n] of this.duplicates) {
      this.problems.push({id: 'archive-duplicate-member', member: p, message: `entry "${p}" occurs ${n} times in the archive; only the last copy (the one extracting it leaves) was read, the other ${n - 1 === 1 ? 'one was' : `${n - 1} were`} not`})
    }
    const members = given.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    return {format, members, problems: this.problems, complete: true}
  }
}

const tooManyBytes = (l: ArchiveLimits) => `more than ${l.maxBytes} uncompressed bytes (raise --max-bytes to read it)`
const tooBigMember = (l: ArchiveLimits, raw: string) => `entry "${raw}" holds more than ${l.maxMemberBytes} uncompressed bytes (raise --max-member-bytes to read it)`

/**
 * Counts one entry and its declared bytes into `tally` under `limits`; throws CapExceeded over a cap. The
 * per-member cap applies to members whose bytes would be held (`held`); the others are only hashed.
 */
function admitEntry(limits: ArchiveLimits, tally: {entries: number; declared: number}, declaredBytes: number, raw: string, held: boolean): void {
  tally.entries++
  if (tally.entries > limits.maxEntries) throw new CapExceeded(`more than ${limits.maxEntries} entries (raise --max-entries to read it)`)
  if (held && declaredBytes > limits.maxMemberBytes) throw new CapExceeded(tooBigMember(limits, raw))
  tally.declared += declaredBytes
  if (tally.declared > limits.maxBytes) throw new CapExceeded(tooManyBytes(limits))
}

async function drain(chunks: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of chunks) void _
}

/**
 * Reads an archive's members into memory under the caps. Never throws for bad archives: problems are returned.
 * Throws only when the file itself cannot be opened (the caller reports it like any unreadable PATH).
 */
export async function readArchive(file: string, limits: ArchiveLimits, keepData: (path: MemberPath) => boolean): Promise<ArchiveContents> {
  const fh = await openFile(file, 'r')
  const head = Buffer.alloc(4)
  try {
    await fh.read(head, 0, 4, 0)
  } finally {
    await fh.close()
  }
  const isZip = head[0] === 0x50 && head[1] === 0x4b && (head[2] === 0x03 || head[2] === 0x05)
  const isGzip = head[0] === 0x1f && head[1] === 0x8b
  const format: ArchiveContents['format'] = isZip ? 'zip' : isGzip ? 'tar.gz' : 'tar'
  const c = new Collector(limits, keepData)
  try {
    if (isZip) await readZip(file, c)
    else await readTar(file, isGzip, c)
    return c.result(format)
  } catch (e) {
    if (e instanceof CapExceeded) {
      return {format, members: [], problems: [...c.problems, {id: 'archive-too-large', member: null, message: `archive refused: ${e.message}; nothing in it was diagnosed`}], complete: false}
    }
    const why = (e as Error).message.split('\n')[0]
    return {format, members: [], problems: [...c.problems, {id: 'archive-unreadable', member: null, message: `not a readable ${format} archive (${why}); nothing in it was diagnosed`}], complete: false}
  }
}

const isFileType = (t: TarHeader['type']) => t === 'file' || t === 'contiguous-file' || t === undefined || t === null

/**
 * Streams a tar (gunzipped when `gzip`) and calls `onEntry` for each entry in turn; `onEntry` must consume or
 * drain the entry. The inflated stream is bounded too (headers and padding included), against bombs made of
 * padding. A throw from `onEntry` stops the stream and is rethrown.
 */
async function eachTarEntry(file: string, gzip: boolean, limits: ArchiveLimits, onEntry: (entry: AsyncIterable<Buffer> & {header: TarHeader}) => Promise<void>): Promise<void> {
  const extract = tarStream.extract()
  const bound = limits.maxBytes + 1024 * (limits.maxEntries + 2) + 1024 * 1024
  let seen = 0
  const guard = new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      seen += chunk.length
      if (seen > bound) cb(new CapExceeded(tooManyBytes(limits)))
      else cb(null, chunk)
    },
  })
  const source = createReadStream(file)
  const piping = gzip ? pipeline(source, createGunzip(), guard, extract) : pipeline(source, guard, extract)
  let pipeError: unknown = null
  const piped = piping.catch((e) => {
    pipeError = e
  })
  try {
    for await (const entry of extract) await onEntry(entry as AsyncIterable<Buffer> & {header: TarHeader})
  } catch (e) {
    source.destroy()
    extract.destroy()
    await piped
    throw e
  }
  await piped
  if (pipeError) throw pipeError
}

/** The first pass over a tar: every cap checked on headers and the inflated stream, no member's bytes held. */
async function tarWithinCaps(file: string, gzip: boolean, limits: ArchiveLimits, kept: (raw: string) => boolean): Promise<void> {
  const tally = {entries: 0, declared: 0}
  await eachTarEntry(file, gzip, limits, async (entry) => {
    const h = entry.header
    admitEntry(limits, tally, isFileType(h.type) ? (h.size ?? 0) : 0, h.name, kept(h.name))
    await drain(entry)
  })
}

async function readTar(file: string, gzip: boolean, c: Collector): Promise<void> {
  await tarWithinCaps(file, gzip, c.limits, (raw) => c.kept(raw))
  await eachTarEntry(file, gzip, c.limits, async (entry) => {
    const h = entry.header
    const size = h.size ?? 0
    c.admit(isFileType(h.type) ? size : 0, h.name)
    const mtimeMs = h.mtime ? h.mtime.getTime() : 0
    if (h.type === 'directory' && isRootName(h.name)) return drain(entry)
    const norm = normalizeMemberPath(h.name)
    if ('refused' in norm) {
      c.escape(h.name, norm.why)
      return drain(entry)
    }
    const p = norm.path
    switch (h.type) {
      case 'directory':
        c.put({path: p, kind: 'directory', bytes: 0, mtimeMs, sha256: null})
        return drain(entry)
      case 'symlink': {
        const t = resolveLinkTarget(p, h.linkname ?? '', 'symlink')
        if ('refused' in t) c.refuseLink(p, h.name, t.why)
        else c.put({path: p, kind: 'symlink', bytes: 0, mtimeMs, sha256: null})
        return drain(entry)
      }
      case 'link': {
        const t = resolveLinkTarget(p, h.linkname ?? '', 'hardlink')
        if ('refused' in t) c.refuseLink(p, h.name, t.why)
        else {
          const target = c.members.get(t.path)
          if (target && target.kind === 'file') {
            c.count(target.bytes)
            c.put({...target, path: p, mtimeMs})
          } else c.put({path: p, kind: 'other', bytes: 0, mtimeMs, sha256: null})
        }
        return drain(entry)
      }
      case 'file':
      case 'contiguous-file':
      case undefined:
      case null:
        return c.readFile(p, h.name, size, mtimeMs, entry as AsyncIterable<Buffer>)
      default:
        c.put({path: p, kind: 'other', bytes: 0, mtimeMs, sha256: null})
        return drain(entry)
    }
  })
}

const S_IFMT = 0o170000
const S_IFLNK = 0o120000
const S_IFDIR = 0o040000

async function readZip(file: string, c: Collector): Promise<void> {
  const zip = await yauzl.openPromise(file, {lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false})
  try {
    if (zip.entryCount > c.limits.maxEntries) throw new CapExceeded(`${zip.entryCount} entries, more than ${c.limits.maxEntries} (raise --max-entries to read it)`)
    await zipWithinCaps(file, c.limits, (raw) => c.kept(raw))
    const entries = (zip as unknown as {eachEntry(): AsyncIterable<yauzl.Entry>}).eachEntry()
    for await (const entry of entries) {
      const raw = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileName as unknown as Buffer, entry.extraFields, false)
      const mode = (entry.externalFileAttributes >>> 16) & 0xffff
      const isDir = raw.endsWith('/') || (mode & S_IFMT) === S_IFDIR
      const isLink = (mode & S_IFMT) === S_IFLNK
      c.admit(isDir ? 0 : entry.uncompressedSize, raw)
      const mtimeMs = entry.getLastModDate().getTime()
      if (isDir && isRootName(raw)) continue
      const norm = normalizeMemberPath(raw)
      if ('refused' in norm) {
        c.escape(raw, norm.why)
        continue
      }
      const p = norm.path
      if (isDir) {
        c.put({path: p, kind: 'directory', bytes: 0, mtimeMs, sha256: null})
        continue
      }
      if (entry.isEncrypted()) {
        c.put({path: p, kind: 'other', bytes: entry.uncompressedSize, mtimeMs, sha256: null})
        continue
      }
      const stream = await zip.openReadStreamPromise(entry)
      if (isLink) {
        // A link's target is a path: at most PATH_MAX (4096) bytes are held; a longer one is refused.
        const parts: Buffer[] = []
        let n = 0
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          c.count(chunk.length)
          n += chunk.length
          if (n <= 4096) parts.push(chunk)
        }
        const t = n > 4096 ? {refused: true as const, why: `its target is ${n} bytes long, longer than any path`} : resolveLinkTarget(p, Buffer.concat(parts).toString('utf8'), 'symlink')
        if ('refused' in t) c.refuseLink(p, raw, t.why)
        else c.put({path: p, kind: 'symlink', bytes: 0, mtimeMs, sha256: null})
        continue
      }
      await c.readFile(p, raw, entry.uncompressedSize, mtimeMs, stream as AsyncIterable<Buffer>)
    }
  } finally {
    zip.close()
  }
}

/**
 * The first pass over a zip: the central directory's sizes against every cap, before any entry is inflated
 * (yauzl then holds each entry to its size: `validateEntrySizes`).
 */
async function zipWithinCaps(file: string, limits: ArchiveLimits, kept: (raw: string) => boolean): Promise<void> {
  const zip = await yauzl.openPromise(file, {lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false})
  try {
    const tally = {entries: 0, declared: 0}
    for await (const entry of (zip as unknown as {eachEntry(): AsyncIterable<yauzl.Entry>}).eachEntry()) {
      const raw = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileName as unknown as Buffer, entry.extraFields, false)
      admitEntry(limits, tally, raw.endsWith('/') ? 0 : entry.uncompressedSize, raw, kept(raw))
    }
  } finally {
    zip.close()
  }
}
