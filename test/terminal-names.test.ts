/**
 * Terminal injection: names holding ESC sequences (clear screen, window title, colour), CR, BEL, a C1 control
 * (U+009B, a one-character CSI) and bytes that are not UTF-8, through the human output of every command
 * (scan, scan -v, scan --quick, check on a folder and on a bundle, repair --dry-run, repair, undo, undo --list,
 * inspect, bundle, usage errors, an unknown command). The rule: no control character (C0 but LF, DEL, C1)
 * reaches the terminal raw; each is written as `\uNNNN` (bytes that are not UTF-8 as `\xNN`); with colour on,
 * the only escape sequences are chatdoctor's own SGR colours. JSON output keeps the names exact.
 */
import assert from 'node:assert/strict'
import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {after, before, describe, test} from 'node:test'
import {escapeControls} from '../src/lib/fsio/paths.js'
import {forTerminal, terminalText} from '../src/lib/render/terminal.js'
import {REAL_CHATS, cleanup, copyRealChat, cutAt, runCli, tempDir, type CliResult} from './helpers/fixtures.js'
import {tarGz} from './helpers/archives.js'
import {REAL_SESSIONS, read} from './helpers/sessions.js'

/** The hostile part of every name: clear screen + home, a window title (OSC … BEL), CR, BEL, CSI (C1), colour. */
const EVIL = '\u001b[2J\u001b[H\u001b]0;pwned\u0007\rX\u0007\u009b31m\u001b[31mred\u202etxt.exe\u2066\u200b\u2028'
/** Its escaped form, as every human output must show it. */
const SHOWN = escapeControls(EVIL)

/** Every control character but LF, and the invisible and bidirectional formatting characters: none may reach the terminal raw. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/
/** chatdoctor's own colour codes, the only escape sequences allowed with --color. */
const SGR = /\u001b\[[0-9;]*m/g

/** Asserts that a human output holds no raw control character (colour codes allowed when `color`). */
function assertClean(what: string, r: CliResult, color = false): void {
  for (const [stream, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
    const t = color ? text.replace(SGR, '') : text
    const m = RAW_CONTROL.exec(t)
    assert.equal(m, null, `${what}: raw control character U+${m ? m[0].charCodeAt(0).toString(16).padStart(4, '0') : ''} on ${stream} at ${m?.index}: ${JSON.stringify(t.slice(Math.max(0, (m?.index ?? 0) - 40), (m?.index ?? 0) + 40))}`)
    assert.ok(!t.includes('\ufffd'), `${what}: bytes that are not UTF-8 reached ${stream} raw`)
  }
}

let root = ''
let chatDir = ''
let sessionFile = ''
let bundle = ''
const env = () => ({HOME: root, XDG_STATE_HOME: path.join(root, 'state'), XDG_DATA_HOME: path.join(root, 'nodata'), CODEX_HOME: path.join(root, 'nocodex'), CLAUDE_CONFIG_DIR: path.join(root, 'noclaude')})
const cli = (args: string[], color = false) => runCli(color ? [args[0], '--color', ...args.slice(1)] : args, {env: env()})

before(async () => {
  root = tempDir('chatdoctor-names-')
  const tree = path.join(root, 'tree')
  const chats = path.join('.config', 'manicode', 'projects', `demo${EVIL}`, 'chats')
  // A Codebuff chat whose folder name and one of whose files carry the hostile name; its primary torn.
  const real = copyRealChat(REAL_CHATS.tenTurns, tree, chats)
  chatDir = path.join(path.dirname(real), `${REAL_CHATS.tenTurns}${EVIL}`)
  renameSync(real, chatDir)
  writeFileSync(path.join(chatDir, 'run-state.json'), cutAt(readFileSync(path.join(chatDir, 'run-state.json')), 9000))
  writeFileSync(path.join(chatDir, `note${EVIL}.txt`), 'x')
  // A Claude Code session file with the hostile name, its last line torn.
  const project = path.join(tree, 'claude', 'projects', `-home-dev-${EVIL}`)
  mkdirSync(project, {recursive: true})
  sessionFile = path.join(project, `session${EVIL}.jsonl`)
  const log = read(REAL_SESSIONS.claude.short)
  writeFileSync(sessionFile, log.subarray(0, log.length - 200))
  // A folder whose name is not UTF-8 (and holds an ESC byte): shown as \xNN, never touched.
  mkdirSync(Buffer.concat([Buffer.from(path.join(tree, 'bad-')), Buffer.from([0xff, 0x1b, 0x5b, 0x32, 0x4a, 0x9b])]) as unknown as string)
  // A bundle whose entries carry the hostile name: a refused link, a hidden entry, an entry of no chat.
  const archive = await tarGz([
    {name: `chat${EVIL}/link`, type: 'symlink', linkname: '../../etc'},
    {name: `chat${EVIL}/link/x${EVIL}`, data: Buffer.from('{}')},
    {name: `loose${EVIL}.txt`, data: Buffer.from('x')},
  ])
  bundle = path.join(root, `bundle${EVIL}.tar.gz`)
  writeFileSync(bundle, archive)
})

after(() => cleanup(root))

describe('no name reaches the terminal raw, in the human output of every command', () => {
  test('render layer: forTerminal escapes every string of the data, terminalText keeps only LF and SGR colour', () => {
    const data = {path: `/x/${EVIL}`, list: [EVIL, 3, null], nested: {[`k${EVIL}`]: EVIL}, bytes: Buffer.from([0x1b])}
    const safe = forTerminal(data)
    assert.equal(safe.path, `/x/${SHOWN}`)
    assert.deepEqual(safe.list, [SHOWN, 3, null])
    assert.deepEqual(Object.entries(safe.nested), [[`k${SHOWN}`, SHOWN]])
    assert.equal(safe.bytes, data.bytes)
    assert.equal(data.path, `/x/${EVIL}`, 'the data itself is left as it is')
    assert.equal(terminalText(`a\u001b[31mred\u001b[39m\n\u001b[2J\r\u009b\u007f`), 'a\u001b[31mred\u001b[39m\n\\u001b[2J\\u000d\\u009b\\u007f')
    assert.ok(SHOWN.includes('\\u001b[2J') && SHOWN.includes('\\u009b') && SHOWN.includes('\\u0007') && SHOWN.includes('\\u000d'))
  })

  test('scan (table, -v, --quick, colour on and off), and JSON keeps the names exact', () => {
    const tree = path.join(root, 'tree')
    for (const color of [false, true]) {
      const r = cli(['scan', tree], color)
      assertClean(`scan${color ? ' --color' : ''}`, r, color)
      assert.ok(r.stdout.includes(SHOWN), 'the chat path is shown escaped')
      const v = cli(['scan', '-v', tree], color)
      assertClean('scan -v', v, color)
      assert.ok(v.stdout.includes(`note${SHOWN}.txt`), 'the unknown file is named escaped')
      assert.ok(v.stdout.includes('\\xff\\x1b[2J\\x9b'), 'the folder that is not UTF-8 is shown as \\xNN')
      assertClean('scan --quick', cli(['scan', '--quick', '-v', tree], color), color)
    }
    const json = JSON.parse(cli(['scan', '--json', tree]).stdout) as {chats: Array<{path: string; generations: Array<{file: string}>}>}
    assert.ok(json.chats.some((c) => c.path === chatDir.replace(root, '~')), 'JSON: the chat dir exactly')
    assert.ok(json.chats.some((c) => c.path === sessionFile.replace(root, '~')), 'JSON: the session file exactly')
    assert.ok(json.chats.some((c) => c.generations.some((g) => g.file === `note${EVIL}.txt`)), 'JSON: the file name exactly')
  })

  test('check on the folder and on a bundle with hostile entry names', () => {
    const tree = path.join(root, 'tree')
    for (const color of [false, true]) {
      assertClean('check', cli(['check', '-v', tree], color), color)
      const b = cli(['check', '-v', bundle], color)
      assertClean('check bundle', b, color)
      assert.ok(b.stderr.includes(`link/x${SHOWN}`), 'the hidden entry is named escaped')
    }
  })

  test('inspect, repair --dry-run, repair, undo --list, undo, bundle', () => {
    for (const color of [false, true]) {
      assertClean('inspect chat', cli(['inspect', chatDir], color), color)
      assertClean('inspect session', cli(['inspect', sessionFile], color), color)
      assertClean('repair --dry-run', cli(['repair', '--dry-run', '-v', path.join(root, 'tree')], color), color)
      assertClean('bundle', cli(['bundle', chatDir, '-o', path.join(root, `out${color ? 1 : 0}${EVIL}.tar.gz`)], color), color)
    }
    const rep = cli(['repair', '--yes', '-v', path.join(root, 'tree')])
    assertClean('repair', rep)
    assert.equal(rep.status & 1, 1, rep.stdout + rep.stderr)
    const id = /chatdoctor undo (\S+)/.exec(rep.stdout)![1]
    const list = cli(['undo', '--list'])
    assertClean('undo --list', list)
    assert.ok(list.stdout.includes(SHOWN))
    const undo = cli(['undo', id])
    assertClean('undo', undo)
    assert.equal(undo.status, 0, undo.stdout + undo.stderr)
  })

  test('errors and usage errors that quote a name from the command line', () => {
    for (const args of [['scan', path.join(root, `missing${EVIL}`)], ['inspect', path.join(root, `missing${EVIL}`)], ['check', path.join(root, `missing${EVIL}`)], ['undo', `id${EVIL}`], [`scan${EVIL}`], ['help', `scan${EVIL}`], ['repair', '--restore-from', `x${EVIL}`, chatDir], ['inspect', '--session', `s${EVIL}`, path.join(root, 'tree')]]) {
      const r = cli(args)
      assert.notEqual(r.status, 0)
      assertClean(args.join(' '), r)
      assert.ok(r.stderr.includes(SHOWN) || r.stdout.includes(SHOWN), `${args[0]}: the name is quoted, escaped`)
    }
  })
})
