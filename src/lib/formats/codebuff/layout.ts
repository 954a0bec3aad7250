/**
 * Codebuff CLI chat-dir layout: which file plays which role, where chat dirs live.
 * Source: codebuff-format.md §1 (CodebuffAI/freebuff cli/src/utils/run-state-storage.ts,
 * write-file-atomic.ts, config-dir.ts, project-files.ts; PR #1195 for `.bak`).
 */
import path from 'node:path'
import type {Role} from '../../model/report.js'

export const PRIMARY = 'run-state.json'
export const BACKUP = 'run-state.json.bak'
export const TRANSCRIPT = 'chat-messages.json'
export const META = 'chat-meta.json'
/** The legacy `npm-app` CLI's single state file (2025, removed 2025-12-10); not supported yet. */
export const LEGACY_MESSAGES = 'messages.json'

/** Files Codebuff writes that are not state generations: listed as `other`, not reported as unknown. */
export const KNOWN_OTHER = new Set(['log.jsonl', 'trace.jsonl', LEGACY_MESSAGES, 'screenshots'])

// `<file>.<pid>.tmp` (builds 92624321…315eec26, 2026-07) and `<file>.<pid>.<uuid>.tmp` (since 315eec26, 2026-07-09).
const TEMP_SUFFIX = String.raw`\.\d+(?:\.[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?\.tmp`
const RUN_STATE_TEMP = new RegExp(String.raw`^run-state\.json${TEMP_SUFFIX}$`)
const TRANSCRIPT_TEMP = new RegExp(String.raw`^chat-messages\.json${TEMP_SUFFIX}$`)
/**
 * Siblings other writers leave under the state file's name: `run-state.json.<anything>` (write-file-atomic's
 * `<name>.<32-bit number>`, `<name>.<uuid>.tmp`, `.backup.<ms>` / `.corrupted.<ms>` copies, …), the hidden
 * `.run-state.json.<pid>-<ms>.tmp` style, and `run-state.json-<digits>.json`. Temps by role: a generation
 * of the same state under a name the Codebuff CLI does not write (bug-log.md, "Temp and backup names"). Only
 * the characters such names use (letters, digits, `_ . - @ +`): a name shown escaped is never read.
 */
const RUN_STATE_SIBLING = /^\.?run-state\.json[.-][\w.@+-]+$/
const TRANSCRIPT_SIBLING = /^\.?chat-messages\.json[.-][\w.@+-]+$/

/** Chat ids: the UTC creation time with `:` replaced by `-` (cli/src/__tests__/project-files-chat-id.test.ts). */
export const CHAT_ID_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z$/

/** The role of a file in a Codebuff chat dir, by name. */
export function roleOf(name: string): Role {
  if (name === PRIMARY) return 'primary'
  if (name === BACKUP) return 'backup'
  if (RUN_STATE_TEMP.test(name)) return 'temp'
  if (name === TRANSCRIPT) return 'transcript'
  if (TRANSCRIPT_TEMP.test(name)) return 'transcript-temp'
  if (name === META) return 'meta'
  if (RUN_STATE_SIBLING.test(name)) return 'temp'
  if (TRANSCRIPT_SIBLING.test(name)) return 'transcript-temp'
  return 'other'
}

/** True for a temp or transcript temp whose name is not one the Codebuff CLI writes (another writer's sibling). */
export function unusualTempName(name: string): boolean {
  const role = roleOf(name)
  return (role === 'temp' && !RUN_STATE_TEMP.test(name)) || (role === 'transcript-temp' && !TRANSCRIPT_TEMP.test(name))
}

/**
 * The writer's pid in a temp's name (`<file>.<pid>[.<uuid>].tmp`, write-file-atomic.ts); null for other names.
 */
export function tempWriterPid(name: string): number | null {
  if (!RUN_STATE_TEMP.test(name) && !TRANSCRIPT_TEMP.test(name)) return null
  const m = /\.(\d+)(?:\.[0-9a-fA-F-]{36})?\.tmp$/.exec(name)
  return m ? Number(m[1]) : null
}

/** The Codebuff CLI's process names (the Freebuff build included), as they appear in its argv. */
export const AGENT_PROCESS = /codebuff|freebuff/i

/** Roles whose content a diagnosis needs. */
export function wantsContent(name: string): boolean {
  return roleOf(name) !== 'other'
}

/**
 * A folder is a Codebuff chat dir when it directly holds a `run-state.json*`, `chat-messages.json*` or legacy
 * `messages.json` file, or when it sits in a `chats/` folder (a dir holding only `log.jsonl` is made by
 * every CLI start; it is found here and then skipped).
 */
export function isChatDir(dir: string, names: string[]): boolean {
  if (path.basename(path.dirname(dir)) === 'chats' && path.basename(path.dirname(path.dirname(path.dirname(dir)))) === 'projects') return true
  return names.some((n) => n.startsWith(PRIMARY) || n.startsWith(TRANSCRIPT) || n === LEGACY_MESSAGES)
}

/**
 * Codebuff's config roots: `<home>/.config/manicode`, `-dev`, `-test`; the same on every OS, and XDG is not
 * honoured (codebuff-format.md §1.1).
 */
export function defaultRoots(home: string): string[] {
  return ['manicode', 'manicode-dev', 'manicode-test'].map((d) => path.join(home, '.config', d))
}
