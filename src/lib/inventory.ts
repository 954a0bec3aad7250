/**
 * Inventory: reads one chat dir into a `ChatDirSnapshot` (lstat of every entry, bytes of the files the adapter
 * needs). The only step of a scan that reads file contents. Read-only; never follows symbolic links.
 */
import {lstat, readdir, readFile} from 'node:fs/promises'
import path from 'node:path'
import type {ChatDirSnapshot, ChatUnit, FileEntry, FormatAdapter} from './formats/adapter.js'
import {printableName} from './paths.js'
import {nonUtf8Names} from './raw-names.js'

function kindOf(st: {isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean}): FileEntry['kind'] {
  if (st.isSymbolicLink()) return 'symlink'
  if (st.isFile()) return 'file'
  if (st.isDirectory()) return 'directory'
  return 'other'
}

/**
 * Reads one chat's entries. Throws only when its folder cannot be listed (the caller reports it); a file that
 * cannot be read gets `readError` and no `data`.
 */
export async function readChat(unit: ChatUnit, adapter: FormatAdapter): Promise<ChatDirSnapshot> {
  const dir = unit.dir
  const dirStat = await lstat(dir)
  // A store's chat names its member files (possibly in subfolders); otherwise list the folder.
  let names = unit.members !== undefined ? [...unit.members] : await readdir(dir)
  if (unit.members === undefined && unit.files !== undefined) {
    const wanted = new Set(unit.files)
    names = names.filter((n) => wanted.has(n))
  }
  // Names that are not valid UTF-8: listed escaped, as kind `other` (never read, never touched).
  const files: FileEntry[] = []
  if (unit.members === undefined) {
    const lossy = new Set<string>()
    for (const raw of await nonUtf8Names(dir, names)) {
      lossy.add(raw.toString('utf8'))
      try {
        const st = await lstat(Buffer.concat([Buffer.from(dir + path.sep), raw]))
        files.push({name: printableName(raw), kind: 'other', bytes: st.size, mtimeMs: st.mtimeMs})
      } catch {
        // vanished
      }
    }
    if (lossy.size > 0) names = names.filter((n) => !lossy.has(n))
  }
  names.sort()
  for (const name of names) {
    const p = path.join(dir, name)
    let st
    try {
      st = await lstat(p)
    } catch {
      continue // vanished between readdir and lstat
    }
    const entry: FileEntry = {name, kind: kindOf(st), bytes: st.size, mtimeMs: st.mtimeMs}
    if (entry.kind === 'file' && adapter.wantsContent(name)) {
      try {
        entry.data = await readFile(p)
      } catch (e) {
        entry.readError = (e as Error).message
      }
    }
    files.push(entry)
  }
  files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return {dir, unit, dirMtimeMs: dirStat.mtimeMs, files}
}
