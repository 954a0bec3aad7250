/**
 * Snapshots of Kilo sessions: the `kilo export <sessionID>` document of a healthy, settled session, read from a
 * private copy of the store (the store family's `opencode-family/snapshot.ts`), restored through `kilo import`
 * (Kilo-Org/kilocode `packages/opencode/src/cli/cmd/import.ts`: `import <file>`, which inserts each message and
 * part whose id the store does not hold yet). A session whose rows lost what a snapshot holds (`degraded`) gets
 * the snapshot imported; a session gone from the store altogether is a chat of its own, `<data dir>#<session id>`.
 * The document is what `kilo export` writes (`export-view.ts`); `--redact` empties its tool payloads and per-turn
 * context as the family's `snapshot-redact.ts` does.
 */
import type {ChatPlan, ChatUnit, ScannedChat} from '../../model/adapter.js'
import type {SnapshotCaps, SnapshotCapture, SnapshotHeader} from '../../model/snapshot.js'
import {captureDatabaseSession, diagnoseGoneSession, planDatabaseImport} from '../opencode-family/snapshot.js'
import {redactExportPayload} from '../opencode-family/snapshot-redact.js'
import {KILO, DATABASE} from './layout.js'
import type {KiloFacts, SessionGoneFacts} from './store.js'

const SESSION_ID = /^ses_[0-9A-Za-z]+$/

/** A session's identity in the store: its data dir and session id. */
export function kiloChatKey(unit: ChatUnit): string {
  const f = unit.facts as KiloFacts | undefined
  if (f?.kind === 'database' && f.session) return `${unit.dir}#${f.session.id}`
  if (f?.kind === 'session-gone') return `${unit.dir}#${f.sessionId}`
  return unit.path
}

/** A Kilo snapshot (an export document) without its private tool payloads and per-turn context. Pure. */
export function redactKiloSnapshot(payload: Buffer, header: Pick<SnapshotHeader, 'format' | 'kind' | 'target'>): Buffer | {refused: string} {
  return header.kind === 'export' ? redactExportPayload(payload) : {refused: `a ${header.kind} snapshot of Kilo is not redacted`}
}

/** The snapshot of a healthy, settled session of Kilo's store. */
export function captureKilo(chat: Pick<ScannedChat, 'report' | 'snapshot'>, caps: SnapshotCaps): SnapshotCapture | Promise<SnapshotCapture> {
  const f = chat.snapshot.unit.facts as KiloFacts | undefined
  if (f?.kind !== 'database') return {ok: false, skip: 'not a session of a Kilo database'}
  return captureDatabaseSession(KILO, chat, f, caps)
}

/**
 * The chat of a session whose snapshots name a data dir discovery listed but whose store holds no row of it. None
 * while that store cannot take an import: a database SQLite cannot read, or a deleted one whose WAL is still
 * there (chatdoctor repair sets it aside first; the next scan then offers the import). Pure.
 */
export function kiloGoneChat(key: string, found: readonly ChatUnit[]): ChatUnit | null {
  const at = key.lastIndexOf('#')
  if (at < 0) return null
  const dir = key.slice(0, at)
  const sessionId = key.slice(at + 1)
  const here = found.filter((u) => u.dir === dir)
  if (!SESSION_ID.test(sessionId) || here.length === 0) return null
  for (const u of here) {
    const f = u.facts as KiloFacts | undefined
    if (f?.kind === 'legacy' || (f?.kind === 'database' && f.session === null) || (f?.kind === 'gone' && f.leftovers.length > 0)) return null
  }
  const facts: SessionGoneFacts = {kind: 'session-gone', sessionId}
  return {dir, path: `${dir}/${DATABASE}#${sessionId}`, members: [], facts}
}

/** The diagnosis of a session gone from Kilo's store. */
export function diagnoseKiloGone(snapshots: Parameters<typeof diagnoseGoneSession>[1], facts: SessionGoneFacts) {
  return diagnoseGoneSession(KILO, snapshots, facts.sessionId, DATABASE)
}

/** The import plan of a session whose winner is a snapshot (gone from the store, or its rows hold less). */
export function planKiloImport(chat: Pick<ScannedChat, 'report' | 'snapshot'>, plan: ChatPlan, id: string): ChatPlan {
  return planDatabaseImport(KILO, chat, plan, id)
}
