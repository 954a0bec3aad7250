/**
 * `chatdoctor bundle` and `check` end to end: round trip real chat dir → bundle → check gives the
 * same verdict as scanning the dir; manifest verification; manifest mtimes used for ranking; a redacted
 * bundle diagnoses the same (also damaged) and carries none of the original strings or paths.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {readFileSync, readdirSync, writeFileSync, existsSync, copyFileSync, mkdirSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {gunzipSync} from 'node:zlib'
import {readArchive} from '../src/lib/archive/read.js'
import {writeTar} from '../src/lib/archive/write.js'
import {REALDATA, REAL_CHATS, REPO_ROOT, TEN_TURN_TEMP, cleanup, copyRealChat, cutAt, invalidByteAt, nulRunAt, runCli, setMtime, tempDir, zeroFill} from './helpers/fixtures.js'

interface Gen {
  file: string
  role: string
  class: string | null
  reasons: string[]
  turns: number | null
  bytes: number
  mtimeMs: number | null
  sha256: string | null
}
interface Chat {
  id: string
  path: string
  status: string
  winner: string | null
  transcriptTurns: number | null
  contextTurns: number | null
  findings: Array<{id: string; severity: string; file: string | null}>
  generations: Gen[]
  bundle?: string
}
interface Rep {
  exitCode: number
  chats: Chat[]
  errors: Array<{path: string; message: string; id?: string}>
}

function json(args: string[], cwd?: string): Rep {
  const r = runCli([...args, '--json'], {cwd})
  const rep = JSON.parse(r.stdout) as Rep
  assert.equal(rep.exitCode, r.status, r.stderr)
  return rep
}

/** What must be equal between a chat dir and its bundle: the verdict and every generation (exact mtimes). */
function verdict(c: Chat, withBytes: boolean) {
  return {
    id: c.id,
    status: c.status,
    winner: c.winner,
    M: c.transcriptTurns,
    N: c.contextTurns,
    findings: c.findings.map((f) => `${f.severity} ${f.id} ${f.file}`).filter((f) => !/unknown-file/.test(f)),
    generations: c.generations
      .filter((g) => g.role !== 'other')
      .map((g) => (withBytes ? g : {file: g.file, role: g.role, class: g.class, reasons: g.reasons, turns: g.turns})),
  }
}

function byId(rep: Rep): Map<string, Chat> {
  return new Map(rep.chats.map((c) => [c.id, c]))
}

/** A folder with the 1-turn and 10-turn real chats, the 10-turn one damaged by `damage` (file → bytes). */
function makeChats(root: string, damage?: Record<string, (b: Buffer) => Buffer>): string {
  const parent = path.join('.config', 'manicode', 'projects', 'demo-app', 'chats')
  copyRealChat(REAL_CHATS.small, root, parent)
  const ten = copyRealChat(REAL_CHATS.tenTurns, root, parent)
  for (const [file, fn] of Object.entries(damage ?? {})) {
    const p = path.join(ten, file)
    writeFileSync(p, fn(readFileSync(p)))
  }
  // Restore the fixed mtimes after the damage writes.
  const base = Date.UTC(2026, 7, 30, 9, 0, 0)
  const order = ['chat-meta.json', 'run-state.json.bak', TEN_TURN_TEMP, 'chat-messages.json', 'run-state.json']
  for (const [i, name] of order.entries()) if (existsSync(path.join(ten, name))) setMtime(path.join(ten, name), base + i * 1000 + 123.456)
  return path.join(root, parent)
}

const DAMAGES: Array<[string, Record<string, (b: Buffer) => Buffer> | undefined]> = [
  ['healthy', undefined],
  ['truncated primary', {'run-state.json': (b) => cutAt(b, Math.floor(b.length * 0.6))}],
  ['NUL run in the primary', {'run-state.json': (b) => nulRunAt(b, 4000, 300)}],
  ['invalid UTF-8 in the primary and the transcript', {'run-state.json': (b) => invalidByteAt(b, 5000), 'chat-messages.json': (b) => invalidByteAt(b, 7000)}],
  ['zero-filled primary, truncated backup', {'run-state.json': zeroFill, 'run-state.json.bak': (b) => cutAt(b, 999)}],
  ['truncated transcript', {'chat-messages.json': (b) => cutAt(b, 150_001)}],
]

for (const [name, damage] of DAMAGES) {
  test(`round trip (${name}): bundle → check gives the scan verdict of the dir, .tar.gz and .zip`, () => {
    const root = tempDir()
    try {
      const chats = makeChats(root, damage)
      const scan = json(['scan', '--verbose', chats]) // check measures every candidate, as scan --verbose does
      assert.equal(scan.chats.length, 2)
      for (const out of ['b.tar.gz', 'b.zip']) {
        const file = path.join(root, out)
        const b = runCli(['bundle', chats, '-o', file])
        assert.equal(b.status, 0, b.stderr)
        const check = json(['check', file])
        const got = byId(check)
        assert.equal(check.chats.length, 2)
        for (const c of scan.chats) {
          const g = got.get(c.id)!
          assert.deepEqual(verdict(g, true), verdict(c, true))
          assert.equal(g.path, `${file}/${c.id}`)
          assert.equal(g.bundle, file)
        }
        assert.equal(check.exitCode, scan.exitCode)
        assert.deepEqual(check.errors, [])
      }
    } finally {
      cleanup(root)
    }
  })
}

test('redacted bundles diagnose the same (classes, reasons, turns, winner), also damaged, and hold no original text or path', () => {
  const root = tempDir()
  try {
    for (const [name, damage] of DAMAGES) {
      const dir = path.join(root, name.replace(/\W+/g, '-'))
      const chats = makeChats(dir, damage)
      const scan = json(['scan', '--verbose', chats]) // check measures every candidate, as scan --verbose does
      const file = path.join(dir, 'r.tar.gz')
      const b = runCli(['bundle', '--redact', chats, '-o', file])
      assert.equal(b.status, 0, `${name}: ${b.stderr}`)
      const check = json(['check', file])
      const got = byId(check)
      for (const c of scan.chats) assert.deepEqual(verdict(got.get(c.id)!, false), verdict(c, false), name)
      assert.equal(check.exitCode, scan.exitCode, name)

      // No original string of any file, no path, in the bundle's bytes.
      const bytes = gunzipSync(readFileSync(file))
      assert.equal(bytes.includes(Buffer.from(dir)), false, `${name}: the chat path is in the bundle`)
      assert.equal(bytes.includes(Buffer.from('/home/dev')), false, `${name}: a project path is in the bundle`)
      const leaked = originalStrings(path.join(REALDATA, 'codebuff', REAL_CHATS.tenTurns)).filter((s) => bytes.includes(Buffer.from(s)))
      assert.deepEqual(leaked, [], name)
    }
  } finally {
    cleanup(root)
  }
})

const KEPT_KEYS = new Set(['role', 'type', 'variant', 'tags', 'id', 'messageId', 'toolCallId', 'toolName', 'agentId', 'agentType', 'agentName', 'runId', 'parentId', 'traceSessionId', 'status', 'mode', 'mediaType', 'textType', 'timestamp', 'completionTime', 'timeToLive', 'thinkingId', 'spawnToolCallId', 'ancestorRunIds', 'childRunIds', 'keepLastTags', 'thinkingCollapseState'])

/** Every string value (≥ 8 characters, JSON-encoded as in the file) of a real chat's files, except ids and enums. */
function originalStrings(realDir: string): string[] {
  const out = new Set<string>()
  const kept = new Set<string>()
  const walk = (v: unknown, key: string | null) => {
    if (typeof v === 'string') {
      if (key !== null && KEPT_KEYS.has(key) && /^[\w .:@+#-]{0,100}$/.test(v)) kept.add(JSON.stringify(v).slice(1, -1))
      else if (v.length >= 8) out.add(JSON.stringify(v).slice(1, -1))
    } else if (Array.isArray(v)) for (const x of v) walk(x, key)
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k)
  }
  for (const f of ['run-state.json', 'run-state.json.bak', TEN_TURN_TEMP, 'chat-messages.json', 'chat-meta.json']) walk(JSON.parse(readFileSync(path.join(realDir, f), 'utf8')), null)
  // A value kept as an id or enum somewhere (e.g. a tool name) may also be content elsewhere.
  return [...out].filter((s) => !kept.has(s))
}

test('redacted bundle: log.jsonl and unknown files are left out and listed as omitted; chat-meta.json is recomputed', async () => {
  const root = tempDir()
  try {
    const chats = makeChats(root)
    const ten = path.join(chats, REAL_CHATS.tenTurns)
    writeFileSync(path.join(ten, 'log.jsonl'), '{"msg":"secret log line /home/dev/demo-app"}\n')
    writeFileSync(path.join(ten, 'notes.txt'), 'private notes')
    writeFileSync(path.join(ten, 'credentials.json'), '{"token":"sk-secret"}')
    const file = path.join(root, 'r.tar.gz')
    assert.equal(runCli(['bundle', '--redact', chats, '-o', file]).status, 0)
    const tar = gunzipSync(readFileSync(file))
    for (const s of ['secret log line', 'private notes', 'sk-secret']) assert.equal(tar.includes(Buffer.from(s)), false, s)
    const plain = path.join(root, 'p.tar.gz')
    assert.equal(runCli(['bundle', chats, '-o', plain]).status, 0)
    const ptar = gunzipSync(readFileSync(plain))
    assert.equal(ptar.includes(Buffer.from('private notes')), true, 'a plain bundle keeps unknown files as they are')
    assert.equal(ptar.includes(Buffer.from('sk-secret')), false, 'credentials are never bundled')
    const members = (await readArchive(plain, {maxBytes: 1e9, maxEntries: 1000, maxMemberBytes: 1e9}, () => false)).members.map((m) => m.path)
    assert.equal(members.includes(`${REAL_CHATS.tenTurns}/notes.txt`), true)
    assert.equal(members.some((m) => m.endsWith('credentials.json')), false)

    const manifestOf = (t: Buffer) => {
      const at = t.indexOf(Buffer.from('{\n  "schemaVersion"'))
      return JSON.parse(t.subarray(at, t.indexOf(Buffer.from('\n}\n'), at) + 2).toString('utf8'))
    }
    const m = manifestOf(tar)
    assert.equal(m.redacted, true)
    const chat = m.chats.find((c: {id: string}) => c.id === REAL_CHATS.tenTurns)
    assert.deepEqual(chat.omitted.map((o: {path: string}) => o.path), ['log.jsonl', 'notes.txt'])
    assert.equal(chat.files.some((f: {path: string}) => f.path === 'log.jsonl'), false)

    // chat-meta.json: messagesSize follows the redacted transcript, firstPrompt is the redacted first prompt.
    const at = tar.indexOf(Buffer.from('{"messageCount"'))
    const meta = JSON.parse(tar.subarray(at, tar.indexOf(0x7d, at) + 1).toString('utf8'))
    const transcript = chat.files.find((f: {path: string}) => f.path === 'chat-messages.json')
    assert.equal(meta.messagesSize, transcript.bytes)
    assert.match(meta.firstPrompt, /^\[redacted:[0-9a-f]{24}\]$/)
    assert.equal(meta.messageCount, 21)
    const check = json(['check', file])
    assert.equal(check.chats.find((c) => c.id === REAL_CHATS.tenTurns)!.generations.find((g) => g.file === 'chat-meta.json')!.class, 'intact')
  } finally {
    cleanup(root)
  }
})

test('check verifies the manifest: changed, missing and extra files are error findings (exit bit 2 on a healthy chat)', async () => {
  const root = tempDir()
  try {
    const chats = makeChats(root)
    const file = path.join(root, 'b.tar.gz')
    assert.equal(runCli(['bundle', chats, '-o', file]).status, 0)
    const contents = await readArchive(file, {maxBytes: 1e9, maxEntries: 1000, maxMemberBytes: 1e9}, () => true)
    const ten = REAL_CHATS.tenTurns
    const small = REAL_CHATS.small
    const inputs = contents.members
      .filter((m) => m.path !== `${ten}/chat-meta.json`)
      .map((m) => {
        let data = m.data
        if (m.path === `${ten}/run-state.json.bak`) data = invalidByteAt(m.data!, 10) // same size, different hash
        if (m.path === `${small}/run-state.json`) data = Buffer.concat([m.data!, Buffer.from('  ')]) // different size
        return {path: m.path, kind: m.kind as 'file' | 'directory', data, mtimeMs: m.mtimeMs}
      })
    inputs.push({path: `${ten}/intruder.json`, kind: 'file', data: Buffer.from('{}'), mtimeMs: 0})
    inputs.push({path: 'stray.txt', kind: 'file', data: Buffer.from('x'), mtimeMs: 0})
    const tampered = path.join(root, 'tampered.tar.gz')
    writeFileSync(tampered, await writeTar(inputs))
    const check = json(['check', tampered])
    const tenChat = check.chats.find((c) => c.id === ten)!
    const smallChat = check.chats.find((c) => c.id === small)!
    const ids = (c: Chat) => c.findings.filter((f) => f.id.startsWith('manifest-')).map((f) => `${f.id} ${f.file}`).sort()
    assert.deepEqual(ids(tenChat), ['manifest-extra-file intruder.json', 'manifest-mismatch run-state.json.bak', 'manifest-missing-file chat-meta.json'])
    assert.deepEqual(ids(smallChat), ['manifest-mismatch run-state.json'])
    assert.equal(smallChat.status, 'healthy')
    assert.deepEqual(check.errors.map((e) => [e.id, e.path]), [['manifest-extra-file', `${tampered}/stray.txt`]])
    assert.equal(check.exitCode, 2 | 8)
    // The untouched bundle passes.
    assert.equal(runCli(['check', file]).status, 0)
  } finally {
    cleanup(root)
  }
})

test("check ranks with the manifest's exact mtimes (archives keep whole seconds)", async () => {
  const root = tempDir()
  try {
    // Primary damaged; the backup made identical to the temp, so only the mtime (and then the name) decides.
    const chats = makeChats(root, {'run-state.json': zeroFill})
    const ten = path.join(chats, REAL_CHATS.tenTurns)
    copyFileSync(path.join(ten, TEN_TURN_TEMP), path.join(ten, 'run-state.json.bak'))
    const second = Date.UTC(2026, 7, 30, 10, 0, 0)
    setMtime(path.join(ten, 'run-state.json.bak'), second + 100)
    setMtime(path.join(ten, TEN_TURN_TEMP), second + 600) // newer by 0.5 s, same whole second
    const scan = json(['scan', '--verbose', chats]) // check measures every candidate, as scan --verbose does
    assert.equal(scan.chats.find((c) => c.id === REAL_CHATS.tenTurns)!.winner, TEN_TURN_TEMP)
    const file = path.join(root, 'b.tar.gz')
    assert.equal(runCli(['bundle', chats, '-o', file]).status, 0)
    assert.equal(json(['check', file]).chats.find((c) => c.id === REAL_CHATS.tenTurns)!.winner, TEN_TURN_TEMP)
    // Without the manifest the archive's rounded mtimes tie, and the name decides (byte-wise descending).
    const contents = await readArchive(file, {maxBytes: 1e9, maxEntries: 1000, maxMemberBytes: 1e9}, () => true)
    const bare = path.join(root, 'bare.tar.gz')
    writeFileSync(bare, await writeTar(contents.members.filter((m) => m.path !== 'chatdoctor-bundle.json').map((m) => ({path: m.path, kind: m.kind as 'file' | 'directory', data: m.data, mtimeMs: m.mtimeMs}))))
    assert.equal(json(['check', bare]).chats.find((c) => c.id === REAL_CHATS.tenTurns)!.winner, 'run-state.json.bak')
  } finally {
    cleanup(root)
  }
})

test('bundle -o in a folder that does not exist (or is a file) is a usage error that says so: no folder created, nothing written', () => {
  const root = tempDir()
  try {
    const chats = makeChats(root)
    const tree = () => readdirSync(root, {recursive: true}).map(String).sort()
    const before = tree()
    for (const [file, why] of [
      [path.join(root, 'missing', 'deeper', 'b.tar.gz'), 'does not exist'],
      [path.join(root, 'missing', 'session.json'), 'does not exist'],
    ] as const) {
      for (const args of [['bundle', chats, '-o', file], ['bundle', '--session', 'ses_x', chats, '-o', file]]) {
        if (file.endsWith('.json') !== args.includes('--session')) continue
        const r = runCli(args)
        assert.equal(r.status, 16, `${args.join(' ')}: ${r.stderr}`)
        assert.equal(r.stderr, `chatdoctor: -o ${file}: the folder ${path.dirname(file)} ${why}; create it or pick another path\nTry: chatdoctor bundle --help\n`)
        assert.equal(JSON.parse(runCli([...args, '--json']).stdout).exitCode, 16)
      }
    }
    writeFileSync(path.join(root, 'plain'), 'a file')
    const r = runCli(['bundle', chats, '-o', path.join(root, 'plain', 'b.zip')])
    assert.equal(r.status, 16)
    assert.match(r.stderr, /the folder .*plain is not a folder; create it or pick another path/)
    assert.deepEqual(tree(), [...before, 'plain'].sort(), 'no folder created, nothing written')
    mkdirSync(path.join(root, 'made'))
    assert.equal(runCli(['bundle', chats, '-o', path.join(root, 'made', 'b.tar.gz')]).status, 0, 'a folder that exists takes the file')
    // --help, the README's exit table and docs/ci.md say the same: a usage error (16), not "nothing written" (8).
    const help = runCli(['bundle', '--help']).stdout.replace(/\s+/g, ' ')
    assert.match(help, /16 usage error \(a bad flag or argument, among them -o FILE in a folder that does not exist or is not a folder\)/)
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8')
    assert.match(readme, /^\| 16 \| usage error: a bad flag or argument, among them `bundle -o FILE` in a folder that does not exist/m)
    assert.doesNotMatch(readme.match(/^\| 8 \|.*$/m)![0], /folder/)
    assert.match(readFileSync(path.join(REPO_ROOT, 'docs', 'ci.md'), 'utf8').replace(/\s+/g, ' '), /16 usage error \(a bad flag or argument, among them `-o FILE` in a folder that does not exist or is not a folder/)
  } finally {
    cleanup(root)
  }
})

test('bundle refuses to replace an existing file, and check with no PATH is a usage error', () => {
  const root = tempDir()
  try {
    const chats = makeChats(root)
    const file = path.join(root, 'b.zip')
    writeFileSync(file, 'keep me')
    const r = runCli(['bundle', chats, '-o', file])
    assert.equal(r.status, 8)
    assert.match(r.stderr, /already exists/)
    assert.equal(readFileSync(file, 'utf8'), 'keep me')
    assert.equal(runCli(['bundle', chats, '-o', file, '--force']).status, 0)
    const none = runCli(['check'])
    assert.equal(none.status, 16)
    assert.match(none.stderr, /at least one PATH/)
    assert.equal(JSON.parse(runCli(['check', '--json']).stdout).exitCode, 16)
  } finally {
    cleanup(root)
  }
})

/**
 * Packs `dir` again with the standard tools, the ways people do: its content from inside (`tar -C dir … .`,
 * which writes a `./` root entry and `./`-prefixed names; `zip -r` from inside), and the folder itself
 * (`tar -czf b.tgz dir`, `zip -r b.zip dir`: one wrapping folder). `zip` falls back to Python's zipfile
 * command (also writing directory entries) where the zip program is not installed.
 */
function repack(dir: string, out: string): Record<string, {file: string; prefix: string}> {
  const name = path.basename(dir)
  const parent = path.dirname(dir)
  const run = (cmd: string, args: string[], cwd: string) => {
    const r = spawnSync(cmd, args, {cwd, encoding: 'utf8'})
    assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`)
  }
  const zip = (target: string, names: string[], cwd: string) => {
    if (spawnSync('zip', ['-v'], {encoding: 'utf8'}).status === 0) run('zip', ['-qr', target, ...names], cwd)
    else run('python3', ['-m', 'zipfile', '-c', target, ...names], cwd)
  }
  const packed = {
    'tar -C dir -czf x.tgz .': {file: path.join(out, 'dot.tgz'), prefix: ''},
    'tar -C dir -cf x.tar .': {file: path.join(out, 'dot.tar'), prefix: ''},
    'tar -czf x.tgz dir': {file: path.join(out, 'wrapped.tgz'), prefix: `${name}/`},
    'zip -r x.zip . (inside dir)': {file: path.join(out, 'inside.zip'), prefix: ''},
    'zip -r x.zip dir': {file: path.join(out, 'wrapped.zip'), prefix: `${name}/`},
  }
  run('tar', ['-C', dir, '-czf', packed['tar -C dir -czf x.tgz .'].file, '.'], parent)
  run('tar', ['-C', dir, '-cf', packed['tar -C dir -cf x.tar .'].file, '.'], parent)
  run('tar', ['-czf', packed['tar -czf x.tgz dir'].file, name], parent)
  zip(packed['zip -r x.zip . (inside dir)'].file, readdirSync(dir).sort(), dir)
  zip(packed['zip -r x.zip dir'].file, [name], parent)
  return packed
}

/** A bundle of `chats` unpacked by the system's tar into `<root>/unpacked`; returns the bundle and the folder. */
function bundleAndUnpack(root: string, chats: string): {bundle: string; dir: string} {
  const bundle = path.join(root, 'b.tar.gz')
  const b = runCli(['bundle', chats, '-o', bundle])
  assert.equal(b.status, 0, b.stderr)
  const dir = path.join(root, 'unpacked')
  mkdirSync(dir)
  assert.equal(spawnSync('tar', ['-xzf', bundle, '-C', dir]).status, 0)
  return {bundle, dir}
}

for (const [name, damage] of DAMAGES.filter(([n]) => ['healthy', 'truncated primary', 'zero-filled primary, truncated backup'].includes(n))) {
  test(`a bundle unpacked and packed again by tar and zip (${name}) checks as the bundle did: ./ root entry, ./ names, directory entries, one wrapping folder`, () => {
    const root = tempDir()
    try {
      const {bundle, dir} = bundleAndUnpack(root, makeChats(root, damage))
      const original = json(['check', bundle])
      assert.equal(original.chats.length, 2)
      const out = path.join(root, 'out')
      mkdirSync(out)
      for (const [how, {file, prefix}] of Object.entries(repack(dir, out))) {
        const check = json(['check', file])
        assert.deepEqual(check.errors, [], how)
        assert.equal(check.exitCode, original.exitCode, how)
        const got = byId(check)
        assert.equal(check.chats.length, 2, how)
        for (const c of original.chats) {
          const g = got.get(c.id)!
          // With bytes: the generations' mtimes are the manifest's exact ones, so the manifest was read.
          assert.deepEqual(verdict(g, true), verdict(c, true), how)
          assert.equal(g.path, `${file}/${prefix}${c.id}`, how)
        }
      }
    } finally {
      cleanup(root)
    }
  })
}

test('a re-packed bundle is still verified against its manifest (./ names and a wrapping folder), and an archive whose root holds more than the folder is not read as one bundle', () => {
  const root = tempDir()
  try {
    const {dir} = bundleAndUnpack(root, makeChats(root))
    const backup = path.join(dir, REAL_CHATS.tenTurns, 'run-state.json.bak')
    writeFileSync(backup, Buffer.concat([readFileSync(backup), Buffer.from(' ')]))
    const out = path.join(root, 'out')
    mkdirSync(out)
    const packed = repack(dir, out)
    for (const [how, {file}] of Object.entries(packed)) {
      const ten = json(['check', file]).chats.find((c) => c.id === REAL_CHATS.tenTurns)!
      assert.deepEqual(
        ten.findings.filter((f) => f.id.startsWith('manifest-')).map((f) => `${f.id} ${f.file}`),
        ['manifest-mismatch run-state.json.bak'],
        how,
      )
    }
    // A second folder beside the wrapping one: no single bundle root, so no manifest is read and its mtimes
    // (whole seconds in tar) are not used: the chats are found by discovery, without manifest findings.
    const two = path.join(root, 'two')
    mkdirSync(path.join(two, 'other'), {recursive: true})
    writeFileSync(path.join(two, 'other', 'notes.txt'), 'x')
    const twoFile = path.join(root, 'two.tgz')
    assert.equal(spawnSync('tar', ['-czf', twoFile, '-C', root, 'unpacked', '-C', two, 'other']).status, 0)
    const rep = json(['check', twoFile])
    assert.equal(rep.chats.length, 2)
    assert.ok(rep.chats.every((c) => c.findings.every((f) => !f.id.startsWith('manifest-'))))
    assert.ok(rep.chats.every((c) => c.path.startsWith(`${twoFile}/unpacked/`)))
  } finally {
    cleanup(root)
  }
})
