import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {test} from 'node:test'
import {Ajv2020} from 'ajv/dist/2020.js'
import {FINDING_TABLE_DOC, reportJsonSchemaText, withFindingTable} from '../src/lib/render/contract.js'
import {REALDATA, REPO_ROOT, copyRealChat, REAL_CHATS, tempDir, cleanup, runCli} from './helpers/fixtures.js'
import {writeFileSync} from 'node:fs'

test('schemas/report.schema.json is the one generated from the zod model (run `npm run schema`)', () => {
  const committed = readFileSync(path.join(REPO_ROOT, 'schemas', 'report.schema.json'), 'utf8')
  assert.equal(committed, reportJsonSchemaText())
})

test(`the finding-id table of ${FINDING_TABLE_DOC} lists exactly the finding kinds in code (run \`npm run schema\`)`, () => {
  const doc = readFileSync(path.join(REPO_ROOT, FINDING_TABLE_DOC), 'utf8')
  assert.equal(doc, withFindingTable(doc))
})

test('scan --json output validates against the published JSON Schema, healthy and damaged', () => {
  const ajv = new Ajv2020({allErrors: true, strict: false})
  const validate = ajv.compile(JSON.parse(readFileSync(path.join(REPO_ROOT, 'schemas', 'report.schema.json'), 'utf8')))
  const root = tempDir()
  try {
    const dir = copyRealChat(REAL_CHATS.tenTurns, root)
    writeFileSync(path.join(dir, 'run-state.json'), Buffer.alloc(100))
    for (const target of [path.join(REALDATA, 'codebuff'), root]) {
      const r = runCli(['scan', '--json', target])
      const report = JSON.parse(r.stdout) as {exitCode: number}
      assert.ok(validate(report), JSON.stringify(validate.errors))
      assert.equal(report.exitCode, r.status)
    }
    const bad = runCli(['scan', '--json', '--no-such-flag'])
    assert.equal(bad.status, 16)
    const report = JSON.parse(bad.stdout) as {exitCode: number; error: string}
    assert.ok(validate(report), JSON.stringify(validate.errors))
    assert.equal(report.exitCode, 16)
    assert.match(report.error, /no-such-flag/)
  } finally {
    cleanup(root)
  }
})
