/**
 * Helpers of the family's `keep` rules (what a log read by streaming keeps of each record): a record's kinds,
 * roles and other short names held once, not once per record. A string `JSON.parse` makes is a fresh copy per
 * record (V8 shares only values of up to 10 characters); the rules only read kept values, so equal ones can be
 * the same string, or the same frozen object.
 */

/** Most distinct names held (a log of made-up names keeps its own copies past this). */
const MAX_NAMES = 4096

/** Longest string held as a name. */
const NAME_CHARS = 64

const NAMES = new Map<string, string>()

/** The one copy of a short string (a record's kind, role, subtype): equal to `s`, held once; anything else as it is. */
export function keptName<T>(s: T): T {
  if (typeof s !== 'string' || s.length > NAME_CHARS) return s
  const had = NAMES.get(s)
  if (had !== undefined) return had as T
  if (NAMES.size < MAX_NAMES) NAMES.set(s, s)
  return s
}

const SHARED = new Map<string, Readonly<unknown>>()

/**
 * The one frozen value for `key` (made by `make` the first time), for kept values of one shape that hold no id
 * or text of their own; `make()` itself when too many shapes were seen.
 */
export function sharedKept<T>(key: string, make: () => T): T {
  const had = SHARED.get(key)
  if (had !== undefined) return had as T
  const v = make()
  if (SHARED.size < MAX_NAMES) SHARED.set(key, Object.freeze(v))
  return v
}
