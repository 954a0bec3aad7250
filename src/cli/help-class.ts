/**
 * chatdoctor's help class (package.json `oclif.helpClass`): oclif's own help, except that help for a command
 * that does not exist (`chatdoctor help scna`, `chatdoctor scna --help`) is a usage error (exit 16) naming the
 * closest command, like the unknown-command hook, instead of oclif's "Command scna not found." (exit 8).
 * Loaded on every help request: it loads nothing of ours until a subject is unknown.
 */
import {createRequire} from 'node:module'

const require = createRequire(import.meta.url)
const {Help} = require('@oclif/core/help') as typeof import('@oclif/core/help')

export default class ChatdoctorHelp extends Help {
  override async showHelp(argv: string[]): Promise<void> {
    try {
      await super.showHelp(argv)
    } catch (e) {
      const m = /^Command (.+) not found\.$/.exec((e as Error).message ?? '')
      if (!m) throw e
      const [{unknownCommandMessage}, {terminalText}] = await Promise.all([import('./suggest.js'), import('../lib/render/terminal.js')])
      const commands = this.config.commands.filter((c) => !c.hidden).map((c) => c.id)
      const {message, next} = unknownCommandMessage(m[1].split(':')[0], commands)
      // The unknown word comes from the command line: its control characters are escaped like any name.
      process.stderr.write(terminalText(`chatdoctor: ${message} Try: ${next}\n`))
      process.exitCode = 16
    }
  }
}
