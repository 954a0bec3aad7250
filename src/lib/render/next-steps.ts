/**
 * What to do after a scan, as exact commands a user can paste: `repair --dry-run` over the same PATHs when
 * a chat is repairable (of each chat whose repair would replace a symbolic link or special file, after the
 * step to take by hand), `inspect` of each chat whose agent context is lost or partly lost (at most
 * `MAX_INSPECT_STEPS`, then `scan --verbose`), `repair --salvage` of each chat whose salvage reaches more turns only
 * with borrowed values, `snapshot --forget` of each chat only chatdoctor's snapshots hold (deleted on purpose?). A command wider than the terminal is continued on the next line
 * with a backslash, so it stays exact (a word cut in two is continued at the start of the line, where the
 * shell joins it back; a quoted one is closed and opened again around the cut). A command names the exact
 * files (`exactOf` the escaped data the renderers get): `shellWord` writes a control character as `$'\x1b'`,
 * so the command is pasteable and still nothing reaches the terminal raw.
 */
import type {ChatReport, Report} from '../model/report.js'
import {SALVAGE_MORE_TURNS} from '../model/findings.js'
import {shellWord} from '../fsio/paths.js'
import {UNLIMITED, textWidth, wrapLine} from './width.js'
import {exactOf} from './terminal.js'

/** One suggestion: why, and the arguments after `chatdoctor`. */
export interface NextStep {
  why: string
  argv: string[]
}

export interface NextContext {
  /** The PATHs the scan was given, as typed (a repair of the same PATHs finds the same chats). */
  paths: string[]
  /** The `inspect` arguments that name one chat (default: its path). */
  inspectArgs?: (chat: ChatReport) => string[]
}

/** At most this many `inspect` suggestions; past it, `scan --verbose` over the same PATHs. */
export const MAX_INSPECT_STEPS = 3

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** The finding ids a next step is made from (besides each chat's status): what `tableChat` keeps of a chat's findings. */
export const NEXT_STEP_FINDINGS: ReadonlySet<string> = new Set(['not-a-regular-file', SALVAGE_MORE_TURNS])

/**
 * A repairable chat that a snapshot restores and whose every other generation listed is missing (the table's
 * row lists only the primary): gone from disk, only chatdoctor's snapshots hold it.
 */
export function onlySnapshots(c: ChatReport): boolean {
  return c.status === 'repairable' && (c.winner?.startsWith('snapshot:') ?? false) && c.generations.every((g) => g.role === 'snapshot' || g.class === 'missing')
}

/** The next commands for a scan report (none when every chat is healthy). */
export function nextSteps(report: Report, ctx: NextContext): NextStep[] {
  const steps: NextStep[] = []
  // A chat whose repair would replace a symbolic link or special file is refused until it is moved away by hand.
  const blockedBy = (c: ChatReport) => c.findings.find((f) => f.id === 'not-a-regular-file' && f.severity === 'error')
  const repairable = report.chats.filter((c) => c.status === 'repairable' && !blockedBy(c)).length
  if (repairable > 0) steps.push({why: `Preview the repair of the ${plural(repairable, 'repairable chat')} (writes nothing):`, argv: ['repair', '--dry-run', ...ctx.paths]})
  for (const chat of report.chats.filter(blockedBy).slice(0, MAX_INSPECT_STEPS)) {
    const file = blockedBy(chat)!.file
    steps.push({why: `${file} of ${chat.id} is not a regular file and repair never replaces it: move it away by hand, then preview the repair (writes nothing):`, argv: ['repair', '--dry-run', exactOf(chat).path]})
  }
  // A chat of which only chatdoctor's snapshots are left: restore it, or let it go when it was deleted on purpose.
  for (const chat of report.chats.filter(onlySnapshots).slice(0, MAX_INSPECT_STEPS)) {
    steps.push({why: `${chat.id} is gone from disk and only chatdoctor's snapshots hold it: the repair above writes it back; if it was deleted on purpose, let it go (removes its snapshots):`, argv: ['snapshot', '--forget', exactOf(chat).path]})
  }
  const look = report.chats.filter((c) => c.status === 'unrecoverable' || c.status === 'degraded')
  for (const chat of look.slice(0, MAX_INSPECT_STEPS)) {
    const why = chat.status === 'unrecoverable' ? `Why ${chat.id} lost its agent context, and what survives:` : `Which turns ${chat.id} is missing, and which copy holds them:`
    steps.push({why, argv: ['inspect', ...(ctx.inspectArgs ? ctx.inspectArgs(exactOf(chat)) : [exactOf(chat).path])]})
  }
  // More turns reachable only with a lossy salvage (a torn message dropped, members borrowed): the exact command.
  const salvageable = report.chats.filter((c) => c.findings.some((f) => f.id === SALVAGE_MORE_TURNS))
  for (const chat of salvageable.slice(0, MAX_INSPECT_STEPS)) steps.push({why: `A lossy salvage of ${chat.id} reaches more turns than any intact generation (add --dry-run to preview):`, argv: ['repair', '--salvage', exactOf(chat).path]})
  if (look.length > MAX_INSPECT_STEPS) steps.push({why: `Every finding of the ${plural(look.length - MAX_INSPECT_STEPS, 'other chat')} whose context is lost or incomplete:`, argv: ['scan', '--verbose', ...ctx.paths]})
  return steps
}

/**
 * The pieces of one shell word that join back to the same word (see the module comment): the first at most
 * `firstRoom` columns, the others at most `room`.
 */
function cutWord(word: string, firstRoom: number, room: number): string[] {
  const quoted = /^(~\/)?(\$?')(.*)'$/su.exec(word)
  const open = quoted ? quoted[2] : ''
  const close = quoted ? "'" : ''
  const start = quoted ? (quoted[1] ?? '') + open : ''
  // Units that must stay together: a quote or an escape inside the quotes, or one character.
  const units = quoted ? (quoted[3].match(/'\\''|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|\\.|[^\\]/gsu) ?? []) : Array.from(word)
  const pieces: string[] = []
  let cur = start
  let fresh = true
  for (const u of units) {
    if (!fresh && textWidth(cur + u + close) > (pieces.length === 0 ? firstRoom : room)) {
      pieces.push(cur + close)
      cur = open
      fresh = true
    }
    cur += u
    fresh = false
  }
  pieces.push(cur + close)
  return pieces
}

/**
 * `chatdoctor <argv>` as lines of at most `width` columns (each but the last ending in ` \` or `\`), the first
 * indented by `indent`; one line when it fits.
 */
export function commandLines(argv: string[], width: number, indent = ''): string[] {
  const words = ['chatdoctor', ...argv].map(shellWord)
  const one = indent + words.join(' ')
  if (width === UNLIMITED || textWidth(one) <= width) return [one]
  const cont = indent + '  '
  const lines: string[] = []
  let cur = indent + words[0]
  for (const w of words.slice(1)) {
    // Room is kept for the ` \` that may follow.
    if (textWidth(`${cur} ${w} \\`) <= width) cur = `${cur} ${w}`
    else if (textWidth(`${cont}${w} \\`) <= width) {
      lines.push(`${cur} \\`)
      cur = cont + w
    } else {
      // Too long for any line: cut, the first piece after the indent, the others from column 0.
      lines.push(`${cur} \\`)
      const pieces = cutWord(w, width - cont.length - 2, width - 2)
      pieces.slice(0, -1).forEach((p, k) => lines.push(`${k === 0 ? cont : ''}${p}\\`))
      cur = (pieces.length === 1 ? cont : '') + pieces.at(-1)!
    }
  }
  lines.push(cur)
  return lines
}

/** The "Next:" block: each step's reason, then its command (indented below it), all within `width`. */
export function renderNextSteps(steps: NextStep[], width: number): string[] {
  if (steps.length === 0) return []
  const out = ['', 'Next:']
  for (const s of steps) out.push(...wrapLine(`  ${s.why}`, width, '  '), ...commandLines(s.argv, width, '    '))
  return out
}
