/**
 * Codebuff's repair plan: the plan of the whole-file generation formats (`formats/generations/plan.ts`) over
 * Codebuff's generations: a file, or an embedded copy `chat-messages.json#<id>` (`generationBytes`), a stored
 * snapshot `snapshot:<time>`, the
 * salvages of its torn run-state files, and the pid in a temp's name.
 */
import type {ChatPlan, PlanOptions, ScannedChat} from '../../model/adapter.js'
import {planGenerations, type GenerationFormat} from '../generations/plan.js'
import {generationBytes, salvageChat} from './forensics.js'
import {tempWriterPid} from './layout.js'
import {snapshotBytes} from './snapshot.js'

/** A generation's bytes: a stored snapshot's (`snapshot:<time>`), else a file's or an embedded copy's. */
const CODEBUFF: GenerationFormat = {generationBytes: (snapshot, name) => snapshotBytes(snapshot, name) ?? generationBytes(snapshot, name), salvage: salvageChat, tempWriterPid}

/** Plans one Codebuff chat. Pure. */
export function planCodebuffChat(chat: ScannedChat, opts: PlanOptions): ChatPlan {
  return planGenerations(chat, opts, CODEBUFF)
}
