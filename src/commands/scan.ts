import {Args} from '@oclif/core'
import {BaseCommand} from '../cli/base.js'
import type {Report} from '../lib/model.js'
import {renderHuman} from '../lib/render/table.js'
import {buildReport} from '../lib/report.js'
import {scanPaths} from '../lib/scan.js'

export default class Scan extends BaseCommand {
  static override summary = 'Diagnose chat dirs: classify every generation, rank them, say what is damaged. Read-only.'

  static override description = `With no PATH, searches Codebuff's config roots (~/.config/manicode, manicode-dev, manicode-test)
and OpenCode's data dir ($XDG_DATA_HOME/opencode, default ~/.local/share/opencode; its database is read on a
private copy, never opened in place).
A PATH may be a chat dir or any folder above chat dirs (searched without following symbolic links).
Writes nothing, anywhere.

Exit status (a bitmask over all chats): 0 all healthy, 2 a chat is repairable, 4 agent context lost (or partly lost: degraded) in a chat, 8 a path could not be read, 16 usage error.`

  static override examples = [
    '<%= config.bin %> scan',
    '<%= config.bin %> scan ~/.config/manicode/projects/my-app/chats',
    '<%= config.bin %> scan --json ./exported-chats > report.json',
  ]

  static override args = {
    path: Args.string({description: 'Chat dirs or folders to search (default: the agents\' config roots).', required: false}),
  }

  static override strict = false

  async run(): Promise<Report> {
    const {argv, flags} = await this.parse(Scan)
    const paths = argv as string[]
    const result = await scanPaths(paths, {home: this.home(), env: process.env})
    const report = buildReport({
      command: 'scan',
      version: this.config.version,
      chats: result.chats.map((c) => c.report),
      skipped: result.skipped,
      errors: result.errors,
    })
    process.exitCode = report.exitCode
    if (!this.jsonEnabled()) {
      const {stdout, stderr} = renderHuman(report, {chalk: this.chalkFor(flags.color), verbose: flags.verbose, quiet: flags.quiet})
      this.note(stderr)
      this.out(stdout)
    }
    return report
  }
}
