import assert from 'node:assert/strict'
import {test} from 'node:test'
import {REAL_CHATS, REALDATA, runCli} from './helpers/fixtures.js'
import path from 'node:path'

test('the built CLI scans the real Codebuff chats as healthy (exit 0)', () => {
  const r = runCli(['scan', '--json', path.join(REALDATA, 'codebuff')])
  assert.equal(r.status, 0, r.stderr)
  const report = JSON.parse(r.stdout)
  assert.equal(report.summary.chats, 3)
  assert.equal(report.summary.healthy, 3)
  const ten = report.chats.find((c: {id: string}) => c.id === REAL_CHATS.tenTurns)
  assert.equal(ten.contextTurns, 10)
  assert.equal(ten.transcriptTurns, 10)
})
