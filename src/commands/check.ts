import {BaseCommand, UsageError, prose, quietVerboseFlags} from '../cli/base.js'
import {Args, Flags} from '../cli/oclif.js'
import {DEFAULT_LIMITS} from '../lib/archive/read.js'
import {checkExitCode, checkPaths} from '../lib/pipeline/check.js'
import {EXIT_OPERATIONAL} from '../lib/model/exit-codes.js'
import {appendText, writeFileDurable} from '../lib/fsio/output.js'
import type {Report, Severity} from '../lib/model/report.js'
import type {CiInput} from '../lib/render/ci.js'
import {buildReport} from '../lib/pipeline/report.js'

export default class Check extends BaseCommand {
  static override summary = 'Check chat dirs and exported bundles for damage, with CI output formats (SARIF, JUnit, GitHub).'

  static override description = prose`PATH: a chat dir, a folder holding chat dirs, a .tar, .tar.gz/.tgz or .zip bundle (with or without
a chatdoctor-bundle.json manifest), or a folder of bundles. Bundles are read in memory, never extracted;
entries that escape the archive (../, absolute paths, links pointing outside) are refused; an entry under a
refused link, an in-archive symbolic link or a file is not read, and a name that occurs twice is reported
(only its last copy is read); entries of no chat are listed as skipped; an archive over --max-entries,
--max-bytes (uncompressed, in all) or --max-member-bytes (one entry a diagnosis reads) is refused, the
caps checked before any entry's bytes are held. A manifest is verified (missing, extra or changed
files are errors) and its exact mtimes are used for ranking; then every chat gets the scan diagnosis.

Exit status: the scan bitmask (2 repairable, 4 agent context lost, 8 operational error such as an
unreadable PATH, a refused, hidden or duplicate archive entry), plus 2 for any chat whose worst finding reaches --fail-on
(even a healthy one); 16 usage error (e.g. no PATH).`

  static override examples = [
    '<%= config.bin %> check chats/',
    '<%= config.bin %> check --format github test/fixtures/chats',
    '<%= config.bin %> check --format sarif -o chatdoctor.sarif bundles/',
    '<%= config.bin %> check --format junit -o junit.xml --fail-on warning bundles/',
  ]

  static override args = {
    path: Args.string({ignoreStdin: true, description: 'Chat dirs, folders, or bundles (.tar, .tar.gz, .tgz, .zip).', required: false}),
  }

  static override strict = false

  static override flags = {
    ...quietVerboseFlags({
      quiet: 'In the human table: only the chats that are not healthy, no summary line. A --format report is not changed.',
      verbose: 'In the human table: every finding under its chat, and each folder that was skipped. A --format report is not changed.',
    }),
    format: Flags.string({description: "Report format (default: table; html: one self-contained page with each chat's timeline and byte maps). --json is --format json.", options: ['table', 'json', 'sarif', 'junit', 'github', 'html']}),
    output: Flags.string({char: 'o', description: 'Write the report in --format to FILE; stdout then carries the human table.'}),
    'fail-on': Flags.string({description: 'Least severe finding that fails a chat (adds exit bit 2).', options: ['error', 'warning', 'info'], default: 'error'}),
    'max-bytes': Flags.integer({description: 'Cap on the uncompressed bytes of one archive.', min: 1, default: DEFAULT_LIMITS.maxBytes}),
    'max-entries': Flags.integer({description: 'Cap on the entries of one archive.', min: 1, default: DEFAULT_LIMITS.maxEntries}),
    'max-member-bytes': Flags.integer({description: 'Cap on the uncompressed bytes of one archive entry read into memory (what a diagnosis reads).', min: 1, default: DEFAULT_LIMITS.maxMemberBytes}),
  }

  async run(): Promise<Report> {
    const {argv, flags} = await this.parse(Check)
    const paths = argv as string[]
    if (this.jsonEnabled() && flags.format !== undefined && flags.format !== 'json') {
      throw new UsageError(`--json prints the JSON report, not ${flags.format}: use --format ${flags.format} without --json (with -o FILE for a file), or --json alone`)
    }
    if (paths.length === 0) throw new UsageError('check needs at least one PATH (a chat dir, a folder, or a bundle)')
    const failOn = flags['fail-on'] as Severity
    const result = await checkPaths(paths, {home: this.home(), env: process.env, limits: {maxBytes: flags['max-bytes'], maxEntries: flags['max-entries'], maxMemberBytes: flags['max-member-bytes']}})
    const chats = result.chats.map((c) => c.report)
    const errors = result.errors.map((e) => ({path: e.path, message: e.message, id: e.id}))
    // A CI job pointed at the wrong folder must not go green: finding nothing to check is an operational error.
    if (chats.length === 0 && errors.length === 0) {
      errors.push({path: paths.join(' '), message: 'no chats or bundles found to check (is the PATH right?)', id: 'nothing-to-check'})
    }
    const report = buildReport({command: 'check', version: this.config.version, chats, skipped: result.skipped, errors, exitCode: checkExitCode(chats, errors, failOn)})
    const input: CiInput = {report, chats: result.chats, errors: result.errors, cwd: process.cwd(), failOn}
    const format = this.jsonEnabled() ? 'json' : (flags.format ?? 'table')
    // Each renderer (and chalk) is loaded only when its format is asked for (start-up).
    let text: string | null = null
    if (format === 'json') text = JSON.stringify(report, null, 2)
    else if (format === 'sarif') text = JSON.stringify((await import('../lib/render/sarif.js')).renderSarif(input), null, 2)
    else if (format === 'junit') text = (await import('../lib/render/junit.js')).renderJunit(input)
    else if (format === 'html') {
      const [{htmlReportChats}, {renderHtml}] = await Promise.all([import('../lib/pipeline/html-report.js'), import('../lib/render/html.js')])
      text = renderHtml({command: this.commandLine(), version: this.config.version, chats: htmlReportChats(result.chats, {home: this.home(), version: this.config.version}), summary: report.summary, errors: report.errors})
    }
    else if (format === 'github') {
      const {renderGithubAnnotations, renderGithubSummary} = await import('../lib/render/github.js')
      text = renderGithubAnnotations(input).join('\n')
      const summary = process.env.GITHUB_STEP_SUMMARY
      if (summary) {
        try {
          await appendText(summary, renderGithubSummary(input))
        } catch (e) {
          await this.printHuman({summary, message: (e as Error).message}, (d) => ({stderr: `chatdoctor: could not append to GITHUB_STEP_SUMMARY (${d.summary}): ${d.message}`}))
          report.exitCode |= EXIT_OPERATIONAL
        }
      }
    }
    if (flags.output !== undefined && text !== null) {
      try {
        await writeFileDurable(flags.output, text.endsWith('\n') ? text : text + '\n', {overwrite: true})
      } catch (e) {
        await this.printHuman({file: flags.output, message: (e as Error).message}, (d) => ({stderr: `chatdoctor: could not write ${d.file}: ${d.message}`}))
        report.exitCode |= EXIT_OPERATIONAL
      }
    }
    process.exitCode = report.exitCode
    if (this.jsonEnabled()) return report
    if (text === null || flags.output !== undefined) {
      const {renderHuman} = await import('../lib/render/table.js')
      const [chalk, width] = [await this.chalkFor(flags.color), await this.width()]
      await this.printHuman(report, (r) => renderHuman(r, {chalk, verbose: flags.verbose, quiet: flags.quiet, width}))
    } else this.outMachine(text)
    return report
  }
}
