/**
 * Crash-state construction (prior-art.md §2: SQLite's test VFS `src/test6.c`, ALICE, CrashMonkey).
 *
 * Given the tree a run started from (`snapshotTree`) and the operation trace the `RecordingFileSystem` seam
 * recorded, `crashStates` builds, for every prefix of the trace's mutating operations, the on-disk states a
 * crash (power loss) right there could leave, under three persistence models:
 *
 * - **(a) ordered**: everything before the crash is durable, in order.
 * - **(b) unsynced data lost**: a file's bytes are durable only up to its last `fsync` (a file created and
 *   never fsynced is empty); a directory entry (create, rename, link, unlink, mkdir, rmdir) is durable only
 *   once its directory was `fsyncDir`ed. Pending directory entries are kept or dropped per directory (all
 *   dropped; all kept; only those of one directory kept), so a rename that reached the disk while another
 *   directory's entries did not is modelled too.
 * - **(c) unsynced data scrambled while the rename survived**: every directory entry is kept, and the bytes
 *   written since a file's last `fsync` are zero-filled, cut short (at a 4096-byte block boundary, or halfway),
 *   garbage (seeded random bytes; 2 seeds), or correct except for one garbage 512-byte sector (3 seeds).
 *
 * Model limits: file data is modelled per file (appends and whole-file writes, which is all the seam does); a
 * directory's pending entries persist all-or-nothing, never a subset out of order; mtimes and modes are
 * carried but not made crash-dependent; the device never corrupts data that was fsynced.
 */
import {createHash} from 'node:crypto'
import {lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, utimesSync, writeFileSync, chmodSync} from 'node:fs'
import path from 'node:path'
import {MUTATING_OPS, type TraceEntry} from '../../src/lib/fsio/fs.js'
import {seededRandom} from './fixtures.js'

/** One entry of a tree: absolute path → what is there. */
export type TreeNode = {kind: 'file'; data: Buffer; mode: number; mtimeMs: number} | {kind: 'dir'; mode: number} | {kind: 'symlink'; target: string}
/** A whole tree under a root, keyed by absolute path (the root itself excluded). */
export type Tree = Map<string, TreeNode>

/** Reads every entry under `root` (not following links) into memory. */
export function snapshotTree(root: string): Tree {
  const out: Tree = new Map()
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name)
      const st = lstatSync(p)
      if (st.isSymbolicLink()) out.set(p, {kind: 'symlink', target: readlinkSync(p)})
      else if (st.isDirectory()) {
        out.set(p, {kind: 'dir', mode: st.mode & 0o7777})
        walk(p)
      } else out.set(p, {kind: 'file', data: readFileSync(p), mode: st.mode & 0o7777, mtimeMs: st.mtimeMs})
    }
  }
  walk(root)
  return out
}

/** Empties `root` and writes `tree` into it (files with their bytes, modes and mtimes). */
export function materialize(root: string, tree: Tree): void {
  for (const n of readdirSync(root)) rmSync(path.join(root, n), {recursive: true, force: true})
  const paths = [...tree.keys()].sort((a, b) => a.split(path.sep).length - b.split(path.sep).length || (a < b ? -1 : 1))
  for (const p of paths) {
    const n = tree.get(p)!
    if (n.kind === 'dir') mkdirSync(p, {mode: 0o755})
    else if (n.kind === 'symlink') symlinkSync(n.target, p)
    else {
      writeFileSync(p, n.data)
      chmodSync(p, n.mode)
      utimesSync(p, n.mtimeMs / 1000, n.mtimeMs / 1000)
    }
  }
}

/** A stable key of a tree's content (paths, kinds, bytes): equal keys, equal crash states. */
export function treeKey(tree: Tree): string {
  const h = createHash('sha256')
  for (const p of [...tree.keys()].sort()) {
    const n = tree.get(p)!
    h.update(p + '\0' + n.kind + '\0')
    if (n.kind === 'file') h.update(n.data)
    else if (n.kind === 'symlink') h.update(n.target)
    h.update('\0')
  }
  return h.digest('hex')
}

interface Inode {
  /** The bytes the OS holds (page cache). */
  data: Buffer
  /** The bytes on stable storage (as of the last fsync; empty for a new file never fsynced). */
  synced: Buffer
  mode: number
  mtimeMs: number
}
type NsNode = {kind: 'file'; ino: Inode} | {kind: 'dir'; mode: number} | {kind: 'symlink'; target: string}
type Ns = Map<string, NsNode>
/** A change of directory entries, made in `dir` at `seq`. */
interface NsOp {
  seq: number
  dir: string
  apply(ns: Ns): void
}

/** The result of replaying a trace prefix: the namespace the OS shows, and what stable storage holds. */
interface Replay {
  inodes: Inode[]
  ns: Ns
  initial: Ns
  nsOps: NsOp[]
  dirSyncs: Array<{seq: number; dir: string}>
}

function replay(start: Tree, ops: TraceEntry[]): Replay {
  const inodes: Inode[] = []
  const initial: Ns = new Map()
  for (const [p, n] of start) {
    if (n.kind === 'file') {
      const ino = {data: n.data, synced: n.data, mode: n.mode, mtimeMs: n.mtimeMs}
      inodes.push(ino)
      initial.set(p, {kind: 'file', ino})
    } else initial.set(p, n)
  }
  const ns: Ns = new Map(initial)
  const nsOps: NsOp[] = []
  const dirSyncs: Replay['dirSyncs'] = []
  const fds = new Map<number, Inode>()
  const change = (seq: number, dir: string, apply: (n: Ns) => void) => {
    const op = {seq, dir, apply}
    nsOps.push(op)
    apply(ns)
  }
  const newFile = (mode: number): NsNode => {
    const ino: Inode = {data: Buffer.alloc(0), synced: Buffer.alloc(0), mode, mtimeMs: CREATED_MTIME}
    inodes.push(ino)
    return {kind: 'file', ino}
  }
  for (const e of ops) {
    if (e.error) continue
    const [a0, a1, a2] = e.args
    switch (e.op) {
      case 'open': {
        const p = String(a0)
        let node = ns.get(p)
        if (a1 === 'wx' || (a1 === 'a' && node === undefined)) {
          const created = newFile(Number(a2 ?? 0o644))
          node = created
          change(e.seq, path.dirname(p), (n) => n.set(p, created))
        }
        if (node?.kind !== 'file') throw new Error(`replay: open of ${p}, which is not a file in the model`)
        fds.set(e.result!, node.ino)
        break
      }
      case 'write': {
        const ino = fds.get(Number(a0))!
        ino.data = Buffer.concat([ino.data, e.data!])
        ino.mtimeMs = CREATED_MTIME
        break
      }
      case 'fsync': {
        const ino = fds.get(Number(a0))!
        ino.synced = Buffer.from(ino.data)
        break
      }
      case 'close':
        fds.delete(Number(a0))
        break
      case 'rename': {
        const from = String(a0)
        const to = String(a1)
        const node = ns.get(from)
        if (!node) throw new Error(`replay: rename of ${from}, absent in the model`)
        // A rename touches both directories; in chatdoctor both are the same.
        change(e.seq, path.dirname(to), (n) => {
          n.delete(from)
          n.set(to, node)
        })
        break
      }
      case 'link': {
        const to = String(a1)
        const node = ns.get(String(a0))!
        change(e.seq, path.dirname(to), (n) => n.set(to, node))
        break
      }
      case 'copyFile': {
        const src = ns.get(String(a0))
        if (src?.kind !== 'file') throw new Error(`replay: copy of ${a0}, not a file in the model`)
        const to = String(a1)
        const created = newFile(src.ino.mode) as {kind: 'file'; ino: Inode}
        created.ino.data = Buffer.from(src.ino.data)
        change(e.seq, path.dirname(to), (n) => n.set(to, created))
        break
      }
      case 'mkdir': {
        const p = String(a0)
        const missing: string[] = []
        for (let d = p; !ns.has(d) && d !== path.dirname(d); d = path.dirname(d)) missing.unshift(d)
        for (const d of missing) change(e.seq, path.dirname(d), (n) => n.set(d, {kind: 'dir', mode: 0o755}))
        break
      }
      case 'utimes': {
        const node = ns.get(String(a0))
        if (node?.kind === 'file') node.ino.mtimeMs = Number(a2)
        break
      }
      case 'unlink':
      case 'rmdir': {
        const p = String(a0)
        change(e.seq, path.dirname(p), (n) => n.delete(p))
        break
      }
      case 'fsyncDir':
        dirSyncs.push({seq: e.seq, dir: String(a0)})
        break
      default:
        break
    }
  }
  return {inodes, ns, initial, nsOps, dirSyncs}
}

/** mtime given to files created during a replay (ms since epoch): fixed, so equal states compare equal. */
const CREATED_MTIME = Date.UTC(2026, 7, 30, 12, 0, 0)

/** The namespace on stable storage: initial entries plus the changes that are durable, or whose directory is in `keep`. */
function durableNs(r: Replay, keep: Set<string> | 'all'): Ns {
  const ns: Ns = new Map(r.initial)
  for (const op of r.nsOps) {
    const durable = keep === 'all' || keep.has(op.dir) || r.dirSyncs.some((s) => s.dir === op.dir && s.seq > op.seq)
    if (durable) op.apply(ns)
  }
  return ns
}

/** A tree from a namespace, with each file's bytes chosen by `bytesOf`; entries under a missing folder dropped. */
function toTree(ns: Ns, root: string, bytesOf: (ino: Inode) => Buffer): Tree {
  const tree: Tree = new Map()
  const reachable = (p: string): boolean => {
    const parent = path.dirname(p)
    if (parent === root) return true
    const n = ns.get(parent)
    return n?.kind === 'dir' && reachable(parent)
  }
  for (const [p, n] of ns) {
    if (!p.startsWith(root + path.sep) || !reachable(p)) continue
    if (n.kind === 'file') tree.set(p, {kind: 'file', data: bytesOf(n.ino), mode: n.ino.mode, mtimeMs: n.ino.mtimeMs})
    else tree.set(p, n)
  }
  return tree
}


function randomBytes(n: number, rnd: () => number): Buffer {
  const b = Buffer.alloc(n)
  for (let i = 0; i < n; i++) b[i] = Math.floor(rnd() * 256)
  return b
}

/** The unsynced part of a file: bytes written since its last fsync (`from` = first such byte). */
function unsynced(ino: Inode): {from: number} | null {
  if (ino.data.equals(ino.synced)) return null
  const prefix = ino.data.length >= ino.synced.length && ino.data.subarray(0, ino.synced.length).equals(ino.synced)
  return {from: prefix ? ino.synced.length : 0}
}

/** Model (c) variants: what the device may hold of a file's unsynced bytes while its size and name survived. */
export const SCRAMBLES = {
  zero: (ino: Inode, from: number): Buffer => Buffer.concat([ino.data.subarray(0, from), Buffer.alloc(ino.data.length - from)]),
  /** Cut at the last 4096-byte block boundary (delayed allocation flushed whole blocks only). */
  short: (ino: Inode, from: number): Buffer => {
    const cut = Math.max(from, Math.floor((ino.data.length - 1) / 4096) * 4096)
    return Buffer.from(ino.data.subarray(0, cut === ino.data.length ? from : cut))
  },
  /** Cut halfway through the unsynced bytes (XFS: the on-disk size moved with the data written so far). */
  half: (ino: Inode, from: number): Buffer => Buffer.from(ino.data.subarray(0, from + Math.floor((ino.data.length - from) / 2))),
  garbage: (ino: Inode, from: number, rnd: () => number): Buffer => Buffer.concat([ino.data.subarray(0, from), randomBytes(ino.data.length - from, rnd)]),
  /** One 512-byte sector of the unsynced bytes is garbage (only its unsynced part: sector writes are atomic). */
  sector: (ino: Inode, from: number, rnd: () => number): Buffer => {
    const b = Buffer.from(ino.data)
    const first = Math.floor(from / 512)
    const last = Math.max(first, Math.floor((b.length - 1) / 512))
    const s = first + Math.floor(rnd() * (last - first + 1))
    const lo = Math.max(from, s * 512)
    const hi = Math.min(b.length, (s + 1) * 512)
    if (hi > lo) randomBytes(hi - lo, rnd).copy(b, lo)
    return b
  },
} as const

/** Model (c) variants built per crash point: the random ones with several seeds. */
const SCRAMBLE_VARIANTS: Array<[string, (ino: Inode, from: number, rnd: () => number) => Buffer]> = [
  ['zero', SCRAMBLES.zero],
  ['short', SCRAMBLES.short],
  ['half', SCRAMBLES.half],
  ['garbage-1', SCRAMBLES.garbage],
  ['garbage-2', SCRAMBLES.garbage],
  ['sector-1', SCRAMBLES.sector],
  ['sector-2', SCRAMBLES.sector],
  ['sector-3', SCRAMBLES.sector],
]

/** The persistence model a crash state was built under. */
export type CrashModel = 'ordered' | 'unsynced-lost' | 'unsynced-scrambled'

/** One crash state: after `prefix` mutating operations, under `model` (`variant` says which choice). */
export interface CrashState {
  prefix: number
  model: CrashModel
  variant: string
  tree: Tree
  /** The operation the crash came after (or `start`). */
  after: string
  /** `treeKey` of the tree. */
  key: string
  /** True when another model already produced the same tree (its checks need not run again). */
  repeat: boolean
}

/** The mutating operations of a trace that succeeded, in order. */
export function mutatingOps(trace: TraceEntry[]): TraceEntry[] {
  return trace.filter((t) => MUTATING_OPS.has(t.op) && !t.error)
}

function describe(e: TraceEntry | undefined, root: string): string {
  if (!e) return 'start'
  const rel = (v: unknown) => (typeof v === 'string' && v.startsWith(root) ? path.relative(root, v) : String(v))
  return `${e.op}(${e.args.map(rel).join(', ')})`
}

/**
 * Every crash state of every prefix of `trace` (its mutating operations: 0 … n of them done), under the three
 * models; a state equal to an earlier one of the same model is dropped, one equal to another model's is kept
 * and marked `repeat`. `root` bounds the trees (entries outside it are
 * not modelled). Deterministic for a given `seed`.
 */
export function crashStates(start: Tree, trace: TraceEntry[], root: string, seed = 1): {states: CrashState[]; generated: number} {
  const ops = mutatingOps(trace)
  const rnd = seededRandom(seed)
  const seen = new Set<string>()
  const seenIn = new Map<CrashModel, Set<string>>()
  const states: CrashState[] = []
  let generated = 0
  const add = (s: Omit<CrashState, 'key' | 'repeat'>) => {
    generated++
    const key = treeKey(s.tree)
    const mine = seenIn.get(s.model) ?? new Set<string>()
    seenIn.set(s.model, mine)
    if (mine.has(key)) return
    mine.add(key)
    states.push({...s, key, repeat: seen.has(key)})
    seen.add(key)
  }
  for (let k = 0; k <= ops.length; k++) {
    const r = replay(start, ops.slice(0, k))
    const after = describe(ops[k - 1], root)
    add({prefix: k, model: 'ordered', variant: 'all', tree: toTree(r.ns, root, (i) => i.data), after})
    const pendingDirs = [...new Set(r.nsOps.filter((op) => !r.dirSyncs.some((s) => s.dir === op.dir && s.seq > op.seq)).map((op) => op.dir))].sort()
    const choices: Array<[string, Set<string> | 'all']> = [
      ['entries-dropped', new Set()],
      ['entries-kept', 'all'],
      ...pendingDirs.map((d): [string, Set<string>] => [`entries-kept-in:${path.relative(root, d) || '.'}`, new Set([d])]),
    ]
    for (const [variant, keep] of choices) add({prefix: k, model: 'unsynced-lost', variant, tree: toTree(durableNs(r, keep), root, (i) => i.synced), after})
    if (r.inodes.some((i) => unsynced(i) !== null)) {
      for (const [name, f] of SCRAMBLE_VARIANTS) {
        add({
          prefix: k,
          model: 'unsynced-scrambled',
          variant: name,
          tree: toTree(r.ns, root, (i) => {
            const u = unsynced(i)
            return u ? f(i, u.from, rnd) : i.data
          }),
          after,
        })
      }
    }
  }
  return {states, generated}
}
