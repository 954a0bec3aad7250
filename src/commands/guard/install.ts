import {BaseCommand, quietVerboseFlags} from '../../cli/base.js'
import {Args} from '../../cli/oclif.js'
import {EXIT_OPERATIONAL} from '../../lib/model/exit-codes.js'
import {nodeFileSystem} from '../../lib/fsio/fs.js'
import {guardAgents, guardInstall} from '../../lib/pipeline/snapshot/guard.js'
import {renderGuard} from '../../lib/render/snapshot.js'
import {hookLines} from './status.js'

export default class GuardInstall extends BaseCommand {
  static override summary = "Add chatdoctor's snapshot hook to an agent's own hook configuration."

  static override description = `Adds \`chatdoctor snapshot --hook AGENT\` to the agent's documented hook mechanism, so every settled turn leaves a snapshot nobody has to remember to take. The agent's settings file is edited in place (only chatdoctor's entries inserted: every other byte, comment and indent kept); its previous version is kept in $XDG_STATE_HOME/chatdoctor/guard/AGENT/. The file is read the way the agent's own loader reads it (comments and trailing commas only where the agent accepts them; of a key written twice, the last): a file the agent would not load, one with a key twice on the way to its hooks, a link or not a regular file is refused with one line, and nothing is written. A hook another program already owns (an agent that runs one program only) is never replaced. An agent without a hook gets a systemd user unit and a cron line printed, never installed. The hook takes effect when the agent starts next.

${hookLines()}

Exit status: 0 installed (or already there, or a timer printed), 8 the settings file could not be read, parsed or written, 16 usage error.`

  static override examples = guardAgents().map((a) => `<%= config.bin %> guard install ${a.name}`)

  static override flags = {
    ...quietVerboseFlags({
      quiet: 'Print nothing but errors (for an agent without a hook: the timer text alone, without the explanation).',
      verbose: 'Also say where the agent documents the hook mechanism chatdoctor installs into.',
    }),
  }

  static override args = {
    agent: Args.string({ignoreStdin: true, description: 'The agent.', required: true, options: guardAgents().map((a) => a.name)}),
  }

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(GuardInstall)
    const r = await guardInstall(args.agent, {home: this.home(), env: process.env, fs: nodeFileSystem()})
    process.exitCode = r.kind === 'error' ? EXIT_OPERATIONAL : 0
    if (!this.jsonEnabled()) {
      const {stdout, stderr} = renderGuard(r, {chalk: await this.chalkFor(flags.color), quiet: flags.quiet, verbose: flags.verbose, source: guardAgents().find((a) => a.name === args.agent)?.snapshot?.hook?.source})
      this.note(stderr)
      this.out(stdout)
    }
    return {command: 'guard install', exitCode: process.exitCode, ...r}
  }
}
