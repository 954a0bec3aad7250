/**
 * The golden test's runner, a child process of `test/golden.test.ts`: builds every case of `golden-inputs.ts`
 * and runs the built commands on it in this one process (oclif's `Config.runCommand`, as `bin/run.js` does,
 * without a process start per command), each with `--json`, and writes one text per case: every command line
 * run, its exit status and its stdout, with the case's root written `<root>`.
 *
 * Its stdout must be a regular file (`GOLDEN_STDOUT` names it): what each command prints is read back from
 * there, byte for byte, so the text is exactly what a user's `--json` run prints.
 *
 * Environment: `GOLDEN_WORK` (a folder for the cases' trees), `GOLDEN_OUT` (where `<case>.txt` go),
 * `GOLDEN_ONLY` (optional: a comma-separated list of case names).
 */
import {closeSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, realpathSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {createRequire} from 'node:module'
import {REPO_ROOT, setMtime} from './fixtures.js'
import {GOLDEN_CASES, type GoldenCase} from './golden-inputs.js'

const require = createRequire(import.meta.url)
const {Config} = require('@oclif/core/config') as typeof import('@oclif/core/config')

const WORK = process.env.GOLDEN_WORK!
const OUT = process.env.GOLDEN_OUT!
const STDOUT = process.env.GOLDEN_STDOUT!
const ONLY = process.env.GOLDEN_ONLY ? new Set(process.env.GOLDEN_ONLY.split(',')) : null

/** Fixed mtime (ms) given to every folder of a built case, deepest first (creating files changed them). */
const DIR_MTIME = Date.UTC(2026, 2, 3, 4, 0, 0)

function settleDirs(dir: string): void {
  for (const n of readdirSync(dir)) {
    const p = path.join(dir, n)
    if (lstatSync(p).isDirectory()) settleDirs(p)
  }
  setMtime(dir, DIR_MTIME)
}

/** The bytes appended to our stdout file since offset `from`. */
function stdoutSince(from: number): string {
  const to = fstatSync(1).size
  const fd = openSync(STDOUT, 'r')
  try {
    const buf = Buffer.alloc(to - from)
    let got = 0
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, from + got)
      if (n === 0) break
      got += n
    }
    return buf.subarray(0, got).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

const config = await Config.load(REPO_ROOT)

/** Runs one command in this process with HOME = `home`: its exit status and stdout. */
async function run(argv: string[], home: string): Promise<{exit: number; stdout: string}> {
  process.env.HOME = home
  process.exitCode = undefined
  const from = fstatSync(1).size
  await config.runCommand(argv[0], argv.slice(1))
  const exit = Number(process.exitCode ?? 0)
  process.exitCode = undefined
  return {exit, stdout: stdoutSince(from)}
}

interface ChatLine {
  id: string
  path: string
}

function untildify(p: string, home: string): string {
  return p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p
}

async function runCase(c: GoldenCase): Promise<string> {
  const made = path.join(WORK, c.name)
  mkdirSync(made, {recursive: true})
  const root = realpathSync(made)
  const paths = await c.build(root)
  settleDirs(root)
  const parts: string[] = []
  const norm = (text: string) => {
    let t = text.split(root).join('<root>')
    if (c.bundle?.redact) t = t.replace(/\b[0-9a-f]{64}\b/g, '<sha256 of redacted bytes>')
    // Rows an index repair writes name the store's own path (Codex's rollout_path), so their bytes depend on <root>.
    t = t.replace(/("from": "rows:[^"]*",\s*"to": "[^"]*",\s*"sha256": )"[0-9a-f]{64}"/g, '$1"<sha256 of rows naming <root>>"')
    return t
  }
  const record = async (argv: string[], keepStdout = true) => {
    const r = await run(argv, root)
    parts.push(`$ chatdoctor ${norm(argv.join(' '))}\nexit ${r.exit}\n${keepStdout ? norm(r.stdout) : ''}`)
    return r
  }

  if (c.bundle) {
    const archives: string[] = []
    for (const kind of c.bundle.kinds) {
      const out = path.join(root, 'out', `bundle.${kind}`)
      mkdirSync(path.dirname(out), {recursive: true})
      // The bundle's own report carries the archive's sha256, which holds the creation time: not kept.
      await record(['bundle', ...(c.bundle.redact ? ['--redact'] : []), '-o', out, ...paths], false)
      archives.push(out)
    }
    for (const a of archives) await record(['check', '--json', a])
    if (archives.length > 1) await record(['check', '--json', path.join(root, 'out')])
    return parts.join('\n')
  }

  const scan = await record(['scan', '--json', ...paths])
  await record(['repair', '--dry-run', '--json', ...paths])
  if (paths.length > 0) await record(['check', '--json', ...paths])
  let chats: ChatLine[] = []
  try {
    chats = (JSON.parse(scan.stdout) as {chats: ChatLine[]}).chats
  } catch {
    chats = []
  }
  const ids = chats.map((x) => x.id)
  const unique = new Set(ids).size === ids.length
  const base = paths.length === 1 ? paths[0] : root
  for (const chat of chats.slice(0, 10)) {
    await record(unique ? ['inspect', '--json', '--session', chat.id, base] : ['inspect', '--json', untildify(chat.path, root)])
  }
  return parts.join('\n')
}

mkdirSync(OUT, {recursive: true})
// The commands read these; the golden runs must not depend on the environment they were started in.
for (const k of ['XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'CHATDOCTOR_STREAM_THRESHOLD', 'GITHUB_STEP_SUMMARY']) delete process.env[k]
process.env.NO_COLOR = '1'
for (const c of GOLDEN_CASES) {
  if (ONLY && !ONLY.has(c.name)) continue
  writeFileSync(path.join(OUT, `${c.name}.txt`), await runCase(c))
}
