/**
 * The base of every chatdoctor command: shared flags, colour, the exit-status rules and error handling.
 *
 * oclif turns `this.error`/`this.exit` codes into 1 under `--json` (prior-art.md §4.1), so commands never
 * call them: they set `process.exitCode` and return the report. Usage errors (bad flags, arguments) exit 16
 * with a one-line message (and one JSON object under `--json`); unexpected errors exit 8 with a one-line
 * message, the stack only with `DEBUG=chatdoctor`.
 */
import type {CommandError} from '@oclif/core/interfaces'
import {EXIT_OPERATIONAL, EXIT_USAGE} from '../lib/model/exit-codes.js'
import type {ChalkInstance} from 'chalk'
import {Command, Flags} from './oclif.js'
import {shellWord, tildify} from '../lib/fsio/paths.js'
import {usageErrorReport} from '../lib/pipeline/report.js'
import {writeJson} from '../lib/render/json.js'
import {terminalText} from '../lib/render/terminal.js'
import {guardStdout, stdoutWriter, writeStdout} from './stdout.js'
import os from 'node:os'
import path from 'node:path'

/** Thrown for a usage error a command detects itself (exit 16). */
export class UsageError extends Error {
  readonly exit = EXIT_USAGE
}

/**
 * `-q`/`--quiet` and `-v`/`--verbose`, described in the words of the command that takes them: what each
 * leaves out or adds differs between a scan, a repair, an undo and a bundle.
 */
export function quietVerboseFlags(words: {quiet: string; verbose: string}) {
  return {
    quiet: Flags.boolean({char: 'q', description: words.quiet}),
    verbose: Flags.boolean({char: 'v', description: words.verbose}),
  }
}

/**
 * A help text written with line breaks for the source: lines of a paragraph are joined, so oclif wraps them
 * to the terminal; blank lines (paragraphs) and lines starting with `- ` or indentation (lists) are kept.
 */
export function prose(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = strings.reduce((acc, s, i) => acc + String(values[i - 1]) + s)
  return text
    .split(/\n{2,}/)
    .map((para) => para.split('\n').reduce((acc, line) => (acc === '' ? line : /^(- |\s)/.test(line) ? `${acc}\n${line}` : `${acc} ${line}`), ''))
    .join('\n\n')
}

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true

  /** Flags every command takes with the same meaning. `-q`/`-v` differ per command: see `quietVerboseFlags`. */
  static override baseFlags = {
    color: Flags.boolean({allowNo: true, description: 'Colour the output (default: on a TTY unless NO_COLOR or TERM=dumb; the flag wins over both).'}),
  }

  /**
   * oclif reads `--quiet=yes` on a boolean flag as `--quiet` plus an argument `yes` (which `scan` would then
   * take for a PATH and fail on with exit 8). A value on a boolean flag is a usage error (exit 16) instead.
   */
  override async init(): Promise<void> {
    guardStdout()
    await super.init()
    const flags = {...this.ctor.baseFlags, ...this.ctor.flags} as Record<string, {type?: string; allowNo?: boolean}>
    const booleans = new Set<string>()
    for (const [name, f] of Object.entries(flags)) {
      if (f.type !== 'boolean') continue
      booleans.add(name)
      if (f.allowNo) booleans.add(`no-${name}`)
    }
    for (const arg of this.argv) {
      if (arg === '--') break
      const m = /^--([^=]+)=/.exec(arg)
      if (m && booleans.has(m[1])) throw new UsageError(`--${m[1]} takes no value (got "${arg}")`)
    }
  }

  /** The user's home: `HOME` (so tests and sandboxes can point it elsewhere), else the OS's. */
  protected home(): string {
    return process.env.HOME || os.homedir()
  }

  /**
   * A chalk instance for stdout, honouring --no-color, NO_COLOR, TERM=dumb and non-TTY output. chalk is loaded
   * here, on first use, so `--json` runs never load it (start-up).
   */
  protected async chalkFor(flag: boolean | undefined): Promise<ChalkInstance> {
    const {makeChalk, useColor} = await import('../lib/render/style.js')
    return makeChalk(useColor({flag, env: process.env, isTTY: Boolean(process.stdout.isTTY)}))
  }

  /** The columns human output must fit: `COLUMNS`, else the terminal width of `stream` (stdout), else unlimited (`render/width.ts`). */
  protected async width(stream: 'stdout' | 'stderr' = 'stdout'): Promise<number> {
    const {outputWidth} = await import('../lib/render/width.js')
    return outputWidth(stream === 'stdout' ? process.stdout : process.stderr, process.env)
  }

  /**
   * The columns prose written to `stream` is wrapped to: its width (as `width()`), or 80 when nothing bounds it
   * (a pipe, a file; prose is only moved to new lines, never cut).
   */
  protected async proseWidth(stream: 'stdout' | 'stderr' = 'stdout'): Promise<number> {
    const {outputWidth, proseWidth} = await import('../lib/render/width.js')
    return proseWidth(outputWidth(stream === 'stdout' ? process.stdout : process.stderr, process.env))
  }

  /**
   * The usage error for a PATH that names a file no chat holds (not an agent's state file): exit 16, as
   * `inspect` gives for a PATH with no chat.
   */
  protected async notChatFileError(file: string): Promise<UsageError> {
    const [{archiveKindByName}, {ADAPTERS}] = await Promise.all([import('../lib/archive/read.js'), import('../lib/formats/index.js')])
    const name = path.basename(file)
    const document = ADAPTERS.some((a) => a.documents?.mayBeName(name))
    const check = archiveKindByName(file) || document ? `; chatdoctor check ${shellWord(file)} reads bundles and exported documents` : ''
    return new UsageError(`${file} is not a file of any chat chatdoctor knows; give a chat dir, a session file, or a folder above them${check}`)
  }

  /**
   * This run's command line as a user would type it, each argument a shell word, absolute paths under the home
   * written `~/…` (for the reports that name the command they came from).
   */
  protected commandLine(): string {
    const home = this.home()
    return ['chatdoctor', ...(this.id ? this.id.split(':') : []), ...this.argv].map((a) => shellWord(path.isAbsolute(a) ? tildify(a, home) : a)).join(' ')
  }

  /**
   * Prints human output, the one way it is made: `render` gets `data` passed through `forTerminal` (every
   * control character of every string, names and messages alike, escaped as `\uNNNN`), so nothing read from
   * the disk, an archive or the command line reaches the terminal raw. Its stderr text is written first.
   */
  protected async printHuman<T>(data: T, render: (safe: T) => {stdout?: string; stderr?: string}): Promise<void> {
    const {forTerminal} = await import('../lib/render/terminal.js')
    const {stdout, stderr} = render(forTerminal(data))
    if (stderr) this.note(stderr)
    if (stdout) this.out(stdout)
  }

  /** Writes human text to stderr (never data), through `terminalText` (control characters escaped, colour kept). */
  protected note(line: string): void {
    if (line) process.stderr.write(terminalText(line.endsWith('\n') ? line : line + '\n'))
  }

  /** Writes human text to stdout, through `terminalText`. */
  protected out(text: string): void {
    if (text) writeStdout(terminalText(text.endsWith('\n') ? text : text + '\n'))
  }

  /** Writes machine output (JSON, SARIF, JUnit, GitHub workflow commands) to stdout exactly as given. */
  protected outMachine(text: string): void {
    if (text) writeStdout(text.endsWith('\n') ? text : text + '\n')
  }

  /**
   * Prints the `--json` report: the text of `JSON.stringify(json, null, 2)`, the same text oclif prints
   * without a JSON theme, minus oclif's token-by-token colourizer (which took most of the run time on large
   * reports), written a chunk at a time instead of as one string, with blocking writes (`lib/render/json.ts`, `cli/stdout.ts`).
   */
  protected override logJson(json: unknown): void {
    writeJson(json, stdoutWriter())
  }

  protected override async catch(err: CommandError & {exit?: number; oclif?: {exit?: number}}): Promise<unknown> {
    const exit = err.exit ?? err.oclif?.exit
    // oclif's parse errors without an exit-code key of their own (e.g. a flag value not among its options)
    // are CLIParseError instances, which carry `parse`: usage errors too.
    const isUsage = exit === EXIT_USAGE || err instanceof UsageError || (typeof err === 'object' && err !== null && 'parse' in err)
    const message = firstLine(err.message)
    if (isUsage) {
      process.exitCode = EXIT_USAGE
      if (this.jsonEnabled()) {
        this.outMachine(JSON.stringify(usageErrorReport(this.id ?? 'chatdoctor', this.config.version, message), null, 2))
      } else await this.printHuman({message, id: this.id ?? ''}, (d) => ({stderr: `chatdoctor: ${d.message}\n${`Try: chatdoctor ${d.id} --help`.replace(/  +/g, ' ')}`}))
      return undefined
    }
    process.exitCode = EXIT_OPERATIONAL
    if (process.env.DEBUG?.includes('chatdoctor')) this.note(err.stack ?? message)
    // An installation that cannot do the work (its SQLite module does not load) is said as it is, with what to do: not a bug.
    const text = err.name === 'SqliteUnavailable' ? `chatdoctor: ${message}` : `chatdoctor: unexpected error: ${message}. This is a bug; please report it with the command you ran (set DEBUG=chatdoctor for details).`
    if (this.jsonEnabled()) {
      this.outMachine(JSON.stringify({...usageErrorReport(this.id ?? 'chatdoctor', this.config.version, text), exitCode: EXIT_OPERATIONAL}, null, 2))
    } else await this.printHuman({text}, (d) => ({stderr: d.text}))
    return undefined
  }
}

/**
 * oclif's message on one line: its lines joined (a parse error's reason often sits on the second line, e.g.
 * "The following error occurred:" / "Missing required flag output"), without the "See more help" hint.
 */
function firstLine(s: string): string {
  return (s ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^See more help with/i.test(l))
    .join(' ')
    .replace(/^The following errors? occurred: ?/i, '')
}
