/**
 * A final answer a cut took: a log torn inside its last turn keeps the turn's prompt and the records before
 * the cut, and a repair drops the torn record; when what remains leaves that turn unanswered (by the agent's
 * own rules, `SessionDialect.lastTurn`), the turn's final answer is gone with the cut (or was never written),
 * so the turn is not a whole turn. A log that merely ends in an open turn, without a cut, lost nothing.
 */
import {recordValues, type JsonlClassification} from '../../classify/jsonl.js'
import type {LostAnswer} from '../../model/report.js'
import type {SessionDialect} from './dialect.js'
import type {JsonlRepairPlan} from './repair.js'

/** The first words of a prompt: whitespace collapsed, control characters dropped, at most `max` characters. */
export function firstWords(text: string, max = 60): string {
  // eslint-disable-next-line no-control-regex
  const t = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim()
  return t.length <= max ? t : `${t.slice(0, max - 1).trimEnd()}…`
}

/**
 * The answer the plan's cut takes from the last of `turns` turns, or null: the plan drops a torn last record and
 * the records it keeps (`after`) end that turn unanswered.
 */
export function answerCutBy(dialect: SessionDialect, file: string, plan: JsonlRepairPlan, after: JsonlClassification, turns: number): LostAnswer | null {
  if (!dialect.lastTurn || turns < 1) return null
  const cut = plan.changes.find((c) => c.kind === 'drop-torn-tail')
  if (!cut) return null
  const t = dialect.lastTurn(recordValues(after))
  if (t === null || t.unanswered === null) return null
  return {turn: turns, prompt: firstWords(t.prompt), why: t.unanswered, file, line: cut.line, offset: cut.offset}
}

/** The finding's words for a lost answer. */
export function lostAnswerText(l: LostAnswer): string {
  return `turn ${l.turn} ("${l.prompt}") lost its final answer: ${l.file} was cut at line ${l.line}, byte ${l.offset}, inside that turn, and in what survives ${l.why}; the prompt and the records before the cut are kept, so N counts ${l.turn - 1} whole turn${l.turn - 1 === 1 ? '' : 's'} and the agent resumes with turn ${l.turn} unanswered`
}
