/**
 * A preload (`node --import <this file>`) that records every module a process loads, one per line, in the file
 * named by `CHATDOCTOR_TRACE_MODULES`: ES modules as `file:` URLs (through a resolve hook) and CommonJS files
 * as absolute paths (through `Module._load`). For the start-up tests, which check what a command
 * loads, not how long it takes.
 */
import {appendFileSync} from 'node:fs'
import Module, {register} from 'node:module'

const out = process.env.CHATDOCTOR_TRACE_MODULES
if (out) {
  register(new URL('./module-trace-hooks.js', import.meta.url))
  const M = Module as unknown as {_load: (...a: unknown[]) => unknown; _resolveFilename: (req: unknown, parent: unknown) => string}
  const load = M._load
  M._load = function (this: unknown, ...args: unknown[]) {
    const loaded = load.apply(this, args)
    try {
      appendFileSync(out, M._resolveFilename(args[0], args[1]) + '\n')
    } catch {
      // a built-in without a file, or a name that only resolves through a hook: not needed here
    }
    return loaded
  }
}
