/** The resolve hook of `module-trace.ts` (runs on the loader's thread): appends each resolved URL to the trace. */
import {appendFileSync} from 'node:fs'

type Next = (specifier: string, context: unknown) => Promise<{url: string}>

export async function resolve(specifier: string, context: unknown, next: Next): Promise<{url: string}> {
  const r = await next(specifier, context)
  const out = process.env.CHATDOCTOR_TRACE_MODULES
  if (out) appendFileSync(out, r.url + '\n')
  return r
}
