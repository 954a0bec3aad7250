import {BaseCommand} from '../cli/base.js'
import {Args, Flags} from '../cli/oclif.js'
import {ScanProgressBar, progressWanted} from '../cli/progress.js'
import type {Report} from '../lib/model/report.js'
import {buildReport} from '../lib/pipeline/report.js'
import {scanPaths} from '../lib/pipeline/scan.js'
import {firstOf, fromAdapters, listed, wrap} from '../cli/help.js'

export default class Scan extends BaseCommand {
  static override summary = 'Diagnose chat dirs: classify every generation, rank them, say what is damaged. Read-only.'

  static override description = `${wrap(`With no PATH, searches ${listed(fromAdapters((h) => h.roots))}.`)}
A PATH may be a chat dir or any folder above chat dirs (searched without following symbolic links).
Writes nothing, anywhere.

--quick reads files up to 68 KiB whole and of larger ones only the first 4 KiB and the last 64 KiB (empty,
all-NUL, BOM, NUL tail, unclosed end): its time does not grow with file sizes, but damage in the middle of a
larger file is NOT detected and turns are not counted. Such a file whose ends look whole is reported as
"ends look whole" (JSON: class intact, verified false), never as verified intact, and a chat whose status rests
on it sets exit bit 8: a quick scan exits 0 only on what it read whole, unless --trust-ends accepts ends that
look whole. On a terminal, a scan that runs over a second shows a progress bar on stderr.

Exit status (a bitmask over all chats): 0 all healthy, 2 a chat is repairable, 4 agent context lost (or partly lost: degraded) in a chat, 8 a path could not be read (with --quick, also: a chat judged by the ends of a file only, unless --trust-ends), 16 usage error.`

  static override examples = [
    '<%= config.bin %> scan',
    `<%= config.bin %> scan ${firstOf((h) => h.examples?.chats, './chats')}`,
    '<%= config.bin %> scan --json ./exported-chats > report.json',
    `<%= config.bin %> scan --quick ${firstOf((h) => h.examples?.root, './chats')}`,
  ]

  static override flags = {
    quick: Flags.boolean({description: 'Read files over 68 KiB only at their ends (head 4 KiB, tail 64 KiB): fast, but damage in their middle is not detected (exit bit 8 for a chat judged so, see --trust-ends).'}),
    'trust-ends': Flags.boolean({description: 'With --quick: accept a file whose ends look whole as intact for the exit status (exit 0 possible without reading large files whole).', dependsOn: ['quick']}),
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
    const opts = {home: this.home(), env: process.env, keepData: false, onProgress: bar.update}
    let result: Pick<Awaited<ReturnType<typeof scanPaths>>, 'skipped' | 'errors'> & {chats: Report['chats']}
    let quick: Report['quick']
    let quickExit: number | undefined
    if (flags.quick) {
      const {quickExitCode, quickScanPaths, quickInfo} = await import('../lib/pipeline/quick.js')
      result = await quickScanPaths(paths, opts)
      quick = quickInfo(result.chats, flags['trust-ends'])
      quickExit = quickExitCode(result.chats, result.errors, flags['trust-ends'])
    } else {
      const r = await scanPaths(paths, opts)
      result = {...r, chats: r.chats.map((c) => c.report)}
    }
    bar.stop()
    const report = buildReport({
      command: 'scan',
      version: this.config.version,
      chats: result.chats,
      skipped: result.skipped,
      errors: result.errors,
      exitCode: quickExit,
    })
    if (quick) Object.assign(report, {quick})
    process.exitCode = report.exitCode
    if (!json) {
      const {renderHuman, renderQuickNote} = await import('../lib/render/table.js')
      const chalk = await this.chalkFor(flags.color)
      await this.printHuman(report, (r) => {
        const {stdout, stderr} = renderHuman(r, {chalk, verbose: flags.verbose, quiet: flags.quiet})
        return {stdout, stderr: [stderr, ...(r.quick ? renderQuickNote(r.quick) : [])].filter(Boolean).join('\n')}
      })
    }
    return report
  }
}
