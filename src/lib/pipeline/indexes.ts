/**
 * The agents' indexes of their chats, beside the chats themselves: after discovery, each adapter with an
 * `indexes` hook names the folders that may hold its index (`storesOf`), each is read once (`read`: one chat of
 * role-`index` files), and the index chats are diagnosed like any other. After diagnosis, each adapter adds what
 * its indexes say to its session chats (`annotate`): a session the index hides or cannot resume gets the
 * finding, and becomes `repairable` when the index chat's repair brings it back. Read-only.
 */
import path from 'node:path'
import {adapterByName} from '../formats/registry.js'
import type {FormatAdapter, ScannedChat} from '../model/adapter.js'
import type {OperationalError} from '../model/report.js'
import type {FoundChat} from './discover.js'

/** The index chats of the adapters for the chats found, each store read once (in adapter order). Never throws. */
export async function findIndexChats(found: readonly FoundChat[], adapters: readonly FormatAdapter[], roots: readonly string[], home: string, env: NodeJS.ProcessEnv): Promise<{chats: FoundChat[]; errors: OperationalError[]}> {
  const out: {chats: FoundChat[]; errors: OperationalError[]} = {chats: [], errors: []}
  const seen = new Set(found.map((c) => c.unit.path))
  for (const adapter of adapters) {
    const hook = adapter.indexes
    if (!hook) continue
    const mine = found.filter((c) => c.adapter === adapter).map((c) => c.unit)
    const stores = [...new Set(hook.storesOf(mine, roots, home, env).map((d) => path.resolve(d)))]
    for (const dir of stores) {
      let listing
      try {
        listing = await hook.read(dir, home, env)
      } catch (e) {
        out.errors.push({path: dir, message: `the index could not be read: ${(e as Error)?.message ?? String(e)}`})
        continue
      }
      if (!listing) continue
      out.errors.push(...listing.errors)
      for (const unit of listing.chats) {
        if (seen.has(unit.path)) continue
        seen.add(unit.path)
        out.chats.push({unit: {...unit, index: true}, adapter})
      }
    }
  }
  return out
}

/** Adds what the index chats say to the session chats of their adapters (findings, `repairable`, `repairedBy`). */
export function annotateSessions(chats: ScannedChat[]): void {
  const indexes = chats.filter((c) => c.snapshot.unit.index === true)
  if (indexes.length === 0) return
  for (const chat of chats) {
    if (chat.snapshot.unit.index) continue
    const adapter = adapterByName(chat.report.format) ?? chat.adapter
    const hook = adapter.indexes ?? chat.adapter.indexes
    if (!hook?.annotate) continue
    const owner = indexes.filter((i) => i.adapter === adapter || i.adapter === chat.adapter)
    if (owner.length === 0) continue
    const a = hook.annotate(chat, owner)
    if (!a) continue
    chat.report.findings.push(...a.findings)
    if (a.repairedBy !== undefined && owner.some((i) => i.snapshot.unit.path === a.repairedBy && i.report.status === 'repairable')) {
      chat.repairedBy = a.repairedBy
      if (chat.report.status === 'healthy') chat.report.status = 'repairable'
    }
  }
}

/** An index chat with nothing to say: healthy, no finding (left out of a scan's report). */
export function isQuietIndex(chat: Pick<ScannedChat, 'report' | 'snapshot'>): boolean {
  return chat.snapshot.unit.index === true && chat.report.status === 'healthy' && chat.report.findings.length === 0
}
