/**
 * What the CI renderers (SARIF, JUnit, GitHub) share: one flat list of findings with where they are, from a
 * `check` result. Pure. Paths are made relative to the working directory (CI runs at the repository root) and
 * use `/`; archive members are addressed as `<bundle path>/<member path>`.
 */
import path from 'node:path'
import type {CheckedChat, CheckError} from '../pipeline/check.js'
import {reaches} from '../model/findings.js'
import type {DamageLocation, Report, Severity} from '../model/report.js'

export interface CiInput {
  report: Report
  chats: CheckedChat[]
  errors: CheckError[]
  /** Working directory paths are shown relative to. */
  cwd: string
  /** `--fail-on` level: findings at or above it fail a chat. */
  failOn: Severity
}

/** One finding or operational error, located. */
export interface CiItem {
  ruleId: string
  severity: Severity
  message: string
  /** Path relative to `cwd` (or absolute when outside it), `/`-separated: the file, else the chat, else the bundle. */
  file: string
  /** Chat id, or null for an archive-level problem. */
  chatId: string | null
  /** The chat's path (relative like `file`), or null. */
  chat: string | null
  /** The group: bundle path, or the folder of a chat dir (relative like `file`). */
  suite: string
  /** Byte region of the damage in `file`, when located. */
  damage?: DamageLocation
  /** 1-based line and column (UTF-16 code units) of the damage's first byte. */
  line?: number
  column?: number
}

/** `p` relative to `cwd` with `/`, or absolute when not inside `cwd`. */
export function displayPath(p: string, cwd: string): string {
  const rel = path.relative(cwd, p)
  const out = rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? p : rel
  return out.split(path.sep).join('/')
}

function lineColumn(data: Buffer, offset: number): {line: number; column: number} {
  let line = 1
  let start = 0
  const end = Math.min(offset, data.length)
  for (let i = 0; i < end; i++) {
    if (data[i] === 0x0a) {
      line++
      start = i + 1
    }
  }
  return {line, column: data.subarray(start, end).toString('utf8').length + 1}
}

/** Every finding of every chat, then every operational error, in report order. */
export function ciItems(input: CiInput): CiItem[] {
  const items: CiItem[] = []
  const sorted = [...input.chats].sort((a, b) => (a.report.path < b.report.path ? -1 : a.report.path > b.report.path ? 1 : 0))
  for (const c of sorted) {
    const chat = displayPath(c.location, input.cwd)
    // File names are relative to the chat's folder (a session file's folder, a data dir) when it has one.
    const filesDir = displayPath(c.filesDir ?? c.location, input.cwd)
    const suite = displayPath(c.suite, input.cwd)
    for (const f of c.report.findings) {
      const item: CiItem = {ruleId: f.id, severity: f.severity, message: `${c.report.id}: ${f.message}`, file: f.file ? `${filesDir}/${f.file}` : chat, chatId: c.report.id, chat, suite}
      const g = f.file ? c.report.generations.find((x) => x.file === f.file) : undefined
      if (g?.damage) {
        item.damage = g.damage
        const data = c.snapshot.files.find((x) => x.name === g.file)?.data
        if (data) Object.assign(item, lineColumn(data, g.damage.offset))
      }
      items.push(item)
    }
  }
  for (const e of input.errors) items.push({ruleId: e.id, severity: 'error', message: e.message, file: displayPath(e.location, input.cwd), chatId: null, chat: null, suite: displayPath(e.suite, input.cwd)})
  return items
}

/** True when a chat fails under `--fail-on`. */
export function chatFails(c: CheckedChat, failOn: Severity): boolean {
  return c.report.findings.some((f) => reaches(f.severity, failOn))
}
