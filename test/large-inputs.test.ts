/**
 * Large inputs in bounded memory, measured on the built CLI's peak resident set (its kernel high-water mark):
 * `check` refuses an archive bomb before holding its bytes, and `bundle` streams every chat file into the
 * archive and the archive to disk, so neither holds a file whole. The 2 GiB `bundle` case runs only with
 * `CHATDOCTOR_LARGE=1` (its sparse file costs no disk, but reading it takes a while); the rest always runs.
 */
import assert from 'node:assert/strict'
import {appendFileSync, cpSync, existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {archiveStream, SourceChangedError} from '../src/lib/archive/write.js'
import {RecordingFileSystem, nodeFileSystem} from '../src/lib/fsio/fs.js'
import {writeStreamDurable} from '../src/lib/fsio/output.js'
import {writeZeroBomb} from './helpers/archives.js'
import {REALDATA, REAL_CHATS, cleanup, tempDir} from './helpers/fixtures.js'
import {runCliPeakRss} from './helpers/peak-rss.js'

const MiB = 1024 * 1024
/** The bound every large input must stay under (a Node process with chatdoctor loaded is ~80-120 MB). */
const BOUND = 256 * MiB
const large = process.env.CHATDOCTOR_LARGE === '1'

test('check: a 2 MB tar.gz expanding to 2 GiB of zeros is refused as too large, holding none of it', async () => {
  const root = tempDir('chatdoctor-bomb-')
  try {
    // 32 members of 64 MiB, each one a name a diagnosis reads (so a reader that kept members would hold them).
    const bomb = path.join(root, 'bomb.tar.gz')
    const size = await writeZeroBomb(bomb, 32, 64 * MiB, (i) => `${REAL_CHATS.small}-${i}/run-state.json`)
    assert.ok(size < 4 * MiB, `the bomb is small on disk (${size} bytes)`)
    const r = await runCliPeakRss(['check', '--json', bomb], root)
    const rep = JSON.parse(r.stdout) as {exitCode: number; chats: unknown[]; errors: Array<{id: string; message: string}>}
    assert.equal(r.status, 8)
    assert.equal(rep.exitCode, 8)
    assert.deepEqual(rep.errors.map((e) => e.id), ['archive-too-large'])
    assert.match(rep.errors[0].message, /more than 1073741824 uncompressed bytes.*--max-bytes/)
    assert.equal(rep.chats.length, 0)
    assert.ok(r.peakRssBytes < BOUND, `peak RSS ${Math.round(r.peakRssBytes / MiB)} MiB`)

    // One member over the per-member cap is refused by its header, before a byte of it is read.
    const one = path.join(root, 'one.tar.gz')
    await writeZeroBomb(one, 1, 80 * MiB, () => `${REAL_CHATS.small}/run-state.json`)
    const r1 = await runCliPeakRss(['check', '--json', '--max-member-bytes', String(64 * MiB), one], root)
    const rep1 = JSON.parse(r1.stdout) as {exitCode: number; errors: Array<{id: string; message: string}>}
    assert.equal(rep1.exitCode, 8)
    assert.deepEqual(rep1.errors.map((e) => e.id), ['archive-too-large'])
    assert.match(rep1.errors[0].message, /run-state\.json" holds more than 67108864 uncompressed bytes.*--max-member-bytes/)
  } finally {
    cleanup(root)
  }
})

/** A real Codebuff chat with a sparse file of `bytes` zeros beside its generations (no disk used). */
function chatWithSparse(root: string, bytes: number): {chat: string; big: string} {
  const chat = path.join(root, 'chats', REAL_CHATS.small)
  cpSync(path.join(REALDATA, 'codebuff', REAL_CHATS.small), chat, {recursive: true})
  const big = path.join(chat, 'attachment.bin')
  writeFileSync(big, '')
  truncateSync(big, bytes)
  return {chat, big}
}

interface BundleJson {
  exitCode: number
  errors: Array<{path: string; message: string}>
  bundle: {file: string; bytes: number; sha256: string; chats: number} | null
}

async function bundleBounded(root: string, bytes: number, out: string) {
  const {chat} = chatWithSparse(root, bytes)
  const r = await runCliPeakRss(['bundle', '--json', chat, '-o', out], root)
  assert.doesNotMatch(r.stderr, /\n\s+at |ERR_FS_FILE_TOO_LARGE/, 'no stack trace')
  return {...r, rep: JSON.parse(r.stdout) as BundleJson, chat}
}

for (const kind of ['tar.gz', 'zip'] as const) {
  test(`bundle (${kind}): a chat holding a 300 MB file is streamed into the archive in bounded memory, and the bundle checks clean`, async () => {
    const root = tempDir('chatdoctor-bundle-large-')
    try {
      const out = path.join(root, `out.${kind}`)
      const r = await bundleBounded(root, 300 * MiB, out)
      assert.deepEqual(r.rep.errors, [])
      assert.equal(r.status, 0)
      assert.equal(r.rep.bundle?.chats, 1)
      assert.equal(r.rep.bundle?.bytes, statSync(out).size)
      assert.ok(r.peakRssBytes < BOUND, `peak RSS ${Math.round(r.peakRssBytes / MiB)} MiB`)
      // The manifest written after the streamed files holds their sha256: check verifies every one.
      const c = await runCliPeakRss(['check', '--json', out], root)
      const rep = JSON.parse(c.stdout) as {errors: unknown[]; chats: Array<{id: string}>}
      assert.deepEqual(rep.errors, [])
      assert.deepEqual(rep.chats.map((x) => x.id), [REAL_CHATS.small])
      assert.equal(readdirSync(root).some((n) => n.endsWith('.tmp')), false, 'no temp left beside the output')
    } finally {
      cleanup(root)
    }
  })
}

test('bundle: a chat holding a 2.1 GB file (over the 2 GiB a whole-file read allows) is bundled in bounded memory, no stack trace', {skip: large ? false : 'reads 2.1 GB: set CHATDOCTOR_LARGE=1'}, async () => {
  const root = tempDir('chatdoctor-bundle-large-')
  try {
    const out = path.join(root, 'out.tar.gz')
    const r = await bundleBounded(root, 2100 * MiB, out)
    assert.deepEqual(r.rep.errors, [])
    assert.equal(r.status, 0)
    assert.ok(r.peakRssBytes < BOUND, `peak RSS ${Math.round(r.peakRssBytes / MiB)} MiB`)
    // --redact must hold a file it parses: that chat is refused with one line, nothing written.
    const red = await runCliPeakRss(['bundle', '--json', '--redact', r.chat, '-o', path.join(root, 'red.tar.gz')], root)
    const rep = JSON.parse(red.stdout) as BundleJson
    assert.equal(red.status, 8)
    assert.equal(rep.errors.length, 1)
    assert.match(rep.errors[0].message, /attachment\.bin holds \d+ bytes, more than --redact can read whole.*without --redact/)
    assert.doesNotMatch(red.stderr, /\n\s+at /)
    assert.equal(existsSync(path.join(root, 'red.tar.gz')), false)
  } finally {
    cleanup(root)
  }
})

test('a file that changes while it is streamed into a bundle is an error naming its chat, never a silent mix', async () => {
  const root = tempDir('chatdoctor-bundle-change-')
  try {
    const file = path.join(root, 'log.jsonl')
    writeFileSync(file, '{"a":1}\n'.repeat(1000))
    const st = statSync(file)
    for (const kind of ['tar.gz', 'tar', 'zip'] as const) {
      // Listed as it was, then appended to before the archive reads it (an agent writing during the bundle).
      const input = {path: 'chat/log.jsonl', kind: 'file' as const, mtimeMs: st.mtimeMs, owner: '~/chat', source: {abs: file, bytes: st.size, mtimeMs: st.mtimeMs}}
      appendFileSync(file, '{"b":2}\n')
      const chunks: Buffer[] = []
      await assert.rejects(
        (async () => {
          for await (const c of archiveStream(kind, [input])) chunks.push(c as Buffer)
        })(),
        (e: unknown) => e instanceof SourceChangedError && e.input.owner === '~/chat' && /changed while it was being bundled/.test(e.message),
      )
      // Unchanged, the same member streams and reports its sha256.
      const now = statSync(file)
      let sha = ''
      const ok = {...input, source: {abs: file, bytes: now.size, mtimeMs: now.mtimeMs}, onStreamed: (h: string) => (sha = h)}
      for await (const c of archiveStream(kind, [ok])) void c
      assert.match(sha, /^[0-9a-f]{64}$/)
      writeFileSync(file, '{"a":1}\n'.repeat(1000))
      Object.assign(st, statSync(file))
    }
  } finally {
    cleanup(root)
  }
})

test('writeStreamDurable: chunks go through the write seam (temp, fsync, rename, fsync dir); a failing source or ENOSPC leaves the target as it was, no temp', async () => {
  const root = tempDir('chatdoctor-stream-write-')
  try {
    const target = path.join(root, 'out.tar.gz')
    async function* chunks(n: number, failAt = -1): AsyncGenerator<Buffer> {
      for (let i = 0; i < n; i++) {
        if (i === failAt) throw new Error('the archive could not be made')
        yield Buffer.alloc(1000, i)
      }
    }
    const rec = new RecordingFileSystem(nodeFileSystem())
    const w = await writeStreamDurable(target, chunks(5), {overwrite: false}, rec)
    assert.equal(w.bytes, 5000)
    assert.equal(statSync(target).size, 5000)
    const ops = rec.mutations().map((t) => t.op)
    assert.deepEqual(ops, ['mkdir', 'open', 'write', 'write', 'write', 'write', 'write', 'fsync', 'close', 'rename', 'fsyncDir'])
    const before = readFileSync(target)
    await assert.rejects(writeStreamDurable(target, chunks(5, 3), {overwrite: true}), /could not be made/)
    await assert.rejects(writeStreamDurable(target, chunks(5), {overwrite: true}, new RecordingFileSystem(nodeFileSystem(), [{op: 'write', code: 'ENOSPC', times: 1}])), /ENOSPC/)
    await assert.rejects(writeStreamDurable(target, chunks(5), {overwrite: false}), /already exists.*--force/)
    assert.deepEqual(readFileSync(target), before)
    assert.deepEqual(readdirSync(root), ['out.tar.gz'])
  } finally {
    cleanup(root)
  }
})
