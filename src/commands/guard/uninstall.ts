import {BaseCommand, quietVerboseFlags} from '../../cli/base.js'
import {Args} from '../../cli/oclif.js'
import {EXIT_OPERATIONAL} from '../../lib/model/exit-codes.js'
import {nodeFileSystem} from '../../lib/fsio/fs.js'
import {guardAgents, guardUninstall} from '../../lib/pipeline/snapshot/guard.js'
import {renderGuard} from '../../lib/render/snapshot.js'

export default class GuardUninstall extends BaseCommand {
  static override summary = 'Remove exactly what guard install added to an agent\'s hook configuration.'

  static override description = `When the settings file is as guard install left it, its previous bytes are put back exactly (or the file guard made is removed); when it changed since, exactly chatdoctor's entries are taken out and every other byte is kept. The version with the hook is kept in $XDG_STATE_HOME/chatdoctor/guard/AGENT/. Stored snapshots stay (chatdoctor snapshot --prune manages them).

Exit status: 0 removed (or nothing there), 8 the settings file could not be read, parsed or written, 16 usage error.`

  static override examples = guardAgents().map((a) => `<%= config.bin %> guard uninstall ${a.name}`)

  static override flags = {
    ...quietVerboseFlags({
      quiet: 'Print nothing but errors.',
      verbose: 'Also say where the agent documents the hook mechanism chatdoctor removed itself from.',
    }),
  }

  static override args = {
    agent: Args.string({ignoreStdin: true, description: 'The agent.', required: true, options: guardAgents().map((a) => a.name)}),
  }

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(GuardUninstall)
    const r = await guardUninstall(args.agent, {home: this.home(), env: process.env, fs: nodeFileSystem()})
    process.exitCode = r.kind === 'error' ? EXIT_OPERATIONAL : 0
    if (!this.jsonEnabled()) {
      const {stdout, stderr} = renderGuard(r, {chalk: await this.chalkFor(flags.color), quiet: flags.quiet, verbose: flags.verbose, source: guardAgents().find((a) => a.name === args.agent)?.snapshot?.hook?.source})
      this.note(stderr)
      this.out(stdout)
    }
    return {command: 'guard uninstall', exitCode: process.exitCode, ...r}
  }
}
