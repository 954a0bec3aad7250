/**
 * The sentences of `inspect`'s account that every member of the family shares: a session of a database, an
 * export file, the context its structure loses, and what the write-ahead log lost. Pure; ids, counts and
 * offsets only, never message text.
 */
import type {ChatReport, Generation} from '../../model/report.js'

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`

/** The account of an export file (`story` tells what a damaged one looks like), or null when the chat is not one. */
export function exportSentence(r: ChatReport, story: (g: Generation) => string): string | null {
  const exp = r.generations.find((g) => g.role === 'export')
  if (!exp) return null
  return exp.class === 'intact' ? `The export file ${exp.file} is whole${r.contextTurns !== null ? ` (${plural(r.contextTurns, 'user turn')})` : ''}.` : `The export file is damaged: ${story(exp)}.`
}

/** The account of a session of a database, or null when the chat is not one. */
export function databaseSentence(r: ChatReport): string | null {
  if (!r.generations.some((g) => g.role === 'database')) return null
  const dmg = r.findings.filter((f) => f.id === 'database-damaged' || f.id === 'database-unreadable')
  return dmg.length === 0 ? `The session lives in the database ${r.winner ?? ''}, which passes its integrity check (read on a private copy).` : `The session's database is damaged: ${dmg[0].message}.`
}

/** What the WAL lost and an unfinished last turn, one sentence each. */
export function walSentences(r: ChatReport): string[] {
  const out: string[] = []
  for (const f of r.findings) {
    if (f.id === 'turn-rolled-back') out.push(`SQLite rolled the session back without a word: ${f.message}.`)
    else if (f.id === 'wal-torn') out.push(`The write-ahead log lost writes: ${f.message}.`)
    else if (f.id === 'turn-unfinished') out.push(`The last turn never finished: ${f.message}.`)
  }
  return out
}

/** The context the session's structure loses, in one sentence, or null when it loses none. */
export function lossSentence(r: ChatReport): string | null {
  const lost = r.findings.filter((f) => f.id === 'tool-output-missing' || f.id === 'message-without-parts' || f.id === 'parent-missing' || f.id === 'orphan-parts')
  return lost.length > 0 ? `The structure loses context: ${lost.map((f) => f.message).join('; ')}.` : null
}
