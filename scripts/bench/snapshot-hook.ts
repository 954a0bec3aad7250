/**
 * The input of the snapshot hook's figure: a fake home holding the real Claude Code session of shared/realdata,
 * its last answer's text grown until the log is `bytes` long (still one healthy, settled session), and the
 * `Stop` hook input Claude Code passes on stdin for it.
 */
import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {REALDATA} from '../../test/helpers/fixtures.js'

const SESSION = '3306629b-a8aa-4dc1-8716-233d3cbaea4c'

export interface HookSession {
  env: NodeJS.ProcessEnv
  stdin: string
  /** Size of the session log in bytes. */
  bytes: number
  /** The snapshot store's folder (emptied before each run). */
  store: string
  /** Whether the store holds a snapshot. */
  stored(): boolean
}

/** Makes the fake home under `root`. */
export function makeHookSession(root: string, bytes: number): HookSession {
  const project = path.join(root, '.claude', 'projects', '-home-dev-demo-app')
  mkdirSync(project, {recursive: true})
  const real = readFileSync(path.join(REALDATA, 'claude-code', '2.1.328', 'home', '.claude', 'projects', '-home-dev-demo-app', `${SESSION}.jsonl`), 'utf8')
  const lines = real.split('\n').filter((l) => l.trim() !== '')
  const isText = (l: string) => {
    const v = JSON.parse(l) as {type?: string; message?: {content?: unknown}}
    return v.type === 'assistant' && Array.isArray(v.message?.content) && (v.message.content as Array<{type?: string}>).some((b) => b.type === 'text')
  }
  const last = lines.map(isText).lastIndexOf(true)
  if (last < 0) throw new Error('the real Claude Code log has no assistant text')
  const v = JSON.parse(lines[last]) as {message: {content: Array<{type: string; text?: string}>}}
  const block = v.message.content.find((b) => b.type === 'text')!
  const grow = Math.max(0, bytes - Buffer.byteLength(real))
  const prose = 'The change keeps every caller working and the tests pass. '
  block.text = (block.text ?? '') + ' ' + prose.repeat(Math.ceil(grow / prose.length)).slice(0, grow)
  lines[last] = JSON.stringify(v)
  const log = path.join(project, `${SESSION}.jsonl`)
  writeFileSync(log, lines.join('\n') + '\n')
  const env = {HOME: root, XDG_STATE_HOME: path.join(root, '.local', 'state'), XDG_CONFIG_HOME: path.join(root, '.config'), CLAUDE_CONFIG_DIR: undefined, CHATDOCTOR_SNAPSHOT_KEY: undefined}
  const store = path.join(env.XDG_STATE_HOME, 'chatdoctor', 'snapshots')
  const stdin = JSON.stringify({session_id: SESSION, transcript_path: log, cwd: '/home/dev/demo-app', hook_event_name: 'Stop', stop_hook_active: false})
  const stored = () => existsSync(store) && readdirSync(store).some((d) => readdirSync(path.join(store, d)).some((n) => n.endsWith('.snap')))
  return {env, stdin, bytes: readFileSync(log).length, store, stored}
}
