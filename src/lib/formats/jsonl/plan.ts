/**
 * The repair plan of a JSONL session log (Claude Code, Codex). Pure: from the scanned chat to the
 * actions `pipeline/apply.ts` executes. The repaired bytes come from `planJsonlRepair` (`repair.ts`), made with the
 * agent's own rules (`sessionRules`: its dialect's record rule and `analyze(...).rules`, `dialects.ts`) over the winner's bytes as the scan
 * read them: only the byte changes the session-log rules allow (drop a torn tail, strip NUL runs and a BOM, split an
 * interleaved line, drop an unrecoverable line and re-link the `parentUuid` after it); every other line stays
 * byte-identical. Each change is reported (`changes`).
 *
 * The actions: `preserve` the log the agent reads (evidence first), `rewrite` it with the repaired bytes, put
 * the folder's mtime back (`restore-mtime`). The rewrite also puts the log's own mtime back: `claude
 * --continue` opens the most recently modified session of the project dir (peer-formats.md §2.4), so a
 * repaired session must not jump ahead of the one the user last used.
 *
 * Which file is written: the plain `<name>.jsonl`, always. A copy beside it that wins (`<name>.jsonl.bak` and the
 * like, a temp) is written there byte for byte, repaired first when it needs it; the copy itself is never touched.
 * Codex loads the plain file when both the plain and
 * the compressed `<name>.jsonl.zst` exist ("plain wins", peer-formats.md §3.3), so when the winner is the
 * `.zst` (the plain log is damaged beyond it, or absent and the `.zst` itself needs a repair), its decoded bytes
 * (repaired when needed) are written as the plain log: that is what Codex reads next. The `.zst` is never
 * touched (chatdoctor writes no zstd; Codex's compression worker makes a new one from the plain log later), and
 * undo removes a plain log the repair created.
 *
 * Refused outright (never written, even with `--force`): a session that changed size while the scan read it
 * (`session-live`: the agent is writing it; the bytes at hand are a mid-write snapshot), and a plan the agent's
 * acceptance rules refuse. The live check of `pipeline/apply.ts` then compares size and mtime again right before the
 * write.
 */
import {createHash} from 'node:crypto'
import path from 'node:path'
import {pieceChunks, type JsonlChange, type JsonlLog, type JsonlRepairPlan} from './repair.js'
import type {LineChangeReport} from '../../model/report.js'
import type {ChatPlan, FileEntry, PlannedAction, PlanOptions, ScannedChat, WatchedFile} from '../../model/adapter.js'
import type {SnapshotCandidate} from '../../model/snapshot.js'
import {dialectByName, SESSION_DIALECTS} from './dialects.js'
import {decodeZstd, keepForFamily, logOfFile, sessionNameOf, sessionRules, streamedPlanOf, type StreamedPlan} from './session.js'

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex')
}

/** Plans the repair of one Claude Code or Codex session. Pure; never throws. */
/**
 * The start every session-log plan shares: every file watched for the live check, the evidence subfolder named
 * by the session file (sessions share a folder, and copies of one session share its id), and the refusals that
 * come before any action (`--restore-from`, nothing to repair, a file that changed while it was read; `agent` is
 * who writes it, in words). `done`: the plan is final as it is.
 */
export function startSessionPlan(chat: ScannedChat, opts: PlanOptions, agent = 'the agent'): {plan: ChatPlan; done: boolean} {
  const {report, snapshot} = chat
  const watch: WatchedFile[] = snapshot.files.filter((f) => f.kind === 'file').map((f) => ({name: f.name, bytes: f.bytes, mtimeMs: f.mtimeMs}))
  const plan: ChatPlan = {chat, actions: [], watch, temps: [], evidenceSub: path.basename(snapshot.unit.path)}
  if (opts.restoreFrom !== undefined) {
    plan.problem = `--restore-from is for Codebuff chats; a ${report.format} session is repaired from its best generation`
    return {plan, done: true}
  }
  if (report.status !== 'repairable' || report.winner === null) return {plan, done: true}
  const live = report.findings.find((f) => f.id === 'session-live')
  if (live) {
    plan.refusal = `refused: ${live.file ?? 'the session'} changed size while it was read: ${agent} is writing this session; quit it and run chatdoctor repair again`
    return {plan, done: true}
  }
  return {plan, done: false}
}

/** The report form of a JSON-lines repair's byte changes (ids only, never content). */
export function lineChangeReports(changes: readonly JsonlChange[]): LineChangeReport[] {
  return changes.map((c) => ({
    kind: c.kind,
    line: c.line,
    offset: c.offset,
    length: c.length,
    reasons: [...c.reasons],
    bytesRemoved: c.bytesRemoved,
    recordsKept: c.recordsKept,
    sha256: c.sha256,
    ...(c.bytesAdded !== undefined ? {bytesAdded: c.bytesAdded} : {}),
    ...(c.linesJoined !== undefined ? {linesJoined: c.linesJoined} : {}),
    ...(c.relink ? {relink: {...c.relink}} : {}),
    ...(c.ordinal !== undefined ? {ordinal: c.ordinal} : {}),
  }))
}

/** A stored snapshot as the entry of a generation: its decrypted bytes, its time as mtime. */
function snapshotEntry(s: SnapshotCandidate): FileEntry {
  return {name: s.name, kind: 'file', bytes: s.data?.length ?? 0, mtimeMs: Date.parse(s.header.time), ...(s.data ? {data: s.data} : {})}
}

/**
 * The sha256 of a kept plan's source as it is now and of the bytes its pieces make, on one read of the source
 * in order (the pieces' ranges are in the source's order), a chunk at a time.
 */
function hashKept(p: StreamedPlan): {source: string; result: string} {
  const src = createHash('sha256')
  const out = createHash('sha256')
  const buf = Buffer.allocUnsafe(1 << 22)
  let at = 0
  const feed = (end: number, both: boolean) => {
    while (at < end) {
      const n = p.source.readInto(buf, 0, Math.min(buf.length, end - at), at)
      if (n === 0) {
        at = end
        return
      }
      src.update(buf.subarray(0, n))
      if (both) out.update(buf.subarray(0, n))
      at += n
    }
  }
  for (const piece of p.pieces) {
    if (piece instanceof Uint8Array) {
      out.update(piece)
      continue
    }
    if (piece.start < at) return {source: '', result: ''} // not in order: never the planner's
    feed(piece.start, false)
    feed(piece.end, true)
  }
  feed(p.source.size, false)
  return {source: src.digest('hex'), result: out.digest('hex')}
}

export function planSessionRepair(chat: ScannedChat, opts: PlanOptions): ChatPlan {
  const {report, snapshot} = chat
  const {plan, done} = startSessionPlan(chat, opts)
  if (done) {
    if (report.status === 'degraded' && !plan.problem) plan.advice = 'the agent loads this session without its damaged lines, and no repair of it is one the agent accepts (see the findings); nothing written'
    return plan
  }
  const stored = snapshot.snapshots?.find((s) => s.name === report.winner)
  const winner = stored ? snapshotEntry(stored) : snapshot.files.find((f) => f.name === report.winner && f.kind === 'file')
  if (!winner?.data && winner?.path === undefined) {
    plan.problem = `the bytes of the winner ${report.winner} could not be read as scanned; nothing written`
    return plan
  }
  // A snapshot's bytes are checked against its header once more right before they are planned.
  if (stored && (stored.header.kind !== 'generation' || !winner.data || sha256(winner.data) !== stored.header.sha256)) {
    plan.problem = `the bytes of ${stored.name} do not match its header's sha256; nothing written`
    return plan
  }
  const scannedSha = (name: string) => report.generations.find((g) => g.file === name)?.sha256 ?? null
  let input: Uint8Array | JsonlLog
  if (winner.data) {
    input = winner.data
    if (winner.name.endsWith('.zst')) {
      const d = decodeZstd(winner.data)
      if (!d.ok) {
        plan.problem = `the winner ${winner.name} cannot be decoded (${d.message}); nothing written`
        return plan
      }
      input = d.bytes
    }
  } else input = logOfFile(winner.path!, winner.bytes, dialectByName(report.format)?.keep ?? keepForFamily, dialectByName(report.format)?.columns) // read by streaming: the repair is pieces of it
  const dialect = dialectByName(report.format) ?? SESSION_DIALECTS[0]
  // A log the scan read by streaming and planned a repair of: that plan, not a second read and classification
  // (the bytes are checked at the write: the evidence against the scanned sha256, the pieces against the planned).
  const kept = !stored && !winner.data ? streamedPlanOf(winner, report.format) : undefined
  let jp: Pick<JsonlRepairPlan, 'pieces' | 'source' | 'size' | 'changes' | 'sha256' | 'bytes'>
  if (kept) {
    // One read: the log must still be the bytes scanned, and the result's sha256 is of the pieces of those.
    const h = hashKept(kept)
    if (h.source !== scannedSha(winner.name)) {
      plan.refusal = `refused: ${winner.name} changed since the scan (new bytes): ${report.format} is probably writing this session; quit it and run chatdoctor repair again`
      return plan
    }
    jp = {...kept, sha256: h.result, bytes: Buffer.alloc(0)}
  } else {
    const {analysis, plan: p, sha256: read} = sessionRules(dialect, winner.name, input)
    if (read !== undefined && read !== scannedSha(winner.name)) {
      plan.refusal = `refused: ${winner.name} changed since the scan (new bytes): ${report.format} is probably writing this session; quit it and run chatdoctor repair again`
      return plan
    }
    if (!p.accepted) {
      const after = p.changes.length === 0 ? analysis : dialect.analyze(winner.name, p.after)
      if (after.manual !== null) {
        plan.manual = `${winner.name}: ${after.manual}`
        return plan
      }
      plan.refusal = `refused: the repaired log would not be accepted by ${report.format} (${p.problems.join('; ')}); nothing written`
      return plan
    }
    jp = p
  }
  const target = stored ? (stored.header.target ?? path.basename(snapshot.unit.path)) : (sessionNameOf(winner.name)?.plain ?? winner.name)
  // A snapshot's target is a file name of the chat's own folder (its header is authenticated, and still checked).
  if (stored && (target !== path.basename(target) || target === '.' || target === '..' || sessionNameOf(target)?.role !== 'primary')) {
    plan.problem = `${stored.name} names ${JSON.stringify(target)}, not a session log of this folder; nothing written`
    return plan
  }
  const current = snapshot.files.find((f) => f.name === target && f.kind === 'file')
  const hash = jp.sha256
  const currentSha = current?.data ? sha256(current.data) : current?.path !== undefined ? scannedSha(current.name) : null
  if (currentSha !== null && currentSha === hash) return plan
  const changes = lineChangeReports(jp.changes)
  const actions: PlannedAction[] = []
  // The agent appends to its log in place: the evidence is a copy, never a link to the inode it may still write.
  if (current) actions.push({type: 'preserve', from: target, to: target, sha256: currentSha, copy: true})
  // A log read by streaming is written from its pieces (ranges of it as scanned, read again while writing).
  // The stream holds the pieces and their source only, never the plan (its classifications of the log).
  const {pieces, source} = jp
  const bytes = jp.source.size === 0 || input instanceof Uint8Array ? {data: jp.bytes, source: {kind: 'bytes' as const, label: winner.name, data: jp.bytes}} : {stream: {size: jp.size, sha256: hash, chunks: () => pieceChunks(pieces, source)}, source: {kind: 'file' as const, name: winner.name}}
  actions.push({
    type: 'rewrite',
    from: winner.name,
    to: target,
    sha256: hash,
    ...bytes,
    changes,
    // The log's own mtime goes back to what the agent last left (the winner's when the plain log is new).
    mtimeMs: (current ?? winner).mtimeMs,
  })
  actions.push({type: 'restore-mtime', from: null, to: '.', sha256: null, mtimeMs: snapshot.dirMtimeMs})
  plan.actions = actions
  plan.statusAfter = 'healthy'
  return plan
}
