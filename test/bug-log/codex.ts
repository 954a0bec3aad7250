/**
 * The Codex part of the bug log: every report whose agent is Codex, and the Codex analog of the reports whose
 * damage shape meets what only Codex has (its session_meta header, paginated ordinals, the `.jsonl.zst` copy
 * beside a rollout). Each damage is built by code on a copy of the real rollout the Codex CLI 0.169.0 binary
 * wrote (`shared/realdata/codex/0.169.0`, thread C: a paginated rollout of 128 records, 6 user turns, a
 * compaction) or of the public pre-`session_meta` rollout (`shared/realdata/public/codex`, CRLF line ends). The
 * line rules the family shares with Claude Code are that part's entries. Expected verdicts follow the
 * session-log rules of `docs/diagnosis.md` and Codex's loader rules (its ordinal and header checks), checked by
 * hand against them.
 */
import path from 'node:path'
import {readFileSync} from 'node:fs'
import {REALDATA} from '../helpers/fixtures.js'
import {zstdStored} from '../helpers/sessions.js'
import type {BugLogEntry, BugLogPart, ChatVerdict, NoEntry, RepairVerdict} from './types.js'
import {LF, LogFolder, T0, body, edited, linesOf, partOf} from './session-logs.js'

const HOME = path.join(REALDATA, 'codex', '0.169.0', 'home')
const DAY = path.join('.codex', 'sessions', '2026', '12', '01')
/** Thread C (`codex exec`): a paginated rollout, 128 records (ordinals 0–127), 6 user turns (lines 8, 27, 46, 65, 103, 122). */
const C = '01a230d3-910e-7ab3-9c7f-f7f164ff1ff1'
const LOG = `rollout-2026-12-01T08-58-21-${C}.jsonl`
/** Thread D (the TUI): 45 records, 2 user turns. */
const D = '01a230d3-ac83-7592-b02d-82076d0dd468'
const LOG_D = `rollout-2026-12-01T08-58-28-${D}.jsonl`
const realLog = (name = LOG) => readFileSync(path.join(HOME, DAY, name))
const REAL = linesOf(realLog())
const join = (lines: Buffer[]) => Buffer.concat(lines)
/** The real rollout's lines `from`–`to` (1-based, inclusive). */
const span = (from: number, to: number) => REAL.slice(from - 1, to)
/** A line whose `ordinal` is `delta` off (what a resumed writer gives the lines after a record it lost). */
function renumbered(line: Buffer, delta: number): Buffer {
  const s = line.toString('utf8')
  const m = /"ordinal":(\d+)/.exec(s)
  if (!m) throw new Error('no ordinal in the line')
  return Buffer.from(s.replace(m[0], `"ordinal":${Number(m[1]) + delta}`))
}
/**
 * The real rollout with line `n` (1-based) replaced by `with`, and every line after it one ordinal lower: a
 * record torn by a crash, then the resumed writer's records, numbered on from the last whole record.
 */
function tornThenResumed(n: number, ...with_: Buffer[]): Buffer {
  return join([...span(1, n - 1), ...with_, ...span(n + 1, REAL.length).map((l) => renumbered(l, -1))])
}
/** The rollout a repair of `tornThenResumed(n, …)` writes: line `n` gone, the resumed records as they are. */
const withoutLine = (n: number) => join([...span(1, n - 1), ...span(n + 1, REAL.length).map((l) => renumbered(l, -1))])

/** A copy of the day folder holding thread C's rollout (mtime T0+4 s). */
function day(root: string): LogFolder {
  const f = new LogFolder(path.join(root, DAY))
  f.write(LOG, realLog(), T0 + 4000)
  return f
}

const ALL: [number, number] = [6, 6]
/** A log-streaming threshold below rollout C's size: the rollout takes the streaming path. */
const LOG_STREAM_AT = 4096
const verdict = (v: Omit<ChatVerdict, 'chat'>): ChatVerdict => ({chat: C, ...v})

/** The plain repair that writes the rollout from `from` (bytes `bytes`) and leaves it healthy at `turns`. */
function rewrite(from: string, bytes: (before: (name: string) => Buffer) => Buffer, turns: [number, number] = ALL, chat = C, to = LOG): RepairVerdict {
  return {chat, outcome: 'repaired', restores: [{to, from, bytes}], exitCode: 1, after: {status: 'healthy', winner: to, turns, exitCode: 0}}
}

const entry = (e: Omit<BugLogEntry, 'agent' | 'format'>): BugLogEntry => ({agent: 'Codex', format: 'codex', ...e})

/** The public pre-`session_meta` rollout (CRLF), under the name Codex gives it from its header. */
const LEGACY_ID = 'cf4def41-21e0-4b91-adb4-5397c1492084'
const LEGACY = `rollout-2025-09-10T18-58-38-${LEGACY_ID}.jsonl`
const legacyLog = () => readFileSync(path.join(REALDATA, 'public', 'codex', 'AcidicSoil-codex-session-viewer__example.jsonl'))

const entries: BugLogEntry[] = [
  entry({
    id: 'B01',
    title: 'a rollout left at 0 bytes is empty; its compressed copy beside it restores it',
    damage: 'rollout-….jsonl truncated to 0 bytes; rollout-….jsonl.zst = the whole rollout, compressed (Codex keeps both after its compression step)',
    build(root) {
      const d = day(root)
      d.write(`${LOG}.zst`, zstdStored(realLog()), T0 + 1000)
      d.write(LOG, Buffer.alloc(0))
      return d.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: `${LOG}.zst`, turns: ALL, files: {[LOG]: 'empty', [`${LOG}.zst`]: 'intact'}, findings: ['session-corrupt', 'primary-behind']})],
      repair: rewrite(`${LOG}.zst`, () => realLog()),
    },
  }),
  entry({
    id: 'B03',
    title: 'empty rollouts and rollouts whose only line is a cut header, beside an intact one',
    damage: 'five 0-byte rollouts and two holding the first 300 bytes of a session_meta line (no LF), beside the real TUI rollout',
    build(root) {
      const d = new LogFolder(path.join(root, DAY))
      d.write(LOG_D, realLog(LOG_D), T0 + 4000)
      const meta = body(REAL[0]).subarray(0, 300)
      for (let i = 0; i < 5; i++) d.write(`rollout-2026-12-01T09-0${i}-00-01a230d3-0000-7000-8000-00000000000${i}.jsonl`, Buffer.alloc(0), T0 + 10_000 + i)
      for (let i = 5; i < 7; i++) d.write(`rollout-2026-12-01T09-0${i}-00-01a230d3-0000-7000-8000-00000000000${i}.jsonl`, meta, T0 + 10_000 + i)
      return d.dir
    },
    expect: {
      exitCode: 4,
      chats: [
        {chat: D, status: 'healthy', winner: LOG_D, turns: [2, 2], files: {[LOG_D]: 'intact'}},
        ...[0, 1, 2, 3, 4].map((i) => ({chat: `01a230d3-0000-7000-8000-00000000000${i}`, status: 'unrecoverable' as const, winner: null, turns: [null, 0] as [null, number], files: {[`rollout-2026-12-01T09-0${i}-00-01a230d3-0000-7000-8000-00000000000${i}.jsonl`]: 'empty'}, findings: ['context-lost']})),
        ...[5, 6].map((i) => ({chat: `01a230d3-0000-7000-8000-00000000000${i}`, status: 'unrecoverable' as const, winner: null, turns: [null, 0] as [null, number], files: {[`rollout-2026-12-01T09-0${i}-00-01a230d3-0000-7000-8000-00000000000${i}.jsonl`]: 'truncated torn-tail'}, findings: ['session-truncated', 'context-lost']})),
      ],
      repair: null,
    },
  }),
  entry({
    id: 'B24',
    title: 'an intact rollout on the streaming path (as one over V8\'s longest string is read, openai/codex #25215) is healthy with its turns',
    damage: `the real rollout C, scanned with CHATDOCTOR_LOG_STREAM_THRESHOLD=${LOG_STREAM_AT} (below its size): read a chunk at a time, as a rollout above the threshold (64 MiB) or over V8's longest string (~512 MiB) is, no record value kept`,
    env: {CHATDOCTOR_LOG_STREAM_THRESHOLD: String(LOG_STREAM_AT)},
    build(root) {
      return day(root).dir
    },
    expect: {
      exitCode: 0,
      chats: [verdict({status: 'healthy', winner: LOG, turns: ALL, files: {[LOG]: 'intact'}, absent: ['session-corrupt', 'context-lost']})],
      repair: null,
    },
  }),
  entry({
    id: 'B24',
    title: 'a rollout on the streaming path with its last record torn: trimmed from byte ranges of the rollout',
    damage: `the last record (line 128, ordinal 127) cut at 60%, scanned and repaired with CHATDOCTOR_LOG_STREAM_THRESHOLD=${LOG_STREAM_AT}`,
    env: {CHATDOCTOR_LOG_STREAM_THRESHOLD: String(LOG_STREAM_AT)},
    build(root) {
      const d = day(root)
      d.write(LOG, join([...span(1, 127), partOf(REAL[127], 0.6)]))
      return d.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL, files: {[LOG]: 'truncated torn-tail'}, findings: ['session-truncated']})],
      repair: rewrite(LOG, () => join(span(1, 127))),
    },
  }),
  entry({
    id: 'B11',
    title: 'the last record of a paginated rollout torn: trimmed; the record before it carries an ordinal, so Codex resumes',
    damage: 'the last record (line 128, ordinal 127) cut at 60%, no trailing LF',
    build(root) {
      const d = day(root)
      d.write(LOG, join([...span(1, 127), partOf(REAL[127], 0.6)]))
      return d.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL, files: {[LOG]: 'truncated torn-tail'}, findings: ['session-truncated']})],
      repair: rewrite(LOG, () => join(span(1, 127))),
    },
  }),
  entry({
    id: 'B11',
    title: "a cut inside the last turn's answer: that turn is not whole, and every output says its final answer is lost",
    damage: "the rollout cut in the middle of line 125 (turn 6's assistant message, ordinal 124): turn 6's prompt survives, its answer and the records after it do not",
    build(root) {
      const d = day(root)
      d.write(LOG, join([...span(1, 124), partOf(REAL[124], 0.5)]))
      return d.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        verdict({
          status: 'repairable',
          winner: LOG,
          turns: [5, 6],
          files: {[LOG]: 'truncated torn-tail'},
          findings: ['session-truncated', 'answer-lost'],
          said: {'answer-lost': /: turn 6 \("What is left to do\?"\) lost its final answer: .* cut at line 125/},
          account: [/The cut fell inside turn 6 \("What is left to do\?"\): its final answer is lost/],
          humanSays: [/turn 6 \("What is left to do\?"\)/],
        }),
      ],
      repair: rewrite(LOG, () => join(span(1, 124))),
    },
  }),
  entry({
    id: 'B12',
    title: 'a record torn by a crash and the resumed writer\'s records after it: dropped, the ordinals run on',
    damage: 'line 34 (ordinal 33) cut at 40% with its LF; the 94 records after it numbered on from 33 (a resumed Codex continues from the last whole record)',
    build(root) {
      const d = day(root)
      d.write(LOG, tornThenResumed(34, partOf(REAL[33], 0.4), LF))
      return d.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL, files: {[LOG]: 'corrupt torn-interior'}, findings: ['session-corrupt']})],
      repair: rewrite(LOG, () => withoutLine(34)),
    },
  }),
  entry({
    id: 'B12',
    title: 'a prompt torn where no later record reuses its ordinal: Codex skips it, a repair Codex would refuse is not made',
    damage: 'line 27 (the prompt "Show src/todo.ts.", ordinal 26) cut at 40% with its LF; the lines after it keep their ordinals (27…)',
    build(root) {
      const d = day(root)
      d.write(LOG, join([...span(1, 26), partOf(REAL[26], 0.4), LF, ...span(28, 128)]))
      return d.dir
    },
    expect: {
      exitCode: 4,
      chats: [verdict({status: 'degraded', winner: LOG, turns: [5, 6], files: {[LOG]: 'corrupt torn-interior'}, findings: ['session-corrupt']})],
      repair: {chat: C, outcome: 'left-untouched', restores: [], exitCode: 4, after: {status: 'degraded', winner: LOG, turns: [5, 6], exitCode: 4}},
    },
  }),
  entry({
    id: 'B15',
    title: 'a partial reasoning record, then its complete twin: the partial dropped, the twin kept',
    damage: 'line 30 (a reasoning record) cut at 35% with its LF, followed by the same record again with a timestamp 3 minutes later (same ordinal)',
    build(root) {
      const d = day(root)
      const twin = edited(REAL[29], '"timestamp":"2026-12-01T08:58:', '"timestamp":"2026-12-01T09:01:')
      d.write(LOG, join([...span(1, 29), partOf(REAL[29], 0.35), LF, twin, ...span(31, 128)]))
      return d.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL, files: {[LOG]: 'corrupt torn-interior'}, findings: ['session-corrupt']})],
      repair: rewrite(LOG, () => join([...span(1, 29), edited(REAL[29], '"timestamp":"2026-12-01T08:58:', '"timestamp":"2026-12-01T09:01:'), ...span(31, 128)])),
    },
  }),
  entry({
    id: 'B18',
    title: 'a BOM in front of the session_meta header: Codex refuses the rollout; the BOM stripped',
    damage: 'EF BB BF in front of line 1 (an editor re-saved the rollout)',
    build(root) {
      const d = day(root)
      d.damage(LOG, (b) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]))
      return d.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL, files: {[LOG]: 'corrupt bom'}, findings: ['session-corrupt', 'loader-refuses']})],
      repair: rewrite(LOG, () => realLog()),
    },
  }),
  entry({
    id: 'B19',
    title: 'a record ending in an incomplete UTF-8 sequence: the whole rollout fails to decode for Codex; the line dropped',
    damage: 'line 20 (an agent message) cut after E6 87, the first two bytes of a CJK character, LF kept; the records after it numbered on (the resumed writer)',
    build(root) {
      const d = day(root)
      const withCjk = edited(REAL[19], '"text":"The project', '"text":"懇The project')
      const cut = withCjk.indexOf(Buffer.from('懇')) + 2
      d.write(LOG, tornThenResumed(20, withCjk.subarray(0, cut), LF))
      return d.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL, files: {[LOG]: 'corrupt torn-utf8 torn-interior'}, findings: ['session-corrupt', 'loader-refuses']})],
      repair: rewrite(LOG, () => withoutLine(20)),
    },
  }),
  entry({
    id: 'B23',
    title: 'a pre-session_meta rollout (CRLF) with the 3-byte encoding of a lone surrogate in a prompt: invalid UTF-8, the line dropped',
    damage: 'bytes ED B2 9F inside the first real prompt (line 6) of the public pre-session_meta rollout',
    build(root) {
      const d = new LogFolder(path.join(root, '.codex', 'sessions', '2025', '09', '10'))
      const L = linesOf(legacyLog())
      const at = L[5].indexOf('What') + 4
      L[5] = Buffer.concat([L[5].subarray(0, at), Buffer.from([0xed, 0xb2, 0x9f]), L[5].subarray(at)])
      d.write(LEGACY, Buffer.concat(L), T0)
      return d.dir
    },
    expect: {
      exitCode: 2,
      chats: [{chat: LEGACY_ID, status: 'repairable', winner: LEGACY, turns: [44, 45], files: {[LEGACY]: 'corrupt invalid-utf8'}, findings: ['session-corrupt', 'loader-refuses']}],
      repair: rewrite(LEGACY, () => {
        const L = linesOf(legacyLog())
        return Buffer.concat([...L.slice(0, 5), ...L.slice(6)])
      }, [44, 44], LEGACY_ID, LEGACY),
    },
  }),
  entry({
    id: 'B30',
    title: 'the rollout shrunk to its header while its compressed copy holds every turn: the copy wins',
    damage: 'rollout-….jsonl = its session_meta line only (valid, no turn); rollout-….jsonl.zst = the whole rollout, compressed',
    build(root) {
      const d = day(root)
      d.write(`${LOG}.zst`, zstdStored(realLog()), T0 + 1000)
      d.write(LOG, REAL[0])
      return d.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: `${LOG}.zst`, turns: ALL, files: {[LOG]: 'intact', [`${LOG}.zst`]: 'intact'}, findings: ['primary-behind']})],
      repair: rewrite(`${LOG}.zst`, () => realLog()),
    },
  }),
  entry({
    id: 'B34',
    title: 'a rollout missing its session_meta line: every record intact, the header reported, a repair by hand',
    damage: 'line 1 (session_meta) removed; the 127 records after it intact',
    build(root) {
      const d = day(root)
      d.write(LOG, join(span(2, 128)))
      return d.dir
    },
    expect: {
      exitCode: 2,
      chats: [
        verdict({
          status: 'repairable',
          winner: LOG,
          turns: [0, 6],
          files: {[LOG]: 'intact'},
          findings: ['missing-header'],
          absent: ['context-lost'],
          account: [/01a230d3-910e-7ab3-9c7f-f7f164ff1ff1/],
        }),
      ],
      repair: {chat: C, outcome: 'manual', restores: [], exitCode: 2, after: {status: 'repairable', winner: LOG, turns: [0, 6], exitCode: 2}},
    },
  }),
  entry({
    id: 'B35',
    title: 'the last record of a paginated rollout without its ordinal: Codex refuses; the ordinal its writer would give is set',
    damage: 'the "ordinal":127 member removed from the last record (written by a CLI that does not number records)',
    build(root) {
      const d = day(root)
      d.write(LOG, join([...span(1, 127), edited(REAL[127], '"ordinal":127,', '')]))
      return d.dir
    },
    expect: {
      exitCode: 2,
      chats: [verdict({status: 'repairable', winner: LOG, turns: ALL, files: {[LOG]: 'intact'}, findings: ['loader-refuses']})],
      repair: rewrite(LOG, () => realLog()),
    },
  }),
]

const claude = (id: string, what: string): NoEntry => ({id, kind: 'not-covered', reason: `${what}: the family's line rules, tested on a Claude Code log (that part's ${id}); a rollout follows the same classifier and planner, with Codex's acceptance rules (header first, ordinals) on top`})

const noEntry: NoEntry[] = [
  claude('B02', 'an empty log with no other generation'),
  claude('B04', 'a zero-filled log beside intact ones'),
  claude('B05', 'a zero-filled log restored from an older copy'),
  claude('B06', 'an interior line of NULs'),
  claude('B07', 'NULs after a record and a NUL-only last line'),
  claude('B08', 'NULs after the last complete line'),
  {id: 'B09', kind: 'not-applicable', reason: "a JSON config document; Codex keeps its config in config.toml, and no chat state in one JSON document"},
  {id: 'B10', kind: 'not-applicable', reason: 'a JSON array closed by adding its ]; a rollout\'s record cut before its brace is a torn tail (B11)'},
  claude('B13', 'a cut record and the next record on one line'),
  claude('B14', 'cut prefixes followed by their complete records'),
  claude('B16', 'two complete records run together on one line'),
  claude('B17', 'a stale tail after the last record'),
  claude('B20', 'a lone surrogate escape (kept, a warning)'),
  claude('B21', 'a raw U+2028 inside a record (intact)'),
  claude('B22', 'a record spread over lines by raw line breaks (rejoined)'),
  claude('B25', 'a first line longer than a preview window'),
  claude('B26', 'a log of ciphertext-like bytes beside a copy'),
  claude('B27', 'a log overwritten with foreign content'),
  claude('B28', 'a valid stub beside a richer copy'),
  {id: 'B29', kind: 'not-applicable', reason: 'a Codex compaction is a `compacted` record in the same rollout (its replacement_history): no parent file is emptied'},
  claude('B31', 'a stale log behind a newer complete temp'),
  claude('B32', 'a session that stops during a tool call (an open call at the end is normal)'),
  {id: 'B33', kind: 'not-applicable', reason: 'rollout records carry no parent links: the history is the records in order'},
  {id: 'B36', kind: 'not-applicable', reason: 'a rollout has no current-message pointer or child links'},
  {id: 'B37', kind: 'not-applicable', reason: 'rollout records carry no parent ids to orphan'},
  {id: 'B38', kind: 'not-applicable', reason: 'Codex keeps no task index of folders; its thread list is the rollouts themselves (and the state database, B40)'},
  {id: 'B39', kind: 'not-applicable', reason: 'as B38: no task history index'},
  {id: 'B40', kind: 'not-covered', reason: "Codex's state_5.sqlite is an index, the index work's; the rollouts it indexes are diagnosed as they are (Codex rebuilds its rows from them)"},
  {id: 'B41', kind: 'not-covered', reason: "Codex's session_index.jsonl and history.jsonl are indexes, the index work's"},
  {id: 'B42', kind: 'not-covered', reason: 'an index whose rollouts are gone (prompts left in history.jsonl) is the index work\'s; no rollout is there to diagnose'},
  {id: 'B43', kind: 'not-applicable', reason: "Zed's history rows; a rollout carries its thread id in its name and header"},
  {id: 'B44', kind: 'not-applicable', reason: 'a config document rotated into poisoned backups; Codex keeps no JSON config'},
  {id: 'B45', kind: 'not-applicable', reason: 'a store reset to defaults by a schema check; a rollout has none, and chatdoctor never refreshes a copy from a poorer file'},
  claude('B46', 'a complete newer temp and a torn one beside the log'),
  claude('B47', "a newer copy under write-file-atomic's name"),
  claude('B48', 'the log gone, its copy left'),
  {id: 'B49', kind: 'not-applicable', reason: "a rollout's name carries its full thread id: two rollouts never share one by their names (the .jsonl and .jsonl.zst of one thread are generations of one session)"},
  {id: 'B50', kind: 'not-applicable', reason: "chatdoctor deletes nothing: every repair keeps the replaced rollout as evidence, and never touches the .jsonl.zst"},
  {id: 'B51', kind: 'not-applicable', reason: "a rollout carries no format version a newer build bumps: both history modes (legacy and paginated) are read; a paginated rollout appended to by an older CLI is B35"},
]

export const codexPart: BugLogPart = {
  agent: 'Codex',
  intro:
    'Each damage is built by code on a copy of the real paginated rollout the Codex CLI 0.169.0 binary wrote (`shared/realdata/codex/0.169.0`, thread C: 128 records numbered 0–127, 6 user turns, a compaction) in `~/.codex/sessions/2026/12/01/`, or of the public pre-`session_meta` rollout (CRLF). Turns are the user input items the model sees. A repair is accepted only as Codex would accept the result: `session_meta` first and, in a paginated rollout, every record numbered one more than the one before it. The line rules the family shares with Claude Code are tested in that part.',
  entries,
  noEntry,
  complete: true,
}
