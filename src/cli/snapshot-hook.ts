/**
 * The entry point of hook mode, `chatdoctor snapshot --hook <agent> [--settle] [ARG…]`, reached from
 * `bin/run.js` without loading oclif (start-up counts: the agent runs it after every turn). Reads the agent's
 * input (stdin only for an agent that passes it there, at most 1 MiB, for at most 3 s), runs the hook
 * (`pipeline/snapshot/hook.ts`), and exits 0 whatever happened: the agent is never blocked or failed. It
 * prints nothing (an agent may read a hook's stdout); what went wrong is in the state folder's
 * `snapshot-hook.log`. A chat not settled yet is tried again by a detached copy of this process (`--settle`).
 * Only the named agent's adapters are loaded (the registry's `ONLY_AGENT`), and only after the arguments are read.
 */
import {spawn} from 'node:child_process'
import os from 'node:os'
import type {HookInput} from '../lib/model/adapter.js'
import type {HookOutcome} from '../lib/pipeline/snapshot/hook.js'

const MAX_STDIN = 1 << 20
const STDIN_MS = 3000

/** Reads stdin to its end (bounded in size and time); what arrived by then. */
function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    if (process.stdin.isTTY) return resolve('')
    const chunks: Buffer[] = []
    let size = 0
    const finish = () => {
      clearTimeout(timer)
      process.stdin.removeAllListeners()
      process.stdin.pause()
      resolve(Buffer.concat(chunks).toString('utf8'))
    }
    const timer = setTimeout(finish, STDIN_MS)
    process.stdin.on('data', (c: Buffer) => {
      size += c.length
      if (size <= MAX_STDIN) chunks.push(c)
      else finish()
    })
    process.stdin.on('end', finish)
    process.stdin.on('error', finish)
  })
}

/** Splits `snapshot --hook <agent> [--settle] [ARG…]` into the agent, the retry flag and the agent's arguments. */
export function parseHookArgv(argv: readonly string[]): {agent: string; settle: boolean; args: string[]} | null {
  const i = argv.indexOf('--hook')
  if (i < 0 || i + 1 >= argv.length) return null
  const rest = argv.slice(i + 2)
  return {agent: argv[i + 1], settle: rest[0] === '--settle', args: rest[0] === '--settle' ? rest.slice(1) : rest}
}

/** Runs hook mode for `argv` (process.argv without node and the script). Sets exit code 0, always. */
export async function hookMain(argv: readonly string[]): Promise<HookOutcome | null> {
  process.exitCode = 0
  try {
    const parsed = parseHookArgv(argv)
    if (!parsed) return null
    // Only the named agent's adapters are loaded (formats/registry.ts `ONLY_AGENT`): set before the first import of the registry.
    ;(globalThis as Record<symbol, unknown>)[Symbol.for('chatdoctor.onlyAgent')] = parsed.agent
    const [{nodeFileSystem}, {adapterByName}, {runHook}] = await Promise.all([import('../lib/fsio/fs.js'), import('../lib/formats/index.js'), import('../lib/pipeline/snapshot/hook.js')])
    const wantsStdin = adapterByName(parsed.agent)?.snapshot?.hook?.stdin === true
    const input: HookInput = {stdin: wantsStdin ? await readStdin() : '', args: parsed.args}
    const env = process.env
    const script = process.argv[1]
    return await runHook(parsed.agent, input, {
      home: env.HOME || os.homedir(),
      env,
      fs: nodeFileSystem(),
      settle: parsed.settle,
      spawnSettle: (again) => {
        const child = spawn(process.execPath, [script, 'snapshot', '--hook', parsed.agent, '--settle', ...again.args], {detached: true, stdio: ['pipe', 'ignore', 'ignore'], env})
        child.on('error', () => undefined)
        child.stdin?.on('error', () => undefined)
        child.stdin?.end(again.stdin)
        child.unref()
      },
    })
  } catch {
    return null
  } finally {
    process.exitCode = 0
  }
}
