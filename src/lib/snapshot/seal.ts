/**
 * The snapshot file: AES-256-GCM (node:crypto) over the plaintext, with the header in the clear and bound to
 * the ciphertext as additional authenticated data, so neither can change unseen.
 *
 * Layout: `CDSNAP01` (8 bytes) · header length (u32, big-endian) · header (JSON, UTF-8) · IV (12 random bytes) ·
 * ciphertext · GCM tag (16 bytes). The additional data is every byte before the IV. A file read back is hostile
 * until `openSnapshot` has checked its layout, its header's shape, the key it names, the tag, and the
 * plaintext's size and sha256 against the header; each failure is one line saying what to do next.
 */
import {createCipheriv, createDecipheriv, createHash, randomBytes} from 'node:crypto'
import type {SnapshotHeader, SnapshotKind} from '../model/snapshot.js'

export const MAGIC = Buffer.from('CDSNAP01', 'latin1')
/** Headers are small (paths, ids, counts); anything larger is not ours. */
export const MAX_HEADER_BYTES = 64 * 1024
const IV_BYTES = 12
const TAG_BYTES = 16
const KINDS: readonly SnapshotKind[] = ['generation', 'files', 'export']

/** The key's id as headers carry it: the first 16 hex digits of a domain-separated sha256 of the key. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('chatdoctor snapshot key\0').update(key).digest('hex').slice(0, 16)
}

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

/** Encrypts `plaintext` under `key` (32 bytes) with `header` (its `keyId`, `bytes` and `sha256` are set here). */
export function sealSnapshot(header: Omit<SnapshotHeader, 'keyId' | 'bytes' | 'sha256'>, plaintext: Buffer, key: Buffer): {bytes: Buffer; header: SnapshotHeader} {
  const full: SnapshotHeader = {...header, bytes: plaintext.length, sha256: sha256Hex(plaintext), keyId: keyIdOf(key)}
  const head = Buffer.from(JSON.stringify(full), 'utf8')
  const len = Buffer.alloc(4)
  len.writeUInt32BE(head.length)
  const aad = Buffer.concat([MAGIC, len, head])
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(aad)
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()])
  return {bytes: Buffer.concat([aad, iv, body, cipher.getAuthTag()]), header: full}
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const HEX = (n: number) => new RegExp(`^[0-9a-f]{${n}}$`)
const count = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0

/** The header's shape checked field by field; null when it is not a snapshot header of this layout. */
export function checkHeader(v: unknown): SnapshotHeader | null {
  if (!isObj(v) || v.v !== 1) return null
  const str = (k: string) => typeof v[k] === 'string' && (v[k] as string).length > 0
  if (!str('format') || !str('chat') || !str('id') || !str('time') || Number.isNaN(Date.parse(v.time as string))) return null
  if (!count(v.turns) || !count(v.messages) || !count(v.bytes)) return null
  if (!KINDS.includes(v.kind as SnapshotKind)) return null
  if (v.target !== null && (typeof v.target !== 'string' || v.target === '' || v.target.includes('/') || v.target.includes('\\') || v.target.startsWith('.'))) return null
  if (typeof v.sha256 !== 'string' || !HEX(64).test(v.sha256) || typeof v.keyId !== 'string' || !HEX(16).test(v.keyId)) return null
  if (typeof v.redacted !== 'boolean') return null
  return {v: 1, format: v.format as string, chat: v.chat as string, id: v.id as string, time: v.time as string, turns: v.turns as number, messages: v.messages as number, kind: v.kind as SnapshotKind, target: v.target as string | null, bytes: v.bytes as number, sha256: v.sha256, redacted: v.redacted, keyId: v.keyId}
}

/** The header of a snapshot file from its first bytes (no key needed, not yet authenticated), or why not. */
export function readHeader(bytes: Buffer): {header: SnapshotHeader; headerEnd: number} | {error: string} {
  if (bytes.length < MAGIC.length + 4 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return {error: 'not a chatdoctor snapshot (no CDSNAP01 header)'}
  const len = bytes.readUInt32BE(MAGIC.length)
  const end = MAGIC.length + 4 + len
  if (len === 0 || len > MAX_HEADER_BYTES) return {error: `not a chatdoctor snapshot (header length ${len})`}
  if (bytes.length < end) return {error: 'truncated: the file ends inside its header'}
  let v: unknown
  try {
    v = JSON.parse(bytes.subarray(MAGIC.length + 4, end).toString('utf8'))
  } catch {
    return {error: 'damaged: its header is not JSON'}
  }
  const header = checkHeader(v)
  return header ? {header, headerEnd: end} : {error: 'damaged: its header is not a snapshot header of this chatdoctor'}
}

/**
 * Decrypts and checks a snapshot file. `error` is one line: another key, tampered or truncated, damaged.
 * Never throws.
 */
export function openSnapshot(bytes: Buffer, key: Buffer): {header: SnapshotHeader; data: Buffer} | {error: string} {
  const h = readHeader(bytes)
  if ('error' in h) return h
  const {header, headerEnd} = h
  if (header.keyId !== keyIdOf(key)) return {error: `encrypted with another key (key id ${header.keyId}); set CHATDOCTOR_SNAPSHOT_KEY or restore the snapshot.key it was made with`}
  if (bytes.length < headerEnd + IV_BYTES + TAG_BYTES) return {error: 'truncated: the file ends before its ciphertext and tag'}
  const iv = bytes.subarray(headerEnd, headerEnd + IV_BYTES)
  const tag = bytes.subarray(bytes.length - TAG_BYTES)
  const body = bytes.subarray(headerEnd + IV_BYTES, bytes.length - TAG_BYTES)
  let data: Buffer
  try {
    const d = createDecipheriv('aes-256-gcm', key, iv)
    d.setAAD(bytes.subarray(0, headerEnd))
    d.setAuthTag(tag)
    data = Buffer.concat([d.update(body), d.final()])
  } catch {
    return {error: 'rejected: authentication failed (the file was changed or truncated after it was written); never restored'}
  }
  if (data.length !== header.bytes || sha256Hex(data) !== header.sha256) return {error: 'rejected: the decrypted bytes do not match the sha256 in its header; never restored'}
  return {header, data}
}
