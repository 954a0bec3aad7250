import {BaseCommand, UsageError, prose, quietVerboseFlags} from '../cli/base.js'
import {Args, Flags} from '../cli/oclif.js'
import {archiveKindByName} from '../lib/archive/read.js'
import {archiveStream, SourceChangedError} from '../lib/archive/write.js'
import {buildBundle} from '../lib/pipeline/bundle/create.js'
import {exportSession, SessionExportError, sessionExporter} from '../lib/pipeline/session-export.js'
import {statSync} from 'node:fs'
import path from 'node:path'
import {EXIT_OPERATIONAL} from '../lib/model/exit-codes.js'
import {writeFileDurable, writeStreamDurable} from '../lib/fsio/output.js'
import type {Report} from '../lib/model/report.js'
import {renderChatTable, renderFindings} from '../lib/render/table.js'
import {buildReport} from '../lib/pipeline/report.js'
import {createHash} from 'node:crypto'
import {firstOf, fromAdapters, paragraphs} from '../cli/help.js'

const exporter = sessionExporter()
const EXPORT_SIZE_CAP_BYTES = exporter?.sessionExport.capBytes ?? 0

export default class Bundle extends BaseCommand {
  static override summary = 'Export chat dirs into one archive (.tar.gz, .tar or .zip) with a manifest, optionally redacted.'

  static override description = prose`Each chat goes into a folder named by its id, with every generation as it is on disk (primary,
.bak, temps, transcript, meta, logs); chatdoctor-bundle.json at the root lists every file with its size,
exact mtime and sha256, and the scan verdict of each chat at export. Never included: chatdoctor's own
.chatdoctor evidence, credentials.json, symbolic links, anything outside the chat dirs.

--redact replaces message text, tool inputs and outputs, file contents and paths with keyed-hash
placeholders (random key, not stored): equal values stay equal, the bundle diagnoses the same (same
classes, reasons, turns and winner, checked before writing), damage stays where it is. Files that cannot
be redacted structurally (log.jsonl, trace.jsonl, unknown files) are left out and listed as omitted.
--redact reads each file it redacts whole: a file over about 512 MiB refuses its chat (bundle it without
--redact).

Files of any size are streamed from disk into the archive (memory stays bounded) and hashed as they go;
the manifest is the archive's last member. A file that changes while it is read is an error for its chat,
and nothing is written.

${paragraphs((h) => h.bundle)}

${paragraphs((h) => h.sessionExport?.paragraph)}

Reads the chat dirs only; writes only FILE (durably; an existing FILE is kept unless --force).
Exit status: 0 written, 8 nothing written (a chat could not be read or changed while read, no chats found, FILE exists,
redaction would change a verdict, a --session not found, in a database or over the size cap), 16 usage
error (a bad flag or argument, among them -o FILE in a folder that does not exist or is not a folder).`

  static override examples = [
    `<%= config.bin %> bundle ${firstOf((h) => h.examples?.chat, './chat')} -o chat.tar.gz`,
    `<%= config.bin %> bundle --redact ${firstOf((h) => h.examples?.chats, './chats')} -o chats.zip`,
    ...fromAdapters((h) => h.examples?.bundle?.join('\n')).flatMap((x) => x.split('\n')).map((args) => `<%= config.bin %> bundle ${args}`),
  ]

  static override args = {
    chatDir: Args.string({ignoreStdin: true, description: 'Chat dirs, or folders holding chat dirs.', required: false}),
  }

  static override strict = false

  static override flags = {
    ...quietVerboseFlags({
      quiet: 'No table of the bundled chats: only errors and the line naming the file written.',
      verbose: "Also list each bundled chat's findings (the verdict stored in the manifest) under the table.",
    }),
    output: Flags.string({char: 'o', description: 'The archive to write, by its name: .tar.gz or .tgz (gzip-compressed tar), .tar, .zip; with --session, the JSON file. Its folder must exist (chatdoctor creates none).', required: true}),
    redact: Flags.boolean({description: 'Replace content with keyed-hash placeholders; leave out files that cannot be redacted.'}),
    force: Flags.boolean({description: 'Replace FILE when it exists.'}),
    session: Flags.string({description: firstOf((h) => h.sessionExport?.flag, 'Write this session as a single document (FILE.json) instead of an archive.')}),
    'max-session-bytes': Flags.integer({description: `With --session: refuse sessions whose files hold more bytes than this (default ${EXPORT_SIZE_CAP_BYTES}).`, min: 1}),
  }

  async run(): Promise<Report & {bundle: unknown}> {
    const {argv, flags} = await this.parse(Bundle)
    const paths = argv as string[]
    // chatdoctor makes no folder the user did not ask for: -o names a file in a folder that exists.
    const folder = path.dirname(path.resolve(flags.output))
    let kindOfFolder: 'folder' | 'other' | 'missing'
    try {
      kindOfFolder = statSync(folder).isDirectory() ? 'folder' : 'other'
    } catch {
      kindOfFolder = 'missing'
    }
    if (kindOfFolder !== 'folder') throw new UsageError(`-o ${flags.output}: the folder ${folder} ${kindOfFolder === 'missing' ? 'does not exist' : 'is not a folder'}; create it or pick another path`)
    if (flags.session !== undefined) {
      if (archiveKindByName(flags.output) !== null) throw new UsageError(`--session writes one JSON document, not an archive: name it FILE.json (got -o ${flags.output}), or leave out --session to write an archive`)
      return this.exportOne(paths, flags.session, flags)
    }
    if (flags['max-session-bytes'] !== undefined) throw new UsageError('--max-session-bytes applies only with --session')
    if (paths.length === 0) throw new UsageError('bundle needs at least one CHAT_DIR')
    const kind = archiveKindByName(flags.output)
    if (kind === null) throw new UsageError(`-o ${flags.output}: not an archive name chatdoctor writes; end it in .tar.gz or .tgz (gzip-compressed tar), .tar or .zip (or write one OpenCode session as JSON with --session ID -o FILE.json)`)
    const built = await buildBundle(paths, {home: this.home(), env: process.env, version: this.config.version, redact: Boolean(flags.redact)})
    const errors = [...built.errors]
    if (errors.length === 0 && built.manifest.chats.length === 0) errors.push({path: paths.join(' '), message: 'no chats found there; nothing bundled'})
    let info: {file: string; bytes: number; sha256: string; chats: number; redacted: boolean; omitted: number} | null = null
    if (errors.length === 0) {
      try {
        // Each file is streamed from disk into the archive and the archive into FILE: memory stays bounded.
        const written = await writeStreamDurable(flags.output, archiveStream(kind, built.inputs, built.trailer), {overwrite: Boolean(flags.force)})
        info = {
          file: flags.output,
          bytes: written.bytes,
          sha256: written.sha256,
          chats: built.manifest.chats.length,
          redacted: Boolean(flags.redact),
          omitted: built.manifest.chats.reduce((n, c) => n + c.omitted.length, 0),
        }
      } catch (e) {
        if (e instanceof SourceChangedError) errors.push({path: e.input.owner ?? e.input.source!.abs, message: e.message})
        else errors.push({path: flags.output, message: (e as Error).message})
      }
    }
    const report = {
      ...buildReport({command: 'bundle', version: this.config.version, chats: built.chats, skipped: built.skipped, errors, exitCode: errors.length > 0 ? EXIT_OPERATIONAL : 0}),
      bundle: info,
    }
    process.exitCode = report.exitCode
    if (!this.jsonEnabled()) {
      const chalk = await this.chalkFor(flags.color)
      const width = await this.width()
      await this.printHuman({errors, info, chats: built.chats}, (d) => {
        const stderr = d.errors.map((e) => `${chalk.red('error')} ${e.path}: ${e.message}`)
        if (!d.info) return {stderr: [...stderr, 'nothing written'].join('\n')}
        const omitted = d.info.omitted > 0 ? `; ${d.info.omitted} file${d.info.omitted === 1 ? '' : 's'} left out (see chatdoctor-bundle.json)` : ''
        stderr.push(`wrote ${d.info.file}: ${d.info.chats} chat${d.info.chats === 1 ? '' : 's'}, ${d.info.bytes} bytes${d.info.redacted ? ', redacted' : ''}${omitted}`)
        const stdout: string[] = []
        if (!flags.quiet) stdout.push(renderChatTable(d.chats, {chalk, verbose: false, quiet: false, width}))
        if (flags.verbose && !flags.quiet) stdout.push(renderFindings(d.chats, {chalk, verbose: true, quiet: false, width}).join('\n'))
        return {stdout: stdout.filter(Boolean).join('\n'), stderr: stderr.join('\n')}
      })
    }
    return report
  }

  /** `--session ID`: one OpenCode JSON-tree session as an export document. */
  private async exportOne(paths: string[], session: string, flags: {output: string; redact?: boolean; force?: boolean; color?: boolean; 'max-session-bytes'?: number}): Promise<Report & {bundle: unknown}> {
    const errors: Array<{path: string; message: string}> = []
    let info: {file: string; bytes: number; sha256: string; sessionId: string; messages: number; parts: number; redacted: boolean; omitted: string[]} | null = null
    let chats: Report['chats'] = []
    try {
      const x = await exportSession(paths, session, {home: this.home(), env: process.env, redact: Boolean(flags.redact), capBytes: flags['max-session-bytes']})
      await writeFileDurable(flags.output, x.bytes, {overwrite: Boolean(flags.force)})
      info = {file: flags.output, bytes: x.bytes.length, sha256: createHash('sha256').update(x.bytes).digest('hex'), sessionId: x.sessionId, messages: x.messages, parts: x.parts, redacted: x.redacted, omitted: x.omitted}
      // The written export, checked as `check` would (what a CI job will see).
      chats = [{path: path.resolve(flags.output), ...(await exporter!.sessionExport.diagnose(path.basename(flags.output), x.bytes, Date.now()))}]
    } catch (e) {
      errors.push({path: e instanceof SessionExportError ? session : flags.output, message: (e as Error).message})
    }
    const report = {
      ...buildReport({command: 'bundle', version: this.config.version, chats, skipped: [], errors, exitCode: errors.length > 0 ? EXIT_OPERATIONAL : 0}),
      bundle: info,
    }
    process.exitCode = report.exitCode
    if (!this.jsonEnabled()) {
      const chalk = await this.chalkFor(flags.color)
      await this.printHuman({errors, info}, (d) => {
        const stderr = d.errors.map((e) => `${chalk.red('error')} ${e.path}: ${e.message}`)
        if (!d.info) return {stderr: [...stderr, 'nothing written'].join('\n')}
        const left = d.info.omitted.length > 0 ? `; ${d.info.omitted.length} damaged file${d.info.omitted.length === 1 ? '' : 's'} left out` : ''
        stderr.push(`wrote ${d.info.file}: session ${d.info.sessionId}, ${d.info.messages} messages, ${d.info.parts} parts, ${d.info.bytes} bytes${d.info.redacted ? ', redacted' : ''}${left}`)
        return {stderr: stderr.join('\n')}
      })
    }
    return report
  }
}
