/**
 * oclif `command_not_found` hook: an unknown command is a usage error (exit 16), with a one-line message and
 * what to do next, instead of oclif's default.
 */
import type {Hook} from '@oclif/core'

const hook: Hook<'command_not_found'> = async function (opts) {
  const known = opts.config.commands.map((c) => c.id).sort().join(', ')
  process.stderr.write(`chatdoctor: unknown command "${opts.id}". Commands: ${known}. Try: chatdoctor --help\n`)
  this.exit(16)
}

export default hook
