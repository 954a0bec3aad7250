/**
 * Snapshots of sessions kept in a store's database (OpenCode 1.2+, Kilo): the export document chatdoctor builds
 * from a session's rows is byte for byte what the agent's own `export` wrote of it (the real exports in
 * shared/realdata); the agent's plugin hook (installed by `guard install` into a fake home, run as the agent runs
 * it) stores it encrypted; the session is then deleted from the database, or loses rows, by code on a copy of the
 * real store, and `repair` hands the agent's `import` (a fake one on PATH) a document equal to what `export`
 * would have written. Settled and unsettled sessions are told apart on the rows.
 */
import assert from 'node:assert/strict'
import {existsSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {pathToFileURL} from 'node:url'
import {exportBytes, readSessionExport} from '../src/lib/formats/opencode-family/export-rows.js'
import {KILO} from '../src/lib/formats/kilo/layout.js'
import {OPENCODE} from '../src/lib/formats/opencode/layout.js'
import type {StoreMember} from '../src/lib/formats/opencode-family/member.js'
import {changeDb, fakeAgent, storeWithProject} from './helpers/agent-import.js'
import {REALDATA, cleanup, copyWritable, runCli} from './helpers/fixtures.js'
import {ELSEWHERE, agentEnv, fakeHome as guardHome, storeFiles, waitFor} from './helpers/guard-home.js'

const fakeHome = () => guardHome('chatdoctor-snapdb-')

const OPENCODE_DATA = path.join(REALDATA, 'opencode', '1.18.33', 'data', 'opencode')
const OPENCODE_EXPORTS = path.join(REALDATA, 'opencode', '1.18.33')
const KILO_DATA = path.join(REALDATA, 'kilo', '7.7.7', 'home', '.local', 'share', 'kilo')
const KILO_EXPORTS = path.join(REALDATA, 'kilo', '7.7.7', 'exports')

const cli = (args: string[], env: NodeJS.ProcessEnv) => runCli(args, {env: agentEnv(env)})

type ScanChat = {path: string; status: string; winner: string | null; generations: Array<{file: string; role: string}>; findings: Array<{id: string}>}
const scanChats = (paths: string[], env: NodeJS.ProcessEnv): ScanChat[] => JSON.parse(cli(['scan', '--json', ...paths], env).stdout).chats

/** The repair outcome of the chat of session `sid` (`repair --yes --json` of `data`, with `env`). */
function repairOf(data: string, sid: string, env: NodeJS.ProcessEnv): {outcome: string; message: string} {
  const r = runCli(['repair', '--yes', '--json', data], {env})
  return (JSON.parse(r.stdout).chats as Array<{path: string; repair: {outcome: string; message: string}}>).find((c) => c.path.includes(sid))!.repair
}

/** The agent's real export of a session, with its working folder moved to `dir` (as the copy's row was). */
function expectedExport(file: string, dir: string): Buffer {
  const doc = JSON.parse(readFileSync(file, 'utf8'))
  return Buffer.from(JSON.stringify({...doc, info: {...doc.info, directory: dir}}, null, 2) + '\n', 'utf8')
}

/** Installs the agent's plugin with guard, loads it as the agent's loader does, and fires `session.idle` for `sid`. */
async function runPluginHook(agent: string, env: NodeJS.ProcessEnv, sid: string): Promise<string> {
  const install = cli(['guard', 'install', agent], env)
  assert.equal(install.status, 0, install.stderr)
  const plugin = path.join(env.XDG_CONFIG_HOME!, agent, 'plugins', 'chatdoctor-snapshot.js')
  assert.ok(existsSync(plugin), `the plugin is in ${agent}'s global plugin folder`)
  const mod = (await import(pathToFileURL(plugin).href)) as Record<string, unknown>
  assert.ok(Object.values(mod).length >= 1 && Object.values(mod).every((v) => typeof v === 'function'), 'every export is a plugin function')
  const hooks = await (Object.values(mod)[0] as (ctx: unknown) => Promise<{event: (x: {event: unknown}) => Promise<void>}>)({})
  const saved = {...process.env}
  try {
    // The agent runs the plugin in its own process, with its environment: here, the fake home's.
    Object.assign(process.env, agentEnv(env))
    for (const k of ELSEWHERE) delete process.env[k]
    await hooks.event({event: {type: 'session.idle', properties: {sessionID: sid}}})
    await waitFor(() => storeFiles(env).length === 1)
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k]
    Object.assign(process.env, saved)
  }
  return plugin
}

test('the export document built from a database session\'s rows is byte for byte what opencode export (1.18.33) and kilo export (7.7.7) wrote of it', async () => {
  const cases: Array<[StoreMember, string, string, string]> = [
    [OPENCODE, OPENCODE_DATA, 'opencode.db', OPENCODE_EXPORTS],
    [KILO, KILO_DATA, 'kilo.db', KILO_EXPORTS],
  ]
  let n = 0
  for (const [member, dir, file, exports] of cases) {
    for (const name of readdirSync(exports).filter((f) => /^export-ses_\w+\.json$/.test(f))) {
      const id = name.slice('export-'.length, -'.json'.length)
      const doc = await readSessionExport(dir, file, id, member.tempPrefix)
      assert.ok(!('error' in doc), `${id}: ${'error' in doc ? doc.error : ''}`)
      const bytes = exportBytes(member.exportView ? member.exportView(doc) : doc)
      assert.ok(bytes.equals(readFileSync(path.join(exports, name))), `${member.command} export ${id} byte for byte`)
      n++
    }
  }
  assert.equal(n, 4, 'two sessions of each store')
  const absent = await readSessionExport(OPENCODE_DATA, 'opencode.db', 'ses_0000000000000000000000000', OPENCODE.tempPrefix)
  assert.ok('error' in absent && absent.absent === true, 'a session with no row is said to be absent')
})

test('OpenCode 1.2+ database: the plugin\'s session.idle stores an encrypted export snapshot; the session torn (its last answer\'s parts gone) or deleted from opencode.db is repairable, and repair hands opencode import a document byte-equal to what opencode export wrote, run in the session\'s directory', async () => {
  const {home, env} = fakeHome()
  try {
    const sid = 'ses_dd624f00affeLQd9JRo5aavtt0'
    const {data, project} = storeWithProject(home, env, 'opencode', OPENCODE_DATA, 'opencode.db', sid)
    const plugin = await runPluginHook('opencode', env, sid)
    const snap = readFileSync(storeFiles(env)[0])
    assert.equal(snap.includes(Buffer.from('Add a remove(id) method to TodoStore')), false, 'the prompt text is not in the snapshot file')

    // Rows lost: every part of the last answer. The snapshot holds more: imported, the rows the store lacks added.
    const fake = fakeAgent(home, 'opencode')
    const withOpencode = {...agentEnv(env), PATH: `${fake.bin}${path.delimiter}${process.env.PATH}`}
    changeDb(path.join(data, 'opencode.db'), (d) => {
      const mid = d.prepare('SELECT id FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT 1').pluck().get(sid) as string
      d.prepare('DELETE FROM part WHERE message_id = ?').run(mid)
    })
    const torn = scanChats([data], env).find((c) => c.path.includes(sid))!
    assert.equal(torn.status, 'repairable')
    assert.match(torn.winner ?? '', /^snapshot:/)
    assert.equal(repairOf(data, sid, withOpencode).outcome, 'repaired')
    assert.ok(readFileSync(fake.received).equals(expectedExport(path.join(OPENCODE_EXPORTS, `export-${sid}.json`), project)), 'the torn session: opencode import got what opencode export wrote')

    // Gone altogether: its rows deleted from the database.
    changeDb(path.join(data, 'opencode.db'), (db) => {
      db.prepare('DELETE FROM part WHERE session_id = ?').run(sid)
      db.prepare('DELETE FROM message WHERE session_id = ?').run(sid)
      db.prepare('DELETE FROM session WHERE id = ?').run(sid)
    })
    const chat = scanChats([data], env).find((c) => c.path.includes(sid))!
    assert.equal(chat.path, path.join(data, `opencode.db#${sid}`).replace(home, '~'))
    assert.equal(chat.status, 'repairable')
    assert.match(chat.winner ?? '', /^snapshot:/)
    assert.ok(chat.findings.some((f) => f.id === 'snapshot-restores'))

    rmSync(fake.received)
    const r = repairOf(data, sid, withOpencode)
    assert.equal(r.outcome, 'repaired', r.message)
    const seen = JSON.parse(readFileSync(fake.log, 'utf8')) as {argv: string[]; cwd: string}
    assert.equal(seen.argv[0], 'import')
    assert.equal(seen.cwd, project, "run in the session's directory")
    assert.ok(readFileSync(fake.received).equals(expectedExport(path.join(OPENCODE_EXPORTS, `export-${sid}.json`), project)), 'opencode import got what opencode export wrote, byte for byte')

    assert.equal(cli(['guard', 'uninstall', 'opencode'], env).status, 0)
    assert.equal(existsSync(plugin), false)
  } finally {
    cleanup(home)
  }
})

test('Kilo: guard install kilo writes a plugin into Kilo\'s global plugin folder, its session.idle stores an export snapshot; a session whose last answer lost its part rows is repairable from the snapshot, and repair hands kilo import what kilo export wrote; deleted from kilo.db, the same', async () => {
  const {home, env} = fakeHome()
  try {
    const sid = 'ses_dcf0103d1ffeVv9VwWk5ZTVB35'
    const {data, db, project} = storeWithProject(home, env, 'kilo', KILO_DATA, 'kilo.db', sid)
    const plugin = await runPluginHook('kilo', env, sid)
    const before = scanChats([data], env).find((c) => c.path.includes(sid))!
    assert.equal(before.status, 'healthy', 'a snapshot equal to the rows changes nothing')
    assert.ok(before.generations.some((g) => g.role === 'snapshot'), 'it is listed as a generation')

    // Rows lost: every part of the last answer (as a torn write leaves it).
    changeDb(db, (d) => {
      const mid = d.prepare("SELECT id FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT 1").pluck().get(sid) as string
      d.prepare('DELETE FROM part WHERE message_id = ?').run(mid)
    })
    const torn = scanChats([data], env).find((c) => c.path.includes(sid))!
    assert.equal(torn.status, 'repairable')
    assert.match(torn.winner ?? '', /^snapshot:/)
    const fake = fakeAgent(home, 'kilo')
    const withKilo = {...agentEnv(env), PATH: `${fake.bin}${path.delimiter}${process.env.PATH}`}
    const r1 = repairOf(data, sid, withKilo)
    assert.equal(r1.outcome, 'repaired', r1.message)
    const expected = expectedExport(path.join(KILO_EXPORTS, `export-${sid}.json`), project)
    assert.ok(readFileSync(fake.received).equals(expected), 'kilo import got what kilo export wrote, byte for byte')
    assert.equal((JSON.parse(readFileSync(fake.log, 'utf8')) as {cwd: string}).cwd, project)

    // Gone altogether.
    changeDb(db, (d) => {
      for (const t of ['part', 'message']) d.prepare(`DELETE FROM ${t} WHERE session_id = ?`).run(sid)
      d.prepare('DELETE FROM session WHERE id = ?').run(sid)
    })
    const gone = scanChats([data], env).find((c) => c.path.includes(sid))!
    assert.equal(gone.status, 'repairable')
    const r2 = repairOf(data, sid, {...agentEnv(env), PATH: '/nonexistent'})
    assert.equal(r2.outcome, 'manual')
    assert.match(r2.message, /kilo is not on PATH.* kilo import /)
    const doc = /written to (\S+);/.exec(r2.message)![1]
    assert.ok(readFileSync(doc).equals(expected), 'the document written is what kilo export wrote')

    assert.equal(cli(['guard', 'uninstall', 'kilo'], env).status, 0)
    assert.equal(existsSync(plugin), false)
  } finally {
    cleanup(home)
  }
})

test('a database session is snapshotted only when settled: a tool part still running, or a last prompt with no answer, is skipped as not settled', () => {
  const {home, env} = fakeHome()
  try {
    const data = path.join(env.XDG_DATA_HOME!, 'kilo')
    copyWritable(KILO_DATA, data)
    const sid = 'ses_dcf0103d1ffeVv9VwWk5ZTVB35'
    const db = path.join(data, 'kilo.db')
    let saved = ''
    changeDb(db, (d) => {
      const row = d.prepare("SELECT id, data FROM part WHERE session_id = ? AND json_extract(data, '$.type') = 'tool' ORDER BY id DESC LIMIT 1").get(sid) as {id: string; data: string}
      saved = row.data
      const v = JSON.parse(row.data)
      d.prepare('UPDATE part SET data = ? WHERE id = ?').run(JSON.stringify({...v, state: {...v.state, status: 'running'}}), row.id)
    })
    const skipped = (r: {stdout: string}) => (JSON.parse(r.stdout).skipped as Array<{chat: string; reason: string}>).find((s) => s.chat.includes(sid))
    const s1 = skipped(cli(['snapshot', '--json', data], env))
    assert.match(s1?.reason ?? '', /not settled|not healthy/)
    changeDb(db, (d) => {
      d.prepare("UPDATE part SET data = ? WHERE session_id = ? AND json_extract(data, '$.type') = 'tool' AND json_extract(data, '$.state.status') = 'running'").run(saved, sid)
      // A prompt after the last answer, not answered yet.
      const last = d.prepare('SELECT time_created FROM message WHERE session_id = ? ORDER BY time_created DESC LIMIT 1').pluck().get(sid) as number
      d.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)').run('msg_zzzzzzzzzzzzzzzzzzzzzzzzzz', sid, last + 1, last + 1, JSON.stringify({role: 'user', time: {created: last + 1}, agent: 'code', model: {providerID: 'fake', modelID: 'fake-model'}}))
      d.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run('prt_zzzzzzzzzzzzzzzzzzzzzzzzzz', 'msg_zzzzzzzzzzzzzzzzzzzzzzzzzz', sid, last + 1, last + 1, JSON.stringify({type: 'text', text: 'and now?'}))
    })
    const s2 = skipped(cli(['snapshot', '--json', data], env))
    assert.equal(s2?.reason, 'not settled: the last prompt has no answer yet')
    assert.equal(storeFiles(env).length, 1, 'only the other, settled session was stored')
  } finally {
    cleanup(home)
  }
})
