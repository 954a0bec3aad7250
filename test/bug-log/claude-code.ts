/**
 * The Claude Code part of the bug log: every report whose agent is Claude Code, and the Claude Code analog of
 * every other report whose damage shape applies to a JSON-lines session log (its copies beside it included).
 * Each damage is built by code on a copy of the real session the Claude Code 2.1.328 binary wrote
 * (`shared/realdata/claude-code/2.1.328`, session A: 130 records, 7 user turns, a compaction); the expected
 * verdicts follow the session-log rules of `docs/diagnosis.md` and were checked by hand against them.
 */
import path from 'node:path'
import {readFileSync} from 'node:fs'
import {REALDATA, seededRandom} from '../helpers/fixtures.js'
import type {BugLogEntry, BugLogPart, ChatVerdict, NoEntry, RepairVerdict} from './types.js'
import {LF, LogFolder, T0, body, ciphertextLike, edited, headOf, linesOf, minifiedScript, partOf, spliced} from './session-logs.js'

const HOME = path.join(REALDATA, 'claude-code', '2.1.328', 'home')
const PROJECT = path.join('.claude', 'projects', '-home-dev-demo-app')
/** Session A (print mode): 130 records, 7 user turns (lines 3, 34, 48, 65, 76, 91, 104), a compaction at line 88. */
const A = '3306629b-a8aa-4dc1-8716-233d3cbaea4c'
const LOG = `${A}.jsonl`
/** Session B (the TUI): another session of the same project. */
const B = 'd9527693-b315-4674-9957-32bc6697096e'
const realLog = (id = A) => readFileSync(path.join(HOME, PROJECT, `${id}.jsonl`))
const REAL = linesOf(realLog())
const join = (lines: Buffer[]) => Buffer.concat(lines)
/** The real log's lines `from`–`to` (1-based, inclusive). */
const span = (from: number, to: number) => REAL.slice(from - 1, to)
/** The real log with line `n` (1-based) replaced by `with`. */
const replacing = (n: number, ...with_: Buffer[]) => join([...span(1, n - 1), ...with_, ...span(n + 1, REAL.length)])
/** The real log's uuid of line `n` (1-based). */
const uuidOf = (n: number) => (JSON.parse(body(REAL[n - 1]).toString()) as {uuid: string}).uuid
/** The real log's parentUuid of line `n` (1-based). */
const parentOf = (n: number) => (JSON.parse(body(REAL[n - 1]).toString()) as {parentUuid: string}).parentUuid

/**
 * The log a repair writes when it drops line `n` (1-based) of the real log: that line gone, and each record whose
 * parent it was re-linked to the nearest record with a uuid before it (the planner's `relink-parent`; session A
 * has no side-chain records).
 */
function droppedAndRelinked(n: number): Buffer {
  const gone = uuidOf(n)
  const out: Buffer[] = []
  let last: string | null = null
  REAL.forEach((line, i) => {
    if (i === n - 1) return
    const v = JSON.parse(body(line).toString()) as {uuid?: unknown; parentUuid?: unknown}
    out.push(v.parentUuid === gone && last !== null ? edited(line, `"parentUuid":"${gone}"`, `"parentUuid":"${last}"`) : line)
    if (typeof v.uuid === 'string') last = v.uuid
  })
  return join(out)
}

/** A copy of the project folder holding session A (its log at T0+4 s), and `others` sessions beside it. */
function project(root: string, others: string[] = []): LogFolder {
  const f = new LogFolder(path.join(root, PROJECT))
  f.write(LOG, realLog(), T0 + 4000)
  others.forEach((id, i) => f.write(`${id}.jsonl`, realLog(id), T0 + i * 1000))
  return f
}

const ALL_TURNS: [number, number] = [7, 7]
/** A log-streaming threshold below session A's size (358,001 bytes): its log takes the streaming path. */
const LOG_STREAM_AT = 4096

/** A verdict on session A. */
const verdict = (v: Omit<ChatVerdict, 'chat'>): ChatVerdict => ({chat: A, ...v})

/** The plain repair that rewrites the log from `from` (its repaired bytes `bytes`) and leaves it healthy at `turns`. */
function rewrite(from: string, bytes: (before: (name: string) => Buffer) => Buffer, turns: [number, number] = ALL_TURNS): RepairVerdict {
  return {chat: A, outcome: 'repaired', restores: [{to: LOG, from, bytes}], exitCode: 1, after: {status: 'healthy', winner: LOG, turns, exitCode: 0}}
}

/** An entry of this part (agent and format filled in). */
const entry = (e: Omit<BugLogEntry, 'agent' | 'format'>): BugLogEntry => ({agent: 'Claude Code', format: 'claude-code', ...e})

const entries: BugLogEntry[] = [
  // ---- K1 empty ----------------------------------------------------------------------------------------
  entry({
    id: 'B01',
    title: 'a session log left at 0 bytes is empty, not truncated; its .bak copy restores it',
    damage: '<id>.jsonl truncated to 0 bytes (ENOSPC during a rewrite); <id>.jsonl.bak = a copy of the whole log',
    build(root) {
      const p = project(root)
      p.write(`${LOG}.bak`, realLog(), T0 + 1000)
      p.write(LOG, Buffer.alloc(0))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: `${LOG}.bak`, turns: ALL_TURNS, files: {[LOG]: 'empty', [`${LOG}.bak`]: 'intact'}, findings: ['session-corrupt', 'primary-behind']})],
      repair: rewrite(`${LOG}.bak`, (b) => b(`${LOG}.bak`)),
    },
  }),
  entry({
    id: 'B02',
    title: 'a session log holding one line break and no copy: empty, lost, nothing written',
    damage: '<id>.jsonl = a single LF; no other generation of the session',
    build(root) {
      const p = project(root)
      p.write(LOG, '\n')
      return p.dir
    },
    expect: {
      exitCode: 4,
      chats: [verdict({status: 'unrecoverable', winner: null, turns: [null, 0], files: {[LOG]: 'empty'}, findings: ['session-corrupt', 'context-lost']})],
      repair: null,
    },
  }),
  // ---- K2 whole file zero-filled -------------------------------------------------------------------------
  entry({
    id: 'B04',
    title: 'a zero-filled session log does not hide the other sessions of the project',
    damage: '<id>.jsonl = 413 NUL bytes, no other generation; another session of the project intact beside it',
    build(root) {
      const p = project(root, [B])
      p.write(LOG, Buffer.alloc(413))
      return p.dir
    },
    expect: {
      exitCode: 4,
      chats: [
        verdict({status: 'unrecoverable', winner: null, turns: [null, 0], files: {[LOG]: 'zero-filled'}, findings: ['session-corrupt', 'context-lost']}),
        {chat: B, status: 'healthy', winner: `${B}.jsonl`, turns: [7, 7], files: {[`${B}.jsonl`]: 'intact'}},
      ],
      repair: null,
    },
  }),
  entry({
    id: 'B05',
    title: 'a 4 KiB zero-filled session log restored from an older copy',
    damage: '<id>.jsonl = 4096 NUL bytes (a VM crash); <id>.jsonl.bak = the log as it was before its last turn (lines 1–103, 6 turns)',
    build(root) {
      const p = project(root)
      p.write(`${LOG}.bak`, join(span(1, 103)), T0 + 1000)
      p.write(LOG, Buffer.alloc(4096))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: `${LOG}.bak`, turns: [6, 6], files: {[LOG]: 'zero-filled', [`${LOG}.bak`]: 'intact'}, findings: ['session-corrupt', 'primary-behind']})],
      repair: rewrite(`${LOG}.bak`, (b) => b(`${LOG}.bak`), [6, 6]),
    },
  }),
  // ---- K3 NUL runs inside otherwise valid content --------------------------------------------------------
  entry({
    id: 'B06',
    title: 'an interior line of NUL bytes: corrupt nul-run, the line dropped, every record kept',
    damage: 'a line of 512 NUL bytes between lines 80 and 81 (a crashed append under delayed allocation), the log growing on after it',
    build(root) {
      const p = project(root)
      p.write(LOG, join([...span(1, 80), Buffer.alloc(512), LF, ...span(81, 130)]))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'corrupt nul-run'}, findings: ['session-corrupt'], account: [/NUL bytes sit in the log from line 81/]})],
      repair: rewrite(LOG, () => realLog()),
    },
  }),
  entry({
    id: 'B07',
    title: 'NULs after a record on its line and a NUL-only last line: both stripped, every record kept',
    damage: 'line 60 followed on its own line by 9000 NULs (its line end lost), and 143,000 NULs after the last line (an NTFS crash)',
    build(root) {
      const p = project(root)
      p.write(LOG, join([...span(1, 59), body(REAL[59]), Buffer.alloc(9000), LF, ...span(61, 130), Buffer.alloc(143_000)]))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'corrupt nul-run nul-tail'}, findings: ['session-corrupt'], account: [/the log ends in NUL bytes from line 131/]})],
      repair: rewrite(LOG, () => realLog()),
    },
  }),
  entry({
    id: 'B08',
    title: 'NULs after the last complete line: nul-tail, no record cut; stripped',
    damage: '1728 NUL bytes after the last LF-terminated line (a buffered write extended the file)',
    build(root) {
      const p = project(root)
      p.damage(LOG, (b) => Buffer.concat([b, Buffer.alloc(1728)]))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'corrupt nul-tail'}, findings: ['session-corrupt'], absent: ['session-truncated'], account: [/no record was cut/]})],
      repair: rewrite(LOG, () => realLog()),
    },
  }),
  // ---- K4 a single JSON document cut -----------------------------------------------------------------------
  // ---- K9 beyond reader limits ----------------------------------------------------------------------------
  entry({
    id: 'B24',
    title: 'an intact session log on the streaming path (as one over V8\'s longest string is read) is healthy with its turns',
    damage: `the real session A, scanned with CHATDOCTOR_LOG_STREAM_THRESHOLD=${LOG_STREAM_AT} (below its size): the log is read a chunk at a time, as one above the threshold (64 MiB) or over V8's longest string (~512 MiB) is, no record value kept`,
    env: {CHATDOCTOR_LOG_STREAM_THRESHOLD: String(LOG_STREAM_AT)},
    build(root) {
      return project(root).dir
    },
    expect: {
      exitCode: 0,
      chats: [verdict({status: 'healthy', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'intact'}, absent: ['session-corrupt', 'context-lost']})],
      repair: null,
    },
  }),
  entry({
    id: 'B24',
    title: 'a session log on the streaming path with its final record torn: trimmed from byte ranges of the log, 129 records kept',
    damage: `the last record (line 130) cut at 60% of its bytes, scanned and repaired with CHATDOCTOR_LOG_STREAM_THRESHOLD=${LOG_STREAM_AT}`,
    env: {CHATDOCTOR_LOG_STREAM_THRESHOLD: String(LOG_STREAM_AT)},
    build(root) {
      const p = project(root)
      p.write(LOG, join([...span(1, 129), partOf(REAL[129], 0.6)]))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'truncated torn-tail'}, findings: ['session-truncated']})],
      repair: rewrite(LOG, () => join(span(1, 129))),
    },
  }),
  // ---- K5 torn last record -------------------------------------------------------------------------------
  entry({
    id: 'B11',
    title: 'the final record torn by a power loss: truncated torn-tail, trimmed, 129 records kept',
    damage: 'the last record (line 130) cut at 60% of its bytes, no trailing LF',
    build(root) {
      const p = project(root)
      p.write(LOG, join([...span(1, 129), partOf(REAL[129], 0.6)]))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'truncated torn-tail'}, findings: ['session-truncated'], account: [/stops mid-record at line 130/]})],
      repair: rewrite(LOG, () => join(span(1, 129))),
    },
  }),
  entry({
    id: 'B11',
    title: 'a cut inside the last turn takes its final answer: that turn is not whole, and every output says what is lost',
    damage: "<id>.jsonl cut to its first 300000 of 358001 bytes: inside line 124 (turn 7's prompt, its tool call and result survive; lines 125–130, turn 7's final answer at line 126 among them, are gone)",
    build(root) {
      const p = project(root)
      p.write(LOG, realLog().subarray(0, 300000))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        verdict({
          status: 'repairable',
          winner: LOG,
          turns: [6, 7],
          files: {[LOG]: 'truncated torn-tail'},
          findings: ['session-truncated', 'answer-lost'],
          said: {'answer-lost': /^3306629b-a8aa-4dc1-8716-233d3cbaea4c\.jsonl: turn 7 \("Show me git status\."\) lost its final answer: .* cut at line 124, byte 296989/},
          account: [/The cut fell inside turn 7 \("Show me git status\."\): its final answer is lost/],
          humanSays: [/turn 7 \("Show me git status\."\)/],
        }),
      ],
      // The repaired log ends in turn 7's tool result, as a log the agent stopped mid-turn does (B32).
      repair: rewrite(LOG, () => join(span(1, 123))),
    },
  }),
  // ---- K6 torn interior records --------------------------------------------------------------------------
  entry({
    id: 'B12',
    title: 'an interior attachment record cut mid-JSON: torn-interior, never truncated; dropped and the chain re-linked',
    damage: 'line 10 (an attachment record) cut at 40% with its LF kept; the 120 lines after it intact',
    build(root) {
      const p = project(root)
      p.write(LOG, replacing(10, partOf(REAL[9], 0.4), LF))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'corrupt torn-interior'}, findings: ['session-corrupt'], absent: ['session-truncated']})],
      repair: rewrite(LOG, () => droppedAndRelinked(10)),
    },
  }),
  // ---- K7 overlapping writes -----------------------------------------------------------------------------
  entry({
    id: 'B13',
    title: 'a partial record and the next record share one line: interleaved-line, the complete one kept',
    damage: 'line 45 cut after 70 bytes and line 46 appended to it without a line break (the next append after a kill)',
    build(root) {
      const p = project(root)
      p.write(LOG, join([...span(1, 44), headOf(REAL[44], 70), ...span(46, 130)]))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'corrupt interleaved-line'}, findings: ['session-corrupt']})],
      repair: rewrite(LOG, () => join([...span(1, 44), ...span(46, 130)])),
    },
  }),
  entry({
    id: 'B14',
    title: 'three lines each a cut prefix followed by the complete record: every record kept once',
    damage: 'lines 20, 56 and 79 (two assistant messages and one more) each = their first half, then the whole record again on the same line',
    build(root) {
      const p = project(root)
      const doubled = (n: number) => Buffer.concat([partOf(REAL[n - 1], 0.5), REAL[n - 1]])
      p.write(LOG, join([...span(1, 19), doubled(20), ...span(21, 55), doubled(56), ...span(57, 78), doubled(79), ...span(80, 130)]))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'corrupt interleaved-line'}, findings: ['session-corrupt']})],
      repair: rewrite(LOG, () => realLog()),
    },
  }),
  entry({
    id: 'B16',
    title: 'two complete records run together on one line: split back into two, nothing lost',
    damage: 'the line break between lines 33 and 34 lost (two whole records back to back; the ~/.claude.json case of the report is B09\'s)',
    build(root) {
      const p = project(root)
      p.write(LOG, join([...span(1, 32), body(REAL[32]), ...span(34, 130)]))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'corrupt interleaved-line'}, findings: ['session-corrupt']})],
      repair: rewrite(LOG, () => realLog()),
    },
  }),
  entry({
    id: 'B17',
    title: 'a stale tail after the last complete record: the record kept, the tail dropped',
    damage: 'the last line = its complete record followed by the last 120 bytes of an earlier, longer record (a shorter rewrite without truncation)',
    build(root) {
      const p = project(root)
      const stale = body(REAL[103]).subarray(body(REAL[103]).length - 120)
      p.write(LOG, join([...span(1, 129), body(REAL[129]), stale, LF]))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'corrupt interleaved-line'}, findings: ['session-corrupt']})],
      repair: rewrite(LOG, () => realLog()),
    },
  }),
  // ---- K8 encoding and framing -------------------------------------------------------------------------
  entry({
    id: 'B18',
    title: 'a BOM in front of the first record: corrupt bom, stripped',
    damage: 'EF BB BF in front of line 1 (an editor re-saved the log)',
    build(root) {
      const p = project(root)
      p.damage(LOG, (b) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'corrupt bom'}, findings: ['session-corrupt']})],
      repair: rewrite(LOG, () => realLog()),
    },
  }),
  entry({
    id: 'B19',
    title: 'a record cut inside a multi-byte character, then the rest of the log: dropped, counted as lost',
    damage: 'line 42 (an assistant text) cut right after the first byte of a two-byte character inserted into its text, its LF kept',
    build(root) {
      const p = project(root)
      const withChar = edited(REAL[41], '"text":"', '"text":"é')
      const cut = withChar.indexOf(Buffer.from('é')) + 1
      p.write(LOG, replacing(42, withChar.subarray(0, cut), LF))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'corrupt torn-utf8 torn-interior'}, findings: ['session-corrupt']})],
      repair: rewrite(LOG, () => droppedAndRelinked(42)),
    },
  }),
  entry({
    id: 'B20',
    title: 'a lone surrogate escape in a prompt: an intact record with a warning, never dropped',
    damage: 'the prompt of line 34 ends with the six characters \\ud83c (a string cut between the halves of an emoji)',
    build(root) {
      const p = project(root)
      p.write(LOG, replacing(34, edited(REAL[33], 'summarize it."', 'summarize it.\\ud83c"')))
      return p.dir
    },
    expect: {
      exitCode: 0,
      chats: [verdict({status: 'healthy', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'intact'}, findings: ['lone-surrogate'], absent: ['session-corrupt']})],
      repair: null,
    },
  }),
  entry({
    id: 'B21',
    title: 'a raw U+2028 inside a record: intact (lines are split on LF only)',
    damage: 'a raw U+2028 (E2 80 A8) inserted into the prompt of line 48',
    build(root) {
      const p = project(root)
      p.write(LOG, replacing(48, edited(REAL[47], 'remove(id) method', 'remove(id)\u2028method')))
      return p.dir
    },
    expect: {
      exitCode: 0,
      chats: [verdict({status: 'healthy', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'intact'}, absent: ['session-corrupt']})],
      repair: null,
    },
  }),
  entry({
    id: 'B22',
    title: 'a record spread over lines by raw line breaks: split-record, rejoined with the breaks escaped',
    damage: 'two raw LFs inside the tool output of line 40 (a writer that did not escape them): one record over three lines',
    build(root) {
      const p = project(root)
      p.write(LOG, replacing(40, edited(REAL[39], '"content":"', '"content":"one\ntwo\n')))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'corrupt split-record'}, findings: ['session-corrupt'], account: [/rejoined with the breaks escaped it is one whole record again/]})],
      repair: rewrite(LOG, () => replacing(40, edited(REAL[39], '"content":"', '"content":"one\\ntwo\\n'))),
    },
  }),
  entry({
    id: 'B22',
    title: 'the only prompt of a turn split by a raw line break: rejoined, the turn kept',
    damage: 'a raw LF inside the prompt of line 48 ("Add a remove(id)⏎method to TodoStore.")',
    build(root) {
      const p = project(root)
      p.write(LOG, replacing(48, edited(REAL[47], 'remove(id) method', 'remove(id)\nmethod')))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'corrupt split-record'}, findings: ['session-corrupt', 'dangling-parent']})],
      repair: rewrite(LOG, () => replacing(48, edited(REAL[47], 'remove(id) method', 'remove(id)\\nmethod'))),
    },
  }),
  entry({
    id: 'B23',
    title: 'a record holding the lenient 3-byte encoding of a lone surrogate: invalid UTF-8, dropped and counted',
    damage: 'bytes ED B2 9F (U+DC9F encoded as if it were a character) inside the prompt of line 104',
    build(root) {
      const p = project(root)
      p.write(LOG, replacing(104, spliced(REAL[103], 'Show me git', Buffer.from([0xed, 0xb2, 0x9f]))))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: [6, 7], files: {[LOG]: 'corrupt invalid-utf8'}, findings: ['session-corrupt']})],
      repair: rewrite(LOG, () => droppedAndRelinked(104), [6, 6]),
    },
  }),
  // ---- K9 beyond reader limits ---------------------------------------------------------------------------
  entry({
    id: 'B25',
    title: 'a first prompt longer than a 16 KB preview window: intact',
    damage: 'the first prompt (line 3) made 61,000 bytes long (a pasted document)',
    build(root) {
      const p = project(root)
      p.write(LOG, replacing(3, edited(REAL[2], 'Please list the files in this project.', `Please list the files in this project. ${'x'.repeat(60_400)}`)))
      return p.dir
    },
    expect: {exitCode: 0, chats: [verdict({status: 'healthy', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'intact'}})], repair: null},
  }),
  // ---- K10 not JSON at all -------------------------------------------------------------------------------
  entry({
    id: 'B26',
    title: 'a session log of ciphertext-like bytes: foreign-content, never truncated; its copy restores it',
    damage: '<id>.jsonl = 2048 bytes of random binary (no record, first byte not a {); <id>.jsonl.bak = the whole log',
    build(root) {
      const p = project(root)
      p.write(`${LOG}.bak`, realLog(), T0 + 1000)
      p.write(LOG, ciphertextLike(2048, seededRandom(26)))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: `${LOG}.bak`, turns: [7, 7], files: {[LOG]: 'corrupt foreign-content', [`${LOG}.bak`]: 'intact'}, findings: ['session-corrupt', 'primary-behind'], absent: ['session-truncated']})],
      repair: rewrite(`${LOG}.bak`, (b) => b(`${LOG}.bak`)),
    },
  }),
  entry({
    id: 'B27',
    title: 'a session log overwritten with minified library code: foreign-content, restored from its .bak',
    damage: '<id>.jsonl = 50 KB of minified JavaScript (no line is a JSON object); <id>.jsonl.bak = the log before its last turn (lines 1–103)',
    build(root) {
      const p = project(root)
      p.write(`${LOG}.bak`, join(span(1, 103)), T0 + 1000)
      p.write(LOG, minifiedScript(240))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: `${LOG}.bak`, turns: [6, 6], files: {[LOG]: 'corrupt foreign-content', [`${LOG}.bak`]: 'intact'}, findings: ['session-corrupt', 'primary-behind'], account: [/other content from its first byte/]})],
      repair: rewrite(`${LOG}.bak`, (b) => b(`${LOG}.bak`), [6, 6]),
    },
  }),
  entry({
    id: 'B27',
    title: 'a session log overwritten with minified library code and no copy: foreign-content, lost, nothing written',
    damage: '<id>.jsonl = 50 KB of minified JavaScript; no other generation',
    build(root) {
      const p = project(root)
      p.write(LOG, minifiedScript(240))
      return p.dir
    },
    expect: {
      exitCode: 4,
      chats: [verdict({status: 'unrecoverable', winner: null, turns: [null, 0], files: {[LOG]: 'corrupt foreign-content'}, findings: ['session-corrupt', 'context-lost']})],
      repair: null,
    },
  }),
  // ---- K11 valid but emptied -----------------------------------------------------------------------------
  entry({
    id: 'B28',
    title: 'a valid two-line stub replaces the log; the richer .bak wins (ranked by turns, not by mtime)',
    damage: '<id>.jsonl = its first two records only (queue operations, no turn; newest mtime); <id>.jsonl.bak = the whole log (older mtime)',
    build(root) {
      const p = project(root)
      p.write(`${LOG}.bak`, realLog(), T0 + 1000)
      p.write(LOG, join(span(1, 2)), T0 + 9000)
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: `${LOG}.bak`, turns: [7, 7], files: {[LOG]: 'intact', [`${LOG}.bak`]: 'intact'}, findings: ['primary-behind']})],
      repair: rewrite(`${LOG}.bak`, (b) => b(`${LOG}.bak`)),
    },
  }),
  entry({
    id: 'B31',
    title: 'a stale log behind a complete newer temp: the temp wins',
    damage: '<id>.jsonl = lines 1–63 (3 turns, older); <id>.jsonl.tmp = the whole log (7 turns, newer) left by a rewrite that never renamed it',
    build(root) {
      const p = project(root)
      p.write(LOG, join(span(1, 63)), T0 + 1000)
      p.write(`${LOG}.tmp`, realLog(), T0 + 5000)
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: `${LOG}.tmp`, turns: [7, 7], files: {[LOG]: 'intact', [`${LOG}.tmp`]: 'intact'}, findings: ['primary-behind']})],
      repair: rewrite(`${LOG}.tmp`, (b) => b(`${LOG}.tmp`)),
    },
  }),
  // ---- K12 valid lines, broken structure -------------------------------------------------------------------
  entry({
    id: 'B32',
    title: 'a session that stops during a tool call: an open tool call at the end is normal, nothing to repair',
    damage: 'the log cut after line 57 (an assistant tool_use whose result never came)',
    build(root) {
      const p = project(root)
      p.write(LOG, join(span(1, 57)))
      return p.dir
    },
    expect: {exitCode: 0, chats: [verdict({status: 'healthy', winner: LOG, turns: [3, 3], files: {[LOG]: 'intact'}, findings: ['open-tool-call']})], repair: null},
  }),
  entry({
    id: 'B33',
    title: 'a parent link to a record never written: the chain walk stops there; re-linked, the whole chain back',
    damage: "line 65's parentUuid replaced by a uuid that no record has",
    build(root) {
      const p = project(root)
      p.write(LOG, replacing(65, edited(REAL[64], `"parentUuid":"${parentOf(65)}"`, '"parentUuid":"00000000-0000-4000-8000-0000000000ff"')))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'intact'}, findings: ['dangling-parent']})],
      repair: rewrite(LOG, () => realLog()),
    },
  }),
  entry({
    id: 'B37',
    title: 'a placeholder parent id (the right id with a stray suffix): dangling, re-linked to the record before',
    damage: "line 48's parentUuid = its parent's uuid followed by \"_\" (a placeholder id never replaced)",
    build(root) {
      const p = project(root)
      p.write(LOG, replacing(48, edited(REAL[47], `"parentUuid":"${parentOf(48)}"`, `"parentUuid":"${parentOf(48)}_"`)))
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL_TURNS, files: {[LOG]: 'intact'}, findings: ['dangling-parent']})],
      repair: rewrite(LOG, () => realLog()),
    },
  }),
  // ---- K14 generations -------------------------------------------------------------------------------------
  entry({
    id: 'B46',
    title: 'a complete newer temp and a torn one beside the log: the complete one wins, the torn one listed',
    damage: '<id>.jsonl = lines 1–90 (5 turns); <id>.jsonl.tmp.4242 = the whole log (newer); <id>.jsonl.tmp.4243 = the whole log cut at 50% (newest)',
    build(root) {
      const p = project(root)
      p.write(LOG, join(span(1, 90)), T0 + 1000)
      p.write(`${LOG}.tmp.4242`, realLog(), T0 + 5000)
      const whole = realLog()
      p.write(`${LOG}.tmp.4243`, whole.subarray(0, Math.floor(whole.length / 2)), T0 + 6000)
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        verdict({
          status: 'repairable',
          winner: `${LOG}.tmp.4242`,
          turns: [7, 7],
          files: {[LOG]: 'intact', [`${LOG}.tmp.4242`]: 'intact', [`${LOG}.tmp.4243`]: 'truncated torn-tail'},
          findings: ['primary-behind', 'temp-damaged'],
        }),
      ],
      repair: rewrite(`${LOG}.tmp.4242`, (b) => b(`${LOG}.tmp.4242`)),
    },
  }),
  entry({
    id: 'B47',
    title: "a newer copy under write-file-atomic's name (<name>.<32-bit number>) is a generation: it wins",
    damage: '<id>.jsonl = lines 1–75 (4 turns); <id>.jsonl.3730721750 = the whole log (newer), no .tmp suffix',
    build(root) {
      const p = project(root)
      p.write(LOG, join(span(1, 75)), T0 + 1000)
      p.write(`${LOG}.3730721750`, realLog(), T0 + 5000)
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: `${LOG}.3730721750`, turns: [7, 7], files: {[LOG]: 'intact', [`${LOG}.3730721750`]: 'intact'}, findings: ['primary-behind']})],
      repair: rewrite(`${LOG}.3730721750`, (b) => b(`${LOG}.3730721750`)),
    },
  }),
  entry({
    id: 'B48',
    title: 'the log gone, its rollback copy left: the copy is written back as the log',
    damage: '<id>.jsonl absent (a failed rename after moving it aside); <id>.jsonl.bak = the whole log',
    build(root) {
      const p = project(root)
      p.write(`${LOG}.bak`, realLog(), T0 + 1000)
      p.remove(LOG)
      return p.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: `${LOG}.bak`, turns: [7, 7], files: {[`${LOG}.bak`]: 'intact'}, findings: ['primary-missing']})],
      repair: {chat: A, outcome: 'repaired', restores: [{to: LOG, from: `${LOG}.bak`, bytes: (b) => b(`${LOG}.bak`)}], exitCode: 1, after: {status: 'healthy', winner: LOG, turns: ALL_TURNS, exitCode: 0}},
    },
  }),
]

const noEntry: NoEntry[] = [
  {id: 'B09', kind: 'not-covered', reason: "a torn ~/.claude.json and its backups are Claude Code's config, diagnosed as an agent index (the Agent indexes part's B09, B16, B28), not by the session-log rules"},
  {id: 'B03', kind: 'not-covered', reason: "the same line rules on Codex rollouts are the Codex part's B03 (empty logs and logs whose only line is cut); the family's classifier is shared"},
  {id: 'B10', kind: 'not-applicable', reason: 'a JSON array closed by adding its ] has no analog in a log of whole lines: a record cut before its closing brace is a torn tail (B11), dropped, never completed by invented bytes'},
  {id: 'B15', kind: 'not-covered', reason: "a cut record followed by its complete twin on the next line is the Codex part's B15; on a Claude Code log the same line rules apply (torn-interior, the twin kept)"},
  {id: 'B29', kind: 'not-applicable', reason: "Claude Code keeps the records before a compaction in the same log and links across it (compact_boundary's logicalParentUuid): there is no parent file for a compaction to empty"},
  {id: 'B30', kind: 'not-covered', reason: "a log shrunk to a valid stub beside a richer copy is B28's shape (the copy wins by turns)"},
  {id: 'B34', kind: 'not-applicable', reason: 'a Claude Code log has no header record: every line is a record of its own; the Codex analog (a rollout without session_meta) is in the Codex part'},
  {id: 'B35', kind: 'not-applicable', reason: 'Codex-only framing (paginated rollouts and their ordinal); Claude Code records carry no ordinal'},
  {id: 'B36', kind: 'not-applicable', reason: "a Claude Code log has no current-message pointer: the loader walks back from the newest record (parent links to missing records are B33)"},
  {id: 'B38', kind: 'not-applicable', reason: 'Claude Code keeps no task index of its sessions: the project folder is listed by its *.jsonl files (a sessions-index.json is B41)'},
  {id: 'B39', kind: 'not-applicable', reason: 'as B38: no task index; the session index Claude Code writes in some versions is B41'},
  {id: 'B40', kind: 'not-applicable', reason: 'Claude Code keeps no SQLite state for its sessions'},
  {id: 'B41', kind: 'not-covered', reason: "Claude Code's sessions-index.json is an index, diagnosed with the other indexes (the index work), not by the session-log rules; the logs it lists are diagnosed as they are"},
  {id: 'B42', kind: 'not-covered', reason: 'an index listing sessions whose logs are gone (and the prompts in ~/.claude/history.jsonl) is the index work\'s; chatdoctor finds no session to diagnose there'},
  {id: 'B43', kind: 'not-applicable', reason: "Zed's history rows; Claude Code names a session by its id in the file name: no row to lose it"},
  {id: 'B44', kind: 'not-applicable', reason: "OpenClaude's ~/.openclaude.json is a config document rotated into its backups; a session log with NUL bytes inside is repaired in place (B06, B07), and ~/.claude.json is the Agent indexes part's B09"},
  {id: 'B45', kind: 'not-applicable', reason: 'a store reset to defaults by a schema check; a session log has no schema to reset it, and chatdoctor never refreshes a copy from a poorer file'},
  {id: 'B49', kind: 'not-applicable', reason: 'Claude Code names a session by its full id: two logs never share one by their names'},
  {id: 'B50', kind: 'not-applicable', reason: "chatdoctor deletes nothing: every repair keeps the replaced log as evidence (each entry's repair checks it byte for byte)"},
  {id: 'B51', kind: 'not-applicable', reason: "a Claude Code log carries no format version a newer build bumps: record types a newer release adds are records, kept as they are"},
]

export const claudeCodePart: BugLogPart = {
  agent: 'Claude Code',
  intro:
    'Each damage is built by code on a copy of the real session the Claude Code 2.1.328 binary wrote (`shared/realdata/claude-code/2.1.328`, session A: 130 records, 7 user turns, a compaction), in its project folder `~/.claude/projects/-home-dev-demo-app/`; other agents\' reports get the Claude Code analog of their damage shape (copies beside the log, `<id>.jsonl.bak` and the like, are its generations). "N/M" is the winner\'s user turns after the repair of the prompts the log holds, damaged lines included; a repair is plain `chatdoctor repair -y`.',
  entries,
  noEntry,
  complete: true,
}
