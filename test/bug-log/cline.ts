/**
 * The Cline CLI part of the bug log: the Cline CLI analog of every report whose damage shape applies to
 * its session files (`<id>.messages.json`, the conversation, and `<id>.json`, the record: single JSON
 * documents the hub daemon rewrites in place, no older copy kept) or to its session index
 * (`db/sessions.db`). The three Cline reports (B10, B17, B39) are about the VS Code extension's task folders;
 * their shapes are tested here on the CLI's files. Each damage is built by code on a copy of the real store
 * cline 3.0.65 wrote (`shared/realdata/cline/3.0.65/`), session A (5 turns in 18 messages).
 */
import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {SESSION_A, copyClineHome, damageFile, dropIndexRow, emptiedMessages, messagesName, overwrite, realMessages, realRecord, recordName, staleTail} from '../helpers/cline.js'
import {cutAt, insertIntoFirstText, nulPadded, nulTailAt, withBom} from '../helpers/fixtures.js'
import type {BugLogEntry, BugLogPart, ChatVerdict, NoEntry, RepairVerdict} from './types.js'

const A = SESSION_A
const MSG = messagesName(A)
const REC = recordName(A)
const SALVAGE = `salvage:${MSG}`

/** An entry of this part (agent and format filled in). */
const entry = (e: Omit<BugLogEntry, 'agent' | 'format'>): BugLogEntry => ({agent: 'Cline CLI', format: 'cline', ...e})

/** A copy of the real store under `root` (the run's HOME) with session A's conversation replaced; the PATH is A's folder. */
function withConversation(root: string, make: (real: Buffer) => Buffer): string {
  const h = copyClineHome(root)
  overwrite(h.messages(A), make(realMessages(A)))
  return h.dir(A)
}

/** The verdict on session A with its record intact. */
function sessionA(v: Omit<ChatVerdict, 'chat' | 'files'> & {conversation: string; record?: string}): ChatVerdict {
  const {conversation, record, ...rest} = v
  return {chat: A, files: {[MSG]: conversation, [REC]: record ?? 'intact'}, ...rest}
}

/** Plain repair writing the conversation's salvage (the exact bytes: the first `kept` bytes, then `closing`). */
function salvageRepair(kept: number, closing: string, after: RepairVerdict['after'], exitCode: number): RepairVerdict {
  return {
    chat: A,
    outcome: 'repaired',
    restores: [{to: MSG, from: SALVAGE, bytes: (before) => Buffer.concat([before(MSG).subarray(0, kept), Buffer.from(closing)])}],
    exitCode,
    after,
  }
}

const HEALTHY_5: RepairVerdict['after'] = {status: 'healthy', winner: MSG, turns: [5, 5], exitCode: 0}

const entries: BugLogEntry[] = [
  entry({
    id: 'B02',
    title: 'a 0-byte Cline conversation: empty, lost, and the next start would overwrite it',
    damage: 'A\'s conversation file at 0 bytes (the generator\'s damage/messages-zero-length); the record and the index (run count 5) intact',
    build(root) {
      return withConversation(root, () => Buffer.alloc(0))
    },
    expect: {
      exitCode: 4,
      chats: [sessionA({conversation: 'empty', status: 'unrecoverable', winner: null, turns: [null, 5], findings: ['primary-damaged', 'context-lost', 'next-start-loss'], account: [/Cline keeps no older copy of it/, /bundle the session first/]})],
      repair: null,
    },
  }),
  entry({
    id: 'B04',
    title: 'a NUL-filled Cline conversation: zero-filled, lost, next start would overwrite it',
    damage: "A's conversation overwritten with NULs, same size (the generator's damage/messages-nul-filled)",
    build(root) {
      return withConversation(root, (b) => Buffer.alloc(b.length))
    },
    expect: {
      exitCode: 4,
      chats: [sessionA({conversation: 'zero-filled', status: 'unrecoverable', winner: null, turns: [null, 5], findings: ['primary-damaged', 'context-lost', 'next-start-loss']})],
      repair: null,
    },
  }),
  entry({
    id: 'B08',
    title: 'NUL bytes after a complete Cline conversation: Cline reads it as empty; the lossless salvage restores all 5 turns',
    damage: "4096 NULs after A's complete conversation (Cline's reader trims whitespace, not NULs, and its parse fails)",
    build(root) {
      return withConversation(root, (b) => nulPadded(b, 4096))
    },
    expect: {
      exitCode: 2,
      chats: [sessionA({conversation: 'corrupt nul-tail', status: 'repairable', winner: SALVAGE, turns: [5, 5], findings: ['primary-damaged', 'salvage-available', 'next-start-loss'], salvage: {[MSG]: {lossless: true, messages: 18, turns: 5, candidate: true}}})],
      repair: salvageRepair(13948, '', HEALTHY_5, 1),
    },
  }),
  entry({
    id: 'B09',
    title: 'a power loss during Cline\'s in-place save: truncated with zeros after it; the salvage keeps 4 of 5 turns',
    damage: "A's conversation as a power loss leaves an unsynced save: its first 8192 bytes, zeros to its full length",
    build(root) {
      return withConversation(root, (b) => nulTailAt(b, 8192))
    },
    expect: {
      exitCode: 2,
      chats: [sessionA({conversation: 'truncated unexpected-end nul-tail', status: 'repairable', winner: SALVAGE, turns: [4, 5], findings: ['primary-damaged', 'salvage-available', 'next-start-loss'], salvage: {[MSG]: {lossless: false, messages: 14, turns: 4, candidate: true}}})],
      repair: salvageRepair(7711, ']}', {status: 'degraded', winner: MSG, turns: [4, 5], exitCode: 4}, 1 | 4),
    },
  }),
  entry({
    id: 'B10',
    title: 'a Cline conversation missing its closing brace: truncated; the salvage only closes it (18 of 18 messages, 5/5)',
    damage: "A's conversation without its last two bytes (the closing brace and the LF)",
    build(root) {
      return withConversation(root, (b) => b.subarray(0, b.length - 2))
    },
    expect: {
      exitCode: 2,
      chats: [sessionA({conversation: 'truncated unexpected-end', status: 'repairable', winner: SALVAGE, turns: [5, 5], findings: ['primary-damaged', 'salvage-available', 'next-start-loss'], salvage: {[MSG]: {lossless: true, messages: 18, turns: 5, candidate: true}}})],
      repair: salvageRepair(13946, '}', HEALTHY_5, 1),
    },
  }),
  entry({
    id: 'B17',
    title: "Cline died between its in-place write and its ftruncate: the newer document, then the older one's tail",
    damage: "the resume's new 2-message conversation (the generator's 2-resume state) written over A's 18-message one without the ftruncate; the record of the same resume",
    build(root) {
      const dir = path.join(root, '.cline', 'data', 'sessions', A)
      mkdirSync(dir, {recursive: true})
      writeFileSync(path.join(dir, MSG), staleTail(damageFile('messages-truncate-mid-record', A, MSG, '2-resume'), realMessages(A)))
      writeFileSync(path.join(dir, REC), damageFile('messages-truncate-mid-record', A, REC, '2-resume'))
      return dir
    },
    expect: {
      exitCode: 2,
      chats: [sessionA({conversation: 'corrupt trailing-garbage', status: 'repairable', winner: SALVAGE, turns: [1, 1], findings: ['primary-damaged', 'salvage-available', 'next-start-loss'], salvage: {[MSG]: {lossless: true, messages: 2, turns: 1, candidate: true}}, account: [/older, longer one/]})],
      repair: {
        chat: A,
        outcome: 'repaired',
        restores: [{to: MSG, from: SALVAGE, bytes: () => damageFile('messages-truncate-mid-record', A, MSG, '2-resume').subarray(0, -1)}],
        exitCode: 1,
        after: {status: 'healthy', winner: MSG, turns: [1, 1], exitCode: 0},
      },
    },
  }),
  entry({
    id: 'B18',
    title: "a byte-order mark before a Cline conversation: Cline's reader strips it, the session stays healthy",
    damage: "EF BB BF in front of A's conversation",
    build(root) {
      return withConversation(root, withBom)
    },
    expect: {
      exitCode: 0,
      chats: [sessionA({conversation: 'corrupt bom', status: 'healthy', winner: MSG, turns: [5, 5], findings: ['primary-irregular'], absent: ['next-start-loss']})],
      repair: null,
    },
  }),
  entry({
    id: 'B19',
    title: 'a Cline conversation cut inside a multi-byte character of its first prompt: truncated, torn-utf8, nothing to keep',
    damage: "multi-byte text inserted into A's first prompt, the file cut inside 日",
    build(root) {
      return withConversation(root, (b) => {
        const {buf, at} = insertIntoFirstText(b)
        return cutAt(buf, at + Buffer.from('héllo — 日').length - 1)
      })
    },
    expect: {
      exitCode: 4,
      chats: [sessionA({conversation: 'truncated unexpected-end torn-utf8', status: 'unrecoverable', winner: null, turns: [null, 5], findings: ['primary-damaged', 'next-start-loss']})],
      repair: null,
    },
  }),
  entry({
    id: 'B20',
    title: 'a lone surrogate escape in a Cline conversation is intact (Cline and JSON.parse accept it)',
    damage: "`\\ud83c` inserted into A's first prompt",
    build(root) {
      return withConversation(root, (b) => {
        const at = b.indexOf('List the files')
        return Buffer.concat([b.subarray(0, at), Buffer.from('\\ud83c'), b.subarray(at)])
      })
    },
    expect: {
      exitCode: 0,
      chats: [sessionA({conversation: 'intact', status: 'healthy', winner: MSG, turns: [5, 5], absent: ['primary-damaged']})],
      repair: null,
    },
  }),
  entry({
    id: 'B27',
    title: 'a Cline conversation overwritten with minified code: foreign content, lost, next start would overwrite it',
    damage: "A's conversation replaced by a line of minified JavaScript",
    build(root) {
      return withConversation(root, () => Buffer.from('!function(e){var t={};function n(r){if(t[r])return t[r].exports}}([]);\n'))
    },
    expect: {
      exitCode: 4,
      chats: [sessionA({conversation: 'corrupt syntax-error foreign-content', status: 'unrecoverable', winner: null, turns: [null, 5], findings: ['primary-damaged', 'context-lost', 'next-start-loss']})],
      repair: null,
    },
  }),
  entry({
    id: 'B28',
    title: 'a valid but emptied Cline conversation ("messages": []) under a record of 5 runs: degraded 0/5, nothing older to restore',
    damage: "every message cut out of A's conversation, the rest byte for byte; the record and the index still say 5 runs",
    build(root) {
      return withConversation(root, emptiedMessages)
    },
    expect: {
      exitCode: 4,
      chats: [sessionA({conversation: 'intact', status: 'degraded', winner: MSG, turns: [0, 5], findings: ['turns-missing', 'next-start-loss']})],
      repair: null,
    },
  }),
  entry({
    id: 'B39',
    title: "Cline's session index loses a session whose files are whole (also B10's second stage): healthy, not-in-index",
    damage: "A's row deleted from a copy of db/sessions.db (through SQLite); A's folder intact",
    build(root) {
      const h = copyClineHome(root)
      dropIndexRow(h, A)
      return h.dir(A)
    },
    expect: {
      exitCode: 0,
      chats: [sessionA({conversation: 'intact', status: 'healthy', winner: MSG, turns: [5, 5], findings: ['not-in-index']})],
      repair: null,
    },
  }),
  entry({
    id: 'B09',
    title: "a Cline session record cut at 60 %: Cline would rebuild it from scratch; the record's salvage passes its schema",
    damage: "A's session record cut at 60 % (the generator's damage/session-json-truncate); the conversation whole",
    build(root) {
      const h = copyClineHome(root)
      overwrite(h.record(A), cutAt(realRecord(A), Math.floor(realRecord(A).length * 0.6)))
      return h.dir(A)
    },
    expect: {
      exitCode: 2,
      chats: [sessionA({conversation: 'intact', record: 'truncated unexpected-end', status: 'repairable', winner: MSG, turns: [5, 5], findings: ['next-start-loss', 'session-record-damaged']})],
      repair: {
        chat: A,
        outcome: 'repaired',
        restores: [{to: REC, from: `salvage:${REC}`}],
        exitCode: 1,
        after: HEALTHY_5,
      },
    },
  }),
]

/** Why the other reports have no Cline entry. */
const noEntry: NoEntry[] = [
  {id: 'B01', kind: 'not-covered', reason: 'the same 0-byte conversation as B02 (the disk filling during a save leaves the same bytes); B02 is the entry'},
  {id: 'B03', kind: 'not-applicable', reason: 'Cline keeps no JSON-lines session log; its empty and torn conversations are B02 and B09'},
  {id: 'B05', kind: 'not-applicable', reason: 'Cline keeps no rotated versions of a session file: NULs over the only copy are B04'},
  {id: 'B06', kind: 'not-applicable', reason: 'an interior line of NULs is a JSON-lines shape; in a one-document conversation NULs inside it are corrupt (nul-run), and the salvage keeps what comes before them (the sweeps of test/cline.test.ts)'},
  {id: 'B07', kind: 'not-applicable', reason: 'NUL padding after a JSON-lines record; after a whole Cline conversation it is B08'},
  {id: 'B11', kind: 'not-applicable', reason: 'a torn final line of a JSON-lines log; the Cline analog, a torn conversation, is B09 and the damage case messages-truncate-mid-record of test/cline.test.ts'},
  {id: 'B12', kind: 'not-applicable', reason: 'interior metadata lines of a JSON-lines log; a Cline conversation is one document'},
  {id: 'B13', kind: 'not-applicable', reason: 'two records sharing a line is a JSON-lines shape'},
  {id: 'B14', kind: 'not-applicable', reason: 'a truncated prefix and a complete duplicate on one line is a JSON-lines shape'},
  {id: 'B15', kind: 'not-applicable', reason: 'a partial record and its complete twin is a JSON-lines shape'},
  {id: 'B16', kind: 'not-applicable', reason: "Cline writes the newest document at offset 0, and what an interrupted rewrite leaves after it is the older document's tail, which always ends in its unmatched closing brace: trailing-garbage (B17), never two complete documents"},
  {id: 'B21', kind: 'not-applicable', reason: 'a raw U+2028 splits a record only for line-based readers; in a Cline conversation it is string content (JSON.parse accepts it)'},
  {id: 'B22', kind: 'not-applicable', reason: 'Cline pretty-prints its documents: raw newlines between tokens are whitespace, and one inside a string would be a syntax error covered by the sweeps'},
  {id: 'B23', kind: 'not-applicable', reason: 'lone surrogates that abort an append: Cline rewrites whole documents and accepts lone surrogates (B20)'},
  {id: 'B24', kind: 'not-covered', reason: 'a conversation over the streaming threshold is classified by streaming (test/cline.test.ts) but cannot be salvaged or measured in memory; an intact one over 512 MiB is reported unreadable (exit bit 8)'},
  {id: 'B25', kind: 'not-applicable', reason: 'Cline lists sessions from its index and records, not from a preview window of the first line'},
  {id: 'B26', kind: 'not-covered', reason: 'the same foreign-bytes shape as B27 (an encrypted store reads as foreign content); B27 is the entry'},
  {id: 'B29', kind: 'not-covered', reason: 'the same emptied-but-valid shape as B28 for Cline (its compaction writes a separate sidecar and never empties the conversation)'},
  {id: 'B30', kind: 'not-covered', reason: 'the same emptied-but-valid shape as B28'},
  {id: 'B31', kind: 'not-covered', reason: 'latest messages missing after a resume: the conversation shorter than its run count, as after a salvage that drops turns (B09: degraded 4/5)'},
  {id: 'B32', kind: 'not-applicable', reason: 'a conversation ending in an open tool call is how Cline saves mid-turn; it loads and resumes it'},
  {id: 'B33', kind: 'not-applicable', reason: "Cline's messages are an ordered array without parent links"},
  {id: 'B34', kind: 'not-applicable', reason: 'a Cline conversation has no header record; its reader needs only the messages array'},
  {id: 'B35', kind: 'not-applicable', reason: 'Codex-only framing (paginated records and their ordinal)'},
  {id: 'B36', kind: 'not-applicable', reason: 'Cline keeps no current-message pointer or child links'},
  {id: 'B37', kind: 'not-applicable', reason: 'Cline messages carry no parent ids to orphan'},
  {id: 'B38', kind: 'not-covered', reason: 'an index reset to nothing: Cline rebuilds db/sessions.db from the session folders (the damage case delete-index of test/cline.test.ts: both sessions healthy, index-unreadable info)'},
  {id: 'B40', kind: 'not-covered', reason: 'an unreadable db/sessions.db is a warning on every session (test/cline.test.ts, hostile index rows); the damaged index moved aside for Cline to recreate is the Cline CLI entry B40 of the Agent indexes part'},
  {id: 'B41', kind: 'not-covered', reason: 'a stale index that hides intact sessions is B39 (one row missing)'},
  {id: 'B42', kind: 'not-covered', reason: 'the index survives but the session folder is gone: the damage case delete-session-dir of test/cline.test.ts (unrecoverable, index-entry-without-files); its report has no files to bundle, which this harness requires'},
  {id: 'B43', kind: 'not-applicable', reason: 'Cline index rows are keyed by the session id, which names the session folder'},
  {id: 'B44', kind: 'not-applicable', reason: 'Cline keeps no backups to poison'},
  {id: 'B45', kind: 'not-applicable', reason: 'Cline keeps no backup to overwrite with defaults; an emptied conversation is B28'},
  {id: 'B46', kind: 'not-applicable', reason: "Cline's hub writes session files in place, with no temp; the compacted view's atomic temps are listed as unknown files and never read as generations"},
  {id: 'B47', kind: 'not-applicable', reason: 'no rename in Cline\'s session writes (in place, then ftruncate)'},
  {id: 'B48', kind: 'not-applicable', reason: 'no rename in Cline\'s session writes'},
  {id: 'B49', kind: 'not-applicable', reason: 'Cline session ids are unique folder names; no sibling files share an id'},
  {id: 'B50', kind: 'not-applicable', reason: 'Cline deletes nothing it cannot read; what its resume overwrites is B02, B04, B09 (next-start-loss)'},
  {id: 'B51', kind: 'not-applicable', reason: "Cline's files carry version 1 only; no newer layout to refuse"},
]

export const clinePart: BugLogPart = {
  agent: 'Cline CLI',
  intro:
    "Each damage is built by code on a copy of the real store cline 3.0.65 wrote (`shared/realdata/cline/3.0.65/`), on session A (5 turns in 18 messages; its record and the index say 5 runs), scanned by its session folder. Cline's hub rewrites the two session files in place with no older copy, so the only candidates are the file and its salvage (`salvage:<file>`). The Cline reports B10, B17 and B39 are about the VS Code extension's task folders; their shapes are applied here to the CLI's files. \"N/M\" is the winner's turns of the most the session is known to have had; a repair is plain `chatdoctor repair -y`.",
  entries,
  noEntry,
  complete: true,
}
