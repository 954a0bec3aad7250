import {BaseCommand, UsageError, prose} from '../cli/base.js'
import {Args, Flags} from '../cli/oclif.js'
import type {Inspection} from '../lib/pipeline/inspect.js'
import {inspectTarget} from '../lib/pipeline/inspect-target.js'
import type {Report} from '../lib/model/report.js'
import {renderInspection} from '../lib/render/inspect.js'
import type {ScannedChat} from '../lib/pipeline/scan.js'
import {EXIT_OPERATIONAL} from '../lib/model/exit-codes.js'
import {firstOf, fromAdapters, listed, wrap} from '../cli/help.js'

export default class Inspect extends BaseCommand {
  static override summary = 'The whole forensic picture of one chat: timeline, tears, ranking, salvage, what happened. Read-only.'

  static override description = prose`${wrap(`CHAT_DIR must hold exactly one chat (or name one with --session, e.g. in ${listed(fromAdapters((h) => h.store?.dir))}). ${fromAdapters((h) => h.inspect).join(' ')} Shows every generation (mtime, size, class, turns covered, traceSessionId), where each tear sits (byte offset, 4096-byte alignment, NUL runs), why each candidate won or lost, what a salvage would recover, and a plain-language account of what most likely happened.`)}
Writes nothing, anywhere. Exit status as for scan.`

  static override examples = [`<%= config.bin %> inspect ${firstOf((h) => h.examples?.chat, './chat')}`, '<%= config.bin %> inspect --json ./chat > inspection.json']

  static override args = {
    chat_dir: Args.string({ignoreStdin: true, description: `The chat dir (or session file, or ${listed(fromAdapters((h) => h.store?.dir))}) to inspect.`, required: true}),
  }

  static override flags = {
    html: Flags.string({description: 'Also write the whole picture as one self-contained HTML page (timeline, byte maps, what a repair would do) to FILE, which must end in .html or .htm; an existing FILE is replaced.', helpValue: 'FILE'}),
    session: Flags.string({description: `The chat id to inspect when CHAT_DIR holds several (${[...fromAdapters((h) => h.store?.sessionId), "a session file's id"].join(', ')}).`}),
  }

  async run(): Promise<Report & {inspection: Inspection | null}> {
    const {args, flags} = await this.parse(Inspect)
    if (flags.html !== undefined && !/\.html?$/i.test(flags.html)) throw new UsageError(`--html writes an HTML page: give a file name ending in .html (got ${flags.html})`)
    const r = await inspectTarget(args.chat_dir, flags.session, {home: this.home(), env: process.env, version: this.config.version})
    if ('usage' in r) throw new UsageError(r.usage)
    const {report, inspection} = r
    if (flags.html !== undefined && inspection && r.chat) await this.writeHtml(flags.html, r.chat, report, false)
    process.exitCode = report.exitCode
    if (!this.jsonEnabled()) {
      const [chalk, width] = [await this.chalkFor(flags.color), await this.width()]
      await this.printHuman({errors: report.errors, inspection}, (d) => ({stderr: d.errors.map((e) => `error ${e.path}: ${e.message}`).join('\n'), stdout: d.inspection ? renderInspection(d.inspection, {chalk, width}) : ''}))
    }
    return {...report, inspection}
  }

  /** Writes the HTML report of the chat through the write seam; a failed write sets exit bit 8 and says why. */
  private async writeHtml(file: string, chat: ScannedChat, report: Report, quiet: boolean): Promise<void> {
    const [{htmlReportChats}, {renderHtml}, {writeFileDurable}] = await Promise.all([import('../lib/pipeline/html-report.js'), import('../lib/render/html.js'), import('../lib/fsio/output.js')])
    const html = renderHtml({command: this.commandLine(), version: this.config.version, chats: htmlReportChats([chat], {home: this.home(), version: this.config.version})})
    try {
      await writeFileDurable(file, html, {overwrite: true})
      if (!quiet && !this.jsonEnabled()) await this.printHuman({file}, (d) => ({stderr: `HTML report written to ${d.file}`}))
    } catch (e) {
      await this.printHuman({file, message: (e as Error).message}, (d) => ({stderr: `chatdoctor: could not write ${d.file}: ${d.message}`}))
      report.exitCode |= EXIT_OPERATIONAL
    }
  }
}

