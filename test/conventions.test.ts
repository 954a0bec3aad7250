/**
 * The CLI conventions a new user expects of an oclif tool, through the built binary: `-h` and `help <command>`,
 * "did you mean" for a mistyped command or help subject (exit 16, never running the guess), each command's
 * `-q`/`-v` in its own words and doing what they say, flag combinations that cannot work as usage errors that
 * say what to use, and shell completion that completes our commands and flags.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, test} from 'node:test'
import {REAL_CHATS, REPO_ROOT, cleanup, copyRealChat, cutAt, runCli, tempDir} from './helpers/fixtures.js'

interface ManifestFlag {
  char?: string
  description?: string
}
const MANIFEST = JSON.parse(readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, {flags: Record<string, ManifestFlag>}>}

describe('help', {concurrency: 2}, () => {
  for (const command of ['scan', 'check', 'repair', 'undo', 'inspect', 'bundle']) {
    test(`-h, help ${command} and ${command} --help print the same help`, () => {
      const long = runCli([command, '--help'])
      assert.equal(long.status, 0)
      assert.match(long.stdout, new RegExp(`^USAGE\\n  \\$ chatdoctor ${command}`, 'm'))
      for (const args of [[command, '-h'], ['help', command]]) {
        const r = runCli(args)
        assert.equal(r.status, 0, args.join(' '))
        assert.equal(r.stdout, long.stdout, args.join(' '))
      }
    })
  }

  test('chatdoctor -h and chatdoctor help list the commands, as --help does', () => {
    const long = runCli(['--help'])
    assert.match(long.stdout, /^COMMANDS\n/m)
    for (const args of [['-h'], ['help']]) assert.equal(runCli(args).stdout, long.stdout, args.join(' '))
  })

  test('help for a command that does not exist is a usage error naming the closest one (help scna, scna --help, scna -h)', () => {
    for (const args of [['help', 'scna'], ['scna', '--help'], ['scna', '-h']]) {
      const r = runCli(args)
      assert.equal(r.status, 16, args.join(' '))
      assert.equal(r.stdout, '')
      assert.match(r.stderr.replace(/\n {2}/g, ' '), /^chatdoctor: unknown command "scna"; did you mean "scan"\? Commands: .*\. Try: chatdoctor scan --help\n$/, args.join(' '))
    }
    const stray = runCli(['help', '--json'])
    assert.equal(stray.status, 16)
    assert.match(stray.stderr, /^chatdoctor: Nonexistent flag: --json\nTry: chatdoctor help --help\n$/)
  })

  test('a mistyped command is not run: "repiar" with -y repairs nothing', () => {
    const root = tempDir()
    try {
      const dir = copyRealChat(REAL_CHATS.tenTurns, root)
      const p = path.join(dir, 'run-state.json')
      const torn = cutAt(readFileSync(p), 999)
      writeFileSync(p, torn)
      const r = runCli(['repiar', '-y', dir], {env: {HOME: root, XDG_STATE_HOME: path.join(root, 'state')}})
      assert.equal(r.status, 16)
      assert.match(r.stderr, /did you mean "repair"\?/)
      assert.deepEqual(readFileSync(p), torn)
      assert.equal(existsSync(path.join(dir, '.chatdoctor')), false)
    } finally {
      cleanup(root)
    }
  })
})

describe('-q and -v in each command\'s own words', () => {
  test('every command that takes -q/-v describes them in its own words; inspect (always the whole picture) takes neither', () => {
    const seen = new Map<string, string>()
    for (const [id, c] of Object.entries(MANIFEST.commands)) {
      if (id === 'help') continue
      if (id === 'inspect') {
        assert.equal(c.flags.quiet, undefined)
        assert.equal(c.flags.verbose, undefined)
        continue
      }
      for (const name of ['quiet', 'verbose']) {
        const d = c.flags[name]?.description
        assert.ok(d, `${id} --${name}`)
        assert.equal(c.flags[name].char, name[0])
        assert.ok(!seen.has(d), `${id} --${name} is described with ${seen.get(d)}'s words: ${d}`)
        seen.set(d, `${id} --${name}`)
      }
    }
    // Two descriptions per command, but help and inspect.
    assert.equal(seen.size, 2 * (Object.keys(MANIFEST.commands).length - 2))
    assert.ok(seen.size >= 10)
    const r = runCli(['inspect', '-v', '.'])
    assert.equal(r.status, 16)
    assert.match(r.stderr, /Nonexistent flag: -v/)
  })

  test('bundle: -q leaves out the table, -v adds the findings under it', () => {
    const root = tempDir()
    try {
      const dir = copyRealChat(REAL_CHATS.tenTurns, root)
      writeFileSync(path.join(dir, 'run-state.json'), cutAt(readFileSync(path.join(dir, 'run-state.json')), 999))
      const plain = runCli(['bundle', dir, '-o', path.join(root, 'a.tar.gz')])
      assert.equal(plain.status, 0, plain.stderr)
      assert.match(plain.stdout, /│ repairable/)
      assert.doesNotMatch(plain.stdout, /primary-damaged/)
      const quiet = runCli(['bundle', '-q', dir, '-o', path.join(root, 'b.tar.gz')])
      assert.equal(quiet.status, 0)
      assert.equal(quiet.stdout, '')
      assert.match(quiet.stderr, /^wrote .*b\.tar\.gz: 1 chat, \d+ bytes\n$/)
      const verbose = runCli(['bundle', '-v', dir, '-o', path.join(root, 'c.tar.gz')])
      assert.equal(verbose.status, 0)
      assert.match(verbose.stdout, /│ repairable[\s\S]*\n  error primary-damaged run-state\.json: /)
    } finally {
      cleanup(root)
    }
  })

  test('undo: -q prints only the closing line when every file is put back; -v adds each file\'s sha256', () => {
    const root = tempDir()
    try {
      const env = {HOME: root, XDG_STATE_HOME: path.join(root, 'state')}
      const dir = copyRealChat(REAL_CHATS.tenTurns, root)
      const p = path.join(dir, 'run-state.json')
      writeFileSync(p, cutAt(readFileSync(p), 999))
      const repairId = () => {
        const r = runCli(['repair', '-y', '--json', dir], {env})
        assert.equal(r.status, 1, r.stderr)
        return (JSON.parse(r.stdout) as {repairId: string}).repairId
      }
      const first = repairId()
      const verbose = runCli(['undo', '-v', first], {env})
      assert.equal(verbose.status, 0, verbose.stderr)
      assert.match(verbose.stdout, /^restored \S+run-state\.json sha256 [0-9a-f]{64}\n/m)
      const second = repairId()
      const quiet = runCli(['undo', '-q', second], {env})
      assert.equal(quiet.status, 0, quiet.stderr)
      assert.equal(quiet.stdout, `Undid repair ${second}.\n`)
      const plain = runCli(['undo', '-v', second], {env})
      assert.equal(plain.stdout, `Repair ${second} was already undone: every file is as before it; nothing written.\n`)
    } finally {
      cleanup(root)
    }
  })
})

describe('flag combinations that cannot work are usage errors (16) that say what to use', {concurrency: 2}, () => {
  const chat = () => path.join(REPO_ROOT, 'examples', 'home', '.config', 'manicode', 'projects', 'demo-app', 'chats', '2025-11-03T09-14-30.000Z')

  for (const format of ['sarif', 'junit', 'github', 'table']) {
    test(`check --json --format ${format}`, () => {
      for (const args of [['check', '--json', '--format', format, chat()], ['check', '--format', format, '--json', chat()]]) {
        const r = runCli(args)
        assert.equal(r.status, 16)
        const rep = JSON.parse(r.stdout) as {exitCode: number; error: string}
        assert.equal(rep.exitCode, 16)
        assert.equal(rep.error, `--json prints the JSON report, not ${format}: use --format ${format} without --json (with -o FILE for a file), or --json alone`)
      }
    })
  }

  test('check --json and --json --format json are the JSON report; --format sarif alone is SARIF', () => {
    const a = runCli(['check', '--json', chat()])
    const b = runCli(['check', '--json', '--format', 'json', chat()])
    assert.equal(a.status, 0)
    assert.equal(b.status, 0)
    assert.equal((JSON.parse(b.stdout) as {command: string}).command, 'check')
    const sarif = runCli(['check', '--format', 'sarif', chat()])
    assert.equal(sarif.status, 0)
    assert.equal((JSON.parse(sarif.stdout) as {version: string}).version, '2.1.0')
  })

  test('bundle -o with a name that is no archive kind, and --session with an archive name: refused before anything is read or written', () => {
    const root = tempDir()
    try {
      for (const name of ['out.7z', 'out', 'out.gz', 'out.tar.bz2']) {
        const out = path.join(root, name)
        const r = runCli(['bundle', chat(), '-o', out])
        assert.equal(r.status, 16, name)
        assert.equal(r.stderr, `chatdoctor: -o ${out}: not an archive name chatdoctor writes; end it in .tar.gz or .tgz (gzip-compressed tar), .tar or .zip (or write one OpenCode session as JSON with --session ID -o FILE.json)\nTry: chatdoctor bundle --help\n`)
        const j = runCli(['bundle', chat(), '-o', out, '--json'])
        assert.equal(j.status, 16)
        assert.equal((JSON.parse(j.stdout) as {exitCode: number}).exitCode, 16)
      }
      const s = runCli(['bundle', '--session', 'ses_x', '-o', path.join(root, 's.tar.gz')])
      assert.equal(s.status, 16)
      assert.match(s.stderr, /--session writes one JSON document, not an archive: name it FILE\.json/)
      for (const ok of ['b.tar.gz', 'b.tgz', 'b.tar', 'b.zip', 'B.TGZ']) assert.equal(runCli(['bundle', chat(), '-o', path.join(root, ok)]).status, 0, ok)
      assert.deepEqual(readdirSync(root).sort(), ['B.TGZ', 'b.tar', 'b.tar.gz', 'b.tgz', 'b.zip'])
    } finally {
      cleanup(root)
    }
  })
})

test('shell completion: `autocomplete script bash` sets up a completion that completes our commands and each command\'s flags', {skip: spawnSync('bash', ['--version']).status !== 0 ? 'no bash' : false}, () => {
  const root = tempDir()
  try {
    const env = {HOME: root, XDG_CACHE_HOME: path.join(root, 'cache')}
    const instructions = runCli(['autocomplete', 'bash'], {env})
    assert.equal(instructions.status, 0, instructions.stderr)
    assert.match(instructions.stdout, /chatdoctor autocomplete script bash/)
    const script = runCli(['autocomplete', 'script', 'bash'], {env})
    assert.equal(script.status, 0, script.stderr)
    assert.ok(script.stdout.includes(path.join(root, 'cache', 'chatdoctor', 'autocomplete')), 'the setup lives in the cache dir')
    // What `source ~/.bashrc` would do with the line the instructions add, then a <TAB> on each word.
    const complete = (words: string[]) => {
      const bash = `${script.stdout.trim()}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMP_LINE='${words.join(' ')}'; COMP_POINT=\${#COMP_LINE}\n$(complete -p chatdoctor | sed -E 's/.*-F ([^ ]+).*/\\1/') chatdoctor; printf '%s\\n' "\${COMPREPLY[@]}"`
      const r = spawnSync('bash', ['-c', bash], {encoding: 'utf8', env: {...process.env, ...env}})
      assert.equal(r.status, 0, r.stderr)
      return r.stdout.split('\n').filter(Boolean).sort()
    }
    assert.ok(complete(['chatdoctor', 'sc']).some((c) => /^scan\b/.test(c)))
    const flags = complete(['chatdoctor', 'scan', '--q'])
    assert.ok(flags.some((c) => c.startsWith('--quick')) && flags.some((c) => c.startsWith('--quiet')), flags.join(' '))
    assert.ok(complete(['chatdoctor', 'repair', '--dr']).some((c) => c.startsWith('--dry-run')))
  } finally {
    cleanup(root)
  }
})
