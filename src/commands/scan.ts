import path from 'node:path'
import {BaseCommand, prose, quietVerboseFlags} from '../cli/base.js'
import {Args, Flags} from '../cli/oclif.js'
import {ScanProgressBar, progressWanted} from '../cli/progress.js'
import type {ChatReport, Report} from '../lib/model/report.js'
import {tildify} from '../lib/fsio/paths.js'
import {buildReport} from '../lib/pipeline/report.js'
import {scanPaths} from '../lib/pipeline/scan.js'
import {firstOf, fromAdapters, listed, wrap} from '../cli/help.js'

export default class Scan extends BaseCommand {
  static override summary = 'Diagnose chat dirs: classify every generation, rank them, say what is damaged. Read-only.'

  static override description = prose`${wrap(`With no PATH, searches ${listed(fromAdapters((h) => h.roots))}.`)}
A PATH may be a chat dir or any folder above chat dirs (searched without following symbolic links, 12
folders deep: a deeper folder is listed as skipped), or a file of a chat; a file no chat holds is a usage
error. Writes nothing, anywhere. The table fits the terminal (COLUMNS overrides its width); a scan with
damage ends with the commands to run next, and one that finds nothing says where it looked.

--quick reads only the first 4 KiB and the last 64 KiB of each file (empty, all-NUL, BOM, NUL tail, unclosed
end): its time does not grow with file sizes, but damage in the middle of a file is NOT detected and turns
are not counted. On a terminal, a scan that runs over a second shows a progress bar on stderr.

Exit status (a bitmask over all chats): 0 all healthy, 2 a chat is repairable, 4 agent context lost (or partly lost: degraded) in a chat, 8 a path could not be read, 16 usage error.`

  static override examples = [
    '<%= config.bin %> scan',
    `<%= config.bin %> scan ${firstOf((h) => h.examples?.chats, './chats')}`,
    '<%= config.bin %> scan --json ./exported-chats > report.json',
    `<%= config.bin %> scan --quick ${firstOf((h) => h.examples?.root, './chats')}`,
  ]

  static override flags = {
    ...quietVerboseFlags({
      quiet: 'Print only the chats that need attention: no healthy chats, no summary line.',
      verbose: 'List every finding under its chat, and each folder that was skipped with the reason.',
    }),
    quick: Flags.boolean({description: 'Read only the ends of each file (head 4 KiB, tail 64 KiB): fast, but damage in the middle of a file is not detected.'}),
    'redacted-snapshots': Flags.boolean({description: "Rank chatdoctor's redacted snapshots too (chatdoctor snapshot --redact: not the agent's whole context, so left out by default)."}),
  }

  static override args = {
    path: Args.string({description: 'Chat dirs or folders to search (default: the agents\' config roots).', required: false}),
  }

  static override strict = false

  async run(): Promise<Report> {
    const {argv, flags} = await this.parse(Scan)
    const paths = argv as string[]
    const json = this.jsonEnabled()
    const bar = await ScanProgressBar.create(progressWanted({stderrIsTTY: Boolean(process.stderr.isTTY), json, env: process.env}))
    const opts = {home: this.home(), env: process.env, keepData: false, onProgress: bar.update, redactedSnapshots: flags['redacted-snapshots']}
    let result: Pick<Awaited<ReturnType<typeof scanPaths>>, 'skipped' | 'errors' | 'roots' | 'notChatFiles'> & {chats: Report['chats']}
    let quick: Report['quick']
    // `inspect` names a chat of a store (many chats in one folder tree) by the store's folder and its id.
    const inspectArgs = new Map<ChatReport, string[]>()
    try {
      if (flags.quick) {
        const {quickScanPaths, quickInfo} = await import('../lib/pipeline/quick.js')
        result = await quickScanPaths(paths, opts)
        quick = quickInfo()
      } else {
        const r = await scanPaths(paths, opts)
        for (const c of r.chats) if (c.snapshot.unit.members !== undefined) inspectArgs.set(c.report, [tildify(c.snapshot.unit.dir, opts.home), '--session', c.report.id])
        result = {...r, chats: r.chats.map((c) => c.report)}
      }
    } finally {
      bar.stop()
    }
    if (result.notChatFiles.length > 0) throw await this.notChatFileError(result.notChatFiles[0])
    const report = buildReport({
      command: 'scan',
      version: this.config.version,
      chats: result.chats,
      skipped: result.skipped,
      errors: result.errors,
    })
    if (quick) Object.assign(report, {quick})
    report.roots = result.roots
    process.exitCode = report.exitCode
    if (!json) {
      const {renderHuman} = await import('../lib/render/table.js')
      // The PATHs as typed, an absolute one under the home as `~/…` (output gets pasted into bug reports).
      const next = {paths: paths.map((p) => (path.isAbsolute(p) ? tildify(p, opts.home) : p)), inspectArgs: (c: ChatReport) => inspectArgs.get(c) ?? [c.path]}
      const {stdout, stderr} = renderHuman(report, {chalk: await this.chalkFor(flags.color), verbose: flags.verbose, quiet: flags.quiet, width: await this.width(), next})
      this.note(stderr)
      if (quick) this.note(`quick mode: only the first ${quick.headBytes / 1024} KiB and last ${quick.tailBytes / 1024} KiB of each file were read; not detected: ${quick.notDetected}.`)
      this.out(stdout)
    }
    return report
  }
}
