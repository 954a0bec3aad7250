/**
 * "Did you mean": the command a mistyped word most likely meant, for the unknown-command hook and the help
 * class (`chatdoctor scna`, `chatdoctor help scna`). It only names the command; nothing runs it (a typo must
 * not start a repair).
 */
import {distance} from 'fastest-levenshtein'
import {fitParts} from '../lib/render/width.js'

/**
 * The nearest command by edit distance when it is at most 2 edits away (a third of the word's length for long
 * words), else the only command the word (2 letters or more) begins; null when none is close. Case-blind.
 */
export function closestCommand(word: string, commands: readonly string[]): string | null {
  const w = word.toLowerCase()
  let best: {id: string; d: number} | null = null
  for (const id of commands) {
    const d = distance(w, id)
    if (best === null || d < best.d || (d === best.d && id < best.id)) best = {id, d}
  }
  if (best && best.d <= Math.max(2, Math.floor(w.length / 3))) return best.id
  const prefixed = w.length >= 2 ? commands.filter((id) => id.startsWith(w)) : []
  return prefixed.length === 1 ? prefixed[0] : null
}

/** The one-line usage error for an unknown command word, naming the guess (if any) and every command. */
export function unknownCommandMessage(word: string, commands: readonly string[]): {message: string; next: string} {
  const guess = closestCommand(word, commands)
  const message = `unknown command "${word}"${guess ? `; did you mean "${guess}"?` : '.'} Commands: ${[...commands].sort().join(', ')}.`
  return {message, next: `chatdoctor ${guess ? `${guess} ` : ''}--help`}
}

/**
 * The usage error's human text, wrapped to `width` columns (`message` already escaped for the terminal); the
 * command to try is never broken: `Try: <command>` stays whole, on a line of its own when it does not fit.
 */
export function unknownCommandText(message: string, next: string, width: number): string {
  return fitParts([`chatdoctor: ${message} `, {whole: `Try: ${next}`}], width).join('\n') + '\n'
}
