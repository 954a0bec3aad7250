/**
 * Standard input is never an argument: oclif reads a piped stdin as the value of an argument left out unless
 * the argument says not to, so `echo y | chatdoctor repair` searched a folder named `y` (exit 8) and a loop
 * `while read …; do chatdoctor scan; done < list` lost the rest of its list.
 */
import assert from 'node:assert/strict'
import {test} from 'node:test'
import {cleanup, runCli, tempDir} from './helpers/fixtures.js'

test('piped input is not taken for the path of scan, repair --dry-run, check, snapshot --list or undo --list', () => {
  const home = tempDir('chatdoctor-stdin-')
  try {
    const env = {HOME: home, XDG_DATA_HOME: `${home}/.local/share`, XDG_STATE_HOME: `${home}/.local/state`}
    for (const args of [['scan', '--json'], ['repair', '--dry-run', '--json'], ['check', '--json'], ['snapshot', '--list', '--json'], ['undo', '--list', '--json']]) {
      const r = runCli(args, {env, input: 'y\ny\n'})
      assert.doesNotMatch(r.stdout + r.stderr, /[\\/]y\b|"y"/, `${args.join(' ')}: ${r.stdout}${r.stderr}`)
      assert.equal(r.status & 8, 0, `${args.join(' ')} exit ${r.status}: ${r.stdout}${r.stderr}`)
    }
  } finally {
    cleanup(home)
  }
})
