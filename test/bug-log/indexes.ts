/**
 * The bug log's index reports on the agents' own index files: Codex's and Cline CLI's databases (B40) and Claude Code's
 * global config with its backups and a legacy per-project session index (B09, B16, B28, B41, B42), each built
 * from copies of the stores the real binaries wrote (`shared/realdata/codex/0.169.0/`, `shared/realdata/cline/3.0.65/`,
 * `shared/realdata/claude-code/2.1.328/`). The session a damaged index makes unresumable is the chat whose
 * repair is checked (its outcome is the index chat's); the index's own bytes are checked in
 * `test/codex-index.test.ts`, `test/cline-index.test.ts` and `test/claude-config.test.ts`.
 */
import {closeSync, cpSync, mkdirSync, openSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync, writeSync} from 'node:fs'
import path from 'node:path'
import {SESSION_A as CLINE_A, SESSION_B as CLINE_B, copyClineHome} from '../helpers/cline.js'
import {CLAUDE_REAL, THREAD_C, THREAD_D, copyCodexHome} from '../helpers/indexes.js'
import type {BugLogEntry, BugLogPart, ChatVerdict} from './types.js'

const A = '3306629b-a8aa-4dc1-8716-233d3cbaea4c'
const B = 'd9527693-b315-4674-9957-32bc6697096e'
const SLUG = '-home-dev-demo-app'
const FIRST_RUN = '.claude.json.backup.1796115411707'

/** A Claude Code home with the real config, its first-run backup and the real TUI session's log only. */
function claudeHome(root: string): {config: Buffer; base: string} {
  const real = path.join(CLAUDE_REAL, 'home')
  const base = path.join(root, '.claude')
  mkdirSync(path.join(base, 'projects', SLUG), {recursive: true})
  mkdirSync(path.join(base, 'backups'), {recursive: true})
  cpSync(path.join(real, '.claude', 'projects', SLUG, `${B}.jsonl`), path.join(base, 'projects', SLUG, `${B}.jsonl`))
  cpSync(path.join(real, '.claude', 'backups', FIRST_RUN), path.join(base, 'backups', FIRST_RUN))
  cpSync(path.join(real, '.claude', 'history.jsonl'), path.join(base, 'history.jsonl'))
  return {config: readFileSync(path.join(real, '.claude.json')), base}
}

/** The real 2.1.328 config, and the same config one start later (what a second writer appends). */
const realConfig = (): Buffer => readFileSync(path.join(CLAUDE_REAL, 'home', '.claude.json'))
const laterConfig = (): Buffer => {
  const config = realConfig().toString('utf8')
  if (!config.includes('"numStartups": 1,')) throw new Error('the real config no longer says "numStartups": 1')
  return Buffer.from(config.replace('"numStartups": 1,', '"numStartups": 2,'))
}

function put(file: string, data: Buffer | string, ms: number): void {
  writeFileSync(file, data)
  utimesSync(file, ms / 1000, ms / 1000)
}

/** Session B as any index finding leaves it: its log intact, 7 user turns. */
function sessionB(status: ChatVerdict['status'], findings: string[] = []): ChatVerdict {
  return {chat: B, status, winner: `${B}.jsonl`, turns: [7, 7], files: {[`${B}.jsonl`]: 'intact'}, findings}
}

/** A Cline session a damaged index makes unlistable: its files intact, brought back by the index's repair. */
function clineSession(id: string, turns: number): ChatVerdict {
  return {chat: id, status: 'repairable', winner: `${id}.messages.json`, turns: [turns, turns], files: {[`${id}.json`]: 'intact', [`${id}.messages.json`]: 'intact'}, findings: ['index-damaged', 'index-unreadable']}
}

const claude = (e: Omit<BugLogEntry, 'agent' | 'format'>): BugLogEntry => ({agent: 'Claude Code', format: 'claude-code', ...e})

export const INDEX_ENTRIES: BugLogEntry[] = [
  {
    id: 'B40',
    title: 'state_5.sqlite page 1 zeroed, rollouts fine: moved aside for Codex to rebuild',
    agent: 'Codex',
    format: 'codex',
    damage: 'the first 4 KiB page of state_5.sqlite overwritten with NUL (no WAL content); both rollouts intact',
    build(root) {
      const home = copyCodexHome(root)
      const fd = openSync(path.join(home, 'state_5.sqlite'), 'r+')
      writeSync(fd, Buffer.alloc(4096), 0, 4096, 0)
      closeSync(fd)
      return home
    },
    expect: {
      exitCode: 2,
      chats: [
        {
          chat: 'index',
          status: 'repairable',
          winner: 'state_5.sqlite',
          turns: [0, null],
          files: {'state_5.sqlite': 'corrupt nul-run', 'state_5.sqlite-wal': 'other', 'state_5.sqlite-shm': 'other', 'thread_history_1.sqlite': 'intact', 'thread_history_1.sqlite-wal': 'other', 'thread_history_1.sqlite-shm': 'other'},
          findings: ['index-damaged'],
        },
        {chat: THREAD_C, status: 'repairable', winner: 'rollout-2026-12-01T08-58-21-01a230d3-910e-7ab3-9c7f-f7f164ff1ff1.jsonl', turns: [6, 6], files: {'rollout-2026-12-01T08-58-21-01a230d3-910e-7ab3-9c7f-f7f164ff1ff1.jsonl': 'intact'}, findings: ['index-damaged']},
        {chat: THREAD_D, status: 'repairable', winner: 'rollout-2026-12-01T08-58-28-01a230d3-ac83-7592-b02d-82076d0dd468.jsonl', turns: [2, 2], files: {'rollout-2026-12-01T08-58-28-01a230d3-ac83-7592-b02d-82076d0dd468.jsonl': 'intact'}, findings: ['index-damaged']},
      ],
      repair: {chat: THREAD_C, outcome: 'repaired', restores: [], exitCode: 1, after: {status: 'healthy', winner: 'rollout-2026-12-01T08-58-21-01a230d3-910e-7ab3-9c7f-f7f164ff1ff1.jsonl', turns: [6, 6], exitCode: 0}},
    },
  },
  {
    id: 'B40',
    title: "Cline CLI's sessions.db page 1 zeroed and its WAL lost, the session folders whole: moved aside for Cline to recreate",
    agent: 'Cline CLI',
    format: 'cline',
    damage: 'the first 4 KiB page of db/sessions.db overwritten with NUL and its -wal emptied (the whole index lived in the WAL); both session folders intact',
    build(root) {
      const h = copyClineHome(root)
      const db = path.join(h.data, 'db', 'sessions.db')
      const fd = openSync(db, 'r+')
      writeSync(fd, Buffer.alloc(4096), 0, 4096, 0)
      closeSync(fd)
      truncateSync(`${db}-wal`, 0)
      return h.data
    },
    expect: {
      exitCode: 2,
      chats: [
        {chat: 'index', status: 'repairable', winner: 'sessions.db', turns: [null, null], files: {'sessions.db': 'corrupt nul-run', 'sessions.db-wal': 'other', 'sessions.db-shm': 'other'}, findings: ['index-damaged']},
        clineSession(CLINE_A, 5),
        clineSession(CLINE_B, 2),
      ],
      repair: {chat: CLINE_A, outcome: 'repaired', restores: [], exitCode: 1, after: {status: 'healthy', winner: `${CLINE_A}.messages.json`, turns: [5, 5], exitCode: 0}},
    },
  },
  claude({
    id: 'B09',
    title: '~/.claude.json cut to 234 bytes beside an intact backup and a 157-byte corrupted copy',
    damage: '.claude.json = its first 234 bytes; backups/.claude.json.backup.<t1> = the full config; backups/.claude.json.corrupted.<t2> = its first 157 bytes',
    build(root) {
      const {config, base} = claudeHome(root)
      put(path.join(base, 'backups', '.claude.json.backup.1796115400000'), config, 1796115400000)
      put(path.join(base, 'backups', '.claude.json.corrupted.1796115500000'), config.subarray(0, 157), 1796115500000)
      put(path.join(root, '.claude.json'), config.subarray(0, 234), 1796115600000)
      return base
    },
    expect: {
      exitCode: 2,
      chats: [
        {
          chat: 'config',
          status: 'repairable',
          winner: '.claude/backups/.claude.json.backup.1796115400000',
          turns: [null, null],
          files: {'.claude.json': 'truncated unexpected-end', [`.claude/backups/${FIRST_RUN}`]: 'intact', '.claude/backups/.claude.json.backup.1796115400000': 'intact', '.claude/backups/.claude.json.corrupted.1796115500000': 'truncated unexpected-end'},
          findings: ['index-damaged', 'salvage-available'],
        },
        sessionB('repairable', ['index-damaged']),
      ],
      repair: {chat: B, outcome: 'repaired', restores: [{to: '.claude.json', from: '.claude/backups/.claude.json.backup.1796115400000', bytes: () => realConfig()}], exitCode: 1, after: {status: 'healthy', winner: `${B}.jsonl`, turns: [7, 7], exitCode: 0}},
    },
  }),
  claude({
    id: 'B16',
    title: '~/.claude.json holds two complete configs back to back: the later is restored',
    damage: '.claude.json = the real config followed by the same config one start later (two writers)',
    build(root) {
      const {config, base} = claudeHome(root)
      put(path.join(root, '.claude.json'), Buffer.concat([config, laterConfig()]), 1796115600000)
      return base
    },
    expect: {
      exitCode: 2,
      chats: [
        {chat: 'config', status: 'repairable', winner: '.claude.json#2', turns: [null, null], files: {'.claude.json': 'corrupt concatenated', [`.claude/backups/${FIRST_RUN}`]: 'intact'}, findings: ['index-damaged', 'salvage-available']},
        sessionB('repairable', ['index-damaged']),
      ],
      repair: {chat: B, outcome: 'repaired', restores: [{to: '.claude.json', from: '.claude.json#2', bytes: () => laterConfig()}], exitCode: 1, after: {status: 'healthy', winner: `${B}.jsonl`, turns: [7, 7], exitCode: 0}},
    },
  }),
  claude({
    id: 'B28',
    title: 'a valid first-run skeleton replaced ~/.claude.json and the recent backups are torn: the oldest, richest backup is restored',
    damage: '.claude.json = {"firstStartTime"} only; backups t5, t4, t3 = the first 5–30% of the config; t2 = the first-run skeleton; t1 = the full config',
    build(root) {
      const {config, base} = claudeHome(root)
      put(path.join(base, 'backups', '.claude.json.backup.1796115100000'), config, 1796115100000)
      for (const [ms, pct] of [[1796115300000, 0.3], [1796115400000, 0.15], [1796115500000, 0.05]] as const) put(path.join(base, 'backups', `.claude.json.backup.${ms}`), config.subarray(0, Math.floor(config.length * pct)), ms)
      put(path.join(root, '.claude.json'), '{\n  "firstStartTime": "2026-12-01T08:56:50.000Z"\n}\n', 1796115600000)
      return base
    },
    expect: {
      exitCode: 2,
      chats: [
        {
          chat: 'config',
          status: 'repairable',
          winner: '.claude/backups/.claude.json.backup.1796115100000',
          turns: [null, null],
          files: {
            '.claude.json': 'contextless semantic-empty',
            [`.claude/backups/${FIRST_RUN}`]: 'intact',
            '.claude/backups/.claude.json.backup.1796115100000': 'intact',
            '.claude/backups/.claude.json.backup.1796115300000': 'truncated unexpected-end',
            '.claude/backups/.claude.json.backup.1796115400000': 'truncated unexpected-end',
            '.claude/backups/.claude.json.backup.1796115500000': 'truncated unexpected-end',
          },
          findings: ['index-damaged'],
        },
        sessionB('healthy'),
      ],
      repair: {chat: 'config', outcome: 'repaired', restores: [{to: '.claude.json', from: '.claude/backups/.claude.json.backup.1796115100000', bytes: () => realConfig()}], exitCode: 1, after: {status: 'healthy', winner: null, turns: [null, null], exitCode: 0}},
    },
  }),
  claude({
    id: 'B41',
    title: 'a stale legacy sessions-index.json beside intact logs: reported, never written (2.1.328 lists from the logs)',
    damage: "projects/<slug>/sessions-index.json lists one of the folder's two logs (the print-mode session is not listed)",
    build(root) {
      const {config, base} = claudeHome(root)
      put(path.join(root, '.claude.json'), config, 1796115600000)
      cpSync(path.join(CLAUDE_REAL, 'home', '.claude', 'projects', SLUG, `${A}.jsonl`), path.join(base, 'projects', SLUG, `${A}.jsonl`))
      writeFileSync(path.join(base, 'projects', SLUG, 'sessions-index.json'), JSON.stringify({version: 1, entries: [{sessionId: B, messageCount: 0}]}))
      return base
    },
    expect: {
      exitCode: 0,
      chats: [
        {chat: 'config', status: 'healthy', winner: '.claude.json', turns: [null, null], files: {'.claude.json': 'intact', [`.claude/backups/${FIRST_RUN}`]: 'intact'}, findings: ['index-stale'], absent: ['index-entry-missing']},
        {chat: A, status: 'healthy', winner: `${A}.jsonl`, turns: [7, 7], files: {[`${A}.jsonl`]: 'intact'}, findings: ['not-in-index']},
        sessionB('healthy'),
      ],
      repair: null,
    },
  }),
  claude({
    id: 'B42',
    title: 'the legacy session index survives but the logs are gone: content missing, never rebuilt to empty',
    damage: 'projects/<slug>/sessions-index.json lists 12 sessions; the folder holds no log; history.jsonl keeps the typed prompts',
    build(root) {
      const {config, base} = claudeHome(root)
      put(path.join(root, '.claude.json'), config, 1796115600000)
      const ids = Array.from({length: 12}, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`)
      writeFileSync(path.join(base, 'projects', SLUG, 'sessions-index.json'), JSON.stringify({version: 1, entries: ids.map((sessionId) => ({sessionId, messageCount: 4}))}))
      rmSync(path.join(base, 'projects', SLUG, `${B}.jsonl`))
      return base
    },
    expect: {
      exitCode: 4,
      chats: [{chat: 'config', status: 'degraded', winner: '.claude.json', turns: [null, null], files: {'.claude.json': 'intact', [`.claude/backups/${FIRST_RUN}`]: 'intact'}, findings: ['index-entry-missing']}],
      repair: null,
    },
  }),
]

export const indexesPart: BugLogPart = {
  agent: 'Agent indexes',
  intro:
    "Index and registry reports on the agents' own index files: Codex's state database (the real 0.169.0 store, its rows pointed at the copy), Cline CLI's session index (the real 3.0.65 store) and Claude Code's global config with its backups and a legacy session index (the real 2.1.328 home with its TUI session's log). The session a damaged index makes unresumable is repaired through the index chat.",
  entries: INDEX_ENTRIES,
  noEntry: [
    {id: 'B38', kind: 'not-covered', reason: "Roo Code's and Kilo Code's task lists are the task-folder part's (B38 there: a task missing from `_index.json` or Kilo Code's list in `state.vscdb`, its `history_item.json` or list entry rebuilt from the task's own files)"},
    {id: 'B39', kind: 'not-covered', reason: "the VS Code extension's `state/taskHistory.json` is the task-folder part's (its repair keeps the list's entries and adds the missing ones); Cline CLI's lost row is B39 of the Cline CLI part"},
    {id: 'B43', kind: 'not-applicable', reason: "Zed's thread rows are not an agent chatdoctor reads; the nearest drift, an OpenCode session filed under another project id, is tested in test/opencode-projects.test.ts"},
  ],
  complete: false,
}
