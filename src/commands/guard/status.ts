import {BaseCommand, UsageError, quietVerboseFlags} from '../../cli/base.js'
import {Args} from '../../cli/oclif.js'
import {guardAgents, guardStatus} from '../../lib/pipeline/snapshot/guard.js'
import {renderGuardStatus} from '../../lib/render/snapshot.js'

/** One paragraph per agent: the hook chatdoctor installs and where it is documented (for --help; oclif wraps it). */
export function hookLines(): string {
  return guardAgents()
    .map((a) => `${a.displayName}: ${a.snapshot!.hook ? `${a.snapshot!.hook.configFile('~', {}).replace(/^~\/?/, '~/')} (documented in ${a.snapshot!.hook.source})` : `no hook: ${a.snapshot!.noHook}`}.`)
    .join('\n\n')
}

export default class GuardStatus extends BaseCommand {
  static override summary = "Say whether chatdoctor's snapshot hook is installed, per agent, and how many snapshots are stored."

  static override description = `Reads each agent's settings file and the snapshot store; writes nothing.

${hookLines()}

Exit status: 0 (whatever is installed), 16 usage error.`

  static override examples = ['<%= config.bin %> guard status', `<%= config.bin %> guard status ${guardAgents()[0]?.name ?? 'AGENT'}`]

  static override flags = {
    ...quietVerboseFlags({
      quiet: 'List only the agents whose hook is installed.',
      verbose: 'Also say, under each agent, where it documents its hook mechanism.',
    }),
  }

  static override args = {
    agent: Args.string({ignoreStdin: true, description: 'Only this agent.', required: false, options: guardAgents().map((a) => a.name)}),
  }

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(GuardStatus)
    const s = guardStatus(args.agent, {home: this.home(), env: process.env})
    if ('error' in s) throw new UsageError(s.error)
    process.exitCode = 0
    if (!this.jsonEnabled()) this.out(renderGuardStatus(s, {chalk: await this.chalkFor(flags.color), quiet: flags.quiet, verbose: flags.verbose, sources: new Map(guardAgents().flatMap((a) => (a.snapshot?.hook ? [[a.name, a.snapshot.hook.source] as const] : [])))}))
    return {command: 'guard status', exitCode: 0, agents: s}
  }
}
