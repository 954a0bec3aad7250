/**
 * Member paths of archives (tar, zip): normalised to `a/b/c` and checked so that no entry can name anything
 * outside the archive's own root. Used by the reader before any entry is looked at further; nothing is ever
 * written to disk from an archive.
 */

/** A member path, `/`-separated, without `.`, empty segments or a leading `/`. */
export type MemberPath = string

/** Why a member path is refused: it is absolute, climbs out with `..`, or holds a NUL. */
export interface PathRefusal {
  refused: true
  why: string
}

/**
 * Normalises an entry name from an archive header. Backslashes count as separators (archives made on Windows
 * use them, and `..\` escapes there). Refused: absolute paths (`/x`, `C:\x`, `\\server\x`), any `..` segment,
 * NUL bytes, and names that are empty after normalising.
 */
export function normalizeMemberPath(raw: string): {path: MemberPath} | PathRefusal {
  if (raw.includes('\0')) return {refused: true, why: 'the name holds a NUL byte'}
  const p = raw.replace(/\\/g, '/')
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return {refused: true, why: 'absolute path'}
  const segments = p.split('/').filter((s) => s !== '' && s !== '.')
  if (segments.includes('..')) return {refused: true, why: 'the path climbs out of the archive with ".."'}
  if (segments.length === 0) return {refused: true, why: 'empty name'}
  return {path: segments.join('/')}
}

/**
 * Whether an entry name names the archive's root folder itself: `.`, `./` (what `tar -C dir -cf x.tar .` and
 * Python's `shutil.make_archive` write first). Such a directory entry holds nothing to read or refuse; any other
 * kind of entry with such a name stays refused as an empty name. A leading `/` is never the root (absolute).
 */
export function isRootName(raw: string): boolean {
  const p = raw.replace(/\\/g, '/')
  if (p.startsWith('/') || !p.includes('.')) return false
  return p.split('/').every((s) => s === '' || s === '.')
}

/**
 * Resolves a link target (symbolic: relative to the link's folder; hard: relative to the archive root) and says
 * whether it stays inside the archive. Absolute targets never do.
 */
export function resolveLinkTarget(linkPath: MemberPath, target: string, kind: 'symlink' | 'hardlink'): {path: MemberPath} | PathRefusal {
  if (target.includes('\0')) return {refused: true, why: 'the link target holds a NUL byte'}
  const t = target.replace(/\\/g, '/')
  if (t.startsWith('/') || /^[A-Za-z]:/.test(t)) return {refused: true, why: `${kind === 'symlink' ? 'symbolic' : 'hard'} link to an absolute path`}
  const base = kind === 'symlink' ? linkPath.split('/').slice(0, -1) : []
  const out = [...base]
  for (const s of t.split('/')) {
    if (s === '' || s === '.') continue
    if (s === '..') {
      if (out.length === 0) return {refused: true, why: `${kind === 'symlink' ? 'symbolic' : 'hard'} link pointing outside the archive`}
      out.pop()
    } else out.push(s)
  }
  return {path: out.join('/')}
}
