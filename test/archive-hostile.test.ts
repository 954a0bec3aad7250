/**
 * Hostile archives: entries that escape (`../`, absolute paths, symbolic and hard links pointing
 * outside) are refused with `archive-entry-escapes` (exit bit 8) while the rest is diagnosed; archives over
 * the caps are refused with `archive-too-large`; nothing is ever written, inside or outside the temp folder.
 */
import assert from 'node:assert/strict'
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {test} from 'node:test'
import {gzipSync} from 'node:zlib'
import tarStream from 'tar-stream'
import yazl from 'yazl'
import {REALDATA, REAL_CHATS, cleanup, hashTree, runCli, tempDir} from './helpers/fixtures.js'

interface TarEntry {
  name: string
  type?: 'file' | 'symlink' | 'link' | 'directory'
  linkname?: string
  data?: Buffer
}

/** A .tar.gz with exactly these headers (tar-stream writes any name it is given). */
async function tarGz(entries: TarEntry[]): Promise<Buffer> {
  const pack = tarStream.pack()
  const chunks: Buffer[] = []
  const done = (async () => {
    for await (const c of pack) chunks.push(c as Buffer)
  })()
  for (const e of entries) {
    await new Promise<void>((resolve, reject) => {
      const cb = (err?: Error | null) => (err ? reject(err) : resolve())
      if (e.type === 'symlink' || e.type === 'link' || e.type === 'directory') pack.entry({name: e.name, type: e.type, linkname: e.linkname, mtime: new Date(0)}, cb)
      else pack.entry({name: e.name, type: 'file', size: e.data!.length, mtime: new Date(0)}, e.data!, cb)
    })
  }
  pack.finalize()
  await done
  return gzipSync(Buffer.concat(chunks))
}

const SMALL = path.join(REALDATA, 'codebuff', REAL_CHATS.small)
const goodChat = (): TarEntry[] => readdirSync(SMALL).map((n) => ({name: `${REAL_CHATS.small}/${n}`, data: readFileSync(path.join(SMALL, n))}))

function check(args: string[]) {
  const r = runCli(['check', '--json', ...args])
  const rep = JSON.parse(r.stdout) as {exitCode: number; chats: Array<{id: string; status: string}>; errors: Array<{id: string; path: string; message: string}>}
  assert.equal(rep.exitCode, r.status)
  return rep
}

test('entries escaping the archive are refused (never written) and reported; the rest is still diagnosed', async () => {
  const root = tempDir()
  const outsideName = `chatdoctor-escape-${process.pid}.json`
  try {
    const box = path.join(root, 'box')
    const file = path.join(root, 'box', 'hostile.tar.gz')
    const {mkdirSync} = await import('node:fs')
    mkdirSync(box)
    writeFileSync(
      file,
      await tarGz([
        ...goodChat(),
        {name: `../${outsideName}`, data: Buffer.from('{"x":1}')},
        {name: `../../../../../../../../tmp/${outsideName}`, data: Buffer.from('{}')},
        {name: `/tmp/${outsideName}`, data: Buffer.from('{}')},
        {name: `${REAL_CHATS.small}/../../${outsideName}`, data: Buffer.from('{}')},
        {name: `${REAL_CHATS.small}/link-out`, type: 'symlink', linkname: '../../etc/passwd'},
        {name: `${REAL_CHATS.small}/link-abs`, type: 'symlink', linkname: '/etc/passwd'},
        {name: `${REAL_CHATS.small}/hard-out`, type: 'link', linkname: '../etc/shadow'},
        {name: `${REAL_CHATS.small}/link-in`, type: 'symlink', linkname: 'run-state.json'},
      ]),
    )
    const before = hashTree(root)
    const tmpBefore = readdirSync(os.tmpdir()).filter((n) => n.includes(outsideName))
    const rep = check([file])
    assert.deepEqual(hashTree(root), before, 'nothing written in the temp folder')
    assert.deepEqual(readdirSync(os.tmpdir()).filter((n) => n.includes(outsideName)), tmpBefore)
    assert.equal(existsSync(path.join(root, outsideName)), false)
    assert.equal(existsSync(path.join('/tmp', outsideName)), false)
    const escapes = rep.errors.filter((e) => e.id === 'archive-entry-escapes')
    assert.equal(escapes.length, 7, JSON.stringify(rep.errors))
    assert.ok(escapes.every((e) => e.path.startsWith(file + '/')))
    assert.ok(escapes.some((e) => /absolute path/.test(e.message)))
    assert.ok(escapes.some((e) => /climbs out/.test(e.message)))
    assert.ok(escapes.some((e) => /symbolic link pointing outside/.test(e.message)))
    assert.ok(escapes.some((e) => /hard link pointing outside/.test(e.message)))
    assert.equal(rep.exitCode & 8, 8)
    assert.deepEqual(rep.chats.map((c) => [c.id, c.status]), [[REAL_CHATS.small, 'healthy']])
    // Human output: a one-line error per refused entry, no stack trace.
    const human = runCli(['check', file])
    assert.equal(human.status, 8)
    assert.match(human.stderr, /refused: the path climbs out of the archive/)
    assert.doesNotMatch(human.stderr, /\n\s+at /)
  } finally {
    cleanup(root)
  }
})

test('the ./ root entry tar writes is passed over, but ./-prefixed escapes, a file or link named ./ and an absolute root stay refused', async () => {
  const root = tempDir()
  try {
    const file = path.join(root, 'dot.tar.gz')
    writeFileSync(
      file,
      await tarGz([
        {name: './', type: 'directory'},
        {name: `./${REAL_CHATS.small}/`, type: 'directory'},
        ...goodChat().map((e) => ({...e, name: `./${e.name}`})),
        {name: './../escape.json', data: Buffer.from('{}')},
        {name: `./${REAL_CHATS.small}/./../../escape.json`, data: Buffer.from('{}')},
        {name: './/', type: 'symlink', linkname: 'anything'},
        {name: './', data: Buffer.from('{}')},
        {name: '/./', type: 'directory'},
      ]),
    )
    const rep = check([file])
    assert.deepEqual(rep.chats.map((c) => [c.id, c.status]), [[REAL_CHATS.small, 'healthy']])
    const escapes = rep.errors.filter((e) => e.id === 'archive-entry-escapes')
    assert.deepEqual(
      escapes.map((e) => e.message.replace(/^entry "(.*)" refused: (.*); it was not read$/, '$1: $2')),
      [
        './../escape.json: the path climbs out of the archive with ".."',
        `./${REAL_CHATS.small}/./../../escape.json: the path climbs out of the archive with ".."`,
        './/: empty name',
        './: empty name',
        '/./: absolute path',
      ],
    )
    assert.equal(rep.errors.length, escapes.length)
    assert.equal(rep.exitCode, 8)
  } finally {
    cleanup(root)
  }
})

test('a zip entry named ../x is refused too', async () => {
  const root = tempDir()
  try {
    const zip = new yazl.ZipFile()
    for (const n of readdirSync(SMALL)) zip.addBuffer(readFileSync(path.join(SMALL, n)), `${REAL_CHATS.small}/${n}`)
    zip.addBuffer(Buffer.from('{}'), 'xx/evil.json') // renamed to ../evil.json below: yazl itself refuses such names
    zip.end()
    const chunks: Buffer[] = []
    for await (const c of zip.outputStream) chunks.push(c as Buffer)
    let bytes = Buffer.concat(chunks)
    const from = Buffer.from('xx/evil.json')
    const to = Buffer.from('../evil.json')
    let at = bytes.indexOf(from)
    let n = 0
    while (at >= 0) {
      to.copy(bytes, at)
      n++
      at = bytes.indexOf(from, at + 1)
    }
    assert.equal(n, 2, 'local header and central directory')
    const file = path.join(root, 'hostile.zip')
    writeFileSync(file, bytes)
    bytes = Buffer.alloc(0)
    const rep = check([file])
    assert.deepEqual(rep.errors.map((e) => [e.id, e.path]), [['archive-entry-escapes', `${file}/../evil.json`]])
    assert.equal(rep.chats.length, 1)
    assert.equal(rep.exitCode, 8)
    assert.equal(existsSync(path.join(root, '..', 'evil.json')), false)
  } finally {
    cleanup(root)
  }
})

test('archives over the caps are refused with a clear finding: entries, declared bytes, and a gzip bomb', async () => {
  const root = tempDir()
  try {
    const many = path.join(root, 'many.tar.gz')
    writeFileSync(many, await tarGz([...goodChat(), ...Array.from({length: 30}, (_, i) => ({name: `pad/${i}.txt`, data: Buffer.from('x')}))]))
    let rep = check(['--max-entries', '20', many])
    assert.deepEqual(rep.errors.map((e) => e.id), ['archive-too-large'])
    assert.match(rep.errors[0].message, /more than 20 entries.*--max-entries/)
    assert.equal(rep.chats.length, 0, 'nothing of an archive over a cap is diagnosed')
    assert.equal(rep.exitCode, 8)
    assert.equal(check([many]).errors.length, 0, 'under the default caps it is read')

    // 64 MiB of zeros in one member compress to ~64 KiB; a 1 MiB cap stops it before it is read.
    const bomb = path.join(root, 'bomb.tgz')
    writeFileSync(bomb, await tarGz([{name: 'zeros.bin', data: Buffer.alloc(64 * 1024 * 1024)}]))
    assert.ok(readFileSync(bomb).length < 1024 * 1024)
    rep = check(['--max-bytes', String(1024 * 1024), bomb])
    assert.deepEqual(rep.errors.map((e) => e.id), ['archive-too-large'])
    assert.match(rep.errors[0].message, /more than 1048576 uncompressed bytes/)

    // The same cap on a zip.
    const zip = new yazl.ZipFile()
    zip.addBuffer(Buffer.alloc(8 * 1024 * 1024), 'zeros.bin')
    zip.end()
    const chunks: Buffer[] = []
    for await (const c of zip.outputStream) chunks.push(c as Buffer)
    const zfile = path.join(root, 'bomb.zip')
    writeFileSync(zfile, Buffer.concat(chunks))
    rep = check(['--max-bytes', String(1024 * 1024), zfile])
    assert.deepEqual(rep.errors.map((e) => e.id), ['archive-too-large'])

    // Not an archive at all.
    const junk = path.join(root, 'junk.tgz')
    writeFileSync(junk, Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.alloc(200, 7)]))
    rep = check([junk])
    assert.deepEqual(rep.errors.map((e) => e.id), ['archive-unreadable'])
    assert.equal(rep.exitCode, 8)
  } finally {
    cleanup(root)
  }
})
