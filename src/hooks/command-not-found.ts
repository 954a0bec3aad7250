/**
 * oclif `command_not_found` hook: an unknown command is a usage error (exit 16), with a message that
 * names the closest command when one is close ("did you mean", `cli/suggest.ts`), every command, and what to
 * do next (wrapped to the width of the terminal, else 80 columns), instead of oclif's default. With `--json` it is still one JSON object on stdout, with `exitCode` 16
 * and `error`, like every other usage error.
 */
import type {Hook} from '@oclif/core'
import {unknownCommandGuess, unknownCommandMessage, unknownCommandText} from '../cli/suggest.js'
import {outputWidth, proseWidth} from '../lib/render/width.js'
import {forTerminal} from '../lib/render/terminal.js'
import {usageErrorReport} from '../lib/pipeline/report.js'

const hook: Hook<'command_not_found'> = async function (opts) {
  const ids = opts.config.commands.filter((c) => !c.hidden).map((c) => c.id)
  // With topicSeparator ' ', oclif joins the words after the command into the id (`scna:/home/u/x`): only the
  // mistyped words are named, so a PATH (maybe under the home) is never echoed.
  const {word, guess, commands} = unknownCommandGuess(opts.id, ids)
  const {message, next} = unknownCommandMessage(word, commands, guess)
  if (opts.id === '--json' || opts.argv?.includes('--json')) process.stdout.write(JSON.stringify(usageErrorReport(word, opts.config.version, message), null, 2) + '\n')
  else process.stderr.write(unknownCommandText(forTerminal(message), next, proseWidth(outputWidth(process.stderr, process.env))))
  this.exit(16)
}

export default hook
