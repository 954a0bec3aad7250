/**
 * `find`'s output: each session with a match as a few lines (human), or as one entry of the `--json` report's
 * `sessions`. Every text that came from disk (ids, projects, paths, matching lines) is shown with its control
 * characters escaped; the resume command is made of shell words, so it can be pasted as it is.
 */
import type {ChalkInstance} from 'chalk'
import type {SessionHit} from '../pipeline/find.js'
import {escapeControls} from '../fsio/paths.js'
import {printableName, shellWord, tildify} from '../fsio/paths.js'
import {isoTime} from '../model/time-text.js'
import {UNLIMITED, fitParts, type Whole} from './width.js'

/** The resume command as one line a shell runs: `cd <project> && <argv>`, each argument a shell word. */
export function resumeLine(hit: SessionHit, home: string): string | null {
  const r = hit.session.resume
  if (r === null) return null
  const cmd = r.argv.map((a) => shellWord(a)).join(' ')
  return r.cwd === null ? cmd : `cd ${shellWord(tildify(r.cwd, home))} && ${cmd}`
}

/** One session's entry in the `--json` report. */
export function hitJson(hit: SessionHit, home: string) {
  const s = hit.session
  return {
    agent: hit.agent,
    format: hit.format,
    sessionId: s.id,
    project: s.project === null ? null : tildify(s.project, home),
    lastTime: s.timeMs === null ? null : isoTime(s.timeMs),
    path: tildify(hit.path, home),
    resume: s.resume === null ? null : {argv: s.resume.argv, cwd: s.resume.cwd === null ? null : tildify(s.resume.cwd, home), command: resumeLine(hit, home)!},
    howToOpen: s.howToOpen ?? null,
    hiddenFromPicker: s.hidden,
    damaged: hit.damaged,
    matches: hit.matches,
    moreMatches: hit.more,
  }
}

/**
 * One session as human lines (`quiet`: its head line and how to open it only), its prose wrapped to `width`
 * columns; the project, the resume command and the session's path are never broken (one that does not fit
 * stands on a line of its own).
 */
export function hitText(hit: SessionHit, home: string, c: ChalkInstance, opts: {quiet?: boolean; width?: number} = {}): string {
  const s = hit.session
  const width = opts.width ?? UNLIMITED
  const show = (t: string) => escapeControls(printableName(t))
  const fit = (parts: Array<string | Whole>, hang?: string) => fitParts(parts, width, hang)
  const headParts: Array<string | Whole> = [{whole: c.bold(hit.agent)}, '  ', {whole: show(s.id)}]
  if (s.project !== null) headParts.push('  ', {whole: show(tildify(s.project, home))})
  if (s.timeMs !== null) headParts.push('  ', isoTime(s.timeMs))
  const lines = fit(headParts)
  const resume = resumeLine(hit, home)
  if (opts.quiet) return [...lines, `  ${resume ?? s.howToOpen ?? ''}`].join('\n')
  for (const m of hit.matches) {
    // A chat of several files names the file of each match.
    const where = [hit.namesFile ? show(m.file) : null, m.line === null ? null : `line ${m.line}`].filter((x) => x !== null).join(' ')
    lines.push(...fit([`  ${m.role ?? 'text (damaged part)'}${where === '' ? '' : ` (${where})`}: ${m.text}`], '    '))
  }
  if (hit.more > 0) lines.push(`  … and ${hit.more} more match${hit.more === 1 ? '' : 'es'}`)
  if (resume !== null) lines.push(...fit(['  resume: ', {whole: resume}, s.howToOpen ? ` (${s.howToOpen})` : ''], '    '))
  else if (s.howToOpen) lines.push(...fit([`  open: ${s.howToOpen}`], '    '))
  if (s.hidden !== null) lines.push(...fit([`  not listed by ${hit.agent}'s picker: ${s.hidden}`], '    ').map((l) => c.yellow(l)))
  for (const d of hit.damaged) lines.push(...fit([`  damaged: ${show(d)}`], '    ').map((l) => c.yellow(l)))
  lines.push(c.dim(`  ${show(tildify(hit.path, home))}`))
  return lines.join('\n')
}
