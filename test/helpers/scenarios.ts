/**
 * The scan scenarios: input trees built from the real Codebuff chats by code (copy, damage, set mtimes). Used by
 * `test/scenarios.test.ts` (a projection of `scan --json` against `test/scenarios/<name>.expect.json`) and by
 * the golden test (the whole `--json` output of scan, repair --dry-run, inspect and check).
 */
import {existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {
  REALDATA,
  REAL_CHATS,
  TEN_TURN_TEMP,
  copyRealChat,
  cutAt,
  insertIntoFirstText,
  invalidByteAt,
  keepEmbeddedRunStates,
  nulTailAt,
  setMtime,
  syncChatMeta,
  withBom,
  zeroFill,
} from './fixtures.js'

/** Codebuff's chats folder inside a fake home. */
const CHATS = path.join('.config', 'manicode', 'projects', 'demo-app', 'chats')
const {small: SMALL, tenTurns: TEN, large: LARGE} = REAL_CHATS
/** A fixed base time for files a scenario creates (ms since epoch). */
const T0 = Date.UTC(2026, 7, 30, 9, 0, 0)

/** Replaces a file's bytes, keeping the mtime the copy gave it (or setting `mtimeMs`). */
function rewrite(dir: string, name: string, damage: (b: Buffer) => Buffer, mtimeMs?: number): void {
  const p = path.join(dir, name)
  const before = existsSync(p) ? statSync(p).mtimeMs : T0
  writeFileSync(p, damage(existsSync(p) ? readFileSync(p) : Buffer.alloc(0)))
  setMtime(p, mtimeMs ?? before)
}

/** Writes a new file with a given mtime. */
function put(dir: string, name: string, data: Buffer | string, mtimeMs = T0): void {
  mkdirSync(dir, {recursive: true})
  writeFileSync(path.join(dir, name), data)
  setMtime(path.join(dir, name), mtimeMs)
}

const read = (dir: string, name: string) => readFileSync(path.join(dir, name))
const half = (b: Buffer) => cutAt(b, b.length >> 1)

/** codebuff-format.md §6.7 and §6.8, byte for byte. */
const PLACEHOLDER = '{"output":{"type":"error","message":"Previous run state could not be restored."},"traceSessionId":"e41c7a90-55d2-4b8e-b3f1-0c9d8e7f6a5b"}'
const FRESH_CHAT = '{"traceSessionId":"5b8f1d2e-7c44-4e0a-9a61-2f3d8c0b9e17","output":{"type":"error","message":"The session ended before this response completed. Partial progress has been preserved."}}'

export interface Scenario {
  name: string
  /** Builds the tree under `root` (also HOME) and returns the CLI arguments after `scan --json`. */
  build(root: string): string[]
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'healthy-real-chats',
    build(root) {
      for (const id of [SMALL, TEN, LARGE]) copyRealChat(id, root)
      return [root]
    },
  },
  {
    name: 'truncated-primary-with-bak-and-temp',
    // The temp covers turn 10 (its turn-11 prompt has no transcript turn), the .bak turn 9: the temp wins on N.
    build(root) {
      rewrite(copyRealChat(TEN, root), 'run-state.json', half)
      return [root]
    },
  },
  {
    name: 'empty-primary',
    build(root) {
      rewrite(copyRealChat(TEN, root), 'run-state.json', () => Buffer.alloc(0))
      return [root]
    },
  },
  {
    name: 'zero-filled-primary',
    // The 1-turn chat has no other run-state file, but its transcript's AI message embeds the turn-1 RunState
    //: that embedded copy wins.
    build(root) {
      rewrite(copyRealChat(SMALL, root), 'run-state.json', zeroFill)
      return [root]
    },
  },
  {
    name: 'nul-padded-primary',
    build(root) {
      rewrite(copyRealChat(TEN, root), 'run-state.json', (b) => nulTailAt(b, 20_000))
      return [root]
    },
  },
  {
    name: 'bom-primary',
    build(root) {
      rewrite(copyRealChat(TEN, root), 'run-state.json', withBom)
      return [root]
    },
  },
  {
    name: 'invalid-utf8-primary',
    build(root) {
      rewrite(copyRealChat(TEN, root), 'run-state.json', (b) => invalidByteAt(b, b.indexOf('"text":"') + 12))
      return [root]
    },
  },
  {
    name: 'torn-inside-multibyte-primary',
    build(root) {
      rewrite(copyRealChat(TEN, root), 'run-state.json', (b) => {
        const {buf, at} = insertIntoFirstText(b)
        return cutAt(buf, buf.indexOf('日', at) + 1)
      })
      return [root]
    },
  },
  {
    name: 'placeholder-primary-with-intact-bak',
    build(root) {
      const dir = copyRealChat(TEN, root)
      rmSync(path.join(dir, TEN_TURN_TEMP))
      rewrite(dir, 'run-state.json', () => Buffer.from(PLACEHOLDER))
      return [root]
    },
  },
  {
    name: 'fresh-chat-no-agent-turn',
    // A brand-new chat after the turn-start save: the SDK stand-in, and a transcript whose one user message
    // has no ai- answer yet (the real 1-turn transcript up to its first ai- message).
    build(root) {
      const dir = path.join(root, CHATS, '2026-08-30T09-15-02.417Z')
      const transcript = JSON.parse(read(path.join(REALDATA, 'codebuff', SMALL), 'chat-messages.json').toString('utf8')) as Array<{id: string}>
      put(dir, 'chat-messages.json', JSON.stringify(transcript.slice(0, transcript.findIndex((m) => m.id.startsWith('ai-')))), T0)
      put(dir, 'run-state.json', FRESH_CHAT, T0 + 1000)
      return [root]
    },
  },
  {
    name: 'missing-primary-with-bak',
    // A crash between rotating run-state.json to .bak and writing the new one.
    build(root) {
      const dir = copyRealChat(TEN, root)
      rmSync(path.join(dir, 'run-state.json'))
      rmSync(path.join(dir, TEN_TURN_TEMP))
      return [root]
    },
  },
  {
    name: 'bak-older-than-complete-temp',
    // .bak and temp hold the same generation (equal N, sentAt, history); the temp's mtime is newer: it wins.
    // The transcript is as on disk right after turn 10 (its newest AI message has no embedded RunState yet,
    // codebuff-format.md §1.5), so its turn-9 copy ties with them too and loses on mtime.
    build(root) {
      const dir = copyRealChat(TEN, root)
      rewrite(dir, 'run-state.json', half)
      rewrite(dir, TEN_TURN_TEMP, () => read(dir, 'run-state.json.bak'), T0 + 60_000)
      setMtime(path.join(dir, 'run-state.json.bak'), T0)
      rewrite(dir, 'chat-messages.json', (b) => keepEmbeddedRunStates(b, 9))
      syncChatMeta(dir)
      return [root]
    },
  },
  {
    name: 'equal-mtimes-name-tie-break',
    // Same generation in .bak, temp and the transcript's turn-9 copy (its turn-10 AI message has no embedded
    // RunState yet, §1.5), all with the same mtime (a coarse file system): the byte-wise larger name wins
    // ("run-state.json.bak" > "run-state.json.41231…tmp" > "chat-messages.json#…").
    build(root) {
      const dir = copyRealChat(TEN, root)
      rewrite(dir, 'run-state.json', half)
      rewrite(dir, TEN_TURN_TEMP, () => read(dir, 'run-state.json.bak'), T0)
      setMtime(path.join(dir, 'run-state.json.bak'), T0)
      rewrite(dir, 'chat-messages.json', (b) => keepEmbeddedRunStates(b, 9), T0)
      syncChatMeta(dir)
      return [root]
    },
  },
  {
    name: 'primary-behind-temp',
    // The primary is usable but one turn behind a complete temp (strictly higher N): repairable.
    build(root) {
      const dir = copyRealChat(TEN, root)
      rewrite(dir, 'run-state.json', () => read(dir, 'run-state.json.bak'))
      rmSync(path.join(dir, 'run-state.json.bak'))
      return [root]
    },
  },
  {
    name: 'all-generations-torn',
    // Every run-state file torn: the transcript's embedded copy of turn 10 wins; repairable.
    build(root) {
      const dir = copyRealChat(TEN, root)
      for (const f of ['run-state.json', 'run-state.json.bak', TEN_TURN_TEMP]) rewrite(dir, f, half)
      return [root]
    },
  },
  {
    name: 'all-generations-and-transcript-torn',
    // Every run-state file torn and the transcript too: the transcript's complete messages still hold the
    // embedded states of turns 1–6 byte for byte, so the turn-6 copy wins (repairable, not lost); the torn
    // transcript is an error finding, restorable from its own salvage (a lossy one: M stays unknown).
    build(root) {
      const dir = copyRealChat(TEN, root)
      for (const f of ['run-state.json', 'run-state.json.bak', TEN_TURN_TEMP, 'chat-messages.json']) rewrite(dir, f, half)
      return [root]
    },
  },
  {
    name: 'no-transcript',
    build(root) {
      rmSync(path.join(copyRealChat(SMALL, root), 'chat-messages.json'))
      return [root]
    },
  },
  {
    name: 'damaged-transcript',
    // The transcript's salvage (its complete messages, closed) restores it: repairable. The salvage drops the
    // torn AI answer, so M stays null and N is the primary's own prompt count.
    build(root) {
      rewrite(copyRealChat(SMALL, root), 'chat-messages.json', half)
      return [root]
    },
  },
  {
    name: 'damaged-transcript-own-prompt-counts',
    // With M null, N is each generation's own prompt count: the temp's 11 prompts beat the primary's 10.
    build(root) {
      rewrite(copyRealChat(TEN, root), 'chat-messages.json', half)
      return [root]
    },
  },
  {
    name: 'skipped-log-only-and-legacy-dirs',
    build(root) {
      copyRealChat(SMALL, root)
      put(path.join(root, CHATS, '2026-08-31T10-00-00.000Z'), 'log.jsonl', '{"level":30,"msg":"start"}\n')
      const legacy = path.join(root, CHATS, '2025-06-01T12-00-00.000Z')
      put(legacy, 'messages.json', JSON.stringify({id: '2025-06-01T12-00-00.000Z', messages: [], updatedAt: '2025-06-01T12:30:00.000Z'}, null, 2))
      put(legacy, 'log.jsonl', '')
      return [root]
    },
  },
  {
    name: 'chat-reached-twice',
    build(root) {
      const dir = copyRealChat(TEN, root)
      return [path.join(root, CHATS), dir, path.join(root, '.config'), dir + '/']
    },
  },
  {
    name: 'symlinked-dir-not-followed',
    build(root) {
      copyRealChat(SMALL, root, path.join('scan', 'exported'))
      copyRealChat(TEN, root, 'outside')
      symlinkSync(path.join(root, 'outside'), path.join(root, 'scan', 'linked'))
      return [path.join(root, 'scan')]
    },
  },
  {
    name: 'nonexistent-path',
    // The missing PATH is an operational error (exit 8); the rest of the scan goes on.
    build(root) {
      copyRealChat(SMALL, root)
      return [path.join(root, 'no-such-dir'), path.join(root, '.config', 'manicode')]
    },
  },
  {
    name: 'default-roots-via-home',
    // No PATH: ~/.config/manicode, -dev and -test are searched; a chat elsewhere in the home is not.
    build(root) {
      copyRealChat(SMALL, root)
      copyRealChat(TEN, root, path.join('.config', 'manicode-dev', 'projects', 'other-app', 'chats'))
      const torn = copyRealChat(SMALL, root, path.join('.config', 'manicode-test', 'projects', 'app', 'chats'))
      rewrite(torn, 'run-state.json', half)
      copyRealChat(TEN, root, path.join('elsewhere', 'chats'))
      return []
    },
  },
  {
    name: 'default-roots-none-present',
    build() {
      return []
    },
  },
  {
    name: 'path-is-a-file',
    // A PATH naming a file stands for the chat dir holding it.
    build(root) {
      const dir = copyRealChat(TEN, root)
      return [path.join(dir, 'run-state.json.bak')]
    },
  },
  {
    name: 'torn-leftover-temp-on-healthy-chat',
    build(root) {
      const dir = copyRealChat(SMALL, root)
      put(dir, 'run-state.json.4242.tmp', cutAt(read(dir, 'run-state.json'), 3000), T0 + 10_000)
      put(dir, 'notes.txt', 'not a Codebuff file\n', T0)
      return [root]
    },
  },
]
