/**
 * `chatdoctor snapshot`: for each chat in scope that its adapter can snapshot, the adapter's `capture` says
 * what to store (or why not: not healthy, not settled, over a cap); the payload is redacted when asked,
 * skipped when it equals the chat's newest stored snapshot (sha256), sealed (`snapshot/seal.ts`) and written
 * durably through the write seam; then the chat's oldest snapshots beyond the per-chat cap are removed. A
 * snapshot that would take the store over its total cap is skipped, never truncated. The key is made on
 * first use. Also `--list`, `--prune` and `--forget` of the store. Names no agent.
 */
import {statSync} from 'node:fs'
import path from 'node:path'
import type {FileSystem} from '../../fsio/fs.js'
import {stateDir as defaultStateDir} from '../../fsio/repair-log.js'
import {tildify} from '../../fsio/paths.js'
import {adapterByName} from '../../formats/index.js'
import type {FormatAdapter, ScannedChat} from '../../model/adapter.js'
import type {OperationalError} from '../../model/report.js'
import {DEFAULT_SNAPSHOT_CAPS, type SnapshotCaps, type SnapshotHeader, type SnapshotRef} from '../../model/snapshot.js'
import {ensureKey, readKey} from '../../snapshot/key.js'
import {sealSnapshot, sha256Hex} from '../../snapshot/seal.js'
import {byChat, chatFolder, decryptRef, listStore, removeSnapshot, writeSnapshot} from '../../snapshot/store.js'
import {scanPaths} from '../scan.js'
import {chatKeyOf} from './attach.js'

export interface TakeOptions {
  home: string
  env: NodeJS.ProcessEnv
  fs: FileSystem
  /** chatdoctor's state folder (default `stateDir(home, env)`). */
  stateDir?: string
  caps?: Partial<SnapshotCaps>
  /** Remove private tool payloads and per-turn system prompts before storing. */
  redact?: boolean
  /** Only the chat with this chat key (hook mode). */
  key?: string
  now?: () => Date
}

/** One chat's outcome. Paths are written with the home as `~`. */
export interface TakenSnapshot {
  chat: string
  format: string
  file: string
  header: SnapshotHeader
  /** Older snapshots of the chat removed by the per-chat cap. */
  removed: number
}
export interface SkippedChat {
  chat: string
  format: string
  reason: string
  /** True when the chat was skipped only because its last turn is not settled yet (a hook may try again). */
  unsettled?: boolean
  /** True when it was skipped because it equals its newest snapshot. */
  unchanged?: boolean
}

export interface TakeResult {
  taken: TakenSnapshot[]
  skipped: SkippedChat[]
  errors: OperationalError[]
  /** Chats the scan found under the PATHs (before the key filter). */
  chats: number
}

export function capsOf(caps: Partial<SnapshotCaps> | undefined): SnapshotCaps {
  return {...DEFAULT_SNAPSHOT_CAPS, ...(caps ?? {})}
}

/** The adapter that snapshots a chat: the one of its report's format, else the one that found it. */
function supportOf(chat: ScannedChat): FormatAdapter | undefined {
  const a = adapterByName(chat.report.format) ?? chat.adapter
  return a.snapshot ? a : chat.adapter.snapshot ? chat.adapter : undefined
}

/** A write error in plain words, with what to do next. */
function writeProblem(e: unknown, what: string): string {
  const code = (e as NodeJS.ErrnoException)?.code ?? ''
  if (code === 'EROFS') return `the snapshot store is on a read-only file system (EROFS) ${what}; set XDG_STATE_HOME to a writable folder`
  if (code === 'ENOSPC') return `no space left on the device (ENOSPC) ${what}; nothing half-written was left; free space or run chatdoctor snapshot --prune`
  if (code === 'EACCES' || code === 'EPERM') return `permission denied (${code}) ${what}; run chatdoctor as the owner of the state folder`
  return `${(e as Error)?.message ?? String(e)} ${what}`
}

/** Takes the snapshots of the chats under `paths` (the default roots when empty). Never throws. */
export async function takeSnapshots(paths: string[], opts: TakeOptions): Promise<TakeResult> {
  const caps = capsOf(opts.caps)
  const state = opts.stateDir ?? defaultStateDir(opts.home, opts.env)
  const now = opts.now ?? (() => new Date())
  const out: TakeResult = {taken: [], skipped: [], errors: [], chats: 0}
  const tild = (p: string) => tildify(p, opts.home)
  const scan = await scanPaths(paths, {home: opts.home, env: opts.env, keepData: true, snapshots: false, stateDir: state})
  out.errors.push(...scan.errors)
  out.chats = scan.chats.length
  const captured: Array<{chat: ScannedChat; adapter: FormatAdapter; key: string; payload: Buffer; header: Omit<SnapshotHeader, 'keyId' | 'bytes' | 'sha256'>}> = []
  for (const chat of scan.chats) {
    const adapter = supportOf(chat)
    const key = adapter ? chatKeyOf(adapter, chat.snapshot.unit) : chat.snapshot.unit.path
    if (opts.key !== undefined && key !== opts.key) continue
    const skip = (reason: string, unsettled = false) => out.skipped.push({chat: chat.report.path, format: chat.report.format, reason, ...(unsettled ? {unsettled} : {})})
    if (!adapter?.snapshot) {
      skip(`snapshots of ${chat.adapter.displayName} chats are not supported`)
      continue
    }
    const c = await adapter.snapshot.capture(chat, caps)
    if (!c.ok) {
      skip(c.skip, c.unsettled === true)
      continue
    }
    let payload = c.payload
    if (opts.redact) {
      const r = adapter.snapshot.redact?.(payload, {format: chat.report.format, kind: c.kind, target: c.target}) ?? {refused: `redaction of ${adapter.displayName} snapshots is not supported`}
      if ('refused' in r) {
        skip(`--redact: ${r.refused}`)
        continue
      }
      payload = r
    }
    captured.push({chat, adapter, key, payload, header: {v: 1, format: chat.report.format, chat: key, id: chat.report.id, time: '', turns: c.turns, messages: c.messages, kind: c.kind, target: c.target, redacted: opts.redact === true}})
  }
  if (opts.key !== undefined && out.chats > 0 && captured.length === 0 && out.skipped.length === 0) out.errors.push({path: tild(opts.key), message: 'the hook named a chat the scan did not find there'})
  if (captured.length === 0) return out

  let keyBytes: Buffer
  try {
    const k = await ensureKey(opts.fs, opts.home, opts.env)
    if (!('key' in k)) {
      out.errors.push({path: 'absent' in k ? tild(k.file) : 'snapshot key', message: 'absent' in k ? 'the snapshot key could not be made' : k.error})
      return out
    }
    keyBytes = k.key
  } catch (e) {
    out.errors.push({path: 'snapshot key', message: writeProblem(e, 'making the snapshot key')})
    return out
  }

  const store = listStore(state)
  out.errors.push(...store.errors.map((e) => ({...e, path: tild(e.path)})))
  const index = byChat(store.refs)
  let total = store.bytes
  for (const c of captured) {
    const existing = index.get(c.key) ?? []
    const sha = sha256Hex(c.payload)
    const newest = existing.find((r) => r.header.redacted === c.header.redacted)
    if (newest && newest.header.sha256 === sha) {
      out.skipped.push({chat: c.chat.report.path, format: c.chat.report.format, reason: `unchanged since its newest snapshot (${newest.header.time})`, unchanged: true})
      continue
    }
    if (c.payload.length > caps.maxBytes) {
      out.skipped.push({chat: c.chat.report.path, format: c.chat.report.format, reason: `over the byte cap after redaction (${c.payload.length} > ${caps.maxBytes} bytes)`})
      continue
    }
    const sealed = sealSnapshot({...c.header, time: now().toISOString()}, c.payload, keyBytes)
    // The per-chat cap removes the oldest after this one is stored; the store cap counts what remains.
    const drop = existing.slice(Math.max(0, caps.keepPerChat - 1))
    const freed = drop.reduce((n, r) => n + r.fileBytes, 0)
    if (total - freed + sealed.bytes.length > caps.maxStoreBytes) {
      out.skipped.push({chat: c.chat.report.path, format: c.chat.report.format, reason: `the store would exceed its cap (${total - freed + sealed.bytes.length} > ${caps.maxStoreBytes} bytes); chatdoctor snapshot --prune, or raise --max-store-bytes`})
      continue
    }
    let file: string
    try {
      file = await writeSnapshot(opts.fs, state, sealed.header, sealed.bytes)
    } catch (e) {
      out.errors.push({path: tild(c.chat.snapshot.unit.path), message: writeProblem(e, 'storing its snapshot')})
      continue
    }
    total += sealed.bytes.length
    let removed = 0
    for (const r of drop) {
      try {
        await removeSnapshot(opts.fs, r)
        total -= r.fileBytes
        removed++
      } catch (e) {
        out.errors.push({path: tild(r.file), message: writeProblem(e, 'removing an old snapshot beyond the per-chat cap')})
      }
    }
    index.set(c.key, [{file, header: sealed.header, fileBytes: sealed.bytes.length}, ...existing.filter((r) => !drop.includes(r))])
    out.taken.push({chat: c.chat.report.path, format: c.chat.report.format, file: tild(file), header: sealed.header, removed})
  }
  return out
}

/** The store's snapshots, optionally only those of chats under `paths` (their chat keys start with one). */
export function listSnapshots(paths: string[], opts: {home: string; env: NodeJS.ProcessEnv; stateDir?: string; resolve?: (p: string) => string}): {refs: SnapshotRef[]; errors: OperationalError[]; bytes: number} {
  const state = opts.stateDir ?? defaultStateDir(opts.home, opts.env)
  const store = listStore(state)
  const roots = paths.map((p) => (opts.resolve ? opts.resolve(p) : p))
  const inScope = (chat: string) => roots.length === 0 || roots.some((r) => chat === r || chat.startsWith(r.endsWith('/') ? r : r + '/') || chat.startsWith(r + '#'))
  return {refs: store.refs.filter((r) => inScope(r.header.chat)), errors: store.errors.map((e) => ({...e, path: tildify(e.path, opts.home)})), bytes: store.bytes}
}

/** What `--prune` removed. */
export interface PruneResult {
  removed: Array<{file: string; chat: string; time: string; why: string}>
  errors: OperationalError[]
  bytesBefore: number
  bytesAfter: number
}

/**
 * Applies the caps to the whole store: per chat the newest `keepPerChat` are kept; then, while the store is
 * over `maxStoreBytes`, the oldest snapshot of all goes (never a chat's newest). Snapshots are never removed
 * because their chat is gone: they may be its only copy. Files that are not snapshots are left alone.
 */
export async function pruneSnapshots(opts: {home: string; env: NodeJS.ProcessEnv; fs: FileSystem; stateDir?: string; caps?: Partial<SnapshotCaps>}): Promise<PruneResult> {
  const caps = capsOf(opts.caps)
  const state = opts.stateDir ?? defaultStateDir(opts.home, opts.env)
  const store = listStore(state)
  const out: PruneResult = {removed: [], errors: store.errors.map((e) => ({...e, path: tildify(e.path, opts.home)})), bytesBefore: store.bytes, bytesAfter: store.bytes}
  const remove = async (r: SnapshotRef, why: string) => {
    try {
      await removeSnapshot(opts.fs, r)
      out.bytesAfter -= r.fileBytes
      out.removed.push({file: tildify(r.file, opts.home), chat: tildify(r.header.chat, opts.home), time: r.header.time, why})
      return true
    } catch (e) {
      out.errors.push({path: tildify(r.file, opts.home), message: writeProblem(e, 'removing it')})
      return false
    }
  }
  const kept: SnapshotRef[] = []
  for (const refs of byChat(store.refs).values()) {
    kept.push(...refs.slice(0, caps.keepPerChat))
    for (const r of refs.slice(caps.keepPerChat)) await remove(r, `beyond the ${caps.keepPerChat} kept per chat`)
  }
  const newest = new Set([...byChat(kept).values()].map((l) => l[0]))
  const oldestFirst = kept.filter((r) => !newest.has(r)).sort((a, b) => (a.header.time < b.header.time ? -1 : a.header.time > b.header.time ? 1 : 0))
  for (const r of oldestFirst) {
    if (out.bytesAfter <= caps.maxStoreBytes) break
    await remove(r, `the store is over its cap of ${caps.maxStoreBytes} bytes`)
  }
  return out
}

/** What `--forget` removed (or, in a dry run, would remove), and what it left. Paths are written with the home as `~`. */
export interface ForgetResult {
  dryRun: boolean
  removed: Array<{file: string; chat: string; time: string}>
  /** Chats refused: their chat is still on disk (without `force`), or none of their snapshots could be authenticated. */
  refused: Array<{chat: string; reason: string}>
  errors: OperationalError[]
}

/** True when a scanned chat still has a copy of its own on disk (a generation that is not a snapshot and not missing). */
export function onDisk(chat: Pick<ScannedChat, 'report'>): boolean {
  return chat.report.generations.some((g) => g.role !== 'snapshot' && g.class !== 'missing')
}

/** The file or folder a chat key names on disk: the key itself, or for a session of a store (`<data dir>#<id>`) its data dir. */
const isDir = (p: string) => statSync(p, {throwIfNoEntry: false})?.isDirectory() === true

const pathPartOf = (key: string) => (key.includes('#') ? key.slice(0, key.lastIndexOf('#')) : key)

/**
 * Lets go of chats the user removed on purpose: every stored snapshot of each chat named (its chat key, as
 * `snapshot --list` shows it) is removed through the write seam. A snapshot is matched only by its
 * authenticated header: each candidate is decrypted and its tag checked first, so a file that does not verify
 * (tampered, another key, no key) is never removed by a name it may only claim. A chat still on disk (as a scan
 * of it finds it) is refused unless `force`. `dryRun` removes nothing and says what would go. Never throws.
 */
export async function forgetSnapshots(chats: string[], opts: {home: string; env: NodeJS.ProcessEnv; fs: FileSystem; stateDir?: string; force?: boolean; dryRun?: boolean; resolve?: (p: string) => string}): Promise<ForgetResult> {
  const state = opts.stateDir ?? defaultStateDir(opts.home, opts.env)
  const tild = (p: string) => tildify(p, opts.home)
  const out: ForgetResult = {dryRun: opts.dryRun === true, removed: [], refused: [], errors: []}
  const store = listStore(state)
  out.errors.push(...store.errors.map((e) => ({...e, path: tild(e.path)})))
  const index = byChat(store.refs)
  const keyOf = (c: string) => {
    const hash = c.lastIndexOf('#')
    const [p, id] = hash > 0 && !c.slice(hash).includes('/') ? [c.slice(0, hash), c.slice(hash)] : [c, '']
    return (opts.resolve ? opts.resolve(p) : p) + id
  }
  let key: ReturnType<typeof readKey> | undefined
  const keyOfChat = (c: ScannedChat) => {
    const a = supportOf(c)
    return a ? chatKeyOf(a, c.snapshot.unit) : c.snapshot.unit.path
  }
  for (const chat of chats) {
    let k = keyOf(chat)
    // The chat as a scan of its folder finds it (a gone one too: its snapshots make it): by its key or its path.
    const where = pathPartOf(k)
    const scope = isDir(where) ? where : path.dirname(where)
    const scan = await scanPaths([scope], {home: opts.home, env: opts.env, stateDir: state})
    const found = scan.chats.find((c) => keyOfChat(c) === k || c.report.path === tild(k))
    if (found) k = keyOfChat(found)
    const refs = index.get(k) ?? []
    if (refs.length === 0) {
      out.errors.push({path: tild(k), message: 'no snapshot of this chat is stored (chatdoctor snapshot --list names the chats that have some)'})
      continue
    }
    if (!opts.force && found && onDisk(found)) {
      out.refused.push({chat: tild(k), reason: `the chat is still on disk (${found.report.status}); its snapshots may be the copy that repairs it. Add --force to remove them anyway`})
      continue
    }
    key ??= readKey(opts.home, opts.env)
    if (!('key' in key)) {
      out.refused.push({chat: tild(k), reason: `its snapshots cannot be authenticated: ${'absent' in key ? `no snapshot key (${tild(key.file)} is missing, and CHATDOCTOR_SNAPSHOT_KEY is not set)` : key.error}; nothing removed`})
      continue
    }
    let any = false
    for (const r of refs) {
      const c = decryptRef(r, key.key, '')
      if (c.data === undefined) {
        out.errors.push({path: tild(r.file), message: `not removed: it names ${tild(k)} but ${c.error ?? 'does not authenticate'}; remove it by hand if it is yours`})
        continue
      }
      any = true
      if (!opts.dryRun) {
        try {
          await removeSnapshot(opts.fs, r)
        } catch (e) {
          out.errors.push({path: tild(r.file), message: writeProblem(e, 'removing it')})
          continue
        }
      }
      out.removed.push({file: tild(r.file), chat: tild(k), time: r.header.time})
    }
    if (!any) out.refused.push({chat: tild(k), reason: 'none of its snapshots authenticates under the snapshot key; nothing removed'})
    // The chat's folder, once empty, goes too (best effort: a folder with anything else in it stays).
    if (any && !opts.dryRun) await opts.fs.rmdir(chatFolder(state, k)).catch(() => undefined)
  }
  return out
}
