/**
 * The kept values of a streamed rollout's clean lines in columns (`KeptColumns`): what `keepCodexRecord` keeps of
 * a `{timestamp, type, payload}` line whose payload names only its kind, role and call id (almost every line of a
 * rollout: events, tool calls and outputs, reasoning, assistant messages) is a row of typed arrays, its time a
 * number, its kinds and role small codes, its call id the one string. Anything else (the header, a user message
 * and its text, a legacy line, a time that is not the ISO form `toISOString` gives back) is refused and held as an
 * object by the table. A value read back is made for that read, equal to the one kept (same keys, same order).
 */
import type {KeptColumns} from '../../classify/jsonl.js'

/** Kept payloads that hold no id and no text, one frozen object per shape (`sharedPayload`). */
const SHARED_PAYLOADS = new Map<string, Readonly<Record<string, unknown>>>()

/**
 * A kept payload that holds only its kind and role (no call id, no header id, no text: most of a rollout's
 * events and items) as the one frozen object of its shape, so a rollout of many records holds a few such
 * objects, not one per record; any other payload as it is. The rules only read kept values.
 */
export function sharedPayload(p: Record<string, unknown>): Record<string, unknown> {
  let key = ''
  for (const k in p) {
    const x = p[k]
    if (k === 'type' || k === 'role') {
      if (typeof x !== 'string' || x.length > 64) return p
      key += `${k}=${x}\u0000`
    } else if (k === 'content' && x === null) key += 'content\u0000'
    else return p
  }
  let shared = SHARED_PAYLOADS.get(key)
  if (shared === undefined) {
    if (SHARED_PAYLOADS.size >= 1024) return p
    shared = Object.freeze(p)
    SHARED_PAYLOADS.set(key, shared)
  }
  return shared as Record<string, unknown>
}

/** Most distinct kinds and roles one store codes (a log of made-up kinds keeps the rest as objects). */
const MAX_NAMES = 4096
/** Longest kind or role coded. */
const NAME_CHARS = 64

/** Bits of a row's flags: its payload has a `content` member (null), its line an `ordinal`. */
const CONTENT = 1
const ORDINAL = 2

/** The keys of a kept line, in `keepCodexRecord`'s order, that a row holds. */
const LINE_KEYS = ['timestamp', 'type', 'payload']
const LINE_KEYS_ORDINAL = ['timestamp', 'ordinal', 'type', 'payload']

/** Two- and three-digit fields of a time, `00`…`99` and `000`…`999`. */
const D2 = Array.from({length: 100}, (_, i) => String(i).padStart(2, '0'))
const D3 = Array.from({length: 1000}, (_, i) => String(i).padStart(3, '0'))
const DAY_MS = 86_400_000
/** Times coded as numbers: 1970-01-01 to 9999-12-31 (the years `toISOString` writes with four digits). */
const LAST_MS = 253_402_300_800_000

/** The columns of one streamed rollout (one per classification: rows are its line indices). */
export class CodexColumns implements KeptColumns {
  private times = new Float64Array(0)
  private ordinals = new Float64Array(0)
  /** Name codes (0: no such member) of the line's `type`, its payload's `type` and `role`. */
  private types = new Uint16Array(0)
  private itemTypes = new Uint16Array(0)
  private roles = new Uint16Array(0)
  private flags = new Uint8Array(0)
  private readonly callIds = new Map<number, string>()
  /** The payloads without a call id read back, by their codes. */
  private readonly payloads = new Map<number, Record<string, unknown>>()
  private readonly names: string[] = ['']
  private readonly codes = new Map<string, number>()
  /** The last time string taken and its number (records written together share their time). */
  private lastTime = ''
  private lastMs = 0
  /** The last time made back (`get`), so records read in a row share one string. */
  private madeMs = Number.NaN
  private made = ''
  /** The day of the last time made and its `YYYY-MM-DDT`. */
  private day = Number.NaN
  private dayPrefix = ''

  private grow(min: number): void {
    const size = Math.max(256, this.times.length * 2, min + 1)
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(size)
      b.set(a)
      return b
    }
    const u16 = (a: Uint16Array) => {
      const b = new Uint16Array(size)
      b.set(a)
      return b
    }
    this.times = f64(this.times)
    this.ordinals = f64(this.ordinals)
    this.types = u16(this.types)
    this.itemTypes = u16(this.itemTypes)
    this.roles = u16(this.roles)
    const f = new Uint8Array(size)
    f.set(this.flags)
    this.flags = f
  }

  /** The code of a kind or role (0 when it cannot be coded). */
  private code(s: unknown): number {
    if (typeof s !== 'string' || s.length === 0 || s.length > NAME_CHARS) return 0
    const had = this.codes.get(s)
    if (had !== undefined) return had
    if (this.names.length > MAX_NAMES) return 0
    this.codes.set(s, this.names.length)
    this.names.push(s)
    return this.names.length - 1
  }

  /** A time as `toISOString` writes it (`YYYY-MM-DDThh:mm:ss.sssZ`), for `0 <= ms < LAST_MS`. */
  private iso(ms: number): string {
    const d = Math.floor(ms / DAY_MS)
    if (d !== this.day) {
      this.day = d
      this.dayPrefix = new Date(d * DAY_MS).toISOString().slice(0, 11)
    }
    let r = ms - d * DAY_MS
    const milli = r % 1000
    r = (r - milli) / 1000
    const sec = r % 60
    r = (r - sec) / 60
    const min = r % 60
    return this.dayPrefix + D2[(r - min) / 60] + ':' + D2[min] + ':' + D2[sec] + '.' + D3[milli] + 'Z'
  }

  /** The number of a time that `iso` gives back exactly (the ISO form of `toISOString`); NaN for any other. */
  private timeOf(s: unknown): number {
    if (typeof s !== 'string') return Number.NaN
    if (s === this.lastTime) return this.lastMs
    const ms = Date.parse(s)
    if (!(ms >= 0 && ms < LAST_MS) || this.iso(ms) !== s) return Number.NaN
    this.lastTime = s
    this.lastMs = ms
    return ms
  }

  put(line: number, kept: Record<string, unknown>): boolean {
    const keys = Object.keys(kept)
    const want = keys.length === 4 ? LINE_KEYS_ORDINAL : LINE_KEYS
    if (keys.length !== want.length) return false
    for (let j = 0; j < keys.length; j++) if (keys[j] !== want[j]) return false
    const ms = this.timeOf(kept.timestamp)
    if (Number.isNaN(ms)) return false
    const ordinal = kept.ordinal
    if (keys.length === 4 && typeof ordinal !== 'number') return false
    const type = this.code(kept.type)
    if (type === 0) return false
    const p = kept.payload
    if (typeof p !== 'object' || p === null || Array.isArray(p)) return false
    const payload = p as Record<string, unknown>
    // The payload's members in `keepItem`'s order: type, role, call_id, content (null); nothing else.
    let itemType = 0
    let role = 0
    let callId: string | undefined
    let content = false
    let stage = 0
    for (const k of Object.keys(payload)) {
      const x = payload[k]
      if (k === 'type' && stage < 1) {
        itemType = this.code(x)
        if (itemType === 0) return false
        stage = 1
      } else if (k === 'role' && stage < 2) {
        role = this.code(x)
        if (role === 0) return false
        stage = 2
      } else if (k === 'call_id' && stage < 3) {
        if (typeof x !== 'string') return false
        callId = x
        stage = 3
      } else if (k === 'content' && stage < 4 && x === null) {
        content = true
        stage = 4
      } else return false
    }
    if (line >= this.times.length) this.grow(line)
    this.times[line] = ms
    this.ordinals[line] = keys.length === 4 ? (ordinal as number) : 0
    this.types[line] = type
    this.itemTypes[line] = itemType
    this.roles[line] = role
    this.flags[line] = (content ? CONTENT : 0) | (keys.length === 4 ? ORDINAL : 0)
    if (callId !== undefined) this.callIds.set(line, callId)
    return true
  }

  /** The line's `type` (a row always has one). */
  type(line: number): string {
    return this.names[this.types[line]]
  }

  /** Its payload's `type`, `role` and `call_id` (undefined when the payload has none). */
  itemType(line: number): string | undefined {
    return this.itemTypes[line] === 0 ? undefined : this.names[this.itemTypes[line]]
  }

  role(line: number): string | undefined {
    return this.roles[line] === 0 ? undefined : this.names[this.roles[line]]
  }

  callId(line: number): string | undefined {
    return this.callIds.get(line)
  }

  /** Its time as a number (what `Date.parse` gives of its `timestamp`). */
  time(line: number): number {
    return this.times[line]
  }

  /** Its `ordinal`, undefined when it has none. */
  ordinal(line: number): number | undefined {
    return (this.flags[line] & ORDINAL) !== 0 ? this.ordinals[line] : undefined
  }

  get(line: number): Record<string, unknown> {
    const ms = this.times[line]
    if (ms !== this.madeMs) {
      this.madeMs = ms
      this.made = this.iso(ms)
    }
    const flags = this.flags[line]
    const out: Record<string, unknown> = {timestamp: this.made}
    if ((flags & ORDINAL) !== 0) out.ordinal = this.ordinals[line]
    out.type = this.names[this.types[line]]
    const callId = this.callIds.get(line)
    if (callId === undefined) {
      // The shared payload of its shape (`sharedPayload`), found by its codes without making one.
      const key = (this.itemTypes[line] * 65536 + this.roles[line]) * 2 + (flags & CONTENT)
      let shared = this.payloads.get(key)
      if (shared === undefined) this.payloads.set(key, (shared = this.payload(line, undefined)))
      out.payload = shared
      return out
    }
    out.payload = this.payload(line, callId)
    return out
  }

  /** The kept payload of a row. */
  private payload(line: number, callId: string | undefined): Record<string, unknown> {
    const p: Record<string, unknown> = {}
    if (this.itemTypes[line] !== 0) p.type = this.names[this.itemTypes[line]]
    if (this.roles[line] !== 0) p.role = this.names[this.roles[line]]
    if (callId !== undefined) p.call_id = callId
    if ((this.flags[line] & CONTENT) !== 0) p.content = null
    return callId === undefined ? sharedPayload(p) : p
  }
}
