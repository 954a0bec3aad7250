/**
 * Salvage of torn Codebuff run-state generations: which array is kept element by element, which members the
 * SDK needs, and which generations lend what a tear cut off. The byte work is the generic salvager
 * (`src/lib/salvage/`).
 *
 * Format facts (codebuff-format.md §2.1–§2.4, checked on the real files in shared/realdata/codebuff): the SDK
 * writes `sessionState` first, and inside it `mainAgentState` (with `messageHistory` in the middle of its
 * keys) *before* `fileContext`; `output` (and `traceSessionId` since dae2e485) follow `sessionState`. So a tear
 * inside `messageHistory` usually loses the rest of `mainAgentState` (`stepsRemaining`, `systemPrompt`, …),
 * all of `fileContext` and `output`.
 */
import type {Generation} from '../../model/report.js'
import {salvageJson, salvageReport, type Donor, type SalvagedGeneration} from '../../salvage/index.js'
import {measureRunState} from './measure.js'
import {runStateShape} from './schema.js'
import type {TranscriptTurn} from './turns.js'

/** The array a run-state salvage keeps element by element. */
export const RUN_STATE_SPINE = ['sessionState', 'mainAgentState', 'messageHistory'] as const

/**
 * Members the SDK always writes (§2.1, §2.3, §2.4: "req" and not version-dependent); a salvage missing one
 * of them with no donor is reported but is not a candidate (the SDK would fail on it).
 */
export const RUN_STATE_REQUIRED_KEYS: Readonly<Record<string, readonly string[]>> = {
  '': ['sessionState', 'output'],
  sessionState: ['mainAgentState', 'fileContext'],
  'sessionState.mainAgentState': ['agentId', 'agentType', 'agentContext', 'ancestorRunIds', 'subagents', 'childRunIds', 'messageHistory', 'stepsRemaining', 'creditsUsed', 'directCreditsUsed'],
}

/**
 * Salvages one torn run-state generation. `donors` are the chat's intact context generations, newest first.
 * Returns null when nothing is salvageable (no complete message, bytes before the tear not JSON, …).
 */
export function salvageRunState(
  file: string,
  data: Buffer,
  damageOffset: number | undefined,
  donors: readonly Donor[],
  turns: TranscriptTurn[] | null,
): SalvagedGeneration | null {
  const out = salvageJson(data, {spine: RUN_STATE_SPINE, required: RUN_STATE_REQUIRED_KEYS, donors, end: damageOffset})
  if (!out.ok || out.salvage.description.elementsKept === 0) return null
  const {parts, value, description} = out.salvage
  const usable = runStateShape(value).class === 'intact'
  const measure = usable ? measureRunState(value, turns) : null
  return {
    file,
    parts,
    measure,
    summary: salvageReport(out.salvage, {messages: description.elementsKept, turns: measure ? measure.turns : null, candidate: usable && description.keysMissing.length === 0}),
  }
}

/**
 * Donors for salvage: intact context generations (never placeholders), newest first by mtime, then by
 * file name descending (the same tie-break as the ranking).
 */
export function donorOrder(generations: readonly Generation[]): Generation[] {
  return generations
    .filter((g) => g.class === 'intact' && (g.role === 'primary' || g.role === 'backup' || g.role === 'temp' || g.role === 'embedded'))
    .sort((a, b) => (b.mtimeMs ?? 0) - (a.mtimeMs ?? 0) || Buffer.compare(Buffer.from(b.file), Buffer.from(a.file)))
}
