/**
 * `chatdoctor check`: the `scan` diagnosis over chat dirs, folders, and exported bundles (`.tar`, `.tar.gz`,
 * `.tgz`, `.zip`, with or without a `chatdoctor-bundle.json` manifest), for CI. Read-only; archives are read in
 * memory (archive/read.ts), never extracted.
 *
 * For a bundle with a manifest: every file listed must be there with its size and sha256
 * (`manifest-missing-file`, `manifest-mismatch`), nothing else may be (`manifest-extra-file`), and the
 * manifest's exact `mtimeMs` values replace the archive's rounded ones for ranking. Without a manifest, chats
 * are found inside the archive with the same discovery rules as on disk. Then each chat is diagnosed by its
 * format adapter, exactly as `scan` does (`adapter.diagnose` over a snapshot).
 *
 * Every member of an archive is accounted for: read into a chat (or a chat the adapter skipped, in `skipped`
 * with its reason), named in `errors[]` with why (refused, hidden under a link or a file, a duplicate name: see
 * `archive/read.ts`; a manifest mismatch), or, when it is part of no chat, listed in `skipped` per folder
 * ("not part of any chat").
 */
import {open, readdir, readFile, realpath, stat} from 'node:fs/promises'
import path from 'node:path'
import {archiveKindByName, readArchive, type ArchiveLimits, type ArchiveMember} from '../archive/read.js'
import {withExtracted} from '../archive/extract.js'
import {MANIFEST_NAME, ManifestSchema, type Manifest} from './bundle/manifest.js'
import {MAX_DEPTH, mayEnter} from './discover.js'
import {EXIT_REPAIRABLE} from '../model/exit-codes.js'
import type {ChatDirSnapshot, ChatUnit, DocumentKind, FileEntry, FormatAdapter} from '../model/adapter.js'
import {ADAPTERS, adapterByName} from '../formats/index.js'
import {readChatSync} from './inventory.js'
import {finding, reaches, worstSeverity} from '../model/findings.js'
import type {ChatReport, Finding, OperationalError, Severity, Skipped} from '../model/report.js'
import {tildify} from '../fsio/paths.js'
import {scanExitCode} from './report.js'
import {scanPaths} from './scan.js'

export interface CheckOptions {
  home: string
  env: NodeJS.ProcessEnv
  limits: ArchiveLimits
  adapters?: readonly FormatAdapter[]
}

/** One diagnosed chat with where it lives, for the CI renderers. */
export interface CheckedChat {
  report: ChatReport
  snapshot: ChatDirSnapshot
  /** Absolute path of the chat: its dir, or `<bundle>/<member folder>` inside an archive. */
  location: string
  /** Absolute path of what groups it: the bundle, or the folder holding the chat dir. */
  suite: string
  /** Absolute path of the bundle it came from, or null. */
  bundle: string | null
  /**
   * Absolute path the chat's file names (`generations[].file`, `findings[].file`) are relative to, when it is
   * not `location` (a one-file session or an export: its folder; an OpenCode session: its data dir).
   */
  filesDir?: string
}

/** An operational error with a finding id and absolute location (sets exit bit 8). */
export interface CheckError extends OperationalError {
  id: string
  location: string
  suite: string
}

export interface CheckResult {
  chats: CheckedChat[]
  skipped: Skipped[]
  errors: CheckError[]
}

const byPath = (a: {path: string}, b: {path: string}) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)

function untildify(p: string, home: string): string {
  return p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p
}

/** The adapters' document kinds (`FormatAdapter.documents`), in registry order. */
function documentKinds(adapters: readonly FormatAdapter[]): DocumentKind[] {
  return adapters.flatMap((a) => (a.documents ? [a.documents] : []))
}

/** The first document kind whose name rule takes `name` and whose content rule takes `data`'s first bytes. */
function documentFor(kinds: readonly DocumentKind[], name: string, data: Uint8Array): DocumentKind | undefined {
  return kinds.find((k) => k.mayBeName(name) && k.looksLike(data.subarray(0, k.sniffBytes)))
}

/**
 * Archives and single-file documents (by name and content, `FormatAdapter.documents`) below a folder (not
 * following links; the discovery's depth and dot-folder rules; the folders that hold an agent's own files are
 * not searched for documents).
 */
async function findArchives(dir: string, depth: number, adapters: readonly FormatAdapter[], out: string[], exports: Map<string, DocumentKind>): Promise<void> {
  const kinds = documentKinds(adapters)
  const skip = new Set(kinds.flatMap((k) => k.skipFolders))
  let entries
  try {
    entries = await readdir(dir, {withFileTypes: true})
  } catch {
    return // scanPaths reports unreadable folders
  }
  for (const e of entries) {
    const p = path.join(dir, e.name)
    if (e.isFile() && archiveKindByName(e.name)) out.push(p)
    else if (e.isFile() && kinds.some((k) => k.mayBeName(e.name))) {
      const kind = await sniffDocument(p, kinds.filter((k) => k.mayBeName(e.name)))
      if (kind && !exports.has(p)) exports.set(p, kind)
    } else if (e.isDirectory() && depth < MAX_DEPTH && mayEnter(dir, e.name, adapters) && !skip.has(e.name)) await findArchives(p, depth + 1, adapters, out, exports)
  }
}

/** The first of `kinds` whose content rule takes a file's first bytes; undefined when none or unreadable. */
async function sniffDocument(file: string, kinds: readonly DocumentKind[]): Promise<DocumentKind | undefined> {
  try {
    const fh = await open(file, 'r')
    try {
      const head = Buffer.alloc(Math.max(...kinds.map((k) => k.sniffBytes)))
      const {bytesRead} = await fh.read(head, 0, head.length, 0)
      return kinds.find((k) => k.looksLike(head.subarray(0, Math.min(bytesRead, k.sniffBytes))))
    } catch {
      return undefined
    } finally {
      await fh.close()
    }
  } catch {
    return undefined
  }
}

/**
 * Diagnoses one single-file document on disk as a chat. An unreadable file is an operational error. Reads the
 * file whole (a document is one JSON document).
 */
async function checkExportFile(file: string, kind: DocumentKind, opts: CheckOptions, result: CheckResult): Promise<void> {
  let data: Buffer
  let mtimeMs: number
  try {
    data = await readFile(file)
    mtimeMs = (await stat(file)).mtimeMs
  } catch (e) {
    result.errors.push({id: 'unreadable', path: tildify(file, opts.home), message: (e as Error).message, location: file, suite: path.dirname(file)})
    return
  }
  const name = path.basename(file)
  const dir = path.dirname(file)
  const report: ChatReport = {path: tildify(file, opts.home), ...(await kind.diagnose(name, data, mtimeMs))}
  const snapshot: ChatDirSnapshot = {dir, unit: {dir, path: file, files: [name]}, dirMtimeMs: 0, files: [{name, kind: 'file', bytes: data.length, mtimeMs, data}]}
  result.chats.push({report, snapshot, location: file, suite: dir, bundle: null, filesDir: dir})
}

/** Runs `check` over PATHs (at least one). Never throws for bad input: it becomes errors. */
export async function checkPaths(paths: string[], opts: CheckOptions): Promise<CheckResult> {
  const adapters = opts.adapters ?? ADAPTERS
  const result: CheckResult = {chats: [], skipped: [], errors: []}
  const dirs: string[] = []
  const archives: string[] = []
  const exports = new Map<string, DocumentKind>()
  const kinds = documentKinds(adapters)
  for (const p of paths) {
    const abs = path.resolve(p)
    try {
      const real = await realpath(abs)
      const st = await stat(real)
      // A document given by PATH: the kind its content says, else (a torn or zeroed one) the fallback kind its name fits.
      const named = st.isFile() ? kinds.filter((k) => k.mayBeName(path.basename(real)) && !k.skipFolders.some((f) => real.split(path.sep).includes(f))) : []
      const kind = named.length === 0 ? undefined : (named.length > 1 ? await sniffDocument(real, named) : undefined) ?? named.find((k) => k.fallback) ?? named[0]
      if (st.isFile() && archiveKindByName(real)) archives.push(real)
      else if (kind) {
        if (!exports.has(real)) exports.set(real, kind)
      } else {
        dirs.push(abs)
        if (st.isDirectory()) await findArchives(real, 0, adapters, archives, exports)
      }
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      const message = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' || code === 'EPERM' ? 'permission denied (run as a user who can read it)' : (e as Error).message
      result.errors.push({id: 'unreadable', path: tildify(abs, opts.home), message, location: abs, suite: path.dirname(abs)})
    }
  }
  if (dirs.length > 0) {
    const scan = await scanPaths(dirs, {home: opts.home, env: opts.env, adapters})
    for (const c of scan.chats) {
      const unit = c.snapshot.unit
      result.chats.push({report: c.report, snapshot: c.snapshot, location: unit.path, suite: path.dirname(unit.path), bundle: null, ...(unit.path !== unit.dir ? {filesDir: unit.dir} : {})})
    }
    result.skipped.push(...scan.skipped)
    for (const e of scan.errors) {
      const abs = untildify(e.path, opts.home)
      result.errors.push({...e, id: 'unreadable', location: abs, suite: path.dirname(abs)})
    }
  }
  for (const a of [...new Set(archives)].sort()) await checkArchive(a, opts, adapters, result)
  for (const x of [...exports.keys()].sort()) await checkExportFile(x, exports.get(x)!, opts, result)
  result.chats.sort((a, b) => byPath(a.report, b.report))
  result.skipped.sort(byPath)
  return result
}

interface Dir {
  /** Member path of the folder ('' for the root). */
  path: string
  entries: Map<string, ArchiveMember | {path: string; kind: 'directory'; implied: true}>
}

/**
 * The folder of an archive that a bundle's manifest sits in: the root, or the one folder the root holds when
 * that folder holds the manifest and the root has nothing else (a bundle unpacked into a folder and packed
 * again with that folder, as `tar -czf b.tgz dir` and `zip -r b.zip dir` do). '' when it is the root.
 */
function bundleRoot(tree: Map<string, Dir>): string {
  const root = tree.get('')!
  if (root.entries.has(MANIFEST_NAME) || root.entries.size !== 1) return ''
  const [[, only]] = root.entries
  if (only.kind !== 'directory') return ''
  const inner = tree.get(only.path)
  const m = inner?.entries.get(MANIFEST_NAME)
  return m && m.kind === 'file' ? only.path : ''
}

/** Folders of an archive, each with its direct entries (folders implied by deeper paths included). */
function treeOf(members: ArchiveMember[]): Map<string, Dir> {
  const dirs = new Map<string, Dir>()
  const dir = (p: string): Dir => {
    let d = dirs.get(p)
    if (!d) {
      d = {path: p, entries: new Map()}
      dirs.set(p, d)
      if (p !== '') {
        const parent = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : ''
        const name = p.slice(p.lastIndexOf('/') + 1)
        const pd = dir(parent)
        if (!pd.entries.has(name)) pd.entries.set(name, {path: p, kind: 'directory', implied: true})
      }
    }
    return d
  }
  dir('')
  for (const m of members) {
    const parent = m.path.includes('/') ? m.path.slice(0, m.path.lastIndexOf('/')) : ''
    dir(parent).entries.set(m.path.slice(m.path.lastIndexOf('/') + 1), m)
    if (m.kind === 'directory') dir(m.path)
  }
  return dirs
}

async function checkArchive(file: string, opts: CheckOptions, adapters: readonly FormatAdapter[], result: CheckResult): Promise<void> {
  const shown = tildify(file, opts.home)
  const suite = file
  const err = (id: string, member: string | null, message: string) =>
    result.errors.push({id, path: member ? `${shown}/${member}` : shown, message, location: member ? `${file}/${member}` : file, suite})
  const keep = (p: string) => {
    const name = p.slice(p.lastIndexOf('/') + 1)
    // What a diagnosis reads, and what a store or a document needs beyond it (told apart by content later).
    return p === MANIFEST_NAME || adapters.some((a) => a.wantsContent(name) || (a.archiveWants?.(name) ?? false))
  }
  let contents
  try {
    contents = await readArchive(file, opts.limits, keep)
  } catch (e) {
    err('unreadable', null, (e as Error).message)
    return
  }
  for (const p of contents.problems) err(p.id, p.member, p.message)
  if (!contents.complete) return
  const tree = treeOf(contents.members)
  const base = bundleRoot(tree)
  const manifestPath = base === '' ? MANIFEST_NAME : `${base}/${MANIFEST_NAME}`
  /** Member paths read into a chat (or into a chat the adapter skipped): the rest is listed as not part of any. */
  const used = new Set<string>([manifestPath])
  const manifestMember = contents.members.find((m) => m.path === manifestPath && m.kind === 'file')
  let manifest: Manifest | null = null
  if (manifestMember) {
    try {
      const parsed = ManifestSchema.safeParse(JSON.parse(manifestMember.data!.toString('utf8')))
      if (parsed.success) manifest = parsed.data
      else err('manifest-invalid', manifestPath, `the manifest does not have the chatdoctor-bundle layout (${parsed.error.issues[0]?.path.join('.') || 'root'}: ${parsed.error.issues[0]?.message}); the bundle is checked without it`)
    } catch {
      err('manifest-invalid', manifestPath, 'the manifest is not valid JSON; the bundle is checked without it')
    }
  }
  /** Members read into no chat, one `skipped` entry per folder (what they are, so none is dropped unseen). */
  const listUnused = () => {
    const byFolder = new Map<string, string[]>()
    for (const m of contents.members) {
      if (m.kind === 'directory' || used.has(m.path)) continue
      const folder = m.path.includes('/') ? m.path.slice(0, m.path.lastIndexOf('/')) : ''
      const names = byFolder.get(folder) ?? []
      names.push(m.path.slice(folder === '' ? 0 : folder.length + 1))
      byFolder.set(folder, names)
    }
    for (const [folder, names] of byFolder) {
      const shown = names.length <= 5 ? names.join(', ') : `${names.slice(0, 4).join(', ')} and ${names.length - 4} more`
      result.skipped.push({path: tildify(folder === '' ? file : `${file}/${folder}`, opts.home), reason: `${names.length} archive entr${names.length === 1 ? 'y' : 'ies'} not part of any chat, not diagnosed: ${shown}`})
    }
  }
  const diagnose = (adapter: FormatAdapter, dirPath: string, unitFiles: string[] | undefined, extra: Finding[], mtimes: Map<string, number>, unitPath?: string, recordedFormat?: string) => {
    const d = tree.get(dirPath)!
    const folder = dirPath === '' ? file : `${file}/${dirPath}`
    // A one-file session is named by its file (several may share a folder); a chat dir by its folder.
    const location = unitPath ?? folder
    const wanted = unitFiles ? new Set(unitFiles) : null
    const files: FileEntry[] = []
    for (const [name, m] of [...d.entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (name === MANIFEST_NAME && dirPath === base) continue
      if (wanted && !wanted.has(name)) continue
      const rel = dirPath === '' ? name : `${dirPath}/${name}`
      const mtimeMs = mtimes.get(rel) ?? ('mtimeMs' in m ? m.mtimeMs : 0)
      used.add(rel)
      const entry: FileEntry = {name, kind: m.kind, bytes: 'bytes' in m ? m.bytes : 0, mtimeMs}
      if (m.kind === 'file' && adapter.wantsContent(name) && 'data' in m && m.data) entry.data = m.data
      files.push(entry)
    }
    const unit: ChatUnit = {dir: folder, path: location, ...(unitFiles ? {files: unitFiles} : {}), ...(recordedFormat ? {recordedFormat} : {})}
    const dirMember = contents.members.find((m) => m.path === dirPath)
    const snapshot: ChatDirSnapshot = {dir: folder, unit, dirMtimeMs: dirMember?.mtimeMs ?? 0, files}
    const diag = adapter.diagnose(snapshot)
    if (diag.kind === 'skipped') {
      result.skipped.push({path: tildify(location, opts.home), reason: diag.reason})
      for (const f of extra) err(f.id, f.file ? `${dirPath}/${f.file}` : dirPath, f.message)
      return
    }
    const report: ChatReport = {path: tildify(location, opts.home), ...diag.report, bundle: shown}
    report.findings.push(...extra)
    result.chats.push({report, snapshot, location, suite, bundle: file, ...(location !== folder ? {filesDir: folder} : {})})
  }

  /**
   * A store format's chats (OpenCode's data dir) at `dirPath`: its members are laid out in a private temp
   * folder, listed and read by the adapter as on disk, and the folder is removed. With `onlyId`, keeps only the
   * chat with that id (a bundle's folder). Returns how many chats were kept.
   */
  const diagnoseStore = async (adapter: FormatAdapter, dirPath: string, mtimes: Map<string, number>, onlyId: string | null, extra: Finding[]): Promise<number> => {
    const prefix = dirPath === '' ? '' : `${dirPath}/`
    const location = dirPath === '' ? file : `${file}/${dirPath}`
    const files = contents.members
      .filter((m) => m.kind === 'file' && m.data !== undefined && m.path.startsWith(prefix) && m.path !== manifestPath)
      .map((m) => ({rel: m.path.slice(prefix.length), data: m.data!, mtimeMs: mtimes.get(m.path) ?? m.mtimeMs}))
    let kept = 0
    try {
      await withExtracted(files, async (tmp) => {
        const inArchive = (p: string) => `${location}/${path.relative(tmp, p).split(path.sep).join('/')}`
        const listed = await adapter.listStore!(tmp)
        for (const e of listed.errors) err('unreadable', inArchive(e.path).slice(file.length + 1), e.message)
        for (const unit of listed.chats) {
          for (const rel of unit.members ?? []) used.add(`${prefix}${path.relative(tmp, path.join(unit.dir, rel)).split(path.sep).join('/')}`)
          const snapshot = readChatSync(unit, adapter)
          const d = adapter.diagnose(snapshot)
          const loc = inArchive(unit.path)
          if (d.kind === 'skipped') {
            if (onlyId === null) result.skipped.push({path: tildify(loc, opts.home), reason: d.reason})
            continue
          }
          if (onlyId !== null && d.report.id !== onlyId) continue
          const report: ChatReport = {path: tildify(loc, opts.home), ...d.report, bundle: shown}
          if (kept === 0) report.findings.push(...extra)
          const shownSnapshot: ChatDirSnapshot = {...snapshot, dir: location, unit: {...unit, dir: location, path: loc}}
          result.chats.push({report, snapshot: shownSnapshot, location: loc, suite, bundle: file, filesDir: location})
          kept++
        }
      })
    } catch (e) {
      err('unreadable', dirPath === '' ? null : dirPath, `could not lay out the ${adapter.name} store for diagnosis: ${(e as Error).message}`)
    }
    return kept
  }

  /** Single-file documents directly in the folder `dirPath`, found by name and content. */
  const diagnoseExports = async (dirPath: string, mtimes: Map<string, number>) => {
    const d = tree.get(dirPath)!
    for (const [name, m] of [...d.entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const kind = m.kind === 'file' && 'data' in m && m.data ? documentFor(documentKinds(adapters), name, m.data) : undefined
      if (!kind || m.kind !== 'file' || !('data' in m) || !m.data) continue
      const rel = dirPath === '' ? name : `${dirPath}/${name}`
      used.add(rel)
      const loc = `${file}/${rel}`
      const folder = dirPath === '' ? file : `${file}/${dirPath}`
      const mtimeMs = mtimes.get(rel) ?? m.mtimeMs
      const report: ChatReport = {path: tildify(loc, opts.home), ...(await kind.diagnose(name, m.data, mtimeMs)), bundle: shown}
      const snapshot: ChatDirSnapshot = {dir: folder, unit: {dir: folder, path: loc, files: [name]}, dirMtimeMs: 0, files: [{name, kind: 'file', bytes: m.data.length, mtimeMs, data: m.data}]}
      result.chats.push({report, snapshot, location: loc, suite, bundle: file, filesDir: folder})
    }
  }

  if (manifest) {
    const claimed = new Set<string>([manifestPath])
    for (const chat of manifest.chats) {
      const adapter = adapterByName(chat.format)
      const folder = base === '' ? chat.folder : `${base}/${chat.folder}`
      const extra: Finding[] = []
      const mtimes = new Map<string, number>()
      const listed = new Set<string>()
      for (const f of chat.files) {
        const rel = `${folder}/${f.path}`
        listed.add(rel)
        claimed.add(rel)
        mtimes.set(rel, f.mtimeMs)
        const m = contents.members.find((x) => x.path === rel)
        if (!m || m.kind !== 'file') extra.push(finding('manifest-missing-file', f.path, `${f.path} is listed in the manifest (${f.bytes} bytes) but not in the bundle`))
        else if (m.bytes !== f.bytes || m.sha256 !== f.sha256) {
          const what = m.bytes !== f.bytes ? `${m.bytes} bytes, the manifest says ${f.bytes}` : `sha256 ${m.sha256!.slice(0, 12)}…, the manifest says ${f.sha256.slice(0, 12)}…`
          extra.push(finding('manifest-mismatch', f.path, `${f.path} differs from the manifest: ${what}`))
        }
      }
      for (const m of contents.members) {
        if (m.path === folder || !m.path.startsWith(folder + '/')) continue
        claimed.add(m.path)
        if (m.kind === 'directory' || listed.has(m.path)) continue
        const rel = m.path.slice(folder.length + 1)
        extra.push(finding('manifest-extra-file', rel, `${rel} is in the bundle but not in its manifest`))
      }
      claimed.add(folder)
      if (!adapter) {
        err('manifest-invalid', folder, `chat ${chat.id} has format "${chat.format}", which this chatdoctor does not know`)
        continue
      }
      if (!tree.has(folder)) {
        err('manifest-missing-file', folder, `chat ${chat.id} is listed in the manifest but its folder is not in the bundle`)
        continue
      }
      if (adapter.listStore) {
        // A store's session (OpenCode): its files sit in subfolders of the chat's folder, as in the data dir.
        if ((await diagnoseStore(adapter, folder, mtimes, chat.id, extra)) === 0) err('manifest-missing-file', folder, `chat ${chat.id} is listed in the manifest but its folder holds no ${chat.format} session with that id`)
        continue
      }
      diagnose(adapter, folder, undefined, extra, mtimes, undefined, chat.format)
    }
    for (const m of contents.members) {
      if (claimed.has(m.path) || m.kind === 'directory') continue
      err('manifest-extra-file', m.path, `${m.path} is in the bundle but belongs to no chat of its manifest`)
      used.add(m.path)
    }
    listUnused()
    return
  }

  // No manifest: find chats inside the archive with the discovery rules.
  const walk = async (dirPath: string, depth: number) => {
    const d = tree.get(dirPath)!
    const location = dirPath === '' ? file : `${file}/${dirPath}`
    const names = [...d.entries.keys()].filter((n) => !(dirPath === base && n === MANIFEST_NAME))
    let descend = true
    for (const adapter of adapters) {
      const found = adapter.chatsIn(location, names)
      if (!found) continue
      descend &&= found.descend
      if (found.store && adapter.listStore) await diagnoseStore(adapter, dirPath, new Map(), null, [])
      else for (const unit of found.chats) diagnose(adapter, dirPath, unit.files, [], new Map(), unit.files ? unit.path : undefined)
    }
    if (!descend) return
    await diagnoseExports(dirPath, new Map())
    if (depth >= MAX_DEPTH) return
    for (const [name, m] of d.entries) {
      if (m.kind !== 'directory') continue
      if (!mayEnter(location, name, adapters)) continue
      await walk(dirPath === '' ? name : `${dirPath}/${name}`, depth + 1)
    }
  }
  await walk('', 0)
  listUnused()
}

/**
 * The exit status of `check`: the `scan` bitmask, plus bit 2 for every chat whose worst finding reaches
 * `failOn` (even a healthy one), plus bit 8 for any operational error.
 */
export function checkExitCode(chats: ChatReport[], errors: OperationalError[], failOn: Severity): number {
  let code = scanExitCode(chats, errors)
  for (const c of chats) {
    const worst = worstSeverity(c.findings)
    if (worst !== null && reaches(worst, failOn)) code |= EXIT_REPAIRABLE
  }
  return code
}
