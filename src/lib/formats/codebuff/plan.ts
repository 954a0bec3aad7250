/**
 * Codebuff's repair plan: the plan of the whole-file generation formats (`formats/generations/plan.ts`) over
 * Codebuff's generations: a file, or an embedded copy `chat-messages.json#<id>` (`generationBytes`), the
 * salvages of its torn run-state files, and the pid in a temp's name.
 */
import type {ChatPlan, PlanOptions, ScannedChat} from '../../model/adapter.js'
import {planGenerations, type GenerationFormat} from '../generations/plan.js'
import {generationBytes, salvageChat} from './forensics.js'
import {tempWriterPid} from './layout.js'

const CODEBUFF: GenerationFormat = {generationBytes, salvage: salvageChat, tempWriterPid}

/** Plans one Codebuff chat. Pure. */
export function planCodebuffChat(chat: ScannedChat, opts: PlanOptions): ChatPlan {
  return planGenerations(chat, opts, CODEBUFF)
}
