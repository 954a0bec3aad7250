/** `npm run schema`: writes schemas/report.schema.json and the finding-id table of docs/json-report.md from the code. */
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {FINDING_TABLE_DOC, reportJsonSchemaText, withFindingTable} from '../src/lib/render/contract.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
writeFileSync(path.join(root, 'schemas', 'report.schema.json'), reportJsonSchemaText())
const doc = path.join(root, FINDING_TABLE_DOC)
writeFileSync(doc, withFindingTable(readFileSync(doc, 'utf8')))
console.log(`wrote schemas/report.schema.json and the finding-id table of ${FINDING_TABLE_DOC}`)
