/**
 * Names that are not valid UTF-8. Linux allows any bytes in a name; Node lists names as UTF-8 strings, turning
 * bad bytes into U+FFFD, so such an entry cannot be opened under the name Node gives it. Discovery and the
 * inventory use this to show such names escaped (`printableName`: `\xNN`) and never touch them. Read-only.
 */
import {readdir} from 'node:fs/promises'

/**
 * The raw names in `dir` that are not valid UTF-8, given the names a string listing of it returned (only when
 * one of those holds U+FFFD is the folder listed again, as bytes). `[]` when the folder cannot be listed.
 */
export async function nonUtf8Names(dir: string, names: string[]): Promise<Buffer[]> {
  if (!names.some((n) => n.includes('\ufffd'))) return []
  try {
    const raw = await readdir(dir, {encoding: 'buffer'})
    return raw.filter((b) => !Buffer.from(b.toString('utf8')).equals(b))
  } catch {
    return []
  }
}
