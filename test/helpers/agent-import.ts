/**
 * The agent side of a restore through `<agent> import` (OpenCode 1.2+, Kilo): a fake agent on PATH that records
 * what it was given, and changes to a copy of a store's database made by code (never to a real store).
 */
import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import {copyWritable} from './fixtures.js'

/** Changes a copy of a store's database (never a real one): opened writable, closed (checkpointed) after. */
export function changeDb(file: string, change: (db: Database.Database) => void): void {
  const db = new Database(file)
  try {
    change(db)
  } finally {
    db.close()
  }
}

/** A fake `<agent>` on PATH that records its argv, its working folder and the exact bytes of the file it was given. */
export function fakeAgent(home: string, command: string): {bin: string; log: string; received: string} {
  const bin = path.join(home, 'bin')
  mkdirSync(bin, {recursive: true})
  const log = path.join(home, `${command}-argv.json`)
  const received = path.join(home, `${command}-received.json`)
  writeFileSync(path.join(bin, command), `#!${process.execPath}\nconst fs = require('fs')\nfs.copyFileSync(process.argv[3], ${JSON.stringify(received)})\nfs.writeFileSync(${JSON.stringify(log)}, JSON.stringify({argv: process.argv.slice(2), cwd: process.cwd()}))\nconsole.log('Imported session: ' + JSON.parse(fs.readFileSync(process.argv[3], 'utf8')).info.id)\n`, {mode: 0o755})
  return {bin, log, received}
}

/** A copy of a real store in the fake home, the session's working folder moved into it (on the copy): the agent files an import under it. */
export function storeWithProject(home: string, env: NodeJS.ProcessEnv, agent: string, real: string, file: string, sid: string): {data: string; db: string; project: string} {
  const data = path.join(env.XDG_DATA_HOME!, agent)
  copyWritable(real, data)
  const project = path.join(home, 'demo-app')
  mkdirSync(project)
  const db = path.join(data, file)
  changeDb(db, (d) => d.prepare('UPDATE session SET directory = ? WHERE id = ?').run(project, sid))
  return {data, db, project}
}
