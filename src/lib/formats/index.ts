/** Every format adapter chatdoctor knows, in detection order. */
import type {FormatAdapter} from './adapter.js'
import {claudeCode} from './claude-code/index.js'
import {cline} from './cline/index.js'
import {codebuff} from './codebuff/index.js'
import {codex} from './codex/index.js'
import {opencode} from './opencode/index.js'

export const ADAPTERS: readonly FormatAdapter[] = [codebuff, opencode, cline, claudeCode, codex]

/** The adapter with this format id, or undefined. */
export function adapterByName(name: string): FormatAdapter | undefined {
  return ADAPTERS.find((a) => a.name === name)
}
