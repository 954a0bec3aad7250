/**
 * `chatdoctor guard install|uninstall|status <agent>`: puts chatdoctor's snapshot hook into the agent's own
 * hook configuration and takes it out again. What the hook is and how the agent's settings file is edited is
 * the adapter's (`snapshot.hook`, pure text edits); here the file is read, its previous version kept as
 * evidence in the state folder (`guard/<agent>/<time>-<name>`), the new text written durably through the write
 * seam (a guarded rename: an agent's save in between is never overwritten), and what was installed recorded
 * (`guard/<agent>.json`). An uninstall of a file nobody changed since puts the previous bytes back exactly (or
 * removes the file guard made); a file changed since loses exactly chatdoctor's entries, by the adapter's edit.
 * An agent without a hook gets a user-level timer printed, never installed. Names no agent.
 */
import {lstatSync, readFileSync, statSync} from 'node:fs'
import path from 'node:path'
import {durableWrite, sha256Hex} from '../../fsio/durable-write.js'
import {runJsPath} from '../../fsio/install.js'
import type {FileSystem} from '../../fsio/fs.js'
import {shellWord, tildify} from '../../fsio/paths.js'
import {stateDir as defaultStateDir} from '../../fsio/repair-log.js'
import {ADAPTERS, adapterByName} from '../../formats/index.js'
import type {AgentHook, FormatAdapter, HookCommand} from '../../model/adapter.js'
import {mkdirs} from '../../snapshot/key.js'
import {listStore} from '../../snapshot/store.js'

/** The command an agent's hook runs: this Node and this chatdoctor, by absolute path (the agent's PATH may differ). */
export function hookCommand(agent: string, node = process.execPath, runJs = runJsPath()): HookCommand {
  const argv = [node, runJs, 'snapshot', '--hook', agent]
  return {argv, shell: argv.map(shellWord).join(' ')}
}

export interface GuardOptions {
  home: string
  env: NodeJS.ProcessEnv
  fs: FileSystem
  stateDir?: string
  /** The command to install (default `hookCommand(agent)`). */
  command?: HookCommand
  now?: () => Date
}

/** What guard did (paths with the home as `~`). */
export type GuardResult =
  | {kind: 'installed'; agent: string; file: string; evidence: string | null; created: boolean; notes: string[]}
  | {kind: 'already'; agent: string; file: string; notes: string[]}
  | {kind: 'uninstalled'; agent: string; file: string; evidence: string | null; how: 'restored' | 'removed-file' | 'edited'}
  | {kind: 'absent'; agent: string; file: string}
  | {kind: 'timer'; agent: string; why: string; text: string}
  | {kind: 'error'; agent: string; message: string}

/** What `guard/<agent>.json` records of an install. */
interface GuardRecord {
  file: string
  installedSha256: string
  previous: {sha256: string; evidence: string} | null
  time: string
  /** Folders install made for the file (outermost first): uninstall removes each it finds empty, innermost first. */
  createdDirs?: string[]
}

/** The folders above `file` that do not exist yet, outermost first. */
function missingDirs(file: string): string[] {
  const out: string[] = []
  for (let d = path.dirname(file); d !== path.dirname(d); d = path.dirname(d)) {
    try {
      lstatSync(d)
      break
    } catch {
      out.unshift(d)
    }
  }
  return out
}

/** Removes the folders install made, innermost first, each only while it is an empty folder. Never throws. */
async function removeCreatedDirs(fs: FileSystem, dirs: readonly string[]): Promise<void> {
  for (const d of [...dirs].reverse()) {
    try {
      const st = lstatSync(d)
      if (!st.isDirectory() || (await fs.readdir(d)).length > 0) return
      await fs.rmdir(d)
      await fs.fsyncDir(path.dirname(d))
    } catch {
      return
    }
  }
}

/** The agents `guard` knows: every adapter with snapshot support, by name. */
export function guardAgents(): FormatAdapter[] {
  return ADAPTERS.filter((a) => a.snapshot?.hook !== undefined || a.snapshot?.noHook !== undefined)
}

function agentAdapter(agent: string): FormatAdapter | {error: string} {
  const a = adapterByName(agent)
  if (!a || !(a.snapshot?.hook || a.snapshot?.noHook)) return {error: `unknown agent ${JSON.stringify(agent)}; guard knows ${guardAgents().map((x) => x.name).join(', ')}`}
  return a
}

/** The settings file's text and what it is on disk; `null` text when it does not exist. */
function readConfig(file: string): {text: string | null; st: {ino: number; size: number; mtimeMs: number; mode: number} | null} | {error: string} {
  let st
  try {
    st = lstatSync(file)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return {text: null, st: null}
    return {error: `${file} cannot be read (${code ?? 'error'})`}
  }
  if (!st.isFile()) return {error: `${file} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}; chatdoctor never writes through it (edit the file it points to by hand)`}
  try {
    const bytes = readFileSync(file)
    const text = bytes.toString('utf8')
    if (!Buffer.from(text, 'utf8').equals(bytes)) return {error: `${file} is not valid UTF-8; chatdoctor does not edit it`}
    return {text, st: {ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, mode: st.mode & 0o777}}
  } catch (e) {
    return {error: `${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`}
  }
}

function guardDir(state: string): string {
  return path.join(state, 'guard')
}

function recordFile(state: string, agent: string): string {
  return path.join(guardDir(state), `${agent}.json`)
}

function readRecord(state: string, agent: string): GuardRecord | null {
  try {
    const v = JSON.parse(readFileSync(recordFile(state, agent), 'utf8')) as GuardRecord
    if (typeof v?.file !== 'string' || typeof v.installedSha256 !== 'string') return null
    if (v.previous !== null && (typeof v.previous?.sha256 !== 'string' || typeof v.previous.evidence !== 'string')) return null
    return v
  } catch {
    return null
  }
}

/** A write error in plain words. */
function problem(e: unknown, what: string): string {
  const code = (e as NodeJS.ErrnoException)?.code ?? ''
  if (code === 'ECHANGED') return `${what}: the file changed while chatdoctor wrote it (the agent saved it?); nothing was put over it, run chatdoctor guard again`
  if (code === 'EROFS') return `${what}: read-only file system (EROFS)`
  if (code === 'ENOSPC') return `${what}: no space left on the device (ENOSPC); nothing half-written was left`
  if (code === 'EACCES' || code === 'EPERM') return `${what}: permission denied (${code}); run chatdoctor as the file's owner`
  return `${what}: ${(e as Error)?.message ?? String(e)}`
}

/** The folder of an agent's evidence. */
function evidenceDir(state: string, agent: string): string {
  return path.join(guardDir(state), agent)
}

/** Throws when a folder of the evidence path exists but is not a real folder (a symbolic link, a file). */
function ownFolders(state: string, agent: string): void {
  for (const d of [guardDir(state), evidenceDir(state, agent)]) {
    let st
    try {
      st = lstatSync(d)
    } catch {
      return
    }
    if (!st.isDirectory()) throw new Error(`${d} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}; chatdoctor keeps its evidence only in a folder of its own (move it away)`)
  }
}

/** Keeps `text` (the file's version before guard writes) in the state folder; returns its path. */
async function keepEvidence(fs: FileSystem, state: string, agent: string, file: string, text: string, now: Date): Promise<string> {
  ownFolders(state, agent)
  const dir = evidenceDir(state, agent)
  await mkdirs(fs, dir)
  const dest = path.join(dir, `${now.toISOString().replace(/[-:]/g, '')}-${path.basename(file)}`)
  await durableWrite(fs, dest, Buffer.from(text, 'utf8'), {tag: 'guard', mode: 0o600, expect: 'absent'})
  return dest
}

/** The user-level timer an agent without a hook gets printed (a systemd user unit, or a cron line). */
export function timerText(adapter: FormatAdapter, home: string, env: NodeJS.ProcessEnv, runJs = runJsPath(), node = process.execPath): string {
  const roots = adapter.snapshot?.timerRoots?.(home, env) ?? adapter.defaultRoots(home, env)
  const cmd = [node, runJs, 'snapshot', '--quiet', ...roots].map(shellWord).join(' ')
  return [
    `# ~/.config/systemd/user/chatdoctor-snapshot-${adapter.name}.service`,
    '[Unit]',
    `Description=chatdoctor snapshot of ${adapter.displayName} chats`,
    '',
    '[Service]',
    'Type=oneshot',
    `ExecStart=${cmd}`,
    '',
    `# ~/.config/systemd/user/chatdoctor-snapshot-${adapter.name}.timer`,
    '[Unit]',
    `Description=chatdoctor snapshot of ${adapter.displayName} chats every 10 minutes`,
    '',
    '[Timer]',
    'OnBootSec=5min',
    'OnUnitActiveSec=10min',
    '',
    '[Install]',
    'WantedBy=timers.target',
    '',
    `# then: systemctl --user daemon-reload && systemctl --user enable --now chatdoctor-snapshot-${adapter.name}.timer`,
    '# or, with cron (crontab -e):',
    `*/10 * * * * ${cmd} >/dev/null 2>&1`,
  ].join('\n')
}

/** Installs the agent's hook. Never throws. */
export async function guardInstall(agent: string, opts: GuardOptions): Promise<GuardResult> {
  const a = agentAdapter(agent)
  if ('error' in a) return {kind: 'error', agent, message: a.error}
  if (!a.snapshot!.hook) return {kind: 'timer', agent: a.name, why: a.snapshot!.noHook!, text: timerText(a, opts.home, opts.env)}
  const hook: AgentHook = a.snapshot!.hook
  const state = opts.stateDir ?? defaultStateDir(opts.home, opts.env)
  const now = (opts.now ?? (() => new Date()))()
  const file = hook.configFile(opts.home, opts.env)
  const shown = tildify(file, opts.home)
  const cur = readConfig(file)
  if ('error' in cur) return {kind: 'error', agent: a.name, message: cur.error}
  const r = hook.install(cur.text, opts.command ?? hookCommand(a.name))
  if ('error' in r) return {kind: 'error', agent: a.name, message: `${shown}: ${r.error}`}
  if ('already' in r) return {kind: 'already', agent: a.name, file: shown, notes: hook.notes?.(cur.text) ?? []}
  try {
    const evidence = cur.text !== null ? await keepEvidence(opts.fs, state, a.name, file, cur.text, now) : null
    const createdDirs = missingDirs(file)
    await mkdirs(opts.fs, path.dirname(file))
    await durableWrite(opts.fs, file, Buffer.from(r.text, 'utf8'), {tag: 'guard', mode: cur.st?.mode ?? 0o644, expect: cur.st ?? 'absent'})
    const record: GuardRecord = {file, installedSha256: sha256Hex(Buffer.from(r.text, 'utf8')), previous: cur.text !== null && evidence ? {sha256: sha256Hex(Buffer.from(cur.text, 'utf8')), evidence} : null, time: now.toISOString(), ...(createdDirs.length > 0 ? {createdDirs} : {})}
    await mkdirs(opts.fs, guardDir(state))
    await durableWrite(opts.fs, recordFile(state, a.name), Buffer.from(JSON.stringify(record, null, 2) + '\n'), {tag: 'guard', mode: 0o600})
    return {kind: 'installed', agent: a.name, file: shown, evidence: evidence ? tildify(evidence, opts.home) : null, created: cur.text === null, notes: hook.notes?.(r.text) ?? []}
  } catch (e) {
    return {kind: 'error', agent: a.name, message: problem(e, `writing ${shown}`)}
  }
}

/** Removes exactly what `guardInstall` added. Never throws. */
export async function guardUninstall(agent: string, opts: GuardOptions): Promise<GuardResult> {
  const a = agentAdapter(agent)
  if ('error' in a) return {kind: 'error', agent, message: a.error}
  if (!a.snapshot!.hook) return {kind: 'timer', agent: a.name, why: a.snapshot!.noHook!, text: `chatdoctor installed nothing for ${a.displayName}; remove the timer or cron line you added (systemctl --user disable --now chatdoctor-snapshot-${a.name}.timer)`}
  const hook = a.snapshot!.hook
  const state = opts.stateDir ?? defaultStateDir(opts.home, opts.env)
  const now = (opts.now ?? (() => new Date()))()
  const file = hook.configFile(opts.home, opts.env)
  const shown = tildify(file, opts.home)
  const cur = readConfig(file)
  if ('error' in cur) return {kind: 'error', agent: a.name, message: cur.error}
  if (cur.text === null || cur.st === null) return {kind: 'absent', agent: a.name, file: shown}
  const record = readRecord(state, a.name)
  const unchanged = record !== null && record.file === file && record.installedSha256 === sha256Hex(Buffer.from(cur.text, 'utf8'))
  let next: string | null
  let how: 'restored' | 'removed-file' | 'edited'
  if (unchanged && record.previous === null) {
    next = null
    how = 'removed-file'
  } else if (unchanged && record.previous !== null && readEvidence(record.previous, evidenceDir(state, a.name)) !== null) {
    next = readEvidence(record.previous, evidenceDir(state, a.name))
    how = 'restored'
  } else {
    // The file before the install, when guard kept it: a container of the user's left empty stays.
    const before = record?.file !== file ? undefined : record.previous === null ? null : (readEvidence(record.previous, evidenceDir(state, a.name)) ?? undefined)
    const r = hook.uninstall(cur.text, before)
    if ('error' in r) return {kind: 'error', agent: a.name, message: `${shown}: ${r.error}`}
    if ('absent' in r) return {kind: 'absent', agent: a.name, file: shown}
    next = r.text
    how = next === null ? 'removed-file' : 'edited'
  }
  if (next !== null && hook.status(next).installed) return {kind: 'error', agent: a.name, message: `${shown}: chatdoctor's hook would still be there after the edit; nothing written (remove it by hand)`}
  try {
    const evidence = await keepEvidence(opts.fs, state, a.name, file, cur.text, now)
    if (next === null) {
      await opts.fs.unlink(file, cur.st)
      await opts.fs.fsyncDir(path.dirname(file))
      // A folder guard made for the file goes with it when nothing else is in it (a folder it did not make stays).
      const made = record?.file === file ? (record.createdDirs ?? []).filter((d) => typeof d === 'string' && path.isAbsolute(d) && (file.startsWith(d + path.sep))) : []
      await removeCreatedDirs(opts.fs, made)
    } else await durableWrite(opts.fs, file, Buffer.from(next, 'utf8'), {tag: 'guard', mode: cur.st.mode, expect: cur.st})
    if (record !== null) await opts.fs.unlink(recordFile(state, a.name)).catch(() => undefined)
    return {kind: 'uninstalled', agent: a.name, file: shown, evidence: tildify(evidence, opts.home), how}
  } catch (e) {
    return {kind: 'error', agent: a.name, message: problem(e, `writing ${shown}`)}
  }
}

/**
 * The previous version kept at install, when it is a regular file in the agent's evidence folder (the record is
 * read back from disk: a path it names elsewhere is not used) and still has the sha256 recorded.
 */
function readEvidence(prev: {sha256: string; evidence: string}, dir: string): string | null {
  try {
    if (!path.isAbsolute(prev.evidence) || path.dirname(prev.evidence) !== dir || !lstatSync(prev.evidence).isFile()) return null
    const b = readFileSync(prev.evidence)
    return sha256Hex(b) === prev.sha256 ? b.toString('utf8') : null
  } catch {
    return null
  }
}

/** One agent's line of `guard status`. */
export interface GuardStatus {
  agent: string
  displayName: string
  installed: boolean
  /** The settings file (home as `~`), or null for an agent without a hook. */
  file: string | null
  detail: string
  /** Snapshots of this agent's chats in the store, and the newest one's time. */
  snapshots: number
  newest: string | null
}

/**
 * The status of a settings file that is a symbolic link to a regular file, read through the link as the agent
 * reads it (status only reads; install and uninstall never write through a link). Null when it is not one.
 */
function linkedStatus(hook: AgentHook, file: string): {installed: boolean; detail: string} | null {
  try {
    if (!lstatSync(file).isSymbolicLink() || !statSync(file).isFile()) return null
    const bytes = readFileSync(file)
    const text = bytes.toString('utf8')
    if (!Buffer.from(text, 'utf8').equals(bytes)) return null
    const s = hook.status(text)
    return {installed: s.installed, detail: `${s.detail} (read through the symbolic link ${file}; guard install and uninstall do not edit it: edit the file it points to by hand)`}
  } catch {
    return null
  }
}

/** What is installed, per agent (all agents with snapshot support, or the one named). Read-only. */
export function guardStatus(agent: string | undefined, opts: {home: string; env: NodeJS.ProcessEnv; stateDir?: string}): GuardStatus[] | {error: string} {
  let agents = guardAgents()
  if (agent !== undefined) {
    const a = agentAdapter(agent)
    if ('error' in a) return a
    agents = [a]
  }
  const store = listStore(opts.stateDir ?? defaultStateDir(opts.home, opts.env))
  return agents.map((a) => {
    const formats = new Set([a.name, ...(a.formats ?? [])])
    const mine = store.refs.filter((r) => formats.has(r.header.format))
    const newest = mine.reduce<string | null>((t, r) => (t === null || r.header.time > t ? r.header.time : t), null)
    const base = {agent: a.name, displayName: a.displayName, snapshots: mine.length, newest}
    const hook = a.snapshot!.hook
    if (!hook) return {...base, installed: false, file: null, detail: `no hook (${a.snapshot!.noHook}); chatdoctor guard install ${a.name} prints a timer`}
    const file = hook.configFile(opts.home, opts.env)
    const cur = readConfig(file)
    const s = 'error' in cur ? (linkedStatus(hook, file) ?? {installed: false, detail: cur.error}) : hook.status(cur.text)
    return {...base, installed: s.installed, file: tildify(file, opts.home), detail: s.detail}
  })
}
