/**
 * Forensics scenarios: embedded-copy recovery, salvage figures, each amnesia pattern, torn
 * transcript, stale sidecar, each with its expected report. Built from the real 10-turn and 180-turn chats.
 */
import assert from 'node:assert/strict'
import {lstatSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {codebuff} from '../../src/lib/formats/codebuff/index.js'
import {salvageBytes} from '../../src/lib/salvage/index.js'
import type {ChatReport, Generation} from '../../src/lib/model/report.js'
import {scanPaths, type ScannedChat} from '../../src/lib/pipeline/scan.js'
import {REALDATA, REAL_CHATS, TEN_TURN_TEMP, cleanup, copyRealChat, cutAt, nulPadded, setMtime, sha256, tempDir} from '../helpers/fixtures.js'

const LAST_AI = 'ai-1762265497000-d81188ed9dfc1'
const EMBEDDED_10 = `chat-messages.json#${LAST_AI}`

async function scanOne(dir: string, home: string): Promise<ScannedChat> {
  const r = await scanPaths([dir], {home, env: {}})
  assert.equal(r.chats.length, 1, JSON.stringify(r.skipped))
  return r.chats[0]
}

function gen(report: ChatReport, file: string): Generation {
  const g = report.generations.find((x) => x.file === file)
  assert.ok(g, `no generation ${file}`)
  return g
}

function ids(report: ChatReport): string[] {
  return report.findings.map((f) => f.id)
}

/** Runs `fn` on a fresh copy of a real chat in a temp home. */
async function withChat(chat: string, fn: (dir: string, home: string) => Promise<void>): Promise<void> {
  const home = tempDir()
  try {
    await fn(copyRealChat(chat, home), home)
  } finally {
    cleanup(home)
  }
}

const real = (chat: string, name: string) => readFileSync(path.join(REALDATA, 'codebuff', chat, name))

test('embedded generations: every metadata.runState of the transcript is a ranked generation with its exact bytes', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    const {report, snapshot} = await scanOne(dir, home)
    const embedded = report.generations.filter((g) => g.role === 'embedded')
    assert.equal(embedded.length, 10)
    assert.ok(embedded.every((g) => g.class === 'intact' && g.mtimeMs === gen(report, 'chat-messages.json').mtimeMs))
    assert.deepEqual(embedded.map((g) => g.turns), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    assert.equal(report.status, 'healthy')
    assert.equal(report.ranking.length, 13)
    assert.match(report.ranking.find((r) => r.file === EMBEDDED_10)!.lostBecause!, /no more turns than the primary/)
    // The turn-10 copy is byte for byte the primary; the turn-9 copy is the backup.
    const bytes = codebuff.generationBytes!(snapshot, EMBEDDED_10)!
    assert.equal(Buffer.compare(bytes, real(REAL_CHATS.tenTurns, 'run-state.json')), 0)
    assert.equal(sha256(bytes), gen(report, EMBEDDED_10).sha256)
    const nine = embedded[8]
    assert.equal(Buffer.compare(codebuff.generationBytes!(snapshot, nine.file)!, real(REAL_CHATS.tenTurns, 'run-state.json.bak')), 0)
    assert.equal(codebuff.generationBytes!(snapshot, 'chat-messages.json#ai-nope'), null)
  })
})

test('embedded-copy recovery: all run-state files gone, the newest embedded copy wins', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    for (const f of ['run-state.json', 'run-state.json.bak', TEN_TURN_TEMP]) rmSync(path.join(dir, f))
    const {report, snapshot} = await scanOne(dir, home)
    assert.equal(report.status, 'repairable')
    assert.equal(report.winner, EMBEDDED_10)
    assert.equal(report.contextTurns, 10)
    assert.equal(report.transcriptTurns, 10)
    assert.equal(gen(report, 'run-state.json').class, 'missing')
    assert.ok(ids(report).includes('primary-missing'))
    assert.equal(report.ranking[0].file, EMBEDDED_10)
    assert.equal(report.ranking[1].lostBecause, 'covers fewer turns (9 < 10)')
    // Restoring it writes exactly the bytes of the lost primary.
    assert.equal(Buffer.compare(codebuff.generationBytes!(snapshot, EMBEDDED_10)!, real(REAL_CHATS.tenTurns, 'run-state.json')), 0)
  })
})

test('salvage: a torn primary reports what a salvage keeps and borrows, without changing the status', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    const full = real(REAL_CHATS.tenTurns, 'run-state.json')
    const value = JSON.parse(full.toString('utf8'))
    // Cut 10 bytes into message 41 (index 40): 40 messages are whole.
    const text = full.toString('latin1')
    const m41 = JSON.stringify(value.sessionState.mainAgentState.messageHistory[40])
    const at = text.indexOf(m41)
    assert.ok(at > 0)
    writeFileSync(path.join(dir, 'run-state.json'), cutAt(full, at + 10))
    setMtime(path.join(dir, 'run-state.json'), Date.UTC(2026, 7, 30, 9, 0, 4))
    const scanned = await scanOne(dir, home)
    const {report} = scanned
    assert.equal(report.status, 'repairable')
    assert.equal(report.winner, TEN_TURN_TEMP)
    const p = gen(report, 'run-state.json')
    assert.equal(p.class, 'truncated')
    const s = p.salvage!
    assert.equal(s.kind, 'prefix')
    assert.equal(s.messages, 40)
    assert.equal(s.bytesKept, at - 1) // up to message 40's closing brace, without the comma after it
    assert.equal(s.bytesDropped, at + 10 - (at - 1))
    assert.equal(s.tornElementDropped, true)
    assert.deepEqual(s.keysMissing, [])
    assert.deepEqual(
      s.keysBorrowed.map((k) => k.key),
      ['sessionState.mainAgentState.stepsRemaining', 'sessionState.mainAgentState.creditsUsed', 'sessionState.mainAgentState.directCreditsUsed', 'sessionState.mainAgentState.systemPrompt', 'sessionState.mainAgentState.toolDefinitions', 'sessionState.mainAgentState.contextTokenCount', 'sessionState.fileContext', 'output'],
    )
    // Newest intact generation first: the transcript (newer mtime than the temp) and its newest copy.
    assert.ok(s.keysBorrowed.every((k) => k.from === EMBEDDED_10))
    assert.equal(s.candidate, true)
    assert.equal(typeof s.turns, 'number')
    const f = report.findings.find((x) => x.id === 'salvage-available')!
    assert.equal(f.file, 'run-state.json')
    assert.match(f.message, /^a salvage would keep 40 messages, covering turn \d+ of 10, dropping 11 bytes from byte \d+; 8 cut-off keys \(stepsRemaining, creditsUsed, directCreditsUsed, systemPrompt, toolDefinitions, contextTokenCount, fileContext, output\) from chat-messages\.json#ai-/)
    // What repair --salvage gets: the same figures and exact bytes.
    const salvaged = codebuff.salvage!(scanned.snapshot, report)
    assert.equal(salvaged.length, 1)
    assert.deepEqual(salvaged[0].summary, s)
    const bytes = salvageBytes(salvaged[0])
    assert.equal(sha256(bytes), s.sha256)
    assert.equal(Buffer.compare(bytes.subarray(0, s.bytesKept), full.subarray(0, s.bytesKept)), 0)
    const v = JSON.parse(bytes.toString('utf8'))
    assert.deepEqual(v.sessionState.mainAgentState.messageHistory, value.sessionState.mainAgentState.messageHistory.slice(0, 40))
    assert.deepEqual(v.sessionState.fileContext, value.sessionState.fileContext)
    assert.deepEqual(v.output, value.output)
  })
})

test('salvage: with no donor the lost members are reported missing and the salvage is no candidate', async () => {
  await withChat(REAL_CHATS.large, async (dir, home) => {
    const full = real(REAL_CHATS.large, 'run-state.json')
    writeFileSync(path.join(dir, 'run-state.json'), cutAt(full, Math.floor(full.length / 2)))
    const {report} = await scanOne(dir, home)
    assert.equal(report.status, 'unrecoverable')
    assert.ok(ids(report).includes('context-lost'))
    const s = gen(report, 'run-state.json').salvage!
    assert.equal(s.candidate, false)
    assert.deepEqual(s.keysBorrowed, [])
    assert.deepEqual(s.keysMissing, ['sessionState.mainAgentState.stepsRemaining', 'sessionState.mainAgentState.creditsUsed', 'sessionState.mainAgentState.directCreditsUsed', 'sessionState.fileContext', 'output'])
    assert.ok(s.messages > 500)
    assert.match(report.findings.find((f) => f.id === 'salvage-available')!.message, /not a candidate: no generation holds sessionState\.mainAgentState\.stepsRemaining/)
  })
})

test('salvage: a complete primary padded with NULs is kept whole', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    const full = real(REAL_CHATS.tenTurns, 'run-state.json')
    writeFileSync(path.join(dir, 'run-state.json'), nulPadded(full, 4096))
    const {report} = await scanOne(dir, home)
    const p = gen(report, 'run-state.json')
    assert.equal(p.class, 'corrupt')
    assert.deepEqual(p.reasons, ['nul-tail'])
    const s = p.salvage!
    assert.equal(s.kind, 'tail')
    assert.equal(s.messages, 60)
    assert.equal(s.turns, 10)
    assert.equal(s.bytesKept, full.length)
    assert.equal(s.bytesDropped, 4096)
    assert.equal(s.sha256, sha256(full))
    assert.deepEqual(s.keysBorrowed, [])
    assert.equal(s.candidate, true)
  })
})

// ---- amnesia -------------------------------------------------------------------------------------------

interface RunState {
  sessionState: {mainAgentState: {messageHistory: Array<{role: string; tags?: string[]; content: unknown}>}}
  traceSessionId?: string
}

/** Index in a history of the k-th (1-based) USER_PROMPT message. */
function promptIndex(history: RunState['sessionState']['mainAgentState']['messageHistory'], k: number): number {
  let n = 0
  for (let i = 0; i < history.length; i++) if (history[i].role === 'user' && history[i].tags?.includes('USER_PROMPT') && ++n === k) return i
  return -1
}

/**
 * The example: the chat was resumed after a failed load at turn 8; the new session knows turns 8–9
 * only; the transcript has 9 turns, and embedded copies exist up to turn 7.
 */
function amnesiacChat(dir: string, opts: {trace?: boolean; before?: unknown[]} = {}): string {
  const transcript = JSON.parse(real(REAL_CHATS.tenTurns, 'chat-messages.json').toString('utf8')) as Array<{id: string; metadata?: {runState?: unknown}}>
  const t9 = transcript.slice(0, transcript.length - 2) // drop turn 10
  let copies = 0
  for (const m of t9) if (m.metadata?.runState && ++copies > 7) delete m.metadata.runState
  const seventh = t9.filter((m) => m.metadata?.runState).pop()!.id
  const primary = JSON.parse(real(REAL_CHATS.tenTurns, 'run-state.json').toString('utf8')) as RunState
  const h = primary.sessionState.mainAgentState.messageHistory
  primary.sessionState.mainAgentState.messageHistory = [...((opts.before ?? []) as typeof h), ...h.slice(promptIndex(h, 8), promptIndex(h, 10))]
  if (opts.trace) primary.traceSessionId = 'e41c7a90-55d2-4b8e-b3f1-0c9d8e7f6a5b'
  for (const f of ['run-state.json.bak', TEN_TURN_TEMP, 'chat-meta.json']) rmSync(path.join(dir, f))
  writeFileSync(path.join(dir, 'chat-messages.json'), JSON.stringify(t9))
  writeFileSync(path.join(dir, 'run-state.json'), JSON.stringify(primary))
  setMtime(path.join(dir, 'chat-messages.json'), Date.UTC(2026, 7, 30, 9, 0, 3))
  setMtime(path.join(dir, 'run-state.json'), Date.UTC(2026, 7, 30, 9, 0, 4))
  return `chat-messages.json#${seventh}`
}

test('amnesia, late start: prompts start at turn 8 with no summary → degraded, the gap stated exactly', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    const source = amnesiacChat(dir)
    const {report} = await scanOne(dir, home)
    assert.equal(report.status, 'degraded')
    assert.equal(report.winner, 'run-state.json')
    assert.equal(report.contextTurns, 9)
    assert.equal(report.transcriptTurns, 9)
    assert.deepEqual(report.amnesia, {file: 'run-state.json', patterns: ['late-start'], missingTurns: [1, 7], source, sourceTurns: 7, restoreDrops: [8, 9], olderTraceSessionId: null})
    const f = report.findings.find((x) => x.id === 'context-amnesia')!
    assert.equal(f.severity, 'error')
    assert.equal(f.message, `turns 1–7 are missing from the agent's memory; ${source} holds them up to turn 7; restoring it would drop turns 8–9`)
  })
})

test('amnesia, trace break: traceSessionId differs from an older generation → degraded', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    const setTrace = (name: string, id: string, mtime: number) => {
      const v = JSON.parse(readFileSync(path.join(dir, name), 'utf8'))
      v.traceSessionId = id
      writeFileSync(path.join(dir, name), JSON.stringify(v))
      setMtime(path.join(dir, name), mtime)
    }
    setTrace('run-state.json.bak', 'aaaaaaaa-0000-4000-8000-000000000001', Date.UTC(2026, 7, 30, 9, 0, 1))
    setTrace('run-state.json', 'bbbbbbbb-0000-4000-8000-000000000002', Date.UTC(2026, 7, 30, 9, 0, 4))
    const {report} = await scanOne(dir, home)
    assert.equal(report.status, 'degraded')
    assert.deepEqual(report.amnesia, {
      file: 'run-state.json',
      patterns: ['trace-break'],
      missingTurns: null,
      source: 'run-state.json.bak',
      sourceTurns: 9,
      restoreDrops: [10, 10],
      olderTraceSessionId: 'aaaaaaaa-0000-4000-8000-000000000001',
    })
    assert.equal(
      report.findings.find((x) => x.id === 'context-amnesia')!.message,
      "its traceSessionId bbbbbbbb-0000-4000-8000-000000000002 differs from run-state.json.bak's aaaaaaaa-0000-4000-8000-000000000001 (a new session replaced the agent's memory); run-state.json.bak holds the older session up to turn 9; restoring it would drop turn 10",
    )
  })
})

test('amnesia, both patterns (codebuff-format.md §6.9): a new traceSessionId and a late start', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    const source = amnesiacChat(dir, {trace: true})
    // Give the embedded copies the chat's original session id.
    const t = JSON.parse(readFileSync(path.join(dir, 'chat-messages.json'), 'utf8')) as Array<{metadata?: {runState?: {traceSessionId?: string}}}>
    for (const m of t) if (m.metadata?.runState) m.metadata.runState.traceSessionId = '11111111-2222-4333-8444-555555555555'
    writeFileSync(path.join(dir, 'chat-messages.json'), JSON.stringify(t))
    setMtime(path.join(dir, 'chat-messages.json'), Date.UTC(2026, 7, 30, 9, 0, 3))
    const {report} = await scanOne(dir, home)
    assert.equal(report.status, 'degraded')
    assert.deepEqual(report.amnesia!.patterns, ['trace-break', 'late-start'])
    assert.equal(report.amnesia!.olderTraceSessionId, '11111111-2222-4333-8444-555555555555')
    assert.equal(report.amnesia!.source, source)
    assert.deepEqual(report.amnesia!.restoreDrops, [8, 9])
  })
})

const summaryMessage = (text: string) => ({role: 'user', content: [{type: 'text', text}]})

test('amnesia: a <conversation_summary> before the prompts is legitimate compaction → healthy', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    amnesiacChat(dir, {before: [summaryMessage('<conversation_summary><historical_memory>[USER] Add a remove(id) method\n---\n[USER] more</historical_memory></conversation_summary>')]})
    const {report} = await scanOne(dir, home)
    assert.equal(report.status, 'healthy')
    assert.equal(report.amnesia, undefined)
    assert.ok(!ids(report).includes('context-amnesia'))
    assert.ok(!ids(report).includes('compaction-wipe'))
  })
})

test('amnesia: the single-summary compaction is legitimate → healthy', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    amnesiacChat(dir, {before: [summaryMessage('<system>The following is a summary of the conversation between you and the user:\nThe user asked for a todo store with remove().</system>')]})
    const {report} = await scanOne(dir, home)
    assert.equal(report.status, 'healthy')
    assert.ok(!ids(report).includes('context-amnesia'))
    assert.ok(!ids(report).includes('compaction-wipe'))
  })
})

test('compaction wipe: an empty summary before the last turns degrades the chat, naming the turns lost and who holds them', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    const source = amnesiacChat(dir, {before: [summaryMessage('<system>The following is a summary of the conversation between you and the user:\n</system>')]})
    const {report} = await scanOne(dir, home)
    assert.equal(report.status, 'degraded')
    assert.ok(!ids(report).includes('context-amnesia'))
    assert.deepEqual(report.amnesia, {file: 'run-state.json', patterns: ['compaction-wipe'], missingTurns: [1, 7], source, sourceTurns: 7, restoreDrops: [8, 9], olderTraceSessionId: null})
    const f = report.findings.find((x) => x.id === 'compaction-wipe')!
    assert.equal(f.severity, 'error')
    assert.equal(f.file, 'run-state.json')
    assert.equal(f.message, `the history starts with an empty or near-empty compaction summary (Codebuff #1166); turns 1–7 are missing from the agent's memory; ${source} holds them up to turn 7; restoring it would drop turns 8–9`)
  })
})

test('compaction wipe: a near-empty fallback summary ("No prior history") is a wipe too; a short real one is not', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    amnesiacChat(dir, {before: [summaryMessage('<conversation_summary><historical_memory>No prior history.</historical_memory></conversation_summary>')]})
    assert.equal((await scanOne(dir, home)).report.status, 'degraded')
  })
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    amnesiacChat(dir, {before: [summaryMessage('<conversation_summary><historical_memory>[USER] asked for remove(id)</historical_memory></conversation_summary>')]})
    assert.equal((await scanOne(dir, home)).report.status, 'healthy')
  })
})

test("amnesia: the loader's placeholder saved as the primary stays repairable, with an amnesia finding", async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    writeFileSync(path.join(dir, 'run-state.json'), '{"output":{"type":"error","message":"Previous run state could not be restored."},"traceSessionId":"e41c7a90-55d2-4b8e-b3f1-0c9d8e7f6a5b"}')
    setMtime(path.join(dir, 'run-state.json'), Date.UTC(2026, 7, 30, 9, 0, 4))
    const {report} = await scanOne(dir, home)
    assert.equal(report.status, 'repairable')
    assert.equal(report.winner, TEN_TURN_TEMP)
    assert.deepEqual(report.amnesia!.patterns, ['placeholder'])
    assert.deepEqual(report.amnesia!.missingTurns, [1, 10])
    assert.ok(ids(report).includes('primary-contextless'))
    assert.match(report.findings.find((x) => x.id === 'context-amnesia')!.message, /^run-state\.json is the loader's placeholder \(Codebuff #1168\): turns 1–10 are missing from the agent's memory; .+ holds them up to turn 10$/)
  })
})

// ---- transcript damage and the sidecar ------------------------------------------------------------------

test('torn transcript with an intact transcript temp: repairable, the restore source named', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    const t = real(REAL_CHATS.tenTurns, 'chat-messages.json')
    const temp = 'chat-messages.json.4242.0b7c7a4e-1d2f-4a3b-9c8d-7e6f5a4b3c2d.tmp'
    // Without a usable transcript N is each generation's own prompt count, and the run-state temp's extra
    // (unanswered) prompt would out-rank the primary: remove it to see the transcript's own effect.
    rmSync(path.join(dir, TEN_TURN_TEMP))
    writeFileSync(path.join(dir, temp), t)
    writeFileSync(path.join(dir, 'chat-messages.json'), cutAt(t, 100_000))
    const {report} = await scanOne(dir, home)
    assert.equal(report.status, 'repairable')
    assert.equal(report.winner, 'run-state.json')
    assert.deepEqual(report.transcriptRestore, {from: temp, to: 'chat-messages.json', turns: 10, messages: 21, bytes: t.length, sha256: sha256(t)})
    const f = report.findings.find((x) => x.id === 'transcript-damaged')!
    assert.equal(f.severity, 'error')
    assert.match(f.message, new RegExp(`restorable from ${temp.replace(/\./g, '\\.')} \\(10 agent turns, 21 messages\\); a salvage keeps 14 messages byte for byte \\(6 agent turns\\) and drops the torn message and 4034 bytes from byte 95966; chat-meta\\.json last counted 21 messages$`))
    // The temp outranks the transcript's own salvage (10 agent turns against 6); turns are counted against it.
    assert.equal(report.transcriptTurns, 10)
    // The embedded copies come from the temp that would replace the transcript (so a repair of both converges).
    const embedded = report.generations.filter((g) => g.role === 'embedded')
    assert.equal(embedded.length, 10)
    assert.ok(embedded.every((g) => g.file.startsWith(`${temp}#ai-`)))
  })
})

test('torn transcript with no intact temp: its own salvage restores it; the report says what it keeps and loses', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    const t = real(REAL_CHATS.tenTurns, 'chat-messages.json')
    rmSync(path.join(dir, TEN_TURN_TEMP))
    writeFileSync(path.join(dir, 'chat-messages.json'), cutAt(t, 100_000))
    const {report, snapshot} = await scanOne(dir, home)
    assert.equal(report.status, 'repairable')
    assert.equal(report.winner, 'run-state.json')
    const tr = gen(report, 'chat-messages.json')
    assert.equal(tr.class, 'truncated')
    const s = tr.salvage!
    assert.deepEqual({kind: s.kind, messages: s.messages, turns: s.turns, tornElementDropped: s.tornElementDropped, lossless: s.lossless, candidate: s.candidate}, {kind: 'prefix', messages: 14, turns: 6, tornElementDropped: true, lossless: false, candidate: true})
    assert.deepEqual(report.transcriptRestore, {from: 'salvage:chat-messages.json', to: 'chat-messages.json', turns: 6, messages: 14, bytes: s.bytes, sha256: s.sha256})
    // A lossy salvage holds only a lower bound of the transcript's turns: M is unknown, and N is each
    // generation's own prompt count (the primary's 10).
    assert.equal(report.transcriptTurns, null)
    assert.equal(report.contextTurns, 10)
    const f = report.findings.find((x) => x.id === 'transcript-damaged')!
    assert.match(f.message, /; restorable from salvage:chat-messages\.json \(6 agent turns, 14 messages\); a salvage keeps 14 messages byte for byte \(6 agent turns\) and drops the torn message and 4034 bytes from byte 95966; chat-meta\.json last counted 21 messages$/)
    // The salvage is the torn file's first 95966 bytes and a closing bracket; its embedded copies (the states
    // of turns 1–6, here counted by their own prompts) keep their offsets in the torn file.
    const bytes = codebuff.generationBytes!(snapshot, 'salvage:chat-messages.json')!
    assert.equal(sha256(bytes), s.sha256)
    assert.equal(Buffer.compare(bytes, Buffer.concat([t.subarray(0, 95966), Buffer.from(']')])), 0)
    const embedded = report.generations.filter((g) => g.role === 'embedded')
    assert.deepEqual(embedded.map((g) => g.turns), [1, 2, 3, 4, 5, 6])
    assert.equal(sha256(codebuff.generationBytes!(snapshot, embedded[5].file)!), embedded[5].sha256)
  })
})

test('stale chat-meta.json: an info finding; a matching one: none', async () => {
  await withChat(REAL_CHATS.tenTurns, async (dir, home) => {
    // The real sidecar records the real transcript's mtime, which the copy does not keep: stale.
    writeFileSync(path.join(dir, 'chat-meta.json'), real(REAL_CHATS.tenTurns, 'chat-meta.json'))
    let {report} = await scanOne(dir, home)
    const f = report.findings.find((x) => x.id === 'meta-stale')!
    assert.equal(f.severity, 'info')
    assert.equal(f.file, 'chat-meta.json')
    // Times in messages are ISO dates (the sidecar's 1795998529970.16 ms); the JSON keeps the numbers elsewhere.
    assert.match(f.message, /^sidecar no longer matches chat-messages\.json \(mtime 2026-11-30T00:28:49\.970Z ≠ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z( \([\d.]+ ms apart\))?\)/)
    assert.doesNotMatch(f.message, /\d{13}/, 'no raw epoch milliseconds in the message')
    assert.equal(report.status, 'healthy')
    const st = lstatSync(path.join(dir, 'chat-messages.json'))
    const meta = JSON.parse(readFileSync(path.join(dir, 'chat-meta.json'), 'utf8'))
    writeFileSync(path.join(dir, 'chat-meta.json'), JSON.stringify({...meta, messagesSize: st.size, messagesMtimeMs: st.mtimeMs}))
    ;({report} = await scanOne(dir, home))
    assert.ok(!ids(report).includes('meta-stale'))
    writeFileSync(path.join(dir, 'chat-meta.json'), JSON.stringify({...meta, messagesSize: st.size + 1, messagesMtimeMs: st.mtimeMs}))
    ;({report} = await scanOne(dir, home))
    assert.match(report.findings.find((x) => x.id === 'meta-stale')!.message, /size 203338 ≠ 203337 bytes/)
  })
})
