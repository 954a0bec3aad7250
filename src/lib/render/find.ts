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

/** One session as human lines (`quiet`: its head line and how to open it only). */
export function hitText(hit: SessionHit, home: string, c: ChalkInstance, opts: {quiet?: boolean} = {}): string {
  const s = hit.session
  const show = (t: string) => escapeControls(printableName(t))
  const head = [c.bold(hit.agent), show(s.id), s.project === null ? null : show(tildify(s.project, home)), s.timeMs === null ? null : isoTime(s.timeMs)].filter((x) => x !== null).join('  ')
  const lines = [head]
  const resume = resumeLine(hit, home)
  if (opts.quiet) return [head, `  ${resume ?? s.howToOpen ?? ''}`].join('\n')
  for (const m of hit.matches) {
    // A chat of several files names the file of each match.
    const where = [hit.namesFile ? show(m.file) : null, m.line === null ? null : `line ${m.line}`].filter((x) => x !== null).join(' ')
    lines.push(`  ${m.role ?? 'text (damaged part)'}${where === '' ? '' : ` (${where})`}: ${m.text}`)
  }
  if (hit.more > 0) lines.push(`  … and ${hit.more} more match${hit.more === 1 ? '' : 'es'}`)
  if (resume !== null) lines.push(`  resume: ${resume}${s.howToOpen ? ` (${s.howToOpen})` : ''}`)
  else if (s.howToOpen) lines.push(`  open: ${s.howToOpen}`)
  if (s.hidden !== null) lines.push(c.yellow(`  not listed by ${hit.agent}'s picker: ${s.hidden}`))
  for (const d of hit.damaged) lines.push(c.yellow(`  damaged: ${show(d)}`))
  lines.push(c.dim(`  ${show(tildify(hit.path, home))}`))
  return lines.join('\n')
}
