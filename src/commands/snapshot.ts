import path from 'node:path'
import {BaseCommand, UsageError, quietVerboseFlags} from '../cli/base.js'
import {Args, Flags} from '../cli/oclif.js'
import {firstOf, fromAdapters, listed} from '../cli/help.js'
import {EXIT_OPERATIONAL} from '../lib/model/exit-codes.js'
import {DEFAULT_SNAPSHOT_CAPS, type SnapshotCaps} from '../lib/model/snapshot.js'
import {nodeFileSystem} from '../lib/fsio/fs.js'
import {guardAgents} from '../lib/pipeline/snapshot/guard.js'

/** The agents whose own hook runs `snapshot --hook` (the others get a timer from guard install). */
const agents = () => guardAgents().filter((a) => a.snapshot?.hook !== undefined).map((a) => a.name)

export default class Snapshot extends BaseCommand {
  static override summary = 'Store an encrypted last-known-good copy of each healthy, settled chat, for repair to restore when everything on disk is torn.'

  static override description = `Finds chats as scan does (with no PATH: ${listed(fromAdapters((h) => h.roots))}). For each healthy chat whose last turn is settled (no tool call pending or running, the last prompt answered, no temp newer than the primary), stores its agent context: the exact bytes of its winning generation (a session log, a state file) or, for a store, the session's files (a session of a database: the document the agent's own export writes of it, read from a private copy). Skipped, with the reason: a chat that is not healthy or not settled, one over a cap (never truncated), one unchanged since its newest snapshot (same sha256).

Snapshots live in $XDG_STATE_HOME/chatdoctor/snapshots/ (default ~/.local/state/chatdoctor), one file per snapshot, written durably, encrypted with AES-256-GCM under a random key made on first use in $XDG_CONFIG_HOME/chatdoctor/snapshot.key (default ~/.config/chatdoctor, mode 0600; a key file others may read is refused) or given by CHATDOCTOR_SNAPSHOT_KEY (64 hex digits). The chat, agent, time, turns covered and the plaintext sha256 are in an authenticated header: a tampered or truncated snapshot, or one made with another key, is rejected with one line and never restored. The oldest beyond --keep per chat are removed after a new one is stored. --forget CHAT lets go of a chat deleted on purpose: it removes every snapshot of it (only those that authenticate under the key), so scan stops offering to restore it; a chat still on disk is refused without --force, and --dry-run says what would go.

scan lists a chat's snapshots as generations of role snapshot (snapshot:<time>), ranked like any other; when one wins, repair restores its exact bytes (checked against its sha256) with the usual evidence and undo. A session log deleted from disk, or a session gone from its agent's store, is a chat of its own while a snapshot of it is left: repair writes the log back at the path the snapshot records (inside the agent's roots), or writes the export document and runs the agent's import on it (printing the command when the agent is not on PATH). --redact removes tool inputs and outputs and per-turn system prompts first (roles, order, tool ids and their lifecycle kept; chats of ${listed(fromAdapters((_h, a) => (a.snapshot?.redact ? a.displayName : undefined)).map((n) => (n.includes(' and ') ? `(${n})` : n)))}): such a snapshot is not the agent's whole context, and scan and repair rank it only with --redacted-snapshots.

--hook AGENT is what the agents' own hooks run (chatdoctor guard install AGENT puts it there; agents: ${agents().join(', ')}): it reads the hook's input, snapshots only the chat it names (inside the agent's roots), never blocks or fails the agent (exit 0 always; errors go to $XDG_STATE_HOME/chatdoctor/snapshot-hook.log) and tries a chat that is not settled yet again in the background for a few seconds.

Exit status: 0 done (snapshots taken or chats skipped; with --forget, every chat named let go), 8 an error (a path, the key or the store could not be read or written; with --forget, a chat refused or a snapshot left), 16 usage error.`

  static override examples = ['<%= config.bin %> snapshot', '<%= config.bin %> snapshot --list', '<%= config.bin %> snapshot --prune --keep 3', '<%= config.bin %> snapshot --forget --dry-run CHAT', `<%= config.bin %> snapshot --redact ${firstOf((h) => h.examples?.root, './chats')}`]

  static override args = {
    path: Args.string({ignoreStdin: true, description: "Chat dirs, session files or folders to search (default: the agents' roots); with --list, only snapshots of chats under them.", required: false}),
  }

  static override strict = false

  static override flags = {
    ...quietVerboseFlags({
      quiet: 'Print only what was stored and the errors: no skipped chats, no summary line.',
      verbose: 'List every skipped chat with its reason, even with --quiet.',
    }),
    list: Flags.boolean({description: 'List the stored snapshots (of the chats under PATH), newest first; decrypts nothing.', exclusive: ['prune', 'redact', 'hook', 'forget']}),
    prune: Flags.boolean({description: 'Apply --keep and --max-store-bytes to the whole store (a chat\'s newest snapshot is kept; snapshots of chats that are gone are kept: they may be the only copy).', exclusive: ['list', 'redact', 'hook', 'forget']}),
    forget: Flags.boolean({description: 'Remove every stored snapshot of each chat named (PATH: the chat as --list and scan name it), for a chat deleted on purpose; only snapshots that authenticate under the key are removed. A chat still on disk is refused without --force.', exclusive: ['list', 'prune', 'redact', 'hook']}),
    force: Flags.boolean({description: 'With --forget: remove the snapshots of a chat that is still on disk too.', dependsOn: ['forget']}),
    'dry-run': Flags.boolean({description: 'With --forget: say what would be removed, remove nothing.', dependsOn: ['forget']}),
    redact: Flags.boolean({description: 'Remove tool inputs and outputs and per-turn system prompts before storing (roles, order, tool ids and their lifecycle kept); the snapshot is marked redacted.'}),
    hook: Flags.string({description: `Hook mode: snapshot the chat the agent's hook input names (${agents().join(', ')}); never fails the agent.`, helpValue: 'AGENT'}),
    settle: Flags.boolean({hidden: true, description: 'Hook mode: keep trying while the chat is not settled (the background retry).'}),
    'max-messages': Flags.integer({description: `Skip a chat with more messages than this (default ${DEFAULT_SNAPSHOT_CAPS.maxMessages}).`, min: 1}),
    'max-bytes': Flags.integer({description: `Skip a chat whose snapshot would be larger than this many bytes (default ${DEFAULT_SNAPSHOT_CAPS.maxBytes}, 8 MiB).`, min: 1}),
    keep: Flags.integer({description: `Snapshots kept per chat (default ${DEFAULT_SNAPSHOT_CAPS.keepPerChat}).`, min: 1}),
    'max-store-bytes': Flags.integer({description: `Total bytes of the store; a snapshot that would exceed it is skipped (default ${DEFAULT_SNAPSHOT_CAPS.maxStoreBytes}, 512 MiB).`, min: 1}),
  }

  async run(): Promise<unknown> {
    const {argv, flags} = await this.parse(Snapshot)
    const paths = argv as string[]
    const home = this.home()
    const env = process.env
    const chalk = await this.chalkFor(flags.color)
    if (flags.hook !== undefined) {
      if (!agents().includes(flags.hook)) throw new UsageError(`--hook: unknown agent ${JSON.stringify(flags.hook)} (agents: ${agents().join(', ')})`)
      const {hookMain} = await import('../cli/snapshot-hook.js')
      const o = await hookMain(['snapshot', '--hook', flags.hook, ...(flags.settle ? ['--settle'] : []), ...paths])
      return o ?? {status: 'error', message: 'hook mode did not run'}
    }
    const caps: Partial<SnapshotCaps> = {
      ...(flags['max-messages'] !== undefined ? {maxMessages: flags['max-messages']} : {}),
      ...(flags['max-bytes'] !== undefined ? {maxBytes: flags['max-bytes']} : {}),
      ...(flags.keep !== undefined ? {keepPerChat: flags.keep} : {}),
      ...(flags['max-store-bytes'] !== undefined ? {maxStoreBytes: flags['max-store-bytes']} : {}),
    }
    const take = await import('../lib/pipeline/snapshot/take.js')
    const render = await import('../lib/render/snapshot.js')
    const widths = this.jsonEnabled() ? {} : {width: await this.width()}
    if (flags.list) {
      const l = take.listSnapshots(paths, {home, env, resolve: (p) => path.resolve(p.startsWith('~/') ? path.join(home, p.slice(2)) : p)})
      process.exitCode = l.errors.length > 0 ? EXIT_OPERATIONAL : 0
      if (!this.jsonEnabled()) {
        await this.printHuman(l, (d) => render.renderList(d, {chalk, home, ...widths}))
      }
      return {command: 'snapshot --list', exitCode: process.exitCode, bytes: l.bytes, snapshots: l.refs.map((r) => ({file: r.file, fileBytes: r.fileBytes, ...r.header})), errors: l.errors}
    }
    const fs = nodeFileSystem()
    if (flags.forget) {
      if (paths.length === 0) throw new UsageError('--forget: name the chat whose snapshots to remove (as chatdoctor snapshot --list names it)')
      const f = await take.forgetSnapshots(paths, {home, env, fs, force: flags.force, dryRun: flags['dry-run'], resolve: (p) => path.resolve(p.startsWith('~/') ? path.join(home, p.slice(2)) : p)})
      process.exitCode = f.errors.length > 0 || f.refused.length > 0 ? EXIT_OPERATIONAL : 0
      if (!this.jsonEnabled()) {
        await this.printHuman(f, (d) => render.renderForget(d, {chalk, ...widths}))
      }
      return {command: 'snapshot --forget', exitCode: process.exitCode, ...f}
    }
    if (flags.prune) {
      const p = await take.pruneSnapshots({home, env, fs, caps})
      process.exitCode = p.errors.length > 0 ? EXIT_OPERATIONAL : 0
      if (!this.jsonEnabled()) {
        await this.printHuman(p, (d) => render.renderPrune(d, {chalk, ...widths}))
      }
      return {command: 'snapshot --prune', exitCode: process.exitCode, ...p}
    }
    const r = await take.takeSnapshots(paths, {home, env, fs, caps, redact: flags.redact})
    process.exitCode = r.errors.length > 0 ? EXIT_OPERATIONAL : 0
    if (!this.jsonEnabled()) {
      await this.printHuman(r, (d) => render.renderTake(d, {chalk, quiet: flags.quiet, verbose: flags.verbose, ...widths}))
    }
    return {command: 'snapshot', exitCode: process.exitCode, chats: r.chats, taken: r.taken, skipped: r.skipped, errors: r.errors}
  }
}
