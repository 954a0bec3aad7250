/**
 * The parts of the commands' `--help` that name agents, built from the registry: each adapter's `help` (its
 * roots, how its chats are repaired, inspected and bundled, example paths), joined in registry order and
 * wrapped. oclif reads the text when it writes `oclif.manifest.json` (at build), so `--help` loads none of this.
 */
import {ADAPTERS} from '../lib/formats/registry.js'
import type {AdapterHelp, FormatAdapter} from '../lib/model/adapter.js'

/** Help lines are wrapped to this many columns. */
export const HELP_WIDTH = 107

/** A text wrapped greedily at `width` columns (existing line breaks kept). */
export function wrap(text: string, width = HELP_WIDTH): string {
  return text
    .split('\n')
    .map((line) => {
      const out: string[] = []
      let cur = ''
      for (const word of line.split(' ')) {
        if (cur !== '' && cur.length + 1 + word.length > width) {
          out.push(cur)
          cur = word
        } else cur = cur === '' ? word : `${cur} ${word}`
      }
      out.push(cur)
      return out.join('\n')
    })
    .join('\n')
}

/** Items as a sentence's list: `a`, `a and b`, `a, b and c`. */
export function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

/**
 * What each adapter's help gives for `pick`, in registry order (adapters that give nothing left out, and a
 * text two adapters of one agent share given once).
 */
export function fromAdapters(pick: (h: AdapterHelp, a: FormatAdapter) => string | undefined, adapters: readonly FormatAdapter[] = ADAPTERS): string[] {
  return [...new Set(adapters.flatMap((a) => {
    const v = pick(a.help, a)
    return v === undefined ? [] : [v]
  }))]
}

/** The first adapter's answer for `pick` (e.g. an example path), or `fallback`. */
export function firstOf(pick: (h: AdapterHelp) => string | undefined, fallback: string): string {
  return fromAdapters(pick)[0] ?? fallback
}

/** Each adapter's paragraph for `pick`, wrapped, blank-line separated. */
export function paragraphs(pick: (h: AdapterHelp) => string | undefined): string {
  return fromAdapters(pick)
    .map((p) => wrap(p))
    .join('\n\n')
}
