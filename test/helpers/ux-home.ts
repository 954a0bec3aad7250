/**
 * A home for the output-fitting, next-step and HTML-report tests: many chats of every agent under long and
 * odd folder names, some of them damaged, all copied from shared/realdata and damaged by code here.
 *
 * - Codebuff: 16 chats under a project folder whose name alone is wider than any terminal; one torn primary
 *   (repairable from the leftover temp, whose name is 61 characters), one zero-filled primary (unrecoverable),
 *   one stale sidecar (a time in a message). One more torn chat under a project folder with wide characters,
 *   spaces and quotes (a path that must be quoted in a command).
 * - Claude Code: the real project dir renamed to a long one, one session's last line torn (repairable).
 * - Codex: the real sessions.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {REALDATA, REAL_CHATS, copyRealChat, copyWritable, cutAt, keepEmbeddedRunStates, setMtime, syncChatMeta, zeroFill} from './fixtures.js'

/** A project folder name wider than any terminal. */
export const LONG = `a-project-whose-folder-name-is-long-enough-to-push-every-table-past-the-edge-of-the-terminal-${'x'.repeat(60)}`
/** A project folder name with wide characters, an emoji, spaces and quotes. */
export const ODD = `日本語のプロジェクト 🎉 it's "quoted"`

/** Where the Codebuff chats of a ux home are, relative to it. */
export const LONG_CHATS = path.join('.config', 'manicode', 'projects', LONG, 'chats')
export const ODD_CHATS = path.join('.config', 'manicode', 'projects', ODD, 'chats')

/** The ids of the ux home's notable chats. */
export const UX = {
  /** Torn primary; the winner is the leftover temp. */
  torn: '2025-11-10T00-00-00.000Z',
  /** Zero-filled primary: unrecoverable. */
  lost: '2025-11-10T00-00-01.000Z',
  /** Healthy, with a stale chat-meta.json. */
  stale: '2025-11-10T00-00-02.000Z',
  /** Torn primary under the odd folder. */
  odd: '2025-11-20T00-00-00.000Z',
  /** The Claude Code session with a torn last line. */
  claude: '3306629b-a8aa-4dc1-8716-233d3cbaea4c',
} as const

/** Chats in a ux home. */
export const UX_CHATS = 16 + 1 + 4 + 2

/** The Claude Code project dir of a ux home, relative to it. */
export const CLAUDE_PROJECT = path.join('.claude', 'projects', `-home-dev-${LONG}`)

/** Codebuff chat ids `2025-11-10T00-00-<ss>.000Z`. */
const id = (k: number) => `2025-11-10T00-00-${String(k).padStart(2, '0')}.000Z`

/** Builds a ux home in `home` (an empty folder). */
export function buildUxHome(home: string): void {
  for (let k = 0; k < 16; k++) copyRealChat(k % 2 === 0 ? REAL_CHATS.tenTurns : REAL_CHATS.small, home, LONG_CHATS, id(k))
  const torn = path.join(home, LONG_CHATS, UX.torn, 'run-state.json')
  writeFileSync(torn, cutAt(readFileSync(torn), 16384))
  // No copy of the context left: the primary zero-filled, the transcript without its embedded copies.
  const lost = path.join(home, LONG_CHATS, UX.lost)
  writeFileSync(path.join(lost, 'run-state.json'), zeroFill(readFileSync(path.join(lost, 'run-state.json'))))
  writeFileSync(path.join(lost, 'chat-messages.json'), keepEmbeddedRunStates(readFileSync(path.join(lost, 'chat-messages.json')), 0))
  syncChatMeta(lost)
  // The real sidecar records the real transcript's mtime, which no copy keeps: stale.
  const stale = path.join(home, LONG_CHATS, UX.stale, 'chat-meta.json')
  writeFileSync(stale, readFileSync(path.join(REALDATA, 'codebuff', REAL_CHATS.tenTurns, 'chat-meta.json')))
  setMtime(stale, Date.UTC(2026, 7, 30, 9, 0, 0))
  const odd = path.join(copyRealChat(REAL_CHATS.tenTurns, home, ODD_CHATS, UX.odd), 'run-state.json')
  writeFileSync(odd, cutAt(readFileSync(odd), 16384))

  copyWritable(path.join(REALDATA, 'claude-code', '2.1.328', 'home', '.claude', 'projects', '-home-dev-demo-app'), path.join(home, CLAUDE_PROJECT))
  const session = path.join(home, CLAUDE_PROJECT, `${UX.claude}.jsonl`)
  const data = readFileSync(session)
  writeFileSync(session, cutAt(data, data.length - 40))
  copyWritable(path.join(REALDATA, 'codex', '0.169.0', 'home', '.codex', 'sessions'), path.join(home, '.codex', 'sessions'))
}
