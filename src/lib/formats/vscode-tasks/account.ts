/**
 * `inspect`'s plain-language account of a task folder: what most likely happened to each damaged file (from
 * how the extensions write), what the extension will do with it, and the best recovery. Counts, names and
 * offsets only.
 */
import type {ChatReport, Generation} from '../../model/report.js'
import {API_HISTORY, UI_MESSAGES, leftoverOf} from './layout.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

function story(g: Generation): string {
  const at = g.damage ? ` at byte ${g.damage.offset}` : ''
  switch (g.class) {
    case 'empty':
      return `${g.file} is 0 bytes: its new bytes never reached the disk (a crash or power loss soon after the write; the extensions do not fsync)`
    case 'zero-filled':
      return `${g.file} holds only zeros (${g.bytes} bytes): its size reached the disk but none of its data (a power loss soon after the write)`
    case 'truncated':
      return `${g.file} stops mid-document${at}: the write was cut (an in-place rewrite of an older version, or data lost after a crash)`
    case 'missing':
      return `${g.file} is missing`
    default:
      return `${g.file} is ${g.class}${g.reasons.length ? ` (${g.reasons.join(', ')})` : ''}${at}`
  }
}

/** A message as a sentence: its first letter capitalised, unless it starts with a file name or path. */
function sentence(m: string): string {
  return /^[^\s]*[./_]/.test(m) ? m : `${m[0].toUpperCase()}${m.slice(1)}`
}

/** The account of one task folder's report. */
export function taskAccount(r: ChatReport): string {
  const s: string[] = []
  const primary = r.generations.find((g) => g.role === 'primary')
  const ui = r.generations.find((g) => g.role === 'transcript')
  if (primary && primary.class === 'intact') s.push(`${API_HISTORY} is whole (${plural(primary.turns ?? 0, 'turn')}${r.transcriptTurns !== null ? ` of the transcript's ${r.transcriptTurns}` : ''}).`)
  else if (primary) s.push(`${story(primary)}.`)
  const left = r.generations.filter((g) => (g.role === 'temp' || g.role === 'backup') && g.class !== null)
  const newer = left.filter((g) => leftoverOf(g.file)?.kind !== 'bak')
  const older = left.filter((g) => leftoverOf(g.file)?.kind === 'bak')
  if (newer.length > 0) s.push(`${plural(newer.length, 'leftover')} of a write that never reached its rename hold${newer.length === 1 ? 's' : ''} newer bytes (${newer.map((g) => `${g.file}: ${g.class}${g.turns !== null ? `, ${plural(g.turns, 'turn')}` : ''}`).join('; ')}).`)
  if (older.length > 0) s.push(`The previous version was renamed aside and not deleted again (${older.map((g) => `${g.file}: ${g.class}${g.turns !== null ? `, ${plural(g.turns, 'turn')}` : ''}`).join('; ')}): the write stopped between its two renames.`)
  if (ui && ui.class !== 'intact') s.push(`${story(ui)}.`)
  else if (!ui) s.push(`${UI_MESSAGES} is missing.`)
  if (r.transcriptRestore) s.push(`A repair restores the transcript from ${r.transcriptRestore.from} (${plural(r.transcriptRestore.turns, 'user turn')}, ${plural(r.transcriptRestore.messages, 'message')}).`)
  for (const f of r.findings) if (f.id === 'next-start-loss' || f.id === 'not-in-index' || f.id === 'index-unreadable') s.push(`${sentence(f.message)}.`)
  if (r.status === 'repairable' && r.winner && primary && r.winner !== primary.file) s.push(`The best generation of the model context is ${r.winner} (${plural(r.contextTurns ?? 0, 'turn')}); a repair writes its exact bytes as ${API_HISTORY}, keeping the old file as evidence.`)
  // A salvage that drops the torn message waits for --salvage; say what it would keep.
  const lossy = r.generations.filter((g) => (g.role === 'primary' || g.role === 'backup' || g.role === 'temp') && g.salvage && !r.ranking.some((x) => x.file === `salvage:${g.file}`))
  for (const g of lossy) s.push(`A salvage of ${g.file} would keep ${plural(g.salvage!.messages, 'whole message')} (${plural(g.salvage!.turns ?? 0, 'turn')}) and drop the torn one; chatdoctor repair --salvage writes it when no intact generation holds as many turns.`)
  if (r.status === 'unrecoverable') s.push(lossy.length > 0 ? 'No intact generation of the model context survives.' : 'No generation of the model context survives.')
  if (r.status === 'healthy' && s.length <= 1) s.push('Nothing was lost.')
  return s.join(' ')
}
