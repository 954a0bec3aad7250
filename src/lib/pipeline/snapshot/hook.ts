/**
 * Hook mode (`chatdoctor snapshot --hook <agent>`): the agent calls chatdoctor after a turn (or before a
 * compaction) with its own input; the adapter's `parseInput` says which chat that names, the chat must lie
 * inside the agent's own roots, and only that chat is snapshotted. Nothing here may block or fail the agent:
 * the caller exits 0 whatever happens, and what went wrong (or why the chat was skipped) is appended as one
 * JSON line to `<state dir>/snapshot-hook.log`. When the chat is not settled yet (the agent may call its hook
 * before its last write is on disk), a background process tries again for the adapter's `settleMs`, so the
 * agent is never made to wait. Names no agent.
 */
import {realpathSync} from 'node:fs'
import path from 'node:path'
import {durableAppend} from '../../fsio/durable-write.js'
import type {FileSystem} from '../../fsio/fs.js'
import {stateDir as defaultStateDir} from '../../fsio/repair-log.js'
import {adapterByName} from '../../formats/index.js'
import type {HookInput} from '../../model/adapter.js'
import type {SnapshotCaps} from '../../model/snapshot.js'
import {takeSnapshots, type TakeResult} from './take.js'

export const HOOK_LOG = 'snapshot-hook.log'
/** How often the background retry looks again at an unsettled chat, in ms. */
export const SETTLE_POLL_MS = 200

export interface HookOptions {
  home: string
  env: NodeJS.ProcessEnv
  fs: FileSystem
  stateDir?: string
  caps?: Partial<SnapshotCaps>
  /** True in the background retry: poll until settled or `settleMs` has passed. */
  settle?: boolean
  /** Starts the background retry with the same input (the command passes one that spawns itself). */
  spawnSettle?: (input: HookInput) => void
  sleep?: (ms: number) => Promise<void>
  now?: () => Date
}

/** What one hook call did. */
export interface HookOutcome {
  status: 'taken' | 'unchanged' | 'skipped' | 'unsettled' | 'retrying' | 'ignored' | 'error'
  message: string
  result?: TakeResult
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

function real(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}

/** Appends one line to the hook log; a log that cannot be written is given up on silently (never fail the agent). */
async function log(fs: FileSystem, state: string, entry: Record<string, unknown>): Promise<void> {
  try {
    await durableAppend(fs, path.join(state, HOOK_LOG), JSON.stringify(entry))
  } catch {
    // Nowhere left to say it: the agent must not be failed for it.
  }
}

/** Runs one hook call. Never throws. */
export async function runHook(agent: string, input: HookInput, opts: HookOptions): Promise<HookOutcome> {
  const state = opts.stateDir ?? defaultStateDir(opts.home, opts.env)
  const now = opts.now ?? (() => new Date())
  const done = async (o: HookOutcome, extra: Record<string, unknown> = {}): Promise<HookOutcome> => {
    if (o.status !== 'taken' && o.status !== 'retrying' && o.status !== 'unchanged') await log(opts.fs, state, {time: now().toISOString(), agent, status: o.status, message: o.message, ...extra})
    return o
  }
  try {
    const adapter = adapterByName(agent)
    const hook = adapter?.snapshot?.hook
    if (!adapter || !hook) return await done({status: 'error', message: `no hook for ${JSON.stringify(agent)}`})
    const t = hook.parseInput(input, opts.home, opts.env)
    if ('error' in t) return await done({status: 'error', message: t.error})
    if ('ignore' in t) return await done({status: 'ignored', message: t.ignore})
    const roots = adapter.defaultRoots(opts.home, opts.env).map(real)
    const outside = t.paths.map(real).find((p) => !roots.some((r) => p === r || p.startsWith(r + path.sep)))
    if (outside !== undefined) return await done({status: 'error', message: `${outside} is outside ${adapter.displayName}'s roots (${roots.join(', ')}); not snapshotted`})
    const take = () => takeSnapshots(t.paths, {home: opts.home, env: opts.env, fs: opts.fs, stateDir: state, caps: opts.caps, key: t.key, now: opts.now})
    let r = await take()
    const unsettled = () => r.taken.length === 0 && r.skipped.length > 0 && r.skipped.every((s) => s.unsettled === true)
    const settleMs = hook.settleMs ?? 0
    if (unsettled() && settleMs > 0) {
      if (!opts.settle && opts.spawnSettle) {
        opts.spawnSettle(input)
        return await done({status: 'retrying', message: `not settled yet (${r.skipped[0].reason}); trying again in the background for ${settleMs} ms`, result: r})
      }
      if (opts.settle) {
        const sleep = opts.sleep ?? defaultSleep
        for (let waited = 0; unsettled() && waited < settleMs; waited += SETTLE_POLL_MS) {
          await sleep(SETTLE_POLL_MS)
          r = await take()
        }
      }
    }
    const extra = {chat: r.skipped[0]?.chat ?? r.taken[0]?.chat}
    if (r.errors.length > 0) return await done({status: 'error', message: r.errors.map((e) => `${e.path}: ${e.message}`).join('; '), result: r}, extra)
    if (r.taken.length > 0) return await done({status: 'taken', message: `${r.taken.length} snapshot${r.taken.length === 1 ? '' : 's'} taken`, result: r})
    if (r.skipped.length > 0 && r.skipped.every((s) => s.unchanged === true)) return await done({status: 'unchanged', message: r.skipped[0].reason, result: r})
    if (r.skipped.length > 0) return await done({status: unsettled() ? 'unsettled' : 'skipped', message: r.skipped.map((s) => s.reason).join('; '), result: r}, extra)
    return await done({status: 'skipped', message: 'no chat found at the path the hook named', result: r})
  } catch (e) {
    return done({status: 'error', message: `unexpected: ${(e as Error)?.message ?? String(e)}`})
  }
}
