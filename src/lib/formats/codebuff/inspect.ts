/**
 * Codebuff's account for `inspect`: what most likely happened to a chat's state files, from the report and
 * the tears the inspection located (most likely events first, then the best recovery). Pure.
 */
import type {AgentInspection, TearLocation} from '../../model/inspect.js'
import type {ChatReport, Role} from '../../model/report.js'

/** The inspection's account of a Codebuff chat. */
export function inspectChat(r: ChatReport, tears: readonly TearLocation[]): AgentInspection {
  return {account: accountOf(r, tears)}
}

function turns(a: number, b: number): string {
  return a === b ? `turn ${a}` : `turns ${a}–${b}`
}

function roleWords(role: Role): string {
  switch (role) {
    case 'primary':
      return 'the primary'
    case 'backup':
      return 'the backup'
    case 'temp':
      return 'a leftover temp'
    case 'embedded':
      return 'a copy embedded in the transcript'
    default:
      return role
  }
}

function tearWords(t: TearLocation): string {
  const at = `byte ${t.offset}${t.blockAligned && t.offset > 0 ? ' (a 4096-byte block boundary)' : ''}`
  switch (t.class) {
    case 'empty':
      return `${t.file} is empty: the process died after creating or truncating it and before writing it`
    case 'zero-filled':
      return `${t.file} holds only zeros (${t.bytes} bytes): its size reached the disk but none of its data, as after a power loss or crash shortly after the save`
    case 'truncated':
      return t.reasons.includes('nul-tail')
        ? `${t.file} stops at ${at} and zeros fill the rest of its ${t.bytes} bytes: the system most likely crashed after the file's size was recorded but before all its data was written`
        : `${t.file} stops mid-document at ${at}: the writing process died (or the disk filled) while saving it`
    default:
      if (t.reasons.includes('nul-tail') && !t.reasons.includes('unexpected-end')) return `${t.file} is complete but padded with ${t.nulBytes} zero bytes from ${at}: a crash left its tail unwritten`
      if (t.reasons.includes('nul-run')) return `${t.file} has zeros inside it from ${at}: blocks of it never reached the disk`
      return `${t.file} is damaged from ${at} (${t.reasons.join(', ') || t.class})`
  }
}

/** The plain-language account: most likely events first, then the best recovery. */
export function accountOf(r: ChatReport, tears: readonly TearLocation[]): string {
  const s: string[] = []
  const primary = r.generations.find((g) => g.role === 'primary')
  const backup = r.generations.find((g) => g.role === 'backup')
  const N = r.contextTurns
  const M = r.transcriptTurns
  const of = (n: number | null) => (n === null ? '' : M !== null ? ` (turn ${n} of ${M})` : ` (turn ${n})`)
  const pTear = tears.find((t) => t.file === primary?.file)
  if (primary?.class === 'missing') {
    s.push(backup ? `The primary state file is missing while a backup exists: the process most likely died between rotating the primary to ${backup.file} and writing the new one.` : 'The primary state file is missing: it was deleted, or the process died before the first save completed.')
  } else if (pTear) {
    const sv = primary?.salvage
    const when = sv?.turns != null ? ` while saving the state after turn ${sv.turns}` : ' while saving the state'
    s.push(`The process most likely died${when}: ${tearWords(pTear)}.`)
  } else if (r.amnesia?.patterns.includes('placeholder')) {
    s.push("The agent could not read its previous state when the chat was resumed, and the loader's empty placeholder was saved over it (Codebuff #1168).")
  } else if (r.amnesia) {
    const gap = r.amnesia.missingTurns ? `; it remembers nothing of ${turns(r.amnesia.missingTurns[0], r.amnesia.missingTurns[1])}` : ''
    s.push(`The primary state is complete but amnesiac: a new session replaced the agent's memory, most likely after a failed load of a damaged state${gap}.`)
  } else if (primary?.class === 'contextless') {
    s.push('The primary state parses but holds no agent context.')
  } else if (primary?.class === 'intact') {
    s.push(`The last save of the primary completed${of(primary.turns)}.`)
  }
  for (const t of tears) if (t.file !== primary?.file && (r.generations.find((g) => g.file === t.file)?.role === 'backup' || r.generations.find((g) => g.file === t.file)?.role === 'temp')) s.push(`Also, ${tearWords(t)}.`)
  const completeTemps = r.generations.filter((g) => g.role === 'temp' && g.class === 'intact')
  if (completeTemps.length > 0) s.push(`A process was killed after writing ${completeTemps.map((g) => g.file).join(', ')} and before renaming it into place.`)
  if (backup?.class === 'intact' && (pTear || primary?.class === 'missing')) s.push('The save before it completed (the backup is intact).')
  if (r.winner && r.status !== 'healthy' && r.status !== 'degraded') {
    const w = r.generations.find((g) => g.file === r.winner)
    s.push(`The newest complete state is ${w ? roleWords(w.role) : 'the generation'} ${r.winner}${of(N)}.`)
  }
  if (r.status === 'unrecoverable') s.push('No complete state of the agent context survives.')
  const salv = r.generations.filter((g) => g.salvage)
  for (const g of salv) {
    const sv = g.salvage!
    s.push(`A salvage of ${g.file} would keep ${sv.messages} whole message${sv.messages === 1 ? '' : 's'}${sv.turns !== null ? of(sv.turns) : ''}${sv.candidate ? '' : ', but could not be used as it is'}.`)
  }
  const tr = r.generations.find((g) => g.role === 'transcript')
  if (tr && tr.class !== 'intact' && tr.class !== null) {
    s.push(r.transcriptRestore ? `The transcript is torn; ${r.transcriptRestore.from} holds an intact copy with ${r.transcriptRestore.turns} agent turns.` : 'The transcript is torn and no intact copy of it survives.')
  }
  if (r.amnesia && r.amnesia.source) {
    const drops = r.amnesia.restoreDrops ? `, at the cost of ${turns(r.amnesia.restoreDrops[0], r.amnesia.restoreDrops[1])}` : ''
    s.push(`${r.amnesia.source} still holds the older memory up to turn ${r.amnesia.sourceTurns}${drops}.`)
  }
  if (r.status === 'healthy' && s.length <= 1) s.push('Nothing was lost.')
  return s.join(' ')
}
