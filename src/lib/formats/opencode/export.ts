/**
 * `opencode export` documents (`{info, messages: [{info, parts}]}`, peer-formats.md §1.8): the check of an export
 * file's bytes (the store family's, `opencode-family/export.ts`), and an export-equivalent document built from a
 * session of the JSON tree (so a session of a pre-1.2 store can be moved into a 1.2+ store with `opencode import`).
 *
 * OpenCode 1.1.65's own export of a tree session is exactly: `info` = the session file, `messages` = the
 * message files in id order, each with its part files in id order (`shared/realdata/opencode/1.1.65/`,
 * checked by test). Both functions only read; neither writes.
 */
import {lstatSync, readFileSync, readdirSync} from 'node:fs'
import path from 'node:path'
import type {FileEntry} from '../../model/adapter.js'
import {checkStoreExport, type ExportCheck} from '../opencode-family/export.js'
import {EXPORT_SIZE_CAP_BYTES, OPENCODE, STORAGE, messageFile, partFile, sessionFile} from './layout.js'
import {ExportRefused, exportFromFiles, type TreeExport} from './export-doc.js'
import {sortedNames} from '../../fsio/names.js'

export {EXPORT_SIZE_CAP_BYTES} from './layout.js'
export {ExportRefused, exportFromFiles, type TreeExport} from './export-doc.js'
export type {ExportCheck} from '../opencode-family/export.js'

/** Checks the bytes of an `opencode export` file (`checkStoreExport` with OpenCode's names). Pure; never throws. */
export function checkExport(bytes: Uint8Array): ExportCheck {
  return checkStoreExport(bytes, OPENCODE)
}

/** Reads the names of a folder, [] when it does not exist. */
function list(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort()
  } catch {
    return []
  }
}

/**
 * Builds the `opencode export` document of session `sessionId` from the JSON tree of the data dir `dataDir`
 * (the folder holding `storage/`). Deep-equal after parsing to what OpenCode 1.1.x's own `opencode export`
 * prints for an undamaged session. Damaged message and part files are left out and listed in `omitted`;
 * parts whose message file is gone are not part of the session OpenCode sees and are left out too.
 *
 * Read-only. Throws `ExportRefused` when the session has no session file (`no-session`), its session file is
 * not usable (`session-damaged`: no `info` to export), or its files exceed `capBytes` (`too-large`, default
 * `EXPORT_SIZE_CAP_BYTES`), checked from file sizes before reading any content.
 */
export function exportFromTree(dataDir: string, sessionId: string, capBytes = EXPORT_SIZE_CAP_BYTES): TreeExport {
  const root = path.join(dataDir, STORAGE)
  const project = sortedNames(path.join(root, 'session')).find((p) => list(path.join(root, 'session', p)).includes(`${sessionId}.json`))
  if (project === undefined) throw new ExportRefused('no-session', `no session file for ${sessionId} under ${path.join(root, 'session')}`)
  const rels = [sessionFile(project, sessionId)]
  for (const m of list(path.join(root, 'message', sessionId))) {
    const mid = m.slice(0, -5)
    rels.push(messageFile(sessionId, mid))
    for (const p of list(path.join(root, 'part', mid))) rels.push(partFile(mid, p.slice(0, -5)))
  }
  let bytes = 0
  const stats = rels.map((rel) => {
    const st = lstatSync(path.join(dataDir, rel))
    bytes += st.size
    return {rel, st}
  })
  if (bytes > capBytes) throw new ExportRefused('too-large', `session ${sessionId} holds ${bytes} bytes of files, over the export cap of ${capBytes} bytes`)
  const files: FileEntry[] = stats.map(({rel, st}) => {
    const e: FileEntry = {name: rel, kind: st.isFile() ? 'file' : st.isDirectory() ? 'directory' : st.isSymbolicLink() ? 'symlink' : 'other', bytes: st.size, mtimeMs: st.mtimeMs}
    if (e.kind === 'file') e.data = readFileSync(path.join(dataDir, rel))
    return e
  })
  return exportFromFiles(sessionId, files, bytes)
}

