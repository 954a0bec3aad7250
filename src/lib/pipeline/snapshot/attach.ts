/**
 * Snapshots as candidate generations of a scan: the store is listed once (headers only), each chat discovery
 * found gets the refs of its stored snapshots (by its adapter's `snapshot.chatKey`), and each chat's
 * snapshots are decrypted right before its diagnosis (`scan.ts`), so memory holds one chat's at a time.
 * Read-only: the key is read, never made. A snapshot that cannot be used (another key, tampered, truncated,
 * no key at all) is one operational error line and never a candidate. Redacted snapshots are candidates only
 * when asked for (`redacted`): they are not the agent's whole context.
 */
import path from 'node:path'
import type {ChatUnit, FormatAdapter} from '../../model/adapter.js'
import type {OperationalError} from '../../model/report.js'
import type {SnapshotCandidate, SnapshotRef} from '../../model/snapshot.js'
import {readKey} from '../../snapshot/key.js'
import {byChat, decryptRef, listStore, type StoreContents} from '../../snapshot/store.js'

/** The key a scan decrypts snapshots with, or why it has none. */
export interface SnapshotKeyring {
  key: Buffer | null
  /** Why there is no key (one line), when there is none. */
  problem: string
}

/** The chat key of a unit: its adapter's, else its path. */
export function chatKeyOf(adapter: FormatAdapter, unit: ChatUnit): string {
  return adapter.snapshot?.chatKey?.(unit) ?? unit.path
}

/**
 * Gives each found chat the refs of its stored snapshots (newest first). Returns the keyring to decrypt them
 * with (null when no chat has any) and the store's own errors. `store`: the store as the caller listed it.
 */
export function attachSnapshots(chats: ReadonlyArray<{unit: ChatUnit; adapter: FormatAdapter}>, opts: {stateDir: string; home: string; env: NodeJS.ProcessEnv; redacted?: boolean; adapters?: readonly FormatAdapter[]; roots?: readonly string[]; store?: StoreContents}): {keyring: SnapshotKeyring | null; errors: OperationalError[]; gone: Array<{unit: ChatUnit; adapter: FormatAdapter}>} {
  const supported = chats.filter((c) => c.adapter.snapshot !== undefined)
  const gone: Array<{unit: ChatUnit; adapter: FormatAdapter}> = []
  const goneAdapters = new Set([...supported.map((c) => c.adapter), ...(opts.adapters ?? [])].filter((a) => a.snapshot?.goneChat !== undefined))
  if (supported.length === 0 && goneAdapters.size === 0) return {keyring: null, errors: [], gone}
  const store = opts.store ?? listStore(opts.stateDir)
  if (store.refs.length === 0) return {keyring: null, errors: store.errors, gone}
  const index = byChat(store.refs)
  const usableOf = (refs: readonly SnapshotRef[]) => refs.filter((r) => opts.redacted === true || !r.header.redacted)
  let any = false
  const matched = new Set<string>()
  for (const c of supported) {
    const key = chatKeyOf(c.adapter, c.unit)
    const refs = index.get(key)
    if (!refs) continue
    matched.add(key)
    const redacted = refs.filter((r) => r.header.redacted)
    if (redacted.length > 0) c.unit.redactedSnapshots = redacted.map((r) => r.header.time)
    const usable = usableOf(refs)
    if (usable.length === 0) continue
    c.unit.snapshots = usable
    any = true
  }
  // Snapshots of a chat the agent lost altogether: a chat of their own, when the adapter of their format says it is its.
  const scope = {roots: opts.roots ?? [], home: opts.home, env: opts.env}
  for (const adapter of goneAdapters) {
    const formats = new Set([adapter.name, ...(adapter.formats ?? [])])
    const found = supported.filter((c) => c.adapter === adapter).map((c) => c.unit)
    for (const [key, refs] of index) {
      if (matched.has(key)) continue
      const usable = usableOf(refs).filter((r) => formats.has(r.header.format))
      const unit = usable.length > 0 ? adapter.snapshot!.goneChat!(key, found, scope) : null
      if (!unit) continue
      matched.add(key)
      unit.snapshots = usable
      gone.push({unit, adapter})
      any = true
    }
  }
  if (!any) return {keyring: null, errors: store.errors, gone}
  const k = readKey(opts.home, opts.env)
  if ('key' in k) return {keyring: {key: k.key, problem: ''}, errors: store.errors, gone}
  return {gone, keyring: {key: null, problem: 'absent' in k ? `no snapshot key (${k.file} is missing, and CHATDOCTOR_SNAPSHOT_KEY is not set); restore the key it was made with` : k.error}, errors: store.errors}
}

/** Decrypts a unit's snapshot refs for its diagnosis. Never throws. */
export function decryptAll(refs: readonly SnapshotRef[], keyring: SnapshotKeyring): SnapshotCandidate[] {
  return refs.map((r) => decryptRef(r, keyring.key, keyring.problem))
}

/** The operational error of a snapshot that could not be used. */
export function snapshotError(c: SnapshotCandidate, chatPath: string, tildify: (p: string) => string): OperationalError {
  return {path: tildify(c.file), message: `${c.name} of ${tildify(chatPath)} (${path.basename(c.file)}) not used: ${c.error}`}
}
