/**
 * `chatdoctor bundle`: exports chat dirs, files as they are (or redacted), with a manifest, as archive members
 * ready to be written by `archive/write.ts`. Read-only on the chat dirs.
 *
 * Layout: `chatdoctor-bundle.json` at the root, then one folder per chat named by its id holding
 * the chat dir's files — every generation; chatdoctor's own `.chatdoctor*` evidence, `credentials.json`,
 * symbolic links and anything outside the chat dir are never included.
 *
 * Files are not read here: each member names its file on disk (`source`) with the size and mtime the scan
 * listed, and the archive writer streams it, hashing as it goes and checking it is still that file afterwards
 * (the manifest, which holds those hashes, is the archive's last member). Only `--redact` reads files whole,
 * because a redactor parses them; a file it leaves byte for byte as it was is streamed like any other, and a
 * file too large to hold (`REDACT_MAX_BYTES`) refuses its chat with one line.
 */
import {lstat, readdir, readFile} from 'node:fs/promises'
import {constants as bufferConstants} from 'node:buffer'
import path from 'node:path'
import {createHash} from 'node:crypto'
import type {ArchiveInput} from '../../archive/write.js'
import type {BundleFile, Diagnosis, FileEntry} from '../../model/adapter.js'
import {withExtracted} from '../../archive/extract.js'
import {readChatSync} from '../inventory.js'
import type {ChatReport, OperationalError, Skipped} from '../../model/report.js'
import {scanPaths, streamThresholdOf, type ScannedChat} from '../scan.js'
import {BUNDLE_SCHEMA_VERSION, MANIFEST_NAME, verdictDifference, verdictOf, type Manifest, type ManifestChat} from './manifest.js'
import {adapterByName} from '../../formats/index.js'
import {makeRedactor} from '../../json/redact.js'

export interface BundleOptions {
  home: string
  env: NodeJS.ProcessEnv
  /** chatdoctor's version, for the manifest. */
  version: string
  redact: boolean
  /** Creation time (default: now). */
  now?: Date
  /** Redaction key (default: 32 random bytes, never stored). For tests only. */
  key?: Buffer
}

/**
 * What `buildBundle` produced: the members to write, then `trailer()` (the manifest, complete once every member
 * was streamed), or errors (then nothing is written).
 */
export interface BundleResult {
  inputs: ArchiveInput[]
  trailer: () => ArchiveInput[]
  /** The manifest; the sha256 of each streamed file is filled in as the archive is written. */
  manifest: Manifest
  /** The `scan` reports of the bundled chats (of the original files). */
  chats: ChatReport[]
  skipped: Skipped[]
  /** Any error means the bundle must not be written. */
  errors: OperationalError[]
}

/** Names never bundled: chatdoctor's own evidence and credentials. */
const NEVER = (name: string) => /^\.chatdoctor(?:$|[.-])/.test(name) || name === 'credentials.json'

/** A file of a chat: where it is on disk and what the scan listed; `data` only when read (for `--redact`). */
interface ChatFile {
  rel: string
  abs: string
  bytes: number
  mtimeMs: number
  data?: Buffer
}

/** The largest file `--redact` reads whole: about V8's largest string (a redactor decodes what it parses). */
export const REDACT_MAX_BYTES = Math.min(bufferConstants.MAX_STRING_LENGTH, 2 ** 31 - 1)

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex')
}

/** Every regular file of a chat (recursively for folders in it), and what was left out. Reads no file. */
async function chatFiles(chat: ScannedChat): Promise<{files: ChatFile[]; omitted: Array<{path: string; reason: string}>}> {
  const files: ChatFile[] = []
  const omitted: Array<{path: string; reason: string}> = []
  const visit = async (entry: Pick<FileEntry, 'name' | 'kind' | 'bytes' | 'mtimeMs' | 'data'>, rel: string, abs: string, depth: number): Promise<void> => {
    if (NEVER(entry.name)) return
    if (entry.kind === 'symlink') return void omitted.push({path: rel, reason: 'symbolic link: never followed'})
    if (entry.kind === 'other') return void omitted.push({path: rel, reason: 'not a regular file'})
    if (entry.kind === 'directory') {
      if (depth >= 4) return void omitted.push({path: rel, reason: 'folder nested too deep'})
      for (const name of (await readdir(abs)).sort()) {
        const p = path.join(abs, name)
        const st = await lstat(p)
        const kind: FileEntry['kind'] = st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other'
        await visit({name, kind, bytes: st.size, mtimeMs: st.mtimeMs}, `${rel}/${name}`, p, depth + 1)
      }
      return
    }
    files.push({rel, abs, bytes: entry.data?.length ?? entry.bytes, mtimeMs: entry.mtimeMs, ...(entry.data ? {data: entry.data} : {})})
  }
  for (const f of chat.snapshot.files) await visit(f, f.name, path.join(chat.snapshot.dir, f.name), 0)
  return {files, omitted}
}

/**
 * The diagnosis of a store chat's redacted files as `check` makes it: laid out in a private temp folder, listed
 * by the adapter, and the chat with the same id diagnosed (skipped when the listing has none).
 */
async function relisted(chat: ScannedChat, files: BundleFile[]): Promise<Diagnosis> {
  return withExtracted(files, async (tmp) => {
    const listed = await chat.adapter.listStore!(tmp)
    for (const unit of listed.chats) {
      const d = chat.adapter.diagnose(readChatSync(unit, chat.adapter))
      if (d.kind === 'chat' && d.report.id === chat.report.id) return d
    }
    return {kind: 'skipped', reason: listed.errors[0]?.message ?? 'the redacted store lists no such chat'}
  })
}

/**
 * Scans `paths` (chat dirs or folders above them), then builds the bundle's members. With `redact`, every
 * chat's redacted files are diagnosed again and must give the same verdict (`verdictDifference`); a chat whose
 * verdict would change is an error and nothing is bundled. Two chats with the same id are an error (their
 * folders would collide). Throws only on unexpected I/O errors while reading files.
 */
export async function buildBundle(paths: string[], opts: BundleOptions): Promise<BundleResult> {
  const scan = await scanPaths(paths, {home: opts.home, env: opts.env})
  const redactLimit = Math.min(REDACT_MAX_BYTES, streamThresholdOf({env: opts.env}) ?? REDACT_MAX_BYTES)
  const errors: OperationalError[] = [...scan.errors]
  const r = makeRedactor(opts.key)
  const chats: ManifestChat[] = []
  const inputs: ArchiveInput[] = []
  const seen = new Map<string, string>()
  const skipped: Skipped[] = []
  for (const chat of errors.length > 0 ? [] : scan.chats) {
    const id = chat.report.id
    const prev = seen.get(id)
    if (prev !== undefined) {
      errors.push({path: chat.report.path, message: `another chat with the same id ${id} is already in the bundle (${prev}); bundle them separately`})
      continue
    }
    seen.set(id, chat.report.path)
    const all = await chatFiles(chat)
    if (all.files.length === 0 && all.omitted.length === 0) {
      // A chat only an index still lists (its files are gone): nothing of it to bundle.
      skipped.push({path: chat.report.path, reason: 'no file of this chat exists on disk; nothing to bundle'})
      continue
    }
    let files = all.files
    const omitted = [...all.omitted]
    if (opts.redact) {
      // A redactor parses what it keeps, so it gets every file whole (the scan already holds the ones it read),
      // and the redacted copy is diagnosed in memory: a file the scan streamed would be diagnosed otherwise.
      const tooLarge = files.find((f) => !f.data && f.bytes > redactLimit)
      if (tooLarge) {
        errors.push({path: chat.report.path, message: `${tooLarge.rel} holds ${tooLarge.bytes} bytes, more than --redact can read whole (${redactLimit}); not bundled: bundle this chat without --redact`})
        continue
      }
      const whole: BundleFile[] = []
      for (const f of files) whole.push({rel: f.rel, data: f.data ?? (await readFile(f.abs)), mtimeMs: f.mtimeMs})
      // The format of the report picks the rules (a chat one adapter found may be reported under another).
      const own = (adapterByName(chat.report.format) ?? chat.adapter).redact
      const red = own ? own(whole, chat.report, r) : {refused: `${chat.report.format} chats cannot be redacted; bundle them without --redact`}
      if ('refused' in red) {
        errors.push({path: chat.report.path, message: red.refused})
        continue
      }
      omitted.push(...red.omitted)
      // Store formats name files by their path below the store (`storage/part/…`); others by name in the dir.
      const top = chat.snapshot.unit.members !== undefined ? red.files : red.files.filter((f) => !f.rel.includes('/'))
      const snapshot = {...chat.snapshot, files: top.map((f): FileEntry => ({name: f.rel, kind: 'file', bytes: f.data.length, mtimeMs: f.mtimeMs, data: f.data}))}
      const again = red.relist && chat.adapter.listStore ? await relisted(chat, red.files) : chat.adapter.diagnose(snapshot)
      const diff = again.kind === 'chat' ? verdictDifference(verdictOf(chat.report), verdictOf(again.report)) : 'the redacted chat would be skipped'
      if (diff !== null) {
        errors.push({path: chat.report.path, message: `redaction would change the diagnosis (${diff}); not bundled. Please report this with \`chatdoctor scan --json\` of the chat`})
        continue
      }
      // A file redaction left byte for byte as it was is streamed from disk like any other.
      const before = new Map(files.map((f, i) => [f.rel, {f, data: whole[i].data}] as const))
      files = red.files.map((f): ChatFile => {
        const was = before.get(f.rel)
        if (was && was.f.mtimeMs === f.mtimeMs && was.data.equals(f.data)) return was.f
        return {rel: f.rel, abs: '', bytes: f.data.length, mtimeMs: f.mtimeMs, data: f.data}
      })
    }
    omitted.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    const listed = files.map((f) => ({path: f.rel, bytes: f.bytes, mtimeMs: f.mtimeMs, sha256: f.data ? sha256(f.data) : ''}))
    chats.push({
      id,
      format: chat.report.format,
      folder: id,
      verdict: verdictOf(chat.report),
      files: listed,
      omitted,
    })
    inputs.push({path: id, kind: 'directory', mtimeMs: chat.snapshot.dirMtimeMs})
    const dirs = new Set<string>()
    files.forEach((f, i) => {
      const parts = f.rel.split('/')
      for (let k = 1; k < parts.length; k++) {
        const d = parts.slice(0, k).join('/')
        if (!dirs.has(d)) {
          dirs.add(d)
          inputs.push({path: `${id}/${d}`, kind: 'directory', mtimeMs: f.mtimeMs})
        }
      }
      const member = {path: `${id}/${f.rel}`, kind: 'file', mtimeMs: f.mtimeMs, owner: chat.report.path} as const
      if (f.data) inputs.push({...member, data: f.data})
      else inputs.push({...member, source: {abs: f.abs, bytes: f.bytes, mtimeMs: f.mtimeMs}, onStreamed: (sha) => (listed[i].sha256 = sha)})
    })
  }
  const now = opts.now ?? new Date()
  const manifest: Manifest = {
    schemaVersion: BUNDLE_SCHEMA_VERSION,
    kind: 'chatdoctor-bundle',
    chatdoctorVersion: opts.version,
    createdAt: now.toISOString(),
    redacted: Boolean(opts.redact),
    chats,
  }
  // Last: it holds the sha256 of each streamed file, known once the file was written into the archive.
  const trailer = (): ArchiveInput[] => [{path: MANIFEST_NAME, kind: 'file', data: Buffer.from(JSON.stringify(manifest, null, 2) + '\n'), mtimeMs: now.getTime()}]
  return {inputs, trailer, manifest, chats: scan.chats.map((c) => c.report), skipped: [...scan.skipped, ...skipped], errors}
}
