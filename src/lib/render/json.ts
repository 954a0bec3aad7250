/**
 * The `--json` report as text, in pieces: exactly the text of `JSON.stringify(value, null, 2)`, but produced
 * one array element at a time for the arrays directly under the top-level object (`chats`, `errors`, …), so a
 * report of thousands of chats is never one string of tens of MB plus a Buffer copy of it (~15 MB
 * for 5,000 chats, held twice, and a third of a second to build).
 *
 * An array may also be a `HeldArray`: its elements' text made one at a time as they come and held deflated
 * (`scan --json` holds its chats so: the document puts the totals before them, and they are known only once
 * every chat is diagnosed), written out as the same text an array of the same values gives.
 */
import {createRequire} from 'node:module'

/** fflate, loaded on first use (only a `HeldArray` with deflated chunks is written through it). */
let fflate: typeof import('fflate') | undefined
const inflater = (): typeof import('fflate') => (fflate ??= createRequire(import.meta.url)('fflate') as typeof import('fflate'))
/** Node's zlib, loaded when a `HeldArray` first deflates a chunk (about 2 ms of start-up otherwise, for every command). */
let zlib: typeof import('node:zlib') | undefined
const deflater = (): typeof import('node:zlib') => (zlib ??= createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib'))

const INDENT = '  '

/** `JSON.stringify(v, null, 2)` of a value nested `depth` levels deep (its lines indented to that depth). */
function nested(v: unknown, depth: number): string | undefined {
  const text = JSON.stringify(v, null, 2)
  return text === undefined || depth === 0 ? text : text.replace(/\n/g, '\n' + INDENT.repeat(depth))
}

/**
 * The elements of an array directly under the report's top level, as their text (`jsonPieces`' own text for
 * them, separators included), made when each is pushed and held deflated in chunks of about `chunkChars`
 * bytes: a report's chats are alike, so they compress about 18 to 1, and the values themselves are let go.
 *
 * Written out, the chunks are inflated one after another into one buffer, lent to the writer (`pieces`): no
 * buffer per chunk. zlib's own inflate makes a fresh buffer of each chunk's size, which V8 frees only when it
 * next collects, and writing allocates too little else to make it collect (measured on 20,000 chats, 60 MB
 * of text: the peak RSS rose 17–31 MB while the document was written). So the chunks are deflated with fixed
 * Huffman codes (`Z_FIXED`: about 18 to 1 instead of 22, and faster) and inflated by fflate into the buffer
 * it is given, which for fixed codes allocates nothing per chunk.
 */
export class HeldArray {
  /** Elements pushed so far. */
  count = 0
  private readonly chunks: Buffer[] = []
  /** The UTF-8 length of each chunk before deflating (so it inflates into one buffer of that size). */
  private readonly sizes: number[] = []
  /**
   * The UTF-8 bytes of the chunk being gathered (`used` of them), reused chunk after chunk: each element's text
   * is encoded into it as it comes, so the string dies young instead of waiting, with the chunk's other
   * elements, long enough to be promoted to the old generation (60 MB of text for 20,000 chats).
   */
  private raw = Buffer.alloc(0)
  private used = 0

  /** `chunkChars`: about how many bytes of text each deflated chunk holds. */
  constructor(private readonly chunkChars = 1 << 16) {}

  /** Adds one element (what `JSON.stringify` gives for it, `null` for a value it leaves out, as in an array). */
  push(value: unknown): void {
    const text = `${this.count++ > 0 ? ',' : ''}\n${INDENT}${INDENT}${nested(value, 2) ?? 'null'}`
    const size = Buffer.byteLength(text, 'utf8')
    if (this.raw.length < this.used + size) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.used + size, this.chunkChars + (this.chunkChars >> 1), 2 * this.raw.length))
      this.raw.copy(grown, 0, 0, this.used)
      this.raw = grown
    }
    this.used += this.raw.write(text, this.used, 'utf8')
    if (this.used >= this.chunkChars) {
      const {constants, deflateRawSync} = deflater()
      // zlib gives a view into a 16 KiB output buffer; a copy of its bytes is what is kept (measured: 16 MB of
      // such buffers, mostly empty, for the 20,000 chats' reports instead of their 2.7 MB).
      const deflated = deflateRawSync(this.raw.subarray(0, this.used), {level: 1, strategy: constants.Z_FIXED})
      const own = Buffer.allocUnsafeSlow(deflated.length)
      deflated.copy(own)
      this.chunks.push(own)
      this.sizes.push(this.used)
      this.used = 0
      // A buffer grown for one very large element is not kept for the rest of the scan.
      if (this.raw.length > 4 * this.chunkChars) this.raw = Buffer.alloc(0)
    }
  }

  /** Bytes held now (the memory the deflated chunks keep, and the buffer of the chunk being gathered), for measuring. */
  get heldBytes(): number {
    return this.chunks.reduce((n, c) => n + c.buffer.byteLength, 0) + this.raw.buffer.byteLength
  }

  /**
   * The elements' text, in pieces (between `[` and the `]` line): the deflated chunks as their UTF-8 bytes, each
   * in the same buffer, which the next piece overwrites (a consumer that keeps a piece copies it), then the
   * chunk not deflated yet.
   */
  *pieces(): Generator<Buffer> {
    const {inflateSync} = inflater()
    let out = Buffer.alloc(0)
    for (let k = 0; k < this.chunks.length; k++) {
      const size = this.sizes[k]
      if (out.length < size) out = Buffer.allocUnsafeSlow(Math.max(size, 2 * out.length))
      // A view of `out` (fflate returns the part it filled), so a Buffer too.
      const text = inflateSync(this.chunks[k], {out: out.subarray(0, size)}) as Buffer
      if (text.length !== size) throw new Error(`a held chunk inflated to ${text.length} bytes, not the ${size} deflated`)
      yield text
    }
    if (this.used > 0) yield this.raw.subarray(0, this.used)
  }
}

/**
 * Yields the text of `JSON.stringify(value, null, 2)` in pieces (without a trailing newline; a `HeldArray`'s as
 * UTF-8 bytes, lent: see `HeldArray.pieces`). Values with a
 * `toJSON`, non-plain objects and anything that is not an object at the top are stringified whole; keys whose
 * value `JSON.stringify` would leave out (undefined, functions, symbols) are left out as it would.
 */
export function* jsonPieces(value: unknown): Generator<string | Uint8Array> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as {toJSON?: unknown}).toJSON === 'function') {
    const whole = JSON.stringify(value, null, 2)
    if (whole !== undefined) yield whole
    return
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol')
  if (entries.length === 0) {
    yield '{}'
    return
  }
  yield '{'
  for (let k = 0; k < entries.length; k++) {
    const [key, v] = entries[k]
    const comma = k < entries.length - 1 ? ',' : ''
    if (v instanceof HeldArray) {
      if (v.count === 0) yield `\n${INDENT}${JSON.stringify(key)}: []${comma}`
      else {
        yield `\n${INDENT}${JSON.stringify(key)}: [`
        yield* v.pieces()
        yield `\n${INDENT}]${comma}`
      }
    } else if (Array.isArray(v) && v.length > 0 && typeof (v as {toJSON?: unknown}).toJSON !== 'function') {
      yield `\n${INDENT}${JSON.stringify(key)}: [`
      for (let i = 0; i < v.length; i++) yield `\n${INDENT}${INDENT}${nested(v[i], 2) ?? 'null'}${i < v.length - 1 ? ',' : ''}`
      yield `\n${INDENT}]${comma}`
    } else yield `\n${INDENT}${JSON.stringify(key)}: ${nested(v, 1)}${comma}`
  }
  yield '\n}'
}

/**
 * Writes `jsonPieces(value)` and a newline through `write`, gathered into chunks of about `chunkChars`
 * characters (default 1 MiB) so a large report costs a handful of writes. A piece that is already bytes (a
 * `HeldArray`'s) is written as it is, after what was gathered before it; it is lent: valid until `write`
 * returns (the next piece may reuse its memory), so a `write` that keeps it copies it.
 */
export function writeJson(value: unknown, write: (text: string | Uint8Array) => void, chunkChars = 1 << 20): void {
  let pending = ''
  for (const piece of jsonPieces(value)) {
    if (typeof piece !== 'string') {
      if (pending !== '') write(pending)
      pending = ''
      write(piece)
      continue
    }
    pending += piece
    if (pending.length >= chunkChars) {
      write(pending)
      pending = ''
    }
  }
  write(pending + '\n')
}
