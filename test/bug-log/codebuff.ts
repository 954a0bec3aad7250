/**
 * The Codebuff part of the bug log: every report whose agent is Codebuff, and the Codebuff analog of every
 * other report whose damage shape applies to a single-JSON-document state (`run-state.json`, its `.bak` and
 * temps, `chat-messages.json`, `chat-meta.json`). Each damage is built by code on copies of the real 10-turn
 * chat in `shared/realdata/codebuff` (see `tenTurnChat`); the expected verdicts follow the rules of
 * `docs/diagnosis.md` and were checked by hand against them.
 */
import {mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {REALDATA, REAL_CHATS, TEN_TURN_TEMP, copyRealChat, cutAt, keepEmbeddedRunStates, nulPadded, nulRunAt, nulTailAt, seededRandom, setMtime, syncChatMeta, withBom} from '../helpers/fixtures.js'
import type {BugLogEntry, BugLogPart, ChatVerdict, NoEntry, RepairVerdict} from './types.js'
import {LogFolder} from './session-logs.js'

type RepairAfter = RepairVerdict['after']

const TEN = REAL_CHATS.tenTurns
const SMALL = REAL_CHATS.small
const LARGE = REAL_CHATS.large
/** The files of the real 180-turn chat, each intact. */
const LARGE_FILES = {'run-state.json': 'intact', 'chat-messages.json': 'intact', 'chat-meta.json': 'intact'}
/**
 * One byte above the 180-turn chat's transcript, below its run-state: the state is read the way a state over
 * V8's longest string is (`formats/codebuff/large.ts`), the transcript whole.
 */
/** `bundle --redact` reads every file whole: a state it would stream is refused, as one over V8's longest string is. */
const LARGE_REDACT_REFUSED = /run-state\.json holds \d+ bytes, more than --redact can read whole/
const LARGE_THRESHOLD = statSync(path.join(REALDATA, 'codebuff', REAL_CHATS.large, 'chat-messages.json')).size + 1
/** Codebuff's chats folder inside a fake home. */
const CHATS = path.join('.config', 'manicode', 'projects', 'demo-app', 'chats')
/** The base time `copyRealChat` gives the copied files (ms since epoch); they get +0…+4 s in a fixed order. */
const T0 = Date.UTC(2026, 7, 30, 9, 0, 0)

const real = (chat: string, name: string): Buffer => readFileSync(path.join(REALDATA, 'codebuff', chat, name))

/**
 * The state of turn `k` (1–10) of the real 10-turn chat, byte for byte as the CLI wrote it: the transcript's
 * embedded copy of that turn (turn 9's is the real `.bak`, turn 10's the real `run-state.json`). Compact JSON
 * round-trips the real files byte for byte.
 */
function stateOfTurn(k: number): Buffer {
  const t = JSON.parse(real(TEN, 'chat-messages.json').toString('utf8')) as Array<{metadata?: {runState?: unknown}}>
  const copies = t.filter((m) => m.metadata?.runState !== undefined)
  return Buffer.from(JSON.stringify(copies[k - 1].metadata!.runState))
}

/** A state with its message history replaced (compact JSON, as the CLI writes it). */
function withHistory(state: Buffer, edit: (history: unknown[]) => unknown[]): Buffer {
  const v = JSON.parse(state.toString('utf8')) as {sessionState: {mainAgentState: {messageHistory: unknown[]}}}
  v.sessionState.mainAgentState.messageHistory = edit(v.sessionState.mainAgentState.messageHistory)
  return Buffer.from(JSON.stringify(v))
}

/** Index in a history of the k-th (1-based) `USER_PROMPT` message. */
function promptIndex(history: unknown[], k: number): number {
  let n = 0
  for (let i = 0; i < history.length; i++) {
    const m = history[i] as {role?: string; tags?: string[]}
    if (m.role === 'user' && m.tags?.includes('USER_PROMPT') && ++n === k) return i
  }
  return -1
}

/** Bytes with `bytes` written over `at…` (same size). */
function overwrite(buf: Buffer, at: number, bytes: Buffer): Buffer {
  const b = Buffer.from(buf)
  bytes.copy(b, at)
  return b
}

/** One chat dir of a tree under construction (files written new get T0). */
class Chat extends LogFolder {
  constructor(dir: string) {
    super(dir, T0)
  }
}

/**
 * The base of most entries: a copy of the real 10-turn chat as the CLI leaves it after turn 10 — `run-state.json`
 * (turn 10, mtime T0+4 s), `run-state.json.bak` (turn 9, T0+1 s), `chat-messages.json` (10 turns, T0+3 s) whose
 * AI messages embed the states of turns 1–9 (the newest AI message gets its copy only at the next save,
 * codebuff-format.md §1.5), `chat-meta.json` (T0) — without the real leftover temp unless `temp`.
 */
function tenTurnChat(root: string, opts: {temp?: boolean; embedded?: number; name?: string} = {}): Chat {
  const c = new Chat(copyRealChat(TEN, root, CHATS, opts.name ?? TEN))
  if (!opts.temp) c.remove(TEN_TURN_TEMP)
  c.damage('chat-messages.json', (b) => keepEmbeddedRunStates(b, opts.embedded ?? 9))
  syncChatMeta(c.dir)
  return c
}

/**
 * The transcript's copy of the turn-9 state: byte for byte the `.bak`, and newer by mtime (the transcript is
 * written after the `.bak` is rotated aside), so it is the turn-9 generation that wins a tie.
 */
const TURN_9_COPY = 'chat-messages.json#ai-1762265433300-2b28c8cf3b2ed'

/** The files of the base chat, each intact. */
const BASE_FILES = {'run-state.json': 'intact', 'run-state.json.bak': 'intact', 'chat-messages.json': 'intact', 'chat-meta.json': 'intact'}

/** Verdict of the base chat with `changes` to its files (a `null` removes a file from the list). */
function files(changes: Record<string, string | null> = {}): Record<string, string> {
  const out: Record<string, string> = {...BASE_FILES}
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) delete out[k]
    else out[k] = v
  }
  return out
}

/** The chat of the base, healthy at turn 10 of 10, as a repair leaves it. */
const HEALTHY_AFTER: RepairAfter = {status: 'healthy', winner: 'run-state.json', turns: [10, 10], exitCode: 0}
/** After restoring the turn-9 state: healthy, turn 10 in the transcript but not in the agent's memory. */
const HEALTHY_9_AFTER: RepairAfter = {status: 'healthy', winner: 'run-state.json', turns: [9, 10], exitCode: 0}

/** A verdict for the base chat. */
function tenVerdict(v: Omit<ChatVerdict, 'chat'>): ChatVerdict {
  return {chat: TEN, embeddedCopies: 9, ...v}
}

/** The plain repair that restores `run-state.json` from `from` (its bytes, as they were) and leaves `after`. */
function restorePrimary(from: string, after: NonNullable<BugLogEntry['expect']['repair']>['after'], bytes?: (before: (name: string) => Buffer) => Buffer): NonNullable<BugLogEntry['expect']['repair']> {
  return {chat: TEN, outcome: 'repaired', restores: [{to: 'run-state.json', from, bytes: bytes ?? ((b) => b(from))}], exitCode: 1 | (after.exitCode & 4), after}
}

const lastBlock = (len: number) => len - (len % 4096 === 0 ? 4096 : len % 4096)
/** Offset of the first assistant text of the real 10-turn primary ("Let me look at the code for step 1."). */
const ASSISTANT_TEXT = (b: Buffer) => b.indexOf('Let me look at the code for step 1.')

/** An entry of this part (agent and format filled in). */
const entry = (e: Omit<BugLogEntry, 'agent' | 'format'>): BugLogEntry => ({agent: 'Codebuff', format: 'codebuff', ...e})

const entries: BugLogEntry[] = [
  // ---- K1 empty ----------------------------------------------------------------------------------------
  entry({
    id: 'B01',
    title: 'zero-length run-state.json is empty, not truncated',
    damage: 'run-state.json left at 0 bytes (ENOSPC during a truncate-then-write); the .bak (turn 9) intact',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', () => Buffer.alloc(0))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [tenVerdict({status: 'repairable', winner: TURN_9_COPY, turns: [9, 10], files: files({'run-state.json': 'empty'}), findings: ['primary-damaged', 'context-behind-transcript']})],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
  entry({
    id: 'B02',
    title: 'empty run-state.json with no other generation: lost, reported, nothing reset',
    damage: 'run-state.json is a single LF; no .bak, no temp, no embedded copy: no other generation',
    build(root) {
      const c = tenTurnChat(root, {embedded: 0})
      c.remove('run-state.json.bak')
      c.damage('run-state.json', () => Buffer.from('\n'))
      return c.dir
    },
    expect: {
      exitCode: 4,
      chats: [{chat: TEN, embeddedCopies: 0, status: 'unrecoverable', winner: null, turns: [null, 10], files: files({'run-state.json': 'empty', 'run-state.json.bak': null}), findings: ['primary-damaged', 'context-lost']}],
      repair: null,
    },
  }),
  entry({
    id: 'B03',
    title: 'empty and torn leftover temps beside a healthy chat, and a log-only sibling dir',
    damage: 'five 0-byte run-state.json.<pid>.tmp and two temps cut at 300 bytes beside an intact chat; a chat dir holding only log.jsonl',
    build(root) {
      const c = tenTurnChat(root)
      for (let i = 0; i < 5; i++) c.write(`run-state.json.${4200 + i}.tmp`, Buffer.alloc(0), T0 + 10_000 + i)
      for (let i = 0; i < 2; i++) c.write(`run-state.json.${4300 + i}.tmp`, cutAt(stateOfTurn(10), 300), T0 + 20_000 + i)
      const orphan = path.join(root, CHATS, '2026-08-31T10-00-00.000Z')
      mkdirSync(orphan, {recursive: true})
      writeFileSync(path.join(orphan, 'log.jsonl'), '{"level":30,"msg":"start"}\n')
      return path.join(root, CHATS)
    },
    expect: {
      exitCode: 0,
      chats: [
        tenVerdict({
          status: 'healthy',
          winner: 'run-state.json',
          turns: [10, 10],
          files: files({
            'run-state.json.4200.tmp': 'empty',
            'run-state.json.4201.tmp': 'empty',
            'run-state.json.4202.tmp': 'empty',
            'run-state.json.4203.tmp': 'empty',
            'run-state.json.4204.tmp': 'empty',
            'run-state.json.4300.tmp': 'truncated unexpected-end',
            'run-state.json.4301.tmp': 'truncated unexpected-end',
          }),
          findings: ['temp-damaged'],
        }),
      ],
      skipped: ['2026-08-31T10-00-00.000Z'],
      repair: null,
    },
  }),
  // ---- K2 whole file zero-filled -------------------------------------------------------------------------
  entry({
    id: 'B04',
    title: 'a zero-filled run-state.json with no generation does not hide the other chats',
    damage: 'run-state.json = 413 NUL bytes, no other generation; two healthy chats beside it',
    build(root) {
      const bad = tenTurnChat(root, {embedded: 0})
      bad.remove('run-state.json.bak')
      bad.damage('run-state.json', () => Buffer.alloc(413))
      copyRealChat(SMALL, root)
      tenTurnChat(root, {name: '2025-11-05T10-00-00.000Z'})
      return path.join(root, CHATS)
    },
    expect: {
      exitCode: 4,
      chats: [
        {chat: SMALL, status: 'healthy', winner: 'run-state.json', turns: [1, 1], files: {'run-state.json': 'intact', 'chat-messages.json': 'intact'}},
        {chat: TEN, embeddedCopies: 0, status: 'unrecoverable', winner: null, turns: [null, 10], files: files({'run-state.json': 'zero-filled', 'run-state.json.bak': null}), findings: ['primary-damaged', 'context-lost']},
        {chat: '2025-11-05T10-00-00.000Z', embeddedCopies: 9, status: 'healthy', winner: 'run-state.json', turns: [10, 10], files: files()},
      ],
      repair: null,
    },
  }),
  entry({
    id: 'B05',
    title: 'a 4 KiB zero-filled primary restored from the .bak one turn older',
    damage: 'run-state.json = 4096 NUL bytes (one block, a VM crash); .bak = the turn-9 state',
    build(root) {
      const c = tenTurnChat(root)
      c.write('run-state.json', Buffer.alloc(4096))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [tenVerdict({status: 'repairable', winner: TURN_9_COPY, turns: [9, 10], files: files({'run-state.json': 'zero-filled'}), findings: ['primary-damaged', 'context-behind-transcript']})],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
  entry({
    id: 'B05',
    title: 'every generation damaged: no intact generation, nothing written',
    damage: 'run-state.json = 4096 NULs, .bak cut at 60%, no embedded copy (all the versions bad)',
    build(root) {
      const c = tenTurnChat(root, {embedded: 0})
      c.write('run-state.json', Buffer.alloc(4096))
      c.damage('run-state.json.bak', (b) => cutAt(b, Math.floor(b.length * 0.6)))
      return c.dir
    },
    expect: {
      exitCode: 4,
      chats: [
        {
          chat: TEN,
          embeddedCopies: 0,
          status: 'unrecoverable',
          winner: null,
          turns: [null, 10],
          files: files({'run-state.json': 'zero-filled', 'run-state.json.bak': 'truncated unexpected-end'}),
          findings: ['primary-damaged', 'backup-damaged', 'context-lost', 'salvage-available'],
          salvage: {'run-state.json.bak': {lossless: false, candidate: false}},
          account: [/No complete state of the agent context survives\./],
        },
      ],
      repair: null,
    },
  }),
  // ---- K3 NUL runs inside otherwise valid content --------------------------------------------------------
  entry({
    id: 'B06',
    title: 'a NUL block inside run-state.json: corrupt nul-run, the .bak wins',
    damage: 'bytes 8192–12287 of run-state.json overwritten by NULs (a block that never reached the disk), size kept',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => nulRunAt(b, 8192, 4096))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: TURN_9_COPY,
          turns: [9, 10],
          files: files({'run-state.json': 'corrupt nul-run'}),
          findings: ['primary-damaged', 'salvage-available'],
          absent: ['salvage-more-turns'],
          salvage: {'run-state.json': {lossless: false, turns: 4}},
          account: [/has zeros inside it from byte 8192 \(a 4096-byte block boundary\)/],
        }),
      ],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
  entry({
    id: 'B07',
    title: 'the last block of run-state.json zero-filled: more turns only with borrowed values, and the command that uses them',
    damage: 'the last 4096-byte block of run-state.json (inside fileContext, after the whole history) is NULs, size kept',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => nulTailAt(b, lastBlock(b.length)))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: TURN_9_COPY,
          turns: [9, 10],
          files: files({'run-state.json': 'truncated unexpected-end nul-tail'}),
          findings: ['primary-damaged', 'salvage-available', 'salvage-more-turns'],
          salvage: {'run-state.json': {lossless: false, messages: 60, turns: 10, candidate: true}},
          account: [/^The process most likely died while saving the state after turn 10: run-state\.json stops at byte 24576 \(a 4096-byte block boundary\) and zeros fill the rest of its 26966 bytes/, /More turns are reachable only with values borrowed from other generations: chatdoctor repair --salvage /],
        }),
      ],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
  entry({
    id: 'B08',
    title: 'NULs after a complete run-state.json: a lossless salvage wins under plain repair',
    damage: 'the complete turn-10 state followed by 1728 NUL bytes (a buffered write extended the file)',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => nulPadded(b, 1728))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: 'salvage:run-state.json',
          turns: [10, 10],
          files: files({'run-state.json': 'corrupt nul-tail'}),
          findings: ['primary-damaged', 'salvage-available'],
          absent: ['salvage-more-turns'],
          salvage: {'run-state.json': {lossless: true, messages: 60, turns: 10, candidate: true}},
          account: [/after writing the complete state of turn 10: run-state\.json is complete but padded with 1728 zero bytes/, /The best state is the lossless salvage of run-state\.json \(turn 10 of 10\)/],
        }),
      ],
      repair: restorePrimary('salvage:run-state.json', HEALTHY_AFTER, () => stateOfTurn(10)),
    },
  }),
  // ---- K4 single JSON document cut at a byte boundary ----------------------------------------------------
  entry({
    id: 'B09',
    title: 'run-state.json cut at 37% beside an intact .bak and a torn .corrupted copy',
    damage: 'run-state.json = its first 37% (concurrent writers); .bak = turn 9; run-state.json.corrupted.<ms> = the first 157 bytes of a save',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => cutAt(b, Math.floor(b.length * 0.37)))
      c.write('run-state.json.corrupted.1788081302417', cutAt(stateOfTurn(10), 157), T0 + 2000)
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: TURN_9_COPY,
          turns: [9, 10],
          files: files({'run-state.json': 'truncated unexpected-end', 'run-state.json.corrupted.1788081302417': 'truncated unexpected-end'}),
          findings: ['primary-damaged', 'temp-damaged', 'context-behind-transcript'],
          account: [/while saving the state of turn 5 or a later one, up to turn 10 \(the last prompt in its surviving bytes is turn 5's\): run-state\.json stops mid-document at byte 9977/],
        }),
      ],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
  entry({
    id: 'B10',
    title: 'chat-messages.json missing its closing bracket: a lossless transcript salvage restores it',
    damage: 'the final ] of chat-messages.json missing (the file ends with the last message\'s }); everything else intact',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('chat-messages.json', (b) => cutAt(b, b.length - 1))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: 'run-state.json',
          turns: [10, 10],
          files: files({'chat-messages.json': 'truncated unexpected-end'}),
          findings: ['transcript-damaged', 'meta-stale'],
          absent: ['primary-behind'],
          salvage: {'chat-messages.json': {lossless: true, messages: 21, turns: 10}},
          transcriptRestore: 'salvage:chat-messages.json',
          account: [/The transcript is torn \(the agent would load it as empty\); its salvage keeps 21 complete messages byte for byte \(10 agent turns\) and loses nothing that was written\./],
        }),
      ],
      repair: {
        chat: TEN,
        outcome: 'repaired',
        restores: [{to: 'chat-messages.json', from: 'salvage:chat-messages.json', bytes: (b) => Buffer.concat([b('chat-messages.json'), Buffer.from(']')])}],
        exitCode: 1,
        after: HEALTHY_AFTER,
      },
    },
  }),
  entry({
    id: 'B10',
    title: 'run-state.json missing its closing brace: a lossless salvage, not an older generation',
    damage: 'the final } of run-state.json missing: every message and member written, only the closing syntax cut off',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => cutAt(b, b.length - 1))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: 'salvage:run-state.json',
          turns: [10, 10],
          files: files({'run-state.json': 'truncated unexpected-end'}),
          findings: ['primary-damaged', 'salvage-available'],
          absent: ['context-behind-transcript', 'salvage-more-turns'],
          salvage: {'run-state.json': {lossless: true, messages: 60, turns: 10}},
          account: [/while saving the state after turn 10/],
        }),
      ],
      repair: restorePrimary('salvage:run-state.json', HEALTHY_AFTER, () => stateOfTurn(10)),
    },
  }),
  // ---- K5 torn last record ------------------------------------------------------------------------------
  entry({
    id: 'B11',
    title: 'run-state.json torn inside its last message: turn 10 only with borrowed values',
    damage: 'run-state.json cut inside the last message of its history (turn 10\'s answer), no trailing bytes',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => cutAt(b, b.indexOf('"stepsRemaining"') - 60))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: TURN_9_COPY,
          turns: [9, 10],
          files: files({'run-state.json': 'truncated unexpected-end'}),
          findings: ['primary-damaged', 'salvage-available', 'salvage-more-turns'],
          salvage: {'run-state.json': {lossless: false, messages: 59, turns: 10, candidate: true}},
          account: [/while saving the state after turn 10/, /chatdoctor repair --salvage /],
        }),
      ],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
  // ---- K6 interior damage with valid content after -------------------------------------------------------
  entry({
    id: 'B12',
    title: 'a sector of another file inside run-state.json: corrupt syntax-error, valid bytes after it unused',
    damage: 'bytes 10240–10751 of run-state.json overwritten by a sector of another chat\'s transcript; the rest intact',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => overwrite(b, 10240, real(SMALL, 'chat-messages.json').subarray(1024, 1536)))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [tenVerdict({status: 'repairable', winner: TURN_9_COPY, turns: [9, 10], files: files({'run-state.json': 'corrupt syntax-error'}), findings: ['primary-damaged', 'salvage-available'], salvage: {'run-state.json': {lossless: false}}})],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
  // ---- K7 overlapping, interleaved or concatenated writes ------------------------------------------------
  entry({
    id: 'B13',
    title: 'a torn save followed by the next complete one: the complete document is a generation',
    damage: 'run-state.json = the first 40% of the turn-9 save, then (no separator) the complete turn-10 state',
    build(root) {
      const c = tenTurnChat(root)
      const stub = cutAt(stateOfTurn(9), Math.floor(stateOfTurn(9).length * 0.4))
      c.write('run-state.json', Buffer.concat([stub, stateOfTurn(10)]))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: 'run-state.json@9770',
          turns: [10, 10],
          files: files({'run-state.json': 'corrupt syntax-error', 'run-state.json@9770': 'intact'}),
          findings: ['primary-damaged'],
          account: [/run-state\.json holds a torn write followed by a complete document: run-state\.json@9770 \(turn 10\)/],
        }),
      ],
      repair: restorePrimary('run-state.json@9770', HEALTHY_AFTER, () => stateOfTurn(10)),
    },
  }),
  entry({
    id: 'B14',
    title: 'the same state written twice back to back: a duplicated write, restored once',
    damage: 'run-state.json = the turn-10 state twice, no separator (a re-emitted write)',
    build(root) {
      const c = tenTurnChat(root)
      c.write('run-state.json', Buffer.concat([stateOfTurn(10), stateOfTurn(10)]))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: 'run-state.json@26966',
          turns: [10, 10],
          files: files({'run-state.json': 'corrupt concatenated', 'run-state.json@0': 'intact', 'run-state.json@26966': 'intact'}),
          findings: ['primary-damaged'],
          absent: ['salvage-available'],
          account: [/run-state\.json holds 2 complete documents back to back: run-state\.json@0 \(turn 10\), run-state\.json@26966 \(turn 10\)/],
        }),
      ],
      repair: restorePrimary('run-state.json@26966', HEALTHY_AFTER, () => stateOfTurn(10)),
    },
  }),
  entry({
    id: 'B15',
    title: 'a torn save, a line break, then its complete twin',
    damage: 'run-state.json = the first 35% of the turn-10 state, LF, then the complete turn-10 state (two writers)',
    build(root) {
      const c = tenTurnChat(root)
      const s = stateOfTurn(10)
      c.write('run-state.json', Buffer.concat([cutAt(s, Math.floor(s.length * 0.35)), Buffer.from('\n'), s]))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: 'run-state.json@9439',
          turns: [10, 10],
          files: files({'run-state.json': 'corrupt syntax-error', 'run-state.json@9439': 'intact'}),
          findings: ['primary-damaged'],
        }),
      ],
      repair: restorePrimary('run-state.json@9439', HEALTHY_AFTER, () => stateOfTurn(10)),
    },
  }),
  entry({
    id: 'B16',
    title: 'concatenated generations: the newer document wins, its exact bytes restored',
    damage: 'run-state.json = the complete turn-9 state immediately followed by the complete turn-10 state; .bak = turn 9',
    build(root) {
      const c = tenTurnChat(root)
      c.write('run-state.json', Buffer.concat([stateOfTurn(9), stateOfTurn(10)]))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: 'run-state.json@24425',
          turns: [10, 10],
          files: files({'run-state.json': 'corrupt concatenated', 'run-state.json@0': 'intact', 'run-state.json@24425': 'intact'}),
          findings: ['primary-damaged'],
          absent: ['salvage-available', 'context-behind-transcript'],
          account: [/run-state\.json holds 2 complete documents back to back: run-state\.json@0 \(turn 9\), run-state\.json@24425 \(turn 10\)/],
        }),
      ],
      repair: restorePrimary('run-state.json@24425', HEALTHY_AFTER, (b) => b('run-state.json').subarray(24425)),
    },
  }),
  entry({
    id: 'B17',
    title: 'a stale tail after a complete run-state.json: trailing garbage, the complete document kept',
    damage: 'the complete turn-10 state followed by the last 200 bytes of a longer earlier write (a shorter rewrite without truncation)',
    build(root) {
      const c = tenTurnChat(root)
      const s = stateOfTurn(10)
      c.write('run-state.json', Buffer.concat([s, s.subarray(s.length - 200)]))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: 'salvage:run-state.json',
          turns: [10, 10],
          files: files({'run-state.json': 'corrupt trailing-garbage'}),
          findings: ['primary-damaged', 'salvage-available'],
          salvage: {'run-state.json': {lossless: true, turns: 10}},
          account: [/holds a complete document followed by 200 bytes from byte 26966 that are no document of their own/],
        }),
      ],
      repair: restorePrimary('salvage:run-state.json', HEALTHY_AFTER, () => stateOfTurn(10)),
    },
  }),
  // ---- K8 encoding and framing ----------------------------------------------------------------------------
  entry({
    id: 'B18',
    title: 'a UTF-8 BOM before run-state.json: corrupt bom, the document behind it restored whole',
    damage: 'EF BB BF in front of the complete turn-10 state (an editor re-saved it)',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', withBom)
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: 'salvage:run-state.json',
          turns: [10, 10],
          files: files({'run-state.json': 'corrupt bom'}),
          findings: ['primary-damaged', 'salvage-available'],
          salvage: {'run-state.json': {lossless: true, turns: 10}},
          account: [/run-state\.json starts with a UTF-8 byte order mark/],
        }),
      ],
      repair: restorePrimary('salvage:run-state.json', HEALTHY_AFTER, () => stateOfTurn(10)),
    },
  }),
  entry({
    id: 'B19',
    title: 'an incomplete UTF-8 sequence inside run-state.json: corrupt invalid-utf8, never decoded lossily',
    damage: 'two bytes E6 87 (a CJK character cut after its second byte) written over an assistant text of turn 1',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => overwrite(b, ASSISTANT_TEXT(b) + 8, Buffer.from([0xe6, 0x87])))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [tenVerdict({status: 'repairable', winner: TURN_9_COPY, turns: [9, 10], files: files({'run-state.json': 'corrupt invalid-utf8'}), findings: ['primary-damaged']})],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
  entry({
    id: 'B20',
    title: 'a lone surrogate escape in run-state.json: intact, kept, with a warning',
    damage: 'the six characters \\ud83c (a high surrogate with no low half: text cut inside an emoji) written into an assistant text of turn 1; still valid JSON',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => overwrite(b, ASSISTANT_TEXT(b) + 8, Buffer.from('\\ud83c')))
      return c.dir
    },
    expect: {
      exitCode: 0,
      chats: [tenVerdict({status: 'healthy', winner: 'run-state.json', turns: [10, 10], files: files(), findings: ['lone-surrogate'], absent: ['primary-damaged']})],
      repair: null,
    },
  }),
  entry({
    id: 'B21',
    title: 'a raw U+2028 inside a string is intact',
    damage: 'a raw U+2028 (E2 80 A8) written over three bytes of an assistant text of turn 1 (JSON allows it; no line splitter reads this file)',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => overwrite(b, ASSISTANT_TEXT(b) + 8, Buffer.from('\u2028')))
      return c.dir
    },
    expect: {
      exitCode: 0,
      chats: [tenVerdict({status: 'healthy', winner: 'run-state.json', turns: [10, 10], files: files(), absent: ['primary-damaged']})],
      repair: null,
    },
  }),
  entry({
    id: 'B22',
    title: 'a raw line break inside a string of run-state.json: corrupt syntax-error',
    damage: 'a raw LF written over one byte of an assistant text of turn 1 (an unescaped control character)',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => overwrite(b, ASSISTANT_TEXT(b) + 8, Buffer.from('\n')))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [tenVerdict({status: 'repairable', winner: TURN_9_COPY, turns: [9, 10], files: files({'run-state.json': 'corrupt syntax-error'}), findings: ['primary-damaged']})],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
  entry({
    id: 'B23',
    title: 'a lone surrogate encoded as UTF-8 bytes: corrupt invalid-utf8',
    damage: 'ED B2 9F (the lenient encoding of U+DC9F) written over three bytes of an assistant text of turn 1',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => overwrite(b, ASSISTANT_TEXT(b) + 8, Buffer.from([0xed, 0xb2, 0x9f])))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [tenVerdict({status: 'repairable', winner: TURN_9_COPY, turns: [9, 10], files: files({'run-state.json': 'corrupt invalid-utf8'}), findings: ['primary-damaged']})],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
  // ---- K9 beyond reader limits ----------------------------------------------------------------------------
  entry({
    id: 'B24',
    title: 'an intact run-state.json on the large-state path is healthy with its turns',
    damage: `the real 180-turn chat (a 5.5 MB run-state.json, its transcript capped to the last 50 turns), scanned with CHATDOCTOR_STREAM_THRESHOLD=${LARGE_THRESHOLD} (one byte above the transcript): the state is read as one over V8's longest string (~512 MiB) is, member by member`,
    env: {CHATDOCTOR_STREAM_THRESHOLD: String(LARGE_THRESHOLD)},
    build(root) {
      return copyRealChat(LARGE, root, CHATS)
    },
    expect: {
      exitCode: 0,
      chats: [{chat: LARGE, status: 'healthy', winner: 'run-state.json', turns: [50, 50], files: LARGE_FILES, findings: ['transcript-capped'], absent: ['primary-damaged', 'context-lost']}],
      repair: null,
      redactRefused: LARGE_REDACT_REFUSED,
    },
  }),
  entry({
    id: 'B24',
    title: 'a torn run-state.json on the large-state path is repaired from its intact large .bak',
    damage: `the real 180-turn chat's run-state.json cut at 60 %, its whole bytes as run-state.json.bak, scanned with CHATDOCTOR_STREAM_THRESHOLD=${LARGE_THRESHOLD} (both states take the path of a state over V8's longest string)`,
    env: {CHATDOCTOR_STREAM_THRESHOLD: String(LARGE_THRESHOLD)},
    build(root) {
      const c = new Chat(copyRealChat(LARGE, root, CHATS))
      c.write('run-state.json.bak', c.read('run-state.json'), T0 + 1000)
      c.damage('run-state.json', (b) => cutAt(b, Math.floor(b.length * 0.6)))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        {
          chat: LARGE,
          status: 'repairable',
          winner: 'run-state.json.bak',
          turns: [50, 50],
          files: {...LARGE_FILES, 'run-state.json': 'truncated unexpected-end', 'run-state.json.bak': 'intact'},
          findings: ['primary-damaged'],
          absent: ['context-lost'],
        },
      ],
      repair: {
        chat: LARGE,
        outcome: 'repaired',
        restores: [{to: 'run-state.json', from: 'run-state.json.bak', bytes: (b) => b('run-state.json.bak')}],
        exitCode: 1,
        after: {status: 'healthy', winner: 'run-state.json', turns: [50, 50], exitCode: 0},
      },
      redactRefused: LARGE_REDACT_REFUSED,
    },
  }),
  entry({
    id: 'B25',
    title: 'a 61 KB message is intact: no fixed-size window stands for the file',
    damage: 'the first assistant text of run-state.json replaced by 61,000 characters (a pasted book)',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => Buffer.from(b.toString('utf8').replace('Let me look at the code for step 1.', 'x'.repeat(61_000))))
      return c.dir
    },
    expect: {
      exitCode: 0,
      chats: [tenVerdict({status: 'healthy', winner: 'run-state.json', turns: [10, 10], files: files()})],
      repair: null,
    },
  }),
  // ---- K10 not JSON at all ---------------------------------------------------------------------------------
  entry({
    id: 'B26',
    title: 'ciphertext-like bytes in run-state.json: foreign content, never truncated',
    damage: 'run-state.json = 2048 random non-NUL bytes (seeded), not starting with {; .bak intact',
    build(root) {
      const c = tenTurnChat(root)
      const rnd = seededRandom(26)
      c.write('run-state.json', Buffer.from(Array.from({length: 2048}, (_, i) => (i === 0 ? 0x8f : 1 + Math.floor(rnd() * 255)))))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [tenVerdict({status: 'repairable', winner: TURN_9_COPY, turns: [9, 10], files: files({'run-state.json': 'corrupt invalid-utf8 foreign-content'}), findings: ['primary-damaged'], absent: ['salvage-available'], account: [/holds no JSON document from its first byte/]})],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
  entry({
    id: 'B27',
    title: 'run-state.json overwritten with minified JavaScript: foreign content, restored from the .bak',
    damage: 'run-state.json = 50 KB of minified JavaScript (the wrong buffer written); .bak intact',
    build(root) {
      const c = tenTurnChat(root)
      c.write('run-state.json', '!function(e,t){"use strict";var n={name:"x",keywords:"if else for while",contains:[]};e.exports=n}(module);\n'.repeat(480))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [tenVerdict({status: 'repairable', winner: TURN_9_COPY, turns: [9, 10], files: files({'run-state.json': 'corrupt syntax-error foreign-content'}), findings: ['primary-damaged'], absent: ['salvage-available']})],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
  // ---- K11 valid JSON, content empty, reset or shortened ---------------------------------------------------
  entry({
    id: 'B28',
    title: 'a valid skeleton primary and skeleton/torn backups: the oldest, richest generation wins',
    damage: 'run-state.json and a newer temp = the state with an empty history; .bak torn at 20%; only run-state.json.backup.<ms> (the oldest file) holds turn 9',
    build(root) {
      const c = tenTurnChat(root, {embedded: 0})
      const skeleton = withHistory(stateOfTurn(10), () => [])
      c.write('run-state.json', skeleton, T0 + 6000)
      c.write('run-state.json.4711.tmp', skeleton, T0 + 5000)
      c.damage('run-state.json.bak', (b) => cutAt(b, Math.floor(b.length * 0.2)))
      c.write('run-state.json.backup.1788081302417', stateOfTurn(9), T0 - 60_000)
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        {
          chat: TEN,
          embeddedCopies: 0,
          status: 'repairable',
          winner: 'run-state.json.backup.1788081302417',
          turns: [9, 10],
          files: files({'run-state.json.bak': 'truncated unexpected-end', 'run-state.json.4711.tmp': 'intact', 'run-state.json.backup.1788081302417': 'intact'}),
          findings: ['primary-behind', 'backup-damaged', 'temp-leftover', 'context-amnesia'],
          amnesia: ['empty-history'],
        },
      ],
      repair: {...restorePrimary('run-state.json.backup.1788081302417', HEALTHY_9_AFTER), after: {...HEALTHY_9_AFTER}},
    },
  }),
  entry({
    id: 'B29',
    title: 'compaction wipe: an empty summary plus the last turns is degraded in the default output',
    damage: 'run-state.json history = one empty <system> compaction summary, then turns 8–10; the transcript still has turns 1–10 and embedded copies of 1–9',
    build(root) {
      const c = tenTurnChat(root)
      c.remove('run-state.json.bak')
      const empty = {role: 'user', content: [{type: 'text', text: '<system>The following is a summary of the conversation between you and the user:\n</system>'}]}
      c.damage('run-state.json', (b) => withHistory(b, (h) => [empty, ...h.slice(promptIndex(h, 8))]))
      return c.dir
    },
    expect: {
      exitCode: 4,
      chats: [
        tenVerdict({
          status: 'degraded',
          winner: 'run-state.json',
          turns: [10, 10],
          files: files({'run-state.json.bak': null}),
          findings: ['compaction-wipe'],
          absent: ['context-amnesia'],
          amnesia: ['compaction-wipe'],
          account: [/a compaction replaced its history with an empty or near-empty summary; it remembers nothing of turns 1–7/, /chat-messages\.json#ai-1762265433300-2b28c8cf3b2ed still holds the older memory up to turn 9, at the cost of turn 10/],
        }),
      ],
      repair: null,
    },
  }),
  entry({
    id: 'B30',
    title: 'an empty transcript beside a full state: the agent keeps its memory, the lost turns are reported',
    damage: 'chat-messages.json = [] (a valid empty transcript) while run-state.json holds all 10 prompts',
    build(root) {
      const c = tenTurnChat(root)
      c.write('chat-messages.json', '[]')
      syncChatMeta(c.dir)
      return c.dir
    },
    expect: {
      exitCode: 0,
      chats: [{chat: TEN, embeddedCopies: 0, status: 'healthy', winner: 'run-state.json', turns: [0, 0], files: files(), findings: ['prompts-without-transcript']}],
      repair: null,
    },
  }),
  entry({
    id: 'B31',
    title: 'a stale primary behind a complete newer temp: the temp is promoted',
    damage: 'run-state.json = turn 9 (t1), a complete run-state.json.<pid>.<uuid>.tmp = turn 10 (t2), .bak = turn 8 (t0); embedded copies of turns 1–8',
    build(root) {
      const c = tenTurnChat(root, {embedded: 8})
      c.write('run-state.json.bak', stateOfTurn(8), T0 + 1000)
      c.write('run-state.json', stateOfTurn(9), T0 + 4000)
      c.write('run-state.json.48213.0c6f2d4e-9b1a-4e37-8d52-1f0e9a7b3c21.tmp', stateOfTurn(10), T0 + 5000)
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        {
          chat: TEN,
          embeddedCopies: 8,
          status: 'repairable',
          winner: 'run-state.json.48213.0c6f2d4e-9b1a-4e37-8d52-1f0e9a7b3c21.tmp',
          turns: [10, 10],
          files: files({'run-state.json.48213.0c6f2d4e-9b1a-4e37-8d52-1f0e9a7b3c21.tmp': 'intact'}),
          findings: ['primary-behind', 'temp-leftover'],
        },
      ],
      repair: restorePrimary('run-state.json.48213.0c6f2d4e-9b1a-4e37-8d52-1f0e9a7b3c21.tmp', HEALTHY_AFTER),
    },
  }),
  // ---- K13 index / metadata -------------------------------------------------------------------------------
  entry({
    id: 'B41',
    title: 'a stale chat-meta.json sidecar: noted, recomputed by the agent, never rewritten',
    damage: 'chat-meta.json records a transcript size and mtime the transcript no longer has (the index was not refreshed)',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('chat-meta.json', (b) => Buffer.from(b.toString('utf8').replace(/"messagesSize":\d+/, '"messagesSize":1')))
      return c.dir
    },
    expect: {
      exitCode: 0,
      chats: [tenVerdict({status: 'healthy', winner: 'run-state.json', turns: [10, 10], files: files(), findings: ['meta-stale']})],
      repair: null,
    },
  }),
  entry({
    id: 'B42',
    title: 'the sidecar survives but the state and the transcript are gone: content missing, never skipped',
    damage: 'the chat dir holds only chat-meta.json (counting 21 messages) and log.jsonl: run-state.json, .bak and chat-messages.json lost',
    build(root) {
      const c = tenTurnChat(root)
      for (const f of ['run-state.json', 'run-state.json.bak', 'chat-messages.json']) c.remove(f)
      c.write('log.jsonl', '{"level":30,"msg":"start"}\n')
      return c.dir
    },
    expect: {
      exitCode: 4,
      chats: [{chat: TEN, embeddedCopies: 0, status: 'unrecoverable', winner: null, turns: [null, null], files: {'run-state.json': 'missing', 'chat-meta.json': 'intact', 'log.jsonl': 'other'}, findings: ['primary-missing', 'transcript-missing', 'context-lost']}],
      repair: null,
    },
  }),
  // ---- K14 generation management --------------------------------------------------------------------------
  entry({
    id: 'B44',
    title: 'every recent generation carries the same NUL damage: the older-named temp wins',
    damage: 'run-state.json, .bak and a <pid>.<uuid>.tmp all with 300 NULs over the same bytes; only an old-style run-state.json.<pid>.tmp (the oldest file) holds turn 9',
    build(root) {
      const c = tenTurnChat(root, {embedded: 0})
      const poisoned = nulRunAt(stateOfTurn(10), 5000, 300)
      c.write('run-state.json', poisoned)
      c.write('run-state.json.bak', poisoned)
      c.write('run-state.json.7001.0b7c7a4e-1d2f-4a3b-9c8d-7e6f5a4b3c2d.tmp', poisoned, T0 + 3000)
      c.write('run-state.json.4242.tmp', stateOfTurn(9), T0 - 60_000)
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        {
          chat: TEN,
          embeddedCopies: 0,
          status: 'repairable',
          winner: 'run-state.json.4242.tmp',
          turns: [9, 10],
          files: files({'run-state.json': 'corrupt nul-run', 'run-state.json.bak': 'corrupt nul-run', 'run-state.json.7001.0b7c7a4e-1d2f-4a3b-9c8d-7e6f5a4b3c2d.tmp': 'corrupt nul-run', 'run-state.json.4242.tmp': 'intact'}),
          findings: ['primary-damaged', 'backup-damaged', 'temp-damaged', 'temp-leftover'],
        },
      ],
      repair: restorePrimary('run-state.json.4242.tmp', HEALTHY_9_AFTER),
    },
  }),
  entry({
    id: 'B45',
    title: 'a primary that parses but fails the shape: contextless, the .bak wins and is never overwritten',
    damage: 'run-state.json valid JSON whose sessionState.mainAgentState.messageHistory is an object, not an array; .bak intact',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => {
        const v = JSON.parse(b.toString('utf8'))
        v.sessionState.mainAgentState.messageHistory = {messages: v.sessionState.mainAgentState.messageHistory}
        return Buffer.from(JSON.stringify(v))
      })
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [tenVerdict({status: 'repairable', winner: TURN_9_COPY, turns: [9, 10], files: files({'run-state.json': 'contextless no-session-state'}), findings: ['primary-contextless']})],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
  entry({
    id: 'B46',
    title: 'hidden pid-time temps: the complete newer one is promoted, the torn one listed',
    damage: 'run-state.json = turn 9 (t1), .bak = turn 8 (t0), .run-state.json.4242-1720000000000.tmp = turn 10 (t2), .run-state.json.4243-1720000005000.tmp = half of a later save (t3)',
    build(root) {
      const c = tenTurnChat(root, {embedded: 8})
      c.write('run-state.json.bak', stateOfTurn(8), T0 + 1000)
      c.write('run-state.json', stateOfTurn(9), T0 + 4000)
      c.write('.run-state.json.4242-1720000000000.tmp', stateOfTurn(10), T0 + 5000)
      const later = real(TEN, TEN_TURN_TEMP)
      c.write('.run-state.json.4243-1720000005000.tmp', cutAt(later, later.length >> 1), T0 + 6000)
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        {
          chat: TEN,
          embeddedCopies: 8,
          status: 'repairable',
          winner: '.run-state.json.4242-1720000000000.tmp',
          turns: [10, 10],
          files: files({'.run-state.json.4242-1720000000000.tmp': 'intact', '.run-state.json.4243-1720000005000.tmp': 'truncated unexpected-end'}),
          findings: ['primary-behind', 'temp-leftover', 'temp-damaged'],
        },
      ],
      repair: restorePrimary('.run-state.json.4242-1720000000000.tmp', HEALTHY_AFTER),
    },
  }),
  entry({
    id: 'B47',
    title: 'a write-file-atomic temp without .tmp: recognised as a generation and promoted',
    damage: 'run-state.json = turn 9 (t1); run-state.json.3730721750 = turn 10 (t2), left by a rename that failed with EPERM',
    build(root) {
      const c = tenTurnChat(root, {embedded: 8})
      c.remove('run-state.json.bak')
      c.write('run-state.json', stateOfTurn(9), T0 + 4000)
      c.write('run-state.json.3730721750', stateOfTurn(10), T0 + 5000)
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        {
          chat: TEN,
          embeddedCopies: 8,
          status: 'repairable',
          winner: 'run-state.json.3730721750',
          turns: [10, 10],
          files: files({'run-state.json.bak': null, 'run-state.json.3730721750': 'intact'}),
          findings: ['primary-behind', 'temp-leftover'],
        },
      ],
      repair: restorePrimary('run-state.json.3730721750', HEALTHY_AFTER),
    },
  }),
  entry({
    id: 'B49',
    title: 'a newer log-only sibling dir is skipped, the real chat untouched',
    damage: 'a chat dir newer than the real chat holding only log.jsonl (every CLI start makes one), beside the intact 10-turn chat',
    build(root) {
      tenTurnChat(root)
      const sibling = path.join(root, CHATS, '2026-08-31T10-00-00.000Z')
      mkdirSync(sibling, {recursive: true})
      writeFileSync(path.join(sibling, 'log.jsonl'), '{"level":30,"msg":"start"}\n')
      setMtime(sibling, T0 + 3_600_000)
      return path.join(root, CHATS)
    },
    expect: {
      exitCode: 0,
      chats: [tenVerdict({status: 'healthy', winner: 'run-state.json', turns: [10, 10], files: files()})],
      skipped: ['2026-08-31T10-00-00.000Z'],
      repair: null,
    },
  }),
  entry({
    id: 'B50',
    title: 'a torn primary is repaired with its bytes kept as evidence, never deleted',
    damage: 'run-state.json = its first 80%; .bak intact',
    build(root) {
      const c = tenTurnChat(root)
      c.damage('run-state.json', (b) => cutAt(b, Math.floor(b.length * 0.8)))
      return c.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        tenVerdict({
          status: 'repairable',
          winner: TURN_9_COPY,
          turns: [9, 10],
          files: files({'run-state.json': 'truncated unexpected-end'}),
          // The cut falls after the whole history: turn 10 is reachable, with the members after it borrowed.
          findings: ['primary-damaged', 'salvage-available', 'salvage-more-turns'],
          salvage: {'run-state.json': {lossless: false, messages: 60, turns: 10}},
        }),
      ],
      repair: restorePrimary(TURN_9_COPY, HEALTHY_9_AFTER, () => stateOfTurn(9)),
    },
  }),
]

const noEntry: NoEntry[] = [
  {id: 'B32', kind: 'not-applicable', reason: "Codebuff's in-flight snapshots legitimately end mid-turn (the SDK's interruption note, codebuff-format.md §4.2) and are resumed by the SDK: a history ending in an open tool call is no damage shape of its files"},
  {id: 'B33', kind: 'not-applicable', reason: "Codebuff's message history is an ordered array without parent links: no record can name a parent that is missing"},
  {id: 'B34', kind: 'not-applicable', reason: 'a single-document state has no header record; a RunState without its sessionState is the contextless class (B45, and the placeholder of the scenario tests)'},
  {id: 'B35', kind: 'not-applicable', reason: 'Codex-only framing (paginated records and their ordinal); Codebuff writes one document per file'},
  {id: 'B36', kind: 'not-applicable', reason: 'Codebuff keeps no current-message pointer or child links: the history is a plain array'},
  {id: 'B37', kind: 'not-applicable', reason: 'Codebuff messages carry no parent ids to orphan'},
  {id: 'B38', kind: 'not-applicable', reason: 'Codebuff keeps no index of its chats: the CLI lists chat dirs by their mtime (codebuff-format.md §1.3); the per-chat sidecar is B41/B42'},
  {id: 'B39', kind: 'not-applicable', reason: 'as B38: no task index to truncate; the per-chat sidecar is B41/B42'},
  {id: 'B40', kind: 'not-applicable', reason: 'Codebuff keeps no SQLite state: nothing to integrity-check'},
  {id: 'B43', kind: 'not-applicable', reason: 'Codebuff keeps no history rows to lose their session id: chats are folders named by their id'},
  {id: 'B48', kind: 'not-applicable', reason: "Codebuff's writer names every temp after its target; temps of other writers that keep the target's name are B46/B47, and a file named after nothing (`.tmp-<pid>-<rand>`) is listed as an unknown file and never read as a generation"},
  {id: 'B51', kind: 'not-applicable', reason: "Codebuff's files carry no format version (codebuff-format.md §7.3): there is no newer version to refuse; a RunState with unknown extra members is judged by its shape and stays intact"},
]

export const codebuffPart: BugLogPart = {
  agent: 'Codebuff',
  intro:
    'Each damage is built by code on a copy of the real 10-turn chat of `shared/realdata/codebuff` as the CLI leaves it after turn 10: `run-state.json` (turn 10), `run-state.json.bak` (turn 9), `chat-messages.json` (10 turns, whose AI messages embed the states of turns 1–9), `chat-meta.json`; other agents\' reports get the Codebuff analog of their damage shape. "N/M" is the winner\'s turns of the transcript\'s; a repair is plain `chatdoctor repair -y`.',
  entries,
  noEntry,
  complete: true,
}
