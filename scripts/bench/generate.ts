/**
 * Benchmark inputs, generated deterministically from a seed out of the real Codebuff chats in
 * `shared/realdata/codebuff` (found as the tests find it: `test/helpers/fixtures.ts`). Nothing here is
 * hand-written chat content: every document is a real one, repeated, cut or damaged by code.
 *
 * Inputs (folders under `root`):
 * - `fleet/`: 5,000 chat dirs (~20 KB run-state, `.bak`, transcript, meta), 5% damaged in assorted ways.
 * - `fleet-links/`: the same 5,000-dir layout whose files are hard links to ~20 MB documents (for `--quick`,
 *   whose time must not grow with file sizes; never fully scanned: that would read 250 GB).
 * - `large/`: 50 chats with 2–20 MB run-states and transcripts, compact and pretty.
 * - `big/`: one chat with a ~200 MB compact run-state.
 * - `salvage/`: 10 chats whose 2–20 MB run-states are cut at 50–95% (truncated: salvage input).
 * - `huge/` (only with `BENCH_HUGE=1`): one chat with a ~1 GiB compact run-state (the streaming path).
 */
import {closeSync, linkSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync} from 'node:fs'
import path from 'node:path'
import {REAL_CHATS, REALDATA, TEN_TURN_TEMP, cutAt, seededRandom, invalidByteAt, nulRunAt, nulTailAt, withBom, zeroFill} from '../../test/helpers/fixtures.js'


/** A Codebuff chat id for the n-th generated chat (UTC time with `:` as `-`). */
function chatId(n: number): string {
  return new Date(Date.UTC(2026, 0, 1) + n * 61_000).toISOString().replace(/:/g, '-')
}

function chatDir(root: string, project: string, id: string): string {
  const d = path.join(root, '.config', 'manicode', 'projects', project, 'chats', id)
  mkdirSync(d, {recursive: true})
  return d
}

const src = (chat: string, file: string) => readFileSync(path.join(REALDATA, 'codebuff', chat, file))

/** The tiers of damage applied to 5% of the fleet, in turn. */
const FLEET_DAMAGE = ['truncated-primary', 'zero-filled-primary', 'nul-tail-primary', 'empty-primary', 'bom-primary', 'invalid-utf8-primary', 'nul-run-primary', 'missing-primary', 'truncated-transcript', 'complete-temp', 'torn-temp', 'damaged-backup'] as const

export interface InputInfo {
  name: string
  dir: string
  chats: number
  files: number
  /** Bytes of all generation files (what a full scan reads). */
  bytes: number
  largestFile: number
  note?: string
}

/**
 * Fleet: small chats, 5% damaged. `shape: 'real'` keeps the transcript as the CLI writes it (every completed
 * AI message embeds its RunState in `metadata.runState`: 203 KB for the 10-turn chat); `'stripped'` removes
 * those copies (the older transcript style, 28 KB). Returns counts.
 */
export function makeFleet(root: string, seed: number, chats = 5000, shape: 'real' | 'stripped' = 'real', name = 'fleet'): InputInfo {
  const rand = seededRandom(seed)
  const primary = src(REAL_CHATS.tenTurns, 'run-state.json')
  const bak = src(REAL_CHATS.tenTurns, 'run-state.json.bak')
  const temp = src(REAL_CHATS.tenTurns, TEN_TURN_TEMP)
  const meta = src(REAL_CHATS.tenTurns, 'chat-meta.json')
  const realTranscript = src(REAL_CHATS.tenTurns, 'chat-messages.json')
  let transcript = realTranscript
  if (shape === 'stripped') {
    // The 10-turn transcript without the RunState copies its AI messages embed (the older transcript style).
    const transcriptValue = JSON.parse(realTranscript.toString('utf8')) as Array<{metadata?: {runState?: unknown}}>
    for (const m of transcriptValue) if (m.metadata) delete m.metadata.runState
    transcript = Buffer.from(JSON.stringify(transcriptValue))
  }
  let files = 0
  let bytes = 0
  let largest = 0
  const put = (d: string, name: string, data: Buffer) => {
    writeFileSync(path.join(d, name), data)
    files++
    bytes += data.length
    largest = Math.max(largest, data.length)
  }
  const damaged = new Set<number>()
  while (damaged.size < Math.round(chats * 0.05)) damaged.add(Math.floor(rand() * chats))
  let k = 0
  for (let i = 0; i < chats; i++) {
    const d = chatDir(root, `project-${String(Math.floor(i / 100)).padStart(2, '0')}`, chatId(i))
    let p: Buffer | null = primary
    let b: Buffer = bak
    let t: Buffer = transcript
    let extra: [string, Buffer] | null = null as [string, Buffer] | null
    if (damaged.has(i)) {
      const kind = FLEET_DAMAGE[k++ % FLEET_DAMAGE.length]
      const at = 100 + Math.floor(rand() * (primary.length - 200))
      if (kind === 'truncated-primary') p = cutAt(primary, at)
      else if (kind === 'zero-filled-primary') p = zeroFill(primary)
      else if (kind === 'nul-tail-primary') p = nulTailAt(primary, at)
      else if (kind === 'empty-primary') p = Buffer.alloc(0)
      else if (kind === 'bom-primary') p = withBom(primary)
      else if (kind === 'invalid-utf8-primary') p = invalidByteAt(primary, at)
      else if (kind === 'nul-run-primary') p = nulRunAt(primary, at, Math.min(4096, primary.length - at - 1))
      else if (kind === 'missing-primary') p = null
      else if (kind === 'truncated-transcript') t = cutAt(transcript, Math.floor(rand() * transcript.length))
      else if (kind === 'complete-temp') extra = [TEN_TURN_TEMP, temp]
      else if (kind === 'torn-temp') extra = [TEN_TURN_TEMP, cutAt(temp, at)]
      else if (kind === 'damaged-backup') b = nulTailAt(bak, Math.min(at, bak.length - 1))
    }
    if (p) put(d, 'run-state.json', p)
    put(d, 'run-state.json.bak', b)
    put(d, 'chat-messages.json', t)
    put(d, 'chat-meta.json', meta)
    if (extra) put(d, extra[0], extra[1])
  }
  const what = shape === 'real' ? 'transcripts with their embedded RunState copies' : 'transcripts stripped of embedded copies'
  return {name, dir: root, chats, files, bytes, largestFile: largest, note: `${damaged.size} damaged; ${what}`}
}

interface Doc {
  value: Record<string, unknown>
  history: unknown[]
}

function largeRunState(): Doc {
  const value = JSON.parse(src(REAL_CHATS.large, 'run-state.json').toString('utf8')) as Record<string, unknown>
  const history = (value as {sessionState: {mainAgentState: {messageHistory: unknown[]}}}).sessionState.mainAgentState.messageHistory
  return {value, history}
}

/** The run-state with its message history repeated cyclically until it reaches about `target` bytes. */
function runStateOfSize(doc: Doc, target: number, pretty: boolean): Buffer {
  const base = Buffer.byteLength(JSON.stringify(doc.value, null, pretty ? 2 : 0))
  const n = Math.max(1, Math.round(doc.history.length * (target / base)))
  const history = Array.from({length: n}, (_, i) => doc.history[i % doc.history.length])
  const rs = doc.value as {sessionState: {mainAgentState: Record<string, unknown>}}
  const value = {...rs, sessionState: {...rs.sessionState, mainAgentState: {...rs.sessionState.mainAgentState, messageHistory: history}}}
  return Buffer.from(JSON.stringify(value, null, pretty ? 2 : 0))
}

/** The large chat's transcript with its messages repeated cyclically to about `target` bytes. */
function transcriptOfSize(target: number, pretty: boolean): Buffer {
  const messages = JSON.parse(src(REAL_CHATS.large, 'chat-messages.json').toString('utf8')) as unknown[]
  const base = Buffer.byteLength(JSON.stringify(messages, null, pretty ? 2 : 0))
  const n = Math.max(2, Math.round(messages.length * (target / base)))
  return Buffer.from(JSON.stringify(Array.from({length: n}, (_, i) => messages[i % messages.length]), null, pretty ? 2 : 0))
}

/** 50 chats with 2–20 MB run-states (log-uniform sizes) and transcripts; even chats compact, odd pretty. */
export function makeLarge(root: string, seed: number, chats = 50): InputInfo {
  const rand = seededRandom(seed + 1)
  const doc = largeRunState()
  let files = 0
  let bytes = 0
  let largest = 0
  for (let i = 0; i < chats; i++) {
    const size = 2e6 * Math.pow(10, rand())
    const pretty = i % 2 === 1
    const d = chatDir(root, 'large', chatId(10_000 + i))
    const rs = runStateOfSize(doc, size, pretty)
    const tr = transcriptOfSize(2e6 * Math.pow(10, rand()), pretty)
    writeFileSync(path.join(d, 'run-state.json'), rs)
    writeFileSync(path.join(d, 'chat-messages.json'), tr)
    files += 2
    bytes += rs.length + tr.length
    largest = Math.max(largest, rs.length, tr.length)
  }
  return {name: 'large', dir: root, chats, files, bytes, largestFile: largest, note: '2–20 MB states and transcripts, half pretty'}
}

/**
 * Writes a compact run-state of about `target` bytes without holding it in memory (history streamed). With
 * `cutAt`, the file stops after that many bytes (a torn primary: the write that was cut off).
 */
function writeHugeRunState(file: string, target: number, cutAt?: number): number {
  const doc = largeRunState()
  const rs = doc.value as {sessionState: {mainAgentState: Record<string, unknown>}}
  const MARK = '"__chatdoctor_bench_history__"'
  const shell = JSON.stringify({...rs, sessionState: {...rs.sessionState, mainAgentState: {...rs.sessionState.mainAgentState, messageHistory: ['__chatdoctor_bench_history__']}}})
  const [head, tail] = shell.split(MARK)
  const parts = doc.history.map((m) => Buffer.from(JSON.stringify(m)))
  const fd = openSync(file, 'w')
  const limit = cutAt ?? Infinity
  let written = 0
  const put = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b) : b
    const n = Math.min(buf.length, limit - written)
    if (n > 0) written += writeSync(fd, buf, 0, n)
  }
  put(head)
  let i = 0
  const comma = Buffer.from(',')
  let full = Buffer.byteLength(head)
  while (full + tail.length < target) {
    if (i > 0) {
      put(comma)
      full += 1
    }
    put(parts[i % parts.length])
    full += parts[i % parts.length].length
    i++
  }
  put(tail)
  closeSync(fd)
  return written
}

/**
 * One chat with a run-state of about `target` bytes (compact) and the real large transcript. With `tornAt`,
 * the primary is that state cut after `tornAt` bytes and the intact state is its `.bak` (a torn save of a
 * large chat: the generation before it is whole).
 */
export function makeBig(root: string, name: string, target: number, tornAt?: number): InputInfo {
  const d = chatDir(root, name, chatId(20_000))
  const tr = src(REAL_CHATS.large, 'chat-messages.json')
  writeFileSync(path.join(d, 'chat-messages.json'), tr)
  if (tornAt === undefined) {
    const rsBytes = writeHugeRunState(path.join(d, 'run-state.json'), target)
    return {name, dir: root, chats: 1, files: 2, bytes: rsBytes + tr.length, largestFile: rsBytes, note: `${(rsBytes / 1e6).toFixed(0)} MB compact run-state`}
  }
  const bak = writeHugeRunState(path.join(d, 'run-state.json.bak'), target)
  const cut = writeHugeRunState(path.join(d, 'run-state.json'), target, tornAt)
  return {name, dir: root, chats: 1, files: 3, bytes: bak + cut + tr.length, largestFile: bak, note: `run-state cut at ${(cut / 1e6).toFixed(0)} MB, its ${(bak / 1e6).toFixed(0)} MB .bak intact`}
}

/** 10 chats whose 2–20 MB run-states are cut at 50–95% of their length (no NUL tail). */
export function makeSalvage(root: string, seed: number, chats = 10): InputInfo {
  const rand = seededRandom(seed + 2)
  const doc = largeRunState()
  let bytes = 0
  let largest = 0
  for (let i = 0; i < chats; i++) {
    const full = runStateOfSize(doc, 2e6 * Math.pow(10, rand()), i % 2 === 1)
    const cut = cutAt(full, Math.floor(full.length * (0.5 + 0.45 * rand())))
    const d = chatDir(root, 'salvage', chatId(30_000 + i))
    writeFileSync(path.join(d, 'run-state.json'), cut)
    bytes += cut.length
    largest = Math.max(largest, cut.length)
  }
  return {name: 'salvage', dir: root, chats, files: chats, bytes, largestFile: largest, note: 'run-states cut at 50–95%'}
}

/**
 * The fleet's layout (5,000 dirs) with every file a hard link to one of four documents: a ~20 MB run-state,
 * a ~20 MB `.bak`, the real 2.9 MB transcript and the meta. Only `--quick` runs on it.
 */
export function makeFleetLinks(root: string, chats = 5000): InputInfo {
  const doc = largeRunState()
  const store = path.join(root, 'store')
  mkdirSync(store, {recursive: true})
  const docs: Array<[string, Buffer]> = [
    ['run-state.json', runStateOfSize(doc, 20e6, false)],
    ['run-state.json.bak', runStateOfSize(doc, 19e6, false)],
    ['chat-messages.json', src(REAL_CHATS.large, 'chat-messages.json')],
    ['chat-meta.json', src(REAL_CHATS.large, 'chat-meta.json')],
  ]
  for (const [name, data] of docs) writeFileSync(path.join(store, name), data)
  const tree = path.join(root, 'tree')
  for (let i = 0; i < chats; i++) {
    const d = chatDir(tree, `project-${String(Math.floor(i / 100)).padStart(2, '0')}`, chatId(i))
    for (const [name] of docs) linkSync(path.join(store, name), path.join(d, name))
  }
  const per = docs.reduce((s, [, b]) => s + b.length, 0)
  return {name: 'fleet-links', dir: tree, chats, files: chats * docs.length, bytes: chats * per, largestFile: docs[0][1].length, note: 'hard links to ~20 MB states'}
}
