/**
 * Human output fits the terminal: `COLUMNS`, else stdout's terminal width, else unlimited (a pipe or a file is
 * never cut). Over a home with many chats of every agent under long and wide-character folder names, no line of
 * `scan`, `repair --dry-run`, `inspect` or `check` is wider than 80 or 100 columns; folder paths are shortened in
 * the middle keeping the chat id; names are shown once (a one-file session's winner is `itself`); times in
 * messages are ISO dates. `find`, `snapshot`, `undo`, the did-you-mean line and `--help` (its examples too) fit
 * the width as well (help and the did-you-mean line 80 columns when piped); a path or a command stands whole
 * on a line of its own when it does not fit. The layout helpers are checked on random input too.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import path from 'node:path'
import {after, before, describe, test} from 'node:test'
import fc from 'fast-check'
import stringWidth from 'string-width'
import {fitTable, type FitColumn} from '../src/lib/render/fit-table.js'
import {makeChalk} from '../src/lib/render/style.js'
import {UNLIMITED, fitCommand, fitParts, outputWidth, quietly, shellWords, shortenMiddle, textWidth, wrapLine} from '../src/lib/render/width.js'
import {runCliAsync} from './helpers/cli-async.js'
import {REPO_ROOT, cleanup, inheritedEnv, tempDir} from './helpers/fixtures.js'
import {CLAUDE_PROJECT, LONG, LONG_CHATS, ODD_CHATS, UX, UX_CHATS, buildUxHome} from './helpers/ux-home.js'

/** Lines wider than `width` columns (string-width: wide characters count 2), with their widths. */
function tooWide(text: string, width: number): string[] {
  return text.split('\n').filter((l) => stringWidth(l) > width).map((l) => `${stringWidth(l)}: ${l}`)
}

describe('the width to fit', () => {
  test('COLUMNS when it is a positive integer; else the terminal; else unlimited', () => {
    assert.equal(outputWidth({isTTY: false}, {COLUMNS: '100'}), 100)
    assert.equal(outputWidth({isTTY: true, columns: 132}, {COLUMNS: '80'}), 80, 'COLUMNS says so')
    assert.equal(outputWidth({isTTY: true, columns: 90}, {}), 90)
    assert.equal(outputWidth({isTTY: false, columns: 90}, {}), UNLIMITED, 'not a terminal: nothing is cut')
    for (const bad of ['', 'abc', '0', '-5', '80.5']) assert.equal(outputWidth({isTTY: true, columns: 70}, {COLUMNS: bad}), 70, `COLUMNS=${JSON.stringify(bad)} is ignored`)
  })
})

describe('shortening and wrapping (random input)', () => {
  const text = fc.string({unit: 'grapheme', maxLength: 80})
  test('shortenMiddle never exceeds the width, leaves what fits alone, and keeps the id when it fits', () => {
    fc.assert(
      fc.property(text, text, fc.integer({min: 1, max: 90}), (before, id, width) => {
        const s = before + id + '.jsonl'
        const out = shortenMiddle(s, width, id || undefined)
        assert.ok(stringWidth(out) <= width, `${JSON.stringify(out)} is wider than ${width}`)
        if (stringWidth(s) <= width) assert.equal(out, s)
        if (id && before && stringWidth(id) + 2 <= width) assert.ok(out.includes(id), `${JSON.stringify(out)} lost the id ${JSON.stringify(id)}`)
      }),
      {numRuns: 400},
    )
  })
  test('wrapLine: every line within the width, no word lost', () => {
    fc.assert(
      fc.property(fc.array(fc.string({unit: 'grapheme', minLength: 1, maxLength: 30}).filter((w) => !/\s/.test(w)), {maxLength: 20}), fc.integer({min: 20, max: 120}), (words, width) => {
        const lines = wrapLine(`  ${words.join(' ')}`, width)
        for (const l of lines) assert.ok(stringWidth(l) <= width, `${JSON.stringify(l)} is wider than ${width}`)
        assert.equal(lines.join('').replace(/\s+/g, '').normalize('NFC'), words.join('').normalize('NFC'), 'the same text (up to normal form C)')
      }),
      {numRuns: 300},
    )
  })
  test('fitParts: every line within the width unless one whole part stands alone; no text lost, every whole part on one line', () => {
    const word = fc.string({unit: 'grapheme', minLength: 1, maxLength: 30}).filter((w) => !/\s/.test(w))
    const whole = fc.array(word, {minLength: 1, maxLength: 4}).map((ws) => ({whole: ws.join(' ')}))
    fc.assert(
      fc.property(fc.array(fc.oneof(word.map((w) => ` ${w}`), whole.map((w) => [' ', w] as const)), {minLength: 1, maxLength: 12}), fc.integer({min: 20, max: 120}), (items, width) => {
        const parts: Array<string | {whole: string}> = items.flatMap((i): Array<string | {whole: string}> => (typeof i === 'string' ? [i] : [i[0], i[1]]))
        const wholes = parts.filter((p): p is {whole: string} => typeof p !== 'string').map((p) => p.whole)
        const lines = fitParts(parts, width)
        for (const l of lines) if (stringWidth(l) > width) assert.ok(wholes.includes(l.trim()) || !/ /.test(l.trim()), `${JSON.stringify(l)} is wider than ${width}`)
        for (const w of wholes) assert.ok(lines.some((l) => l.includes(w)), `${JSON.stringify(w)} broken`)
        const text = parts.map((p) => (typeof p === 'string' ? p : p.whole)).join('')
        assert.equal(lines.join(' ').replace(/\s+/g, ''), text.replace(/\s+/g, ''), 'the same text')
      }),
      {numRuns: 300},
    )
  })
  test('fitCommand: the same shell words, each whole, every line but the last ending in a backslash', () => {
    const word = fc.oneof(fc.stringMatching(/^[a-z0-9~/._-]{1,40}$/), fc.stringMatching(/^'[a-z ]{0,20}'$/), fc.stringMatching(/^--?[a-z]{1,10}$/))
    fc.assert(
      fc.property(fc.array(word, {minLength: 1, maxLength: 15}), fc.integer({min: 20, max: 120}), (words, width) => {
        const line = `  $ ${words.join(' ')}`
        const lines = fitCommand(line, width)
        lines.slice(0, -1).forEach((l) => assert.ok(l.endsWith(' \\'), `${JSON.stringify(l)} continues`))
        assert.deepEqual(shellWords(lines.map((l) => l.replace(/ \\$/, '')).join(' ').trim()), ['$', ...words])
        for (const l of lines) if (stringWidth(l) > width) assert.equal(shellWords(l.replace(/ \\$/, '').trim()).length <= 2, true, `${JSON.stringify(l)} is wider than ${width}`)
      }),
      {numRuns: 300},
    )
  })
  test('fitTable: every line within the width, whatever the cells', () => {
    const columns: FitColumn[] = [{header: 'chat', fit: 'shorten', min: 10}, {header: 'status'}, {header: 'primary'}, {header: 'winner', fit: 'shorten', min: 12, detail: 'winner'}, {header: 'turns'}]
    const cell = fc.string({unit: 'grapheme', maxLength: 70})
    fc.assert(
      fc.property(fc.array(fc.tuple(cell, cell, cell, cell, cell), {minLength: 1, maxLength: 8}), fc.array(cell, {maxLength: 3}), fc.integer({min: 20, max: 140}), (rows, groups, width) => {
        const items = [...groups.map((g) => ({group: g})), ...rows.map((r) => ({cells: r}))]
        const out = fitTable(columns, items, {width, chalk: makeChalk(false), attempts: [{shrink: [3]}, {hide: [2], shrink: [3]}, {hide: [2], shrink: [3, 0]}]})
        assert.deepEqual(tooWide(out, width), [])
      }),
      {numRuns: 200},
    )
  })
  test('fitTable drawn in blocks of rows is the text of one table: groups, details, lines of several rows, colour, rules or none', () => {
    const columns: FitColumn[] = [{header: 'chat', fit: 'shorten', min: 10}, {header: 'status'}, {header: 'winner', fit: 'shorten', min: 12, detail: 'winner'}, {header: 'turns', align: 'right'}]
    const cell = fc.oneof(fc.string({unit: 'grapheme', maxLength: 30}), fc.constantFrom('a\nb', 'ünïcödé 表', ''))
    const item = fc.oneof(fc.tuple(cell, cell, cell, cell).map((cells) => ({cells})), cell.map((group) => ({group})))
    fc.assert(
      fc.property(fc.array(item, {minLength: 1, maxLength: 30}), fc.integer({min: 1, max: 7}), fc.constantFrom(40, 80, UNLIMITED), fc.boolean(), fc.boolean(), (items, blockRows, width, colour, rules) => {
        const opts = {width, chalk: makeChalk(colour), rules, attempts: [{shrink: [2]}, {shrink: [2, 0]}]}
        assert.equal(fitTable(columns, items, {...opts, blockRows}), fitTable(columns, items, {...opts, blockRows: Infinity}))
      }),
      {numRuns: 300},
    )
  })
  test('fitTable without a width: the natural table, every cell whole', () => {
    const out = fitTable([{header: 'a', fit: 'shorten'}, {header: 'b'}], [{group: LONG}, {cells: [LONG, 'x']}], {width: UNLIMITED, chalk: makeChalk(false)})
    assert.equal(out.split(LONG).length, 3)
  })
})

describe('commands over many chats with long paths', {concurrency: 4}, () => {
  let home: string
  let env: NodeJS.ProcessEnv
  const chat = (id: string) => path.join(home, LONG_CHATS, id)
  before(() => {
    home = tempDir('chatdoctor-fit-')
    buildUxHome(home)
    env = {HOME: home}
  })
  after(() => cleanup(home))

  const runs = () => [
    ['scan'],
    ['scan', '--verbose'],
    ['repair', '--dry-run'],
    ['repair', '--dry-run', '--verbose'],
    ['inspect', chat(UX.torn)],
    ['inspect', chat(UX.lost)],
    ['inspect', path.join(home, CLAUDE_PROJECT, `${UX.claude}.jsonl`)],
    ['check', path.join(home, '.config')],
    ['check', '--verbose', home],
  ]
  for (const width of [80, 100]) {
    test(`at ${width} columns no line of scan, repair --dry-run, inspect or check is wider than ${width}`, async () => {
      for (const args of runs()) {
        const r = await runCliAsync(args, {env: {...env, COLUMNS: String(width)}})
        assert.ok(r.status >= 0 && r.status < 16, `${args.join(' ')} exited ${r.status}: ${r.stderr}`)
        assert.ok(r.stdout.length > 0, `${args.join(' ')} printed something`)
        assert.deepEqual(tooWide(r.stdout, width), [], `chatdoctor ${args.join(' ')} (stdout)`)
        assert.deepEqual(tooWide(r.stderr, width), [], `chatdoctor ${args.join(' ')} (stderr)`)
      }
    })
  }

  test('at 80 columns the scan still names every chat: ids kept whole, each folder once, the long folder shortened in the middle', async () => {
    const r = await runCliAsync(['scan'], {env: {...env, COLUMNS: '80'}})
    assert.match(r.stdout, new RegExp(`^${UX_CHATS} chats: `, 'm'))
    for (let k = 0; k < 16; k++) assert.match(r.stdout, new RegExp(`│ 2025-11-10T00-00-${String(k).padStart(2, '0')}\\.000Z +│`), `chat ${k}`)
    const folderRows = r.stdout.split('\n').filter((l) => l.startsWith('│ ~/.config/manicode/projects/a-'))
    assert.equal(folderRows.length, 1, 'the long folder: one row')
    assert.match(folderRows[0], /^│ ~\/\.config\/manicode\/projects\/a-.*….*x\/chats\/ +│$/, 'shortened in the middle, its start and its end kept')
    // The leftover temp's 61-character name does not fit: shortened in its cell, whole under the row.
    assert.match(r.stdout, /^│ {3}winner run-state\.json\.41231\.c7e25b0f-9d14-4a3e-8f6b-2b9a0d5e1c48\.tmp +│$/m)
  })

  test('a one-file session names its file once: the winner column says itself', async () => {
    const r = await runCliAsync(['scan', path.join(home, CLAUDE_PROJECT)], {env})
    const rows = r.stdout.split('\n').filter((l) => l.includes(`${UX.claude}.jsonl`))
    assert.equal(rows.length, 1)
    assert.match(rows[0], /│ itself +│/)
    assert.equal(rows[0].split(UX.claude).length, 2, 'the session id once on its row')
  })

  test('not a terminal and no COLUMNS: nothing is cut (a pipe gets the whole names)', async () => {
    const r = await runCliAsync(['scan'], {env})
    assert.ok(r.stdout.includes(`│ ~/${LONG_CHATS}/ `), 'the whole folder path')
    assert.ok(r.stdout.includes('run-state.json.41231.c7e25b0f-9d14-4a3e-8f6b-2b9a0d5e1c48.tmp │'), 'the whole winner name in its cell')
    assert.ok(!r.stdout.includes('…'))
  })

  test('wide characters count two columns: the odd folder fits too', async () => {
    const r = await runCliAsync(['scan', '--verbose', path.join(home, ODD_CHATS)], {env: {...env, COLUMNS: '60'}})
    assert.deepEqual(tooWide(r.stdout, 60), [])
    assert.ok(r.stdout.includes('日本語'), 'the name is shown, not dropped')
  })

  test('times in messages are ISO dates; the JSON keeps the numbers', async () => {
    const human = await runCliAsync(['scan', '--verbose', chat(UX.stale)], {env})
    const line = human.stdout.split('\n').find((l) => l.includes('meta-stale'))!
    assert.match(line, /mtime 2026-11-30T00:28:49\.970Z ≠ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/)
    assert.doesNotMatch(line, /\d{13}/)
    const json = JSON.parse((await runCliAsync(['scan', '--json', chat(UX.stale)], {env})).stdout)
    assert.equal(typeof json.chats[0].generations[0].mtimeMs, 'number')
  })

  test("on a real terminal (a pty of 80 columns, no COLUMNS) the terminal's width is used", (t) => {
    const probe = spawnSync('script', ['--version'], {encoding: 'utf8'})
    if (probe.status !== 0) return t.skip('script(1) from util-linux is not installed: no pty to run in')
    const bin = path.join(REPO_ROOT, 'bin', 'run.js')
    const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
    const r = spawnSync('script', ['-qec', `stty cols 80 rows 50; exec ${sh(process.execPath)} ${sh(bin)} scan`, '/dev/null'], {env: {...inheritedEnv(), HOME: home, NO_COLOR: '1'}, encoding: 'utf8'})
    const out = r.stdout.replace(/\r/g, '')
    assert.match(out, /chats: /, out)
    assert.deepEqual(tooWide(out, 80), [])
    assert.ok(out.includes('…'), 'something had to be shortened to fit')
  })
})

describe('find, snapshot, undo, the did-you-mean line and --help fit too', () => {
  let home: string
  let env: NodeJS.ProcessEnv
  before(() => {
    home = tempDir('chatdoctor-fit-prose-')
    buildUxHome(home)
    env = {HOME: home, XDG_STATE_HOME: path.join(home, '.local', 'state')}
  })
  after(() => cleanup(home))

  /**
   * The lines wider than `width` that are not one unbroken path or command standing alone on its line: a single
   * word (a path, an id; ` \` and closing punctuation aside), a path with spaces that exists, or one of `commands`.
   */
  function overflow(text: string, width: number, commands: ReadonlySet<string> = new Set()): string[] {
    const alone = (l: string) => {
      const t = l.trim().replace(/ \\$/, '').replace(/[:),.]+$/, '').replace(/^\(/, '')
      if (!/ /.test(t) || commands.has(t)) return true
      return /^~\//.test(t) && existsSync(path.join(home, t.slice(2)))
    }
    return text.split('\n').filter((l) => stringWidth(l) > width && !alone(l)).map((l) => `${stringWidth(l)}: ${l}`)
  }

  /**
   * Runs the CLI at `COLUMNS` = width and asserts the fit of stdout and stderr (piped, no COLUMNS: nothing is
   * cut, as for scan; only help and the did-you-mean line are wrapped at 80).
   */
  async function fits(args: string[], width: number | null, commands?: ReadonlySet<string>) {
    const r = await runCliAsync(args, {env: width === null ? env : {...env, COLUMNS: String(width)}})
    assert.ok(r.status >= 0 && r.status < 16, `${args.join(' ')} exited ${r.status}: ${r.stderr}`)
    assert.ok(r.stdout.length + r.stderr.length > 0, `${args.join(' ')} printed something`)
    for (const [name, text] of [['stdout', r.stdout], ['stderr', r.stderr]]) assert.deepEqual(overflow(text, width ?? 80, commands), [], `chatdoctor ${args.join(' ')} (${name}, ${width ?? 'piped'})`)
    return r
  }

  test('find: the matching lines wrapped, every resume command and path whole on one line', async () => {
    const json = JSON.parse((await runCliAsync(['find', 'step', '--json'], {env})).stdout) as {sessions: Array<{path: string; resume: {command: string} | null}>}
    assert.ok(json.sessions.length > 3, 'sessions matched')
    const commands = new Set(json.sessions.flatMap((s) => (s.resume ? [s.resume.command] : [])))
    for (const width of [80, 100, null]) {
      const r = await runCliAsync(['find', 'step'], {env: width === null ? env : {...env, COLUMNS: String(width)}})
      assert.equal(r.status, 0, r.stderr)
      if (width !== null) assert.deepEqual(overflow(r.stdout, width, commands), [], `find at ${width}`)
      if (width !== null) assert.deepEqual(tooWide(r.stderr, width), [], 'the closing sentence')
      const lines = r.stdout.split('\n').map((l) => l.trim())
      for (const s of json.sessions) {
        assert.ok(lines.includes(s.path), `${s.path} whole on its own line`)
        if (s.resume) assert.ok(lines.some((l) => l.includes(s.resume!.command)), `${s.resume.command} whole on one line`)
      }
      if (width !== null) await fits(['find', 'step', '--quiet'], width, commands)
      const none = await runCliAsync(['find', 'no such words anywhere'], {env: width === null ? env : {...env, COLUMNS: String(width)}})
      assert.equal(none.status, 1)
      if (width !== null) assert.deepEqual(tooWide(none.stderr, width), [], 'the closing sentence')
      else assert.match(none.stderr, /^No session matched; searched [^\n]*\.\n$/, 'piped: one line')
    }
    // Piped, a session's lines are whole (nothing cut, as for scan): the resume line is one line.
    const piped = (await runCliAsync(['find', 'step'], {env})).stdout
    for (const s of json.sessions) if (s.resume) assert.ok(piped.split('\n').some((l) => l.startsWith(`  resume: ${s.resume!.command}`)), `piped: resume: ${s.resume.command}`)
  })

  test('snapshot, snapshot --list, --prune: each chat path whole, the rest wrapped', async () => {
    for (const width of [80, 60]) {
      await fits(['snapshot', '--verbose'], width)
      await fits(['snapshot', '--list'], width)
      await fits(['snapshot', '--prune'], width)
    }
    const list = await runCliAsync(['snapshot', '--list'], {env: {...env, COLUMNS: '80'}})
    assert.match(list.stdout, /^\d+ snapshots, .* in the store$/m)
  })

  test('undo --list and undo: each chat folder and file path whole on a line of its own', async () => {
    const rep = JSON.parse((await runCliAsync(['repair', '-y', '--json'], {env})).stdout) as {repairId: string}
    assert.ok(rep.repairId, 'a repair was made')
    for (const width of [80, 60]) await fits(['undo', '--list'], width)
    const list = JSON.parse((await runCliAsync(['undo', '--list', '--json'], {env})).stdout) as {repairs: Array<{chats: string[]}>}
    const human = (await runCliAsync(['undo', '--list'], {env: {...env, COLUMNS: '80'}})).stdout.split('\n')
    for (const c of list.repairs.flatMap((r) => r.chats)) assert.ok(human.includes(`  ${c}`), `${c} on its own line`)
    const undo = await fits(['undo', rep.repairId, '--verbose'], 80)
    assert.match(undo.stdout, /^Undid repair /m)
    const again = await runCliAsync(['undo', rep.repairId], {env})
    assert.match(again.stdout, /^Repair \S+ was already undone: every file is as before it; nothing written\.$/m)
  })

  test('the did-you-mean line: wrapped, the command to try whole', async () => {
    for (const width of [80, 60, null]) {
      for (const args of [['scna'], ['help', 'scna'], ['frobnicate']]) {
        const r = await runCliAsync(args, {env: width === null ? env : {...env, COLUMNS: String(width)}})
        assert.equal(r.status, 16)
        assert.deepEqual(tooWide(r.stderr, width ?? 80), [], `${args.join(' ')} at ${width}`)
        assert.match(r.stderr, /^(chatdoctor: .*|.*)?Try: chatdoctor (scan )?--help$/m, 'the command to try on one line')
      }
    }
  })

  test('--help of every command: the summary, the sections and the examples within the width (an example broken between its words with \\)', async () => {
    const commands = ['', 'scan', 'inspect', 'repair', 'undo', 'find', 'snapshot', 'bundle', 'check', 'guard install', 'guard status', 'guard uninstall']
    for (const width of [80, 100, null]) {
      for (const c of commands) {
        const args = [...(c ? c.split(' ') : []), '--help']
        const r = await fits(args, width)
        assert.match(r.stdout, /USAGE/)
        // An example broken over lines is still one command: each line but its last ends in " \".
        const lines = r.stdout.split('\n')
        lines.forEach((l, i) => {
          if (l.endsWith(' \\')) assert.match(lines[i + 1], /^ {6}\S/, `${args.join(' ')}: the continuation of ${l}`)
        })
      }
    }
    const bundle = await runCliAsync(['bundle', '--help'], {env})
    assert.match(bundle.stdout, /^ {2}\$ chatdoctor bundle \\\n {6}~\/\.config\/manicode\/projects\/my-app\/chats\/2025-11-04T14-01-15\.000Z \\\n {6}-o chat\.tar\.gz$/m)
  })
})

describe('widths without string-width where it is not needed', () => {
  test('every character of the fast path is one column wide by string-width, alone and in random strings', () => {
    const chars = [...Array.from({length: 0x7f - 0x20}, (_, i) => String.fromCharCode(0x20 + i)), ...Array.from({length: 0x80}, (_, i) => String.fromCharCode(0x2500 + i)), '…']
    for (const c of chars) assert.equal(stringWidth(c), 1, `U+${c.charCodeAt(0).toString(16)}`)
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...chars, '\t', '\x1b[31m', '漢', '👍🏽', 'e\u0301', '\u200b')), fc.integer({min: 1, max: 40}), (parts, w) => {
        const s = parts.join('')
        assert.equal(textWidth(s), stringWidth(s))
        const short = shortenMiddle(s.replace(/\x1b\[31m/g, ''), w)
        assert.ok(stringWidth(short) <= w, `${JSON.stringify(short)} fits ${w}`)
      }),
      {numRuns: 500},
    )
  })

  test("a require() of an ES module is loaded without Node's experimental warning; other warnings pass on", () => {
    const seen: string[] = []
    const emit = process.emitWarning
    // Stands for Node's own printing of a warning.
    process.emitWarning = ((w: string | Error) => void seen.push(typeof w === 'string' ? w : w.message)) as typeof process.emitWarning
    try {
      const got = quietly(() => {
        process.emitWarning('CommonJS module /x/chunk.js is loading ES Module /x/node_modules/string-width/index.js using require().\nSupport for loading ES Module in require() is an experimental feature and might change at any time', 'ExperimentalWarning')
        process.emitWarning('something else', 'ExperimentalWarning')
        process.emitWarning('a deprecation', 'DeprecationWarning')
        return 7
      })
      assert.equal(got, 7)
      assert.deepEqual(seen, ['something else', 'a deprecation'])
      process.emitWarning('after', 'ExperimentalWarning')
      assert.deepEqual(seen, ['something else', 'a deprecation', 'after'], 'the filter is gone once the load is done')
    } finally {
      process.emitWarning = emit
    }
  })
})

test('help prose oclif wrapped a column too wide is wrapped again with the rest of its paragraph: no word alone between two lines', async () => {
  const {fitHelp} = await import('../src/cli/help-class.js')
  const para = '      Colour the output (default: on a TTY unless NO_COLOR or TERM=dumb; the flag\n      wins over both).\n\n  --force\n      Next flag.'
  assert.equal(fitHelp(para, 80), '      Colour the output (default: on a TTY unless NO_COLOR or TERM=dumb; the\n      flag wins over both).\n\n  --force\n      Next flag.')
  for (const w of [40, 60, 80]) {
    const lines = fitHelp(para, w).split('\n')
    assert.ok(lines.every((l) => l.length <= w), `${w}: ${lines.join('|')}`)
    assert.ok(!lines.some((l) => /^ +\S+$/.test(l) && !/^ +(--force|Next|flag\.)$/.test(l)), `${w}: a word alone: ${lines.join('|')}`)
  }
})
