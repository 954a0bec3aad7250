/**
 * The streaming path of the JSON-lines session logs gives the verdicts of the in-memory path: over every real
 * Claude Code and Codex log in shared/realdata and damaged copies of each (every damage shape the line
 * classifier knows), the line classification read in small chunks (lines longer than the long-line size
 * gathered without their NULs) equals the one of the whole buffer; a scan with every log streamed
 * (`CHATDOCTOR_LOG_STREAM_THRESHOLD=1`) gives the same reports; the repair plans write the same bytes (in chunks
 * instead of one buffer), and executed repairs leave the same files. Structure, not time or memory: the
 * streamed classification holds no bytes of clean lines and keeps of each record only what the rules read.
 */
import assert from 'node:assert/strict'
import {copyFileSync, mkdirSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'
import {bufferSource, classifyJsonlBytes, classifyJsonlSource, type JsonlClassification} from '../src/lib/classify/jsonl.js'
import {isClaudeRecordShape} from '../src/lib/formats/claude-code/session.js'
import {isLegacyRecordShape, isRolloutRecordShape} from '../src/lib/formats/codex/session.js'
import {ADAPTERS} from '../src/lib/formats/index.js'
import {keepForFamily} from '../src/lib/formats/jsonl/session.js'
import {nodeFileSystem} from '../src/lib/fsio/fs.js'
import {applyChat} from '../src/lib/pipeline/apply.js'
import {readChatSync} from '../src/lib/pipeline/inventory.js'
import {planChat} from '../src/lib/pipeline/plan.js'
import {scanPaths} from '../src/lib/pipeline/scan.js'
import {cleanup, cutAt, invalidByteAt, nulPadded, nulRunAt, nulTailAt, tempDir, withBom} from './helpers/fixtures.js'
import {REAL_SESSIONS, allRealSessionLogs, body, linesOf, nulOverNestedHead, read} from './helpers/sessions.js'

/** Damaged copies of a log, each by the damage's name (the shapes of test/jsonl.test.ts, built here from `buf`). */
function damaged(buf: Buffer): Record<string, Buffer> {
  const L = linesOf(buf)
  const k = Math.floor(L.length / 2)
  const startOf = (i: number) => L.slice(0, i).reduce((n, l) => n + l.length, 0)
  const at = startOf(k)
  const out: Record<string, Buffer> = {
    intact: buf,
    'torn-tail': cutAt(buf, startOf(L.length - 1) + Math.floor(L[L.length - 1].length / 2)),
    'torn-interior': Buffer.concat([...L.slice(0, k), L[k].subarray(0, Math.floor(L[k].length / 2)), Buffer.from('\n'), ...L.slice(k + 1)]),
    'nul-run': nulRunAt(buf, at + Math.floor(L[k].length / 3), Math.min(40, Math.floor(L[k].length / 3))),
    'nul-across-lines': nulRunAt(buf, at + 5, Math.min(buf.length - at - 10, L[k].length + 3000)),
    'nul-tail': nulPadded(buf, 5000),
    'nul-tail-cut': nulTailAt(buf, startOf(L.length - 1) + Math.floor(L[L.length - 1].length / 2)),
    interleaved: Buffer.concat([...L.slice(0, k), L[k].subarray(0, Math.floor(L[k].length / 2)), ...L.slice(k + 1)]),
    'invalid-utf8': invalidByteAt(buf, at + Math.floor(L[k].length / 2)),
    bom: withBom(buf),
    'foreign-content': Buffer.from(buf.subarray(0, Math.min(buf.length, 20000)).toString('base64').replace(/(.{76})/g, '$1\n')),
    crlf: Buffer.from(buf.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1'),
  }
  // NULs inside a CRLF (between a line's \r and its \n): a short run, and one long enough to make a long line.
  const crlfBuf = out.crlf
  const cr = crlfBuf.indexOf('\r\n', Math.floor(crlfBuf.length / 2))
  if (cr >= 0) for (const [shape, n] of [['nul-inside-crlf', 64], ['nul-inside-crlf-long', 3000]] as const) out[shape] = Buffer.concat([crlfBuf.subarray(0, cr + 1), Buffer.alloc(n), crlfBuf.subarray(cr + 1)])
  // NUL runs inside records (never joined across): over a record boundary, and over the line break alone (two whole
  // records apart only by NULs); the same with runs long enough to make a long line (gathered with each run as one
  // NUL): three pieces of one record, and two whole records.
  if (k + 1 < L.length) {
    const lf = at + body(L[k]).length
    out['nul-over-boundary'] = nulRunAt(buf, lf - 4, Math.min(8 + (L[k].length - body(L[k]).length), buf.length - lf + 4))
    out['nul-over-line-end'] = nulRunAt(buf, lf, L[k].length - body(L[k]).length)
    const run = Buffer.alloc(1600)
    const third = Math.floor(body(L[k]).length / 3)
    out['nul-long-pieces'] = Buffer.concat([buf.subarray(0, at + third), run, buf.subarray(at + third, at + 2 * third), run, buf.subarray(at + 2 * third)])
    out['nul-long-between'] = Buffer.concat([buf.subarray(0, lf), run, buf.subarray(at + L[k].length)])
  }
  // A raw line break inside a string (a record spread over two lines), and a lone surrogate escape in one.
  const prose = /[A-Za-z]{3,}(?: [A-Za-z]{2,}){2,}/.exec(L[k].toString('latin1'))
  if (prose) out['nul-mid-text'] = nulRunAt(buf, at + prose.index + 2, 4)
  const ts = L[k].indexOf('"timestamp":"')
  if (ts >= 0) {
    const inside = at + ts + '"timestamp":"'.length + 4
    out['split-record'] = Buffer.concat([buf.subarray(0, inside), Buffer.from('\n'), buf.subarray(inside)])
    out['lone-surrogate'] = Buffer.concat([buf.subarray(0, inside - 4), Buffer.from('\\ud83c'), buf.subarray(inside - 4)])
  }
  return out
}

const LOGS = allRealSessionLogs()

/** A classification as comparable data: record bytes of clean lines left out (a streamed one holds none). */
function comparable(c: JsonlClassification): unknown {
  return {
    ...c,
    lines: c.lines.map((l) => ({index: l.index, start: l.start, end: l.end, next: l.next, eol: l.eol, kind: l.kind, reasons: l.reasons, action: l.action, partOf: l.partOf, joinedThrough: l.joinedThrough, records: l.records.map((r) => ({line: r.line, offset: r.offset, length: r.length, value: r.value, bytes: l.kind === 'record' ? null : Buffer.from(r.bytes!).toString('latin1')}))})),
    records: c.records.map((r) => [r.line, r.offset, r.length]),
  }
}

describe('the streaming line classifier gives the verdict of the in-memory one', () => {
  for (const {file, format} of LOGS) {
    test(`${path.basename(file)} (${format}) and every damaged copy of it, read in 997-byte chunks with 1,500-byte long lines`, () => {
      const original = readFileSync(file)
      const rules = format === 'claude-code' ? [isClaudeRecordShape] : [isRolloutRecordShape, isLegacyRecordShape]
      for (const [shape, buf] of Object.entries(damaged(original))) {
        for (const isRecord of rules) {
          const whole = classifyJsonlBytes(buf, {isRecord})
          const streamed = classifyJsonlSource(bufferSource(buf), {isRecord, chunkBytes: 997, longLineBytes: 1500})
          assert.deepEqual(comparable(streamed.cls), comparable(whole), `${shape}: the same classification`)
          assert.equal(streamed.bytes, buf.length)
          for (const l of streamed.cls.lines) if (l.kind === 'record') assert.ok(l.records.every((r) => r.bytes === null), `${shape}: no bytes kept of clean line ${l.index + 1}`)
        }
      }
    })
  }
})

test('NULs over a Claude Code progress record up to its nested message: streamed, the line is dropped as in memory', () => {
  const {buf, line} = nulOverNestedHead(read(REAL_SESSIONS.claude.short), 2)
  const whole = classifyJsonlBytes(buf, {isRecord: isClaudeRecordShape})
  for (const longLineBytes of [1500, 64 * 1024]) {
    const streamed = classifyJsonlSource(bufferSource(buf), {isRecord: isClaudeRecordShape, chunkBytes: 997, longLineBytes})
    assert.deepEqual(comparable(streamed.cls), comparable(whole), `long lines from ${longLineBytes} bytes: the same classification`)
  }
  assert.deepEqual([whole.lines[line].action, whole.lines[line].records.length], ['drop', 0])
})

/** A tree of every real log and its damaged copies, in the folders discovery gives each format. */
function buildTree(root: string, only?: (name: string) => boolean): void {
  const claude = path.join(root, '.claude', 'projects', '-home-dev-app')
  const codex = path.join(root, '.codex', 'sessions', '2026', '01', '01')
  mkdirSync(claude, {recursive: true})
  mkdirSync(codex, {recursive: true})
  for (const {file, format} of LOGS) {
    const base = path.basename(file, '.jsonl')
    for (const [shape, buf] of Object.entries(damaged(readFileSync(file)))) {
      const name = `${base}-${shape}.jsonl`
      if (only && !only(name)) continue
      writeFileSync(path.join(format === 'claude-code' ? claude : codex, name), buf)
    }
  }
}

/** The files of a tree under `root` (relative names), with their bytes, chatdoctor's own folders left out. */
function treeFiles(root: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (d: string) => {
    for (const e of readdirSync(d, {withFileTypes: true})) {
      const p = path.join(d, e.name)
      if (e.name === '.chatdoctor') continue
      if (e.isDirectory()) walk(p)
      else out.set(path.relative(root, p), readFileSync(p).toString('latin1'))
    }
  }
  walk(root)
  return out
}

describe('a scan and a repair with every session log streamed', () => {
  test('every real log and damaged copy: the same report as in memory, and repair plans that write the same bytes', async (t) => {
    const root = tempDir('jstream-scan')
    t.after(() => cleanup(root))
    buildTree(root)
    const inMemory = await scanPaths([root], {home: root, env: {}, keepData: true})
    const streamed = await scanPaths([root], {home: root, env: {CHATDOCTOR_LOG_STREAM_THRESHOLD: '1'}, keepData: true})
    assert.ok(inMemory.chats.length >= LOGS.length * 10, `${inMemory.chats.length} chats`)
    assert.deepEqual(streamed.chats.map((c) => c.report), inMemory.chats.map((c) => c.report))
    const statuses = new Set(inMemory.chats.map((c) => c.report.status))
    assert.ok(statuses.has('repairable') && statuses.has('healthy'), [...statuses].join(', '))
    let planned = 0
    for (let i = 0; i < inMemory.chats.length; i++) {
      const a = planChat(inMemory.chats[i])
      const b = planChat(streamed.chats[i])
      const name = inMemory.chats[i].report.path
      assert.deepEqual([b.refusal, b.problem, b.manual], [a.refusal, a.problem, a.manual], name)
      assert.equal(b.actions.length, a.actions.length, name)
      for (let j = 0; j < a.actions.length; j++) {
        const x = a.actions[j]
        const y = b.actions[j]
        assert.deepEqual([y.type, y.from, y.to, y.sha256, y.changes, y.mtimeMs], [x.type, x.from, x.to, x.sha256, x.changes, x.mtimeMs], name)
        if (x.type !== 'rewrite') continue
        planned++
        // The streamed plan holds no bytes of the log: its chunks are the same bytes.
        assert.equal(y.data, undefined, `${name}: no buffer of the repaired log`)
        assert.ok(y.stream, name)
        assert.equal(y.stream.size, x.data!.length)
        const chunks: Buffer[] = []
        for (const c of y.stream.chunks()) chunks.push(Buffer.from(c)) // a chunk is valid until the next
        assert.ok(Buffer.concat(chunks).equals(x.data!), `${name}: the same repaired bytes`)
      }
    }
    assert.ok(planned >= LOGS.length * 5, `${planned} repairs planned`)
  })

  test('executed repairs leave the same files either way, and the streamed one refuses a log changed since its plan', async (t) => {
    const a = tempDir('jstream-mem')
    const b = tempDir('jstream-str')
    t.after(() => {
      cleanup(a)
      cleanup(b)
    })
    const some = (n: string) => /^(?:marot-spotter__short|rollout-2026-12-01T08-58-21[^]*?|AcidicSoil[^]*?)-(?:torn-tail|nul-run|interleaved|split-record|nul-tail-cut|bom)\.jsonl$/.test(n)
    buildTree(a, some)
    buildTree(b, some)
    const run = async (root: string, env: NodeJS.ProcessEnv) => {
      const scanned = await scanPaths([root], {home: root, env, keepData: true})
      const outcomes: string[] = []
      for (const chat of scanned.chats) {
        const plan = planChat(chat)
        if (plan.actions.length === 0) continue
        const out = await applyChat(plan, {fs: nodeFileSystem(), repairId: '20260605T120000Z-abcdef', version: 'test', stateDir: path.join(root, '..', `${path.basename(root)}-state`), force: false})
        outcomes.push(`${path.basename(chat.report.path)}: ${out.outcome}`)
      }
      return outcomes
    }
    const ra = await run(a, {})
    const rb = await run(b, {CHATDOCTOR_LOG_STREAM_THRESHOLD: '1'})
    assert.deepEqual(rb, ra)
    assert.ok(ra.filter((o) => o.endsWith(': repaired')).length >= 10, ra.join('\n'))
    assert.deepEqual(treeFiles(b), treeFiles(a))

    // A log changed after the plan was made (same size and mtime put back: only its bytes tell): refused, untouched.
    const c = tempDir('jstream-changed')
    t.after(() => cleanup(c))
    buildTree(c, (n) => n === 'marot-spotter__short-torn-tail.jsonl')
    const scanned = await scanPaths([c], {home: c, env: {CHATDOCTOR_LOG_STREAM_THRESHOLD: '1'}, keepData: true})
    const plan = planChat(scanned.chats[0])
    const file = path.join(c, '.claude', 'projects', '-home-dev-app', 'marot-spotter__short-torn-tail.jsonl')
    const before = readFileSync(file)
    const changed = Buffer.from(before)
    changed[10] = changed[10] === 0x61 ? 0x62 : 0x61
    const st = statSync(file)
    writeFileSync(file, changed)
    utimesSync(file, st.atime, st.mtime)
    const out = await applyChat(plan, {fs: nodeFileSystem(), repairId: '20260605T120000Z-abcdef', version: 'test', stateDir: path.join(c, '..', 'jstream-changed-state'), force: false})
    assert.notEqual(out.outcome, 'repaired', out.message ?? '')
    assert.ok(readFileSync(file).equals(changed), 'the changed log is left as it is')
  })

  test('above the threshold the inventory hands the adapter the path, never the bytes', (t) => {
    const root = tempDir('jstream-inv')
    t.after(() => cleanup(root))
    const dir = path.join(root, '.claude', 'projects', '-p')
    mkdirSync(dir, {recursive: true})
    copyFileSync(LOGS[0].file, path.join(dir, 'a.jsonl'))
    const adapter = ADAPTERS.find((x) => x.name === 'claude-code')!
    const unit = {dir, path: path.join(dir, 'a.jsonl'), files: ['a.jsonl']}
    const small = readChatSync(unit, adapter, {})
    assert.ok(small.files[0].data && small.files[0].path === undefined)
    const big = readChatSync(unit, adapter, {logStreamThresholdBytes: 1000})
    assert.equal(big.files[0].data, undefined)
    assert.equal(big.files[0].path, path.join(dir, 'a.jsonl'))
  })
})

describe('what a streamed classification keeps of a record', () => {
  test('the ids, kinds and the start of a prompt; never the text of a long message or a tool payload', () => {
    const long = 'x'.repeat(5000)
    const rec = {type: 'user', sessionId: 's', uuid: 'u2', parentUuid: 'u1', timestamp: '2026-01-01T00:00:00.000Z', message: {role: 'user', content: [{type: 'text', text: `  hello ${long}`}, {type: 'tool_result', tool_use_id: 't1', content: long}]}, toolUseResult: {stdout: long}}
    const buf = Buffer.from(JSON.stringify(rec) + '\n')
    const {cls} = classifyJsonlSource(bufferSource(buf), {keep: keepForFamily})
    const v = cls.records[0].value
    assert.ok(JSON.stringify(v).length < 600, JSON.stringify(v).slice(0, 200))
    assert.deepEqual([v.uuid, v.parentUuid, v.sessionId, v.type], ['u2', 'u1', 's', 'user'])
    assert.equal(v.toolUseResult, undefined)
    assert.equal(cls.records[0].bytes, null)
  })
})
