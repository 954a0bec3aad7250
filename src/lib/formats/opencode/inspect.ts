/**
 * OpenCode's account for `inspect`: the session's files (session file, message and part files, or the
 * database) and what each damaged one costs; the timeline lists every file with its class. Pure.
 */
import type {AgentInspection} from '../../model/inspect.js'
import type {ChatReport, Generation} from '../../model/report.js'
import {databaseSentence, exportSentence, lossSentence, walSentences} from '../opencode-family/account.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** The inspection of an OpenCode session (no line-level picture: the three lists are empty). */
export function inspectSession(r: ChatReport): Required<AgentInspection> {
  return {damagedLines: [], plannedChanges: [], plans: [], account: openCodeAccount(r)}
}

function fileStory(g: Generation): string {
  const at = g.damage ? ` at byte ${g.damage.offset}` : ''
  switch (g.class) {
    case 'empty':
      return `${g.file} is 0 bytes: OpenCode overwrites its files in place with no temp file, and the process died between truncating and writing it`
    case 'zero-filled':
      return `${g.file} holds only zeros (${g.bytes} bytes): its size reached the disk but none of its data (a crash or power loss soon after an in-place overwrite)`
    case 'truncated':
      return `${g.file} stops mid-document${at}: the in-place overwrite was cut`
    default:
      return `${g.file} is ${g.class}${g.reasons.length ? ` (${g.reasons.join(', ')})` : ''}${at}`
  }
}

function openCodeAccount(r: ChatReport): string {
  const s: string[] = []
  const exp = exportSentence(r, fileStory)
  const db = exp === null ? databaseSentence(r) : null
  if (exp !== null) s.push(exp)
  else if (db !== null) {
    s.push(db)
    s.push(...walSentences(r))
  } else {
    const session = r.generations.find((g) => g.role === 'primary')
    const messages = r.generations.filter((g) => g.role === 'message')
    const parts = r.generations.filter((g) => g.role === 'part')
    s.push(`The session spreads over ${session && session.class !== 'missing' ? 'a session file' : 'no session file'}, ${plural(messages.length, 'message file')} and ${plural(parts.length, 'part file')}.`)
    if (session?.class === 'missing') s.push('Its session file is gone (deleted, or never written): OpenCode cannot list the session, though its messages survive on disk.')
    const bad = r.generations.filter((g) => (g.role === 'primary' || g.role === 'message' || g.role === 'part') && g.class !== null && g.class !== 'intact' && g.class !== 'missing')
    for (const g of bad) s.push(`${fileStory(g)}.`)
    if (bad.some((g) => g.role === 'primary')) s.push('OpenCode stops listing sessions at a damaged session file, so every session of the store disappears from its list.')
    else if (bad.length > 0) s.push('OpenCode fails to open the session until the damaged files are moved out of the tree (what `repair` does, keeping them as evidence).')
  }
  const lost = lossSentence(r)
  if (lost !== null) s.push(lost)
  if (r.findings.some((f) => f.id === 'not-in-database')) s.push('The session exists only in the legacy JSON tree; OpenCode 1.16 and later will not import it.')
  if (r.status === 'healthy' && s.length <= 1) s.push('Nothing was lost.')
  return s.join(' ')
}
