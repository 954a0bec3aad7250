/**
 * The parts of `@oclif/core` the commands use, each loaded by its own subpath with `require`.
 *
 * Why not `import {Command, Flags, Args} from '@oclif/core'` (start-up): the package index also loads
 * help, semver and an engine check no command needs, and an ESM `import` of a CommonJS file makes Node scan
 * that file's source for its export names first (cjs-module-lexer), which on the start-up path costs more than
 * the modules themselves. `require` gives the very same module objects oclif uses internally (one CommonJS
 * cache), so `instanceof` and the class hierarchy are unchanged.
 */
import {createRequire} from 'node:module'

const require = createRequire(import.meta.url)

/** oclif's command base class (`@oclif/core/command`). */
export const {Command} = require('@oclif/core/command') as typeof import('@oclif/core/command')
/** Flag builders: `Flags.boolean`, `Flags.string`, … (`@oclif/core/flags`). */
export const Flags = require('@oclif/core/flags') as typeof import('@oclif/core/flags')
/**
 * Argument builders: `Args.string`, … (`@oclif/core/args`). Every argument of ours sets `ignoreStdin`: oclif
 * otherwise takes a piped standard input as the value of an argument left out (`echo y | chatdoctor repair`
 * searched a folder named `y`), after waiting 10 ms for it.
 */
export const Args = require('@oclif/core/args') as typeof import('@oclif/core/args')
