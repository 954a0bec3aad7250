/**
 * Where the core spells an agent's words: a walk over the syntax tree of each TypeScript file (TypeScript's own
 * parser), looking at identifiers, string and template literals and regular expressions — code, not comments.
 * Used by `test/core-names.test.ts`.
 */
import {readdirSync, readFileSync, statSync} from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

/** One place a forbidden word appears. */
export interface NameHit {
  file: string
  line: number
  word: string
  text: string
}

/** The words of an identifier or a text: split at case changes, digits and anything not a letter; lower case. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase())
}

/**
 * Whether `text` holds `word`: a vocabulary entry of one lower-case word (an agent's name) as a whole word of
 * `wordsOf(text)`; any other entry (a file name, a record key) as it is written.
 */
export function holds(text: string, word: string): boolean {
  if (/^[a-z]+$/.test(word)) return wordsOf(text).includes(word)
  return text.includes(word)
}

/** The identifiers and literal texts of one source file, with their line numbers. */
export function codeTokens(source: string, fileName = 'x.ts'): Array<{line: number; text: string}> {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true)
  const out: Array<{line: number; text: string}> = []
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node) || ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isRegularExpressionLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      out.push({line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, text: ts.isIdentifier(node) || ts.isPrivateIdentifier(node) ? node.text : node.getText(sf)})
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return out
}

/** Every `.ts` file under `dir` (relative paths from `root`, `/`-separated), sorted. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const n of readdirSync(path.join(root, d)).sort()) {
      const rel = `${d}/${n}`
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel)
      else if (n.endsWith('.ts')) out.push(rel)
    }
  }
  walk(dir)
  return out
}

/** The places in `files` (read from `root`) whose code holds a word of `vocabulary`. */
export function nameHits(root: string, files: readonly string[], vocabulary: readonly string[]): NameHit[] {
  const hits: NameHit[] = []
  for (const file of files) {
    for (const t of codeTokens(readFileSync(path.join(root, file), 'utf8'), file)) {
      for (const word of vocabulary) if (holds(t.text, word)) hits.push({file, line: t.line, word, text: t.text.length > 80 ? t.text.slice(0, 77) + '...' : t.text})
    }
  }
  return hits
}
