/**
 * `npm run demo`: scans the sample chats in `examples/home` as a user would (HOME pointed at a temp copy,
 * no PATH given, so the default Codebuff roots are searched), shows the exit status the damage causes,
 * and exits 0 itself. Writes only inside its own temp folder.
 */
import {spawnSync} from 'node:child_process'
import {cpSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const home = mkdtempSync(path.join(os.tmpdir(), 'chatdoctor-demo-'))
try {
  cpSync(path.join(root, 'examples', 'home'), home, {recursive: true})
  // Ordered mtimes: older generations older, the primary newest (git does not keep mtimes).
  const rank = ['chat-meta.json', 'run-state.json.bak', 'chat-messages.json', 'run-state.json']
  const base = Date.UTC(2026, 7, 30, 9, 0, 0) / 1000
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n)
      if (statSync(p).isDirectory()) walk(p)
      else {
        const i = n.endsWith('.tmp') ? 1.5 : Math.max(0, rank.indexOf(n))
        utimesSync(p, base + i * 10, base + i * 10)
      }
    }
  }
  walk(home)
  const bin = path.join(root, 'bin', 'run.js')
  console.log(`$ HOME=${home} chatdoctor scan --verbose\n`)
  const r = spawnSync(process.execPath, [bin, 'scan', '--verbose'], {stdio: 'inherit', env: {...process.env, HOME: home}})
  const code = r.status ?? -1
  const bits = [
    [2, 'a chat is repairable'],
    [4, 'agent context is lost in a chat'],
    [8, 'a path could not be read'],
  ].filter(([b]) => (code & (b as number)) !== 0)
  console.log(`\nchatdoctor scan exited ${code}${bits.length ? ': ' + bits.map(([b, w]) => `${b} (${w})`).join(' + ') : ''} (the demo itself exits 0).`)
} finally {
  rmSync(home, {recursive: true, force: true})
}
