/**
 * `check`, `bundle` and `inspect` on Claude Code, Codex and OpenCode, through the built CLI:
 * OpenCode export files checked by PATH and by content (folders, bundles), OpenCode's own exports pass and
 * damaged ones fail with a readable finding; Claude Code / Codex sessions and OpenCode stores in folders and
 * bundles diagnosed with `format`; round trip session → bundle → check gives the scan verdict (also damaged
 * and redacted); `bundle --session` gives OpenCode's own export; `inspect` shows lines, tears, planned changes.
 */
import assert from 'node:assert/strict'
import {cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {gunzipSync} from 'node:zlib'
import {writeTar} from '../src/lib/archive/write.js'
import {JSONL_PROFILE} from '../src/lib/formats/jsonl/redact.js'
import {checkExport} from '../src/lib/formats/opencode/export.js'
import {REALDATA, cleanup, cutAt, runCli, setMtime, tempDir, zeroFill} from './helpers/fixtures.js'
import {REAL_SESSIONS, body, linesOf} from './helpers/sessions.js'

interface Gen {
  file: string
  role: string
  class: string | null
  reasons: string[]
  turns: number | null
}
interface Chat {
  id: string
  path: string
  format: string
  status: string
  winner: string | null
  transcriptTurns: number | null
  contextTurns: number | null
  findings: Array<{id: string; severity: string; file: string | null; message: string}>
  generations: Gen[]
}
interface Rep {
  exitCode: number
  chats: Chat[]
  errors: Array<{path: string; message: string}>
  bundle?: {sessionId?: string; messages?: number; omitted?: unknown}
  inspection?: Record<string, unknown> & {damagedLines?: Array<{file: string; line: number; offset: number; length: number; reasons: string[]; action: string}>; plannedChanges?: Array<{kind: string; line: number; offset: number}>; account: string; timeline: Array<{file: string; role: string; class: string | null}>; tears: Array<{file: string; offset: number}>}
}

function json(args: string[]): Rep {
  const r = runCli([...args, '--json'])
  const rep = JSON.parse(r.stdout) as Rep
  assert.equal(rep.exitCode, r.status, r.stderr)
  return rep
}

const OC = path.join(REALDATA, 'opencode')
const TREE = path.join(OC, '1.1.65', 'data', 'opencode')
const DB = path.join(OC, '1.18.33', 'data', 'opencode')
const API = 'ses_dd6249cf0ffevk8ay20nf1cCNR'
const FIX = 'ses_fixture0000000000000000000'

/** The verdict that must survive bundling: everything but paths and mtimes. */
function verdict(c: Chat) {
  return {
    format: c.format,
    id: c.id,
    status: c.status,
    winner: c.winner,
    M: c.transcriptTurns,
    N: c.contextTurns,
    findings: c.findings.map((f) => `${f.severity} ${f.id} ${f.file}`),
    generations: c.generations.map((g) => ({file: g.file, role: g.role, class: g.class, reasons: g.reasons, turns: g.turns})),
  }
}
const byId = (cs: Chat[]) => new Map(cs.map((c) => [c.id, verdict(c)]))

/** A data dir copy of the 1.1.65 JSON tree with distinct, fixed mtimes. */
function copyTree(root: string): string {
  const dest = path.join(root, 'opencode')
  cpSync(TREE, dest, {recursive: true})
  let t = Date.UTC(2026, 0, 2, 3, 4, 5)
  const walk = (d: string) => {
    for (const n of readdirSync(d, {withFileTypes: true}).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, n.name)
      if (n.isDirectory()) walk(p)
      else setMtime(p, (t += 1000))
    }
  }
  walk(dest)
  return dest
}

/** Copies the real session logs into `dir/claude` and `dir/codex` with fixed mtimes; returns their paths. */
function copySessions(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  let t = Date.UTC(2026, 0, 3)
  for (const [fmt, set] of Object.entries(REAL_SESSIONS)) {
    for (const [key, src] of Object.entries(set)) {
      const dest = path.join(dir, fmt, path.basename(src))
      mkdirSync(path.dirname(dest), {recursive: true})
      cpSync(src, dest)
      setMtime(dest, (t += 1000))
      out[`${fmt}.${key}`] = dest
    }
  }
  return out
}

/** Damages copies of the session logs in the ways the bug reports describe (torn tail, NUL run, interleaved line). */
function damageSessions(s: Record<string, string>): void {
  const short = readFileSync(s['claude.short'])
  writeFileSync(s['claude.short'], cutAt(short, short.length - 120)) // torn tail
  const open = linesOf(readFileSync(s['claude.openTool']))
  open[3] = Buffer.concat([open[3].subarray(0, 1), Buffer.alloc(20), open[3].subarray(1)]) // a NUL run inside a record: the record is lost (bytes are never joined across a NUL run)
  writeFileSync(s['claude.openTool'], Buffer.concat(open))
  const cx = linesOf(readFileSync(s['codex.kvsankar']))
  // A cut record and the next record on one line (the cut record loses its tail and line end).
  cx[4] = body(cx[4]).subarray(0, 40)
  writeFileSync(s['codex.kvsankar'], Buffer.concat(cx))
}

test("check passes OpenCode's own exports (1.1.65, 1.18.33), by PATH and found by content in a folder", () => {
  const rep = json(['check', path.join(OC, '1.1.65'), path.join(OC, '1.18.33', `export-${API.replace('dd6249cf0ffevk8ay20nf1cCNR', 'dd624f00affeLQd9JRo5aavtt0')}.json`)])
  const exports = rep.chats.filter((c) => c.generations.some((g) => g.role === 'export'))
  // 1.1.65 folder: two exports and the import input (same shape); 1.18.33: one export by PATH.
  const rows = (xs: string[][]) => xs.map((x) => x.join(' ')).sort()
  assert.deepEqual(rows(exports.map((c) => [path.basename(c.path), c.id, c.status, c.format])), rows([
    ['export-ses_dd624f00affeLQd9JRo5aavtt0.json', 'ses_dd624f00affeLQd9JRo5aavtt0', 'healthy', 'opencode'],
    [`export-${API}.json`, API, 'healthy', 'opencode'],
    [`export-${FIX}.json`, FIX, 'healthy', 'opencode'],
    ['import-input-synthetic.json', readImportId(), 'healthy', 'opencode'],
  ]))
  const api = exports.find((c) => c.id === API)!
  assert.equal(api.contextTurns, 4)
  assert.equal(api.winner, `export-${API}.json`)
  assert.deepEqual(api.findings, [])
  // The 1.1.65 folder also holds the JSON tree: its sessions are diagnosed beside the exports.
  assert.deepEqual(rep.chats.filter((c) => !c.generations.some((g) => g.role === 'export')).map((c) => c.id).sort(), [API, FIX])
  assert.equal(rep.exitCode, 0)
})

function readImportId(): string {
  return (JSON.parse(readFileSync(path.join(OC, '1.1.65', 'import-input-synthetic.json'), 'utf8')) as {info: {id: string}}).info.id
}

test('check fails damaged exports with a readable finding; an unparseable one is keyed by its file name', async () => {
  const dir = tempDir()
  try {
    const src = readFileSync(path.join(OC, '1.1.65', `export-${API}.json`))
    const doc = JSON.parse(src.toString('utf8')) as {messages: Array<{info: {id: string; role: string}; parts: Array<{type: string; state?: {status: string; output?: string}}>}>}
    writeFileSync(path.join(dir, 'torn.json'), cutAt(src, 3000))
    writeFileSync(path.join(dir, 'zeros.json'), zeroFill(src))
    const noOutput = structuredClone(doc)
    const tool = noOutput.messages.flatMap((m) => m.parts).find((p) => p.type === 'tool' && p.state?.status === 'completed')!
    delete tool.state!.output
    writeFileSync(path.join(dir, 'no-output.json'), JSON.stringify(noOutput, null, 2))
    const dup = structuredClone(doc)
    dup.messages.push(dup.messages[dup.messages.length - 1])
    writeFileSync(path.join(dir, 'dup.json'), JSON.stringify(dup))

    // By PATH: each file is a chat, also the zero-filled one (no content to find it by).
    const rep = json(['check', ...['torn', 'zeros', 'no-output', 'dup'].map((n) => path.join(dir, `${n}.json`))])
    const by = new Map(rep.chats.map((c) => [path.basename(c.path), c]))
    const torn = by.get('torn.json')!
    assert.equal(torn.status, 'unrecoverable')
    assert.equal(torn.id, 'torn.json', 'an export that cannot be parsed is keyed by its file name')
    assert.deepEqual(torn.findings.map((f) => f.id), ['export-damaged'])
    assert.match(torn.findings[0].message, /export file is truncated \(unexpected-end\), damage from byte 3000 of 3000/)
    assert.equal(by.get('zeros.json')!.id, 'zeros.json')
    assert.equal(by.get('zeros.json')!.generations[0].class, 'zero-filled')
    assert.equal(by.get('no-output.json')!.status, 'degraded')
    assert.deepEqual(by.get('no-output.json')!.findings.map((f) => f.id), ['tool-output-missing'])
    assert.equal(by.get('dup.json')!.status, 'unrecoverable')
    assert.ok(by.get('dup.json')!.findings.some((f) => f.id === 'duplicate-id'))
    assert.equal(rep.exitCode & 4, 4)
    assert.equal(rep.exitCode & 2, 2)

    // Human output names the finding; the github format annotates the export file itself.
    const h = runCli(['check', '-v', path.join(dir, 'torn.json')])
    assert.match(h.stdout + h.stderr, /export-damaged/)
    const gh = runCli(['check', '--format', 'github', path.join(dir, 'torn.json')])
    assert.match(gh.stdout, new RegExp(`::error file=[^,]*torn\\.json,`))

    // Found by content in a bundle (no manifest): the torn export fails the check.
    const tar = await writeTar([
      {path: 'exports', kind: 'directory', mtimeMs: 0},
      {path: 'exports/good.json', kind: 'file', data: src, mtimeMs: Date.UTC(2026, 0, 1)},
      {path: 'exports/torn.json', kind: 'file', data: cutAt(src, 3000), mtimeMs: Date.UTC(2026, 0, 1)},
      {path: 'exports/notes.json', kind: 'file', data: Buffer.from('{"a":1}'), mtimeMs: 0},
    ])
    writeFileSync(path.join(dir, 'exports.tar.gz'), tar)
    const b = json(['check', path.join(dir, 'exports.tar.gz')])
    assert.deepEqual(b.chats.map((c) => [path.basename(c.path), c.status]).sort(), [['good.json', 'healthy'], ['torn.json', 'unrecoverable']])
    assert.equal(b.exitCode, 6)
  } finally {
    cleanup(dir)
  }
})

test('check on a folder of Claude Code and Codex sessions and an OpenCode store, and on its bundle: same verdicts with format (also damaged)', () => {
  const dir = tempDir()
  try {
    const home = path.join(dir, 'state')
    const sessions = copySessions(home)
    damageSessions(sessions)
    const data = copyTree(home)
    writeFileSync(path.join(data, 'storage', 'part', 'msg_01a22a125192fixture000003', 'prt_01a22a125194fixture000005.json'), '') // 0-byte part (B01)
    const scan = json(['scan', '--verbose', home]) // check measures every candidate, as scan --verbose does
    assert.deepEqual([...new Set(scan.chats.map((c) => c.format))].sort(), ['claude-code', 'codex', 'opencode'])
    const statuses = new Map(scan.chats.map((c) => [`${c.format} ${path.basename(c.path)}`, c.status]))
    assert.equal(statuses.get('claude-code marot-spotter__short.jsonl'), 'repairable')
    assert.equal(statuses.get('claude-code jnarowski-agentcmd__06381696-0074-49f8-863e-6ad4fac507f9.jsonl'), 'repairable')
    assert.equal(statuses.get('codex kvsankar-agent-history__session-01.jsonl'), 'repairable')
    assert.equal(statuses.get(`opencode ${FIX}.json`), 'repairable')

    const check = json(['check', home])
    assert.deepEqual(byId(check.chats), byId(scan.chats))

    for (const ext of ['tar.gz', 'zip']) {
      const out = path.join(dir, `state.${ext}`)
      const b = runCli(['bundle', home, '-o', out])
      assert.equal(b.status, 0, b.stderr)
      const inBundle = json(['check', out])
      assert.deepEqual(byId(inBundle.chats), byId(scan.chats), ext)
      assert.equal(inBundle.exitCode, scan.exitCode)
    }
  } finally {
    cleanup(dir)
  }
})

test('OpenCode and session logs in a bundle without a manifest are found by the discovery rules (store laid out, then removed)', async () => {
  const dir = tempDir()
  try {
    const data = copyTree(dir)
    const inputs: Array<{path: string; kind: 'file' | 'directory'; data?: Buffer; mtimeMs: number}> = []
    const walk = (d: string, rel: string) => {
      for (const n of readdirSync(d, {withFileTypes: true})) {
        const r = rel ? `${rel}/${n.name}` : n.name
        if (n.isDirectory()) {
          inputs.push({path: r, kind: 'directory', mtimeMs: 0})
          walk(path.join(d, n.name), r)
        } else inputs.push({path: r, kind: 'file', data: readFileSync(path.join(d, n.name)), mtimeMs: Date.UTC(2026, 0, 1)})
      }
    }
    walk(data, 'opencode')
    inputs.push({path: 'logs', kind: 'directory', mtimeMs: 0}, {path: 'logs/a.jsonl', kind: 'file', data: readFileSync(REAL_SESSIONS.claude.short), mtimeMs: 0}, {path: 'logs/b.jsonl', kind: 'file', data: readFileSync(REAL_SESSIONS.claude.kvsankar), mtimeMs: 0})
    const tar = path.join(dir, 'raw.tar')
    writeFileSync(tar, await writeTar(inputs, false))
    const rep = json(['check', tar])
    assert.deepEqual(rep.chats.map((c) => [c.format, c.id, c.status, path.basename(c.path)]).sort(), [
      ['claude-code', idOf(REAL_SESSIONS.claude.kvsankar), 'healthy', 'b.jsonl'],
      ['claude-code', idOf(REAL_SESSIONS.claude.short), 'healthy', 'a.jsonl'],
      ['opencode', API, 'healthy', `${API}.json`],
      ['opencode', FIX, 'healthy', `${FIX}.json`],
    ].sort())
    // No temp folder of chatdoctor's is left behind.
    assert.deepEqual(readdirSync(path.dirname(dir)).filter((n) => n.startsWith('chatdoctor-check-')), [])
  } finally {
    cleanup(dir)
  }
})

function idOf(file: string): string {
  const first = readFileSync(file, 'utf8').split('\n').map((l) => (l ? (JSON.parse(l) as {sessionId?: string}) : {})).find((v) => typeof v.sessionId === 'string')
  return first!.sessionId!
}

test("bundle --session writes OpenCode's own export of a 1.1.65 tree session; over the cap or in a database: exit 8, nothing written", () => {
  const dir = tempDir()
  try {
    for (const sid of [API, FIX]) {
      const out = path.join(dir, `${sid}.json`)
      const r = json(['bundle', '--session', sid, TREE, '-o', out])
      assert.equal(r.exitCode, 0)
      const own = readFileSync(path.join(OC, '1.1.65', `export-${sid}.json`), 'utf8')
      assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')), JSON.parse(own))
      assert.equal(r.chats[0].status, 'healthy')
      assert.equal(r.bundle?.sessionId, sid)
      // check agrees with scan on the session it came from.
      const c = json(['check', out])
      const s = json(['scan', '--verbose', TREE]).chats.find((x) => x.id === sid)!
      assert.equal(c.chats[0].status, s.status)
      assert.equal(c.chats[0].contextTurns, s.contextTurns)
    }
    const capped = runCli(['bundle', '--session', API, TREE, '-o', path.join(dir, 'big.json'), '--max-session-bytes', '1000'])
    assert.equal(capped.status, 8)
    assert.match(capped.stderr, /over the export cap of 1000 bytes/)
    assert.deepEqual(readdirSync(dir).filter((n) => n === 'big.json'), [])
    const db = runCli(['bundle', '--session', 'ses_dd624f00affeLQd9JRo5aavtt0', DB, '-o', path.join(dir, 'db.json')])
    assert.equal(db.status, 8)
    assert.match(db.stderr, /lives in the database of OpenCode 1\.2 or later/)
    const none = runCli(['bundle', '--session', 'ses_nosuchsession000000000000', TREE, '-o', path.join(dir, 'none.json')])
    assert.equal(none.status, 8)
    assert.match(none.stderr, /no OpenCode session ses_nosuchsession000000000000 found/)
  } finally {
    cleanup(dir)
  }
})

/** String values (≥ 12 characters) of a JSON value whose keys are not structural: what redaction must remove. */
function contentStrings(v: unknown, keep: ReadonlySet<string>, key: string | null = null, out = new Set<string>()): Set<string> {
  if (typeof v === 'string') {
    // Ids (uuids, OpenCode ids) are kept by design wherever they appear under an id key.
    const isId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v) || /^(?:ses|msg|prt)_\w+$/.test(v)
    if (v.length >= 12 && !isId && !(key !== null && keep.has(key)) && !/^\s*(?:<|\[Request interrupted)/.test(v)) out.add(v)
  } else if (Array.isArray(v)) for (const x of v) contentStrings(x, keep, key, out)
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) contentStrings(x, keep, k, out)
  return out
}

test('bundle --session --redact: ids, roles, counts and times kept, no title, path, text or tool output left; the export still passes check', () => {
  const dir = tempDir()
  try {
    const out = path.join(dir, 'red.json')
    const r = json(['bundle', '--session', FIX, TREE, '-o', out, '--redact'])
    assert.equal(r.exitCode, 0)
    const own = JSON.parse(readFileSync(path.join(OC, '1.1.65', `export-${FIX}.json`), 'utf8')) as {info: {id: string; time: unknown; title: string; directory: string}; messages: Array<{info: {id: string; role: string}; parts: Array<{id: string; type: string}>}>}
    const text = readFileSync(out, 'utf8')
    const red = JSON.parse(text) as typeof own
    assert.equal(red.info.id, own.info.id)
    assert.deepEqual(red.info.time, own.info.time)
    assert.deepEqual(red.messages.map((m) => [m.info.id, m.info.role, m.parts.map((p) => [p.id, p.type])]), own.messages.map((m) => [m.info.id, m.info.role, m.parts.map((p) => [p.id, p.type])]))
    const ownCheck = checkExport(readFileSync(path.join(OC, '1.1.65', `export-${FIX}.json`)))
    const redCheck = checkExport(Buffer.from(text))
    assert.equal(redCheck.status, 'healthy')
    assert.deepEqual(redCheck.context, ownCheck.context)
    const keep = new Set(['id', 'sessionID', 'messageID', 'parentID', 'projectID', 'callID', 'role', 'type', 'status', 'version', 'modelID', 'providerID', 'agent', 'mode', 'tool', 'slug', 'reason'])
    const leaked = [...contentStrings(own, keep)].filter((s) => text.includes(JSON.stringify(s).slice(1, -1)))
    assert.deepEqual(leaked, [])
    assert.ok(!text.includes('/home/dev'), 'no absolute path')
    assert.equal(json(['check', out]).exitCode, 0)
  } finally {
    cleanup(dir)
  }
})

test('bundle --redact of Claude Code and Codex sessions (healthy and damaged) and of an OpenCode tree session diagnoses the same, and holds none of their strings', () => {
  const dir = tempDir()
  try {
    const home = path.join(dir, 'state')
    const sessions = copySessions(home)
    const clean = path.join(dir, 'clean')
    cpSync(home, clean, {recursive: true})
    damageSessions(sessions)
    copyTree(home)
    for (const src of [clean, home]) {
      const out = path.join(dir, `${path.basename(src)}.tar.gz`)
      const b = runCli(['bundle', '--redact', src, '-o', out])
      assert.equal(b.status, 0, b.stderr)
      const scan = json(['scan', '--verbose', src])
      const red = json(['check', out])
      assert.deepEqual(byId(red.chats), byId(scan.chats), src)
      assert.equal(red.exitCode, scan.exitCode)
      // None of the original strings of any session log, in any member of the bundle.
      const raw = gunzipSync(readFileSync(out)).toString('latin1')
      for (const file of Object.values(sessions)) {
        const orig = readFileSync(file.replace(home, src)).toString('utf8').split('\n')
        const strings = new Set<string>()
        for (const line of orig) {
          try {
            contentStrings(JSON.parse(line), JSON_KEEP, null, strings)
          } catch {
            // a damaged line: its strings are checked through the clean copy
          }
        }
        const leaked = [...strings].filter((s) => raw.includes(Buffer.from(JSON.stringify(s).slice(1, -1), 'utf8').toString('latin1')))
        assert.deepEqual(leaked.slice(0, 3), [], file)
      }
      assert.ok(!raw.includes('/home/dev/demo-app'), 'no OpenCode project path')
    }
  } finally {
    cleanup(dir)
  }
})

const JSON_KEEP: ReadonlySet<string> = JSONL_PROFILE.structuralKeys

test('inspect on a damaged Claude Code session: damaged lines with line numbers and offsets, planned byte changes, tears, account; --json', () => {
  const dir = tempDir()
  try {
    const sessions = copySessions(dir)
    damageSessions(sessions)
    const file = sessions['claude.openTool']
    const lines = linesOf(readFileSync(REAL_SESSIONS.claude.openTool))
    const offset3 = lines.slice(0, 3).reduce((n, l) => n + l.length, 0)
    const rep = json(['inspect', file])
    const x = rep.inspection!
    assert.deepEqual(x.damagedLines!.map((d) => [d.line, d.offset, d.reasons, d.action]), [[4, offset3, ['nul-run', 'torn-interior'], 'drop']])
    // The record the NULs cut is dropped, never joined back together; the record after it is re-linked.
    assert.deepEqual(x.plannedChanges!.map((c) => [c.kind, c.line]), [['drop-line', 4], ['relink-parent', 6]])
    assert.equal(x.plannedChanges![0].offset, offset3)
    assert.deepEqual(x.tears.map((t) => [t.file, t.offset]), [[path.basename(file), offset3]])
    assert.match(x.account, /NUL bytes sit in the log from line 4, byte \d+/)
    assert.match(x.account, /A repair would make 2 byte changes/)
    const human = runCli(['inspect', file])
    assert.equal(human.status, 2)
    assert.match(human.stdout, /Damaged lines\n {2}\S+:4 byte \d+ \(\d+ bytes\): nul-run, torn-interior → drop/)
    assert.match(human.stdout, /Planned byte changes/)
    assert.match(human.stdout, /drop-line line 4/)

    const torn = json(['inspect', sessions['claude.short']]).inspection!
    assert.equal(torn.damagedLines!.length, 1)
    assert.deepEqual(torn.damagedLines![0].reasons, ['torn-tail'])
    assert.match(torn.account, /killed, or the machine lost power, while appending the last record/)

    const healthy = json(['inspect', sessions['codex.legacy']]).inspection!
    assert.deepEqual(healthy.damagedLines, [])
    assert.match(healthy.account, /is complete: every one of its 1370 lines is a whole record.*Nothing was lost\./)
  } finally {
    cleanup(dir)
  }
})

test('inspect on an OpenCode session (--session in a data dir): its files with classes, tears, account', () => {
  const dir = tempDir()
  try {
    const data = copyTree(dir)
    const part = path.join('storage', 'part', 'msg_01a22a125192fixture000003', 'prt_01a22a125194fixture000005.json')
    writeFileSync(path.join(data, part), Buffer.alloc(0))
    const many = runCli(['inspect', data])
    assert.equal(many.status, 16)
    assert.match(many.stderr, /holds 2 chats; .*--session/)
    const rep = json(['inspect', data, '--session', FIX])
    const x = rep.inspection!
    assert.equal(x.timeline.length, 19)
    assert.deepEqual(x.timeline.filter((e) => e.class !== 'intact').map((e) => [e.file, e.role, e.class]), [[part, 'part', 'empty']])
    assert.deepEqual(x.tears.map((t) => t.file), [part])
    assert.match(x.account, /5 message files and 13 part files/)
    assert.match(x.account, /is 0 bytes: OpenCode overwrites its files in place/)
    assert.equal(rep.exitCode, 2)
  } finally {
    cleanup(dir)
  }
})
