/** `npm run verdicts`: writes docs/bug-log-verdicts.md from the bug-log entries (test/bug-log/*.ts). */
import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {BUG_LOG_PARTS} from '../test/bug-log/index.js'
import {bugLogVerdictsMarkdown} from '../test/bug-log/render.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
mkdirSync(path.join(root, 'docs'), {recursive: true})
writeFileSync(path.join(root, 'docs', 'bug-log-verdicts.md'), bugLogVerdictsMarkdown(BUG_LOG_PARTS))
console.log('wrote docs/bug-log-verdicts.md')
