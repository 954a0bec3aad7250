/**
 * What `inspect` says of a Kilo chat: where the session lives and whether its database reads whole, what the WAL
 * holds and lost, and what Kilo's own next start will do to the store. Pure; ids, counts and offsets only.
 */
import type {ChatDirSnapshot} from '../../model/adapter.js'
import type {AgentInspection} from '../../model/inspect.js'
import type {ChatReport, Generation} from '../../model/report.js'
import {databaseSentence, exportSentence, lossSentence, walSentences} from '../opencode-family/account.js'
import {walHolds} from './diagnose.js'
import type {KiloFacts} from './store.js'

/** A damaged export file, in words (an export is what `kilo export` printed, saved by whatever the user ran). */
function exportStory(g: Generation): string {
  const at = g.damage ? ` at byte ${g.damage.offset}` : ''
  if (g.class === 'empty') return `${g.file} is 0 bytes`
  if (g.class === 'zero-filled') return `${g.file} holds only zeros (${g.bytes} bytes)`
  if (g.class === 'truncated') return `${g.file} stops mid-document${at}: the export was cut while it was written or copied`
  return `${g.file} is ${g.class}${g.reasons.length ? ` (${g.reasons.join(', ')})` : ''}${at}`
}

/** The account of one Kilo chat. */
export function kiloAccount(r: ChatReport, snapshot: ChatDirSnapshot): string {
  const s: string[] = []
  const exp = exportSentence(r, exportStory)
  if (exp !== null) {
    s.push(exp)
  } else {
    const facts = snapshot.unit.facts as KiloFacts | undefined
    const db = databaseSentence(r)
    if (facts?.kind === 'gone') {
      // The finding says what is left that still names the lost sessions (Kilo's file diffs).
      const missing = r.findings.find((f) => f.id === 'database-missing')
      s.push(missing ? `${missing.message[0].toUpperCase()}${missing.message.slice(1)}.` : `Kilo's database ${facts.file} is gone from its data dir; nothing of the store can be read.`)
    }
    else if (db !== null) s.push(db)
    if (facts?.kind === 'database') {
      const d = facts.db
      if (d?.class === 'truncated' && d.pages !== null && d.pageSize !== null) s.push(`${facts.file} is cut short: ${d.bytes} of the ${d.pages * d.pageSize} bytes its header records (${Math.floor(d.bytes / d.pageSize)} of ${d.pages} pages); Kilo fails at every start (its checkpoint cannot write the WAL's pages into it) and changes nothing.`)
      else if (d?.class === 'empty') s.push(`${facts.file} is 0 bytes.`)
      else if (d?.class === 'zero-filled') s.push(`${facts.file} holds only zeros (${d.bytes} bytes): its size reached the disk but none of its data.`)
      else if (d?.class === 'corrupt') s.push(`${facts.file} does not start with SQLite's header.`)
      if (facts.wal) s.push(`${facts.file}-wal: ${walHolds(facts.wal)}; Kilo copies the current cycle into ${facts.file} at every start and writes over the rest as it goes.`)
    }
    s.push(...walSentences(r))
  }
  const lost = lossSentence(r)
  if (lost !== null) s.push(lost)
  for (const f of r.findings) if (f.id === 'next-start-loss' && f.severity !== 'info') s.push(`Before Kilo starts again: ${f.message}.`)
  for (const f of r.findings) if (f.id === 'wal-missing') s.push(`${f.message[0].toUpperCase()}${f.message.slice(1)}.`)
  if (r.status === 'healthy' && !r.findings.some((f) => f.severity !== 'info')) s.push('Nothing was lost.')
  return s.join(' ')
}

/** The inspection of a Kilo chat (no line-level picture: the three lists are empty). */
export function inspectKilo(chat: {report: ChatReport; snapshot: ChatDirSnapshot}): Required<AgentInspection> {
  return {damagedLines: [], plannedChanges: [], plans: [], account: kiloAccount(chat.report, chat.snapshot)}
}
