/**
 * Minimal text edits of a JSON settings file (jsonc-parser's parser): add or remove one property or one array
 * element and leave every other byte as it was, so a hook that `guard` adds can be taken out again exactly.
 * An element is added after the array's last one (or inside `[]`), indented like the file; removing it takes
 * its separator with it. Pure; the caller checks the result parses.
 */
import {createRequire} from 'node:module'
import type {FormattingOptions, Node, ParseError} from 'jsonc-parser'

/** jsonc-parser, loaded on first use (a hook run that edits no settings file never loads it). */
let loaded: typeof import('jsonc-parser') | undefined
const jsonc = (): typeof import('jsonc-parser') => (loaded ??= createRequire(import.meta.url)('jsonc-parser') as typeof import('jsonc-parser'))

export type JsonPath = Array<string | number>

/** The file's indentation unit and line ending (default two spaces, LF). */
export function formattingOf(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n'
  const m = /\n([ \t]+)\S/.exec(text)
  const unit = m ? m[1] : '  '
  const tabs = unit.startsWith('\t')
  return {insertSpaces: !tabs, tabSize: tabs ? 1 : unit.length, eol}
}

/** The parsed value, or the first syntax error in words (line and column). */
export function parseSettings(text: string): {value: unknown} | {error: string} {
  const errors: ParseError[] = []
  const value = jsonc().parse(text, errors, {allowTrailingComma: true, disallowComments: false})
  if (errors.length === 0) return {value}
  const e = errors[0]
  const before = text.slice(0, e.offset)
  const line = before.split('\n').length
  const col = e.offset - before.lastIndexOf('\n')
  return {error: `${jsonc().printParseErrorCode(e.error)} at line ${line}, column ${col}`}
}

function indentAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1
  return /^[ \t]*/.exec(text.slice(start))![0]
}

function unitOf(f: FormattingOptions): string {
  return f.insertSpaces ? ' '.repeat(f.tabSize ?? 2) : '\t'
}

/** `value` printed as the file prints: its indent unit, starting at `indent`. */
function printAt(value: unknown, indent: string, f: FormattingOptions): string {
  return JSON.stringify(value, null, unitOf(f)).split('\n').join((f.eol ?? '\n') + indent)
}

/** Sets (adds or replaces) the property at `path`; its parents must exist. */
export function setProperty(text: string, path: JsonPath, value: unknown): string {
  return jsonc().applyEdits(text, jsonc().modify(text, path, value, {formattingOptions: formattingOf(text)}))
}

/** Removes the property at `path` (with its separator). */
export function removeProperty(text: string, path: JsonPath): string {
  return jsonc().applyEdits(text, jsonc().modify(text, path, undefined, {formattingOptions: formattingOf(text)}))
}

function arrayAt(text: string, path: JsonPath): Node {
  const root = jsonc().parseTree(text)
  const node = root ? jsonc().findNodeAtLocation(root, path) : undefined
  if (!node || node.type !== 'array') throw new Error(`no array at ${path.join('.')}`)
  return node
}

/** Appends `value` to the array at `path`, after its last element (each other byte kept). */
export function appendToArray(text: string, path: JsonPath, value: unknown): string {
  const f = formattingOf(text)
  const node = arrayAt(text, path)
  const eol = f.eol ?? '\n'
  const items = node.children ?? []
  if (items.length > 0) {
    const last = items[items.length - 1]
    const indent = indentAt(text, last.offset)
    const end = last.offset + last.length
    const sameLine = !text.slice(node.offset, last.offset).includes('\n')
    const sep = sameLine ? ', ' : ',' + eol + indent
    return text.slice(0, end) + sep + printAt(value, indent, f) + text.slice(end)
  }
  // An empty array: the element on its own line, one unit deeper than the line of `[`.
  const outer = indentAt(text, node.offset)
  const inner = outer + unitOf(f)
  const open = node.offset + 1
  const close = node.offset + node.length - 1
  return text.slice(0, open) + eol + inner + printAt(value, inner, f) + eol + outer + text.slice(close)
}

/** Removes the element `index` of the array at `path`, with the separator before it (or after it, for the first). */
export function removeArrayItem(text: string, path: JsonPath, index: number): string {
  const node = arrayAt(text, path)
  const items = node.children ?? []
  const item = items[index]
  if (!item) throw new Error(`no element ${index} at ${path.join('.')}`)
  if (items.length === 1) return text.slice(0, node.offset + 1) + text.slice(node.offset + node.length - 1)
  if (index > 0) {
    const prev = items[index - 1]
    return text.slice(0, prev.offset + prev.length) + text.slice(item.offset + item.length)
  }
  return text.slice(0, item.offset) + text.slice(items[1].offset)
}
