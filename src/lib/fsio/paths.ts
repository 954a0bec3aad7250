/** Path helpers for reports: the user's home written as `~` (reports get pasted into bug trackers). */
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
 * A name as it can be shown: non-UTF-8 bytes (Linux allows any bytes in names) escaped as `\xNN`, control
 * characters as `\uNNNN`.
 */
export function printableName(name: string | Buffer): string {
  const buf = typeof name === 'string' ? Buffer.from(name) : name
  let out = ''
  const s = buf.toString('utf8')
  if (Buffer.from(s).equals(buf) && !s.includes('\ufffd')) {
    for (const ch of s) out += ch < ' ' || ch === '\u007f' ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}` : ch
    return out
  }
  for (const b of buf) out += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`
  return out
}

/**
 * A path (or any argument) as one shell word that gives back exactly its text: as is when every character is
 * safe, else single-quoted with a leading `~/` kept outside the quotes (so the shell still expands it), or
 * `$'…'`-quoted when it holds control characters (which are then escaped, never printed raw).
 */
export function shellWord(p: string): string {
  if (/^[\w@%+:,./~-][\w@%+=:,./~#-]*$/.test(p)) return p
  const home = p.startsWith('~/') ? '~/' : ''
  const rest = p.slice(home.length)
  if (/[\u0000-\u001f\u007f]/.test(rest)) {
    const esc = rest.replace(/[\\']/g, (c) => `\\${c}`).replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
    return `${home}$'${esc}'`
  }
  return `${home}'${rest.replace(/'/g, `'\\''`)}'`
}

/** The exact command that repairs one chat with salvaged generations allowed. */
export function salvageCommand(chatPath: string): string {
  return `chatdoctor repair --salvage ${shellWord(chatPath)}`
}
