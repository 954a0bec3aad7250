/**
 * SARIF 2.1.0 (OASIS) for GitHub code scanning and other SARIF viewers. Pure.
 *
 * - Rule ids are chatdoctor's finding ids (the closed list, `findingKinds()` of `formats/registry.ts`), all
 *   listed under `tool.driver.rules`.
 * - Each result has one location: the file (`<bundle path>/<member path>` inside archives), relative to the
 *   working directory, with a byte region (`byteOffset`/`byteLength`) and the start line/column of the damage
 *   when the tear is located.
 * - `partialFingerprints["chatdoctor/v1"]` is a hash of rule id, location and chat id: stable across runs.
 * - GitHub's limits (prior-art.md §5.2): at most 25,000 results per run (errors kept first, then warnings,
 *   then notes), one location per result, and the uploaded file at most 10 MB gzip-compressed; what is left
 *   out is said in a tool notification.
 */
import {createHash} from 'node:crypto'
import {gzipSync} from 'node:zlib'
import type * as Sarif from 'sarif'
import {findingKinds} from '../formats/index.js'
import type {Severity} from '../model/report.js'
import {ciItems, type CiInput, type CiItem} from './ci.js'

/** GitHub code scanning: results kept per run. */
export const SARIF_MAX_RESULTS = 25_000
/** GitHub code scanning: maximum gzip-compressed upload size, bytes. */
export const SARIF_MAX_GZIP_BYTES = 10 * 1000 * 1000

const LEVEL: Record<Severity, Sarif.Result.level> = {error: 'error', warning: 'warning', info: 'note'}
const ORDER: Record<Severity, number> = {error: 0, warning: 1, info: 2}

function uri(p: string): string {
  if (p.startsWith('/')) return 'file://' + p.split('/').map(encodeURIComponent).join('/')
  return p.split('/').map(encodeURIComponent).join('/')
}

function fingerprint(item: CiItem): string {
  return createHash('sha256').update(`${item.ruleId}\0${item.file}\0${item.chatId ?? ''}`).digest('hex').slice(0, 32)
}

function result(item: CiItem, ruleIndex: Map<string, number>): Sarif.Result {
  const physical: Sarif.PhysicalLocation = {artifactLocation: {uri: uri(item.file)}}
  if (item.damage) {
    const region: Sarif.Region = {byteOffset: item.damage.offset, byteLength: item.damage.length}
    if (item.line !== undefined) {
      region.startLine = item.line
      region.startColumn = item.column
    }
    physical.region = region
  }
  const r: Sarif.Result = {
    ruleId: item.ruleId,
    level: LEVEL[item.severity],
    message: {text: item.message},
    locations: [{physicalLocation: physical}],
    partialFingerprints: {'chatdoctor/v1': fingerprint(item)},
  }
  const idx = ruleIndex.get(item.ruleId)
  if (idx !== undefined) r.ruleIndex = idx
  return r
}

/** The SARIF log of a `check` run, as an object (serialize with `JSON.stringify`). */
export function renderSarif(input: CiInput): Sarif.Log {
  const kinds = findingKinds()
  const rules: Sarif.ReportingDescriptor[] = kinds.map((k) => ({
    id: k.id,
    name: k.id.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase()),
    shortDescription: {text: k.description},
    defaultConfiguration: {level: LEVEL[k.severity]},
    properties: {tags: ['chatdoctor']},
  }))
  const ruleIndex = new Map(kinds.map((k, i) => [k.id, i]))
  const items = ciItems(input)
    .map((item, i) => ({item, i}))
    .sort((a, b) => ORDER[a.item.severity] - ORDER[b.item.severity] || a.i - b.i)
    .map((x) => x.item)
  let keep = Math.min(items.length, SARIF_MAX_RESULTS)
  const build = (n: number): Sarif.Log => {
    const notifications: Sarif.Notification[] = []
    if (n < items.length) notifications.push({level: 'warning', message: {text: `${items.length - n} of ${items.length} results left out to stay within GitHub's upload limits (least severe first); run chatdoctor check --format json for all of them`}})
    const invocation: Sarif.Invocation = {executionSuccessful: input.errors.length === 0, exitCode: input.report.exitCode}
    if (notifications.length > 0) invocation.toolExecutionNotifications = notifications
    return {
      $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
      version: '2.1.0',
      runs: [
        {
          tool: {driver: {name: 'chatdoctor', semanticVersion: input.report.chatdoctorVersion, version: input.report.chatdoctorVersion, rules}},
          invocations: [invocation],
          columnKind: 'utf16CodeUnits',
          results: items.slice(0, n).map((it) => result(it, ruleIndex)),
        },
      ],
    }
  }
  let log = build(keep)
  while (keep > 0 && gzipSync(JSON.stringify(log)).length > SARIF_MAX_GZIP_BYTES) {
    keep = Math.floor(keep / 2)
    log = build(keep)
  }
  return log
}
