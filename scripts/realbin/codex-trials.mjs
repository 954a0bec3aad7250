// Tries index repairs on the real Codex CLI 0.169.0 binary, offline: the captured store of
// shared/realdata/codex/0.169.0/home/.codex is laid out as /home/dev/.codex, one mutation (the damage, then
// the repair chatdoctor would make, done here with sqlite3 or plain file moves) is applied to a fresh copy,
// and the binary is asked to resume thread C by id and the newest thread (`codex exec resume`), against
// the realdata generator's fake Responses API on 127.0.0.1. What the binary did, and what its databases
// held afterwards (read on a copy), goes to the JSON file named on the command line.
//
// Usage (root, Linux x86_64; the binary installed with `npm ci` from
// shared/realdata/generators/codex/package*.json into $CODEX_NPM, default /tmp/index-npm/codex):
//   node scripts/realbin/codex-trials.mjs <out.json> [trial-name-substring]
// Isolation as the generator's: new net/mount/uts/pid namespaces (loopback only), a private /tmp and
// /home, the binary bind-mounted at /usr/local/lib/node_modules, user dev (uid 1000).
import {spawn, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const self = fileURLToPath(import.meta.url)
const repo = path.resolve(path.dirname(self), '..', '..')
const NPM = process.env.CODEX_NPM ?? '/tmp/index-npm/codex'
const NS_PREFIX = '/usr/local/lib/node_modules'
const HOME = '/home/dev'
const CODEX_HOME = `${HOME}/.codex`
const PROJECT = `${HOME}/demo-app`
const UID = 1000
const PORT = 47910
const C = '01a230d3-910e-7ab3-9c7f-f7f164ff1ff1'
const D = '01a230d3-ac83-7592-b02d-82076d0dd468'

function findRealdata() {
  if (process.env.CHATDOCTOR_REALDATA) return path.resolve(process.env.CHATDOCTOR_REALDATA)
  for (let d = path.dirname(repo); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'shared', 'realdata'))) return path.join(d, 'shared', 'realdata')
    if (path.dirname(d) === d) throw new Error('shared/realdata not found')
  }
}
const REALDATA = findRealdata()
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, {encoding: 'utf8', timeout: 180_000, ...opts})
  if (r.error) throw r.error
  if (r.status !== 0 && !opts.allowFail) throw new Error(`${cmd} ${args.join(' ')} -> ${r.status}\n${r.stderr}\n${r.stdout}`)
  return r
}

if (!process.env.TRIAL_INNER) {
  const out = path.resolve(process.argv[2] ?? 'codex-trials.json')
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'codex-trials-'))
  const drop = (l) => l && !l.startsWith('dev:') && l.split(':')[2] !== String(UID)
  fs.writeFileSync(path.join(work, 'passwd'), fs.readFileSync('/etc/passwd', 'utf8').split('\n').filter(drop).join('\n') + `\ndev:x:${UID}:${UID}:Fixture Dev:${HOME}:/bin/bash\n`)
  fs.writeFileSync(path.join(work, 'group'), fs.readFileSync('/etc/group', 'utf8').split('\n').filter(drop).join('\n') + `\ndev:x:${UID}:\n`)
  const r = spawnSync('unshare', ['--net', '--mount', '--uts', '--pid', '--fork', '--mount-proc', '--', process.execPath, self, out, process.argv[3] ?? ''], {
    stdio: 'inherit',
    env: {PATH: process.env.PATH, TRIAL_INNER: '1', TRIAL_WORK: work},
  })
  fs.rmSync(work, {recursive: true, force: true})
  process.exit(r.status ?? 1)
}

const work = process.env.TRIAL_WORK
const outFile = process.argv[2]
const only = process.argv[3] ?? ''

function isolate() {
  sh('mount', ['--make-rprivate', '/'])
  fs.mkdirSync('/usr/local/lib', {recursive: true})
  sh('mount', ['-t', 'tmpfs', '-o', 'mode=755', 'tmpfs', '/usr/local/lib'])
  fs.mkdirSync(NS_PREFIX)
  sh('mount', ['--bind', path.join(NPM, 'node_modules'), NS_PREFIX])
  for (const f of ['passwd', 'group']) sh('mount', ['--bind', path.join(work, f), `/etc/${f}`])
  sh('mount', ['-t', 'tmpfs', '-o', 'mode=1777', 'tmpfs', '/tmp'])
  fs.mkdirSync('/home', {recursive: true})
  sh('mount', ['-t', 'tmpfs', '-o', 'mode=755', 'tmpfs', '/home'])
  sh('hostname', ['devbox'])
  sh('ip', ['link', 'set', 'lo', 'up'])
}

const asDev = (args) => ['setpriv', `--reuid=${UID}`, `--regid=${UID}`, '--clear-groups', '--', ...args]
const gitEnv = {PATH: '/usr/local/bin:/usr/bin:/bin', HOME, GIT_AUTHOR_NAME: 'Fixture Dev', GIT_AUTHOR_EMAIL: 'dev@example.invalid', GIT_COMMITTER_NAME: 'Fixture Dev', GIT_COMMITTER_EMAIL: 'dev@example.invalid', GIT_AUTHOR_DATE: '2025-11-03T09:00:00Z', GIT_COMMITTER_DATE: '2025-11-03T09:00:00Z'}
const CODEX_JS = `${NS_PREFIX}/@openai/codex/bin/codex.js`
const cxEnv = {PATH: '/usr/local/bin:/usr/bin:/bin', HOME, USER: 'dev', LOGNAME: 'dev', SHELL: '/bin/bash', LANG: 'C.UTF-8', TERM: 'dumb', CODEX_HOME, FIXTURE_API_KEY: 'dummy'}

function copyTree(src, dst) {
  const st = fs.lstatSync(src)
  if (st.isDirectory()) {
    if (/\/packages$/.test(src) || /\/skills$/.test(src)) return
    fs.mkdirSync(dst, {recursive: true})
    for (const e of fs.readdirSync(src).sort()) copyTree(path.join(src, e), path.join(dst, e))
    fs.chmodSync(dst, 0o755)
  } else if (st.isFile()) {
    fs.copyFileSync(src, dst)
    fs.chmodSync(dst, 0o644)
    fs.utimesSync(dst, st.atime, st.mtime)
  } else if (st.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(src), dst)
}

function freshHome() {
  for (const e of fs.existsSync(HOME) ? fs.readdirSync(HOME) : []) fs.rmSync(path.join(HOME, e), {recursive: true, force: true})
  fs.mkdirSync(path.join(PROJECT, 'src'), {recursive: true})
  const real = path.join(REALDATA, 'codex', '0.169.0', 'home')
  fs.copyFileSync(path.join(real, 'demo-app', 'README.md'), path.join(PROJECT, 'README.md'))
  for (const f of fs.readdirSync(path.join(real, 'demo-app', 'src'))) fs.copyFileSync(path.join(real, 'demo-app', 'src', f), path.join(PROJECT, 'src', f))
  copyTree(path.join(real, '.codex'), CODEX_HOME)
  sh('chown', ['-R', `${UID}:${UID}`, HOME])
  for (const a of [['init', '-q', '-b', 'main'], ['add', '-A'], ['commit', '-q', '-m', 'Initial todo service']]) sh(asDev(['git', ...a])[0], asDev(['git', ...a]).slice(1), {cwd: PROJECT, env: gitEnv})
}

function rolloutOf(id) {
  const walk = (d) => (fs.existsSync(d) ? fs.readdirSync(d, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : e.name.includes(id) && e.name.endsWith('.jsonl') ? [path.join(d, e.name)] : [])) : [])
  return [...walk(path.join(CODEX_HOME, 'sessions')), ...walk(path.join(CODEX_HOME, 'archived_sessions'))][0]
}

/** Runs SQL on the live store (the trial's stand-in for chatdoctor's write; the binary is not running). */
function sql(db, statements) {
  sh('sqlite3', [path.join(CODEX_HOME, db), statements])
  sh('chown', ['-R', `${UID}:${UID}`, CODEX_HOME])
}

/** Reads a database on a private copy (with its -wal), as chatdoctor does. */
function peek(db, query) {
  const tmp = fs.mkdtempSync('/tmp/peek-')
  for (const suf of ['', '-wal']) if (fs.existsSync(path.join(CODEX_HOME, db + suf))) fs.copyFileSync(path.join(CODEX_HOME, db + suf), path.join(tmp, db + suf))
  const r = sh('sqlite3', ['-json', path.join(tmp, db), query], {allowFail: true})
  fs.rmSync(tmp, {recursive: true, force: true})
  if (r.status !== 0) return {error: r.stderr.trim()}
  try {
    return r.stdout.trim() === '' ? [] : JSON.parse(r.stdout)
  } catch {
    return {raw: r.stdout.slice(0, 400)}
  }
}

/** The projection of thread C checked the way Codex reads it: each turn's byte offset must start the line of its ordinal. */
function projectionCheck(id) {
  const f = rolloutOf(id)
  const turns = peek('thread_history_1.sqlite', `select turn_id, rollout_ordinal, rollout_byte_offset, rollout_end_ordinal, rollout_end_byte_offset from thread_turns where thread_id='${id}' order by rollout_ordinal`)
  const state = peek('thread_history_1.sqlite', `select next_rollout_byte_offset, next_rollout_ordinal from thread_history_projection_state where thread_id='${id}'`)
  if (!f || !Array.isArray(turns)) return {rollout: f ?? null, turns, state}
  const buf = fs.readFileSync(f)
  const lineAt = (off) => {
    if (off === null || off === undefined || off > buf.length) return null
    if (off > 0 && buf[off - 1] !== 10) return {startsLine: false}
    const end = buf.indexOf(10, off)
    try {
      return {startsLine: true, ordinal: JSON.parse(buf.subarray(off, end < 0 ? buf.length : end).toString('utf8')).ordinal}
    } catch {
      return {startsLine: true, ordinal: 'unparsable'}
    }
  }
  const bad = turns.filter((t) => {
    const l = lineAt(t.rollout_byte_offset)
    return !l || !l.startsLine || l.ordinal !== t.rollout_ordinal
  })
  return {rolloutBytes: buf.length, turns: turns.length, offsetsOff: bad.length, state}
}

function dbFiles() {
  return fs.readdirSync(CODEX_HOME).filter((f) => /\.sqlite/.test(f)).sort().map((f) => `${f}:${fs.statSync(path.join(CODEX_HOME, f)).size}`)
}

function codexExec(args) {
  const argv = [process.execPath, CODEX_JS, 'exec', '--json', ...args]
  const r = spawnSync(asDev(argv)[0], asDev(argv).slice(1), {cwd: PROJECT, env: cxEnv, encoding: 'utf8', timeout: 180_000})
  const events = (r.stdout ?? '').split('\n').filter(Boolean).map((l) => {
    try {
      return JSON.parse(l)
    } catch {
      return {}
    }
  })
  const thread = events.find((e) => e.type === 'thread.started')?.thread_id ?? null
  const err = events.find((e) => e.type === 'error' || e.type === 'turn.failed')
  return {exit: r.status, thread: thread === C ? 'C' : thread === D ? 'D' : thread ? 'new' : null, error: err ? JSON.stringify(err).slice(0, 300) : r.status ? (r.stderr ?? '').trim().split('\n').slice(-2).join(' ') : undefined}
}

function stopLeftovers(keep) {
  const pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((p) => p !== process.pid && !keep.includes(p))
  for (const sig of ['SIGTERM', 'SIGKILL']) {
    for (const p of pids) {
      try {
        process.kill(p, sig)
      } catch {}
    }
    sleep(sig === 'SIGTERM' ? 800 : 200)
  }
}

const moveAside = (...names) => () => {
  const ev = path.join(HOME, 'evidence')
  fs.mkdirSync(ev, {recursive: true})
  for (const n of names) if (fs.existsSync(path.join(CODEX_HOME, n))) fs.renameSync(path.join(CODEX_HOME, n), path.join(ev, n))
}
const db3 = (base) => [base, `${base}-wal`, `${base}-shm`]
const moveC = () => {
  const f = rolloutOf(C)
  const d = path.join(CODEX_HOME, 'sessions', '2020', '01', '01')
  fs.mkdirSync(d, {recursive: true})
  fs.renameSync(f, path.join(d, path.basename(f)))
  sh('chown', ['-R', `${UID}:${UID}`, CODEX_HOME])
}
/** Cuts a line in the middle of C's rollout out, as chatdoctor's drop-line repair would leave it (the rest byte-identical). */
const dropMiddleLineOfC = () => {
  const f = rolloutOf(C)
  const lines = fs.readFileSync(f, 'utf8').split('\n')
  lines.splice(Math.floor(lines.length / 2), 1)
  const st = fs.statSync(f)
  fs.writeFileSync(f, lines.join('\n'))
  fs.utimesSync(f, st.atime, st.mtime)
}

/** Runs chatdoctor's own repair of the store as user dev (what the trials below establish with the binary). */
const CHATDOCTOR = path.join(repo, 'bin', 'run.js')
const chatdoctorRepair = () => {
  const argv = [process.execPath, CHATDOCTOR, 'repair', '--yes', '--json', CODEX_HOME]
  const r = spawnSync(asDev(argv)[0], asDev(argv).slice(1), {cwd: HOME, env: {...cxEnv, TERM: 'dumb'}, encoding: 'utf8', timeout: 180_000})
  let rep = null
  try {
    rep = JSON.parse(r.stdout)
  } catch {
    rep = {unparsed: (r.stdout + r.stderr).slice(0, 400)}
  }
  lastRepair = {exit: r.status, chats: (rep.chats ?? []).map((c) => ({id: c.id, status: c.status, outcome: c.repair?.outcome, actions: (c.actions ?? []).map((a) => `${a.type} ${a.from ?? ''} -> ${a.to}`)}))}
}
let lastRepair = null
const dropMiddleHalfLineOfC = () => {
  const f = rolloutOf(C)
  const lines = fs.readFileSync(f, 'utf8').split('\n')
  const i = Math.floor(lines.length / 2)
  lines[i] = lines[i].slice(0, Math.floor(lines[i].length / 2))
  fs.writeFileSync(f, lines.join('\n'))
  sh('chown', ['-R', `${UID}:${UID}`, CODEX_HOME])
}

const TRIALS = [
  {name: 'chatdoctor: rollout of C moved', steps: [moveC, chatdoctorRepair], before: () => ({repair: lastRepair})},
  {name: 'chatdoctor: page 1 of state_5 zeroed', steps: [() => {
    const fd = fs.openSync(path.join(CODEX_HOME, 'state_5.sqlite'), 'r+')
    fs.writeSync(fd, Buffer.alloc(4096), 0, 4096, 0)
    fs.closeSync(fd)
  }, chatdoctorRepair], before: () => ({repair: lastRepair})},
  {name: 'chatdoctor: row of C deleted', steps: [() => sql('state_5.sqlite', `DELETE FROM threads WHERE id='${C}';`), chatdoctorRepair], before: () => ({repair: lastRepair})},
  {name: 'chatdoctor: middle line of C cut in half (its own rewrite keeps the projection true)', steps: [dropMiddleHalfLineOfC, chatdoctorRepair], before: () => ({repair: lastRepair, projection: projectionCheck(C)})},
  {name: 'chatdoctor: D named and pinned, rollout of C moved (rows repaired, state kept)', steps: [() => sql('state_5.sqlite', `UPDATE threads SET name='my name', is_pinned=1 WHERE id='${D}';`), moveC, chatdoctorRepair], before: () => ({repair: lastRepair}), after: () => ({rowsD: peek('state_5.sqlite', `select name, is_pinned from threads where id='${D}'`)})},
  {name: 'baseline', steps: []},
  {name: 'rollout of C moved: row rollout_path stale (damage only)', steps: [moveC]},
  {name: 'rollout of C moved; repair: UPDATE threads.rollout_path', steps: [moveC, () => sql('state_5.sqlite', `UPDATE threads SET rollout_path='${rolloutOf(C)}' WHERE id='${C}';`)]},
  {name: 'rollout of C moved; repair: state_5 moved aside (rebuild)', steps: [moveC, moveAside(...db3('state_5.sqlite'))]},
  {name: 'row of C deleted from threads (damage only)', steps: [() => sql('state_5.sqlite', `DELETE FROM threads WHERE id='${C}';`)]},
  {name: 'row of C deleted; repair: backfill_state row deleted', steps: [() => sql('state_5.sqlite', `DELETE FROM threads WHERE id='${C}'; DELETE FROM backfill_state;`)]},
  {name: 'row of C deleted; repair: state_5 moved aside (rebuild)', steps: [() => sql('state_5.sqlite', `DELETE FROM threads WHERE id='${C}';`), moveAside(...db3('state_5.sqlite'))]},
  {name: 'thread D named and pinned; state_5 moved aside (what a rebuild keeps)', steps: [() => sql('state_5.sqlite', `UPDATE threads SET name='my name', is_pinned=1 WHERE id='${D}';`), moveAside(...db3('state_5.sqlite'))], after: () => ({rowsD: peek('state_5.sqlite', `select name, is_pinned, archived from threads where id='${D}'`)})},
  {name: 'page 1 of state_5 zeroed (damage only)', steps: [() => {
    const fd = fs.openSync(path.join(CODEX_HOME, 'state_5.sqlite'), 'r+')
    fs.writeSync(fd, Buffer.alloc(4096), 0, 4096, 0)
    fs.closeSync(fd)
  }]},
  {name: 'page 1 of state_5 zeroed; repair: state_5 moved aside (rebuild)', steps: [() => {
    const fd = fs.openSync(path.join(CODEX_HOME, 'state_5.sqlite'), 'r+')
    fs.writeSync(fd, Buffer.alloc(4096), 0, 4096, 0)
    fs.closeSync(fd)
  }, moveAside(...db3('state_5.sqlite'))]},
  {name: 'middle line of C dropped (chatdoctor-style rewrite), projection left (damage)', steps: [dropMiddleLineOfC], before: () => ({projection: projectionCheck(C)})},
  {name: 'middle line of C dropped; repair: thread_history moved aside', steps: [dropMiddleLineOfC, moveAside(...db3('thread_history_1.sqlite'))]},
  {name: "middle line of C dropped; repair: C's thread_history rows deleted", steps: [dropMiddleLineOfC, () => sql('thread_history_1.sqlite', `DELETE FROM thread_items WHERE thread_id='${C}'; DELETE FROM thread_turns WHERE thread_id='${C}'; DELETE FROM thread_history_projection_state WHERE thread_id='${C}';`)]},
  {name: 'WAL of state_5 without its database (damage only)', steps: [() => {
    fs.copyFileSync(path.join(REALDATA, 'codex', '0.169.0', 'after-exec', 'home', '.codex', 'state_5.sqlite-wal'), path.join(CODEX_HOME, 'state_5.sqlite-wal'))
    fs.rmSync(path.join(CODEX_HOME, 'state_5.sqlite'))
    sh('chown', ['-R', `${UID}:${UID}`, CODEX_HOME])
  }]},
]

function main() {
  isolate()
  const server = spawn(process.execPath, [path.join(REALDATA, 'generators', 'codex', 'fake-openai.mjs'), String(PORT)], {env: {PATH: process.env.PATH, FAKE_LOG: '/tmp/fake.jsonl'}, stdio: ['ignore', 'ignore', 'inherit']})
  for (let i = 0; i < 50; i++) {
    if (spawnSync('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${PORT}`]).status === 0) break
    sleep(100)
  }
  const version = sh(process.execPath, [CODEX_JS, '--version'], {env: cxEnv}).stdout.trim()
  const results = []
  try {
    for (const t of TRIALS.filter((t) => t.name.includes(only))) {
      const run = (which) => {
        stopLeftovers([server.pid])
        freshHome()
        for (const s of t.steps) s()
        const before = {dbFiles: dbFiles(), ...(t.before ? t.before() : {})}
        const r = codexExec(which === 'id' ? ['resume', C, 'ping'] : ['resume', '--last', 'ping'])
        stopLeftovers([server.pid])
        const after = {
          dbFiles: dbFiles(),
          threads: peek('state_5.sqlite', 'select id, source, archived, name, is_pinned, rollout_path from threads order by created_at_ms'),
          backfill: peek('state_5.sqlite', 'select status from backfill_state'),
          projectionC: projectionCheck(C),
          ...(t.after ? t.after() : {}),
        }
        return {...r, before, after}
      }
      const byId = run('id')
      const last = run('last')
      results.push({trial: t.name, resumeById: byId, resumeLast: last})
      console.error(`[trial] ${t.name}: resume C -> ${byId.exit} ${byId.thread ?? ''} ${byId.error ?? ''} | --last -> ${last.exit} ${last.thread ?? ''}`)
    }
  } finally {
    stopLeftovers([])
  }
  fs.writeFileSync(outFile, JSON.stringify({codexVersion: version, threadC: C, threadD: D, note: 'each trial starts from a fresh copy of shared/realdata/codex/0.169.0/home; steps are the damage and then the repair', results}, null, 2) + '\n')
}

main()
