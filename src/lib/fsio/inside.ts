/**
 * Containment of paths read back from disk (a manifest, the repair log): a name is used only when it is a plain
 * relative name (no absolute path, no drive letter, no `..` or `.` or empty component, no backslash, no NUL)
 * and, resolved below its root, every folder on the way is a real folder, never a symbolic link. Read-only.
 */
import path from 'node:path'
import type {FileSystem} from './fs.js'

/** Why `rel` is not a plain relative name (null when it is). */
export function notPlain(rel: unknown): string | null {
  if (typeof rel !== 'string' || rel === '') return 'is empty or not a name'
  if (rel.includes('\0')) return 'holds a NUL byte'
  if (path.posix.isAbsolute(rel) || path.win32.isAbsolute(rel) || /^[A-Za-z]:/.test(rel)) return 'is an absolute path'
  if (rel.includes('\\')) return 'holds a backslash'
  const parts = rel.split('/')
  if (parts.includes('..')) return "has a '..' component"
  if (parts.some((p) => p === '' || p === '.')) return "has an empty or '.' component"
  return null
}

/** What the last component of a resolved name may be. */
export type LastKind = 'file' | 'file-or-absent' | 'directory'

/**
 * Resolves `rel` below `root` (an absolute real folder): every intermediate component must be a folder (not a
 * symbolic link; an absent one is allowed only for `file-or-absent`, when the file would be created), the last
 * one of kind `last`. Returns the absolute path, or why not.
 */
export async function resolveInside(fs: FileSystem, root: string, rel: string, last: LastKind): Promise<{path: string} | {why: string}> {
  const bad = notPlain(rel)
  if (bad) return {why: `${JSON.stringify(rel)} ${bad}`}
  const parts = rel.split('/')
  let cur = root
  for (const [i, part] of parts.entries()) {
    cur = path.join(cur, part)
    const isLast = i === parts.length - 1
    let kind: string
    try {
      kind = (await fs.lstat(cur)).kind
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === 'ENOENT' && last === 'file-or-absent') return {path: path.join(root, ...parts)}
      return {why: `${rel}: ${code === 'ENOENT' ? `${path.relative(root, cur)} does not exist` : `${path.relative(root, cur)} cannot be checked (${code ?? 'error'})`}`}
    }
    if (kind === 'symlink') return {why: `${rel}: ${path.relative(root, cur)} is a symbolic link`}
    const want = isLast ? (last === 'directory' ? 'directory' : 'file') : 'directory'
    if (kind !== want) return {why: `${rel}: ${path.relative(root, cur)} is not a ${want === 'file' ? 'regular file' : 'folder'}`}
  }
  return {path: cur}
}
