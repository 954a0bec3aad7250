/**
 * The bounded-memory paths of a large session log, by the path they take (never by time or memory): `undo` of a
 * repair streams the evidence copy back (read, hashed and written a chunk at a time) instead of reading it
 * whole once the copy is over its threshold (lowered here so a small real log takes that path), and a
 * streamed repair plan derives the classification of its result from the log's instead of reading and
 * classifying the result again, with the same result as that second classification.
 */
import assert from 'node:assert/strict'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {bufferSource, classifyJsonlSource, piecesSource, type ByteSource, type JsonlClassification} from '../src/lib/classify/jsonl.js'
import {claudeDialect} from '../src/lib/formats/claude-code/session.js'
import {codexDialect} from '../src/lib/formats/codex/session.js'
import {planJsonlRepair} from '../src/lib/formats/jsonl/repair.js'
import {familyKeeper, keepForFamily, streamedPlanOf} from '../src/lib/formats/jsonl/session.js'
import {RecordingFileSystem, nodeFileSystem} from '../src/lib/fsio/fs.js'
import {applyChat} from '../src/lib/pipeline/apply.js'
import {planChat} from '../src/lib/pipeline/plan.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {undoRepair} from '../src/lib/pipeline/undo.js'
import {cleanup, cutAt, nulRunAt, sha256, tempDir, withBom} from './helpers/fixtures.js'
import {REAL_SESSIONS, allRealSessionLogs, linesOf} from './helpers/sessions.js'

/**
 * A Claude Code project folder under a fresh temp root holding the real short session with its last record cut
 * at its middle, scanned with every log streamed.
 */
async function tornRealLog(t: {after: (f: () => void) => void}, prefix: string) {
  const root = tempDir(prefix)
  t.after(() => cleanup(root))
  const dir = path.join(root, '.claude', 'projects', '-home-dev-app')
  mkdirSync(dir, {recursive: true})
  const real = readFileSync(REAL_SESSIONS.claude.short)
  const L = linesOf(real)
  const torn = cutAt(real, real.length - Math.floor(L[L.length - 1].length / 2))
  const file = path.join(dir, 'marot-spotter__short.jsonl')
  writeFileSync(file, torn)
  const scanned = await scanPaths([root], {home: root, env: {CHATDOCTOR_LOG_STREAM_THRESHOLD: '1'}, keepData: true})
  return {root, dir, L, torn, file, scanned}
}

test('undo of a streamed log repair copies the evidence back in chunks, never reading it whole, and restores its exact bytes', async (t) => {
  const {root, dir, torn, file, scanned} = await tornRealLog(t, 'logmem-undo')
  assert.equal(scanned.chats.length, 1)
  assert.equal(scanned.chats[0].report.status, 'repairable')
  const repairId = '20260605T120000Z-0d0e0f'
  const stateDir = path.join(root, 'state')
  const out = await applyChat(planChat(scanned.chats[0]), {fs: nodeFileSystem(), repairId, version: 'test', stateDir, force: false})
  assert.equal(out.outcome, 'repaired', out.message ?? '')
  assert.notDeepEqual(readFileSync(file), torn)

  const fs = new RecordingFileSystem(nodeFileSystem())
  const u = await undoRepair(repairId, {fs, stateDir, version: 'test', force: false, chunkedBytes: 1024})
  assert.deepEqual(u.files.map((f) => [path.basename(f.file), f.outcome]), [['marot-spotter__short.jsonl', 'restored']])
  assert.ok(readFileSync(file).equals(torn), 'the torn log is back byte for byte')
  assert.ok(torn.length > 1024, `the log (${torn.length} bytes) is over the lowered threshold`)
  const evidence = path.join(dir, '.chatdoctor', repairId)
  const readWhole = fs.trace.filter((e) => e.op === 'readFile' && String(e.args[0]).startsWith(evidence) && !String(e.args[0]).endsWith('manifest.json'))
  assert.deepEqual(readWhole.map((e) => e.args[0]), [], 'no evidence copy is read whole')
  // The streamed path writes the copy through chatdoctor's own temp beside the log and renames it over the log.
  const renamed = fs.trace.filter((e) => e.op === 'rename' && e.args[1] === file)
  assert.equal(renamed.length, 1)
  assert.match(path.basename(String(renamed[0].args[0])), /^\.chatdoctor-undo-.*\.tmp$/)
})

/** Damaged copies of a log whose repair changes lines (each built from the real bytes by code). */
function damagedCopies(buf: Buffer): Record<string, Buffer> {
  const L = linesOf(buf)
  const k = Math.floor(L.length / 2)
  const startOf = (i: number) => L.slice(0, i).reduce((n, l) => n + l.length, 0)
  const at = startOf(k)
  const half = (l: Buffer) => l.subarray(0, Math.floor(l.length / 2))
  const out: Record<string, Buffer> = {
    'torn-tail': cutAt(buf, startOf(L.length - 1) + Math.floor(L[L.length - 1].length / 2)),
    'torn-interior': Buffer.concat([...L.slice(0, k), half(L[k]), Buffer.from('\n'), ...L.slice(k + 1)]),
    'torn-interior-first': Buffer.concat([L[0], half(L[1] ?? L[0]), Buffer.from('\n'), ...L.slice(2)]),
    'nul-run': nulRunAt(buf, at + Math.floor(L[k].length / 3), Math.min(40, Math.floor(L[k].length / 3))),
    interleaved: Buffer.concat([...L.slice(0, k), half(L[k]), ...L.slice(k + 1)]),
    'bom-inside': Buffer.concat([...L.slice(0, k), withBom(L[k]), ...L.slice(k + 1)]),
    bom: withBom(buf),
    'no-final-newline-torn': Buffer.concat([...L.slice(0, k), half(L[k]), Buffer.from('\n'), ...L.slice(k + 1)]).subarray(0, buf.length - 1 - (L[k].length - Math.floor(L[k].length / 2)) + 1),
    crlf: Buffer.from(cutAt(buf, startOf(L.length - 1) + Math.floor(L[L.length - 1].length / 2)).toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1'),
  }
  const ts = L[k].indexOf('"timestamp":"')
  if (ts >= 0) {
    const inside = at + ts + '"timestamp":"'.length + 4
    out['split-record'] = Buffer.concat([buf.subarray(0, inside), Buffer.from('\n'), buf.subarray(inside)])
    out['lone-surrogate-torn'] = Buffer.concat([buf.subarray(0, inside - 4), Buffer.from('\\ud83c'), buf.subarray(inside - 4, startOf(L.length - 1) + Math.floor(L[L.length - 1].length / 2))])
  }
  // A paginated rollout whose last record lost its ordinal: the repair amends it.
  const ord = L[L.length - 1].indexOf(',"ordinal":')
  if (ord >= 0) {
    const last = L[L.length - 1].toString('latin1').replace(/,"ordinal":\d+/, '')
    out['ordinal-missing'] = Buffer.concat([...L.slice(0, k), half(L[k]), Buffer.from('\n'), ...L.slice(k + 1, L.length - 1), Buffer.from(last, 'latin1')])
  }
  return out
}

/** A classification as comparable data (clean lines' record bytes are never held when streamed). */
function comparable(c: JsonlClassification): unknown {
  return {
    ...c,
    lines: c.lines.map((l) => ({index: l.index, start: l.start, end: l.end, next: l.next, eol: l.eol, kind: l.kind, reasons: [...l.reasons], action: l.action, partOf: l.partOf, joinedThrough: l.joinedThrough, records: l.records.map((r) => ({line: r.line, offset: r.offset, length: r.length, value: r.value, bytes: r.bytes === null ? null : Buffer.from(r.bytes).toString('latin1')}))})),
    records: c.records.map((r) => [r.line, r.offset, r.length]),
  }
}

/** A source that counts the bytes read from it. */
function counting(src: ByteSource): ByteSource & {read: ByteSource['read']; readBytes: number} {
  const c = {
    size: src.size,
    readBytes: 0,
    read: (s: number, e: number) => {
      const b = src.read(s, e)
      c.readBytes += b.length
      return b
    },
    readInto: (buf: Uint8Array, offset: number, length: number, position: number) => {
      const n = src.readInto(buf, offset, length, position)
      c.readBytes += n
      return n
    },
  }
  return c
}

test('a streamed repair plan classifies its result from the planned lines: the classification a second read gives, without reading the log again', () => {
  let derived = 0
  let shapes = 0
  for (const {file, format} of allRealSessionLogs()) {
    const dialect = format === 'claude-code' ? claudeDialect : codexDialect
    for (const [shape, buf] of Object.entries(damagedCopies(readFileSync(file)))) {
      const name = `${path.basename(file)} ${shape}`
      const isRecord = dialect.recordRule()
      const before = classifyJsonlSource(bufferSource(buf), {isRecord, keep: keepForFamily}).cls
      const rules = dialect.analyze(path.basename(file), before).rules
      const given = rules.isRecord === isRecord ? before : classifyJsonlSource(bufferSource(buf), {isRecord: rules.isRecord, keep: keepForFamily}).cls
      const src = counting(bufferSource(buf))
      const plan = planJsonlRepair({source: src, streamed: true, keep: keepForFamily}, rules, given)
      if (plan.changes.length === 0) continue
      shapes++
      const again = classifyJsonlSource(piecesSource(plan.pieces, bufferSource(buf)), {isRecord: rules.isRecord, keep: keepForFamily}).cls
      assert.deepEqual(comparable(plan.after), comparable(again), `${name}: the result's classification`)
      // Read only the changed lines (their hashes, a dropped line's text), never the whole result again; a result
      // whose last line gets a line ending it lacked is classified in full (its CR, if any, would change sides).
      if (plan.changes.some((c) => c.kind === 'add-newline')) continue
      derived++
      const changed = plan.changes.reduce((n, c) => n + c.length, 0)
      assert.ok(src.readBytes <= 3 * changed, `${name}: ${src.readBytes} bytes read planning a ${plan.size}-byte result whose changes span ${changed} bytes`)
    }
  }
  assert.ok(shapes >= 40 && derived >= 30, `${shapes} shapes planned, ${derived} classified from their lines`)
})

test('a streamed scan keeps records by the member its first records show, and reads again where that could change a verdict: the in-memory reports', async (t) => {
  const root = tempDir('logmem-keeper')
  t.after(() => cleanup(root))
  const dir = path.join(root, '.claude', 'projects', '-home-dev-app')
  mkdirSync(dir, {recursive: true})
  const claude = readFileSync(REAL_SESSIONS.claude.short)
  const codex = readFileSync(REAL_SESSIONS.codex.legacy)
  const L = linesOf(claude)
  // Long enough that records after the first 50 are kept by the member's keep.
  const long = Buffer.concat(Array.from({length: 5}, () => claude))
  assert.ok(linesOf(long).length > 60)
  // A record spread over two lines near the start: rejoined after the lines are read, it is among the first 50.
  const ts = L[2].indexOf('"timestamp":"')
  const at = L[0].length + L[1].length + ts + '"timestamp":"'.length + 4
  writeFileSync(path.join(dir, 'split-early.jsonl'), Buffer.concat([long.subarray(0, at), Buffer.from('\n'), long.subarray(at)]))
  // A copy beside a Claude Code log holding another member's records (the session is Claude Code's).
  writeFileSync(path.join(dir, 'mixed.jsonl'), cutAt(long, long.length - 40))
  writeFileSync(path.join(dir, 'mixed.jsonl.bak'), codex)
  // Which classifications the keeper's keep is trusted for (else the log is read again with the family's keep).
  const keptBy = (buf: Buffer) => {
    const k = familyKeeper()
    return {k, cls: classifyJsonlSource(bufferSource(buf), {keep: k.keep}).cls}
  }
  const early = keptBy(readFileSync(path.join(dir, 'split-early.jsonl')))
  assert.equal(early.k.fits(early.cls, null), false, 'a record rejoined after the first 50 were kept sits among them')
  const plain = keptBy(long)
  assert.equal(plain.k.fits(plain.cls, null), true)
  assert.equal(plain.k.fits(plain.cls, claudeDialect), true)
  assert.equal(plain.k.fits(plain.cls, codexDialect), false, 'kept for Claude Code, not for Codex')
  const bak = keptBy(codex)
  assert.equal(bak.k.fits(bak.cls, null), true)
  assert.equal(bak.k.fits(bak.cls, claudeDialect), false, 'a Codex copy in a Claude Code session is read again')
  const short = keptBy(L.slice(0, 10).reduce((a, b) => Buffer.concat([a, b]), Buffer.alloc(0)))
  assert.equal(short.k.fits(short.cls, codexDialect), true, 'fewer than 50 records: every one kept by the family')

  const inMemory = await scanPaths([root], {home: root, env: {}, keepData: true})
  const streamed = await scanPaths([root], {home: root, env: {CHATDOCTOR_LOG_STREAM_THRESHOLD: '1'}, keepData: true})
  assert.equal(inMemory.chats.length, 2)
  assert.deepEqual(streamed.chats.map((c) => c.report), inMemory.chats.map((c) => c.report))
  const split = inMemory.chats.find((c) => c.report.path.endsWith('split-early.jsonl'))!
  assert.equal(split.report.status, 'repairable')
  const mixed = inMemory.chats.find((c) => c.report.path.endsWith('mixed.jsonl'))!
  assert.equal(mixed.report.format, 'claude-code')
  assert.ok(mixed.report.generations.some((g) => g.file === 'mixed.jsonl.bak' && g.measure !== undefined))
})

test('repair writes a streamed log from the plan its scan made (one read to hash it, no second classification), and still refuses a log changed since that scan', async (t) => {
  const {L, torn, file, scanned} = await tornRealLog(t, 'logmem-reuse')
  // The scan kept its plan (pieces and changes, no classification), and repair's plan is that one.
  const entry = scanned.chats[0].snapshot.files.find((f) => f.name === 'marot-spotter__short.jsonl')!
  const kept = streamedPlanOf(entry, 'claude-code')
  assert.ok(kept, 'the scan kept the plan it made')
  assert.equal(streamedPlanOf(entry, 'codex'), undefined)
  const good = planChat(scanned.chats[0])
  const rewrite = good.actions.find((a) => a.type === 'rewrite')!
  assert.ok(rewrite.stream, 'written from the pieces of the log')
  assert.deepEqual(rewrite.changes?.map((c) => [c.kind, c.line, c.sha256]), kept.changes.map((c) => [c.kind, c.line, c.sha256]))
  const chunks: Buffer[] = []
  for (const c of rewrite.stream.chunks()) chunks.push(Buffer.from(c))
  assert.equal(rewrite.sha256, sha256(Buffer.concat(chunks)))
  assert.ok(Buffer.concat(chunks).equals(Buffer.concat(L.slice(0, -1))), 'the log without its torn last record')
  // The log gets new bytes of the same size after the scan: the plan is the scan's, made before them.
  const changed = Buffer.from(torn)
  changed[20] = changed[20] === 0x61 ? 0x62 : 0x61
  writeFileSync(file, changed)
  const plan = planChat(scanned.chats[0])
  assert.match(plan.refusal ?? '', /changed since the scan \(new bytes\)/, 'the log is hashed again before the kept plan is used')
  assert.deepEqual(plan.actions, [])
  assert.ok(readFileSync(file).equals(changed), 'the changed log is left as it is')
})
