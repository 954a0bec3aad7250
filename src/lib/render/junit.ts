/**
 * JUnit XML for CI test views (GitLab `artifacts:reports:junit`, Jenkins, …). JUnit has no formal spec; this
 * follows the common Ant/Surefire shape. Pure. Built with fast-xml-parser's XMLBuilder (escaping included).
 *
 * - One `<testsuite>` per bundle, or per folder holding plain chat dirs.
 * - One `<testcase>` per chat (`name` = chat id, `classname` = the suite path).
 * - At most one `<failure>` per testcase, when the chat has findings at or above `--fail-on`; its text lists
 *   all of them (one line each: severity, id, file, message).
 * - Archive-level problems (entries refused, caps, unreadable bundles) are a testcase `archive` (or the member's
 *   path) with an `<error>`.
 */
import {XMLBuilder} from 'fast-xml-parser'
import {reaches} from '../model/findings.js'
import type {Finding} from '../model/report.js'
import {displayPath, type CiInput} from './ci.js'

// XML 1.0 cannot carry most control characters, even escaped.
const XML_INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g
const clean = (s: string) => s.replace(XML_INVALID, '\ufffd')

function line(f: Finding): string {
  return `${f.severity} ${f.id}${f.file ? ` ${f.file}` : ''}: ${f.message}`
}

interface Case {
  '@_name': string
  '@_classname': string
  '@_file'?: string
  failure?: {'@_message': string; '@_type': string; '#text': string}
  error?: {'@_message': string; '@_type': string; '#text': string}
  'system-out'?: string
}

/** The JUnit XML document of a `check` run. */
export function renderJunit(input: CiInput): string {
  const suites = new Map<string, Case[]>()
  const suiteOf = (name: string) => {
    let s = suites.get(name)
    if (!s) suites.set(name, (s = []))
    return s
  }
  const chats = [...input.chats].sort((a, b) => (a.report.path < b.report.path ? -1 : a.report.path > b.report.path ? 1 : 0))
  for (const c of chats) {
    const suite = displayPath(c.suite, input.cwd)
    const tc: Case = {'@_name': clean(c.report.id), '@_classname': clean(suite), '@_file': clean(displayPath(c.location, input.cwd))}
    const failing = c.report.findings.filter((f) => reaches(f.severity, input.failOn))
    if (failing.length > 0) {
      tc.failure = {
        '@_message': clean(`${c.report.status}: ${failing.length} finding${failing.length === 1 ? '' : 's'} at or above ${input.failOn} (${[...new Set(failing.map((f) => f.id))].join(', ')})`),
        '@_type': failing[0].id,
        '#text': clean(failing.map(line).join('\n')),
      }
    }
    const rest = c.report.findings.filter((f) => !reaches(f.severity, input.failOn))
    if (rest.length > 0) tc['system-out'] = clean(rest.map(line).join('\n'))
    suiteOf(suite).push(tc)
  }
  for (const e of input.errors) {
    const suite = displayPath(e.suite, input.cwd)
    const file = displayPath(e.location, input.cwd)
    const name = file === suite ? 'archive' : file.startsWith(suite + '/') ? file.slice(suite.length + 1) : file
    suiteOf(suite).push({'@_name': clean(name), '@_classname': clean(suite), error: {'@_message': clean(e.message), '@_type': e.id, '#text': clean(`${e.id}: ${e.message}`)}})
  }
  let tests = 0
  let failures = 0
  let errors = 0
  const testsuite = [...suites.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, cases]) => {
      const f = cases.filter((c) => c.failure).length
      const e = cases.filter((c) => c.error).length
      tests += cases.length
      failures += f
      errors += e
      return {'@_name': clean(name), '@_tests': cases.length, '@_failures': f, '@_errors': e, '@_skipped': 0, testcase: cases}
    })
  const doc = {
    '?xml': {'@_version': '1.0', '@_encoding': 'UTF-8'},
    testsuites: {'@_name': 'chatdoctor check', '@_tests': tests, '@_failures': failures, '@_errors': errors, testsuite},
  }
  const builder = new XMLBuilder({ignoreAttributes: false, attributeNamePrefix: '@_', format: true, suppressEmptyNode: true, processEntities: true})
  return builder.build(doc) as string
}
