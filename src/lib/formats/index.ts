/**
 * Every format adapter chatdoctor knows, in detection order. Kilo comes before OpenCode, its upstream: a
 * `kilo export` file and a pre-rename `opencode-<channel>.db` in Kilo's data dir are Kilo's.
 */
import type {FormatAdapter} from '../model/adapter.js'
import {CORE_FINDING_KINDS, joinFindingKinds, type FindingKind} from '../model/findings.js'
import {claudeCode} from './claude-code/index.js'
import {cline} from './cline/index.js'
import {codebuff} from './codebuff/index.js'
import {codex} from './codex/index.js'
import {geminiCli} from './gemini-cli/index.js'
import {kilo} from './kilo/index.js'
import {opencode} from './opencode/index.js'
import {VSCODE_TASK_ADAPTERS} from './vscode-tasks/index.js'

export const ADAPTERS: readonly FormatAdapter[] = [codebuff, kilo, opencode, geminiCli, cline, claudeCode, codex, ...VSCODE_TASK_ADAPTERS]

/** The agents chatdoctor recognises but does not diagnose yet (`unsupported/`). */
export {UNSUPPORTED_AGENTS} from './unsupported/index.js'

/** The adapter with this format id (its name, or one of the formats its reports carry), or undefined. */
export function adapterByName(name: string): FormatAdapter | undefined {
  return ADAPTERS.find((a) => a.name === name) ?? ADAPTERS.find((a) => a.formats?.includes(name))
}

/** The closed list of finding kinds: the core's, then each adapter's, in registry order, each id once. */
export function findingKinds(adapters: readonly FormatAdapter[] = ADAPTERS): FindingKind[] {
  return joinFindingKinds([CORE_FINDING_KINDS, ...adapters.map((a) => a.findingKinds ?? {})])
}
