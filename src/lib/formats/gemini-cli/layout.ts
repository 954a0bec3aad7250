/**
 * Gemini CLI's on-disk layout: where its session files are, how they are named, which files of a chats folder
 * belong to one session and what part each plays.
 *
 * Sources: the files the real `@google/gemini-cli@0.61.0` wrote in `shared/realdata/gemini-cli/0.61.0/`
 * (new-agents.md §1.1), and google-gemini/gemini-cli `packages/core/src/services/chatRecordingService.ts`
 * (file name, `.unreadable-<ms>` and `.tmp-<pid>`), `packages/cli/src/utils/sessionCleanup.ts` (the short id
 * taken from a name: `SHORT_ID_REGEX`) and `packages/core/src/utils/paths.ts` (`GEMINI_CLI_HOME`), the same in
 * the 0.61.0 bundle.
 */
import path from 'node:path'
import type {NameClaim} from '../jsonl/dialect.js'

/**
 * A session file as the CLI names it: `session-<UTC date>T<HH-MM>-<first 8 of the session id>.jsonl` (≥ 0.39;
 * `.json` before). The minute is the one of the process that created the file.
 */
export const SESSION_NAME = /^session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-([A-Za-z0-9]{8})\.jsonl?$/

/**
 * The CLI's own rule for a session file of its chats folder (`sessionUtils.ts`, `sessionCleanup.ts`): a name
 * starting `session-`, ending `.json` or `.jsonl`; its short id is the 8 characters before the extension.
 */
const LOOSE_SESSION_NAME = /^session-.*-([A-Za-z0-9]{8})\.jsonl?$/

/** A copy the CLI set aside when it could not reload a resumed session: `<session file>.unreadable-<ms>`. */
const UNREADABLE = /^(session-.*\.jsonl?)\.unreadable-(\d+)$/

/** A leftover temp of the CLI's rewrite of a session file: `<session file>.tmp-<pid>`. */
const TEMP = /^(session-.*\.jsonl?)\.tmp-(\d+)$/

/** A full session id (a UUID), as sub-agent folders are named: its first 8 characters are the short id. */
export const SESSION_ID = /^([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The name of the folder holding a project's session files, `~/.gemini/tmp/<project slug>/chats/`. */
export const CHATS_DIR = 'chats'

/** What part a file plays in a Gemini CLI session. */
export type GeminiFileKind = 'session' | 'unreadable' | 'temp'

/** A file of a chats folder that belongs to a session, by its name. */
export interface GeminiName {
  kind: GeminiFileKind
  /** The session file the name is (or is derived from). */
  session: string
  /** The short id the CLI's cleanup groups files by (8 characters). */
  shortId: string
  /** The `.unreadable-<ms>` time or the `.tmp-<pid>` pid. */
  number?: number
}

/** True for a folder that is a chats folder of Gemini CLI: named `chats`. */
export function isChatsDir(dir: string): boolean {
  return path.basename(dir) === CHATS_DIR
}

/**
 * The session a name belongs to, or null. In a `chats` folder the CLI's own loose rule applies; elsewhere (a
 * session file copied out) only the full name the CLI writes.
 */
export function parseName(dir: string, name: string): GeminiName | null {
  const loose = isChatsDir(dir)
  const sessionOf = (n: string) => (loose ? LOOSE_SESSION_NAME : SESSION_NAME).exec(n)
  const m = sessionOf(name)
  if (m) return {kind: 'session', session: name, shortId: m[1]}
  for (const [re, kind] of [[UNREADABLE, 'unreadable'], [TEMP, 'temp']] as const) {
    const d = re.exec(name)
    if (!d) continue
    const s = sessionOf(d[1])
    if (s) return {kind, session: d[1], shortId: s[1], number: Number(d[2])}
  }
  return null
}

/**
 * A sub-agent session: `chats/<parent session id>/<session id>.jsonl`. Named by its own id, so it is told apart
 * from another agent's `<uuid>.jsonl` by its place only: a folder named by a full session id (a UUID) directly
 * inside a `chats` folder (a Codebuff chat dir `chats/<creation time>/` with its `log.jsonl` is not one).
 */
export function isSubagentName(dir: string, name: string): boolean {
  return SESSION_ID.test(path.basename(dir)) && isChatsDir(path.dirname(dir)) && name.endsWith('.jsonl') && !name.startsWith('.')
}

/** True when the Gemini CLI adapter takes this name in this folder (the other JSON-lines adapters then leave it). */
export function isGeminiName(dir: string, name: string): boolean {
  return parseName(dir, name) !== null || isSubagentName(dir, name)
}

/** Gemini CLI in the JSON-lines family's names: its session files by name and place. */
export const GEMINI_NAMES: NameClaim = {name: 'gemini-cli', claimsName: (dir, name) => isGeminiName(dir, name)}

/**
 * The folders to search when no PATH is given: `<home>/.gemini/tmp`, where `<home>` is `$GEMINI_CLI_HOME` when
 * set (`paths.ts` `homedir()`), else the user's home.
 */
export function defaultRoots(home: string, env: NodeJS.ProcessEnv): string[] {
  const base = env.GEMINI_CLI_HOME ? path.resolve(env.GEMINI_CLI_HOME) : home
  return [path.join(base, '.gemini', 'tmp')]
}

/** The pid in a `.tmp-<pid>` temp's name, or null. */
export function tempWriterPid(name: string): number | null {
  const m = TEMP.exec(name)
  if (!m) return null
  const pid = Number(m[2])
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null
}

/**
 * The argv of the CLI's own process: `node …/@google/gemini-cli/bundle/gemini.js …` (it relaunches itself as a
 * child Node with the same script), or a `gemini` launcher on PATH.
 */
export const AGENT_PROCESS = /(?:^|[/\\])gemini(?:\.js)?$|@google[/\\]gemini-cli[/\\]/
