/**
 * Standard output that cannot be written (a full disk: `/dev/full`) is one line on stderr, never a stack trace,
 * and the exit code gets the operational-error bit (8); a closed pipe still ends the output quietly.
 */
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {closeSync, existsSync, openSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {REAL_CHATS, REPO_ROOT, cleanup, copyRealChat, tempDir} from './helpers/fixtures.js'

const BIN = path.join(REPO_ROOT, 'bin', 'run.js')

test('a full standard output: one line on stderr, exit bit 8, for scan, scan --json, --quick and inspect', {skip: existsSync('/dev/full') ? false : 'no /dev/full here'}, (t) => {
  const home = tempDir('stdout-full')
  t.after(() => cleanup(home))
  const chat = copyRealChat(REAL_CHATS.tenTurns, home)
  const env = {...process.env, HOME: home, XDG_STATE_HOME: path.join(home, '.state')}
  for (const args of [['scan', home], ['scan', home, '--json'], ['scan', home, '--quick'], ['scan', home, '--quick', '--json'], ['inspect', chat], ['inspect', chat, '--json']]) {
    const full = openSync('/dev/full', 'w')
    try {
      const r = spawnSync(process.execPath, [BIN, ...args], {encoding: 'utf8', env, stdio: ['ignore', full, 'pipe']})
      const said = r.stderr.split('\n').filter((l) => l.startsWith('chatdoctor: cannot write to standard output'))
      assert.equal(said.length, 1, `${args.join(' ')}: ${r.stderr}`)
      assert.match(said[0], /no space left on its device \(ENOSPC\)/)
      assert.doesNotMatch(r.stderr, /\n\s+at |Node\.js v|throw err/, `${args.join(' ')}: no stack trace`)
      assert.equal(r.status! & 8, 8, `${args.join(' ')}: exit ${r.status}`)
    } finally {
      closeSync(full)
    }
  }
  // The same scan to a reader that stops early is no error: nothing on stderr.
  const piped = spawnSync('sh', ['-c', `"${process.execPath}" "${BIN}" scan "${home}" --json | head -c 10 > /dev/null`], {encoding: 'utf8', env})
  assert.equal(piped.stderr, '')
})
