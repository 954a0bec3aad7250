/**
 * The published contract, generated from code so it cannot drift: the JSON Schema of the `--json` report and
 * the table of finding ids in the JSON report reference (`FINDING_TABLE_DOC`). `npm run schema` writes both;
 * `test/contract.test.ts` fails when either is out of step with the code.
 */
import {z} from 'zod'
import {findingKinds} from '../formats/index.js'
import {ReportSchema} from '../model/report.js'

/** The JSON Schema (draft 2020-12) of the report, as pretty JSON text with a trailing newline. */
export function reportJsonSchemaText(): string {
  const schema = z.toJSONSchema(ReportSchema, {target: 'draft-2020-12'})
  return JSON.stringify({$id: 'https://chatdoctor.dev/schemas/report.schema.json', title: 'chatdoctor report', ...schema}, null, 2) + '\n'
}

/** The Markdown rows of the finding-id table (without header). */
export function findingTableRows(): string {
  return findingKinds()
    .map((k) => `| \`${k.id}\` | ${k.severity} | ${k.description.replace(/\|/g, '\\|')} |`)
    .join('\n')
}

/** The document (relative to the repository root) that holds the generated finding-id table. */
export const FINDING_TABLE_DOC = 'docs/json-report.md'

const START = '<!-- findings:start -->'
const END = '<!-- findings:end -->'

/** A document's text with the finding table between its markers replaced by the generated one. */
export function withFindingTable(doc: string): string {
  const a = doc.indexOf(START)
  const b = doc.indexOf(END)
  if (a < 0 || b < a) throw new Error(`${FINDING_TABLE_DOC} lacks the findings markers (${START} … ${END})`)
  const table = `${START}\n| id | severity | meaning |\n|---|---|---|\n${findingTableRows()}\n${END}`
  return doc.slice(0, a) + table + doc.slice(b + END.length)
}
