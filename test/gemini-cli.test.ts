/**
 * Gemini CLI, on copies of the store the real `@google/gemini-cli@0.61.0` wrote (shared/realdata/gemini-cli/0.61.0)
 * and of what the binary itself made of each damage (`damage/<case>/<step>/`): the healthy store, each damage
 * case and the bug-log reports with their exact verdicts, what the CLI's next start will destroy, repair and undo
 * byte for byte, and detection against the other JSON-lines agents in both directions.
 */
import assert from 'node:assert/strict'
import {spawn, spawnSync} from 'node:child_process'
import {mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import type {ChatReport} from '../src/lib/model/report.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {cleanup, hashTree, runCli, sha256, tempDir} from './helpers/fixtures.js'
import {CHATS, ID_A, ID_B, ORPHAN_B, SESSION_A, SESSION_B, copyGemini, damageFile, lines, put, realSession} from './helpers/gemini-cli.js'
import {REAL_SESSIONS, read} from './helpers/sessions.js'

async function scan(paths: string[], home: string, env: NodeJS.ProcessEnv = {}): Promise<Map<string, ChatReport>> {
  const r = await scanPaths(paths, {home, env: {HOME: home, ...env}})
  return new Map(r.chats.map((c) => [path.basename(c.report.path), c.report]))
}

function gen(r: ChatReport, file: string) {
  const g = r.generations.find((x) => x.file === file)
  assert.ok(g, `${file} is a generation of ${r.path}`)
  return g
}

const ids = (r: ChatReport) => r.findings.map((f) => `${f.severity} ${f.id}`).sort()

test('the real store: two healthy Gemini CLI sessions with 5 and 2 answered prompts, found from the default roots under a fake HOME', async () => {
  const root = tempDir()
  try {
    copyGemini(root)
    const chats = await scan([], root)
    assert.deepEqual([...chats.keys()].sort(), [SESSION_B, SESSION_A].sort())
    const a = chats.get(SESSION_A)!
    assert.equal(a.format, 'gemini-cli')
    assert.equal(a.id, ID_A)
    assert.equal(a.status, 'healthy')
    assert.equal(a.winner, SESSION_A)
    assert.equal(a.contextTurns, 5)
    assert.equal(a.transcriptTurns, 5)
    assert.deepEqual(ids(a), [])
    const ga = gen(a, SESSION_A)
    assert.equal(ga.role, 'primary')
    assert.equal(ga.class, 'intact')
    assert.equal(ga.lines!.total, 58)
    // 4 tool calls (after the 4 resumed starts, the older ones as functionCall parts of the checkpoint).
    assert.equal(ga.measure!.toolCalls, 4)
    assert.equal(ga.measure!.toolCallsWithResult, 4)
    assert.equal(ga.measure!.assistantMessages, 9)
    const b = chats.get(SESSION_B)!
    assert.equal(b.id, ID_B)
    assert.equal(b.status, 'healthy')
    assert.equal(b.contextTurns, 2)
    assert.equal(b.transcriptTurns, 2)
    // GEMINI_CLI_HOME replaces the home folder.
    const other = tempDir()
    try {
      copyGemini(other)
      const moved = await scan([], root, {GEMINI_CLI_HOME: other})
      assert.ok([...moved.values()].every((c) => c.path.startsWith(other) || c.path.startsWith('~')))
      assert.equal(moved.size, 2)
    } finally {
      cleanup(other)
    }
  } finally {
    cleanup(root)
  }
})

test('the CLI: a default-roots scan under a fake HOME lists both sessions as gemini-cli, exit 0', () => {
  const root = tempDir()
  try {
    copyGemini(root)
    const r = runCli(['scan', '--json'], {env: {HOME: root}})
    const report = JSON.parse(r.stdout) as {exitCode: number; chats: ChatReport[]}
    assert.equal(r.status, 0, r.stderr)
    assert.deepEqual(report.chats.map((c) => `${c.format} ${c.id} ${c.status} ${c.contextTurns}/${c.transcriptTurns}`).sort(), [`gemini-cli ${ID_B} healthy 2/2`, `gemini-cli ${ID_A} healthy 5/5`].sort())
  } finally {
    cleanup(root)
  }
})

test('damage/truncate-mid-record: the torn answer is dropped by a repair (4 of 5 prompts answered), and each later step of the binary gets its verdict', async () => {
  const root = tempDir()
  try {
    const steps: Record<string, {cls: string; reasons: string[]; turns: [number, number]; findings: string[]}> = {
      // The last line (the final answer) cut in half, no line end.
      '0-damaged': {cls: 'truncated', reasons: ['torn-tail'], turns: [4, 5], findings: ['error session-truncated', 'warning next-start-loss']},
      // `--list-sessions` appended its summary directly after the torn bytes: one line holds both.
      '1-list': {cls: 'corrupt', reasons: ['interleaved-line'], turns: [4, 5], findings: ['error session-corrupt']},
      // A resume then added a turn (its prompt sent merged with the unanswered one).
      '2-resume': {cls: 'corrupt', reasons: ['interleaved-line'], turns: [5, 6], findings: ['error session-corrupt']},
      '3-list-after': {cls: 'corrupt', reasons: ['interleaved-line'], turns: [5, 6], findings: ['error session-corrupt']},
    }
    for (const [step, want] of Object.entries(steps)) {
      const home = path.join(root, step)
      const chats = copyGemini(home, {kase: 'truncate-mid-record', step})
      const r = (await scan([chats], home)).get(SESSION_A)!
      assert.equal(r.status, 'repairable', step)
      assert.equal(r.winner, SESSION_A, step)
      const g = gen(r, SESSION_A)
      assert.equal(g.class, want.cls, step)
      assert.deepEqual(g.reasons, want.reasons, step)
      assert.deepEqual([r.contextTurns, r.transcriptTurns], want.turns, step)
      assert.deepEqual(ids(r), want.findings.sort(), step)
      // Session B is untouched by the damage.
      assert.equal((await scan([chats], home)).get(SESSION_B)!.status, 'healthy')
    }
  } finally {
    cleanup(root)
  }
})

test('damage/zero-length, nul-filled, first-line-cut: unrecoverable, and the next start deletes the file (said, with what it holds)', async () => {
  const root = tempDir()
  try {
    const cases: Record<string, {cls: string; reasons: string[]}> = {
      'zero-length': {cls: 'empty', reasons: []},
      'nul-filled': {cls: 'zero-filled', reasons: []},
      'first-line-cut': {cls: 'truncated', reasons: ['torn-tail']},
      'zero-length-then-fresh-start': {cls: 'empty', reasons: []},
    }
    for (const [kase, want] of Object.entries(cases)) {
      const home = path.join(root, kase)
      const chats = copyGemini(home, {kase, step: '0-damaged'})
      const r = (await scan([chats], home)).get(SESSION_A)!
      assert.equal(r.status, 'unrecoverable', kase)
      assert.equal(r.winner, null, kase)
      assert.equal(r.contextTurns, null, kase)
      const g = gen(r, SESSION_A)
      assert.equal(g.class, want.cls, kase)
      assert.deepEqual(g.reasons, want.reasons, kase)
      const next = r.findings.filter((f) => f.id === 'next-start-loss')
      assert.equal(next.length, 1, kase)
      assert.equal(next[0].severity, 'warning', kase)
      assert.match(next[0].message, /next start deletes session-2026-12-01T09-42-6e65aa12\.jsonl/, kase)
      assert.ok(r.findings.some((f) => f.id === 'context-lost'), kase)
      // What the binary did next: the file is gone, session B untouched.
      const after = path.join(root, `${kase}-after`)
      const chats2 = copyGemini(after, {kase, step: '1-' + (kase === 'zero-length-then-fresh-start' ? 'fresh-start' : 'list')})
      const later = await scan([chats2], after)
      assert.equal(later.has(SESSION_A), false, kase)
      assert.equal(later.get(SESSION_B)!.status, 'healthy', kase)
    }
    // The fresh start after the deletion: a new session of one answered prompt.
    const fresh = path.join(root, 'fresh')
    const chats = copyGemini(fresh, {kase: 'zero-length-then-fresh-start', step: '1-fresh-start'})
    const s = (await scan([chats], fresh)).get('session-2026-12-01T09-42-98b1c796.jsonl')!
    assert.equal(s.status, 'healthy')
    assert.deepEqual([s.contextTurns, s.transcriptTurns], [1, 1])
  } finally {
    cleanup(root)
  }
})

test('damage/delete-index: projects.json deleted changes no session verdict', async () => {
  const root = tempDir()
  try {
    const chats = copyGemini(root, {kase: 'delete-index', step: '0-damaged'})
    const r = await scan([chats], root)
    assert.deepEqual([...r.values()].map((c) => `${c.status} ${c.contextTurns}/${c.transcriptTurns}`).sort(), ['healthy 2/2', 'healthy 5/5'])
  } finally {
    cleanup(root)
  }
})

test('B49 resume in a later minute leaves an orphan with the same short id; the next start would delete the real session: repairable, the orphan set aside', async () => {
  const root = tempDir()
  try {
    // The binary's own files after `--resume <id>` in the next minute (damage/control-resume-next-minute/1-resume).
    const chats = copyGemini(root, {kase: 'control-resume-next-minute', step: '1-resume'})
    // As in the report: the real file has the older name and the newest mtime, the orphan the newer name.
    const t = Date.UTC(2026, 11, 1, 9, 43, 0)
    put(chats, ORPHAN_B, readFileSync(path.join(chats, ORPHAN_B)), t)
    put(chats, SESSION_B, readFileSync(path.join(chats, SESSION_B)), t + 60_000)
    const r = (await scan([chats], root)).get(SESSION_B)!
    assert.equal(r.status, 'repairable')
    assert.equal(r.id, ID_B)
    assert.equal(r.winner, SESSION_B)
    assert.deepEqual([r.contextTurns, r.transcriptTurns], [3, 3])
    const real = gen(r, SESSION_B)
    assert.equal(real.role, 'primary')
    assert.equal(real.class, 'intact')
    const orphan = gen(r, ORPHAN_B)
    assert.equal(orphan.role, 'sibling')
    assert.equal(orphan.class, 'contextless')
    assert.deepEqual(orphan.reasons, ['sibling-orphan'])
    assert.deepEqual(ids(r), ['error next-start-loss', 'info session-sibling'])
    const next = r.findings.find((f) => f.id === 'next-start-loss')!
    assert.equal(next.file, ORPHAN_B)
    assert.match(next.message, /by its short id 007b2c73, every session file of this session: session-2026-12-01T09-42-007b2c73\.jsonl with it/)
    // The orphan is no candidate: the CLI itself would not keep it.
    assert.deepEqual(r.ranking.map((e) => e.file), [SESSION_B])
    // A metadata-only orphan (one line, as older versions wrote it) is the same case.
    put(chats, ORPHAN_B, lines(readFileSync(path.join(chats, ORPHAN_B)))[0], t)
    const r2 = (await scan([chats], root)).get(SESSION_B)!
    assert.equal(r2.status, 'repairable')
    assert.deepEqual(gen(r2, ORPHAN_B).reasons, ['sibling-orphan'])
    // After the binary's next start (2-list-after) only the orphan is left: nothing tells it from a session
    // that never got a prompt.
    const after = path.join(root, 'after')
    const c2 = copyGemini(after, {kase: 'control-resume-next-minute', step: '2-list-after'})
    const lone = (await scan([c2], after)).get(ORPHAN_B)!
    assert.equal(lone.status, 'healthy')
    assert.deepEqual([lone.contextTurns, lone.transcriptTurns], [0, 0])
    assert.deepEqual(gen(lone, ORPHAN_B).reasons, ['fresh-chat'])
    assert.deepEqual(ids(lone), ['info next-start-loss'])
  } finally {
    cleanup(root)
  }
})

test('B03 empty and header-torn session files beside a valid one: the valid file intact and the only resume candidate; each empty one empty, each torn one truncated with no complete record', async () => {
  const root = tempDir()
  try {
    const chats = copyGemini(root)
    rmSync(path.join(chats, SESSION_A))
    const empties = ['0a1b2c3d', '1a1b2c3d', '2a1b2c3d', '3a1b2c3d', '4a1b2c3d'].map((id) => `session-2026-12-01T10-0${id[0]}-${id}.jsonl`)
    for (const n of empties) put(chats, n, Buffer.alloc(0))
    const meta = lines(realSession(SESSION_A))[0]
    const torn = ['session-2026-12-01T10-10-5a1b2c3d.jsonl', 'session-2026-12-01T10-11-6a1b2c3d.jsonl']
    put(chats, torn[0], meta.subarray(0, 113))
    put(chats, torn[1], meta.subarray(0, 200))
    // An orphan sub-agent folder whose parent session file is gone.
    mkdirSync(path.join(chats, '9f1b2c3d-0000-4000-8000-000000000000'))
    const r = await scan([chats], root)
    assert.equal(r.size, 1 + empties.length + torn.length)
    const valid = r.get(SESSION_B)!
    assert.equal(valid.status, 'healthy')
    assert.equal(gen(valid, SESSION_B).class, 'intact')
    for (const n of empties) {
      const c = r.get(n)!
      assert.equal(c.status, 'unrecoverable', n)
      assert.equal(gen(c, n).class, 'empty', n)
      assert.equal(c.winner, null, n)
    }
    for (const n of torn) {
      const c = r.get(n)!
      assert.equal(c.status, 'unrecoverable', n)
      const g = gen(c, n)
      assert.equal(g.class, 'truncated', n)
      assert.deepEqual(g.reasons, ['torn-tail'], n)
      assert.equal(g.lines!.records, 0, n)
    }
    // The orphan folder is reported (skipped, with why), never taken for a chat.
    const all = await scanPaths([chats], {home: root, env: {HOME: root}})
    assert.match(all.skipped.find((x) => x.path.endsWith('9f1b2c3d-0000-4000-8000-000000000000'))!.reason, /sub-agent folder .* whose session file is gone/)
    // Resume candidates: only the valid file is a winner anywhere.
    assert.deepEqual([...r.values()].filter((c) => c.winner !== null).map((c) => c.winner), [SESSION_B])
  } finally {
    cleanup(root)
  }
})

test('B50 a torn session the CLI would delete or garble: truncated, repaired in place (never deleted), the torn bytes kept as evidence', () => {
  const root = tempDir()
  try {
    const chats = copyGemini(root)
    const full = realSession(SESSION_A)
    const cut = full.subarray(0, Math.floor(full.length * 0.8))
    put(chats, SESSION_A, Buffer.from(cut))
    const env = {HOME: root, XDG_STATE_HOME: path.join(root, 'state')}
    const scanned = JSON.parse(runCli(['scan', '--json', chats], {env}).stdout) as {chats: ChatReport[]}
    const a = scanned.chats.find((c) => c.path.endsWith(SESSION_A))!
    assert.equal(a.status, 'repairable')
    assert.equal(gen(a, SESSION_A).class, 'truncated')
    const rep = runCli(['repair', '--json', chats], {env})
    const report = JSON.parse(rep.stdout) as {repairId: string; chats: Array<ChatReport & {repair: {outcome: string; evidence: string}}>}
    const ra = report.chats.find((c) => c.path.endsWith(SESSION_A))!
    assert.equal(ra.repair.outcome, 'repaired')
    // Whole original lines only: everything up to the last line end before the tear, less a resumed start left
    // unfinished there (its metadata line and context-only checkpoint, with the full checkpoint torn).
    const kept = lines(cut.subarray(0, cut.lastIndexOf(0x0a) + 1))
    const recs = kept.map((l) => JSON.parse(l.toString('utf8')) as {id?: string; $set?: {messages?: unknown[]}})
    let i = recs.length - 1
    while (i > 0 && recs[i].id === undefined && !Array.isArray(recs[i].$set?.messages)) i--
    const unfinished = Array.isArray(recs[i].$set?.messages) && recs[i].$set!.messages!.length === 1
    const expected = Buffer.concat(unfinished ? kept.slice(0, i - 1) : kept)
    assert.ok(unfinished, 'the 80% cut falls in the full checkpoint of a resumed start')
    assert.deepEqual(readFileSync(path.join(chats, SESSION_A)), expected)
    const evidence = ra.repair.evidence.replace(/^~/, root)
    assert.deepEqual(readFileSync(path.join(evidence, SESSION_A)), cut)
  } finally {
    cleanup(root)
  }
})

test('repair and undo: a torn tail, an interleaved line, an orphan sibling and a missing final line end, each fixed with whole original lines; dry run == executed; undo restores the exact tree', () => {
  const root = tempDir()
  try {
    const env = {HOME: path.join(root, 'home'), XDG_STATE_HOME: path.join(root, 'state')}
    const home = path.join(root, 'home')
    const chats = copyGemini(home)
    const B = realSession(SESSION_B)
    const torn = damageFile('truncate-mid-record', '0-damaged', SESSION_A)
    const glued = damageFile('truncate-mid-record', '1-list', SESSION_A)
    // Four sessions, one per damage: A torn, a copy of A with the glued summary, B with its orphan, a copy of B without its last line end.
    put(chats, SESSION_A, torn)
    const gluedName = 'session-2026-12-01T09-44-aaaa0001.jsonl'
    put(chats, gluedName, glued)
    const resumed = damageFile('control-resume-next-minute', '1-resume', SESSION_B)
    put(chats, SESSION_B, resumed)
    put(chats, ORPHAN_B, damageFile('control-resume-next-minute', '1-resume', ORPHAN_B))
    const noLf = 'session-2026-12-01T09-45-bbbb0002.jsonl'
    put(chats, noLf, B.subarray(0, B.length - 1))
    const before = hashTree(root)
    const run = (args: string[]) => {
      const r = runCli([...args, '--json'], {env})
      const j = JSON.parse(r.stdout) as {exitCode: number; repairId: string | null; chats: Array<ChatReport & {actions: Array<{type: string; from: string | null; to: string; sha256: string | null; changes?: Array<{kind: string}>}>; repair: {outcome: string; evidence: string | null; undo: string | null}}>}
      assert.equal(j.exitCode, r.status, r.stderr)
      return j
    }
    const dry = run(['repair', '--dry-run', chats])
    assert.deepEqual(hashTree(root), before, 'dry run wrote nothing')
    const rep = run(['repair', chats])
    assert.ok(rep.repairId)
    const key = (a: {type: string; from: string | null; to: string; sha256: string | null}) => JSON.stringify([a.type, a.from, a.to, a.sha256])
    const byName = (j: typeof rep) => Object.fromEntries(j.chats.map((c) => [path.basename(c.path), c]))
    for (const [n, c] of Object.entries(byName(rep))) assert.deepEqual(c.actions.map(key), byName(dry)[n].actions.map(key), `${n}: dry run == executed`)
    const kinds = (n: string) => byName(rep)[n].actions.flatMap((a) => (a.changes ?? []).map((c) => c.kind))
    assert.deepEqual(kinds(SESSION_A), ['drop-torn-tail'])
    assert.deepEqual(kinds(gluedName), ['split-line'])
    assert.deepEqual(kinds(noLf), ['add-newline'])
    assert.deepEqual(byName(rep)[SESSION_B].actions.map((a) => `${a.type} ${a.from}`), [`move ${ORPHAN_B}`, 'restore-mtime null'])
    // Exact bytes: whole original lines, in order.
    const LA = lines(torn)
    assert.deepEqual(readFileSync(path.join(chats, SESSION_A)), Buffer.concat(LA.slice(0, -1)))
    const LG = lines(glued)
    const summary = LG[56].subarray(LG[56].indexOf('{"$set":{"summary"'))
    assert.deepEqual(readFileSync(path.join(chats, gluedName)), Buffer.concat([...LG.slice(0, 56), summary]))
    assert.deepEqual(readFileSync(path.join(chats, noLf)), B)
    assert.deepEqual(readFileSync(path.join(chats, SESSION_B)), resumed)
    assert.throws(() => statSync(path.join(chats, ORPHAN_B)))
    // Mtimes of the rewritten logs and of the chats folder are put back.
    for (const n of [SESSION_A, gluedName, noLf]) assert.ok(Math.abs(statSync(path.join(chats, n)).mtimeMs - Number(before[path.relative(root, path.join(chats, n))].split(' ')[2])) < 1, n)
    // The evidence holds every replaced or moved file byte for byte.
    const ev = byName(rep)[SESSION_B].repair.evidence!.replace(/^~/, home)
    assert.deepEqual(readFileSync(path.join(ev, ORPHAN_B)), damageFile('control-resume-next-minute', '1-resume', ORPHAN_B))
    // A second scan: every session healthy now, the turns of each kept.
    const again = run(['scan', chats])
    assert.deepEqual(again.chats.map((c) => `${path.basename(c.path)} ${c.status} ${c.contextTurns}/${c.transcriptTurns}`).sort(), [`${SESSION_A} healthy 4/5`, `${SESSION_B} healthy 3/3`, `${gluedName} healthy 4/5`, `${noLf} healthy 2/2`].sort())
    assert.equal(again.exitCode, 0)
    const second = run(['repair', chats])
    assert.equal(second.repairId, null, 'a second repair writes nothing')
    // Undo restores the exact tree (chatdoctor's own folders aside).
    const u = runCli(['undo', rep.repairId!, '--json'], {env})
    assert.equal(u.status, 0, u.stderr + u.stdout)
    const strip = (t: Record<string, string>) => Object.fromEntries(Object.entries(t).filter(([k]) => !k.split(path.sep).includes('.chatdoctor') && !k.startsWith('state')))
    const now = strip(hashTree(root))
    const was = strip(before)
    assert.deepEqual(Object.keys(now).sort(), Object.keys(was).sort())
    for (const k of Object.keys(was)) if (!was[k].startsWith('dir')) assert.equal(now[k].split(' ').filter((_, i) => i !== 2).join(' '), was[k].split(' ').filter((_, i) => i !== 2).join(' '), k)
    assert.equal(sha256(readFileSync(path.join(chats, ORPHAN_B))), sha256(damageFile('control-resume-next-minute', '1-resume', ORPHAN_B)))
  } finally {
    cleanup(root)
  }
})

test('detection both ways: a Gemini CLI file is never reported as a Claude Code or Codex session, and their logs are never taken for Gemini CLI', async () => {
  const root = tempDir()
  try {
    const chats = copyGemini(root)
    // An empty and a torn Gemini CLI session (nothing to tell them by content) stay Gemini CLI's by name and place.
    put(chats, 'session-2026-12-01T10-00-cccc0003.jsonl', Buffer.alloc(0))
    put(chats, 'session-2026-12-01T10-01-dddd0004.jsonl', realSession(SESSION_B).subarray(0, 50))
    // A sub-agent session `chats/<parent id>/<id>.jsonl` is named like a Claude Code session, placed like Gemini CLI's.
    const sub = path.join(chats, ID_B)
    mkdirSync(sub)
    writeFileSync(path.join(sub, 'a1b2c3d4-0000-4000-8000-000000000001.jsonl'), realSession(SESSION_B))
    // A Gemini CLI log copied out under another name: offered to the Claude Code adapter, which says what it is.
    const elsewhere = path.join(root, 'copies')
    mkdirSync(elsewhere)
    writeFileSync(path.join(elsewhere, `${ID_A}.jsonl`), realSession(SESSION_A))
    // A Claude Code and a Codex log under Gemini CLI session names in the chats folder.
    put(chats, 'session-2026-12-01T10-02-eeee0005.jsonl', read(REAL_SESSIONS.claude.short))
    put(chats, 'session-2026-12-01T10-03-ffff0006.jsonl', read(REAL_SESSIONS.codex.kvsankar))
    const r = await scanPaths([path.join(root, '.gemini'), elsewhere], {home: root, env: {HOME: root}})
    const formats = new Map(r.chats.map((c) => [path.basename(c.report.path), c.report.format]))
    assert.equal(formats.get('session-2026-12-01T10-00-cccc0003.jsonl'), 'gemini-cli')
    assert.equal(formats.get('session-2026-12-01T10-01-dddd0004.jsonl'), 'gemini-cli')
    assert.equal(formats.get('a1b2c3d4-0000-4000-8000-000000000001.jsonl'), 'gemini-cli')
    assert.ok(r.chats.every((c) => c.report.format === 'gemini-cli'), JSON.stringify([...formats]))
    const skipped = new Map(r.skipped.map((s) => [path.basename(s.path), s.reason]))
    assert.match(skipped.get(`${ID_A}.jsonl`)!, /Gemini CLI session log/)
    assert.match(skipped.get('session-2026-12-01T10-02-eeee0005.jsonl')!, /Claude Code session records/)
    assert.match(skipped.get('session-2026-12-01T10-03-ffff0006.jsonl')!, /Codex session records/)
    // And a real Claude Code project folder is still Claude Code's.
    const proj = path.join(root, '.claude', 'projects', '-home-dev-demo-app')
    mkdirSync(proj, {recursive: true})
    writeFileSync(path.join(proj, path.basename(REAL_SESSIONS.claude.short)), read(REAL_SESSIONS.claude.short))
    const c = await scanPaths([], {home: root, env: {HOME: root}})
    assert.deepEqual(c.chats.filter((x) => x.report.format === 'claude-code').map((x) => path.basename(x.report.path)), [path.basename(REAL_SESSIONS.claude.short)])
  } finally {
    cleanup(root)
  }
})

test('the default human output says what the next start destroys and that the chat should be repaired first', () => {
  const root = tempDir()
  try {
    copyGemini(root, {kase: 'control-resume-next-minute', step: '1-resume'})
    const r = runCli(['scan'], {env: {HOME: root}})
    assert.equal(r.status, 2, r.stderr)
    assert.match(r.stdout, /error next-start-loss .*session-2026-12-01T09-43-007b2c73\.jsonl: Gemini CLI's next start/)
    assert.match(r.stdout, /Run chatdoctor repair on this chat/)
    const i = runCli(['inspect', path.join(root, CHATS, SESSION_B)], {env: {HOME: root}})
    assert.equal(i.status, 2, i.stderr)
    assert.match(i.stdout, /next-start-loss/)
  } finally {
    cleanup(root)
  }
})

test('a legacy .json session document beside its .jsonl migration is one chat; a torn one is said and never the winner', async () => {
  const root = tempDir()
  try {
    const chats = copyGemini(root)
    // The document the CLI wrote before 0.39: the metadata with a messages array (pretty JSON), as the records replay.
    const recs = lines(realSession(SESSION_B)).map((l) => JSON.parse(l.toString('utf8')) as Record<string, unknown>)
    const meta = recs[0]
    const messages = new Map<string, unknown>()
    for (const r of recs) if (typeof r.id === 'string') messages.set(r.id, r)
    const doc = Buffer.from(JSON.stringify({...meta, messages: [...messages.values()]}, null, 2))
    const legacy = SESSION_B.replace(/\.jsonl$/, '.json')
    put(chats, legacy, doc)
    let r = (await scan([chats], root)).get(SESSION_B)!
    assert.equal(r.status, 'healthy')
    assert.equal(gen(r, legacy).role, 'sibling')
    assert.equal(gen(r, legacy).class, 'intact')
    assert.equal(gen(r, legacy).turns, 2)
    put(chats, legacy, doc.subarray(0, 400))
    r = (await scan([chats], root)).get(SESSION_B)!
    assert.equal(gen(r, legacy).class, 'truncated')
    assert.equal(r.winner, SESSION_B)
    assert.ok(r.findings.some((f) => f.id === 'next-start-loss' && f.severity === 'error' && f.file === legacy))
    // Alone, a legacy document is its own primary.
    renameSync(path.join(chats, SESSION_B), path.join(root, 'away.jsonl'))
    put(chats, legacy, doc)
    const alone = (await scan([chats], root)).get(legacy)!
    assert.equal(alone.status, 'healthy')
    assert.equal(gen(alone, legacy).role, 'primary')
    assert.equal(alone.contextTurns, 2)
  } finally {
    cleanup(root)
  }
})

test('a running Gemini CLI in the chat\'s project is refused (its process is the only signal: it locks no session file); --force writes anyway', async () => {
  const root = tempDir()
  const project = path.join(root, 'demo-app')
  mkdirSync(project)
  const home = path.join(root, 'home')
  const chats = copyGemini(home, {kase: 'truncate-mid-record', step: '0-damaged'})
  writeFileSync(path.join(chats, '..', '.project_root'), project)
  // A stand-in for the CLI's own process: `node …/gemini.js`, working in the project.
  const bin = path.join(root, 'bundle')
  mkdirSync(bin)
  writeFileSync(path.join(bin, 'gemini.js'), 'setTimeout(() => {}, 120000)\n')
  const child = spawn(process.execPath, [path.join(bin, 'gemini.js')], {cwd: project, stdio: 'ignore'})
  try {
    await new Promise((resolve) => setTimeout(resolve, 300))
    const env = {HOME: home, XDG_STATE_HOME: path.join(root, 'state')}
    const before = hashTree(chats)
    const r = runCli(['repair', '--json', chats], {env})
    const report = JSON.parse(r.stdout) as {chats: Array<ChatReport & {repair: {outcome: string; message: string}}>}
    const a = report.chats.find((c) => c.path.endsWith(SESSION_A))!
    assert.equal(a.repair.outcome, 'refused')
    assert.match(a.repair.message, new RegExp(`Gemini CLI is running in this chat's project \\(pid ${child.pid} `))
    assert.deepEqual(hashTree(chats), before, 'nothing written')
    const forced = JSON.parse(runCli(['repair', '--json', '--force', chats], {env}).stdout) as typeof report
    assert.equal(forced.chats.find((c) => c.path.endsWith(SESSION_A))!.repair.outcome, 'repaired')
  } finally {
    child.kill()
    cleanup(root)
  }
  // Without the process the same repair goes through.
  const again = tempDir()
  try {
    const c2 = copyGemini(again, {kase: 'truncate-mid-record', step: '0-damaged'})
    const r = JSON.parse(runCli(['repair', '--json', c2], {env: {HOME: again, XDG_STATE_HOME: path.join(again, 'state')}}).stdout) as {chats: Array<ChatReport & {repair: {outcome: string}}>}
    assert.equal(r.chats.find((c) => c.path.endsWith(SESSION_A))!.repair.outcome, 'repaired')
  } finally {
    cleanup(again)
  }
})

/** Every string value of at least 8 characters in a session's records (prompts, answers, thoughts, tool output). */
function textsOf(buf: Buffer): string[] {
  const out = new Set<string>()
  const walk = (v: unknown, key: string | null) => {
    if (typeof v === 'string') {
      if (v.length >= 8 && !['id', 'sessionId', 'projectHash', 'timestamp', 'startTime', 'lastUpdated', 'model', 'name', 'status', 'kind', 'type', 'displayName', '$rewindTo'].includes(key ?? '')) out.add(v.replace(/^(<session_context>|\/|\?)/, '').slice(0, 40))
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, key))
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k)
  }
  for (const l of lines(buf)) {
    try {
      walk(JSON.parse(l.toString('utf8')), null)
    } catch {
      // a damaged line
    }
  }
  return [...out].filter((t) => t.trim().length >= 8)
}

test('$rewindTo and last-record-per-id: a rewind to the third prompt leaves two answered prompts; a re-appended record counts once', async () => {
  const root = tempDir()
  try {
    const chats = copyGemini(root)
    const A = realSession(SESSION_A)
    const recs = lines(A).map((l) => JSON.parse(l.toString('utf8')) as Record<string, unknown>)
    const prompts = recs.filter((r) => r.type === 'user' && Array.isArray(r.content) && typeof (r.content as Array<{text?: unknown}>)[0]?.text === 'string' && !String((r.content as Array<{text: string}>)[0].text).startsWith('<'))
    const third = prompts[2].id as string
    put(chats, SESSION_A, Buffer.concat([A, Buffer.from(JSON.stringify({$rewindTo: third}) + '\n')]))
    const r = (await scan([chats], root)).get(SESSION_A)!
    assert.equal(r.status, 'healthy')
    assert.deepEqual([r.contextTurns, r.transcriptTurns], [2, 2])
    // An unknown id drops every message (the loader clears its map): nothing is resumable, the session is empty by
    // the CLI's own rules (as after a rewind to its start), and its next start deletes the file; nothing else is lost.
    put(chats, SESSION_A, Buffer.concat([A, Buffer.from(JSON.stringify({$rewindTo: 'no-such-id'}) + '\n')]))
    const gone = (await scan([chats], root)).get(SESSION_A)!
    assert.deepEqual([gone.contextTurns, gone.transcriptTurns], [0, 0])
    assert.equal(gen(gone, SESSION_A).class, 'contextless')
    assert.deepEqual(ids(gone), ['info next-start-loss'])
    // Last record per id: the tool turn's model record is written twice (before and after the tool ran).
    const g = gen((await scan([copyGemini(path.join(root, 'b'))], path.join(root, 'b'))).get(SESSION_A)!, SESSION_A)
    const modelLines = recs.filter((x) => x.type === 'gemini').length
    assert.ok(g.measure!.assistantMessages! < modelLines, `${g.measure!.assistantMessages} < ${modelLines}`)
  } finally {
    cleanup(root)
  }
})

test('bundle --redact: none of the user\'s text is left, every file of the session kept (orphan, quarantine copy), and check gives the scan verdicts', () => {
  const root = tempDir()
  try {
    const chats = copyGemini(root, {kase: 'control-resume-next-minute', step: '1-resume'})
    put(chats, SESSION_A, damageFile('truncate-mid-record', '1-list', SESSION_A))
    // A quarantine copy the CLI would have left, and a command the loader must keep ignoring after redaction.
    put(chats, `${SESSION_A}.unreadable-1796118130000`, realSession(SESSION_A))
    const B = damageFile('control-resume-next-minute', '1-resume', SESSION_B)
    const cmd = {...(JSON.parse(lines(B)[2].toString('utf8')) as Record<string, unknown>), id: 'c0ffee00-0000-4000-8000-000000000001', content: [{text: '/stats model'}]}
    put(chats, SESSION_B, Buffer.concat([B, Buffer.from(JSON.stringify(cmd) + '\n')]))
    const env = {HOME: root}
    const scanned = JSON.parse(runCli(['scan', '--json', chats], {env}).stdout) as {chats: ChatReport[]}
    const out = path.join(root, 'out.tar.gz')
    const b = runCli(['bundle', '--redact', '-o', out, chats], {env})
    assert.equal(b.status, 0, b.stderr + b.stdout)
    const x = path.join(root, 'x')
    mkdirSync(x)
    assert.equal(spawnSyncTar(out, x), 0)
    const members = listFiles(x)
    for (const n of [SESSION_A, `${SESSION_A}.unreadable-1796118130000`, SESSION_B, ORPHAN_B]) assert.ok(members.some((m) => m.endsWith('/' + n)), `${n} is in the bundle`)
    const all = Buffer.concat(members.map((m) => readFileSync(m)))
    const texts = [...textsOf(realSession(SESSION_A)), ...textsOf(B)]
    assert.ok(texts.length > 30, `${texts.length} texts`)
    for (const t of texts) assert.equal(all.includes(Buffer.from(t)), false, `redacted: ${JSON.stringify(t)}`)
    const checked = JSON.parse(runCli(['check', '--json', out], {env}).stdout) as {chats: ChatReport[]}
    const verdict = (c: ChatReport) => JSON.stringify([c.format, c.id, c.status, c.winner, c.contextTurns, c.transcriptTurns, c.findings.map((f) => f.id).sort(), c.generations.map((g) => [g.file, g.role, g.class, g.reasons, g.turns])])
    assert.deepEqual(checked.chats.map(verdict).sort(), scanned.chats.map(verdict).sort())
    assert.ok(checked.chats.some((c) => c.status === 'repairable' && c.findings.some((f) => f.id === 'next-start-loss')))
  } finally {
    cleanup(root)
  }
})

function spawnSyncTar(archive: string, dest: string): number {
  return spawnSync('tar', ['xzf', archive, '-C', dest]).status ?? -1
}

function listFiles(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n)
      if (statSync(p).isDirectory()) walk(p)
      else out.push(p)
    }
  }
  walk(dir)
  return out
}

test('hostile inputs in a chats folder: a symbolic link, a FIFO, a name that is not UTF-8 and a file too large to read whole are said, never followed, read or written, and the rest is diagnosed', async () => {
  const root = tempDir()
  try {
    const chats = copyGemini(root)
    const outside = path.join(root, 'outside.jsonl')
    writeFileSync(outside, realSession(SESSION_B))
    symlinkSync(outside, path.join(chats, 'session-2026-12-01T11-00-11111111.jsonl'))
    spawnSync('mkfifo', [path.join(chats, 'session-2026-12-01T11-01-22222222.jsonl')])
    writeFileSync(Buffer.concat([Buffer.from(chats + '/session-2026-12-01T11-02-'), Buffer.from([0xff]), Buffer.from('3333333.jsonl')]), realSession(SESSION_B))
    // hashTree reads every non-folder (a FIFO would block it) by its name as a string (a non-UTF-8 name fails):
    // the names as bytes, and the bytes of each regular file, instead.
    const odd = Buffer.concat([Buffer.from(chats + '/session-2026-12-01T11-02-'), Buffer.from([0xff]), Buffer.from('3333333.jsonl')])
    const tree = () => {
      const names = readdirSync(chats, {encoding: 'buffer'}).map((b) => b.toString('latin1')).filter((n) => n !== '.chatdoctor').sort()
      const files = [path.join(chats, SESSION_A), path.join(chats, SESSION_B), outside].map((f) => `${f} ${sha256(readFileSync(f))} ${statSync(f).mtimeMs}`)
      return [...names, ...files, sha256(readFileSync(odd))]
    }
    const before = tree()
    const env = {HOME: root, XDG_STATE_HOME: path.join(root, 'state')}
    const r = await scanPaths([chats], {home: root, env: {HOME: root}})
    const by = new Map(r.chats.map((c) => [path.basename(c.report.path), c.report]))
    assert.equal(by.get(SESSION_A)!.status, 'healthy')
    assert.equal(by.get(SESSION_B)!.status, 'healthy')
    // A session file that is a link or a FIFO is never read: a chat left for a step by hand (the core's rule for
    // every format, as a Codebuff primary link), never skipped, never a lost one.
    for (const n of ['session-2026-12-01T11-00-11111111.jsonl', 'session-2026-12-01T11-01-22222222.jsonl']) {
      const c = by.get(n)
      assert.ok(c, `${n} listed: ${JSON.stringify(r.skipped)}`)
      assert.equal(c.status, 'repairable', n)
      assert.deepEqual(c.findings.map((f) => [f.id, f.severity]), [['not-a-regular-file', 'error']], n)
      assert.match(c.findings[0].message, /is (a symbolic link|not a regular file).*chatdoctor never replaces or writes through it/, n)
      assert.equal(r.skipped.some((x) => x.path.endsWith(n)), false, n)
    }
    // Repair writes nothing through the link, the FIFO or the odd name (and does not hang on the FIFO).
    const rep = runCli(['repair', '--json', chats], {env})
    assert.doesNotMatch(rep.stderr, /    at /)
    assert.deepEqual(tree(), before)
    // Above the streaming threshold a JSON-lines file is not read whole: said unreadable (exit bit 8), never called lost.
    rmSync(path.join(chats, 'session-2026-12-01T11-01-22222222.jsonl'))
    const big = runCli(['scan', '--json', chats], {env: {...env, CHATDOCTOR_STREAM_THRESHOLD: '10000'}})
    const report = JSON.parse(big.stdout) as {chats: ChatReport[]; exitCode: number}
    const a = report.chats.find((c) => c.path.endsWith(SESSION_A))!
    assert.deepEqual(gen(a, SESSION_A).reasons, ['unreadable'])
    assert.ok(a.findings.some((f) => f.id === 'unreadable' && /too large to read whole/.test(f.message)))
    assert.equal(a.findings.some((f) => f.id === 'context-lost'), false)
    assert.equal(report.chats.find((c) => c.path.endsWith(SESSION_B))!.status, 'healthy')
  } finally {
    cleanup(root)
  }
})

test("the CLI's .unreadable-<ms> copy that holds more answered prompts than the session file it rewrote wins; repair writes its bytes over the session file, undo puts the rewritten file back", () => {
  const root = tempDir()
  try {
    const env = {HOME: root, XDG_STATE_HOME: path.join(root, 'state')}
    const chats = copyGemini(root)
    const A = realSession(SESSION_A)
    // The CLI's rewrite from memory after a failed reload: here, the session as it stood two turns earlier.
    const L = lines(A)
    const short = Buffer.concat(L.slice(0, 40))
    const copy = `${SESSION_A}.unreadable-1796118130000`
    put(chats, SESSION_A, short)
    put(chats, copy, A)
    put(chats, `${SESSION_A}.tmp-4242`, A.subarray(0, 5000))
    const s = JSON.parse(runCli(['scan', '--json', chats], {env}).stdout) as {chats: ChatReport[]}
    const a = s.chats.find((c) => c.path.endsWith(SESSION_A))!
    assert.equal(a.status, 'repairable')
    assert.equal(a.winner, copy)
    assert.equal(gen(a, copy).role, 'backup')
    assert.equal(gen(a, `${SESSION_A}.tmp-4242`).role, 'temp')
    assert.equal(gen(a, `${SESSION_A}.tmp-4242`).class, 'truncated')
    assert.deepEqual([a.contextTurns, a.transcriptTurns], [5, 5])
    // Cut after a resumed start's context-only checkpoint, the session file itself replays as empty: the next start deletes it.
    assert.deepEqual(ids(a), ['error next-start-loss', 'error primary-behind', 'error session-truncated', 'info quarantined-copy', 'warning temp-damaged'])
    const before = hashTree(chats)
    const rep = JSON.parse(runCli(['repair', '--json', chats], {env}).stdout) as {repairId: string; chats: Array<ChatReport & {actions: Array<{type: string; from: string | null; to: string}>}>}
    const ra = rep.chats.find((c) => c.path.endsWith(SESSION_A))!
    assert.deepEqual(ra.actions.map((x) => `${x.type} ${x.from} → ${x.to}`), [`preserve ${SESSION_A} → ${SESSION_A}`, `rewrite ${copy} → ${SESSION_A}`, 'restore-mtime null → .'])
    assert.deepEqual(readFileSync(path.join(chats, SESSION_A)), A)
    const u = runCli(['undo', rep.repairId, '--json'], {env})
    assert.equal(u.status, 0, u.stdout + u.stderr)
    const now = hashTree(chats)
    const noMtime = (v: string) => v.split(' ').filter((_, i) => i !== 2).join(' ')
    for (const k of Object.keys(before)) {
      if (k.startsWith('.chatdoctor') || before[k].startsWith('dir')) continue
      assert.equal(noMtime(now[k]), noMtime(before[k]), k)
      assert.ok(Math.abs(Number(now[k].split(' ')[2]) - Number(before[k].split(' ')[2])) < 1, `${k} mtime`)
    }
  } finally {
    cleanup(root)
  }
})

test('a crash between the two checkpoints of a resumed start: the file replays as empty and the next start would delete it; repair drops the unfinished start (whole lines) and the session is back', async () => {
  const root = tempDir()
  try {
    const chats = copyGemini(root)
    const L = lines(realSession(SESSION_A))
    // Session A's second resumed start: its metadata line and context-only checkpoint are lines 38 and 39 (1-based).
    const recs = L.map((l) => JSON.parse(l.toString('utf8')) as Record<string, unknown>)
    const meta = recs.findIndex((r, i) => i > 30 && typeof r.projectHash === 'string')
    assert.ok(meta > 0 && Array.isArray((recs[meta + 1].$set as {messages?: unknown}).messages))
    for (const upTo of [meta + 2, meta + 3]) {
      put(chats, SESSION_A, Buffer.concat(L.slice(0, upTo)))
      const r = (await scan([chats], root)).get(SESSION_A)!
      assert.equal(r.status, 'repairable', `${upTo} lines`)
      assert.equal(gen(r, SESSION_A).class, 'contextless')
      assert.deepEqual(gen(r, SESSION_A).reasons, [])
      assert.deepEqual([r.contextTurns, r.transcriptTurns], [3, 3])
      const f = r.findings.find((x) => x.id === 'next-start-loss')!
      assert.equal(f.severity, 'error')
      assert.match(f.message, /never wrote its full checkpoint.*chatdoctor repair makes it a session file the CLI keeps \(drop-trailing ×\d\)/)
    }
    const env = {HOME: root, XDG_STATE_HOME: path.join(root, 'state')}
    runCli(['repair', chats], {env})
    assert.deepEqual(readFileSync(path.join(chats, SESSION_A)), Buffer.concat(L.slice(0, meta)))
    const after = (await scan([chats], root)).get(SESSION_A)!
    assert.equal(after.status, 'healthy')
    assert.deepEqual([after.contextTurns, after.transcriptTurns], [3, 3])
  } finally {
    cleanup(root)
  }
})
