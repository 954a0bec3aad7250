/**
 * The Kilo Code CLI part of the bug log: the Kilo analog of every report whose damage shape applies to a SQLite
 * store kept in WAL mode (`kilo.db` with its `-wal` and `-shm`: the database, the pages written since the last
 * checkpoint, and their index). A report about a file left empty, NUL-filled or cut short is tested on `kilo.db`;
 * a torn last write on the WAL; an unterminated final turn on the WAL cut inside the last turn, or the turn Kilo
 * never finished; a damaged index on a page of the database. Each damage is built by code on a copy of the real
 * store `@kilocode/cli@7.7.7` wrote (`shared/realdata/kilo/7.7.7/home`), with the last turn of session B put back
 * into the WAL where the damage needs it (`withTurnInWal`). A session of the store is a chat (`kilo.db#<id>`); a
 * store SQLite cannot read is one chat named by its database. `bundle --redact` redacts a session on a private
 * copy of the store; it is refused (and plain `bundle` takes the store whole) where the redacted copy could not
 * keep the verdict: a store SQLite cannot read, a damaged database, a WAL that lost writes, a store a newer Kilo migrated.
 */
import {rmSync, statSync, truncateSync, writeFileSync} from 'node:fs'
import {SESSION_A, SESSION_B, copyKiloHome, cutWalInside, damage, nulPage, rootPage, withTurnInWal} from '../helpers/kilo.js'
import {withTextEnding, writeStore} from '../helpers/sqlite-store.js'
import type {BugLogEntry, BugLogPart, ChatVerdict, NoEntry, RepairVerdict} from './types.js'

const DB = 'kilo.db'
/** A migration id newer than every one chatdoctor knows (a timestamp then a name, as the migrator names them). */
const NEWER_MIGRATION = '29991231000000_newer_schema'
const WAL = 'kilo.db-wal'
const SHM = 'kilo.db-shm'
/** The text part of session B's last answer ("You are welcome."). */
const B_LAST_TEXT = 'prt_2310037a1001Uj9fnVhaxy6kDz'
/**
 * `bundle --redact` on a Kilo store: redacted on a private copy when the store keeps its verdict that way;
 * refused, with why, for a store SQLite cannot read, a damaged database, and a WAL that lost writes.
 */
const REDACT_REFUSED = /cannot be redacted/

/** An entry of this part (agent and format filled in). */
const entry = (e: Omit<BugLogEntry, 'agent' | 'format'>): BugLogEntry => ({agent: 'Kilo Code CLI', format: 'kilo', ...e})

/** A copy of the real home under `root` (the run's HOME) with `fn` applied to its data dir; the PATH is the data dir. */
function store(root: string, fn: (data: string) => void): string {
  const data = copyKiloHome(root)
  fn(data)
  return data
}

/** A session of the store, by its id (the chat `kilo.db#<id>`), with its database, WAL and index classes. */
function session(id: string, v: Omit<ChatVerdict, 'chat' | 'files'> & {db?: string; wal?: string; shm?: string}): ChatVerdict {
  const {db, wal, shm, ...rest} = v
  const files: Record<string, string> = {[DB]: db ?? 'intact'}
  if (wal !== 'gone') files[WAL] = wal ?? 'intact'
  if (shm !== 'gone') files[SHM] = shm ?? 'intact'
  return {chat: id, files, ...rest}
}

/** The one chat of a store SQLite cannot read (named by its database). */
function brokenStore(v: Omit<ChatVerdict, 'chat'>): ChatVerdict {
  return {chat: DB, ...v}
}

/** The repair that moves the store's files into the evidence folder before Kilo starts again (no restore). */
function setAside(chat: string): RepairVerdict {
  return {chat, outcome: 'repaired', restores: [], exitCode: 5, after: {status: 'unrecoverable', winner: null, turns: [null, null], exitCode: 4}}
}

const entries: BugLogEntry[] = [
  entry({
    id: 'B01',
    title: 'kilo.db left at 0 bytes beside its WAL: unrecoverable, Kilo\'s next start would reset the WAL; repair sets the store aside first',
    damage: 'kilo.db truncated to 0 bytes, its -wal and -shm as Kilo left them (the realdata damage/db-zero-length)',
    build: (root) => store(root, (d) => damage(d, DB, (p) => truncateSync(p, 0))),
    expect: {
      redactRefused: REDACT_REFUSED,
      exitCode: 4,
      chats: [brokenStore({status: 'unrecoverable', winner: null, turns: [null, null], files: {[DB]: 'empty', [WAL]: 'intact', [SHM]: 'other'}, findings: ['database-unreadable', 'next-start-loss'], account: [/Before Kilo starts again: kilo\.db is empty \(0 bytes\)/]})],
      repair: setAside(DB),
    },
  }),
  entry({
    id: 'B03',
    title: 'kilo.db cut short at 60 %: both sessions repairable, the cut said; a manual repair (SQLite\'s .recover), nothing written',
    damage: 'kilo.db cut at 60 % of its size, mid-page (the realdata damage/db-truncate-mid-page); the WAL whole',
    build: (root) => store(root, (d) => damage(d, DB, (p) => truncateSync(p, Math.floor(statSync(p).size * 0.6)))),
    expect: {
      redactRefused: REDACT_REFUSED,
      exitCode: 2,
      chats: [SESSION_A, SESSION_B].map((id) => session(id, {status: 'repairable', winner: DB, turns: [0, null], db: 'truncated unexpected-end', shm: 'other', findings: ['database-damaged'], absent: ['next-start-loss']})),
      repair: null,
    },
  }),
  entry({
    id: 'B04',
    title: 'kilo.db all NUL bytes: unrecoverable, Kilo\'s first start would delete the WAL and SHM; repair sets the store aside first',
    damage: 'every byte of kilo.db NUL, its size kept (the realdata damage/db-nul-filled); the WAL whole',
    build: (root) => store(root, (d) => damage(d, DB, (p) => writeFileSync(p, Buffer.alloc(statSync(p).size)))),
    expect: {
      redactRefused: REDACT_REFUSED,
      exitCode: 4,
      chats: [brokenStore({status: 'unrecoverable', winner: null, turns: [null, null], files: {[DB]: 'zero-filled', [WAL]: 'intact', [SHM]: 'other'}, findings: ['database-unreadable', 'next-start-loss'], account: [/Before Kilo starts again: SQLite cannot read kilo\.db/]})],
      repair: setAside(DB),
    },
  }),
  entry({
    id: 'B11',
    title: 'the last WAL frame torn by a power loss: SQLite drops the last commit without a word; wal-torn on the session Kilo wrote last, degraded',
    damage: 'session B\'s last turn committed only to the WAL, the WAL cut 1000 bytes into the frame of its last commit (the realdata damage/wal-torn-last-frame)',
    build: (root) =>
      store(root, (d) => {
        const t = withTurnInWal(d)
        cutWalInside(d, t.commits.at(-1)!.frame, t.pageSize)
      }),
    expect: {
      redactRefused: REDACT_REFUSED,
      exitCode: 4,
      chats: [
        session(SESSION_B, {status: 'degraded', winner: DB, turns: [2, null], wal: 'truncated unexpected-end', shm: 'other', findings: ['wal-torn']}),
        session(SESSION_A, {status: 'healthy', winner: DB, turns: [5, null], wal: 'truncated unexpected-end', shm: 'other', absent: ['wal-torn']}),
      ],
      repair: null,
    },
  }),
  entry({
    id: 'B32',
    title: 'the WAL cut inside the last turn: SQLite rolls the turn back to an empty text part with no step-finish; turn-rolled-back, degraded',
    damage: 'session B\'s last turn committed only to the WAL, the WAL cut inside the frame after the commit that created the answer\'s still empty text part (the realdata damage/wal-cut-mid-turn)',
    build: (root) =>
      store(root, (d) => {
        const t = withTurnInWal(d)
        cutWalInside(d, t.commits.find((c) => c.seq === 36)!.frame + 1, t.pageSize)
      }),
    expect: {
      redactRefused: REDACT_REFUSED,
      exitCode: 4,
      chats: [
        session(SESSION_B, {status: 'degraded', winner: DB, turns: [2, null], wal: 'truncated unexpected-end', shm: 'other', findings: ['turn-rolled-back'], account: [/SQLite rolled the session back without a word: the last turn/]}),
        session(SESSION_A, {status: 'healthy', winner: DB, turns: [5, null], wal: 'truncated unexpected-end', shm: 'other'}),
      ],
      repair: null,
    },
  }),
  entry({
    id: 'B32',
    title: 'an answer Kilo never finished, the WAL whole (killed mid-turn): turn-unfinished, degraded, nothing to repair',
    damage: 'session B\'s last turn in the WAL up to the commit of its still empty text part, the WAL ending at that frame and its index gone (Kilo killed right after that commit)',
    build: (root) =>
      store(root, (d) => {
        const t = withTurnInWal(d)
        const end = t.commits.find((c) => c.seq === 36)!.frame
        damage(d, WAL, (p) => truncateSync(p, 32 + end * (t.pageSize + 24)))
        damage(d, SHM, (p) => rmSync(p))
      }),
    expect: {
      exitCode: 4,
      chats: [
        session(SESSION_B, {status: 'degraded', winner: DB, turns: [2, null], shm: 'gone', findings: ['turn-unfinished']}),
        session(SESSION_A, {status: 'healthy', winner: DB, turns: [5, null], shm: 'gone'}),
      ],
      repair: null,
    },
  }),
  entry({
    id: 'B20',
    title: 'a lone surrogate escape in a part row: kept, with a warning naming the row and the field',
    damage: "the six characters \\ud83c (a high surrogate with no low half: text cut inside an emoji) written at the end of the text of session B's last answer, through SQLite as Kilo writes a row (the commit in the WAL)",
    build: (root) =>
      store(root, (d) =>
        writeStore(d, DB, (db) => {
          const row = db.prepare('SELECT data FROM part WHERE id = ?').get(B_LAST_TEXT) as {data: string}
          db.prepare('UPDATE part SET data = ? WHERE id = ?').run(withTextEnding(row.data, 'text', '\\ud83c'), B_LAST_TEXT)
        }),
      ),
    expect: {
      exitCode: 0,
      chats: [
        session(SESSION_B, {status: 'healthy', winner: DB, turns: [2, null], shm: 'other', findings: ['lone-surrogate'], said: {'lone-surrogate': /^kilo\.db: 1 record holds a lone surrogate escape .*part prt_2310037a1001Uj9fnVhaxy6kDz of message msg_231003526001LrOzp13pXA7t57 \(text\)/}}),
        session(SESSION_A, {status: 'healthy', winner: DB, turns: [5, null], shm: 'other', absent: ['lone-surrogate']}),
      ],
      repair: null,
    },
  }),
  entry({
    id: 'B40',
    title: 'a page of kilo.db overwritten by NUL (the part table\'s root): the integrity check fails, both sessions repairable, a manual repair',
    damage: 'the root page of the part table in kilo.db overwritten by 4096 NUL bytes; the WAL whole',
    build: (root) => store(root, (d) => nulPage(d, rootPage(d, 'part'))),
    expect: {
      redactRefused: REDACT_REFUSED,
      exitCode: 2,
      chats: [
        session(SESSION_A, {status: 'repairable', winner: DB, turns: [5, null], db: 'corrupt', shm: 'other', findings: ['database-damaged']}),
        session(SESSION_B, {status: 'repairable', winner: DB, turns: [2, null], db: 'corrupt', shm: 'other', findings: ['database-damaged']}),
      ],
      repair: null,
    },
  }),
  entry({
    id: 'B42',
    title: 'the store deleted while Kilo\'s file diffs stay: one unrecoverable chat naming the sessions they still trace',
    damage: 'kilo.db, -wal and -shm deleted; storage/session_diff/ left (the realdata damage/delete-db)',
    build: (root) => store(root, (d) => [DB, WAL, SHM].forEach((n) => damage(d, n, (p) => rmSync(p)))),
    expect: {
      redactRefused: REDACT_REFUSED,
      exitCode: 4,
      chats: [brokenStore({status: 'unrecoverable', winner: null, turns: [null, null], files: {[DB]: 'missing'}, findings: ['database-missing'], absent: ['next-start-loss'], account: [/ses_dcf0012bdffeL2kaPUHfqjpaDl/]})],
      repair: null,
      nothingToBundle: true,
    },
  }),
  entry({
    id: 'B49',
    title: 'kilo.db deleted but its WAL left: Kilo\'s next start makes a new empty database and SQLite deletes the WAL beside it; repair moves the WAL and SHM aside first',
    damage: 'kilo.db deleted, its -wal and -shm left (the start creates an empty store, and the start-up clean-up deletes the one file that still holds the sessions)',
    build: (root) => store(root, (d) => damage(d, DB, (p) => rmSync(p))),
    expect: {
      redactRefused: REDACT_REFUSED,
      exitCode: 4,
      chats: [brokenStore({status: 'unrecoverable', winner: null, turns: [null, null], files: {[DB]: 'missing', [WAL]: 'other', [SHM]: 'other'}, findings: ['database-missing', 'next-start-loss']})],
      repair: setAside(DB),
    },
  }),
  entry({
    id: 'B50',
    title: 'a kilo.db whose header is torn: Kilo cannot open it and its "recovery" deletes the WAL and SHM; repair sets the store aside first',
    damage: 'kilo.db cut at 50 bytes, inside its 100-byte header; the WAL whole',
    build: (root) => store(root, (d) => damage(d, DB, (p) => truncateSync(p, 50))),
    expect: {
      redactRefused: REDACT_REFUSED,
      exitCode: 4,
      chats: [brokenStore({status: 'unrecoverable', winner: null, turns: [null, null], files: {[DB]: 'corrupt', [WAL]: 'intact', [SHM]: 'other'}, findings: ['database-unreadable', 'next-start-loss']})],
      repair: setAside(DB),
    },
  }),
  entry({
    id: 'B51',
    title: 'a store migrated by a newer Kilo: both sessions diagnosed from the tables chatdoctor knows, kilo.db unsupported-version; repair is report-only, nothing written',
    damage: "a row for a migration newer than every one 7.7.7 applied added to kilo.db's migration table, through SQLite as Kilo's migrator writes it (the commit in the WAL); every other byte as Kilo left it",
    build: (root) => store(root, (d) => writeStore(d, DB, (db) => void db.prepare('INSERT INTO migration (id, time_completed) VALUES (?, ?)').run(NEWER_MIGRATION, Date.UTC(2026, 11, 1, 9, 0, 0)))),
    expect: {
      redactRefused: REDACT_REFUSED,
      exitCode: 0,
      chats: [
        session(SESSION_B, {status: 'healthy', winner: DB, turns: [2, null], db: 'intact unsupported-version', shm: 'other', findings: ['store-newer'], said: {'store-newer': /^kilo\.db: written by a newer Kilo than chatdoctor knows \(its migration table records 1 migration chatdoctor does not know: 29991231000000_newer_schema\): use that Kilo; chatdoctor reports only and will not write/}}),
        session(SESSION_A, {status: 'healthy', winner: DB, turns: [5, null], db: 'intact unsupported-version', shm: 'other', findings: ['store-newer']}),
      ],
      repair: null,
    },
  }),
]

const noEntry: NoEntry[] = [
  {id: 'B02', kind: 'not-covered', reason: "the same shape as B01 (an empty kilo.db, which Kilo's start takes for a new store), tested there"},
  {id: 'B05', kind: 'not-applicable', reason: "Kilo keeps no rotated copies of its database; a NUL-filled kilo.db is B04"},
  {id: 'B06', kind: 'not-applicable', reason: "a JSON-lines shape: Kilo keeps no line-oriented log of a session (its rows are in kilo.db and its WAL)"},
  {id: 'B07', kind: 'not-applicable', reason: "a JSON-lines shape: Kilo keeps no line-oriented log of a session (its rows are in kilo.db and its WAL)"},
  {id: 'B08', kind: 'not-applicable', reason: "a JSON-lines shape: Kilo keeps no line-oriented log of a session (its rows are in kilo.db and its WAL)"},
  {id: 'B09', kind: 'not-applicable', reason: "SQLite serialises writers by its locks and its WAL; concurrent Kilo processes cannot interleave partial writes of one file"},
  {id: 'B10', kind: 'not-applicable', reason: "Kilo writes no JSON document of a session to disk (its rows are in SQLite; `kilo export` prints one on request)"},
  {id: 'B12', kind: 'not-applicable', reason: "a JSON-lines shape: Kilo keeps no line-oriented log of a session (its rows are in kilo.db and its WAL)"},
  {id: 'B13', kind: 'not-applicable', reason: "a JSON-lines shape: Kilo keeps no line-oriented log of a session (its rows are in kilo.db and its WAL)"},
  {id: 'B14', kind: 'not-applicable', reason: "a JSON-lines shape: Kilo keeps no line-oriented log of a session (its rows are in kilo.db and its WAL)"},
  {id: 'B15', kind: 'not-applicable', reason: "a JSON-lines shape: Kilo keeps no line-oriented log of a session (its rows are in kilo.db and its WAL)"},
  {id: 'B16', kind: 'not-applicable', reason: "Kilo writes no JSON document of a session to disk (its rows are in SQLite; `kilo export` prints one on request)"},
  {id: 'B17', kind: 'not-applicable', reason: "Kilo writes no JSON document of a session to disk (its rows are in SQLite; `kilo export` prints one on request)"},
  {id: 'B18', kind: 'not-applicable', reason: "a BOM in front of a file: kilo.db starts with SQLite's header, which Kilo never writes itself; a header overwritten is B50"},
  {id: 'B19', kind: 'not-applicable', reason: "SQLite stores row text as it was given, checked by Kilo before the write; a row is never split or cut by an encoding"},
  {id: 'B21', kind: 'not-applicable', reason: "a JSON-lines shape: Kilo keeps no line-oriented log of a session (its rows are in kilo.db and its WAL)"},
  {id: 'B22', kind: 'not-applicable', reason: "a JSON-lines shape: Kilo keeps no line-oriented log of a session (its rows are in kilo.db and its WAL)"},
  {id: 'B23', kind: 'not-applicable', reason: "SQLite stores row text as it was given, checked by Kilo before the write; a row is never split or cut by an encoding"},
  {id: 'B24', kind: 'not-covered', reason: "a database larger than a V8 string: chatdoctor reads the store through SQLite, never as one string, but no entry builds a store that large"},
  {id: 'B25', kind: 'not-applicable', reason: "Kilo lists sessions from the session table, not from a preview of a file's first line"},
  {id: 'B26', kind: 'not-applicable', reason: "Kilo does not encrypt its store"},
  {id: 'B27', kind: 'not-covered', reason: "kilo.db overwritten by other bytes than NUL is read like the torn header of B50 (SQLite: not a database); no entry builds it"},
  {id: 'B28', kind: 'not-applicable', reason: "Kilo never rewrites its database as a whole; an empty replacement is B01"},
  {id: 'B29', kind: 'not-covered', reason: "a compaction that leaves a session empty: Kilo compacts by adding a compaction part, and the family counts compaction parts, but no real store holds one"},
  {id: 'B30', kind: 'not-applicable', reason: "Kilo keeps one store per channel; there is no second store of the same session to compare"},
  {id: 'B31', kind: 'not-applicable', reason: "a Codebuff report: its run-state generations have no counterpart in a SQLite store"},
  {id: 'B33', kind: 'not-covered', reason: "a message whose parent row is missing: the family counts turns from the rows, but no entry deletes a parent row"},
  {id: 'B34', kind: 'not-applicable', reason: "Kilo's sessions have no header record: the session row and its messages are separate rows"},
  {id: 'B35', kind: 'not-applicable', reason: "Kilo does not paginate its records"},
  {id: 'B36', kind: 'not-applicable', reason: "Kilo keeps no current-message pointer or child links"},
  {id: 'B37', kind: 'not-covered', reason: "orphaned rows (a part of a message that is gone): possible after a hand edit, not by Kilo's own writes; no entry builds it"},
  {id: 'B38', kind: 'not-applicable', reason: "Kilo's session list is the session table of the same database, not a separate index file"},
  {id: 'B39', kind: 'not-applicable', reason: "as B38: no separate index to lose entries"},
  {id: 'B41', kind: 'not-applicable', reason: "as B38: no separate index to go stale"},
  {id: 'B43', kind: 'not-applicable', reason: "session rows carry their id as the primary key; a lost id is a damaged page (B40)"},
  {id: 'B44', kind: 'not-applicable', reason: "Kilo keeps no backups of its database"},
  {id: 'B45', kind: 'not-applicable', reason: "Kilo keeps no backups of its database; a store reset to empty is B01"},
  {id: 'B46', kind: 'not-applicable', reason: "Kilo writes through SQLite, which leaves no temp files beside the store once a transaction ends"},
  {id: 'B47', kind: 'not-applicable', reason: "Kilo renames no files into place; SQLite writes the WAL in place"},
  {id: 'B48', kind: 'not-applicable', reason: "as B47: no renames"},
]

export const kiloPart: BugLogPart = {
  agent: 'Kilo Code CLI',
  intro:
    'Kilo Code CLI keeps its sessions in a SQLite store in WAL mode (`kilo.db`, `kilo.db-wal`, `kilo.db-shm`). The analog of a report is its damage shape on that store: an empty, NUL-filled or cut file on `kilo.db`, a torn last write on the WAL. Each entry damages a copy of the store `@kilocode/cli@7.7.7` wrote (`shared/realdata/kilo/7.7.7/home`: session A with 5 turns, session B with 2), with session B\'s last turn committed only to the WAL where the damage needs it. N/M: a session\'s user turns (a store keeps no separate transcript). `bundle --redact` redacts each session on a private copy of the store; it is refused (plain `bundle` takes the store whole) for a store SQLite cannot read, a damaged database and a WAL that lost writes, whose verdict a redacted copy could not keep, and for a store a newer Kilo migrated, whose tables may hold text chatdoctor does not know to redact.',
  entries,
  noEntry,
  complete: true,
}
