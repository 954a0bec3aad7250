/**
 * Colour for human output. chalk 5 ignores `NO_COLOR` on a TTY, so the level is decided here:
 * off with `--no-color`, a non-empty `NO_COLOR`, `TERM=dumb`, or a stream that is not a TTY. An explicit
 * `--color` / `--no-color` wins over the environment (no-color.org: per-invocation flags override `NO_COLOR`).
 */
import {Chalk, type ChalkInstance} from 'chalk'

export interface ColorContext {
  /** `--color` / `--no-color`; undefined when not given. */
  flag?: boolean
  env: NodeJS.ProcessEnv
  isTTY: boolean
}

/** True when colour should be used for a stream. */
export function useColor(ctx: ColorContext): boolean {
  if (ctx.flag !== undefined) return ctx.flag
  if (ctx.env.NO_COLOR !== undefined && ctx.env.NO_COLOR !== '') return false
  if (ctx.env.TERM === 'dumb') return false
  return ctx.isTTY
}

/** A chalk instance with colour on (level 1, 16 colours) or off. */
export function makeChalk(color: boolean): ChalkInstance {
  return new Chalk({level: color ? 1 : 0})
}
