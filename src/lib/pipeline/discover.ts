/**
 * Discovery: from the user's PATHs (or each adapter's default roots) to the chat dirs to diagnose.
 *
 * Rules: a directory is a chat dir when an adapter recognises it; otherwise the search goes below
 * it, never following symbolic links, up to `MAX_DEPTH` levels, skipping dot-folders other than those on the
 * way to the agents' own roots (each adapter's `discoveryPaths`) and `node_modules`. A chat
 * reached twice (same real path) is reported once; a folder deeper than `MAX_DEPTH` is a `skipped` entry
 * (`TOO_DEEP`). Read-only: only `readdir`, `lstat`, `realpath`.
 *
 * Agents chatdoctor does not diagnose yet (`unsupported`) are recognised first in every folder: what one of them
 * claims is a `skipped` entry naming the agent (`agent`, `what`, "not supported yet"); a folder it claims whole is
 * neither offered to the adapters nor searched further, entries it claims by name are kept from the adapters. A
 * scan of the default roots looks at their roots too.
 */
import {lstatSync, readdirSync} from 'node:fs'
import {lstat, realpath, stat} from 'node:fs/promises'
import path from 'node:path'
import type {ChatUnit, FormatAdapter, UnsupportedAgent} from '../model/adapter.js'
import type {OperationalError, Skipped} from '../model/report.js'
import {printableName, tildify} from '../fsio/paths.js'
import {nonUtf8Names} from '../fsio/raw-names.js'

/** How deep below a PATH the search goes (levels of folders). */
export const MAX_DEPTH = 12

/** A chat found by discovery, with the adapter that recognised it. */
export interface FoundChat {
  unit: ChatUnit
  adapter: FormatAdapter
}

/** A root the search started from: a PATH the user gave, or an agent's default folder. */
export interface SearchedRoot {
  /** Absolute path as given (a PATH) or as the adapter names it (a default root). */
  path: string
  /** The format whose default root it is; null for a PATH the user gave. */
  format: string | null
  /** False when nothing is there (a default root of an agent that is not installed). */
  present: boolean
}

export interface Discovery {
  chats: FoundChat[]
  errors: OperationalError[]
  skipped: Skipped[]
  /** Every root, in search order. */
  roots: SearchedRoot[]
  /** PATHs naming a file that no chat holds (not an agent's state file): a usage error for the commands. */
  notChatFiles: string[]
}

/** Why a folder below the depth limit was not searched (a `skipped` entry). */
export const TOO_DEEP = `more than ${MAX_DEPTH} folders below the PATH searched: not searched (give it as a PATH to search it)`

/** The roots and not-a-chat files of a discovery, home written as `~`. */
export function searchedOf(found: Pick<Discovery, 'roots' | 'notChatFiles'>, home: string): Pick<Discovery, 'roots' | 'notChatFiles'> {
  return {roots: found.roots.map((r) => ({...r, path: tildify(r.path, home)})), notChatFiles: found.notChatFiles.map((p) => tildify(p, home))}
}

/** Whether `name` matches one step of a discovery path (`x*`: any name starting with `x`). */
function stepMatches(step: string, name: string): boolean {
  return step.endsWith('*') ? name.startsWith(step.slice(0, -1)) : name === step
}

/**
 * Whether the search may enter `name` inside `parent`, by the adapters' `discoveryPaths`: never
 * `node_modules`; inside a folder that ends like the first steps of a discovery path whose first step is a
 * dot-folder, only the next step of such a path; a dot-folder elsewhere only when it is the first step of a
 * discovery path; anything else.
 */
export function mayEnter(parent: string, name: string, adapters: ReadonlyArray<Pick<FormatAdapter, 'discoveryPaths'>>): boolean {
  return entryRule(parent, dotPathsOf(adapters))(name)
}

/** The adapters' discovery paths whose first step is a dot-folder, split into steps (`mayEnter`). */
function dotPathsOf(adapters: ReadonlyArray<Pick<FormatAdapter, 'discoveryPaths'>>): string[][] {
  return adapters.flatMap((a) => a.discoveryPaths ?? []).map((p) => p.split('/')).filter((p) => p[0].startsWith('.'))
}

/** `mayEnter` for the entries of one folder: what depends on `parent` worked out once, not per entry. */
function entryRule(parent: string, paths: readonly string[][]): (name: string) => boolean {
  const tail = parent.split(path.sep)
  const next: string[] = []
  for (const p of paths) {
    for (let k = 1; k < p.length; k++) {
      const last = tail.slice(-k)
      if (last.length === k && last.every((seg, i) => stepMatches(p[i], seg))) next.push(p[k])
    }
  }
  return (name) => {
    if (name === 'node_modules') return false
    if (next.length > 0) return next.some((step) => stepMatches(step, name))
    if (name.startsWith('.')) return paths.some((p) => stepMatches(p[0], name))
    return true
  }
}

function errMessage(e: unknown): string {
  const err = e as NodeJS.ErrnoException
  if (err && err.code === 'ENOENT') return 'no such file or directory'
  if (err && (err.code === 'EACCES' || err.code === 'EPERM')) return 'permission denied (run as a user who can read it)'
  if (err && err.code === 'ENOTDIR') return 'not a directory'
  return err?.message ?? String(e)
}

/**
 * Finds chats under each PATH. With `paths` empty, searches the adapters' default roots that exist
 * (none present: an empty result, no error); `roots` lists every root and whether it was there. A PATH that is
 * a file stands for the chats of its folder that hold that file (for a chat-dir format, the chat dir it is in);
 * a file no chat holds is listed in `notChatFiles`. Never throws: unreadable paths become `errors`.
 */
export async function discover(paths: string[], adapters: readonly FormatAdapter[], home: string, env: NodeJS.ProcessEnv, unsupported: readonly UnsupportedAgent[] = []): Promise<Discovery> {
  const result: Discovery = {chats: [], errors: [], skipped: [], roots: [], notChatFiles: []}
  const seen = new Set<string>()
  let roots: Array<{p: string; explicit: boolean; format: string | null; listed?: boolean}>
  if (paths.length === 0) {
    roots = [
      ...adapters.flatMap((a) => a.defaultRoots(home, env).map((p) => ({p, explicit: false, format: a.name}))),
      // The roots of agents not diagnosed yet are searched (their finds are `skipped` entries) but not listed in
      // `roots`, which says where chats were looked for.
      ...unsupported.flatMap((a) => a.defaultRoots(home, env).map((p) => ({p, explicit: false, format: null, listed: false}))),
    ]
  } else {
    // An empty PATH (a shell variable that expanded to nothing) would resolve to the working directory.
    for (const p of paths) if (p.trim() === '') result.errors.push({path: JSON.stringify(p), message: 'an empty PATH names nothing (did a shell variable expand to nothing?)'})
    roots = paths.filter((p) => p.trim() !== '').map((p) => ({p: path.resolve(p), explicit: true, format: null}))
  }

  for (const {p, explicit, format, listed} of roots) {
    let real: string
    let onlyFile: string | undefined
    try {
      const at = await namedEntry(p)
      real = at.dir
      onlyFile = at.file
    } catch (e) {
      if (listed !== false) result.roots.push({path: p, format, present: false})
      if (explicit) result.errors.push({path: p, message: errMessage(e)})
      continue
    }
    if (listed !== false) result.roots.push({path: p, format, present: true})
    const matched = await walk(real, 0, {adapters, unsupported, out: result, seen, noted: new Set(), dotPaths: dotPathsOf([...adapters, ...unsupported]), listings: new Map()}, onlyFile)
    if (explicit && onlyFile !== undefined && matched === 0) result.notChatFiles.push(p)
  }
  return result
}

/**
 * The folder a PATH stands for and, when it names a file, that file's name in it. A folder PATH (a symbolic link
 * to a folder too: the user named it) is its real folder. A PATH that names anything else is the entry of that
 * name in the real folder of its parent, never what it points to: a session log that is a symbolic link is that
 * link in its chat's folder (the inventory sees a link, so nothing is read or written through it), not the file
 * it leads to in some other folder. Throws what `lstat`/`realpath` throw (no such entry, permission).
 */
async function namedEntry(p: string): Promise<{dir: string; file?: string}> {
  const own = await lstat(p)
  if (own.isDirectory()) return {dir: await realpath(p)}
  if (own.isSymbolicLink()) {
    const to = await stat(p).catch(() => null)
    if (to?.isDirectory()) return {dir: await realpath(p)}
  }
  return {dir: await realpath(path.dirname(p)), file: path.basename(p)}
}

/** What a walk carries from folder to folder. */
interface Walk {
  adapters: readonly FormatAdapter[]
  unsupported: readonly UnsupportedAgent[]
  out: Discovery
  /** Chats found, by path. */
  seen: Set<string>
  /** Unsupported finds reported, by path. */
  noted: Set<string>
  /** `dotPathsOf` the adapters and the unsupported agents (worked out once per discovery). */
  dotPaths: string[][]
  /**
   * Chat dirs' listings (`ChatUnit.listing`) by their names joined: chat dirs alike list the same names, so the
   * units share one array (a fleet of 20,000 chats held 80,000 copies of the same four names).
   */
  listings: Map<string, string[]>
}

/**
 * The agents chatdoctor does not diagnose yet that claim something of `dir`: their finds become `skipped` entries
 * (each path once); returns whether the folder is claimed whole and the names kept from the adapters.
 */
function noteUnsupported(dir: string, names: string[], w: Walk, onlyFile?: string): {whole: boolean; claimed: Set<string>} {
  const claimed = new Set<string>()
  let whole = false
  for (const agent of w.unsupported) {
    // A file PATH: what the agent says of that file alone, else of its folder (a file in a folder it claims whole
    // is its file too).
    let f = onlyFile === undefined ? null : agent.recognize(dir, [onlyFile])
    if (f && f.claims !== 'folder' && !f.claims.includes(onlyFile!)) f = null
    if (!f) {
      const g = agent.recognize(dir, names)
      if (g && onlyFile !== undefined) f = g.claims === 'folder' || g.claims.includes(onlyFile) ? {...g, what: 'file', claims: [onlyFile]} : null
      else f = g
    }
    if (!f) continue
    const own = f.claims === 'folder' ? null : f.claims.filter((n) => onlyFile === undefined || n === onlyFile)
    if (own !== null && own.length === 0) continue
    if (own === null) whole = true
    else for (const n of own) claimed.add(n)
    const at = own === null || own.length > 1 ? dir : path.join(dir, own[0])
    if (w.noted.has(at)) continue
    w.noted.add(at)
    const name = f.agent ?? agent.displayName
    w.out.skipped.push({path: at, reason: `${name} ${f.what} (not supported yet): chatdoctor does not diagnose it`, agent: name, what: f.what})
    if (whole) break
  }
  return {whole, claimed}
}

/** `names`, or the array of the same names (in the same order) a chat found before was given. */
function sharedListing(names: string[], w: Walk): string[] {
  // A name holds no `/`, so the joined names tell listings apart.
  const key = names.join('/')
  const seen = w.listings.get(key)
  if (seen) return seen
  w.listings.set(key, names)
  return names
}

/**
 * Searches `dir` and (unless `onlyFile` is given: then only the chats holding that file) the folders below it.
 * Returns how many chats of `dir` itself matched, counting those already seen (a file PATH an unsupported agent
 * claims counts: its `skipped` entry says what it is).
 */
async function walk(dir: string, depth: number, w: Walk, onlyFile?: string): Promise<number> {
  const {adapters, out, seen} = w
  let matched = 0
  let entries
  try {
    // Synchronous: thousands of chat dirs are listed one after another, and an async call's thread-pool round
    // trip cost more than the listing itself.
    entries = readdirSync(dir, {withFileTypes: true})
  } catch (e) {
    out.errors.push({path: dir, message: errMessage(e)})
    return 0
  }
  // Names that are not valid UTF-8 cannot be opened under the name Node gives them: a folder so named is
  // skipped, shown escaped (a file so named is the inventory's business).
  const lossy = new Map<string, Buffer[]>()
  for (const raw of nonUtf8Names(dir, entries.map((e) => e.name))) lossy.set(raw.toString('utf8'), [...(lossy.get(raw.toString('utf8')) ?? []), raw])
  const all = entries.map((e) => e.name)
  const {whole, claimed} = noteUnsupported(dir, all, w, onlyFile)
  if (whole) return onlyFile === undefined ? 0 : 1
  if (onlyFile !== undefined && claimed.has(onlyFile)) matched++
  const names = claimed.size === 0 ? all : all.filter((n) => !claimed.has(n))
  let descend = true
  for (const adapter of adapters) {
    const found = adapter.chatsIn(dir, names)
    if (!found) continue
    descend &&= found.descend
    let units = found.chats
    if (found.store && adapter.listStore) {
      // A store spreads each chat over many folders: the adapter lists them (OpenCode's data dir).
      let listed: Awaited<ReturnType<NonNullable<FormatAdapter['listStore']>>>
      try {
        listed = await adapter.listStore(dir)
      } catch (e) {
        // A store chatdoctor itself cannot read (its SQLite module does not load): one error, the scan goes on.
        out.errors.push({path: dir, message: (e as Error).message})
        continue
      }
      out.errors.push(...listed.errors)
      out.skipped.push(...(listed.skipped ?? []))
      units = listed.chats
    }
    for (const unit of units) {
      if (onlyFile !== undefined && unit.files !== undefined && !unit.files.includes(onlyFile)) continue
      matched++
      // A chat that is the whole folder (not a few files of it: those would each carry every name) keeps the
      // listing, so the inventory does not list the folder again.
      if (unit.dir === dir && unit.members === undefined && unit.files === undefined && lossy.size === 0) unit.listing = sharedListing(names, w)
      if (seen.has(unit.path)) continue
      seen.add(unit.path)
      out.chats.push({unit, adapter})
    }
  }
  if (!descend || onlyFile !== undefined) return matched
  const mayEnterHere = entryRule(dir, w.dotPaths)
  for (const e of entries) {
    const child = path.join(dir, e.name)
    if (lossy.has(e.name)) {
      if (e.isDirectory()) for (const raw of lossy.get(e.name)!) out.skipped.push({path: path.join(dir, printableName(raw)), reason: 'folder name is not valid UTF-8: not searched, never repaired'})
      continue
    }
    if (e.isSymbolicLink()) {
      if (!mayEnterHere(e.name)) continue
      try {
        if ((await stat(child)).isDirectory() && lstatSync(child).isSymbolicLink()) out.skipped.push({path: child, reason: 'symbolic link to a folder: not followed'})
      } catch {
        // A dangling link: nothing to search.
      }
      continue
    }
    if (!e.isDirectory() || !mayEnterHere(e.name)) continue
    if (depth >= MAX_DEPTH) out.skipped.push({path: child, reason: TOO_DEEP})
    else await walk(child, depth + 1, w)
  }
  return matched
}
