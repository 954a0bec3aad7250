/**
 * Saying what to do next: a scan with damage ends with the exact commands to run (each run here through bash,
 * as pasted, also when continued over several lines and with paths that need quoting); an empty scan says
 * where it searched and what it skipped; a folder below the depth limit is a skipped entry with the reason; a
 * file PATH no chat holds is a usage error (exit 16); `repair` lists the chats before it asks.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {after, before, describe, test} from 'node:test'
import stringWidth from 'string-width'
import {TOO_DEEP} from '../src/lib/pipeline/discover.js'
import {CONFIRM_LIST_MAX, confirmationLines, confirmationQuestion} from '../src/lib/render/repair.js'
import {commandLines} from '../src/lib/render/next-steps.js'
import {runCliAsync} from './helpers/cli-async.js'
import {REALDATA, REAL_CHATS, REPO_ROOT, cleanup, copyRealChat, copyWritable, cutAt, hashTree, inheritedEnv, tempDir, zeroFill} from './helpers/fixtures.js'
import {LONG_CHATS, ODD, ODD_CHATS, UX, buildUxHome} from './helpers/ux-home.js'

const BIN = path.join(REPO_ROOT, 'bin', 'run.js')

/** The commands of a "Next:" block, each as the lines a user would paste (continuations included). */
function suggested(stdout: string): string[] {
  const lines = stdout.split('\n')
  const start = lines.indexOf('Next:')
  if (start < 0) return []
  const out: string[] = []
  for (let i = start + 1; i < lines.length; i++) {
    if (!lines[i].startsWith('    chatdoctor ')) continue
    const cmd = [lines[i]]
    while (cmd.at(-1)!.endsWith('\\')) cmd.push(lines[++i])
    out.push(cmd.join('\n'))
  }
  return out
}

/** Runs a pasted command in bash, `chatdoctor` being the built CLI. */
function paste(command: string, env: NodeJS.ProcessEnv): {status: number; stdout: string; stderr: string} {
  const script = `chatdoctor() { "$CD_NODE" "$CD_BIN" "$@"; }\n${command}\n`
  const r = spawnSync('bash', ['-c', script], {env: {...inheritedEnv(), NO_COLOR: '1', CD_NODE: process.execPath, CD_BIN: BIN, ...env}, encoding: 'utf8'})
  return {status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr}
}

describe('a scan with damage ends with the exact next commands', {concurrency: 3}, () => {
  let home: string
  before(() => {
    home = tempDir('chatdoctor-next-')
    buildUxHome(home)
    // An OpenCode store with one session zero-filled (unrecoverable): inspected by the store and its id.
    const data = path.join(home, '.local', 'share', 'opencode')
    copyWritable(path.join(REALDATA, 'opencode', '1.1.65', 'data', 'opencode'), data)
    const session = path.join(data, 'storage', 'session', 'dfa7b73011a5aa73687463da673751ea81200147', 'ses_dd6249cf0ffevk8ay20nf1cCNR.json')
    writeFileSync(session, zeroFill(readFileSync(session)))
  })
  after(() => cleanup(home))

  for (const columns of [undefined, '60']) {
    test(`every suggested command runs as pasted${columns ? ` (at ${columns} columns, continued over lines)` : ''}`, async () => {
      const env = {HOME: home, ...(columns ? {COLUMNS: columns} : {})}
      const r = await runCliAsync(['scan'], {env})
      assert.equal(r.status, 6)
      const cmds = suggested(r.stdout)
      assert.ok(cmds.length >= 3, `a repair and the inspections:\n${r.stdout}`)
      assert.equal(cmds[0], '    chatdoctor repair --dry-run', 'the repair of the same PATHs (none)')
      if (columns) {
        assert.ok(cmds.some((c) => c.includes('\\\n')), 'a long path is continued on the next line')
        for (const l of r.stdout.split('\n')) assert.ok(stringWidth(l) <= 60, l)
      }
      const dry = paste(cmds[0], {HOME: home})
      assert.equal(dry.status, 6, dry.stderr)
      assert.match(dry.stdout, /would repair/)
      // Every chat that lost its context (or part of it) gets an inspect that shows it.
      const inspections = cmds.filter((c) => c.includes(' inspect '))
      // The words of a command, its continuations joined back.
      const words = (c: string) => c.replace(/ \\\n\s*/g, ' ').replace(/\\\n/g, '')
      assert.ok(inspections.some((c) => words(c).includes('inspect ~/.local/share/opencode --session ses_dd6249cf0ffevk8ay20nf1cCNR')), 'a store chat: its folder and --session')
      for (const c of inspections) {
        const x = paste(c, {HOME: home})
        assert.equal(x.status, 4, `${c}\n${x.stderr}`)
        assert.match(x.stdout, /status unrecoverable/)
      }
      assert.ok(inspections.some((c) => words(c).includes(UX.lost)), 'the Codebuff chat that lost its context')
    })
  }

  test('a PATH that must be quoted (wide characters, spaces, quotes) is given back exactly', async () => {
    const target = path.join(home, ODD_CHATS)
    const r = await runCliAsync(['scan', target], {env: {HOME: home}})
    assert.equal(r.status, 2)
    const [cmd] = suggested(r.stdout)
    assert.ok(cmd.includes(`'\\''`), `quoted: ${cmd}`)
    const dry = paste(cmd, {HOME: home})
    assert.equal(dry.status, 2, dry.stderr)
    assert.match(dry.stdout, new RegExp(`would repair .*${UX.odd}`))
    assert.ok(dry.stdout.includes(ODD), 'the same folder')
  })

  test('healthy chats, -q and --json: no next steps', async () => {
    const healthy = await runCliAsync(['scan', path.join(home, '.codex')], {env: {HOME: home}})
    assert.equal(healthy.status, 0)
    assert.doesNotMatch(healthy.stdout, /^Next:/m)
    const quiet = await runCliAsync(['scan', '-q'], {env: {HOME: home}})
    assert.doesNotMatch(quiet.stdout, /^Next:/m)
    const json = await runCliAsync(['scan', '--json'], {env: {HOME: home}})
    assert.doesNotThrow(() => JSON.parse(json.stdout))
  })
})

describe('an empty scan says where it searched and what it skipped', {concurrency: 2}, () => {
  let home: string
  before(() => (home = tempDir('chatdoctor-empty-')))
  after(() => cleanup(home))

  test("no PATH: every agent's default folder, each not there", async () => {
    const r = await runCliAsync(['scan'], {env: {HOME: home}})
    assert.equal(r.status, 0)
    assert.match(r.stdout, /^No chats found\.\nNone of the agents' default folders is there:$/m)
    for (const line of ['  Codebuff: ~/.config/manicode, ~/.config/manicode-dev, ~/.config/manicode-test', '  Claude Code: ~/.claude/projects', '  Codex: ~/.codex/sessions, ~/.codex/archived_sessions', '  OpenCode: ~/.local/share/opencode']) assert.ok(r.stdout.split('\n').includes(line), line)
    // An agent with many default folders: a few named, the rest counted.
    assert.ok(r.stdout.split('\n').some((l) => /^ {2}\S.*: ~\/\S.*, and \d+ more$/.test(l)), r.stdout)
    assert.ok(r.stdout.split('\n').length < 30, 'a screenful, not every folder')
    const json = JSON.parse((await runCliAsync(['scan', '--json'], {env: {HOME: home}})).stdout)
    assert.ok(json.roots.length >= 4)
    for (const root of json.roots) assert.deepEqual([typeof root.format, root.present], ['string', false])
  })

  test('repair finding nothing says the same', async () => {
    const r = await runCliAsync(['repair', '--dry-run'], {env: {HOME: home}})
    assert.equal(r.status, 0)
    assert.match(r.stdout, /^No chats found\.\nNone of the agents' default folders is there:$/m)
    assert.ok(r.stdout.includes('  Codebuff: ~/.config/manicode, '))
  })

  test('a default folder that is there but holds no chat is named apart', async () => {
    const own = tempDir('chatdoctor-empty-codex-')
    try {
      mkdirSync(path.join(own, '.codex', 'sessions'), {recursive: true})
      const r = await runCliAsync(['scan'], {env: {HOME: own}})
      assert.match(r.stdout, /^Searched the agents' default folders that are there \(no chat in them\):\n {2}~\/\.codex\/sessions \(Codex\)\nNot there:$/m)
    } finally {
      cleanup(own)
    }
  })

  test('a PATH with nothing in it: the PATH, and the folders skipped (without --verbose)', async () => {
    const dir = path.join(home, 'nothing')
    mkdirSync(path.join(dir, 'real'), {recursive: true})
    symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'))
    const r = await runCliAsync(['scan', dir], {env: {HOME: home}})
    assert.equal(r.status, 0)
    assert.match(r.stdout, /^skipped ~\/nothing\/link: symbolic link to a folder: not followed$/m)
    assert.match(r.stdout, /^Searched:\n {2}~\/nothing: no chat in it$/m)
  })
})

test('a folder below the depth limit is a skipped entry with the reason; scanned as a PATH, its chat is found', async () => {
  const root = tempDir('chatdoctor-deep-')
  try {
    const levels = Array.from({length: 13}, (_, k) => `l${k + 1}`)
    const deep = path.join(root, ...levels)
    copyRealChat(REAL_CHATS.small, deep, '.', REAL_CHATS.small)
    const r = JSON.parse((await runCliAsync(['scan', '--json', root], {env: {HOME: root}})).stdout)
    assert.equal(r.summary.chats, 0)
    assert.deepEqual(r.skipped, [{path: `~/${levels.join('/')}`, reason: TOO_DEEP}])
    const human = await runCliAsync(['scan', '--verbose', root], {env: {HOME: root}})
    assert.ok(human.stdout.includes(`skipped ~/${levels.join('/')}: ${TOO_DEEP}`))
    const direct = JSON.parse((await runCliAsync(['scan', '--json', deep], {env: {HOME: root}})).stdout)
    assert.equal(direct.summary.chats, 1)
  } finally {
    cleanup(root)
  }
})

describe('a file PATH no chat holds is a usage error (exit 16)', {concurrency: 3}, () => {
  let home: string
  before(() => {
    home = tempDir('chatdoctor-notchat-')
    copyRealChat(REAL_CHATS.small, home)
    writeFileSync(path.join(home, 'b.tgz'), 'not even an archive')
  })
  after(() => cleanup(home))

  test('scan /etc/passwd: exit 16 and one line, not a quiet search of /etc', async () => {
    const r = await runCliAsync(['scan', '/etc/passwd'], {env: {HOME: home}})
    assert.equal(r.status, 16)
    assert.equal(r.stdout, '')
    assert.match(r.stderr, /^chatdoctor: \/etc\/passwd is not a file of any chat chatdoctor knows; give a chat dir, a session file, or a folder above them$/m)
    const json = JSON.parse((await runCliAsync(['scan', '--json', '/etc/passwd'], {env: {HOME: home}})).stdout)
    assert.equal(json.exitCode, 16)
    assert.match(json.error, /is not a file of any chat/)
    assert.equal((await runCliAsync(['repair', '--dry-run', '/etc/passwd'], {env: {HOME: home}})).status, 16)
  })
  test('a bundle given to scan points at check', async () => {
    const r = await runCliAsync(['scan', path.join(home, 'b.tgz')], {env: {HOME: home}})
    assert.equal(r.status, 16)
    assert.match(r.stderr, /chatdoctor check ~\/b\.tgz reads bundles/)
  })
  test("a chat's own file still names its chat", async () => {
    const r = JSON.parse((await runCliAsync(['scan', '--json', path.join(home, '.config', 'manicode', 'projects', 'demo-app', 'chats', REAL_CHATS.small, 'run-state.json')], {env: {HOME: home}})).stdout)
    assert.equal(r.exitCode, 0)
    assert.equal(r.summary.chats, 1)
  })
})

describe('repair lists the chats before it asks', () => {
  test('ten chats, then a count; each with what it would do, within the width', () => {
    const todo = Array.from({length: 12}, (_, k) => ({chat: {path: `~/${LONG_CHATS}/2025-11-10T00-00-${String(k).padStart(2, '0')}.000Z`, id: `2025-11-10T00-00-${String(k).padStart(2, '0')}.000Z`}, actions: [{type: 'preserve' as const, from: 'run-state.json', to: 'run-state.json'}, {type: 'restore' as const, from: 'run-state.json.bak', to: 'run-state.json'}]}))
    const lines = confirmationLines(todo, 80)
    assert.equal(lines[0], 'chatdoctor would repair 12 chats:')
    assert.equal(lines.filter((l) => /^ {2}~\//.test(l)).length, CONFIRM_LIST_MAX)
    assert.equal(lines.filter((l) => l === '    restore run-state.json from run-state.json.bak').length, CONFIRM_LIST_MAX)
    assert.equal(lines.at(-1), '  … and 2 more (chatdoctor repair --dry-run lists them all)')
    for (const k of [0, 9]) assert.ok(lines.some((l) => l.includes(todo[k].chat.id)), 'the chat id is kept when the path is shortened')
    for (const l of lines) assert.ok(stringWidth(l) <= 80, l)
    assert.equal(confirmationLines(todo.slice(0, 3)).filter((l) => l.startsWith('  ~/')).length, 3)
  })

  test('the question counts the sessions that come back with their index, as the summary does', () => {
    assert.equal(confirmationQuestion(12, 0), 'Repair these 12 chats (originals kept as evidence, undo possible)? [y/N] ')
    assert.equal(confirmationQuestion(4, 1), 'Repair these 4 chats (1 more comes back with its index; originals kept as evidence, undo possible)? [y/N] ')
    assert.equal(confirmationQuestion(2, 3), 'Repair these 2 chats (3 more come back with their indexes; originals kept as evidence, undo possible)? [y/N] ')
  })

  test('on a terminal: the list, then the question; answering no writes nothing', (t) => {
    if (spawnSync('script', ['--version']).status !== 0) return t.skip('script(1) from util-linux is not installed: no pty to run in')
    const home = tempDir('chatdoctor-ask-')
    try {
      for (let k = 0; k < 12; k++) {
        const dir = copyRealChat(REAL_CHATS.tenTurns, home, undefined, `2025-12-01T00-00-${String(k).padStart(2, '0')}.000Z`)
        const p = path.join(dir, 'run-state.json')
        writeFileSync(p, cutAt(readFileSync(p), 16384))
      }
      const before = hashTree(home)
      const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
      const r = spawnSync('script', ['-qec', `stty cols 100 rows 60; exec ${sh(process.execPath)} ${sh(BIN)} repair`, '/dev/null'], {env: {...inheritedEnv(), HOME: home, NO_COLOR: '1'}, input: 'n\n', encoding: 'utf8'})
      const out = r.stdout.replace(/\r/g, '')
      assert.match(out, /chatdoctor would repair 12 chats:/)
      assert.equal(out.split('\n').filter((l) => /^ {2}~\/\.config\/manicode\/projects\/demo-app\/chats\/2025-12-01T00-00-\d\d\.000Z$/.test(l)).length, 10)
      assert.match(out, /… and 2 more \(chatdoctor repair --dry-run lists them all\)/)
      assert.match(out, /Repair these 12 chats \(originals kept as evidence, undo possible\)\? \[y\/N\]/)
      assert.ok(out.indexOf('… and 2 more') < out.indexOf('Repair these 12 chats'), 'the list comes before the question')
      assert.match(out, /0 repaired, 12 not repaired/)
      assert.deepEqual(hashTree(home), before, 'nothing written')
    } finally {
      cleanup(home)
    }
  })
})

test('commandLines: a command continued over lines gives the shell back every argument exactly', () => {
  const home = '/home/someone'
  const cases: string[][] = [
    ['inspect', `~/.config/manicode/projects/${'y'.repeat(150)}/chats/2025-11-10T00-00-00.000Z`],
    ['repair', '--dry-run', `~/${ODD}/with 'single' and "double" quotes and spaces`, 'plain'],
    ['inspect', `~/tab\there/new\nline/${'z'.repeat(70)}`, '--session', 'ses_1'],
    ['repair', '--dry-run', `/abs/${'日本語'.repeat(30)}`],
  ]
  for (const argv of cases) {
    for (const width of [24, 40, 80, 200]) {
      const lines = commandLines(argv, width, '    ')
      for (const l of lines) assert.ok(stringWidth(l) <= width, `${width}: ${l}`)
      const r = spawnSync('bash', ['-c', `chatdoctor() { printf '%s\\0' "$@"; }\n${lines.join('\n')}\n`], {env: {PATH: process.env.PATH, HOME: home}, encoding: 'utf8'})
      assert.equal(r.status, 0, r.stderr)
      assert.deepEqual(r.stdout.split('\0').slice(0, -1), argv.map((a) => a.replace(/^~\//, `${home}/`)), `${width} columns:\n${lines.join('\n')}`)
    }
  }
})
