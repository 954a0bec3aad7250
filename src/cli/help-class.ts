/**
 * chatdoctor's help class (package.json `oclif.helpClass`): oclif's own help, except that help for a command
 * that does not exist (`chatdoctor help scna`, `chatdoctor scna --help`) is a usage error (exit 16) naming the
 * closest command, like the unknown-command hook, instead of oclif's "Command scna not found." (exit 8).
 * Help fits the terminal like all human output (`fitHelp`). Loaded on every help request: it loads nothing of
 * ours but the width helpers until a subject is unknown.
 */
import {createRequire} from 'node:module'
import {fitCommand, fitParts, outputWidth, proseWidth, textWidth} from '../lib/render/width.js'

const require = createRequire(import.meta.url)
const {Help} = require('@oclif/core/help') as typeof import('@oclif/core/help')

/** The columns help is laid out in: as all human output (`COLUMNS`, else the terminal), else 80. */
const helpWidth = () => proseWidth(outputWidth(process.stdout, process.env))

/**
 * Help text in `width` columns: oclif wraps its sections, not the summary line or the examples; a line still
 * too wide is wrapped here, an example (`$ chatdoctor …`) between its shell words with ` \` (it still pastes as
 * one command, each word whole), prose at its spaces with its own indentation.
 */
export function fitHelp(text: string, width: number): string {
  const lines = text.split('\n')
  const out: string[] = []
  for (let i = 0; i < lines.length; i++) {
    let l = lines[i]
    if (textWidth(l) <= width) {
      out.push(l)
      continue
    }
    if (/^ *\$ /.test(l)) {
      out.push(...fitCommand(l, width))
      continue
    }
    // Prose oclif wrapped a little wider than `width`: the rest of its paragraph (the lines after it with the same
    // indentation) is wrapped with it, so no word is left alone on a line between two of oclif's.
    const indent = /^ */.exec(l)![0]
    while (i + 1 < lines.length && isContinuation(lines[i + 1], indent)) l += ' ' + lines[++i].slice(indent.length)
    out.push(...fitParts([l], width, indent))
  }
  return out.join('\n')
}

/** A line that goes on the prose before it: the same indentation, some text, and not a flag, an example or a heading. */
function isContinuation(line: string, indent: string): boolean {
  return line.startsWith(indent) && line.length > indent.length && line[indent.length] !== ' ' && !/^[-$]/.test(line.slice(indent.length)) && indent.length > 0
}

export default class ChatdoctorHelp extends Help {
  constructor(config: ConstructorParameters<typeof Help>[0], opts: ConstructorParameters<typeof Help>[1] = {}) {
    super(config, {...opts, maxWidth: helpWidth()})
  }

  protected override log(...args: string[]): void {
    super.log(...args.map((a) => (typeof a === 'string' ? fitHelp(a, this.opts.maxWidth) : a)))
  }

  override async showHelp(argv: string[]): Promise<void> {
    try {
      await super.showHelp(argv)
    } catch (e) {
      const m = /^Command (.+) not found\.$/.exec((e as Error).message ?? '')
      if (!m) throw e
      const [{unknownCommandMessage, unknownCommandText}, {forTerminal, terminalText}] = await Promise.all([import('./suggest.js'), import('../lib/render/terminal.js')])
      const commands = this.config.commands.filter((c) => !c.hidden).map((c) => c.id)
      const {message, next} = unknownCommandMessage(m[1].split(':')[0], commands)
      // The unknown word comes from the command line: its control characters are escaped like any name.
      process.stderr.write(terminalText(unknownCommandText(forTerminal(message), next, proseWidth(outputWidth(process.stderr, process.env)))))
      process.exitCode = 16
    }
  }
}
