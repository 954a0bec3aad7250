import {BaseCommand, UsageError, prose, quietVerboseFlags} from '../cli/base.js'
import {Args, Flags} from '../cli/oclif.js'
import {firstOf, fromAdapters, listed, wrap} from '../cli/help.js'
import {ADAPTERS} from '../lib/formats/index.js'
import {EXIT_OPERATIONAL} from '../lib/model/exit-codes.js'
import type {Report} from '../lib/model/report.js'
import {escapeControls, printableName, tildify} from '../lib/fsio/paths.js'
import {findSessions, type SessionHit} from '../lib/pipeline/find.js'
import {buildReport} from '../lib/pipeline/report.js'

/** Exit status of a search that found no session. */
export const EXIT_NO_MATCH = 1

export default class Find extends BaseCommand {
  static override summary = "Find a session by what was said in it, in every agent's sessions, and the command that resumes it. Read-only."

  static override description = prose`Searches the prompts and answers of every session of ${listed(fromAdapters((_h, a) => (a.find ? a.displayName : undefined)))}
${wrap(`(with no --path, their default folders: ${listed(fromAdapters((h, a) => (a.find ? h.roots : undefined)))}).`)}

A session matches when one prompt or answer holds every TEXT argument, in any case (quote words to match
them as one phrase: "parser fails"); with --regex the one TEXT is a JavaScript regular expression, matched
case-insensitively. Only the decoded text of prompts and answers is matched: never JSON keys or syntax,
tool calls or their output, or text the agent injects (system context).

For each session with a match it prints the agent, the session id, its project, its last time, the matching
lines (shortened, control characters escaped) and the agent's own way to open it again, and says when the
agent's own picker does not list it:
${fromAdapters((h, a) => (a.find ? h.find : undefined)).map((l) => `- ${l}`).join('\n')}

A searched file that is damaged is said to be (then only what is readable in it was searched), on its
session when it matched, and counted in the closing line either way (--verbose names each). Files are read
in bounded chunks as they stream; nothing is written.

Exit status: 0 a session matched, 1 none matched, 8 (added to the above) a path or file could not be read, 16
usage error.`

  static override examples = [
    '<%= config.bin %> find parser fails',
    '<%= config.bin %> find "rename the todo store"',
    "<%= config.bin %> find --regex 'todo ?store\\b' --json",
    `<%= config.bin %> find migration --path ${firstOf((h) => h.examples?.chats, './chats')}`,
  ]

  static override args = {
    text: Args.string({ignoreStdin: true, description: 'Words a prompt or answer must all hold (any case), or one regular expression with --regex.', required: false}),
  }

  static override flags = {
    ...quietVerboseFlags({
      quiet: 'Print each session and its resume command only: no matching lines, no closing line.',
      verbose: 'Print every matching line of each session (not only the first --max-matches).',
    }),
    regex: Flags.boolean({description: 'Take the one TEXT as a regular expression (JavaScript syntax, case-insensitive).'}),
    path: Flags.string({description: "Search here instead of the agents' default folders (a session file, a chat dir, or a folder above them); repeatable.", multiple: true}),
    'max-matches': Flags.integer({description: 'Matching lines shown per session.', min: 1, default: 3}),
  }

  static override strict = false

  async run(): Promise<Report> {
    const {argv, flags} = await this.parse(Find)
    const words = (argv as string[]).filter((w) => w.trim() !== '')
    if (words.length === 0) throw new UsageError('give the text to find (chatdoctor find WORDS…)')
    let regex: RegExp | null = null
    if (flags.regex) {
      if (words.length !== 1) throw new UsageError('--regex takes one TEXT (quote the expression)')
      try {
        regex = new RegExp(words[0], 'iu')
      } catch (e) {
        throw new UsageError(`--regex: ${(e as Error).message}`)
      }
    }
    const home = this.home()
    const json = this.jsonEnabled()
    const [{hitJson, hitText}, c, width, noteWidth, {fitParts}] = await Promise.all([import('../lib/render/find.js'), json ? Promise.resolve(null) : this.chalkFor(undefined), this.width(), this.width('stderr'), import('../lib/render/width.js')])
    const sessions: ReturnType<typeof hitJson>[] = []
    let shown = 0
    const onSession = (hit: SessionHit) => {
      if (json) sessions.push(hitJson(hit, home))
      else this.out(`${shown++ === 0 || flags.quiet ? '' : '\n'}${hitText(hit, home, c!, {quiet: flags.quiet, width})}`)
    }
    const result = await findSessions(flags.path ?? [], {words: regex ? [] : words, regex}, ADAPTERS, {home, env: process.env, maxMatches: flags.verbose ? Number.MAX_SAFE_INTEGER : flags['max-matches'], onSession})
    if (result.notChatFiles.length > 0) throw await this.notChatFileError(result.notChatFiles[0])
    const errors = result.errors.map((e) => ({...e, path: tildify(e.path, home)}))
    const code = (result.stats.sessions > 0 ? 0 : EXIT_NO_MATCH) | (errors.length > 0 ? EXIT_OPERATIONAL : 0)
    process.exitCode = code
    const s = result.stats
    if (!json) {
      const errorWidth = await this.width('stderr')
      for (const e of errors) this.note(fitParts(['chatdoctor: ', {whole: e.path}, `: ${e.message}`], errorWidth).join('\n'))
      const where = result.roots.filter((r) => r.present).length === 0 ? ` (none of the folders searched exists: ${result.roots.map((r) => tildify(r.path, home)).join(', ')})` : ''
      const mib = (s.bytes / (1 << 20)).toFixed(1)
      if (flags.verbose) for (const d of result.damagedFiles) this.note(fitParts(['chatdoctor: ', {whole: escapeControls(printableName(tildify(d.path, home)))}, `: ${escapeControls(d.why)}`], errorWidth).join('\n'))
      const partly = s.damaged === 0 ? '' : `; ${s.damaged} file${s.damaged === 1 ? ' was' : 's were'} damaged or too large, and only what is readable in ${s.damaged === 1 ? 'it' : 'them'} was searched (${flags.verbose ? 'listed above' : `--verbose lists ${s.damaged === 1 ? 'it' : 'them'}`}; chatdoctor scan says what brings ${s.damaged === 1 ? 'it' : 'them'} back)`
      if (!flags.quiet) this.note(fitParts([`${s.sessions === 0 ? 'No session matched' : `${s.sessions} session${s.sessions === 1 ? '' : 's'} matched`}; searched ${s.chats} chat${s.chats === 1 ? '' : 's'}, ${s.files} file${s.files === 1 ? '' : 's'}, ${mib} MiB${where}${partly}.`], noteWidth).join('\n'))
    }
    return {
      ...buildReport({command: 'find', version: this.config.version, chats: [], skipped: result.skipped.map((k) => ({...k, path: tildify(k.path, home)})), errors, exitCode: code}),
      roots: result.roots.map((r) => ({...r, path: tildify(r.path, home)})),
      query: {words: regex ? [] : words, regex: regex ? words[0] : null},
      sessions,
      searched: {chats: s.chats, files: s.files, bytes: s.bytes, damaged: s.damaged, damagedFiles: result.damagedFiles.map((d) => ({path: tildify(d.path, home), why: d.why}))},
    }
  }
}
