/**
 * Worker-thread entry of a parallel scan (`scan.ts`, `diagnoseAll`): receives `{batch, items}`, items being
 * `{index, unit, adapter, full?}` (the adapter by name; `full`: diagnosed in full even in a verdict-only scan), diagnoses each chat with its bytes dropped, and posts back
 * `{batch, results: [{index, outcome}]}` (each outcome without its adapter object, which cannot cross threads,
 * and without `snapshot.unit`, which the main thread already has).
 */
import {parentPort, workerData} from 'node:worker_threads'
import type {ChatUnit} from '../model/adapter.js'
import {adapterByName} from '../formats/index.js'
import {diagnoseUnit} from './scan.js'

const {home, streamThreshold, logStreamThreshold, keyring: cloned, verdictOnly} = workerData as {home: string; streamThreshold?: number; logStreamThreshold?: number; keyring?: {key: Uint8Array | null; problem: string}; verdictOnly?: boolean}
// A Buffer crosses threads as a plain Uint8Array.
const keyring = cloned ? {key: cloned.key ? Buffer.from(cloned.key) : null, problem: cloned.problem} : undefined

type Batch = {batch: number; items: Array<{index: number; unit: ChatUnit; adapter: string; full?: boolean}>}

async function diagnoseBatch({batch, items}: Batch): Promise<void> {
  const results = []
  for (const m of items) {
    const adapter = adapterByName(m.adapter)
    if (!adapter) {
      results.push({index: m.index, outcome: {error: {path: m.unit.path, message: `unknown format ${m.adapter}`}}})
      continue
    }
    const outcome = await diagnoseUnit(m.unit, adapter, home, false, {streamThreshold, logStreamThreshold, keyring, verdictOnly: verdictOnly === true && m.full !== true})
    if ('adapter' in outcome) delete (outcome as {adapter?: unknown}).adapter
    // The unit came from the main thread, which puts it back: not cloned twice.
    if ('snapshot' in outcome) delete (outcome.snapshot as {unit?: unknown}).unit
    results.push({index: m.index, outcome})
  }
  parentPort!.postMessage({batch, results})
}

// Batches run strictly one after another (two are in flight): chats share this thread's read arena.
let queue = Promise.resolve()
parentPort!.on('message', (msg: Batch) => {
  queue = queue.then(() => diagnoseBatch(msg))
})
