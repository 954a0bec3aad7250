/** `npm run schema`: writes schemas/report.schema.json and the README's finding table from the code. */
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {reportJsonSchemaText, withFindingTable} from '../src/lib/render/contract.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
writeFileSync(path.join(root, 'schemas', 'report.schema.json'), reportJsonSchemaText())
const readme = path.join(root, 'README.md')
writeFileSync(readme, withFindingTable(readFileSync(readme, 'utf8')))
console.log('wrote schemas/report.schema.json and the README finding table')
