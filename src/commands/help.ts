import {BaseCommand} from '../cli/base.js'
import {Args, Flags} from '../cli/oclif.js'
import {createRequire} from 'node:module'

/**
 * `chatdoctor help [COMMAND]`: the same help as `--help`/`-h`, through oclif's help class (ours: `cli/help.ts`).
 * A command of our own rather than `@oclif/plugin-help`, so that its usage errors (`help scna`, a stray flag)
 * exit 16 with one line, like every other command's, instead of oclif's exit code and stack trace.
 */
export default class Help extends BaseCommand {
  static override summary = 'Show help for chatdoctor, or for one command.'

  static override examples = ['<%= config.bin %> help', '<%= config.bin %> help scan', '<%= config.bin %> scan --help', '<%= config.bin %> scan -h']

  static override enableJsonFlag = false

  // Help is plain text: no --color (the shared flags' type is kept for the base class).
  static override baseFlags = {} as typeof BaseCommand.baseFlags

  static override args = {
    command: Args.string({ignoreStdin: true, description: 'The command to show help for.', required: false}),
  }

  static override strict = false

  static override flags = {
    'nested-commands': Flags.boolean({char: 'n', description: 'List the commands of every topic too (chatdoctor has no topics: the same list).'}),
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Help)
    const {loadHelpClass} = createRequire(import.meta.url)('@oclif/core/help') as typeof import('@oclif/core/help')
    const HelpClass = await loadHelpClass(this.config)
    await new HelpClass(this.config, {all: flags['nested-commands']}).showHelp(argv as string[])
  }
}
