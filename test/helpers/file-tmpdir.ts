/**
 * Preloaded into every test file's process by `npm test` (`--import`): the process gets a temp folder of its
 * own (`TMPDIR`, so `os.tmpdir()` here and in every CLI it starts), removed when it exits. Test files run two
 * at a time (`--test-concurrency=2`); a test that lists the temp folder to find what a run left behind (a
 * private copy of a database, a bundle's scratch folder) sees only its own file's runs.
 */
import {chmodSync, mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const dir = mkdtempSync(path.join(os.tmpdir(), 'chatdoctor-testfile-'))
// As /tmp is: every user may make their own entries (tests run the CLI as an unprivileged user too).
chmodSync(dir, 0o1777)
process.env.TMPDIR = dir
process.on('exit', () => rmSync(dir, {recursive: true, force: true}))
