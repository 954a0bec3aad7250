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
export function unknownCommandMessage(word: string, commands: readonly string[], guess: string | null = closestCommand(word, commands)): {message: string; next: string} {
  const message = `unknown command "${word}"${guess ? `; did you mean "${guess}"?` : '.'} Commands: ${[...commands].sort().join(', ')}.`
  return {message, next: `chatdoctor ${guess ? `${guess} ` : ''}--help`}
}

/**
 * What was mistyped of the words oclif could not match (`id`, joined by `:`), against the commands' ids (a
 * topic's commands as `topic:command`), said with spaces as they are typed: after a topic's name its command
 * (`guard instal` → "guard install"), else the first word, against the commands and the topics
 * (`gaurd` → "guard"). Only those words: what follows them (a path, maybe under the home) is never echoed.
 */
export function unknownCommandGuess(id: string, ids: readonly string[]): {word: string; guess: string | null; commands: string[]} {
  const words = id.split(':')
  const commands = ids.map((i) => i.replaceAll(':', ' '))
  const topics = [...new Set(ids.filter((i) => i.includes(':')).map((i) => i.split(':')[0]))]
  if (words.length > 1 && topics.includes(words[0])) {
    const inTopic = ids.filter((i) => i.startsWith(`${words[0]}:`)).map((i) => i.slice(words[0].length + 1))
    const sub = closestCommand(words[1], inTopic)
    return {word: `${words[0]} ${words[1]}`, guess: sub === null ? null : `${words[0]} ${sub}`, commands}
  }
  return {word: words[0], guess: closestCommand(words[0], [...ids.filter((i) => !i.includes(':')), ...topics]), commands}
}

/**
 * The usage error's human text, wrapped to `width` columns (`message` already escaped for the terminal); the
 * command to try is never broken: `Try: <command>` stays whole, on a line of its own when it does not fit.
 */
export function unknownCommandText(message: string, next: string, width: number): string {
  return fitParts([`chatdoctor: ${message} `, {whole: `Try: ${next}`}], width).join('\n') + '\n'
}
