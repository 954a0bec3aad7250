/**
 * Codebuff's account for `inspect`: what most likely happened to a chat's state files, from the report and
 * the tears the inspection located (most likely events first, then the best recovery). Pure.
 */
import type {AgentInspection, TearLocation} from '../../model/inspect.js'
import type {ChatReport, Generation, TornSave} from '../../model/report.js'
import {salvageCommand} from '../../fsio/paths.js'

/** The inspection's account of a Codebuff chat. */
export function inspectChat(r: ChatReport, tears: readonly TearLocation[]): AgentInspection {
  return {account: accountOf(r, tears)}
}

function turns(a: number, b: number): string {
  return a === b ? `turn ${a}` : `turns ${a}–${b}`
}

function roleWords(g: Pick<Generation, 'role' | 'file'>, r: ChatReport): string {
  switch (g.role) {
    case 'primary':
      return 'the primary'
    case 'backup':
      return 'the backup'
    case 'temp':
      return 'a leftover temp'
    case 'embedded':
      return documentsOf(r).some((d) => d.file === g.file) ? 'a complete document inside a damaged state file,' : 'a copy embedded in the transcript'
    default:
      return g.role
  }
}

/** The documents a damaged state file holds, named `<file>@<byte offset>` (embedded generations). */
function documentsOf(r: ChatReport, file?: string): Generation[] {
  return r.generations.filter((g) => g.role === 'embedded' && /@\d+$/.test(g.file) && (file === undefined || g.file.startsWith(`${file}@`)))
}

/** "while saving the state after turn 9", or what can be said of a torn save's turn. */
function savingWords(save: TornSave | undefined): string {
  if (!save) return 'while saving the state'
  const t = save.turns
  switch (save.basis) {
    case 'same-as':
      return `while saving the state after turn ${t![0]} (its surviving bytes are the start of ${save.sameAs})`
    case 'complete':
      return `after writing the complete state of turn ${t![0]}`
    case 'prompts':
      return t![0] === t![1] ? `while saving the state after turn ${t![0]}` : `while saving the state of turn ${t![0]} or a later one, up to turn ${t![1]} (the last prompt in its surviving bytes is turn ${t![0]}'s)`
    case 'unknown':
      return `while saving the state (which turn, it cannot tell: ${save.note})`
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
      if (t.reasons.length === 1 && t.reasons[0] === 'bom') return `${t.file} starts with a UTF-8 byte order mark (an editor or another tool re-saved it); the document after it is complete`
      if (t.reasons.includes('foreign-content')) return `${t.file} holds no JSON document from its first byte: another program's content (text, binary or encrypted data) replaced the state`
      if (t.reasons.includes('trailing-garbage')) return `${t.file} holds a complete document followed by ${t.length} bytes from ${at} that are no document of their own: the stale tail of a longer earlier write (a rewrite that did not truncate the file), or stray bytes`
      if (t.reasons.includes('nul-tail') && !t.reasons.includes('unexpected-end')) return `${t.file} is complete but padded with ${t.nulBytes} zero bytes from ${at}: a crash left its tail unwritten`
      if (t.reasons.includes('nul-run')) return `${t.file} has zeros inside it from ${at}: blocks of it never reached the disk`
      return `${t.file} is damaged from ${at} (${t.reasons.join(', ') || t.class}): its bytes changed after they were written (a bad sector, another program, blocks a crash left unwritten)`
  }
}

/** The plain-language account: most likely events first, then the best recovery. */
export function accountOf(r: ChatReport, tears: readonly TearLocation[]): string {
  const s: string[] = []
  const primary = r.generations.find((g) => g.role === 'primary')
  const backup = r.generations.find((g) => g.role === 'backup')
  const N = r.contextTurns
  const M = r.transcriptTurns
  const of = (n: number | null) => {
    if (n === null) return ''
    if (n === 0) return M === null ? '' : M === 0 ? ' (the transcript has no agent turn)' : ` (none of the transcript's ${M} turns)`
    return M !== null ? ` (turn ${n} of ${M})` : ` (turn ${n})`
  }
  const pTear = tears.find((t) => t.file === primary?.file)
  if (primary?.class === 'missing') {
    s.push(backup ? `The primary state file is missing while a backup exists: the process most likely died between rotating the primary to ${backup.file} and writing the new one.` : 'The primary state file is missing: it was deleted, or the process died before the first save completed.')
  } else if (pTear && documentsOf(r, primary!.file).length > 0) {
    const docs = documentsOf(r, primary!.file)
    const list = docs.map((d) => `${d.file}${d.turns !== null ? ` (turn ${d.turns})` : ` (${d.class})`}`).join(', ')
    s.push(
      pTear.reasons.includes('concatenated')
        ? `${primary!.file} holds ${docs.length} complete documents back to back: ${list}. A second save landed in the file without truncating it (two writers at once, or a rewrite that did not truncate the file); each document is a generation of its own.`
        : `${primary!.file} holds a torn write followed by ${docs.length === 1 ? 'a complete document' : `${docs.length} complete documents`}: ${list}. A save was interrupted and the next one was written after its bytes instead of over them.`,
    )
  } else if (pTear && (pTear.class === 'truncated' || pTear.reasons.includes('unexpected-end') || pTear.reasons.includes('nul-tail'))) {
    s.push(`The process most likely died ${savingWords(primary?.save)}: ${tearWords(pTear)}.`)
  } else if (pTear) {
    // Damage inside the bytes or around a complete document, not a save cut short.
    s.push(`${tearWords(pTear)}.`)
  } else if (r.amnesia?.patterns.includes('placeholder')) {
    s.push("The agent could not read its previous state when the chat was resumed, and the loader's empty placeholder was saved over it (Codebuff #1168).")
  } else if (r.amnesia) {
    const gap = r.amnesia.missingTurns ? `; it remembers nothing of ${turns(r.amnesia.missingTurns[0], r.amnesia.missingTurns[1])}` : ''
    if (r.amnesia.patterns.includes('compaction-wipe')) s.push(`The primary state is complete, but a compaction replaced its history with an empty or near-empty summary${gap}.`)
    else if (r.amnesia.patterns.includes('empty-history')) s.push(`The primary state is complete but its history holds no prompt and no summary: the agent's memory was reset${gap}.`)
    else s.push(`The primary state is complete but amnesiac: a new session replaced the agent's memory, most likely after a failed load of a damaged state${gap}.`)
  } else if (primary?.class === 'contextless') {
    s.push('The primary state parses but holds no agent context.')
  } else if (primary?.class === 'intact') {
    s.push(`The last save of the primary completed${of(primary.turns)}.`)
  }
  for (const t of tears) if (t.file !== primary?.file && (r.generations.find((g) => g.file === t.file)?.role === 'backup' || r.generations.find((g) => g.file === t.file)?.role === 'temp')) s.push(`Also, ${tearWords(t)}.`)
  const completeTemps = r.generations.filter((g) => g.role === 'temp' && g.class === 'intact')
  if (completeTemps.length > 0) s.push(`A process was killed after writing ${completeTemps.map((g) => g.file).join(', ')} and before renaming it into place.`)
  if (backup?.class === 'intact' && (pTear || primary?.class === 'missing')) s.push('The save before it completed (the backup is intact).')
  if (r.winner && r.winner !== primary?.file && r.status !== 'healthy' && r.status !== 'degraded') {
    const w = r.generations.find((g) => g.file === r.winner)
    const salvaged = /^salvage:(.+)$/.exec(r.winner)
    if (salvaged) s.push(`The best state is the lossless salvage of ${salvaged[1]}${of(N)}: every message it holds kept byte for byte, nothing borrowed.`)
    else s.push(`The newest complete state is ${w ? roleWords(w, r) : 'the generation'} ${r.winner}${of(N)}.`)
  }
  if (r.status === 'unrecoverable') s.push('No complete state of the agent context survives.')
  const salv = r.generations.filter((g) => g.salvage)
  for (const g of salv) {
    if (g.role === 'transcript') continue
    const sv = g.salvage!
    s.push(`A salvage of ${g.file} would keep ${sv.messages} whole message${sv.messages === 1 ? '' : 's'}${of(sv.turns)}${sv.candidate ? (sv.lossless ? ', losing nothing that was written' : '') : ', but could not be used as it is'}.`)
  }
  const more = r.findings.find((f) => f.id === 'salvage-more-turns')
  if (more) s.push(`More turns are reachable only with values borrowed from other generations: ${salvageCommand(r.path)} would use that salvage.`)
  const tr = r.generations.find((g) => g.role === 'transcript')
  if (tr && tr.class !== 'intact' && tr.class !== null) {
    const tr0 = r.transcriptRestore
    const ts = tr.salvage
    if (tr0 && /^salvage:/.test(tr0.from) && ts) {
      s.push(`The transcript is torn (the agent would load it as empty); its salvage keeps ${ts.messages} complete message${ts.messages === 1 ? '' : 's'} byte for byte (${tr0.turns} agent turn${tr0.turns === 1 ? '' : 's'})${ts.lossless ? ' and loses nothing that was written' : `${ts.tornElementDropped ? ' and loses the torn message after them' : ''}`}.`)
    } else s.push(tr0 ? `The transcript is torn; ${tr0.from} holds an intact copy with ${tr0.turns} agent turns.` : 'The transcript is torn and no intact copy of it survives.')
  }
  if (r.amnesia && r.amnesia.source) {
    const drops = r.amnesia.restoreDrops ? `, at the cost of ${turns(r.amnesia.restoreDrops[0], r.amnesia.restoreDrops[1])}` : ''
    s.push(`${r.amnesia.source} still holds the older memory up to turn ${r.amnesia.sourceTurns}${drops}.`)
  }
  if (r.status === 'healthy' && s.length <= 1) s.push('Nothing was lost.')
  return s.join(' ')
}
