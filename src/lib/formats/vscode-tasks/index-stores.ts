/**
 * Where the task lists of the task folders found are (the `indexes` hook's `storesOf`): Cline's
 * `state/taskHistory.json` beside its `tasks/`, Kilo Code's row in VS Code's `globalStorage/state.vscdb`. What
 * every scan asks of this adapter; reading and judging the lists (cline-index.ts, kilo-index.ts) loads when a
 * list is read. Pure.
 */
import path from 'node:path'
import type {ChatUnit} from '../../model/adapter.js'
import {CLINE_INDEX} from './layout.js'
import type {TaskFacts} from './store.js'

/** The `state/` folders of the Cline extension storage folders whose tasks were found. Pure. */
export function clineHistoryStoresOf(chats: readonly ChatUnit[]): string[] {
  const out = new Set<string>()
  for (const c of chats) {
    const f = c.facts as TaskFacts | undefined
    if (f?.kind !== 'vscode-task' || f.variant !== 'cline' || f.index === null) continue
    out.add(path.join(path.dirname(path.dirname(c.dir)), path.dirname(CLINE_INDEX)))
  }
  return [...out]
}

/** The `globalStorage` folders of the Kilo Code storage folders whose tasks were found. Pure. */
export function kiloListStoresOf(chats: readonly ChatUnit[]): string[] {
  const out = new Set<string>()
  for (const c of chats) {
    const f = c.facts as TaskFacts | undefined
    if (f?.kind !== 'vscode-task' || f.variant !== 'kilo' || f.index === null) continue
    const storage = path.dirname(path.dirname(c.dir))
    if (path.basename(path.dirname(storage)) === 'globalStorage') out.add(path.dirname(storage))
  }
  return [...out]
}
