/**
 * The repair plan for one session of OpenCode's JSON tree: which damaged files move out of the tree into the
 * evidence folder, and exactly what the session loses. Pure; plans only (the `repair` command applies it).
 *
 * Why moving out: OpenCode lists every non-dot file under `storage/` (`Storage.list` globs `**` and chops
 * `.json`), and one unparseable file makes it fail to open the session (B01, part files) or to list any
 * session at all (B04, session file). A damaged file left in place, or renamed beside itself without a leading
 * dot, keeps breaking it (peer-formats.md §1.3, §1.11). Nothing is rewritten: the files that stay are untouched.
 */
import type {ChatStatus, SessionContext} from '../../model/report.js'
import type {FileEntry} from '../../model/adapter.js'
import {measureSession, type SessionMessage} from '../opencode-family/measure.js'
import {readTreeSession, sessionMessages, usable, type TreeSession} from './tree.js'

/** One file to move out of the tree, relative to the data dir (the same relative path under the evidence folder). */
export interface PlannedMove {
  file: string
  /** Why: `damaged` (the file itself), `parts-of-damaged-message` (a part of a message whose file is damaged). */
  why: 'damaged-session' | 'damaged-message' | 'damaged-part' | 'parts-of-damaged-message'
  /** sha256 of the bytes that must still be there when the move is applied (null when unreadable). */
  sha256: string | null
  bytes: number
}

/** What a session loses by the plan, and what it keeps. Ids and counts only. */
export interface PlannedLoss {
  /** Message ids whose file moves out (the message and all its parts leave the session's context). */
  messages: string[]
  /** Part ids that move out (damaged parts, and parts of moved messages). */
  parts: string[]
  /** Whether OpenCode can list the session after the plan (false when its session file is missing or damaged). */
  sessionListed: boolean
  /** The context before (readable files now) and after the plan (what OpenCode will load). */
  before: SessionContext
  after: SessionContext
}

/** The plan for one session. */
export interface TreeRepairPlan {
  sessionId: string | null
  moves: PlannedMove[]
  loss: PlannedLoss
  /** The session's status once the plan is applied, as `scan` would then report it. */
  statusAfter: ChatStatus
}

/**
 * Plans the repair of one tree session from its files (as `listStore` named them and the inventory read them).
 *
 * Moves: a damaged (truncated, empty, zero-filled, corrupt, unreadable) session file; a damaged message file and
 * every part file of that message (OpenCode would never read them once the message is gone, and a later message
 * file with the same id must not inherit them); a damaged part file. Orphan parts (their message file is
 * already gone) are not moved: OpenCode never reads them, so they break nothing; they are reported as lost.
 */
export function planTreeRepair(sessionId: string | null, files: FileEntry[]): TreeRepairPlan {
  const s: TreeSession = readTreeSession(sessionId, files)
  const moves: PlannedMove[] = []
  const lostMessages: string[] = []
  const lostParts: string[] = []
  const partId = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1, -5)
  const move = (f: {rel: string; generation: {sha256: string | null; bytes: number}}, why: PlannedMove['why']) => moves.push({file: f.rel, why, sha256: f.generation.sha256, bytes: f.generation.bytes})
  if (s.session && !usable(s.session)) move(s.session, 'damaged-session')
  const after: SessionMessage[] = []
  for (const m of s.messages) {
    if (!m.file) {
      lostParts.push(...m.parts.map((p) => partId(p.rel)))
      continue
    }
    if (!usable(m.file)) {
      move(m.file, 'damaged-message')
      lostMessages.push(m.id)
      for (const p of m.parts) {
        move(p, 'parts-of-damaged-message')
        lostParts.push(partId(p.rel))
      }
      continue
    }
    const kept: Array<Record<string, unknown>> = []
    for (const p of m.parts) {
      if (usable(p)) kept.push(p.value)
      else {
        move(p, 'damaged-part')
        lostParts.push(partId(p.rel))
      }
    }
    after.push({id: m.id, info: m.file.value, parts: kept, unreadableParts: 0})
  }
  const before = measureSession(sessionMessages(s)).context
  const measured = measureSession(after)
  const sessionListed = usable(s.session)
  const orphaned = s.messages.some((m) => !m.file)
  // As a scan of the repaired tree would judge it (moved files are gone from it; their loss is in `loss`).
  const statusAfter: ChatStatus = !sessionListed ? 'unrecoverable' : orphaned || measured.issues.length > 0 ? 'degraded' : 'healthy'
  return {sessionId, moves, loss: {messages: lostMessages, parts: lostParts, sessionListed, before, after: measured.context}, statusAfter}
}
