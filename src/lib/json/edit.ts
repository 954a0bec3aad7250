/**
 * Minimal text edits of a JSON settings file (jsonc-parser's parser and scanner): add or remove one property or
 * one array element and leave every other byte as it was, so a hook that `guard` adds can be taken out again
 * exactly. The file is read the way the agent reads it (`JsonSyntax`: comments or not, trailing commas or not,
 * the last of duplicate keys in effect), and an edit goes to the member in effect.
 *
 * An insertion is textual: after the container's last member a `,` right behind its value, then the new member on
 * a line of its own below that member's line (so a comment at the end of that line stays where it was), indented
 * like it; into an empty container on a line of its own one indent unit deeper. A container written on one line
 * gets the new member on that line, and a file written on one line gets it compact. Nothing else is re-laid. A removal takes out exactly what an insertion adds
 * (the member, its line break, its separator), comments around it kept. Pure; the caller checks the result parses.
 */
import {createRequire} from 'node:module'
import type {FormattingOptions, Node, ParseError} from 'jsonc-parser'

/** jsonc-parser, loaded on first use (a hook run that edits no settings file never loads it). */
let loaded: typeof import('jsonc-parser') | undefined
const jsonc = (): typeof import('jsonc-parser') => (loaded ??= createRequire(import.meta.url)('jsonc-parser') as typeof import('jsonc-parser'))

export type JsonPath = Array<string | number>

/** What the agent's parser accepts beyond strict JSON. */
export interface JsonSyntax {
  /** `//` and `/* … *\/` comments (read as whitespace). */
  comments: boolean
  /** A `,` before a closing `}` or `]`. */
  trailingCommas: boolean
}

// jsonc-parser's SyntaxKind (a const enum, not importable at run time).
const COMMA = 5
const LINE_COMMENT = 12
const BLOCK_COMMENT = 13
const LINE_BREAK = 14
const WHITESPACE = 15

/** The file's indentation unit and line ending (default two spaces, LF). */
export function formattingOf(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n'
  const m = /\n([ \t]+)\S/.exec(text)
  const unit = m ? m[1] : '  '
  const tabs = unit.startsWith('\t')
  return {insertSpaces: !tabs, tabSize: tabs ? 1 : unit.length, eol}
}

function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset)
  return `line ${before.split('\n').length}, column ${offset - before.lastIndexOf('\n')}`
}

/**
 * The parsed value as the agent's parser reads the file (`syntax`; of duplicate keys the last), or the first
 * error in words: what it is and where (line and column).
 */
export function parseSettings(text: string, syntax: JsonSyntax): {value: unknown} | {error: string} {
  if (text.startsWith('\uFEFF')) return {error: 'a byte-order mark at the start of the file'}
  const errors: ParseError[] = []
  jsonc().parse(text, errors, {allowTrailingComma: syntax.trailingCommas, disallowComments: !syntax.comments})
  if (errors.length > 0) {
    const e = errors[0]
    const code = jsonc().printParseErrorCode(e.error)
    const lenient: ParseError[] = []
    jsonc().parse(text, lenient, {allowTrailingComma: true, disallowComments: false})
    let what: string = code
    if (code === 'InvalidCommentToken') what = 'a comment'
    else if (lenient.length === 0) what = 'a trailing comma'
    return {error: `${what} at ${lineCol(text, e.offset)}`}
  }
  // The agent's own parse: JSON.parse of the text (comments made whitespace, as strip-json-comments does).
  try {
    return {value: JSON.parse(syntax.comments ? jsonc().stripComments(text, ' ') : text)}
  } catch (e) {
    return {error: (e as Error).message.split('\n')[0]}
  }
}

/** The tree of a text that parses (lenient: the caller has checked it with `parseSettings`). */
function treeOf(text: string): Node | undefined {
  return jsonc().parseTree(text, [], {allowTrailingComma: true, disallowComments: false})
}

/** The property node of `key` in an object node that is in effect (the last of duplicates). */
function propertyOf(obj: Node, key: string): Node | undefined {
  let found: Node | undefined
  for (const p of obj.children ?? []) if (p.children?.[0]?.value === key && p.children.length === 2) found = p
  return found
}

/** The value node at `path`, following the member in effect at each step. */
export function nodeAt(text: string, path: JsonPath): Node | undefined {
  let node = treeOf(text)
  for (const seg of path) {
    if (!node) return undefined
    if (typeof seg === 'number') node = node.type === 'array' ? node.children?.[seg] : undefined
    else node = node.type === 'object' ? propertyOf(node, seg)?.children?.[1] : undefined
  }
  return node
}

/**
 * The first key that an object on `path` (from the root down, each step by the member in effect) or anywhere
 * below its end holds more than once, with the lines it is on; null when there is none.
 */
export function duplicateKey(text: string, path: JsonPath): {key: string; lines: number[]} | null {
  const lineOf = (o: number) => text.slice(0, o).split('\n').length
  const dupIn = (obj: Node): {key: string; lines: number[]} | null => {
    const seen = new Map<string, number[]>()
    for (const p of obj.children ?? []) {
      const k = p.children?.[0]?.value
      if (typeof k === 'string') seen.set(k, [...(seen.get(k) ?? []), lineOf(p.offset)])
    }
    for (const [key, lines] of seen) if (lines.length > 1) return {key, lines}
    return null
  }
  const below = (n: Node): {key: string; lines: number[]} | null => {
    if (n.type === 'object') {
      const d = dupIn(n)
      if (d) return d
      for (const p of n.children ?? []) if (p.children?.[1]) {
        const x = below(p.children[1])
        if (x) return x
      }
    } else if (n.type === 'array') for (const c of n.children ?? []) {
      const x = below(c)
      if (x) return x
    }
    return null
  }
  let node = treeOf(text)
  for (const seg of path) {
    if (!node) return null
    if (node.type === 'object' && typeof seg === 'string') {
      const all = (node.children ?? []).filter((p) => p.children?.[0]?.value === seg)
      if (all.length > 1) return {key: seg, lines: all.map((p) => lineOf(p.offset))}
      node = all[0]?.children?.[1]
    } else if (node.type === 'array' && typeof seg === 'number') node = node.children?.[seg]
    else return null
  }
  return node ? below(node) : null
}

function indentAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1
  return /^[ \t]*/.exec(text.slice(start))![0]
}

/** True when only spaces or tabs stand between the start of the line and `offset`. */
function startsLine(text: string, offset: number): boolean {
  const start = text.lastIndexOf('\n', offset - 1) + 1
  return /^[ \t]*$/.test(text.slice(start, offset))
}

function unitOf(f: FormattingOptions): string {
  return f.insertSpaces ? ' '.repeat(f.tabSize ?? 2) : '\t'
}

/** `value` printed as the file prints: its indent unit, starting at `indent`. */
function printAt(value: unknown, indent: string, f: FormattingOptions): string {
  return JSON.stringify(value, null, unitOf(f)).split('\n').join((f.eol ?? '\n') + indent)
}

/**
 * After a member ending at `end`: the offset of a `,` that follows it (only trivia between), and the offset of
 * the line break that ends its line when only spaces and complete one-line comments stand before it.
 */
function after(text: string, end: number): {comma: number | null; lineEnd: number | null} {
  const s = jsonc().createScanner(text, false)
  s.setPosition(end)
  let comma: number | null = null
  for (;;) {
    const k = s.scan() as number
    if (k === WHITESPACE || k === LINE_COMMENT) continue
    if (k === BLOCK_COMMENT && !/[\r\n]/.test(s.getTokenValue())) continue
    if (k === COMMA && comma === null) {
      comma = s.getTokenOffset()
      continue
    }
    return {comma, lineEnd: k === LINE_BREAK ? s.getTokenOffset() : null}
  }
}

/** The start of the line break before the line `offset` is on (`\r\n` or `\n`); -1 on the first line. */
function breakBefore(text: string, offset: number): number {
  const n = text.lastIndexOf('\n', offset - 1)
  return n > 0 && text[n - 1] === '\r' ? n - 1 : n
}

/** Inserts `member` (printed for `indent`) as the last member of `container` (see the module comment). */
function insertLast(text: string, container: Node, member: (indent: string, oneLine: boolean) => string): string {
  const f = formattingOf(text)
  const eol = f.eol ?? '\n'
  const items = container.children ?? []
  const close = container.offset + container.length - 1
  // A file written on one line gets the new member on that line too.
  const oneLineFile = !text.trimEnd().includes('\n')
  if (items.length === 0) {
    if (oneLineFile) return text.slice(0, container.offset + 1) + member('', true) + text.slice(close)
    const outer = indentAt(text, container.offset)
    const inner = outer + unitOf(f)
    if (text.slice(container.offset, close).includes('\n') && startsLine(text, close)) {
      const at = breakBefore(text, close)
      return text.slice(0, at) + eol + inner + member(inner, false) + text.slice(at)
    }
    return text.slice(0, container.offset + 1) + eol + inner + member(inner, false) + eol + outer + text.slice(close)
  }
  const last = items[items.length - 1]
  const end = last.offset + last.length
  const {comma, lineEnd} = after(text, end)
  if (startsLine(text, last.offset) && text.slice(container.offset, last.offset).includes('\n')) {
    const indent = indentAt(text, last.offset)
    // A trailing comma already there becomes the separator.
    const sep = comma === null ? ',' : ''
    const at = comma === null ? end : comma + 1
    if (lineEnd !== null) return text.slice(0, at) + sep + text.slice(at, lineEnd) + eol + indent + member(indent, false) + text.slice(lineEnd)
    return text.slice(0, at) + sep + eol + indent + member(indent, false) + text.slice(at)
  }
  // Written on one line: the new member on that line, separated the way the file separates its members.
  const spaced = /[,:] /.test(text.slice(container.offset, close))
  const at = comma === null ? end : comma + 1
  return text.slice(0, at) + (comma === null ? ',' : '') + (spaced ? ' ' : '') + member(indentAt(text, last.offset), true) + text.slice(at)
}

/** Adds the property `key` to the object at `path` (the member in effect), as its last member. */
export function insertProperty(text: string, path: JsonPath, key: string, value: unknown): string {
  const obj = nodeAt(text, path)
  if (!obj || obj.type !== 'object') throw new Error(`no object at ${path.join('.') || 'the top'}`)
  const f = formattingOf(text)
  // On one line, the file's own separator (`:` or `: `) as its last member has it; on lines of their own `: `.
  const colon = (oneLine: boolean) => {
    const p = (obj.children ?? []).at(-1)
    if (!oneLine || !p?.children?.[1]) return ': '
    const k = p.children[0]
    return /:\s/.test(text.slice(k.offset + k.length, p.children[1].offset)) ? ': ' : ':'
  }
  return insertLast(text, obj, (indent, oneLine) => JSON.stringify(key) + colon(oneLine) + (oneLine ? JSON.stringify(value) : printAt(value, indent, f)))
}

/** Appends `value` to the array at `path` (the member in effect), after its last element. */
export function appendToArray(text: string, path: JsonPath, value: unknown): string {
  const node = nodeAt(text, path)
  if (!node || node.type !== 'array') throw new Error(`no array at ${path.join('.')}`)
  const f = formattingOf(text)
  return insertLast(text, node, (indent, oneLine) => (oneLine ? JSON.stringify(value) : printAt(value, indent, f)))
}

/** Removes member `index` of a container (see the module comment). */
function removeMember(text: string, container: Node, index: number): string {
  const items = container.children ?? []
  const item = items[index]
  if (!item) throw new Error(`no member ${index}`)
  const start = item.offset
  const end = item.offset + item.length
  const open = container.offset + 1
  const close = container.offset + container.length - 1
  if (items.length === 1) {
    const rest = text.slice(open, start) + text.slice(end, close)
    if (/^[\s,]*$/.test(rest)) return text.slice(0, open) + text.slice(close)
    const {comma} = after(text, end)
    const to = comma !== null ? comma + 1 : end
    const from = startsLine(text, start) ? breakBefore(text, start) : start
    return text.slice(0, Math.max(from, open)) + text.slice(to)
  }
  if (index > 0 && index < items.length - 1) {
    // Between two members: it goes with the separator after it (the one before may have a comment behind it).
    const {comma} = after(text, end)
    if (comma === null) throw new Error('no separator after the member')
    return text.slice(0, startsLine(text, start) ? breakBefore(text, start) : start) + text.slice(comma + 1)
  }
  if (index > 0) {
    const prev = items[index - 1]
    const {comma} = after(text, prev.offset + prev.length)
    if (comma === null) throw new Error('no separator before the member')
    const from = startsLine(text, start) ? breakBefore(text, start) : comma
    if (from > comma) return text.slice(0, comma) + text.slice(comma + 1, from) + text.slice(end)
    return text.slice(0, comma) + text.slice(end)
  }
  const next = items[1]
  if (startsLine(text, start) && startsLine(text, next.offset)) return text.slice(0, breakBefore(text, start)) + text.slice(breakBefore(text, next.offset))
  return text.slice(0, start) + text.slice(next.offset)
}

/** Removes the property at `path` (the member in effect) with its separator. */
export function removeProperty(text: string, path: JsonPath): string {
  const key = path[path.length - 1]
  const obj = nodeAt(text, path.slice(0, -1))
  if (!obj || obj.type !== 'object' || typeof key !== 'string') throw new Error(`no property at ${path.join('.')}`)
  const p = propertyOf(obj, key)
  if (!p) throw new Error(`no property at ${path.join('.')}`)
  return removeMember(text, obj, (obj.children ?? []).indexOf(p))
}

/** Removes the element `index` of the array at `path` (the member in effect), with its separator. */
export function removeArrayItem(text: string, path: JsonPath, index: number): string {
  const node = nodeAt(text, path)
  if (!node || node.type !== 'array') throw new Error(`no array at ${path.join('.')}`)
  return removeMember(text, node, index)
}
