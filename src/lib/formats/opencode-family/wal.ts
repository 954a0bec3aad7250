/**
 * SQLite's write-ahead log (`<db>-wal`) and its index (`<db>-shm`), read byte by byte, never through SQLite:
 * which frames SQLite accepts, where a torn or cut log stops, and what the index says was committed. Pure over
 * bytes (`walFacts` reads a file frame by frame). Format: sqlite.org/walformat.html and sqlite.org/fileformat2.html
 * §4 (the WAL header and frame header, the cumulative checksum, the wal-index header and checkpoint info).
 *
 * SQLite reads a WAL as its frames from the start while each frame carries the header's salts and its running
 * checksum matches; the database is then what the last commit frame among them (a frame whose "database size"
 * field is non-zero) says. Everything after that commit is ignored without a word: a frame cut short, a frame
 * whose checksum fails, frames of a transaction that never committed. Frames left from earlier cycles (the log
 * restarts at offset 0 with new salts after a full checkpoint, and is not truncated) carry other salts: older
 * versions of pages, never read again.
 */
import {closeSync, fstatSync, openSync, readSync} from 'node:fs'

/** The WAL's magic numbers: checksums over little-endian (…682) or big-endian (…683) words. */
const MAGIC_LE = 0x377f0682
const MAGIC_BE = 0x377f0683
const WAL_HEADER = 32
const FRAME_HEADER = 24

/** What the WAL file holds. Frame numbers are 1-based, as SQLite counts them. */
export interface WalFacts {
  bytes: number
  /** False when the 32-byte header is not a WAL header SQLite accepts (magic, version, page size, checksum): it then ignores the whole file. */
  headerValid: boolean
  pageSize: number | null
  /** The checkpoint sequence number of the header (how many times the log restarted). */
  checkpointSeq: number | null
  /** The header's salts (its bytes 16–23, hex): the same in every frame of the current cycle, and in the index. */
  salt: string | null
  /** Whole frames in the file (of any cycle). */
  frames: number
  /** The frames SQLite accepts: from the first, while each has the header's salts and its checksum matches. */
  validFrames: number
  /** Commit frames among the valid ones. */
  commits: number
  /** The last commit frame (0 when none: SQLite then reads the database file alone). */
  lastCommit: number
  /** Valid frames after the last commit: a transaction that never committed. */
  uncommitted: number
  /** The frame right after the valid ones when it has the current salts but a wrong checksum (a torn or garbled frame); null when none. */
  brokenFrame: number | null
  /** Bytes of a frame cut short right after the valid ones (0 when the file ends on a frame boundary, or the cut frame is an old one). */
  partialBytes: number
  /** Whole frames after the valid ones that carry other salts: page versions of earlier cycles. */
  staleFrames: number
  /** Byte offset where what SQLite ignores after the last commit starts (the file size when nothing is ignored). */
  ignoredFrom: number
}

/** What the wal-index (`-shm`) says, when it can be trusted. */
export interface ShmFacts {
  bytes: number
  /** True when the index header is initialised, its two copies agree and its checksum holds. */
  valid: boolean
  /** The last committed frame the index records (0 when not valid). */
  mxFrame: number
  /** Frames already copied into the database file by a checkpoint. */
  nBackfill: number
  /** The salts the index was built for (hex), to match the WAL's. */
  salt: string | null
}

/** The cumulative checksum SQLite uses (over 32-bit words, in pairs), continued from `s`. */
export function walChecksum(buf: Uint8Array, offset: number, length: number, s: [number, number], bigEndian: boolean): [number, number] {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
  let s0 = s[0]
  let s1 = s[1]
  for (let i = offset; i < offset + length; i += 8) {
    const x0 = v.getUint32(i, !bigEndian)
    const x1 = v.getUint32(i + 4, !bigEndian)
    s0 = (s0 + x0 + s1) >>> 0
    s1 = (s1 + x1 + s0) >>> 0
  }
  return [s0, s1]
}

function validPageSize(n: number): boolean {
  return n >= 512 && n <= 65536 && (n & (n - 1)) === 0
}

/** An empty verdict for a WAL of `bytes` bytes whose header SQLite does not accept. */
function unusable(bytes: number): WalFacts {
  return {bytes, headerValid: false, pageSize: null, checkpointSeq: null, salt: null, frames: 0, validFrames: 0, commits: 0, lastCommit: 0, uncommitted: 0, brokenFrame: null, partialBytes: 0, staleFrames: 0, ignoredFrom: bytes}
}

/** Reads exactly `n` bytes at `pos` (fewer at the end of the file). */
function readAt(fd: number, buf: Buffer, n: number, pos: number): number {
  let got = 0
  while (got < n) {
    const r = readSync(fd, buf, got, n - got, pos + got)
    if (r === 0) break
    got += r
  }
  return got
}

/**
 * The facts of a WAL file, read frame by frame (bounded memory). `onIgnored`, when given, receives the bytes
 * SQLite ignores after the last commit (uncommitted frames, a broken or partial frame), at most `maxIgnored`
 * bytes of them. Throws only when the file cannot be opened or read.
 */
export function walFacts(file: string, onIgnored?: (bytes: Buffer) => void, maxIgnored = 16 * 1024 * 1024): WalFacts {
  const fd = openSync(file, 'r')
  try {
    const bytes = fstatSync(fd).size
    const head = Buffer.alloc(WAL_HEADER)
    if (readAt(fd, head, WAL_HEADER, 0) < WAL_HEADER) return unusable(bytes)
    const magic = head.readUInt32BE(0)
    const pageSize = head.readUInt32BE(8)
    if ((magic !== MAGIC_LE && magic !== MAGIC_BE) || head.readUInt32BE(4) !== 3007000 || !validPageSize(pageSize)) return unusable(bytes)
    const be = magic === MAGIC_BE
    const hs = walChecksum(head, 0, 24, [0, 0], be)
    if (hs[0] !== head.readUInt32BE(24) || hs[1] !== head.readUInt32BE(28)) return unusable(bytes)
    const salt = head.subarray(16, 24)
    const frameSize = FRAME_HEADER + pageSize
    const frames = Math.floor((bytes - WAL_HEADER) / frameSize)
    const partialBytes = bytes - WAL_HEADER - frames * frameSize
    const frame = Buffer.alloc(frameSize)
    let sum: [number, number] = hs
    let validFrames = 0
    let commits = 0
    let lastCommit = 0
    let brokenFrame: number | null = null
    let staleFrames = 0
    for (let i = 0; i < frames; i++) {
      const pos = WAL_HEADER + i * frameSize
      readAt(fd, frame, frameSize, pos)
      const sameSalt = frame.subarray(8, 16).equals(salt)
      if (brokenFrame === null && validFrames === i) {
        if (sameSalt) {
          const next = walChecksum(frame, FRAME_HEADER, pageSize, walChecksum(frame, 0, 8, sum, be), be)
          if (next[0] === frame.readUInt32BE(16) && next[1] === frame.readUInt32BE(20) && frame.readUInt32BE(0) !== 0) {
            sum = next
            validFrames++
            if (frame.readUInt32BE(4) !== 0) {
              commits++
              lastCommit = i + 1
            }
            continue
          }
          brokenFrame = i + 1
          continue
        }
      }
      if (!sameSalt) staleFrames++
    }
    // A frame cut short right after the valid ones continues the current cycle (its salts, when it still has
    // them, say so); one after stale frames is an old page version cut.
    let partialIsCurrent = false
    if (partialBytes > 0 && validFrames === frames) {
      const tail = Buffer.alloc(Math.min(partialBytes, 16))
      readAt(fd, tail, tail.length, WAL_HEADER + frames * frameSize)
      partialIsCurrent = tail.length < 16 || tail.subarray(8, 16).equals(salt)
    }
    const ignoredFrom = WAL_HEADER + lastCommit * frameSize
    const ignoredEnd = WAL_HEADER + (brokenFrame ?? validFrames) * frameSize + (partialIsCurrent ? partialBytes : 0)
    if (onIgnored && ignoredEnd > ignoredFrom) {
      const n = Math.min(ignoredEnd - ignoredFrom, maxIgnored)
      const buf = Buffer.alloc(n)
      onIgnored(buf.subarray(0, readAt(fd, buf, n, ignoredFrom)))
    }
    return {
      bytes,
      headerValid: true,
      pageSize,
      checkpointSeq: head.readUInt32BE(12),
      salt: salt.toString('hex'),
      frames,
      validFrames,
      commits,
      lastCommit,
      uncommitted: validFrames - lastCommit,
      brokenFrame,
      partialBytes: partialIsCurrent ? partialBytes : 0,
      staleFrames,
      ignoredFrom: ignoredEnd > ignoredFrom ? ignoredFrom : bytes,
    }
  } finally {
    closeSync(fd)
  }
}

/**
 * The facts of a wal-index (`-shm`) from its first 136 bytes: the index header (two 48-byte copies, in the
 * writer's byte order; the checksum over the first 40 bytes of a copy) and the checkpoint info after it.
 */
export function shmFacts(buf: Uint8Array, bytes = buf.length): ShmFacts {
  const none: ShmFacts = {bytes, valid: false, mxFrame: 0, nBackfill: 0, salt: null}
  if (buf.length < 136) return none
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength)
  if (!b.subarray(0, 48).equals(b.subarray(48, 96)) || b[12] !== 1) return none
  for (const bigEndian of [false, true]) {
    const read = (o: number) => (bigEndian ? b.readUInt32BE(o) : b.readUInt32LE(o))
    if (read(0) !== 3007000) continue
    const c = walChecksum(b, 0, 40, [0, 0], bigEndian)
    if (c[0] !== read(40) || c[1] !== read(44)) continue
    return {bytes, valid: true, mxFrame: read(16), nBackfill: read(96), salt: b.subarray(32, 40).toString('hex')}
  }
  return none
}

/** What the WAL lost, from the WAL and its index together. */
export interface WalLoss {
  /** Committed frames the index records beyond the last commit the WAL still holds (their bytes are gone or broken). */
  committedFrames: number
  /** True when something after the last commit is ignored: uncommitted frames, a broken frame, a frame cut short. */
  tail: boolean
}

/** What the WAL lost, or null when SQLite reads every frame that was written and committed. */
export function walLoss(wal: WalFacts, shm: ShmFacts | null): WalLoss | null {
  const committedFrames = wal.headerValid && shm?.valid && shm.salt === wal.salt && shm.mxFrame > wal.lastCommit ? shm.mxFrame - wal.lastCommit : 0
  const tail = wal.headerValid && (wal.uncommitted > 0 || wal.brokenFrame !== null || wal.partialBytes > 0)
  return committedFrames > 0 || tail ? {committedFrames, tail} : null
}
