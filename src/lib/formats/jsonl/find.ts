/** What the JSON-lines family's `find` hooks share: a chat's plain logs, text blocks, a string from a log's head. */
import type {ChatUnit, FindSource, FoundText} from '../../model/adapter.js'

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The chat's plain (not compressed) logs, one record per line. */
export function plainLogs(unit: ChatUnit): FindSource[] {
  return (unit.files ?? []).filter((n) => n.endsWith('.jsonl')).map((name) => ({name, records: 'lines'}))
}

/**
 * The texts of a message's content: a string, or an array of blocks whose text is `text` (blocks of other
 * kinds, tool calls and their results, are neither prompts nor answers). `kinds`: the block types that carry
 * text (any block with a string `text` when omitted).
 */
export function blockTexts(content: unknown, role: FoundText['role'], kinds?: readonly string[]): FoundText[] {
  if (typeof content === 'string') return content === '' ? [] : [{role, text: content}]
  if (!Array.isArray(content)) return []
  const out: FoundText[] = []
  for (const b of content) {
    if (!isObject(b) || typeof b.text !== 'string' || b.text === '') continue
    if (kinds && !kinds.includes(String(b.type))) continue
    out.push({role, text: b.text})
  }
  return out
}

/** The first string value of `"key":"…"` in a log's head (its first line that has it), or null. */
export function headString(head: Buffer, key: string): string | null {
  const m = new RegExp(`"${key}"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`).exec(head.toString('utf8'))
  if (!m) return null
  try {
    return JSON.parse(m[1]) as string
  } catch {
    return null
  }
}
