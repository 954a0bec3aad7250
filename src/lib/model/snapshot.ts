/**
 * Snapshots: last-known-good copies of a healthy, settled chat's agent context, stored encrypted outside the
 * agent's folders (`snapshot/` keeps them, `pipeline/snapshot/` takes and uses them). These are the shapes
 * the store, the adapters and the scan pass to each other; the store names no agent, each adapter says what
 * its snapshot holds and when its chat is settled.
 */

/**
 * What a snapshot's payload is:
 * - `generation`: the exact bytes of the chat's winning generation (a state file, a session log), restored
 *   as `target`;
 * - `files`: several files of a store, exact bytes each, relative to the chat's folder (`encodeFiles`);
 * - `export`: a document the agent's own importer reads (one session of a store), for a session the store
 *   no longer holds.
 */
export type SnapshotKind = 'generation' | 'files' | 'export'

/**
 * The authenticated header of one stored snapshot (in the clear, bound to the ciphertext as AES-GCM
 * additional data: it cannot change without the snapshot being rejected).
 */
export interface SnapshotHeader {
  /** Layout version of the header. */
  v: 1
  /** The report format of the chat (the adapter's name, or one of its `formats`). */
  format: string
  /** The chat's identity in the store: the adapter's `chatKey` of its unit (an absolute path, or path#id). */
  chat: string
  /** The chat's id as its report names it. */
  id: string
  /** When it was taken, ISO 8601 UTC with milliseconds. */
  time: string
  /** Turns the snapshot covers (the report's `contextTurns` of the chat when taken). */
  turns: number
  /** Messages (or records) the snapshot holds, as the adapter counts them (the message cap counts these). */
  messages: number
  kind: SnapshotKind
  /** `generation`: the file it restores, relative to the chat's folder; `files`/`export`: null. */
  target: string | null
  /** Size of the plaintext in bytes. */
  bytes: number
  /** sha256 of the plaintext, lower-case hex (checked after decryption and again before a restore writes). */
  sha256: string
  /** True when private tool payloads and per-turn system prompts were removed before storing. */
  redacted: boolean
  /** The first 16 hex digits of sha256 of the key it was encrypted with: tells a wrong key from tampering. */
  keyId: string
}

/** One stored snapshot as the store lists it (header read, not yet decrypted). */
export interface SnapshotRef {
  /** Absolute path of the snapshot file. */
  file: string
  header: SnapshotHeader
  /** Size of the snapshot file in bytes. */
  fileBytes: number
}

/**
 * A stored snapshot of one chat as its diagnosis sees it: decrypted and checked (`data`), or rejected with
 * one line saying why (`error`: tampered, truncated, another key). `name` is its generation name,
 * `snapshot:<time>`.
 */
export interface SnapshotCandidate {
  name: string
  header: SnapshotHeader
  /** The store file it came from. */
  file: string
  data?: Buffer
  error?: string
}

/** Caps of a snapshot; over one, the chat is skipped with the reason (a snapshot is never truncated). */
export interface SnapshotCaps {
  /** Messages per snapshot (default 500). */
  maxMessages: number
  /** Bytes per snapshot (default 8 MiB). */
  maxBytes: number
  /** Snapshots kept per chat (default 5): the oldest beyond it are removed after a new one is stored. */
  keepPerChat: number
  /** Total bytes of the store (default 512 MiB): a snapshot that would exceed it is skipped. */
  maxStoreBytes: number
}

export const DEFAULT_SNAPSHOT_CAPS: SnapshotCaps = {maxMessages: 500, maxBytes: 8 * 2 ** 20, keepPerChat: 5, maxStoreBytes: 512 * 2 ** 20}

/**
 * What an adapter makes of a chat for a snapshot: the payload to store, or why the chat is not taken
 * (`skip`: not settled, over a cap, nothing to store), in words; `unsettled` when the only reason is that its
 * last turn is not complete yet (a hook may try again a moment later).
 */
export type SnapshotCapture =
  | {ok: true; kind: SnapshotKind; target: string | null; payload: Buffer; messages: number; turns: number}
  | {ok: false; skip: string; unsettled?: boolean}

/** One file of a `files` payload. */
export interface PayloadFile {
  /** Relative to the chat's folder, `/`-separated. */
  rel: string
  data: Buffer
}

/**
 * The payload of several files: a JSON document `{"files":[{"rel","bytes","data"}]}` (data base64), so it
 * decodes without guessing and each file's bytes are checked on the way out.
 */
export function encodeFiles(files: readonly PayloadFile[]): Buffer {
  return Buffer.from(JSON.stringify({files: files.map((f) => ({rel: f.rel, bytes: f.data.length, data: f.data.toString('base64')}))}), 'utf8')
}

/** The files of a `files` payload, or null when the bytes are not one (hostile until checked: paths stay relative). */
export function decodeFiles(payload: Buffer): PayloadFile[] | null {
  let v: unknown
  try {
    v = JSON.parse(payload.toString('utf8'))
  } catch {
    return null
  }
  if (typeof v !== 'object' || v === null || !Array.isArray((v as {files?: unknown}).files)) return null
  const out: PayloadFile[] = []
  for (const f of (v as {files: unknown[]}).files) {
    if (typeof f !== 'object' || f === null) return null
    const {rel, bytes, data} = f as {rel?: unknown; bytes?: unknown; data?: unknown}
    if (typeof rel !== 'string' || typeof data !== 'string' || typeof bytes !== 'number') return null
    if (rel === '' || rel.startsWith('/') || rel.includes('\\') || rel.includes('\0') || rel.split('/').some((p) => p === '' || p === '.' || p === '..')) return null
    const buf = Buffer.from(data, 'base64')
    if (buf.length !== bytes) return null
    out.push({rel, data: buf})
  }
  return out
}

/**
 * The text `snapshot --redact` leaves in place of a text block it empties where the agent's model APIs refuse
 * an empty one.
 */
export const REDACTED_TEXT = '(removed by chatdoctor snapshot --redact)'

/** The generation name of a snapshot taken at `time` (ISO 8601). */
export function snapshotName(time: string): string {
  return `snapshot:${time}`
}
