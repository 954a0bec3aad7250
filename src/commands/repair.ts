import {createInterface} from 'node:readline/promises'
import {BaseCommand, UsageError, prose, quietVerboseFlags} from '../cli/base.js'
import {Args, Flags} from '../cli/oclif.js'
import {applyChat} from '../lib/pipeline/apply.js'
import {nodeFileSystem} from '../lib/fsio/fs.js'
import {stateDir} from '../lib/fsio/repair-log.js'
import type {Report} from '../lib/model/report.js'
import type {ChatPlan} from '../lib/pipeline/plan.js'
import {confirmationLines, confirmationQuestion, renderRepair} from '../lib/render/repair.js'
import {buildRepairReport, importChat, newRepairId, type ChatResult} from '../lib/pipeline/repair-report.js'
import {planTarget} from '../lib/pipeline/repair-target.js'
import {firstOf, fromAdapters, listed, paragraphs, wrap} from '../cli/help.js'

/** The example chat of the examples. */
const CHAT = firstOf((h) => h.examples?.chat, './chat')

/** Signals that stop a repair between chats (each chat is then fully repaired or untouched). */
const STOP_SIGNALS: NodeJS.Signals[] = process.platform === 'win32' ? ['SIGINT', 'SIGTERM'] : ['SIGINT', 'SIGTERM', 'SIGHUP']

export default class Repair extends BaseCommand {
  static override summary = 'Put the best generation of each damaged chat back as its primary, keeping the originals as evidence.'

  static override description = prose`${wrap(`Finds chats as scan does (same PATH rules, same verdicts). For each repairable chat: keeps the primary as evidence under <chat dir>/.chatdoctor/<repairId>/, writes the winner's exact bytes as the primary (temp, fsync, rename, fsync dir, verify), and puts the chat folder's mtime back. Unrecoverable chats are reported; nothing is written for them. A chat whose files change during the run, or whose leftover temp belongs to a running ${listed(fromAdapters((h) => h.process))} process, is refused (--force writes anyway, but never over a file it replaces that changed since the scan). A chat whose generation could not be read (permissions) is refused: run as the file's owner (--force restores the best readable one and says what may be lost).`)}

${wrap(`Never over the agent's bytes: every watched file (inode, size, mtime; sha256 up to 4 MiB) is checked again right before each rename or removal and right after it; a save by the agent in between refuses the chat and leaves the agent's file as it is, even with --force. A file a process holds open for writing is never rewritten (Linux: found through /proc/<pid>/fd and fdinfo; on macOS and Windows open files cannot be seen, and the inode/size/mtime re-checks are the only signal). chatdoctor's own leftovers of a killed run (its .chatdoctor-<id>-<file>.tmp temps, evidence folders of nothing) are removed and logged, and the folder mtime an interrupted repair recorded is put back.`)}

${paragraphs((h) => h.repair)}

Asks once before repairing more than one chat on a terminal (-y skips; never asks with --json or when
stdin is not a terminal). Ctrl-C, SIGTERM and SIGHUP stop between chats. Every repair can be undone:
chatdoctor undo <repairId>.

Exit status (a bitmask): 0 nothing to repair, 1 repaired, 2 repairable damage left unrepaired (dry run,
refused), 4 agent context lost in a chat (unrecoverable, or degraded and left untouched), 8 a path could
not be read or a chat was refused or failed, 16 usage error (also --restore-from with other than exactly
one chat, or naming no intact generation of it).`

  static override examples = [
    '<%= config.bin %> repair --dry-run',
    `<%= config.bin %> repair ${CHAT}`,
    '<%= config.bin %> repair --yes --json > repair.json',
    '<%= config.bin %> repair --salvage --dry-run',
    `<%= config.bin %> repair --restore-from ${firstOf((h) => h.examples?.generation, 'GENERATION')} ${CHAT}`,
  ]

  static override args = {
    path: Args.string({ignoreStdin: true, description: "Chat dirs or folders to search (default: the agents' config roots).", required: false}),
  }

  static override strict = false

  static override flags = {
    ...quietVerboseFlags({
      quiet: 'Print only the chats that were not repaired as planned (refused, failed, left as they are) and errors: no repaired chats, no summary.',
      verbose: 'List every line change of a session log (not only the first 20), every finding under its chat, and each folder that was skipped.',
    }),
    'dry-run': Flags.boolean({char: 'n', description: 'Write nothing; print the exact plan.'}),
    yes: Flags.boolean({char: 'y', description: 'Do not ask before repairing more than one chat.'}),
    force: Flags.boolean({description: "Repair a chat even if it looks live (an agent process running, a file it does not replace changed since the scan) or a generation could not be read. Never writes over bytes the scan did not see (a file it replaces that changed since the scan, a save the agent makes during the repair), nor a file a process holds open for writing."}),
    'redacted-snapshots': Flags.boolean({description: "Rank chatdoctor's redacted snapshots too (chatdoctor snapshot --redact): a winning one restores a context without its tool inputs, outputs and per-turn system prompts."}),
    salvage: Flags.boolean({description: 'Also use a salvaged torn generation (complete messages kept byte for byte, lost members borrowed per key) when it covers more turns than every intact one.', exclusive: ['restore-from']}),
    'restore-from': Flags.string({description: `Restore this generation of the one chat in scope (a file name, or an embedded copy ${firstOf((h) => h.examples?.generation?.replace(/#.*$/, '#<id>'), '<file>#<id>')}, or a stored snapshot snapshot:<time>), e.g. the source a degraded chat's report names.`, helpValue: 'GENERATION'}),
  }

  async run(): Promise<Report> {
    const {argv, flags} = await this.parse(Repair)
    const home = this.home()
    const t = await planTarget(argv as string[], {home, env: process.env, salvage: flags.salvage, restoreFrom: flags['restore-from'], force: flags.force, redactedSnapshots: flags['redacted-snapshots']})
    if ('notChatFile' in t) throw await this.notChatFileError(t.notChatFile)
    if ('usage' in t) throw new UsageError(t.usage)
    const {result, plans} = t
    // Index chats first: an index that no longer describes a session file being rewritten is harmless (the agent
    // rebuilds it); a rewritten file its index still describes is not.
    const todo = plans.filter((p) => p.actions.length > 0 || p.agentImport !== undefined).sort((a, b) => Number(b.chat.snapshot.unit.index === true) - Number(a.chat.snapshot.unit.index === true))
    const dryRun = flags['dry-run']
    const repairId = newRepairId()
    const results = new Map<ChatPlan, ChatResult>()
    let interrupted = false

    if (!dryRun && todo.length > 0) {
      let proceed = true
      if (todo.length > 1 && !flags.yes && !this.jsonEnabled() && process.stdin.isTTY) {
        // The chats the summary would count as repaired, from the report that summary is made of: besides those
        // written, the sessions that come back when their index is repaired.
        const planned = buildRepairReport({version: this.config.version, home, dryRun: true, repairId, plans, results, skipped: [], errors: [], interrupted: false}).chats.filter((c) => c.repair?.outcome === 'planned').length
        proceed = await this.confirm(todo, Math.max(0, planned - todo.length))
      }
      if (!proceed) for (const p of todo) results.set(p, 'not-attempted')
      else {
        const fs = nodeFileSystem()
        const ctx = {fs, repairId, version: this.config.version, stateDir: stateDir(home, process.env), force: flags.force}
        const onSignal = (signal: NodeJS.Signals) => {
          if (!interrupted) this.note(`chatdoctor: ${signal}: stopping after the chat being repaired (another signal does not hurry it)…`)
          interrupted = true
        }
        for (const s of STOP_SIGNALS) process.on(s, onSignal)
        try {
          for (const p of todo) {
            if (interrupted) {
              results.set(p, 'not-attempted')
              continue
            }
            results.set(p, p.agentImport ? await importChat(p.agentImport, {...ctx, env: process.env}) : await applyChat(p, ctx))
          }
        } finally {
          for (const s of STOP_SIGNALS) process.off(s, onSignal)
        }
      }
    }

    const report = buildRepairReport({version: this.config.version, home, dryRun, repairId, plans, results, skipped: result.skipped, errors: result.errors, interrupted})
    report.roots = result.roots
    process.exitCode = report.exitCode
    if (!this.jsonEnabled()) {
      const [chalk, width] = [await this.chalkFor(flags.color), await this.width()]
      await this.printHuman(report, (r) => renderRepair(r, {chalk, verbose: flags.verbose, quiet: flags.quiet, width}))
    }
    return report
  }

  /** Lists the chats (on stderr, where the question goes) and asks once on the terminal; anything but y/yes declines. */
  private async confirm(todo: ChatPlan[], through: number): Promise<boolean> {
    const {outputWidth} = await import('../lib/render/width.js')
    const width = outputWidth(process.stderr, process.env)
    await this.printHuman(todo.map((p) => ({chat: p.chat.report, actions: p.actions})), (list) => ({stderr: confirmationLines(list, width).join('\n')}))
    const rl = createInterface({input: process.stdin, output: process.stderr})
    try {
      const answer = await rl.question(confirmationQuestion(todo.length, through))
      return /^y(es)?$/i.test(answer.trim())
    } finally {
      rl.close()
    }
  }
}
