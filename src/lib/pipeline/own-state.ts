/**
 * chatdoctor's own state in the chat dirs a scan found, read-only: leftovers of a repair or undo that was
 * killed (its temp `.chatdoctor-<id>-<file>.tmp`, or an evidence folder `.chatdoctor/<id>[/<sub>]` that holds
 * no manifest, or only evidence of a repair that replaced nothing), and repairs that were interrupted before
 * they put the folder's mtime back (a `repair` entry in the repair log with no `repair-end`). Each becomes an
 * `info` finding of the chat it belongs to and, for `repair`, an action (`plan.ts`).
 *
 * An evidence folder with a manifest, or one the repair log knows a manifest of, is never a leftover: the
 * repair may have replaced files, and its evidence is the only copy of what they held.
 */
import {lstatSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {createHash} from 'node:crypto'
import {OWN_DIR, MANIFEST} from '../fsio/evidence.js'
import {REPAIR_ID, repairEnd, type LogEntry} from '../fsio/repair-log.js'
import type {Leftover, ScannedChat} from '../model/adapter.js'
import {finding} from '../model/findings.js'
import {sortedNames} from '../fsio/names.js'

/** chatdoctor's temp name: `.chatdoctor-<repairId>-<file>.tmp` (undo: `.chatdoctor-undo-<repairId>-<file>.tmp`). */
const OWN_TEMP = /^\.chatdoctor-(?:undo-)?(\d{8}T\d{6}Z-[0-9a-f]{6})-(.+)\.tmp$/

function kindOf(p: string): 'file' | 'directory' | 'other' | null {
  try {
    const st = lstatSync(p)
    return st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other'
  } catch {
    return null
  }
}

/** Bytes of the regular files below `p` (never following a link). */
function treeBytes(p: string): number {
  try {
    const st = lstatSync(p)
    if (st.isFile()) return st.size
    if (!st.isDirectory()) return 0
    let n = 0
    for (const c of readdirSync(p)) n += treeBytes(path.join(p, c))
    return n
  } catch {
    return 0
  }
}

/** Whether an evidence folder may be removed: no manifest the log or the disk knows, or evidence of nothing replaced. */
function isLeftoverEvidence(dir: string, evDir: string, repairId: string, log: LogEntry[]): boolean {
  const end = repairEnd(log, repairId, dir, evDir)
  if (end?.replaced && end.replaced.length === 0) return true
  if (kindOf(path.join(evDir, MANIFEST)) !== null) return false
  return !log.some((e) => e.type === 'repair' && e.repairId === repairId && e.evidenceDir === evDir)
}

/**
 * Whether the evidence folder `.chatdoctor/<id>` (with `sub`: its subfolder of one chat) of the chat dir `dir`
 * is a leftover: it and its subfolders hold no manifest the disk or the log knows of, or (one chat's folder)
 * the log says its repair replaced nothing. Read-only; checked again by `repair` under the chat's lock.
 */
export function evidenceLeftover(dir: string, id: string, sub: string | null, log: LogEntry[]): boolean {
  const ev = path.join(dir, OWN_DIR, id)
  if (!REPAIR_ID.test(id) || kindOf(ev) !== 'directory') return false
  if (sub !== null) return kindOf(path.join(ev, sub)) === 'directory' && isLeftoverEvidence(dir, path.join(ev, sub), id, log)
  const subs = sortedNames(ev).filter((s) => !s.startsWith('undo-') && kindOf(path.join(ev, s)) === 'directory')
  const holdsManifest = kindOf(path.join(ev, MANIFEST)) !== null || subs.some((s) => kindOf(path.join(ev, s, MANIFEST)) !== null) || log.some((e) => e.type === 'repair' && e.repairId === id && (e.evidenceDir === ev || path.dirname(e.evidenceDir) === ev))
  return !holdsManifest || (subs.length === 0 && isLeftoverEvidence(dir, ev, id, log))
}

/** Whether a name of the chat dir (as `remove-leftover` names it) is still chatdoctor's leftover. */
export function stillLeftover(dir: string, rel: string, log: LogEntry[]): boolean {
  if (OWN_TEMP.test(rel)) return kindOf(path.join(dir, rel)) === 'file'
  const parts = rel.split('/')
  if (parts[0] !== OWN_DIR || parts.length < 2 || parts.length > 3) return false
  return evidenceLeftover(dir, parts[1], parts[2] ?? null, log)
}

/** The leftovers in one folder: the chat name each belongs to (null: the folder's), path and size. */
function leftoversIn(dir: string, names: string[], log: LogEntry[]): Array<Leftover & {owner: string | null}> {
  const out: Array<Leftover & {owner: string | null}> = []
  for (const n of names) {
    const m = OWN_TEMP.exec(n)
    if (m && kindOf(path.join(dir, n)) === 'file') out.push({path: n, bytes: treeBytes(path.join(dir, n)), owner: m[2]})
  }
  const own = path.join(dir, OWN_DIR)
  if (!names.includes(OWN_DIR) || kindOf(own) !== 'directory') return out
  for (const id of sortedNames(own)) {
    const ev = path.join(own, id)
    if (!REPAIR_ID.test(id) || kindOf(ev) !== 'directory') continue
    const subs = sortedNames(ev).filter((s) => !s.startsWith('undo-') && kindOf(path.join(ev, s)) === 'directory')
    if (evidenceLeftover(dir, id, null, log)) {
      out.push({path: `${OWN_DIR}/${id}`, bytes: treeBytes(ev), owner: subs.length === 1 ? subs[0] : null})
      continue
    }
    for (const s of subs) if (evidenceLeftover(dir, id, s, log)) out.push({path: `${OWN_DIR}/${id}/${s}`, bytes: treeBytes(path.join(ev, s)), owner: s})
  }
  return out
}

/** A `repair` entry that recorded the folder's mtime and has no `repair-end`: it may have to put it back. */
function unfinished(e: LogEntry, log: readonly LogEntry[]): boolean {
  if (e.type !== 'repair' || e.dirMtimeMs === undefined) return false
  return !log.some((x) => x.type === 'repair-end' && x.repairId === e.repairId && x.chatDir === e.chatDir && x.evidenceDir === e.evidenceDir)
}

/**
 * The chat folders with a repair the log shows unfinished (`unfinished`): `addOwnState` compares their files'
 * sha256 with what that repair wrote, so a scan hashes every file of them (no verdict-only diagnosis).
 */
export function unfinishedRepairDirs(log: readonly LogEntry[]): Set<string> {
  const dirs = new Set<string>()
  for (const e of log) if (e.type === 'repair' && unfinished(e, log)) dirs.add(e.chatDir)
  return dirs
}

/** The sha256 of a file of the chat as the scan read it: null when absent, undefined when not known. */
function currentSha(chat: ScannedChat, name: string): string | null | undefined {
  const f = chat.snapshot.files.find((x) => x.name === name)
  if (!f) return null
  const g = chat.report.generations.find((x) => x.file === name)
  if (g?.sha256) return g.sha256
  return f.data ? createHash('sha256').update(f.data).digest('hex') : undefined
}

/** The chat a name in a shared folder belongs to (a session file, its evidence subfolder, its id). */
function ownerChat(chats: ScannedChat[], owner: string | null): ScannedChat {
  if (owner !== null) {
    const hit = chats.find((c) => c.snapshot.unit.files?.includes(owner) || path.basename(c.snapshot.unit.path) === owner || c.report.id === owner || c.snapshot.unit.members?.includes(owner))
    if (hit) return hit
  }
  return chats[0]
}

/**
 * Finds chatdoctor's own state in the folders of `chats` (`log`: the repair log's entries), sets `own` on the
 * chats it belongs to and adds their `info` findings (`chatdoctor-leftover`, `repair-interrupted`). Read-only;
 * never throws. A folder costs no listing beyond the scan's unless it holds a `.chatdoctor` entry.
 */
export function addOwnState(chats: ScannedChat[], log: LogEntry[]): void {
  const byDir = new Map<string, ScannedChat[]>()
  for (const c of chats) {
    const d = c.snapshot.dir
    byDir.set(d, [...(byDir.get(d) ?? []), c])
  }
  const own = (c: ScannedChat) => (c.own ??= {leftovers: [], interrupted: []})
  for (const [dir, group] of byDir) {
    const whole = group.length === 1 && group[0].snapshot.unit.files === undefined && group[0].snapshot.unit.members === undefined
    let names: string[]
    if (whole) names = group[0].snapshot.files.map((f) => f.name)
    else if (kindOf(path.join(dir, OWN_DIR)) === 'directory') names = sortedNames(dir)
    else names = []
    if (names.includes(OWN_DIR) || names.some((n) => n.startsWith('.chatdoctor-'))) {
      for (const l of leftoversIn(dir, names, log)) {
        const c = ownerChat(group, l.owner)
        own(c).leftovers.push({path: l.path, bytes: l.bytes})
        c.report.findings.push(finding('chatdoctor-leftover', l.path, `chatdoctor's own leftover of an interrupted run (${l.bytes} bytes); chatdoctor repair removes it`))
      }
    }
    for (const e of log) {
      if (e.type !== 'repair' || e.chatDir !== dir || e.dirMtimeMs === undefined || !unfinished(e, log)) continue
      const sub = path.basename(e.evidenceDir)
      const c = sub === e.repairId ? group[0] : group.find((x) => x.snapshot.unit.files?.includes(sub) || path.basename(x.snapshot.unit.path) === sub || x.report.id === sub)
      if (!c) continue
      // Put the recorded mtime back only while the files are as that repair left them (else the agent wrote since).
      const writes = e.actions.flatMap((a) =>
        a.type === 'restore' || a.type === 'rewrite' ? [{path: a.to, sha256: a.sha256, previousSha256: a.previousSha256 ?? null}] : a.type === 'move' && a.from !== null ? [{path: a.from, sha256: null, previousSha256: a.sha256}] : [],
      )
      const untouched = writes.every((w) => {
        const now = currentSha(c, w.path)
        return now !== undefined && (now === w.sha256 || now === w.previousSha256)
      })
      if (!untouched) continue
      own(c).interrupted.push({repairId: e.repairId, dirMtimeMs: e.dirMtimeMs, dirAtimeMs: e.dirAtimeMs ?? e.dirMtimeMs, evidenceDir: e.evidenceDir})
      c.report.findings.push(finding('repair-interrupted', null, `chatdoctor repair ${e.repairId} of this chat was interrupted before it put the folder's mtime back; chatdoctor repair puts back the mtime it recorded`))
    }
  }
}
