/**
 * The HTML report: `inspect CHAT --html FILE` and `check … --format html` write one self-contained page (no
 * script, nothing fetched, a Content-Security-Policy that forbids both), names escaped so a file name cannot
 * inject markup, through the same durable write as other outputs. Rendered in headless Chromium (Debian's
 * `chromium`; the test says why it skips when there is none): the page loads with no console error and no
 * request beyond itself, and the screenshot's pixels show the timeline (the winner's ring, the generations,
 * the transcript line) and the byte maps (NUL bytes of a zero-filled file).
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {pathToFileURL} from 'node:url'
import {after, before, describe, test} from 'node:test'
import {PNG} from 'pngjs'
import {HTML_COLORS, escapeHtml} from '../src/lib/render/html.js'
import {runCliAsync} from './helpers/cli-async.js'
import {REAL_CHATS, cleanup, copyRealChat, cutAt, tempDir} from './helpers/fixtures.js'
import {LONG_CHATS, UX, buildUxHome} from './helpers/ux-home.js'

/** A project folder name made of markup (a folder name may hold anything but `/`). */
const EVIL = `<img src=x onerror=alert(1)>"><svg onload=alert(2)>'<script>alert(3)`
const EVIL_CHAT = '2025-11-30T00-00-00.000Z'

/** Every `src`/`href` value of a page. */
const refs = (html: string) => [...html.matchAll(/\b(?:src|href)\s*=\s*"([^"]*)"/gi)].map((m) => m[1])

/** Chromium's executable: `$CHROMIUM`, else `chromium` on PATH; null when there is none. */
function chromiumPath(): string | null {
  if (process.env.CHROMIUM && existsSync(process.env.CHROMIUM)) return process.env.CHROMIUM
  const r = spawnSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], {encoding: 'utf8'})
  const p = r.stdout.trim().split('\n')[0]
  return r.status === 0 && p ? p : null
}

describe('the HTML report', {concurrency: 3}, () => {
  let home: string
  let out: string
  const torn = () => path.join(home, LONG_CHATS, UX.torn)
  const evil = () => path.join(home, '.config', 'manicode', 'projects', EVIL, 'chats', EVIL_CHAT)
  before(() => {
    home = tempDir('chatdoctor-html-')
    out = path.join(home, 'out')
    buildUxHome(home)
    const dir = copyRealChat(REAL_CHATS.tenTurns, home, path.join('.config', 'manicode', 'projects', EVIL, 'chats'), EVIL_CHAT)
    writeFileSync(path.join(dir, 'run-state.json'), cutAt(readFileSync(path.join(dir, 'run-state.json')), 16384))
  })
  after(() => cleanup(home))

  test('inspect --html: the text report as before, and one self-contained page', async () => {
    const file = path.join(out, 'alone', 'torn.html')
    const [r, plain] = await Promise.all([runCliAsync(['inspect', torn(), '--html', file], {env: {HOME: home}}), runCliAsync(['inspect', torn()], {env: {HOME: home}})])
    assert.equal(r.status, 2)
    assert.equal(r.stdout, plain.stdout, 'stdout unchanged')
    assert.equal(r.stderr, `HTML report written to ${file}\n`)
    const html = readFileSync(file, 'utf8')
    assert.match(html, /^<!DOCTYPE html>/)
    assert.ok(html.includes(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`))
    assert.doesNotMatch(html, /<script|<iframe|<object|<embed|<link rel="stylesheet"|@import|url\(/i, 'nothing to run, nothing to fetch')
    assert.deepEqual(refs(html).filter((v) => v !== 'data:,' && !/^#chat-\d+$/.test(v)), [], 'no reference outside the page')
    for (const part of ['What most likely happened', 'Timeline', 'Damaged files', 'What a repair would do', 'What would be lost', 'class="winner"', 'class="bytemap"']) assert.ok(html.includes(part), part)
    assert.ok(html.includes('would restore run-state.json from run-state.json.41231.c7e25b0f-9d14-4a3e-8f6b-2b9a0d5e1c48.tmp'), 'the repair it would make')
    assert.ok(html.includes('a salvage keeps bytes 0–'), 'what a salvage keeps, on the byte map')
    assert.ok(!html.includes(home), 'the home is written ~')
    assert.deepEqual(readdirSync(path.dirname(file)), ['torn.html'], 'no temp left beside it')
  })

  test('names are escaped: markup in a folder name stays text', async () => {
    const file = path.join(out, 'evil.html')
    const r = await runCliAsync(['inspect', evil(), '--html', file], {env: {HOME: home}})
    assert.equal(r.status, 2, r.stderr)
    const html = readFileSync(file, 'utf8')
    assert.ok(!html.includes(EVIL) && !html.includes('<img') && !html.includes('<svg onload') && !html.includes('<script'))
    assert.ok(html.includes(escapeHtml(EVIL)), 'shown, escaped')
    assert.equal(escapeHtml('a\u0000b\u001b[31m<'), 'a\\u0000b\\u001b[31m&lt;', 'control characters shown as \\uNNNN')
  })

  test('--html needs a .html name (exit 16); an unwritable FILE sets exit bit 8 and says why; --json still prints the report', async () => {
    const bad = await runCliAsync(['inspect', torn(), '--html', path.join(out, 'report.txt')], {env: {HOME: home}})
    assert.equal(bad.status, 16)
    assert.match(bad.stderr, /--html writes an HTML page: give a file name ending in \.html/)
    const dir = path.join(out, 'taken.html')
    mkdirSync(dir, {recursive: true})
    const blocked = await runCliAsync(['inspect', torn(), '--html', dir], {env: {HOME: home}})
    assert.equal(blocked.status, 2 | 8)
    assert.match(blocked.stderr, new RegExp(`could not write ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))
    const file = path.join(out, 'json.html')
    const json = await runCliAsync(['inspect', '--json', torn(), '--html', file], {env: {HOME: home}})
    assert.equal(JSON.parse(json.stdout).inspection.id, UX.torn)
    assert.ok(readFileSync(file, 'utf8').startsWith('<!DOCTYPE html>'))
  })

  test('check --format html: every chat of the run on one page, to stdout or to -o', async () => {
    const file = path.join(out, 'check.html')
    const [toStdout, toFile] = await Promise.all([runCliAsync(['check', '--format', 'html', path.join(home, LONG_CHATS)], {env: {HOME: home}}), runCliAsync(['check', '--format', 'html', '-o', file, path.join(home, LONG_CHATS)], {env: {HOME: home}})])
    assert.equal(toStdout.status, 6)
    assert.equal(toFile.status, 6)
    const html = toStdout.stdout
    assert.equal(html.split('<section class="chat"').length - 1, 16, 'a section per chat')
    assert.match(html, /16 chats: 14 healthy, 1 repairable, 1 unrecoverable\./)
    assert.equal(readFileSync(file, 'utf8').replace(/-o \S+ /, ''), html.replace(/-o \S+ /, '').replace(/\n$/, '') + '\n')
    assert.match(toFile.stdout, /turns N\/M/, 'with -o, stdout carries the table')
  })

  test('rendered in headless Chromium: no console error, nothing fetched, and the pixels show the timeline and the byte maps', async (t) => {
    const exe = chromiumPath()
    if (!exe) return t.skip('Chromium is not installed (Debian package chromium): the page was checked without a browser only')
    const file = path.join(out, 'browser.html')
    const r = await runCliAsync(['check', '--format', 'html', '-o', file, path.join(home, LONG_CHATS), path.join(home, '.config', 'manicode', 'projects', EVIL)], {env: {HOME: home}})
    assert.equal(r.status, 6, r.stderr)
    const {chromium} = await import('playwright-core')
    const browser = await chromium.launch({executablePath: exe, headless: true, args: ['--no-sandbox', '--disable-gpu']})
    try {
      const page = await browser.newPage({viewport: {width: 1100, height: 900}, deviceScaleFactor: 1})
      const problems: string[] = []
      const requests: string[] = []
      page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`))
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
      page.on('requestfailed', (q) => problems.push(`request failed: ${q.url()}`))
      page.on('dialog', (d) => {
        problems.push(`dialog: ${d.message()}`)
        void d.dismiss()
      })
      page.on('request', (q) => requests.push(q.url()))
      const url = pathToFileURL(file).href
      await page.goto(url, {waitUntil: 'load'})
      assert.deepEqual(problems, [])
      assert.deepEqual(requests, [url], 'the page itself, and nothing else')

      const png = PNG.sync.read(await page.screenshot({fullPage: true}))
      const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))
      /** Pixels of a colour (within a small tolerance) inside an element's box. */
      const count = async (selector: string, within: string, hex: string): Promise<number> => {
        const box = await page.locator('section.chat', {hasText: within}).locator(selector).first().boundingBox()
        assert.ok(box, `${selector} of ${within} is on the page`)
        const [r0, g0, b0] = rgb(hex)
        let n = 0
        for (let y = Math.floor(box.y); y < Math.ceil(box.y + box.height) && y < png.height; y++) {
          for (let x = Math.floor(box.x); x < Math.ceil(box.x + box.width) && x < png.width; x++) {
            const i = (y * png.width + x) * 4
            if (Math.abs(png.data[i] - r0) <= 12 && Math.abs(png.data[i + 1] - g0) <= 12 && Math.abs(png.data[i + 2] - b0) <= 12) n++
          }
        }
        return n
      }
      // The torn chat: generations plotted, the winner ringed, the transcript's line drawn.
      assert.ok((await count('svg.timeline', UX.torn, HTML_COLORS.winner)) > 150, "the winner's ring")
      assert.ok((await count('svg.timeline', UX.torn, HTML_COLORS.intact)) > 100, 'the usable generations')
      assert.ok((await count('svg.timeline', UX.torn, HTML_COLORS.transcript)) > 100, "the transcript's turns")
      // The lost chat: no winner, its zero-filled primary marked unusable, and its byte map all NUL.
      assert.equal(await count('svg.timeline', UX.lost, HTML_COLORS.winner), 0, 'no winner to ring')
      assert.ok((await count('svg.timeline', UX.lost, HTML_COLORS.damaged)) > 20, 'the unusable primary')
      const map = await page.locator('section.chat', {hasText: UX.lost}).locator('svg.bytemap').first().boundingBox()
      assert.ok(map)
      assert.ok((await count('svg.bytemap', UX.lost, HTML_COLORS.nul)) > map.width * 20, 'the zero-filled file: NUL bytes across the map')
      assert.ok((await count('svg.bytemap', UX.torn, HTML_COLORS.intact)) > map.width * 20, 'the torn file: its intact bytes')
      // The page with markup in a folder name ran nothing (no dialog above) and shows the name as text.
      assert.equal(await page.locator('img').count(), 0)
      assert.ok((await page.locator('h2', {hasText: '<img src=x'}).count()) >= 1)
    } finally {
      await browser.close()
    }
  })
})
