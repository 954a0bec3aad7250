import {BaseCommand, UsageError, prose, quietVerboseFlags} from '../cli/base.js'
import {Args, Flags} from '../cli/oclif.js'
import {EXIT_OPERATIONAL, EXIT_USAGE} from '../lib/model/exit-codes.js'
import {nodeFileSystem} from '../lib/fsio/fs.js'
import {listRepairs, readLog, stateDir} from '../lib/fsio/repair-log.js'
import type {Report} from '../lib/model/report.js'
import {tildify} from '../lib/fsio/paths.js'
import {buildReport} from '../lib/pipeline/report.js'
import {undoRepair} from '../lib/pipeline/undo.js'

export default class Undo extends BaseCommand {
  static override summary = 'Put back the files a repair replaced, byte for byte, from its evidence.'

  static override description = prose`Finds the repair in chatdoctor's log ($XDG_STATE_HOME/chatdoctor/, default ~/.local/state/chatdoctor/)
and restores every file it replaced to its exact pre-repair bytes and mtime. A file that changed since the
repair wrote it (the agent ran again) is refused unless --force; the current bytes are always kept as
evidence first, under <chat dir>/.chatdoctor/<repairId>/undo-<time>/. A save by the agent during the undo is
never overwritten (every file is checked again right before and after each rename), and a file a process
holds open for writing is refused (Linux /proc; elsewhere only the re-checks).

Nothing in the evidence folder is trusted: the manifest must have the sha256 the repair log (outside the chat
dir) recorded for it, every path in it must stay inside the chat dir without going through a symbolic link,
and every mode must be permission bits only; otherwise undo refuses with one line and writes nothing.
The manifest must also agree exactly with the actions the log entry recorded (kinds, paths, hashes).

Undo reverts only what is on disk because of this repair: a file a later repair replaced since is refused,
naming that repair (undo it first; --force undoes anyway, keeping the current bytes as evidence). A repair
already undone (or one that replaced nothing) is reported as such, and no file of the chat is written; of a
repair that was killed, undo removes its leftovers (its temp, lock and evidence of nothing) and puts back the
chat dir's mtime it recorded.

Exit status: 0 undone (or already undone), 8 refused or failed, 16 unknown repair id or usage error.`

  static override examples = ['<%= config.bin %> undo --list', '<%= config.bin %> undo 20260830T090000Z-3fa91c']

  static override args = {
    repairId: Args.string({ignoreStdin: true, description: 'The id a repair printed (see undo --list).', required: false}),
  }

  static override flags = {
    ...quietVerboseFlags({
      quiet: 'Print only the files that could not be put back, and the closing line.',
      verbose: "Also print each file's sha256 as it is after the undo.",
    }),
    list: Flags.boolean({description: 'List past repairs.'}),
    force: Flags.boolean({description: 'Undo even files that changed since the repair, or that a later repair replaced since (their current bytes are kept as evidence).'}),
  }

  async run(): Promise<Report> {
    const {args, flags} = await this.parse(Undo)
    const home = this.home()
    const dir = stateDir(home, process.env)
    const version = this.config.version
    if (flags.list) {
      const repairs = listRepairs(readLog(dir)).map((r) => ({...r, chats: r.chats.map((c) => tildify(c, home))}))
      const report: Report = {...buildReport({command: 'undo', version, chats: [], skipped: [], errors: [], exitCode: 0}), repairs}
      process.exitCode = 0
      if (!this.jsonEnabled()) {
        const [width, {fitParts}] = [await this.width(), await import('../lib/render/width.js')]
        // Each chat's folder on a line of its own, never broken.
        await this.printHuman({repairs, dir: tildify(dir, home)}, (d) => ({
          stdout: (d.repairs.length === 0 ? fitParts(['No repairs in ', {whole: d.dir}, '.'], width) : d.repairs.flatMap((r) => [...fitParts([`${r.repairId}  ${r.time}  ${r.chats.length} chat${r.chats.length === 1 ? '' : 's'}${r.undone ? '  (undone)' : ''}`], width), ...r.chats.map((c) => `  ${c}`)])).join('\n'),
        }))
      }
      return report
    }
    if (!args.repairId) throw new UsageError('give a repair id (chatdoctor undo --list shows them)')
    const chunked = Number(process.env.CHATDOCTOR_CHUNKED_BYTES)
    const result = await undoRepair(args.repairId, {fs: nodeFileSystem(), stateDir: dir, version, force: flags.force, ...(Number.isInteger(chunked) && chunked > 0 ? {chunkedBytes: chunked} : {})})
    if (!result.found) {
      const message = `unknown repair id "${args.repairId}"; chatdoctor undo --list shows past repairs`
      process.exitCode = EXIT_USAGE
      const report: Report = {...buildReport({command: 'undo', version, chats: [], skipped: [], errors: [], exitCode: EXIT_USAGE}), error: message}
      if (!this.jsonEnabled()) {
        const [width, {fitParts}] = [await this.width('stderr'), await import('../lib/render/width.js')]
        await this.printHuman({message}, (d) => ({stderr: fitParts([`chatdoctor: ${d.message}`], width).join('\n')}))
      }
      return report
    }
    if (result.refusal !== null) {
      process.exitCode = EXIT_OPERATIONAL
      const report: Report = {...buildReport({command: 'undo', version, chats: [], skipped: [], errors: [{path: args.repairId, message: result.refusal}], exitCode: EXIT_OPERATIONAL}), repairId: args.repairId, undone: []}
      if (!this.jsonEnabled()) {
        const [width, {fitParts}] = [await this.width('stderr'), await import('../lib/render/width.js')]
        await this.printHuman({refusal: tildify(result.refusal, home)}, (d) => ({stderr: fitParts([`chatdoctor: ${d.refusal}`], width).join('\n')}))
      }
      return report
    }
    const bad = result.files.filter((f) => f.outcome === 'refused' || f.outcome === 'failed')
    const code = bad.length > 0 ? EXIT_OPERATIONAL : 0
    const undone = result.files.map((f) => ({chat: tildify(f.chat, home), file: f.file, outcome: f.outcome, sha256: f.sha256}))
    const errors = bad.map((f) => ({path: tildify(`${f.chat}/${f.file}`, home), message: f.message ?? f.outcome}))
    const cleaned = result.cleaned.map((l) => ({chat: tildify(l.chat, home), path: l.path, bytes: l.bytes}))
    const report: Report = {...buildReport({command: 'undo', version, chats: [], skipped: [], errors, exitCode: code}), repairId: args.repairId, undone, alreadyUndone: result.alreadyUndone, ...(cleaned.length > 0 ? {leftoversRemoved: cleaned} : {})}
    process.exitCode = code
    if (!this.jsonEnabled()) {
      const words: Record<string, string> = {restored: 'restored', removed: 'removed', 'already-undone': 'already as before the repair:', refused: 'refused', failed: 'failed'}
      const files = (result.alreadyUndone ? [] : result.files)
        .filter((f) => !flags.quiet || f.outcome === 'refused' || f.outcome === 'failed')
        .map((f) => ({outcome: f.outcome, path: tildify(`${f.chat}/${f.file}`, home), message: f.message, hash: flags.verbose ? ` sha256 ${f.sha256 ?? 'none (no file)'}` : ''}))
      const written = cleaned.length > 0 ? `no file of the chat written (only chatdoctor's leftovers removed)` : 'nothing written'
      const last = code !== 0 ? `Repair ${args.repairId} was not fully undone (exit ${code}).` : result.alreadyUndone ? (result.files.length === 0 ? `Repair ${args.repairId} replaced nothing; nothing to undo, ${written}.` : `Repair ${args.repairId} was already undone: every file is as before it; ${written}.`) : `Undid repair ${args.repairId}.`
      const nothingReplaced = flags.quiet ? [] : result.nothingReplaced.map((c) => tildify(c, home))
      const removed = flags.quiet ? [] : cleaned.map((l) => ({path: `${l.chat}/${l.path}`, bytes: l.bytes}))
      const [width, noteWidth, {fitParts}] = [await this.width(), await this.width('stderr'), await import('../lib/render/width.js')]
      // Fitted to the width (piped: whole lines); a path is never broken: one that does not fit stands on a line of its own.
      await this.printHuman({files, errors, warnings: result.warnings, nothingReplaced, removed, repairId: args.repairId, last}, (d) => ({
        stderr: [...d.errors.flatMap((e) => fitParts(['chatdoctor: ', {whole: e.path}, `: ${e.message}`], noteWidth)), ...d.warnings.flatMap((w) => fitParts([`warning: ${w}`], noteWidth))].join('\n'),
        stdout: [
          ...d.files.flatMap((f) => fitParts([`${words[f.outcome]} `, {whole: f.path}, `${f.message && f.outcome !== 'refused' && f.outcome !== 'failed' ? ` (${f.message})` : ''}${f.hash}`], width)),
          ...d.nothingReplaced.flatMap((c) => fitParts(['nothing to undo in ', {whole: c}, `: repair ${d.repairId} replaced nothing there`], width)),
          ...d.removed.flatMap((l) => fitParts(["removed chatdoctor's leftover ", {whole: l.path}, ` (${l.bytes} bytes)`], width)),
          ...fitParts([d.last], width),
        ].join('\n'),
      }))
    }
    return report
  }
}
