/**
 * Worker-thread entry of a parallel scan (`scan.ts`, `diagnoseAll`): receives `{index, unit, adapter}` (the
 * adapter by name), diagnoses that chat with the bytes dropped, and posts `{index, outcome}` back (the
 * outcome without its adapter object, which cannot cross threads).
 */
import {parentPort, workerData} from 'node:worker_threads'
import type {ChatUnit} from './formats/adapter.js'
import {adapterByName} from './formats/index.js'
import {diagnoseUnit} from './scan.js'

const {home} = workerData as {home: string}

parentPort!.on('message', async (m: {index: number; unit: ChatUnit; adapter: string}) => {
  const adapter = adapterByName(m.adapter)
  if (!adapter) {
    parentPort!.postMessage({index: m.index, outcome: {error: {path: m.unit.path, message: `unknown format ${m.adapter}`}}})
    return
  }
  const outcome = await diagnoseUnit(m.unit, adapter, home, false)
  if ('adapter' in outcome) delete (outcome as {adapter?: unknown}).adapter
  parentPort!.postMessage({index: m.index, outcome})
})
