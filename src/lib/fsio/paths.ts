/** Path helpers for reports: the user's home written as `~` (reports get pasted into bug trackers). */
import {realpathSync} from 'node:fs'
import path from 'node:path'

/** `/home/u/x` → `~/x` when `home` is a prefix at a path boundary; otherwise the path unchanged. */
export function tildify(p: string, home: string): string {
  if (!home) return p
  const h = home.endsWith(path.sep) ? home.slice(0, -1) : home
  if (p === h) return '~'
  if (p.startsWith(h + path.sep)) return '~' + p.slice(h.length)
  return p
}

/**
 * Characters a terminal must not be handed raw: C0 (U+0000–U+001F), DEL (U+007F), C1 (U+0080–U+009F), and the
 * invisible and bidirectional formatting characters that reorder or hide what is shown (U+061C, U+200B–U+200F,
 * U+2028, U+2029, U+202A–U+202E, U+2060–U+2064, U+2066–U+2069, U+FEFF).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/
const CONTROLS = new RegExp(CONTROL.source, 'g')

/**
 * A string with every such character written as `\uNNNN`, so it cannot move the cursor, clear the screen,
 * ring the bell, forge a line or reorder what a terminal shows. Everything else is unchanged.
 */
export function escapeControls(s: string): string {
  if (!CONTROL.test(s)) return s
  return s.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/**
 * A name as it can be shown: non-UTF-8 bytes (Linux allows any bytes in names) escaped as `\xNN`, control
 * characters (C0, DEL, C1) as `\uNNNN` (`escapeControls`).
 */
export function printableName(name: string | Buffer): string {
  const buf = typeof name === 'string' ? Buffer.from(name) : name
  let out = ''
  const s = buf.toString('utf8')
  if (Buffer.from(s).equals(buf) && !s.includes('\ufffd')) return escapeControls(s)
  for (const b of buf) out += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`
  return out
}

/**
 * A path (or any argument) as one shell word that gives back exactly its text: as is when every character is
 * safe, else single-quoted with a leading `~/` kept outside the quotes (so the shell still expands it), or
 * `$'…'`-quoted when it holds control characters, which are then escaped (C0 and DEL as `\xNN`, C1 as
 * `\uNNNN`, the character's UTF-8 encoding), never printed raw.
 */
export function shellWord(p: string): string {
  if (/^[\w@%+:,./~-][\w@%+=:,./~#-]*$/.test(p)) return p
  const home = p.startsWith('~/') ? '~/' : ''
  const rest = p.slice(home.length)
  if (CONTROL.test(rest)) {
    const esc = rest.replace(/[\\']/g, (c) => `\\${c}`).replace(CONTROLS, (c) => (c < '\u0080' ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
    return `${home}$'${esc}'`
  }
  return `${home}'${rest.replace(/'/g, `'\\''`)}'`
}

/** The exact command that repairs one chat with salvaged generations allowed. */
export function salvageCommand(chatPath: string): string {
  return `chatdoctor repair --salvage ${shellWord(chatPath)}`
}

/** True when two paths name the same file (equal, or equal once links are resolved; false when either is gone). */
export function samePath(a: string, b: string): boolean {
  if (a === b) return true
  try {
    return realpathSync(a) === realpathSync(b)
  } catch {
    return false
  }
}
