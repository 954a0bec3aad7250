/**
 * Unpaired UTF-16 surrogates in parsed JSON values (a `\ud800` escape without its pair parses to one): whether a
 * value holds one, and where. Their own module: chat formats that never read JSON lines check their values too.
 * Pure.
 */

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** True when some string (or key) in the value holds an unpaired UTF-16 surrogate. */
export function hasLoneSurrogate(value: unknown): boolean {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'string') {
      if (!(v as string & {isWellFormed(): boolean}).isWellFormed()) return true
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]) // not push(...v): a long array would overflow the call stack
    }
    else if (isPlainObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (!(k as string & {isWellFormed(): boolean}).isWellFormed()) return true
        stack.push(x)
      }
    }
  }
  return false
}

/** The path of the first string (or key) in the value holding an unpaired surrogate, or null. */
export function loneSurrogatePath(value: unknown): string | null {
  const stack: Array<{v: unknown; path: string}> = [{v: value, path: ''}]
  const wellFormed = (s: string) => (s as string & {isWellFormed(): boolean}).isWellFormed()
  while (stack.length > 0) {
    const {v, path} = stack.pop()!
    if (typeof v === 'string') {
      if (!wellFormed(v)) return path
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({v: v[i], path: `${path}[${i}]`})
    } else if (isPlainObject(v)) {
      const entries = Object.entries(v)
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, x] = entries[i]
        const p = path === '' ? k : `${path}.${k}`
        if (!wellFormed(k)) return p
        stack.push({v: x, path: p})
      }
    }
  }
  return null
}
