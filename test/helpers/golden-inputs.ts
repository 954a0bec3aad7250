/**
 * The inputs of the golden test (`test/golden.test.ts`): every scenario of the scan scenarios, the examples,
 * the real stores of every agent in `shared/realdata` (copied, with fixed mtimes: git keeps none), damaged
 * copies of them made by code the way the bug reports describe, and bundles made by `bundle` then checked.
 *
 * Each case builds its tree under a fresh root (also HOME) and returns the PATHs the commands get.
 */
import {chmodSync, cpSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import tar from 'tar-stream'
import {REALDATA, REPO_ROOT, cutAt, nulRunAt, setMtime, zeroFill} from './fixtures.js'
import {SCENARIOS} from './scenarios.js'
import {REAL_SESSIONS, body, linesOf, zstdStored} from './sessions.js'
import {buildTask, compact, realTurns, safeWrite, storageDir, taskId, writeStore, type SafeWriteStop, type Task, type Variant} from './vscode-tasks.js'

export interface GoldenCase {
  name: string
  /** Builds the input under `root` (also HOME) and returns the PATHs (empty: the default roots). */
  build(root: string): string[] | Promise<string[]>
  /**
   * Bundle the PATHs (`bundle -o`, each archive kind given) and `check` the archives, instead of running the
   * four commands on the PATHs. `redact`: bundle with `--redact` (its random key makes the sha256 values of
   * redacted files run-dependent: those are normalised).
   */
  bundle?: {kinds: Array<'tar.gz' | 'tar' | 'zip'>; redact?: boolean}
}

/** A fixed base time (ms since epoch) for the mtimes of copied trees. */
const BASE = Date.UTC(2026, 2, 3, 4, 5, 6)

/**
 * Copies `src` to `dest` (writable) and gives every file a distinct fixed mtime, 1 s apart in the order of
 * their sorted relative paths (git keeps no mtimes; ranking and reports depend on them). Symbolic links are
 * copied as links.
 */
export function copyTree(src: string, dest: string, base = BASE): string {
  cpSync(src, dest, {recursive: true, verbatimSymlinks: true})
  let t = base
  const walk = (d: string) => {
    chmodSync(d, 0o755)
    for (const n of readdirSync(d).sort()) {
      const p = path.join(d, n)
      const st = lstatSync(p)
      if (st.isSymbolicLink()) continue
      if (st.isDirectory()) walk(p)
      else {
        chmodSync(p, 0o644)
        setMtime(p, (t += 1000))
      }
    }
  }
  walk(dest)
  return dest
}

/** Rewrites a file's bytes, keeping its mtime. */
function damage(p: string, f: (b: Buffer) => Buffer): void {
  const mtime = lstatSync(p).mtimeMs
  writeFileSync(p, f(readFileSync(p)))
  setMtime(p, mtime)
}

/** Writes a new file with a fixed mtime. */
function put(p: string, data: Buffer | string, mtimeMs = BASE): void {
  mkdirSync(path.dirname(p), {recursive: true})
  writeFileSync(p, data)
  setMtime(p, mtimeMs)
}

const OC = path.join(REALDATA, 'opencode')
const OC_TREE = path.join(OC, '1.1.65', 'data', 'opencode')
const OC_DB = path.join(OC, '1.18.33', 'data', 'opencode')
const OC_API = 'ses_dd6249cf0ffevk8ay20nf1cCNR'
const OC_PROJECT = 'dfa7b73011a5aa73687463da673751ea81200147'

/** The real session logs copied to `<root>/sessions/<agent>/<file>`; returns agent.key → path. */
function copySessions(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  let t = BASE
  for (const [agent, set] of Object.entries(REAL_SESSIONS)) {
    for (const [key, src] of Object.entries(set)) {
      const dest = path.join(root, 'sessions', agent, path.basename(src))
      put(dest, readFileSync(src), (t += 1000))
      out[`${agent}.${key}`] = dest
    }
  }
  return out
}

/** The lines of a file, changed by `f`, written back (mtime kept). */
function editLines(p: string, f: (lines: Buffer[]) => Buffer[]): void {
  damage(p, (b) => Buffer.concat(f(linesOf(b))))
}

/** The first `k` messages of the tree's API session: their part folders. */
function treeParts(data: string): string[] {
  const msgDir = path.join(data, 'storage', 'message', OC_API)
  return readdirSync(msgDir)
    .sort()
    .map((m) => path.join(data, 'storage', 'part', m.replace(/\.json$/, '')))
}

const scenarioCases: GoldenCase[] = SCENARIOS.map((s) => ({name: `scenario-${s.name}`, build: (root: string) => s.build(root)}))

const realCases: GoldenCase[] = [
  {
    name: 'examples-home',
    build(root) {
      copyTree(path.join(REPO_ROOT, 'examples', 'home'), root)
      return [path.join(root, '.config')]
    },
  },
  {
    name: 'examples-default-roots',
    build(root) {
      copyTree(path.join(REPO_ROOT, 'examples', 'home'), root)
      return []
    },
  },
  {
    name: 'realdata-codebuff',
    build(root) {
      return [copyTree(path.join(REALDATA, 'codebuff'), path.join(root, 'codebuff'))]
    },
  },
  {
    name: 'realdata-opencode-1.1.65',
    build(root) {
      return [copyTree(path.join(OC, '1.1.65'), path.join(root, 'opencode-1.1.65'))]
    },
  },
  {
    name: 'realdata-opencode-1.18.33',
    build(root) {
      return [copyTree(path.join(OC, '1.18.33'), path.join(root, 'opencode-1.18.33'))]
    },
  },
  {
    name: 'realdata-opencode-data-dirs-default-root',
    build(root) {
      copyTree(OC_TREE, path.join(root, '.local', 'share', 'opencode'))
      return []
    },
  },
  {
    name: 'realdata-public-logs',
    build(root) {
      return [copyTree(path.join(REALDATA, 'public'), path.join(root, 'public'))]
    },
  },
  {
    name: 'realdata-claude-code-2.1.328-home',
    build(root) {
      copyTree(path.join(REALDATA, 'claude-code', '2.1.328', 'home'), root)
      return [path.join(root, '.claude')]
    },
  },
  {
    name: 'realdata-claude-code-2.1.328-default-roots',
    build(root) {
      copyTree(path.join(REALDATA, 'claude-code', '2.1.328', 'home', '.claude'), path.join(root, '.claude'))
      return []
    },
  },
  {
    name: 'realdata-codex-0.169.0-home',
    build(root) {
      copyTree(path.join(REALDATA, 'codex', '0.169.0', 'home'), root)
      return [path.join(root, '.codex')]
    },
  },
  {
    name: 'realdata-gemini-cli-0.61.0-default-roots',
    build(root) {
      copyTree(path.join(REALDATA, 'gemini-cli', '0.61.0', 'home', '.gemini'), path.join(root, '.gemini'))
      return []
    },
  },
  {
    name: 'realdata-gemini-cli-0.61.0-damage',
    // What the binary itself left after each damage: a torn answer, its summary glued onto it, the orphan of a
    // resume in a later minute beside the real session, a header-torn and a NUL-filled file.
    build(root) {
      const damage = path.join(REALDATA, 'gemini-cli', '0.61.0', 'damage')
      const chats = path.join('.gemini', 'tmp', 'demo-app', 'chats')
      const steps = ['truncate-mid-record/0-damaged', 'truncate-mid-record/1-list', 'control-resume-next-minute/1-resume', 'first-line-cut/0-damaged', 'nul-filled/0-damaged']
      return steps.map((step) => {
        const dest = path.join(root, step.replace('/', '-'))
        copyTree(path.join(damage, step, '.gemini'), path.join(dest, '.gemini'))
        return path.join(dest, chats)
      })
    },
  },
  {
    name: 'realdata-kilo-7.7.7-default-roots',
    build(root) {
      copyTree(path.join(REALDATA, 'kilo', '7.7.7', 'home', '.local'), path.join(root, '.local'))
      return []
    },
  },
  // The damage cases of the real Kilo store whose result the binary recorded (damage/<case>/result.json), made
  // by code on copies; one data dir each (a chat of a store is named by its session id, the same in every copy).
  ...(
    [
      ['db-zero-length', (b: Buffer) => b.subarray(0, 0)],
      ['db-nul-filled', (b: Buffer) => Buffer.alloc(b.length)],
      ['db-truncate-mid-page', (b: Buffer) => b.subarray(0, Math.floor(b.length * 0.6))],
      ['delete-wal-shm', null],
      ['delete-db', null],
    ] as const
  ).map(([kase, cut]): GoldenCase => ({
    name: `realdata-kilo-7.7.7-${kase}`,
    build(root) {
      const data = path.join(root, '.local', 'share', 'kilo')
      copyTree(path.join(REALDATA, 'kilo', '7.7.7', 'home', '.local'), path.join(root, '.local'))
      if (cut) damage(path.join(data, 'kilo.db'), cut)
      for (const n of kase === 'delete-db' ? ['kilo.db', 'kilo.db-wal', 'kilo.db-shm'] : kase === 'delete-wal-shm' ? ['kilo.db-wal', 'kilo.db-shm'] : []) rmSync(path.join(data, n))
      return [data]
    },
  })),
]

const damagedCases: GoldenCase[] = [
  {
    name: 'sessions-torn-nul-interleaved',
    // The damage of agent-check.test.ts: a torn tail, a NUL run inside a record (the record is dropped, never
    // joined across the run), a cut record and the next on one line.
    build(root) {
      const s = copySessions(root)
      damage(s['claude.short'], (b) => cutAt(b, b.length - 120))
      editLines(s['claude.openTool'], (l) => {
        l[3] = Buffer.concat([l[3].subarray(0, 1), Buffer.alloc(20), l[3].subarray(1)])
        return l
      })
      editLines(s['codex.kvsankar'], (l) => {
        l[4] = body(l[4]).subarray(0, 40)
        return l
      })
      return [path.join(root, 'sessions')]
    },
  },
  {
    name: 'sessions-bom-dropped-line-split-record',
    build(root) {
      const s = copySessions(root)
      damage(s['codex.kvsankar'], (b) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]))
      // A torn interior record (a crash mid-append, then the session resumed): the parent chain must be re-linked.
      editLines(s['claude.short'], (l) => {
        l[5] = Buffer.concat([body(l[5]).subarray(0, 30), Buffer.from('\n')])
        return l
      })
      // A record spread over two lines by a raw line break.
      editLines(s['claude.kvsankar'], (l) => {
        const b = l[1]
        const at = b.indexOf(0x2c, 20)
        l[1] = Buffer.concat([b.subarray(0, at + 1), Buffer.from('\n'), b.subarray(at + 1)])
        return l
      })
      // The side-chain with its last line cut and a NUL-only line.
      editLines(s['claude.sidechain'], (l) => [...l.slice(0, 2), Buffer.concat([Buffer.alloc(64), Buffer.from('\n')]), ...l.slice(2, -1), cutAt(l[l.length - 1], 50)])
      damage(s['codex.legacy'], (b) => cutAt(b, b.length - 333))
      return [path.join(root, 'sessions')]
    },
  },
  {
    name: 'sessions-empty-zero-filled-and-invalid-utf8',
    build(root) {
      const s = copySessions(root)
      damage(s['claude.kvsankar'], () => Buffer.alloc(0))
      damage(s['codex.kvsankar'], zeroFill)
      damage(s['claude.openTool'], (b) => {
        const c = Buffer.from(b)
        c[c.indexOf('"text"') + 10] = 0xff
        return c
      })
      damage(s['claude.short'], (b) => nulRunAt(b, 1000, 4096))
      return [path.join(root, 'sessions')]
    },
  },
  {
    name: 'codex-zst-siblings',
    // A rollout with its compressed sibling: plain torn and .zst intact; a .zst alone; a .zst cut.
    build(root) {
      const dir = path.join(root, '.codex', 'sessions', '2026', '01', '02')
      const src = readFileSync(REAL_SESSIONS.codex.kvsankar)
      const a = 'rollout-2026-01-02T03-04-05-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl'
      const b = 'rollout-2026-01-02T04-04-05-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c.jsonl'
      const c = 'rollout-2026-01-02T05-04-05-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5d.jsonl'
      put(path.join(dir, a), cutAt(src, src.length - 200), BASE + 2000)
      put(path.join(dir, `${a}.zst`), zstdStored(src), BASE + 1000)
      put(path.join(dir, `${b}.zst`), zstdStored(src), BASE + 3000)
      put(path.join(dir, `${c}.zst`), cutAt(zstdStored(src), 300), BASE + 4000)
      return [path.join(root, '.codex')]
    },
  },
  {
    name: 'opencode-tree-damaged',
    // A truncated part, a zero-filled message file (its parts go with it), an emptied part, orphan parts.
    build(root) {
      const data = copyTree(OC_TREE, path.join(root, '.local', 'share', 'opencode'))
      const parts = treeParts(data)
      const firstPart = (d: string) => path.join(d, readdirSync(d).sort()[0])
      damage(firstPart(parts[1]), (b) => cutAt(b, b.length >> 1))
      const msgDir = path.join(data, 'storage', 'message', OC_API)
      const msgs = readdirSync(msgDir).sort()
      damage(path.join(msgDir, msgs[2]), zeroFill)
      damage(firstPart(parts[3]), () => Buffer.alloc(0))
      unlinkSync(path.join(msgDir, msgs[4]))
      return [data]
    },
  },
  {
    name: 'opencode-tree-session-file-damaged',
    build(root) {
      const data = copyTree(OC_TREE, path.join(root, 'opencode'))
      damage(path.join(data, 'storage', 'session', OC_PROJECT, `${OC_API}.json`), (b) => cutAt(b, 100))
      return [data]
    },
  },
  {
    name: 'opencode-tree-beside-database',
    // A 1.1.x tree left beside a 1.2+ database: tree-only sessions are not in the database.
    build(root) {
      const data = copyTree(OC_DB, path.join(root, 'opencode'))
      copyTree(path.join(OC_TREE, 'storage'), path.join(data, 'storage'), BASE + 3_600_000)
      return [data]
    },
  },
  {
    name: 'opencode-database-damaged',
    build(root) {
      const data = copyTree(OC_DB, path.join(root, 'opencode'))
      rmSync(path.join(data, 'opencode.db-wal'))
      rmSync(path.join(data, 'opencode.db-shm'))
      damage(path.join(data, 'opencode.db'), (b) => {
        const c = Buffer.from(b)
        c.fill(0x5a, 4096 * 3, 4096 * 3 + 2048)
        return c
      })
      return [data]
    },
  },
  {
    name: 'opencode-database-unreadable',
    build(root) {
      const data = copyTree(OC_DB, path.join(root, 'opencode'))
      damage(path.join(data, 'opencode.db'), (b) => cutAt(b, 50))
      return [data]
    },
  },
  {
    name: 'opencode-exports-damaged',
    build(root) {
      const src = readFileSync(path.join(OC, '1.1.65', `export-${OC_API}.json`))
      const dir = path.join(root, 'exports')
      put(path.join(dir, 'whole.json'), src)
      put(path.join(dir, 'torn.json'), cutAt(src, 3000))
      put(path.join(dir, 'zeros.json'), zeroFill(src))
      const doc = JSON.parse(src.toString('utf8')) as {messages: Array<{parts: Array<{type: string; state?: {status: string; output?: string}}>}>}
      const tool = doc.messages.flatMap((m) => m.parts).find((p) => p.type === 'tool' && p.state?.status === 'completed')!
      delete tool.state!.output
      put(path.join(dir, 'no-output.json'), JSON.stringify(doc, null, 2))
      const dup = JSON.parse(src.toString('utf8')) as {messages: unknown[]}
      dup.messages.push(dup.messages[dup.messages.length - 1])
      put(path.join(dir, 'dup.json'), JSON.stringify(dup))
      put(path.join(dir, 'invalid.json'), '{"info": {"id": 3}, "messages": 7}')
      return [dir, path.join(dir, 'zeros.json')]
    },
  },
  {
    name: 'mixed-agents-in-one-tree',
    // Every agent side by side under one folder, plus what discovery must step around.
    build(root) {
      const top = path.join(root, 'all')
      copyTree(path.join(REALDATA, 'codebuff', '2025-11-04T14-01-15.000Z'), path.join(top, 'codebuff', 'chats', '2025-11-04T14-01-15.000Z'))
      copyTree(OC_TREE, path.join(top, 'opencode'))
      for (const src of [REAL_SESSIONS.claude.short, REAL_SESSIONS.codex.kvsankar]) put(path.join(top, 'logs', path.basename(src)), readFileSync(src))
      put(path.join(top, 'node_modules', 'x', 'chats', '2026-01-01T00-00-00.000Z', 'run-state.json'), '{}')
      put(path.join(top, '.hidden', 'run-state.json'), '{}')
      put(path.join(top, 'logs', 'history.jsonl'), '{"display":"x"}\n')
      put(path.join(top, 'logs', 'not-a-session.jsonl'), '{"a":1}\n{"b":2}\n')
      symlinkSync(path.join(top, 'opencode'), path.join(top, 'link-to-store'))
      return [top]
    },
  },
]

// ---- the VS Code extensions' task folders (built by test/helpers/vscode-tasks.ts from the real Cline CLI conversation)

/** Gives every file below `dir` that the builder left without one a fixed mtime (the index, safe-write leftovers). */
function settleFiles(dir: string, names: readonly string[], mtimeMs: number): void {
  for (const n of names) setMtime(path.join(dir, n), mtimeMs)
}

/**
 * An extension's store in an editor's folder under `root`: its tasks (each `[k, turns]`, `listed` ones in the
 * index), written as after a clean save with fixed mtimes. Returns the storage folder and each task's folder.
 */
function taskStore(root: string, v: Variant, editor: string, tasks: Array<[number, 'A' | 'B']>, listed?: number[]): {storage: string; dirs: string[]; tasks: Task[]} {
  const storage = storageDir(root, v, editor)
  const built = tasks.map(([k, session]) => buildTask(v, taskId(v, k), realTurns(session)))
  const w = writeStore(storage, v, built, listed ? {listed: listed.map((k) => taskId(v, k))} : {})
  if (v === 'roo') setMtime(path.join(storage, 'tasks', '_index.json'), BASE)
  if (v === 'cline') setMtime(path.join(storage, 'state', 'taskHistory.json'), BASE)
  return {storage, dirs: w.map((x) => x.dir), tasks: built}
}

/** A task whose model context one safe write left behind (the transcript already holds the fifth turn). */
function crashedWrite(dir: string, v: Variant, k: number, stop: SafeWriteStop): void {
  const turns = realTurns('A')
  const older = buildTask(v, taskId(v, k), turns.slice(0, 4))
  const newer = buildTask(v, taskId(v, k), turns)
  damage(path.join(dir, 'api_conversation_history.json'), () => compact(older.api))
  damage(path.join(dir, 'ui_messages.json'), () => compact(newer.ui))
  const {temp, backup} = safeWrite(v, dir, 'api_conversation_history.json', compact(newer.api), 1796119000000 + k, stop)
  settleFiles(dir, [temp, ...(backup ? [backup] : [])].filter((n) => readdirSync(dir).includes(n)), BASE + 40_000)
  if (stop !== 'wrote-new' && readdirSync(dir).includes('api_conversation_history.json')) setMtime(path.join(dir, 'api_conversation_history.json'), BASE + 40_000)
}

const taskCases: GoldenCase[] = [
  {
    name: 'vscode-tasks-default-roots',
    // Healthy stores of the three extensions in three editors (Linux, remote server, macOS), found with no PATH.
    build(root) {
      taskStore(root, 'roo', path.join('.config', 'Code'), [[0, 'A'], [1, 'B']])
      taskStore(root, 'kilo', path.join('.vscode-server', 'data'), [[0, 'A']])
      taskStore(root, 'cline', path.join('Library', 'Application Support', 'Cursor'), [[0, 'B']])
      return []
    },
  },
  {
    name: 'vscode-tasks-damaged-home',
    // `scan ~`: the safe writes stopped at each step, torn and zeroed files, a task the index does not list, a torn index.
    build(root) {
      const roo = taskStore(root, 'roo', path.join('.config', 'Code'), [[0, 'A'], [1, 'A'], [2, 'B'], [3, 'B']], [0, 1, 3])
      crashedWrite(roo.dirs[0], 'roo', 0, 'wrote-new')
      damage(path.join(roo.dirs[1], 'ui_messages.json'), (b) => cutAt(b, Math.floor(b.length * 0.8)))
      damage(path.join(roo.dirs[3], 'api_conversation_history.json'), zeroFill)
      const kilo = taskStore(root, 'kilo', path.join('.config', 'VSCodium'), [[0, 'A'], [1, 'A']])
      crashedWrite(kilo.dirs[0], 'kilo', 0, 'renamed-old')
      damage(path.join(kilo.dirs[1], 'api_conversation_history.json'), (b) => cutAt(b, Math.floor(b.length * 0.7)))
      const cline = taskStore(root, 'cline', path.join('.config', 'Cursor'), [[0, 'A'], [1, 'B']])
      damage(path.join(cline.storage, 'state', 'taskHistory.json'), (b) => cutAt(b, Math.floor(b.length * 0.4)))
      // A complete transcript followed by the stale tail of an older, longer one (an in-place rewrite).
      damage(path.join(cline.dirs[1], 'ui_messages.json'), (b) => Buffer.concat([compact(cline.tasks[1].ui.slice(0, -2)), b.subarray(compact(cline.tasks[1].ui.slice(0, -2)).length)]))
      return [root]
    },
  },
]

/** A tar archive of `entries` (name → bytes, or a symbolic link target), every entry with mtime `BASE`. */
async function tarOf(entries: Array<{name: string; data?: Buffer | string; link?: string}>): Promise<Buffer> {
  const pack = tar.pack()
  const chunks: Buffer[] = []
  pack.on('data', (c: unknown) => void chunks.push(c as Buffer))
  const done = new Promise<void>((resolve) => pack.on('end', () => resolve()))
  for (const e of entries) {
    if (e.link !== undefined) pack.entry({name: e.name, type: 'symlink', linkname: e.link, mtime: new Date(BASE)})
    else pack.entry({name: e.name, mtime: new Date(BASE)}, e.data ?? '')
  }
  pack.finalize()
  await done
  return Buffer.concat(chunks)
}

const archiveCases: GoldenCase[] = [
  {
    name: 'archives-hostile',
    // Entries that escape the archive, a link pointing outside, a manifest that is not JSON, beside a real chat.
    async build(root) {
      const chat = path.join(REALDATA, 'codebuff', '2025-11-03T09-14-30.000Z')
      const files = readdirSync(chat).sort()
      const ok = files.map((n) => ({name: `good/chats/2025-11-03T09-14-30.000Z/${n}`, data: readFileSync(path.join(chat, n))}))
      put(path.join(root, 'in', 'escape.tar'), await tarOf([...ok, {name: '../escape.json', data: '{}'}, {name: 'good/out', link: '../../etc/passwd'}]))
      put(path.join(root, 'in', 'bad-manifest.tar'), await tarOf([{name: 'chatdoctor-bundle.json', data: '{not json'}, ...ok]))
      put(path.join(root, 'in', 'not-an-archive.tar.gz'), 'plain text, not gzip')
      return [path.join(root, 'in')]
    },
  },
]

const bundleCases: GoldenCase[] = [
  {
    name: 'bundle-vscode-tasks',
    bundle: {kinds: ['tar.gz', 'zip']},
    build(root) {
      const roo = taskStore(root, 'roo', path.join('.config', 'Code'), [[0, 'A'], [1, 'B']])
      crashedWrite(roo.dirs[0], 'roo', 0, 'wrote-new')
      return [roo.storage]
    },
  },
  {
    name: 'bundle-vscode-tasks-redacted',
    bundle: {kinds: ['tar.gz'], redact: true},
    build(root) {
      const cline = taskStore(root, 'cline', path.join('.config', 'Code'), [[0, 'A'], [1, 'B']])
      damage(path.join(cline.dirs[1], 'ui_messages.json'), (b) => cutAt(b, Math.floor(b.length * 0.6)))
      return [cline.storage]
    },
  },
  {
    name: 'bundle-codebuff',
    bundle: {kinds: ['tar.gz', 'zip', 'tar']},
    build(root) {
      const chats = path.join(root, 'chats')
      copyTree(path.join(REALDATA, 'codebuff', '2025-11-03T09-14-30.000Z'), path.join(chats, '2025-11-03T09-14-30.000Z'))
      const ten = copyTree(path.join(REALDATA, 'codebuff', '2025-11-04T14-01-15.000Z'), path.join(chats, '2025-11-04T14-01-15.000Z'))
      damage(path.join(ten, 'run-state.json'), (b) => cutAt(b, 16384))
      return [chats]
    },
  },
  {
    name: 'bundle-codebuff-redacted',
    bundle: {kinds: ['tar.gz'], redact: true},
    build(root) {
      const chats = path.join(root, 'chats')
      const ten = copyTree(path.join(REALDATA, 'codebuff', '2025-11-04T14-01-15.000Z'), path.join(chats, '2025-11-04T14-01-15.000Z'))
      damage(path.join(ten, 'run-state.json.bak'), (b) => cutAt(b, b.length - 5000))
      return [chats]
    },
  },
  {
    name: 'bundle-sessions',
    bundle: {kinds: ['tar.gz', 'zip']},
    build(root) {
      const s = copySessions(root)
      damage(s['claude.short'], (b) => cutAt(b, b.length - 120))
      return [path.join(root, 'sessions')]
    },
  },
  {
    name: 'bundle-sessions-redacted',
    bundle: {kinds: ['tar.gz'], redact: true},
    build(root) {
      const s = copySessions(root)
      editLines(s['claude.openTool'], (l) => {
        l[3] = Buffer.concat([l[3].subarray(0, 1), Buffer.alloc(20), l[3].subarray(1)])
        return l
      })
      const dir = path.dirname(s['codex.kvsankar'])
      put(path.join(dir, `${path.basename(s['codex.kvsankar'])}.zst`), zstdStored(readFileSync(s['codex.kvsankar'])), BASE)
      return [path.join(root, 'sessions')]
    },
  },
  {
    name: 'bundle-opencode-tree',
    bundle: {kinds: ['tar.gz', 'zip']},
    build(root) {
      const data = copyTree(OC_TREE, path.join(root, 'opencode'))
      damage(path.join(treeParts(data)[1], readdirSync(treeParts(data)[1]).sort()[0]), (b) => cutAt(b, 40))
      return [data]
    },
  },
  {
    name: 'bundle-opencode-tree-redacted',
    bundle: {kinds: ['tar.gz'], redact: true},
    build(root) {
      return [copyTree(OC_TREE, path.join(root, 'opencode'))]
    },
  },
  {
    name: 'bundle-opencode-database',
    bundle: {kinds: ['tar.gz']},
    build(root) {
      return [copyTree(OC_DB, path.join(root, 'opencode'))]
    },
  },
]

/** Every golden case, in a fixed order. */
export const GOLDEN_CASES: GoldenCase[] = [...scenarioCases, ...realCases, ...damagedCases, ...taskCases, ...archiveCases, ...bundleCases]
