/**
 * Every report of the bug log a named test: each entry of `test/bug-log/<agent>.ts` builds its damage from
 * copies of real agent files, runs the BUILT CLI as a user would (`scan --json`, the human `inspect`,
 * `bundle --redact`, then `repair -y --json` and a second `scan --json` where a repair applies; the inspection
 * `inspect --json` prints and the plan `repair --dry-run --json` prints are made in this process by the same
 * functions) and asserts the exact verdict: class and reasons of each file, chat status, winner, turns N
 * of M, exit codes, and what the repair wrote; the redacted bundle must diagnose the same. `docs/bug-log-verdicts.md` is generated from the same entries and must be in step.
 */
import assert from 'node:assert/strict'
import {existsSync, lstatSync, readFileSync, readdirSync, realpathSync} from 'node:fs'
import path from 'node:path'
import {after, describe, test} from 'node:test'
import {BUG_LOG_PARTS} from './bug-log/index.js'
import {bugLogVerdictsMarkdown, entryTestName} from './bug-log/render.js'
import {BUG_LOG_REPORTS} from './bug-log/reports.js'
import {fileVerdictOf, type BugLogEntry, type ChatVerdict} from './bug-log/types.js'
import {runCliAsync} from './helpers/cli-async.js'
import {REPO_ROOT, cleanup, hashTree, inheritedEnv, sha256, tempDir} from './helpers/fixtures.js'
import {VERSION} from '../src/api/index.js'
import {inspectTarget} from '../src/lib/pipeline/inspect-target.js'
import {dryRunReport, planTarget} from '../src/lib/pipeline/repair-target.js'

interface ReportChat {
  path: string
  id: string
  status: string
  winner: string | null
  transcriptTurns: number | null
  contextTurns: number | null
  findings: Array<{id: string; severity: string; file: string | null; message: string}>
  generations: Array<{file: string; role: string; class: string | null; reasons: string[]; salvage?: {lossless: boolean; messages: number; turns: number | null; candidate: boolean}}>
  transcriptRestore?: {from: string}
  amnesia?: {patterns: string[]}
  unmeasured?: {what: string; reason: string}
  actions?: Array<{type: string; from: string | null; to: string; sha256: string | null; evidence: string | null}>
  repair?: {outcome: string}
}
interface Report {
  exitCode: number
  chats: ReportChat[]
  skipped: Array<{path: string; reason: string}>
}

const roots: string[] = []
after(() => roots.forEach(cleanup))

/** The files directly in a chat dir (not chatdoctor's own), with their bytes. */
function filesOf(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.chatdoctor')) continue
    const p = path.join(dir, name)
    if (lstatSync(p).isFile()) out.set(name, readFileSync(p))
  }
  return out
}

/** The part of a chat's report a `ChatVerdict` pins down exactly. */
function verdictOf(c: ReportChat): Pick<ChatVerdict, 'status' | 'winner' | 'turns' | 'files'> {
  const files: Record<string, string> = {}
  for (const g of c.generations) if (!g.file.includes('#')) files[g.file] = fileVerdictOf(g)
  return {status: c.status as ChatVerdict['status'], winner: c.winner, turns: [c.contextTurns, c.transcriptTurns], files}
}

async function json(args: string[], env: NodeJS.ProcessEnv): Promise<{status: number; report: Report}> {
  const r = await runCliAsync(args, {env})
  let report: Report
  try {
    report = JSON.parse(r.stdout) as Report
  } catch {
    throw new Error(`${args.join(' ')}: no JSON on stdout (exit ${r.status}): ${r.stderr}`)
  }
  assert.equal(r.status, report.exitCode, `${args[0]}: the exit status is the report's exitCode`)
  return {status: r.status, report}
}

async function runEntry(e: BugLogEntry): Promise<void> {
  const root = realpathSync(tempDir(`chatdoctor-${e.id}-`))
  roots.push(root)
  const target = e.build(root)
  const env = {...e.env, HOME: root}
  const untouched = hashTree(root)
  const isIndex = (c: ReportChat) => c.generations.length > 0 && c.generations.every((g) => g.role === 'index')
  const chatDirOf = (c: ReportChat) => c.path.replace(/^~/, root)
  // A chat is a folder (Codebuff) or a file of one (a session log, an OpenCode session file), or a file that is
  // gone (a store's missing database): the files its repair writes are that folder's.
  const writeDirOf = (c: ReportChat) => {
    const p = chatDirOf(c)
    return existsSync(p) && lstatSync(p).isDirectory() ? p : path.dirname(p)
  }

  // scan --json: the exact verdict of every chat.
  const {report} = await json(['scan', '--json', target], env)
  assert.deepEqual(hashTree(root), untouched, 'scan changed the tree')
  assert.equal(report.exitCode, e.expect.exitCode, 'scan exit code')
  assert.deepEqual(report.chats.map((c) => c.id).sort(), e.expect.chats.map((c) => c.chat).sort(), 'the chats found')
  assert.deepEqual(report.skipped.map((s) => path.basename(s.path)).sort(), [...(e.expect.skipped ?? [])].sort(), 'the dirs skipped')
  for (const want of e.expect.chats) {
    const c = report.chats.find((x) => x.id === want.chat)!
    assert.deepEqual(verdictOf(c), {status: want.status, winner: want.winner, turns: want.turns, files: want.files}, `verdict of ${want.chat}`)
    const ids = c.findings.map((f) => f.id)
    if (want.embeddedCopies !== undefined) {
      // A plain scan may leave the copies out when none can change the verdict (it says so); --verbose measures them.
      const full = c.unmeasured ? (await json(['scan', '--verbose', '--json', target], env)).report.chats.find((x) => x.id === want.chat)! : c
      assert.deepEqual(verdictOf(full), verdictOf(c), 'the same verdict with every copy measured')
      assert.equal(full.generations.filter((g) => g.file.includes('#')).length, want.embeddedCopies, 'embedded copies')
    }
    for (const id of want.findings ?? []) assert.ok(ids.includes(id), `finding ${id} in ${ids.join(', ')}`)
    for (const id of want.absent ?? []) assert.ok(!ids.includes(id), `no finding ${id}`)
    for (const [id, re] of Object.entries(want.said ?? {})) {
      const said = c.findings.filter((f) => f.id === id).map((f) => `${f.file ?? '-'}: ${f.message}`)
      assert.ok(said.some((t) => re.test(t)), `finding ${id} says ${re}: ${said.join(' | ')}`)
    }
    for (const [file, s] of Object.entries(want.salvage ?? {})) {
      const got = c.generations.find((g) => g.file === file)?.salvage
      assert.ok(got, `a salvage of ${file}`)
      assert.equal(got.lossless, s.lossless, `${file}: lossless`)
      if (s.messages !== undefined) assert.equal(got.messages, s.messages, `${file}: messages kept`)
      if (s.turns !== undefined) assert.equal(got.turns, s.turns, `${file}: salvage turns`)
      if (s.candidate !== undefined) assert.equal(got.candidate, s.candidate, `${file}: candidate`)
    }
    if (want.transcriptRestore !== undefined) assert.equal(c.transcriptRestore?.from ?? null, want.transcriptRestore, 'transcript restore')
    if (want.amnesia !== undefined) assert.deepEqual(c.amnesia?.patterns ?? [], want.amnesia, 'amnesia patterns')

    // inspect --json: the same verdict, and the account states the facts (an agent's index is not inspected).
    // A chat is inspected by its path; a chat named by a file that is gone (a store's missing database) in its
    // folder, by its id; a chat of a store the path does not name (an OpenCode data dir) by the PATH and its id.
    // The inspection is made in this process by the function `inspect --json` prints (`inspectTarget`); the
    // human inspect below, and the scans and repairs, run the built CLI.
    if (isIndex(c)) continue
    let where: {dir: string; session?: string} = existsSync(chatDirOf(c)) ? {dir: chatDirOf(c)} : {dir: path.dirname(chatDirOf(c)), session: c.id}
    let ins = await inspectTarget(where.dir, where.session, {home: root, env: {...inheritedEnv(), HOME: root}, version: VERSION})
    if ('usage' in ins || ins.inspection === null) {
      where = {dir: target, session: c.id}
      ins = await inspectTarget(where.dir, where.session, {home: root, env: {...inheritedEnv(), HOME: root}, version: VERSION})
    }
    const insArgs = where.session === undefined ? [where.dir] : [where.dir, '--session', where.session]
    const x = 'usage' in ins ? null : ins.inspection
    assert.ok(x, `inspect ${insArgs.join(' ')}: ${'usage' in ins ? ins.usage : 'no inspection'}`)
    assert.equal(x.status, want.status, 'inspect status')
    assert.equal(x.winner, want.winner, 'inspect winner')
    for (const re of want.account ?? []) assert.match(x.account, re)
    assert.doesNotMatch(x.account, /\bturn 0\b/, 'the account never names turn 0')

    // What the human outputs must say without --verbose.
    const degraded = c.findings.filter((f) => (f.id === 'context-amnesia' || f.id === 'compaction-wipe') && c.status === 'degraded')
    const more = ids.includes('salvage-more-turns')
    const damaged = Object.values(want.files).some((v) => !/^(intact|other|missing)$/.test(v))
    // The human inspect through the built CLI, for every chat inspected: its exit status is the inspection's report's.
    const human = await runCliAsync(['inspect', ...insArgs], {env})
    assert.equal(human.status, 'usage' in ins ? -1 : ins.report.exitCode, `inspect ${insArgs.join(' ')}: the exit status of the inspection's report`)
    assert.ok(human.stdout.length > 0, 'inspect printed the inspection')
    if (damaged || more) assert.doesNotMatch(human.stdout, /from byte (\d+) of \1 \(0 bytes\)/, 'inspect never says "from byte X of X (0 bytes)"')
    if (degraded.length > 0 || more) {
      const scanned = await runCliAsync(['scan', chatDirOf(c)], {env})
      for (const f of degraded) assert.ok(scanned.stdout.includes(f.message), `the default scan output says: ${f.message}`)
      if (more) {
        const cmd = `chatdoctor repair --salvage ${c.path}`
        assert.ok(scanned.stdout.includes(cmd), 'the default scan output gives the repair --salvage command')
        assert.ok(human.stdout.includes(cmd), 'inspect gives the repair --salvage command')
        const dry = await runCliAsync(['repair', '--dry-run', chatDirOf(c)], {env})
        assert.ok(dry.stdout.includes(cmd), 'repair --dry-run gives the repair --salvage command')
      }
    }
    if (want.humanSays) {
      const outputs = {scan: await runCliAsync(['scan', chatDirOf(c)], {env}), inspect: human ?? (await runCliAsync(['inspect', ...insArgs], {env})), 'repair --dry-run': await runCliAsync(['repair', '--dry-run', chatDirOf(c)], {env})}
      for (const [cmd, r] of Object.entries(outputs)) for (const re of want.humanSays) assert.match(r.stdout, re, `${cmd} says it`)
    }
  }
  assert.deepEqual(hashTree(root), untouched, 'inspect changed the tree')

  // bundle --redact: the redacted chats diagnose the same (bundle checks it and refuses otherwise). An entry
  // whose store cannot be redacted (a damaged database) names the refusal; it is bundled as it is.
  const out = tempDir(`chatdoctor-${e.id}-bundle-`)
  roots.push(out)
  // An agent's index is not bundled: a tree holding nothing else has nothing to bundle, and says so.
  const refused = e.expect.redactRefused
  const b = await runCliAsync(['bundle', '--redact', target, '-o', path.join(out, 'redacted.tar.gz')], {env})
  if (e.expect.nothingToBundle || report.chats.every(isIndex)) {
    assert.equal(b.status, 8, 'nothing to bundle')
    assert.match(b.stdout + b.stderr, /nothing bundled/)
    assert.ok(!existsSync(path.join(out, 'redacted.tar.gz')), 'an empty bundle is not written')
  } else if (refused) {
    assert.equal(b.status, 8, 'bundle --redact refuses the store')
    assert.match(b.stderr, refused, 'bundle --redact says why')
    assert.ok(!existsSync(path.join(out, 'redacted.tar.gz')), 'a refused bundle writes nothing')
    const plain = await runCliAsync(['bundle', target, '-o', path.join(out, 'plain.tar.gz')], {env})
    assert.equal(plain.status, 0, `plain bundle takes the store: ${plain.stderr}`)
  } else assert.equal(b.status, 0, `bundle --redact: ${b.stderr}`)
  assert.deepEqual(hashTree(root), untouched, 'bundle changed the chats')

  // repair --dry-run --json: the plan, nothing written. Made in this process by the functions the command
  // prints it with (`planTarget`, `dryRunReport`), as JSON; `repair -y --json` below runs the built CLI.
  const target0 = await planTarget([target], {home: root, env: {...inheritedEnv(), HOME: root}})
  if (!('result' in target0)) assert.fail(`repair --dry-run ${target}: ${JSON.stringify(target0)}`)
  const dry = {report: JSON.parse(JSON.stringify(dryRunReport(target0, {version: VERSION, home: root}))) as Report}
  assert.deepEqual(hashTree(root), untouched, 'a dry run changed the tree')
  const planned = (id: string) => dry.report.chats.find((c) => c.id === id)!
  const rv = e.expect.repair
  if (rv === null) {
    for (const c of dry.report.chats) assert.deepEqual(c.actions ?? [], [], `${c.id}: no action planned`)
    return
  }
  const pc = planned(rv.chat)
  if (rv.outcome !== 'repaired') {
    // A repair that writes nothing on purpose (left for a person, left untouched): its outcome, no action, nothing written.
    assert.equal(pc.repair?.outcome, rv.outcome, 'dry-run outcome')
    assert.deepEqual(pc.actions ?? [], [], 'no action planned')
    const rep = await json(['repair', '-y', '--json', target], env)
    assert.equal(rep.report.exitCode, rv.exitCode, 'repair exit code')
    assert.equal(rep.report.chats.find((c) => c.id === rv.chat)?.repair?.outcome, rv.outcome, 'repair outcome')
    assert.deepEqual(hashTree(root), untouched, 'the repair wrote nothing')
    return
  }
  assert.equal(pc.repair?.outcome, 'planned', 'dry-run outcome')
  // A restore writes a generation's bytes; a rewrite a session log's (repaired, or a copy's as they are).
  const writes = (a: {type: string}) => a.type === 'restore' || a.type === 'rewrite'
  const restores = (c: ReportChat) => (c.actions ?? []).filter(writes).map((a) => ({to: a.to, from: a.from}))

  // A session brought back through its index's repair plans nothing itself: the index chat carries the writes.
  const carrierOf = (r: Report, c: ReportChat) => ((c.actions ?? []).length > 0 ? c : r.chats.find((x) => isIndex(x) && (x.actions ?? []).length > 0) ?? c)
  const pw = carrierOf(dry.report, pc)
  assert.deepEqual(restores(pw), rv.restores.map((r) => ({to: r.to, from: r.from})), 'planned restores')

  // repair -y --json: exactly the plan, the exact bytes, evidence kept, nothing else touched.
  const dir = writeDirOf(pw)
  const before = filesOf(dir)
  const read = (name: string) => {
    const b = before.get(name)
    assert.ok(b, `${name} existed before the repair`)
    return b
  }
  const rep = await json(['repair', '-y', '--json', target], env)
  assert.equal(rep.report.exitCode, rv.exitCode, 'repair exit code')
  const rc = rep.report.chats.find((c) => c.id === rv.chat)!
  assert.equal(rc.repair?.outcome, rv.outcome, 'repair outcome')
  const key = (c: ReportChat) => (c.actions ?? []).map((a) => ({type: a.type, from: a.from, to: a.to, sha256: a.sha256}))
  assert.deepEqual(key(rc), key(pc), 'repair executes exactly the dry-run plan')
  const rw = carrierOf(rep.report, rc)
  assert.deepEqual(key(rw), key(pw), "the index's repair executes exactly its dry-run plan")
  const now = filesOf(dir)
  for (const r of rv.restores) {
    const written = now.get(r.to)!
    const action = rw.actions!.find((a) => writes(a) && a.to === r.to)!
    assert.equal(sha256(written), action.sha256, `${r.to}: the bytes the plan named`)
    if (r.bytes) assert.equal(Buffer.compare(written, r.bytes(read)), 0, `${r.to}: the exact bytes of ${r.from}`)
  }
  for (const a of rw.actions ?? []) {
    if (a.type !== 'preserve' && a.type !== 'move') continue
    const kept = path.join(a.evidence!.replace(/^~/, root))
    assert.ok(existsSync(kept), `evidence ${kept}`)
    const name = path.basename(a.from!)
    if (a.type === 'move') assert.ok(!existsSync(path.join(dir, name)), `${a.from} moved away`)
    const want = a.sha256 ?? sha256(read(name))
    assert.equal(sha256(readFileSync(kept)), want, `evidence of ${a.from} byte for byte`)
    // A file moved from elsewhere in the store (an OpenCode part's folder) is checked by the sha256 the plan named.
    if (a.type === 'preserve' || before.has(name)) assert.equal(sha256(read(name)), want, `the evidence is what ${a.from} held`)
  }
  // A file the repair moves into the evidence folder (an OpenCode session file, a store set aside before the
  // agent's next start) is gone from the dir, and its evidence holds it byte for byte (checked above).
  const targets = new Set([...rv.restores.map((r) => r.to), ...(rw.actions ?? []).filter((a) => a.type === 'move' && a.from !== null).map((a) => path.basename(a.from!))])
  for (const [name, bytes] of before) if (!targets.has(name)) assert.equal(Buffer.compare(now.get(name) ?? Buffer.alloc(0), bytes), 0, `${name} untouched by the repair`)

  // The scan after the repair.
  const again = await json(['scan', '--json', target], env)
  // A healthy index with nothing left to say is not in the scan's report.
  const ac = again.report.chats.find((c) => c.id === rv.chat) ?? (isIndex(pc) ? {status: 'healthy', winner: null, contextTurns: null, transcriptTurns: null} : undefined)!
  assert.deepEqual({status: ac.status, winner: ac.winner, turns: [ac.contextTurns, ac.transcriptTurns]}, {status: rv.after.status, winner: rv.after.winner, turns: rv.after.turns}, 'verdict after the repair')
  assert.equal(again.report.exitCode, rv.after.exitCode, 'exit code after the repair')
}

describe('bug log: every report a named test', {concurrency: 3}, () => {
  for (const part of BUG_LOG_PARTS) for (const e of part.entries) test(entryTestName(e), () => runEntry(e))

  test('test names are unique and every entry names a report of the bug log', () => {
    const names = BUG_LOG_PARTS.flatMap((p) => p.entries.map(entryTestName))
    assert.equal(new Set(names).size, names.length)
    const known = new Set(BUG_LOG_REPORTS.map((r) => r.id))
    for (const p of BUG_LOG_PARTS) for (const id of [...p.entries.map((e) => e.id), ...p.noEntry.map((n) => n.id)]) assert.ok(known.has(id), `${p.agent}: ${id}`)
  })

  test('a complete part accounts for every report: an entry, or a sentence saying why not', () => {
    for (const p of BUG_LOG_PARTS) {
      const covered = new Set([...p.entries.map((e) => e.id), ...p.noEntry.map((n) => n.id)])
      const withEntry = new Set(p.entries.map((e) => e.id))
      for (const n of p.noEntry) assert.ok(!withEntry.has(n.id), `${p.agent}: ${n.id} has an entry and a reason`)
      if (p.complete) assert.deepEqual(BUG_LOG_REPORTS.map((r) => r.id).filter((id) => !covered.has(id)), [], `${p.agent}: reports with neither`)
    }
  })

  test('docs/bug-log-verdicts.md is generated from the entries (run `npm run verdicts`)', () => {
    const committed = readFileSync(path.join(REPO_ROOT, 'docs', 'bug-log-verdicts.md'), 'utf8')
    assert.equal(committed, bugLogVerdictsMarkdown(BUG_LOG_PARTS))
  })
})
