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
import yazl from 'yazl'
import {tarGz, zipOf, type TarEntry} from './helpers/archives.js'
import {REALDATA, REAL_CHATS, cleanup, hashTree, runCli, tempDir} from './helpers/fixtures.js'

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

interface Checked {
  exitCode: number
  chats: Array<{id: string; path: string; status: string; generations: Array<{file: string; bytes: number}>; findings: Array<{id: string}>}>
  errors: Array<{id: string; path: string; message: string}>
  skipped: Array<{path: string; reason: string}>
}

/**
 * Every non-folder entry of the archive is accounted for in the report: a generation of a chat in its folder,
 * an error naming it, or a `skipped` entry of its folder naming it.
 */
function assertAccounted(rep: Checked, file: string, names: string[]): void {
  for (const n of names) {
    const folder = n.includes('/') ? `${file}/${n.slice(0, n.lastIndexOf('/'))}` : file
    const base = n.slice(n.lastIndexOf('/') + 1)
    const inChat = rep.chats.some((c) => c.path === folder && c.generations.some((g) => g.file === base))
    const named = rep.errors.some((e) => e.path === `${file}/${n}`)
    const listed = rep.skipped.some((s) => s.path === folder && s.reason.includes(base))
    assert.ok(inChat || named || listed, `${n} is not accounted for`)
  }
}

test('check accounts for every archive entry: under a refused link, under an in-archive symbolic link, under a file, duplicate names (tar), entries of no chat', async () => {
  const root = tempDir()
  try {
    const id = REAL_CHATS.small
    const transcript = readFileSync(path.join(SMALL, 'chat-messages.json'))
    const entries: TarEntry[] = [
      ...goodChat(),
      {name: `${id}/link-out`, type: 'symlink', linkname: '../../etc'},
      {name: `${id}/link-out/passwd`, data: Buffer.from('{"x":1}')},
      {name: `${id}/sub`, type: 'symlink', linkname: '.'},
      {name: `${id}/sub/run-state.json`, data: Buffer.from('{}')},
      {name: `${id}/run-state.json/inner.json`, data: Buffer.from('{}')},
      // The same name twice: extraction leaves the second (a torn transcript).
      {name: `${id}/chat-messages.json`, data: transcript.subarray(0, 3000)},
      {name: 'README.txt', data: Buffer.from('notes')},
      {name: 'notes/a.txt', data: Buffer.from('a')},
    ]
    const file = path.join(root, 'mixed.tar.gz')
    writeFileSync(file, await tarGz(entries))
    const rep = check([file]) as unknown as Checked
    const ids = (id0: string) => rep.errors.filter((e) => e.id === id0)
    assert.deepEqual(ids('archive-entry-escapes').map((e) => e.path), [`${file}/${id}/link-out`])
    const hidden = ids('archive-member-hidden')
    assert.deepEqual(hidden.map((e) => e.path).sort(), [`${file}/${id}/link-out/passwd`, `${file}/${id}/run-state.json/inner.json`, `${file}/${id}/sub/run-state.json`])
    assert.match(hidden.find((e) => e.path.endsWith('passwd'))!.message, /under "[^"]+\/link-out", a link that was refused/)
    assert.match(hidden.find((e) => e.path.endsWith('sub/run-state.json'))!.message, /a symbolic link inside the archive \(links are never followed\)/)
    assert.match(hidden.find((e) => e.path.endsWith('inner.json'))!.message, /which is a file in the archive/)
    const dup = ids('archive-duplicate-member')
    assert.deepEqual(dup.map((e) => e.path), [`${file}/${id}/chat-messages.json`])
    assert.match(dup[0].message, /occurs 2 times.*only the last copy/)
    assert.equal(rep.exitCode & 8, 8)
    // The chat is diagnosed from what extraction would leave: the second, torn transcript.
    assert.equal(rep.chats.length, 1)
    assert.equal(rep.chats[0].generations.find((g) => g.file === 'chat-messages.json')!.bytes, 3000)
    assert.ok(rep.chats[0].findings.some((f) => f.id === 'transcript-damaged'))
    // Entries of no chat are listed, per folder, with what they are.
    assert.ok(rep.skipped.some((s) => s.path === file && /1 archive entry not part of any chat.*README\.txt/.test(s.reason)))
    assert.ok(rep.skipped.some((s) => s.path === `${file}/notes` && /a\.txt/.test(s.reason)))
    assertAccounted(rep, file, entries.filter((e) => e.type !== 'directory').map((e) => e.name))
    // Human output: one line per problem.
    const human = runCli(['check', file])
    assert.equal(human.status & 8, 8)
    assert.match(human.stderr, /occurs 2 times/)
    assert.match(human.stderr, /symbolic link inside the archive/)
  } finally {
    cleanup(root)
  }
})

test('check accounts for every zip entry: duplicate names and an entry under an in-archive symbolic link', async () => {
  const root = tempDir()
  try {
    const id = REAL_CHATS.small
    const entries = [
      ...readdirSync(SMALL).map((n) => ({name: `${id}/${n}`, data: readFileSync(path.join(SMALL, n))})),
      {name: `${id}/run-state.json`, data: Buffer.from('{"torn":')},
      {name: `${id}/alias`, data: Buffer.from('.'), mode: 0o120777},
      {name: `${id}/alias/run-state.json`, data: Buffer.from('{}')},
    ]
    const file = path.join(root, 'dups.zip')
    writeFileSync(file, await zipOf(entries))
    const rep = check([file]) as unknown as Checked
    assert.deepEqual(rep.errors.map((e) => [e.id, e.path]).sort(), [
      ['archive-duplicate-member', `${file}/${id}/run-state.json`],
      ['archive-member-hidden', `${file}/${id}/alias/run-state.json`],
    ])
    assert.equal(rep.exitCode & 8, 8)
    // The last copy is what is diagnosed: a torn primary, never the first copy silently.
    assert.equal(rep.chats[0].generations.find((g) => g.file === 'run-state.json')!.bytes, 8)
    assert.notEqual(rep.chats[0].status, 'healthy')
    assertAccounted(rep, file, entries.map((e) => e.name))
  } finally {
    cleanup(root)
  }
})
