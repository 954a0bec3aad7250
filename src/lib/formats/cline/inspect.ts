/**
 * `inspect`'s plain-language account of a Cline session: what most likely happened to its files, given how
 * Cline writes them (its hub daemon rewrites each file in place: `open` without `O_TRUNC`, one `write`,
 * `ftruncate` to the new length; no temp, no backup, no fsync — new-agents.md §2.4), what Cline's own next
 * start will do with them, and what a repair keeps. Pure; never quotes file contents.
 */
import type {ChatReport, Generation} from '../../model/report.js'
import type {ChatDirSnapshot} from '../../model/adapter.js'
import {analyzeSession, salvageName, type SessionAnalysis} from './diagnose.js'
import {recordFile} from './layout.js'
import type {ClineFacts} from './store.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** What most likely happened to one damaged file, from its class and reasons. */
function tearStory(g: Generation): string {
  const at = g.damage ? `byte ${g.damage.offset}` : 'its end'
  if (g.class === 'empty') return `${g.file} is empty (${g.bytes} bytes): Cline never truncates before it writes, so its own crash does not leave this; the file's new length reached the disk but not its data (Cline does not fsync; a power loss soon after a save), or something else emptied it`
  if (g.class === 'zero-filled') return `${g.file} holds only zeros (${g.bytes} bytes): its length reached the disk but none of its data (Cline does not fsync; typical after a power loss soon after a save)`
  if (g.reasons.includes('trailing-garbage') || g.reasons.includes('concatenated')) {
    return `${g.file} holds a complete document followed by ${g.damage ? plural(g.bytes - g.damage.offset, 'byte') : 'bytes'} of an older, longer one from ${at}: Cline writes new content over the old without truncating first and cuts the file to length afterwards, and the process died between the two`
  }
  if (g.class === 'truncated') {
    return g.reasons.includes('nul-tail')
      ? `${g.file} stops at ${at} and zeros fill the rest: the new length reached the disk but not all of the data (no fsync; a crash or power loss during the save)`
      : `${g.file} stops mid-document at ${at}: the save was cut (a crash, a kill or a power loss while Cline wrote it)`
  }
  if (g.reasons.includes('nul-tail')) return `${g.file} is complete but followed by zeros from ${at}: a crash left its tail unwritten`
  if (g.reasons.includes('nul-run')) return `${g.file} has zeros inside it from ${at}: blocks of a save never reached the disk`
  if (g.reasons.includes('not-a-file')) return `${g.file} is not a regular file (a link, a folder or a special file)`
  if (g.reasons.includes('unreadable')) return `${g.file} could not be read`
  return `${g.file} is ${g.class}${g.reasons.length > 0 ? ` (${g.reasons.join(', ')})` : ''} from ${at}`
}

function conversation(r: ChatReport, a: SessionAnalysis): string[] {
  const s: string[] = []
  const p = a.primary
  const M = r.transcriptTurns
  if (p.class === 'missing') s.push(`${p.file} is missing: Cline's resume finds no conversation.`)
  else if (a.read.read === 'whole' && p.class === 'intact') s.push(`${p.file} is complete: ${plural(p.turns ?? 0, 'turn')} in ${plural(p.measure?.historyLength ?? 0, 'message')}; Cline loads it as written.`)
  else if (a.read.read === 'whole') s.push(`${tearStory(p)}; Cline's reader still loads its ${plural(p.turns ?? 0, 'turn')} as written.`)
  else if (a.read.read === 'lossy') s.push(`${tearStory(p)}; Cline loads its ${plural(p.turns ?? 0, 'turn')} with the invalid bytes replaced by U+FFFD, and its next save writes the replacements.`)
  else s.push(`${tearStory(p)}. Cline's reader takes it as an empty conversation, without a word.`)
  if (a.read.read === 'empty') s.push('Cline keeps no older copy of it (no backup, no temp file): the only way back is what this file still holds.')
  const sv = a.messagesSalvage
  if (sv) {
    const of = M !== null ? ` of ${M}` : ''
    s.push(
      sv.summary.candidate
        ? `A salvage keeps its first ${plural(sv.summary.messages, 'complete message')} byte for byte (${plural(sv.summary.turns ?? 0, 'turn')}${of}) and adds only the closing brackets${sv.summary.tornElementDropped ? '; the torn message is dropped' : ''}.`
        : 'A salvage keeps no complete message.',
    )
  } else if (a.read.read === 'empty' && p.class !== 'missing') s.push('Nothing of it can be salvaged: no complete message survives.')
  if (r.status === 'unrecoverable' && M !== null) s.push(`The session had ${plural(M, 'turn')} (${a.written?.from}); they are lost.`)
  return s
}

/** The account of one Cline session (or of an index entry whose folder is gone). */
export function clineAccount(scanned: {report: ChatReport; snapshot: ChatDirSnapshot}): string {
  const r = scanned.report
  const facts = scanned.snapshot.unit.facts as ClineFacts | undefined
  if (!facts) return 'Not a Cline session this chatdoctor could list.'
  const s: string[] = []
  if (facts.kind === 'index-only') {
    s.push(`The session index lists ${r.id}, but its folder is gone: deleted, or never written. \`cline history\` still shows it; \`cline --id ${r.id}\` starts a new, empty session under that id.`)
  } else {
    const a = analyzeSession(scanned.snapshot, facts)
    s.push(...conversation(r, a))
    const rec = a.record
    if (!rec) s.push(`The session record ${recordFile(r.id)} is missing: Cline writes a new one at the next start.`)
    else if (rec.class !== 'intact') {
      s.push(`${tearStory(rec)}. Cline cannot read the session record and writes a new one from scratch at the next start (title, usage totals and checkpoint history lost).`)
      if (a.recordSalvage?.summary.candidate) s.push(`A salvage of the record keeps the ${plural(a.recordSalvage.summary.bytesKept, 'byte')} before the damage, which Cline's schema accepts.`)
    }
    if (a.read.read === 'empty') {
      s.push(
        r.status === 'repairable'
          ? `Before Cline's next start of this session: its resume would overwrite the damaged file with a new, empty conversation; \`chatdoctor repair\` first writes the salvage (${salvageName(a.primary.file)}), keeping the damaged file as evidence.`
          : "Before Cline's next start of this session: its resume overwrites the files with a new, empty conversation; bundle the session first (`chatdoctor bundle`) to keep what is left.",
      )
    }
    if (facts.index.state === 'read' && facts.index.row === null) s.push('The session index (db/sessions.db) does not list it.')
    if (facts.index.state === 'absent') s.push('There is no session index; Cline rebuilds it from the session folders.')
  }
  if (facts.live.length > 0) s.push(`Cline is running (${facts.live[0].what}): it may rewrite these files at any moment.`)
  if (r.status === 'healthy' && s.length <= 1) s.push('Nothing was lost.')
  return s.join(' ')
}
