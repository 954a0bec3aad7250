/**
 * What reaches a terminal. Names of chats, files and archive entries, and messages that quote them, come
 * from the disk, from archives and from the command line; a name can hold ESC sequences (clear the screen,
 * set the window title), CR (overwrite a line), BEL, C1 controls (U+009B is a one-character CSI) or LF (forge
 * a line). Every human output is made from data passed through `forTerminal` first, which writes every control
 * character of every string as `\uNNNN`, the way names that are not UTF-8 are already shown as `\xNN`
 * (`paths.ts`); `terminalText` is the last pass over the text written. JSON output is never made through
 * here: it keeps names exact.
 */
import {escapeControls} from '../fsio/paths.js'

/**
 * A deep copy of plain data (objects, arrays, strings, numbers, …) with every string, keys included, passed
 * through `escapeControls`. Anything that is not plain data (byte buffers, class instances) is kept as it is:
 * reports and inspections are plain data (they are what `--json` prints), and no renderer prints bytes.
 */
export function forTerminal<T>(data: T): T {
  return copy(data) as T
}

/** Each object and array `forTerminal` made, to the one it was copied from. */
const ORIGINALS = new WeakMap<object, object>()

/**
 * The exact data an object of `forTerminal`'s copy was made from (the object itself when it is no such copy).
 * For the one thing shown that must not be the escaped text: a command to paste, whose words name the exact
 * files (`shellWord` quotes control characters its own way, `$'\x1b'`, never raw).
 */
export function exactOf<T extends object>(shown: T): T {
  return (ORIGINALS.get(shown) as T | undefined) ?? shown
}

function copy(v: unknown): unknown {
  if (typeof v === 'string') return escapeControls(v)
  if (typeof v !== 'object' || v === null) return v
  if (Array.isArray(v)) return remember(v.map(copy), v)
  const proto = Object.getPrototypeOf(v)
  if (proto !== Object.prototype && proto !== null) return v
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) out[escapeControls(k)] = copy(x)
  return remember(out, v)
}

function remember<T extends object>(made: T, from: object): T {
  ORIGINALS.set(made, from)
  return made
}

/** An SGR sequence (colour, bold, dim): what chalk writes, and the only escape sequence chatdoctor writes. */
const SGR = /^\u001b\[[0-9;]*m/
/** Control characters but LF (the line breaks of the output itself). */
const CONTROL_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/

/**
 * The last pass over human text before it is written: every control character but LF, and ESC unless it
 * starts an SGR colour sequence, is written as `\uNNNN`. Data made printable by `forTerminal` holds no control
 * character at all, so this only catches text that was put together from something else.
 */
export function terminalText(text: string): string {
  if (!CONTROL_BUT_LF.test(text)) return text
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (ch === '\u001b') {
      const m = SGR.exec(text.slice(i, i + 32))
      if (m) {
        out += m[0]
        i += m[0].length - 1
        continue
      }
    }
    out += ch !== '\n' && CONTROL_BUT_LF.test(ch) ? escapeControls(ch) : ch
  }
  return out
}
