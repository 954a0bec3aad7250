import path from 'node:path'
import {BaseCommand, prose, quietVerboseFlags} from '../cli/base.js'
import {Args, Flags} from '../cli/oclif.js'
import {ScanProgressBar, progressWanted} from '../cli/progress.js'
import type {ChatReport, Report} from '../lib/model/report.js'
import {tildify} from '../lib/fsio/paths.js'
import {buildReport, ChatTally, scanExitCode} from '../lib/pipeline/report.js'
import {scanEach, type scanPaths} from '../lib/pipeline/scan.js'
import {HeldArray, writeJson} from '../lib/render/json.js'
import {stdoutWriter} from '../cli/stdout.js'
import {firstOf, fromAdapters, listed, wrap} from '../cli/help.js'

export default class Scan extends BaseCommand {
  static override summary = 'Diagnose chat dirs: classify every generation, rank them, say what is damaged. Read-only.'

  static override description = prose`${wrap(`With no PATH, searches ${listed(fromAdapters((h) => h.roots))}.`)}
A PATH may be a chat dir or any folder above chat dirs (searched without following symbolic links, 12
folders deep: a deeper folder is listed as skipped), or a file of a chat; a file no chat holds is a usage
error. Writes nothing, anywhere. The table fits the terminal (COLUMNS overrides its width); a scan with
damage ends with the commands to run next, and one that finds nothing says where it looked.

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
    ...quietVerboseFlags({
      quiet: 'Print only the chats that need attention: no healthy chats, no summary line.',
      verbose: 'List every finding under its chat, and each folder that was skipped with the reason.',
    }),
    quick: Flags.boolean({description: 'Read files over 68 KiB only at their ends (head 4 KiB, tail 64 KiB): fast, but damage in their middle is not detected (exit bit 8 for a chat judged so, see --trust-ends).'}),
    'trust-ends': Flags.boolean({description: 'With --quick: accept a file whose ends look whole as intact for the exit status (exit 0 possible without reading large files whole).', dependsOn: ['quick']}),
    'redacted-snapshots': Flags.boolean({description: "Rank chatdoctor's redacted snapshots too (chatdoctor snapshot --redact: not the agent's whole context, so left out by default)."}),
  }

  static override args = {
    path: Args.string({ignoreStdin: true, description: 'Chat dirs or folders to search (default: the agents\' config roots).', required: false}),
  }

  static override strict = false

  async run(): Promise<Report | undefined> {
    const {argv, flags} = await this.parse(Scan)
    const paths = argv as string[]
    const json = this.jsonEnabled()
    const bar = await ScanProgressBar.create(progressWanted({stderrIsTTY: Boolean(process.stderr.isTTY), json, env: process.env}))
    // A plain scan asks only for verdicts: candidates that cannot change one are left out (the report says so).
    const opts = {home: this.home(), env: process.env, keepData: false, verdictOnly: !flags.verbose, onProgress: bar.update, redactedSnapshots: flags['redacted-snapshots']}
    let result: Pick<Awaited<ReturnType<typeof scanPaths>>, 'skipped' | 'errors' | 'roots' | 'notChatFiles'>
    let quick: Report['quick']
    let quickExit: number | undefined
    // The chats, as each comes (no chat's whole report is held): under --json its text, held deflated, and its
    // status counted; for the table what the table reads of it (`tableChat`).
    const tally = new ChatTally()
    const held = new HeldArray()
    const chats: ChatReport[] = []
    // The table's renderer loads only for the table (`scan --json` never loads it).
    const tableChat = json ? undefined : (await import('../lib/render/table.js')).tableChat
    const take = (report: ChatReport): ChatReport | undefined => {
      if (!tableChat) {
        tally.add(report)
        held.push(report)
        return undefined
      }
      const row = tableChat(report, flags.verbose)
      chats.push(row)
      return row
    }
    // `inspect` names a chat of a store (many chats in one folder tree) by the store's folder and its id.
    const inspectArgs = new Map<ChatReport, string[]>()
    try {
      if (flags.quick) {
        const {quickExit: exit, quickScanEach, quickInfo} = await import('../lib/pipeline/quick.js')
        let unverified = 0
        result = await quickScanEach(paths, opts, (c) => {
          if (c.verified === false) unverified++
          take(c)
        })
        quick = quickInfo(unverified, flags['trust-ends'])
        quickExit = exit(json ? tally.exitCode(result.errors) : scanExitCode(chats, result.errors), unverified, flags['trust-ends'])
      } else {
        result = await scanEach(paths, {...opts, indexes: true}, (c) => {
          const row = take(c.report)
          if (row && c.snapshot.unit.members !== undefined && !c.snapshot.unit.index) inspectArgs.set(row, [tildify(c.snapshot.unit.dir, opts.home), '--session', c.report.id])
        })
      }
    } finally {
      bar.stop()
    }
    if (result.notChatFiles.length > 0) throw await this.notChatFileError(result.notChatFiles[0])
    if (json) {
      const head = tally.head({command: 'scan', version: this.config.version, skipped: result.skipped, errors: result.errors, exitCode: quickExit})
      process.exitCode = head.exitCode
      // The same document `buildReport` gives (its key order, `quick` after the chats), the chats written from
      // their held text. Pieces of 64 KiB: short-lived strings that die young instead of large ones the old
      // generation collects late.
      writeJson({...head, chats: held, ...(quick ? {quick} : {}), roots: result.roots}, stdoutWriter(), 1 << 16)
      return undefined
    }
    const report = buildReport({
      command: 'scan',
      version: this.config.version,
      chats,
      skipped: result.skipped,
      errors: result.errors,
      exitCode: quickExit,
    })
    if (quick) Object.assign(report, {quick})
    report.roots = result.roots
    process.exitCode = report.exitCode
    const {renderHuman, renderQuickNote} = await import('../lib/render/table.js')
    const [chalk, width] = [await this.chalkFor(flags.color), await this.width()]
    // The PATHs as typed, an absolute one under the home as `~/…` (output gets pasted into bug reports). The
    // renderer hands `inspectArgs` the exact chat report (`exactOf`), never its escaped copy.
    const next = {paths: paths.map((p) => (path.isAbsolute(p) ? tildify(p, opts.home) : p)), inspectArgs: (c: ChatReport) => inspectArgs.get(c) ?? [c.path]}
    await this.printHuman(report, (r) => {
      const {stdout, stderr} = renderHuman(r, {chalk, verbose: flags.verbose, quiet: flags.quiet, width, next})
      return {stdout, stderr: [stderr, ...(r.quick ? renderQuickNote(r.quick, width) : [])].filter(Boolean).join('\n')}
    })
    return report
  }
}
