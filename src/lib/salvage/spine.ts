/**
 * The spine scan: one pass over the bytes of a (possibly torn) JSON document that descends only along a
 * *spine* of object keys ending in an array (for Codebuff run states: `sessionState` → `mainAgentState` →
 * `messageHistory`), recording every complete member of the spine objects and every complete element of the
 * spine array as byte ranges, and the last offset where the document could be cut and closed again
 * (`keepEnd`) together with the containers open there.
 *
 * Everything off the spine is skipped structurally (`skipValue`), so the scan costs one byte loop over the
 * file. Structural, not validating: salvage validates its result with `JSON.parse`.
 */
import {INCOMPLETE, decodeKey, skipStringBody, skipValue, skipWs, type MemberRange} from '../json/walk.js'

/** A container on the spine: the root object, each spine object, the spine array. */
export interface SpineLevel {
  kind: 'object' | 'array'
  /** Keys from the root to this container (`[]` for the root). */
  path: string[]
  /** Offset of its opening bracket. */
  start: number
  /** Offset just after its closing bracket; null while open (torn). */
  end: number | null
  /** Its complete members, in order (objects only). */
  members: MemberRange[]
  /** Its complete elements as `[start, end)` (the spine array only). */
  elements: Array<[number, number]>
}

/** What the spine scan saw. */
export interface SpineScan {
  /** True when the root value closed before the end of the range. */
  complete: boolean
  /** Offset just after the root value when complete, else null. */
  docEnd: number | null
  /**
   * The last offset at which the bytes can be cut and closed again: just after the last complete member or
   * element of a spine container, or just after the bracket of the innermost spine container opened.
   */
  keepEnd: number
  /** Spine containers still open at `keepEnd`, outermost first (empty when complete). */
  open: SpineLevel[]
  /** Every spine container seen, outermost first. */
  levels: SpineLevel[]
  /** Key of the member whose value the bytes ended in (innermost open object), when its key was readable. */
  tornKey: string | null
  /** True when the spine array was reached (opened). */
  reachedTarget: boolean
}

/** Why a scan stopped early: the bytes are no JSON object prefix along the spine. */
export interface SpineError {
  error: string
  at: number
}

interface Pending {
  key: string
  keyStart: number
  keyEnd: number
}

/**
 * Scans `buf[0, end)` along `spine` (object keys; the last names an array; an empty spine makes the root the
 * array, e.g. a transcript). Returns the scan, or an error when the root is not of that kind or a structural
 * byte is wrong (e.g. garbage after a member). The root may be complete (then `open` is empty) or torn anywhere.
 */
export function scanSpine(buf: Uint8Array, spine: readonly string[], end = buf.length, emptySpineRoot: 'array' | 'object' = 'array'): SpineScan | SpineError {
  let i = skipWs(buf, 0, end)
  if (i >= end) return {error: 'no JSON value before the tear', at: i}
  // An empty spine names the root itself: an array whose elements are kept whole, or (`emptySpineRoot`
  // 'object') an object whose complete members are kept one by one. Otherwise the root is an object.
  const rootKind = spine.length === 0 ? emptySpineRoot : 'object'
  if (buf[i] !== (rootKind === 'array' ? 0x5b : 0x7b)) return {error: `the document is not a JSON ${rootKind}`, at: i}
  const root: SpineLevel = {kind: rootKind, path: [], start: i, end: null, members: [], elements: []}
  const stack: SpineLevel[] = [root]
  const pending: Array<Pending | null> = [null]
  const levels: SpineLevel[] = [root]
  let keepEnd = i + 1
  let tornKey: string | null = null
  let reachedTarget = spine.length === 0
  i++
  // `expectValue`: at the start of a member/element (just after `{`/`[` or `,`); else after a value.
  let atStart = true
  const torn = (): SpineScan => ({complete: false, docEnd: null, keepEnd, open: [...stack], levels, tornKey, reachedTarget})

  for (;;) {
    i = skipWs(buf, i, end)
    if (i >= end) return torn()
    const top = stack[stack.length - 1]
    const b = buf[i]
    if (!atStart) {
      if (b === 0x2c) {
        i++
        atStart = true
        // A comma must be followed by a member or element, never a closer: checked below.
        i = skipWs(buf, i, end)
        if (i >= end) return torn()
        if (buf[i] === 0x7d || buf[i] === 0x5d) return {error: 'trailing comma', at: i}
        continue
      }
    }
    if ((b === 0x7d && top.kind === 'object') || (b === 0x5d && top.kind === 'array')) {
      i++
      top.end = i
      keepEnd = i
      stack.pop()
      const p = pending.pop()
      if (stack.length === 0) return {complete: true, docEnd: i, keepEnd, open: [], levels, tornKey: null, reachedTarget}
      const parent = stack[stack.length - 1]
      if (p) parent.members.push({...p, valueStart: top.start, valueEnd: i})
      atStart = false
      continue
    }
    if (!atStart) return {error: 'expected , or a closing bracket', at: i}
    if (top.kind === 'array') {
      const e = skipValue(buf, i, end)
      if (e === INCOMPLETE) return torn()
      top.elements.push([i, e])
      keepEnd = e
      i = e
      atStart = false
      continue
    }
    // An object member: key, colon, value.
    if (b !== 0x22) return {error: 'expected a key', at: i}
    const keyEnd = skipStringBody(buf, i + 1, end)
    if (keyEnd === INCOMPLETE) return torn()
    const key = decodeKey(buf, i, keyEnd)
    tornKey = key
    let j = skipWs(buf, keyEnd, end)
    if (j >= end) return torn()
    if (buf[j] !== 0x3a) return {error: 'expected :', at: j}
    j = skipWs(buf, j + 1, end)
    if (j >= end) return torn()
    const depth = top.path.length
    if (depth < spine.length && key === spine[depth]) {
      const wantArray = depth === spine.length - 1
      if (buf[j] === (wantArray ? 0x5b : 0x7b)) {
        const child: SpineLevel = {kind: wantArray ? 'array' : 'object', path: [...top.path, key], start: j, end: null, members: [], elements: []}
        stack.push(child)
        pending.push({key, keyStart: i, keyEnd})
        levels.push(child)
        if (wantArray) reachedTarget = true
        keepEnd = j + 1
        tornKey = null
        i = j + 1
        atStart = true
        continue
      }
    }
    const e = skipValue(buf, j, end)
    if (e === INCOMPLETE) return torn()
    top.members.push({key, keyStart: i, keyEnd, valueStart: j, valueEnd: e})
    tornKey = null
    keepEnd = e
    i = e
    atStart = false
  }
}

/** True when the result is an error. */
export function isSpineError(r: SpineScan | SpineError): r is SpineError {
  return 'error' in r
}
