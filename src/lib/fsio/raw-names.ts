/**
 * Names that are not valid UTF-8. Linux allows any bytes in a name; Node lists names as UTF-8 strings, turning
 * bad bytes into U+FFFD, so such an entry cannot be opened under the name Node gives it. Discovery and the
 * inventory use this to show such names escaped (`printableName`: `\xNN`) and never touch them. Read-only;
 * synchronous like the inventory.
 */
import {readdirSync} from 'node:fs'

/**
 * The raw names in `dir` that are not valid UTF-8, given the names a string listing of it returned (only when
 * one of those holds U+FFFD is the folder listed again, as bytes). `[]` when the folder cannot be listed.
 */
export function nonUtf8Names(dir: string, names: string[]): Buffer[] {
  if (!names.some((n) => n.includes('\ufffd'))) return []
  try {
    return readdirSync(dir, {encoding: 'buffer'}).filter((b) => !Buffer.from(b.toString('utf8')).equals(b))
  } catch {
    return []
  }
}
