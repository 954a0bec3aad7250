/**
 * The OpenCode part of the bug log: every report whose agent is OpenCode, and the OpenCode analog of the reports
 * whose damage shape applies to its JSON tree (one small JSON file per session, message and part) or its SQLite
 * store. Each damage is built by code on a copy of the real stores the OpenCode binaries wrote
 * (`shared/realdata/opencode/1.1.65`: the JSON tree, two sessions; `1.18.33`: the database); the expected
 * verdicts follow the tree rules of `docs/diagnosis.md` and `docs/repair.md` (a damaged file moves out of the
 * tree, the loss reported), checked by hand against them.
 */
import {readdirSync, readFileSync, statSync, writeFileSync, rmSync, openSync, writeSync, closeSync} from 'node:fs'
import path from 'node:path'
import {REALDATA, copyWritable} from '../helpers/fixtures.js'
import type {BugLogEntry, BugLogPart, ChatVerdict, NoEntry} from './types.js'
import {minifiedScript} from './session-logs.js'
import {withTextEnding, writeStore} from '../helpers/sqlite-store.js'

const OC = path.join(REALDATA, 'opencode')
const TREE = path.join(OC, '1.1.65', 'data', 'opencode')
const DB = path.join(OC, '1.18.33', 'data', 'opencode')
const PROJECT = 'dfa7b73011a5aa73687463da673751ea81200147'
/** The session OpenCode 1.1.65 wrote through its API: 4 user turns, 6 messages, 6 parts. */
const API = 'ses_dd6249cf0ffevk8ay20nf1cCNR'
/** The session OpenCode imported from the synthetic export: 2 user turns, 6 messages, 12 parts. */
const FIX = 'ses_fixture0000000000000000000'
/** The database sessions of 1.18.33. */
const DB_API = 'ses_dd624f00affeLQd9JRo5aavtt0'

const SESSION = (sid: string) => `storage/session/${PROJECT}/${sid}.json`
/** A message of FIX with four parts, and one of its parts. */
const MSG = 'msg_01a22a125192fixture000003'
const MSG_FILE = `storage/message/${FIX}/${MSG}.json`
const PART = `storage/part/${MSG}/prt_01a22a125194fixture000005.json`
/** The text part of FIX's last answer ("A test that removing an unknown id returns false, …"). */
const ANSWER_TEXT = 'storage/part/msg_01a22a12519efixture000015/prt_01a22a1251a0fixture000017.json'
/** The same part's row in the 1.18.33 database. */
const DB_ANSWER_TEXT = 'prt_01a22a11fe86fixture000017'
/** The files of a database store: never classified as documents. */
const DB_FILES = {'opencode.db': 'other', 'opencode.db-shm': 'other', 'opencode.db-wal': 'other'}
/** The same files of a database a newer OpenCode migrated: the database says so (its bytes are not read as a class). */
const DB_NEWER_FILES = {...DB_FILES, 'opencode.db': 'other unsupported-version'}
/** The six characters `\ud83c`: a high surrogate with no low half (text cut inside an emoji), as JSON.stringify writes it. */
const LONE_HIGH = '\\ud83c'

/** Copies a real data dir to `<root>/.local/share/opencode` (writable); returns it. */
function store(root: string, src = TREE): string {
  return copyWritable(src, path.join(root, '.local', 'share', 'opencode'))
}

/** Every file of a session in the real tree (its session file, messages and their parts), each `intact`, with `changes`. */
function files(sid: string, changes: Record<string, string | null> = {}): Record<string, string> {
  const out: Record<string, string> = {[SESSION(sid)]: 'intact'}
  for (const m of readdirSync(path.join(TREE, 'storage', 'message', sid)).sort()) {
    out[`storage/message/${sid}/${m}`] = 'intact'
    const parts = path.join(TREE, 'storage', 'part', m.replace(/\.json$/, ''))
    for (const p of readdirSync(parts).sort()) out[`storage/part/${m.replace(/\.json$/, '')}/${p}`] = 'intact'
  }
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) delete out[k]
    else out[k] = v
  }
  return out
}

const damage = (data: string, rel: string, fn: (b: Buffer) => Buffer) => writeFileSync(path.join(data, rel), fn(readFileSync(path.join(data, rel))))

const healthy = (sid: string, turns: number): ChatVerdict => ({chat: sid, status: 'healthy', winner: SESSION(sid), turns: [turns, null], files: files(sid)})

const entry = (e: Omit<BugLogEntry, 'agent' | 'format'>): BugLogEntry => ({agent: 'OpenCode', format: 'opencode', ...e})

/** The plain repair of FIX that moves damaged files out of the tree and leaves it healthy. */
const fixMoved = {chat: FIX, outcome: 'repaired' as const, restores: [], exitCode: 1, after: {status: 'healthy' as const, winner: SESSION(FIX), turns: [2, null] as [number, null], exitCode: 0}}

const entries: BugLogEntry[] = [
  entry({
    id: 'B01',
    title: 'a part file left at 0 bytes: empty, not truncated; moved out, the session loads without it',
    damage: 'one part file of a message truncated to 0 bytes (disk full during a truncate-then-write)',
    build(root) {
      const data = store(root)
      writeFileSync(path.join(data, PART), '')
      return data
    },
    expect: {
      exitCode: 2,
      chats: [healthy(API, 4), {chat: FIX, status: 'repairable', winner: SESSION(FIX), turns: [2, null], files: files(FIX, {[PART]: 'empty'}), findings: ['part-damaged']}],
      repair: fixMoved,
    },
  }),
  entry({
    id: 'B02',
    title: 'a message file holding one line break: empty; the message and its parts move out, the loss reported',
    damage: "a message file of the imported session = a single LF (its four parts intact)",
    build(root) {
      const data = store(root)
      writeFileSync(path.join(data, MSG_FILE), '\n')
      return data
    },
    expect: {
      exitCode: 2,
      chats: [healthy(API, 4), {chat: FIX, status: 'repairable', winner: SESSION(FIX), turns: [2, null], files: files(FIX, {[MSG_FILE]: 'empty'}), findings: ['message-damaged']}],
      repair: fixMoved,
    },
  }),
  entry({
    id: 'B04',
    title: 'a session file of 413 NUL bytes does not hide the other session; it moves out, still unrecoverable',
    damage: "the API session's session file = NUL bytes of its size (a crash without atomic replace); the other session intact",
    build(root) {
      const data = store(root)
      damage(data, SESSION(API), (b) => Buffer.alloc(b.length))
      return data
    },
    expect: {
      exitCode: 4,
      chats: [{chat: API, status: 'unrecoverable', winner: null, turns: [null, null], files: files(API, {[SESSION(API)]: 'zero-filled'}), findings: ['primary-damaged']}, healthy(FIX, 2)],
      repair: {chat: API, outcome: 'repaired', restores: [], exitCode: 5, after: {status: 'unrecoverable', winner: null, turns: [null, null], exitCode: 4}},
    },
  }),
  entry({
    id: 'B08',
    title: 'NULs after a complete part file: corrupt nul-tail; the part moves out',
    damage: 'a part file followed by 1728 NUL bytes (a buffered write extended the file)',
    build(root) {
      const data = store(root)
      damage(data, PART, (b) => Buffer.concat([b, Buffer.alloc(1728)]))
      return data
    },
    expect: {
      exitCode: 2,
      chats: [healthy(API, 4), {chat: FIX, status: 'repairable', winner: SESSION(FIX), turns: [2, null], files: files(FIX, {[PART]: 'corrupt nul-tail'}), findings: ['part-damaged']}],
      repair: fixMoved,
    },
  }),
  entry({
    id: 'B09',
    title: 'a part file cut at a byte boundary by a concurrent writer: truncated; moved out',
    damage: 'a part file cut to its first 37% (a reader saw a half-written file)',
    build(root) {
      const data = store(root)
      damage(data, PART, (b) => b.subarray(0, Math.floor(b.length * 0.37)))
      return data
    },
    expect: {
      exitCode: 2,
      chats: [healthy(API, 4), {chat: FIX, status: 'repairable', winner: SESSION(FIX), turns: [2, null], files: files(FIX, {[PART]: 'truncated unexpected-end'}), findings: ['part-damaged']}],
      repair: fixMoved,
    },
  }),
  entry({
    id: 'B16',
    title: 'a message file holding its document twice: corrupt concatenated; the message and its parts move out',
    damage: 'a message file = its JSON document written twice back to back (two writers)',
    build(root) {
      const data = store(root)
      damage(data, MSG_FILE, (b) => Buffer.concat([b, b]))
      return data
    },
    expect: {
      exitCode: 2,
      chats: [healthy(API, 4), {chat: FIX, status: 'repairable', winner: SESSION(FIX), turns: [2, null], files: files(FIX, {[MSG_FILE]: 'corrupt concatenated'}), findings: ['message-damaged']}],
      repair: fixMoved,
    },
  }),
  entry({
    id: 'B18',
    title: 'a BOM in front of a part file: corrupt bom; moved out',
    damage: 'EF BB BF in front of a part file (an editor re-saved it)',
    build(root) {
      const data = store(root)
      damage(data, PART, (b) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]))
      return data
    },
    expect: {
      exitCode: 2,
      chats: [healthy(API, 4), {chat: FIX, status: 'repairable', winner: SESSION(FIX), turns: [2, null], files: files(FIX, {[PART]: 'corrupt bom'}), findings: ['part-damaged']}],
      repair: fixMoved,
    },
  }),
  entry({
    id: 'B20',
    title: 'a lone surrogate escape in a part file: intact, kept, with a warning naming the file and the field',
    damage: "the six characters \\ud83c (a high surrogate with no low half: text cut inside an emoji) written at the end of the text of the imported session's last answer; still valid JSON",
    build(root) {
      const data = store(root)
      damage(data, ANSWER_TEXT, (b) => {
        const v = JSON.parse(b.toString('utf8')) as {text: string}
        const end = b.indexOf(JSON.stringify(v.text)) + Buffer.byteLength(JSON.stringify(v.text)) - 1
        return Buffer.concat([b.subarray(0, end), Buffer.from(LONE_HIGH), b.subarray(end)])
      })
      return data
    },
    expect: {
      exitCode: 0,
      chats: [healthy(API, 4), {...healthy(FIX, 2), findings: ['lone-surrogate'], absent: ['part-damaged'], said: {'lone-surrogate': /^storage\/part\/msg_01a22a12519efixture000015\/prt_01a22a1251a0fixture000017\.json: 1 record holds a lone surrogate escape .*prt_01a22a1251a0fixture000017\.json \(text\)/}}],
      repair: null,
    },
  }),
  entry({
    id: 'B20',
    title: 'a lone surrogate escape in a part row of the database: kept, with a warning naming the row and the field',
    damage: "the six characters \\ud83c written at the end of the text of the imported session's last answer, in its part row of the 1.18.33 opencode.db (through SQLite, as OpenCode writes a row)",
    build(root) {
      const data = store(root, DB)
      writeStore(data, 'opencode.db', (db) => {
        const row = db.prepare('SELECT data FROM part WHERE id = ?').get(DB_ANSWER_TEXT) as {data: string}
        db.prepare('UPDATE part SET data = ? WHERE id = ?').run(withTextEnding(row.data, 'text', LONE_HIGH), DB_ANSWER_TEXT)
      })
      return data
    },
    expect: {
      exitCode: 0,
      chats: [
        {chat: DB_API, status: 'healthy', winner: 'opencode.db', turns: [4, null], files: DB_FILES, absent: ['lone-surrogate']},
        {chat: FIX, status: 'healthy', winner: 'opencode.db', turns: [2, null], files: DB_FILES, findings: ['lone-surrogate'], absent: ['database-damaged'], said: {'lone-surrogate': /^opencode\.db: 1 record holds a lone surrogate escape .*part prt_01a22a11fe86fixture000017 of message msg_01a22a11fe84fixture000015 \(text\)/}},
      ],
      repair: null,
    },
  }),
  entry({
    id: 'B27',
    title: 'a message file overwritten with minified library code: corrupt foreign-content; moved out with its parts',
    damage: 'a message file = 10 KB of minified JavaScript',
    build(root) {
      const data = store(root)
      writeFileSync(path.join(data, MSG_FILE), minifiedScript(48))
      return data
    },
    expect: {
      exitCode: 2,
      chats: [healthy(API, 4), {chat: FIX, status: 'repairable', winner: SESSION(FIX), turns: [2, null], files: files(FIX, {[MSG_FILE]: 'corrupt syntax-error foreign-content'}), findings: ['message-damaged']}],
      repair: fixMoved,
    },
  }),
  entry({
    id: 'B37',
    title: 'parts whose message file is gone: given to their session, which loads degraded; nothing moved',
    damage: 'a message file of the imported session deleted; its four part files left (their parent id names a message that is not there)',
    build(root) {
      const data = store(root)
      rmSync(path.join(data, MSG_FILE))
      return data
    },
    expect: {
      exitCode: 4,
      chats: [healthy(API, 4), {chat: FIX, status: 'degraded', winner: SESSION(FIX), turns: [2, null], files: files(FIX, {[MSG_FILE]: null})}],
      repair: {chat: FIX, outcome: 'left-untouched', restores: [], exitCode: 4, after: {status: 'degraded', winner: SESSION(FIX), turns: [2, null], exitCode: 4}},
    },
  }),
  entry({
    id: 'B40',
    title: 'a SQLite store with a page overwritten by NULs: the integrity check fails, the sessions still listed; repair left to OpenCode',
    damage: "one 4096-byte page in the middle of the 1.18.33 opencode.db overwritten with NULs (the -wal and -shm beside it intact)",
    build(root) {
      const data = store(root, DB)
      const db = path.join(data, 'opencode.db')
      const size = statSync(db).size
      const fd = openSync(db, 'r+')
      writeSync(fd, Buffer.alloc(4096), 0, 4096, Math.floor(size / 8192) * 4096)
      closeSync(fd)
      return data
    },
    expect: {
      exitCode: 2,
      chats: [
        {chat: DB_API, status: 'repairable', winner: 'opencode.db', turns: [4, null], files: {'opencode.db': 'other', 'opencode.db-shm': 'other', 'opencode.db-wal': 'other'}},
        {chat: FIX, status: 'repairable', winner: 'opencode.db', turns: [2, null], files: {'opencode.db': 'other', 'opencode.db-shm': 'other', 'opencode.db-wal': 'other'}},
      ],
      // A damaged database cannot be rewritten without its damage: a redacted copy would not be the same store.
      redactRefused: /cannot be redacted: its OpenCode store fails SQLite's integrity check/,
      repair: {chat: DB_API, outcome: 'manual', restores: [], exitCode: 2, after: {status: 'repairable', winner: 'opencode.db', turns: [4, null], exitCode: 2}},
    },
  }),
  entry({
    id: 'B51',
    title: 'a database migrated by a newer OpenCode: both sessions diagnosed from the tables chatdoctor knows, opencode.db unsupported-version; repair is report-only, nothing written',
    damage: "a row for a migration newer than every one 1.18.33 applied added to the 1.18.33 opencode.db's migration table (through SQLite, as OpenCode's migrator writes it); every other row as OpenCode left it",
    build(root) {
      const data = store(root, DB)
      writeStore(data, 'opencode.db', (db) => void db.prepare('INSERT INTO migration (id, time_completed) VALUES (?, ?)').run('29991231000000_newer_schema', Date.UTC(2026, 11, 1, 9, 0, 0)))
      return data
    },
    expect: {
      redactRefused: /cannot be redacted: its OpenCode store was migrated by a newer build/,
      exitCode: 0,
      chats: [
        {chat: DB_API, status: 'healthy', winner: 'opencode.db', turns: [4, null], files: DB_NEWER_FILES, findings: ['store-newer']},
        {chat: FIX, status: 'healthy', winner: 'opencode.db', turns: [2, null], files: DB_NEWER_FILES, findings: ['store-newer'], said: {'store-newer': /^opencode\.db: written by a newer OpenCode than chatdoctor knows \(its migration table records 1 migration chatdoctor does not know: 29991231000000_newer_schema\): use that OpenCode; chatdoctor reports only and will not write/}},
      ],
      repair: null,
    },
  }),
]

const na = (id: string, reason: string): NoEntry => ({id, kind: 'not-applicable', reason})

const noEntry: NoEntry[] = [
  na('B03', "Gemini CLI's JSON-lines chat files; OpenCode's tree holds one JSON document per file (an empty or torn file is B01, B02, B09)"),
  {id: 'B05', kind: 'not-covered', reason: 'OpenCode keeps no backup or rotated copy of a tree file: a zero-filled file is B04 (session) or a part moved out as in B01'},
  na('B06', 'a line of NULs between records of a JSON-lines log; an OpenCode file is one document (NULs inside it: B08)'),
  na('B07', 'NULs after a record on its line: a JSON-lines shape; an OpenCode file with NULs after its document is B08'),
  na('B10', "a task file missing its closing bracket and an index that lost the task: OpenCode's tree has no index file, and a torn file is B09"),
  na('B11', 'a torn last record of a JSON-lines log; a torn OpenCode file is B09'),
  na('B12', 'torn interior records of a JSON-lines log; an OpenCode file is one document'),
  na('B13', 'a cut record and the next record on one line: a JSON-lines shape'),
  na('B14', 'cut prefixes and their complete records on one line: a JSON-lines shape'),
  na('B15', 'a cut record then its complete twin on the next line: a JSON-lines shape (two documents in one file are B16)'),
  {id: 'B17', kind: 'not-covered', reason: "a stale tail after a complete document is the classifier's trailing-garbage, tested on Codebuff's files; OpenCode's tree files go through the same classifier"},
  {id: 'B19', kind: 'not-covered', reason: "a file holding an incomplete UTF-8 sequence is the classifier's invalid-utf8 rule, tested on Codebuff's files; OpenCode's tree files go through the same classifier"},
  na('B21', 'a raw U+2028 splitting a JSON-lines record for some readers; an OpenCode file is one document, never split on line breaks'),
  na('B22', 'literal newlines spreading a JSON-lines record over lines; an OpenCode file is pretty-printed JSON, line breaks are its whitespace'),
  na('B23', "Aider's Markdown chat history: an append-only text log; OpenCode files are JSON documents (bad UTF-8 in one is the classifier's invalid-utf8)"),
  na('B24', "a log larger than V8's longest string: OpenCode's files are one small document each, and its database is never read into a string"),
  na('B25', 'a first line longer than a preview window: a JSON-lines reader limit; OpenCode reads each small file whole'),
  {id: 'B26', kind: 'not-covered', reason: 'an encrypted (binary) tree file is the foreign-content rule of B27, whose head test calls binary bytes foreign too'},
  {id: 'B28', kind: 'not-covered', reason: 'a valid skeleton replacing a session file: OpenCode keeps no older copy to rank it against; the tree is read as it is'},
  na('B29', "OpenCode's compaction is a message of the same session (a summary message and a compaction part): no parent file is emptied"),
  na('B30', 'a UI log shrunk beside a full transcript: OpenCode keeps one store per session (the tree, or the database)'),
  na('B31', 'a stale primary behind a newer temp: OpenCode writes its tree files in place, no temp beside them'),
  na('B32', "an unterminated final turn: OpenCode's messages carry their completion time; an unfinished tool part is the tree's tool-output-missing (test/opencode.test.ts)"),
  na('B33', 'parent links between records of a JSON-lines log; an OpenCode part names its message by its folder, a message its session by its folder'),
  na('B34', 'a JSON-lines log missing its header record; an OpenCode session without its session file is listed from its message folder (test/opencode.test.ts)'),
  na('B35', "Codex's paginated ordinals"),
  na('B36', "Open WebUI's current-message pointer; an OpenCode session has none"),
  na('B38', 'a task index overwritten; OpenCode lists sessions from the tree (or the database), keeps no index file'),
  na('B39', 'as B38'),
  {id: 'B41', kind: 'not-covered', reason: "an index that diverges from its sessions is the index work's; OpenCode's tree has no index file"},
  na('B42', 'as B41: OpenCode keeps no index that could outlive its sessions'),
  na('B43', "Zed's history rows"),
  na('B44', "OpenClaude's poisoned config backups; OpenCode's tree has no backups"),
  na('B45', 'a store reset to defaults by a schema check, its backup refreshed from it; OpenCode keeps no backup of its tree files'),
  na('B46', 'leaked temps of an atomic writer; OpenCode writes its tree files in place'),
  na('B47', "write-file-atomic's temps; OpenCode writes in place"),
  na('B48', 'temps stuck behind a failed rename; OpenCode writes in place'),
  na('B49', "Gemini CLI's same-id siblings; OpenCode files are named by their full ids"),
  {id: 'B50', kind: 'not-covered', reason: "OpenCode's own loader skips what it cannot parse; chatdoctor never deletes: damaged files move into the evidence folder (every entry's repair above)"},
]

export const opencodePart: BugLogPart = {
  agent: 'OpenCode',
  intro:
    "Each damage is built by code on a copy of the real stores OpenCode wrote: the 1.1.65 JSON tree (`shared/realdata/opencode/1.1.65`: the API session, 4 user turns, and the imported session, 2 user turns) and the 1.18.33 SQLite store. A damaged tree file moves out of the tree into the evidence folder and the report says what the session loses; the database is never written (`manual`). \"N\" is the session's user turns (OpenCode has no separate transcript: M is –).",
  entries,
  noEntry,
  complete: true,
}
