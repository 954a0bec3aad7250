/**
 * The registry of bug-log parts, one per agent. To add an agent's part: write `test/bug-log/<agent>.ts`
 * exporting a `BugLogPart` (see `types.ts` and `codebuff.ts`), add one line below, then run `npm run verdicts`
 * to regenerate `docs/bug-log-verdicts.md`.
 */
import {claudeCodePart} from './claude-code.js'
import {clinePart} from './cline.js'
import {codebuffPart} from './codebuff.js'
import {codexPart} from './codex.js'
import {indexesPart} from './indexes.js'
import {kiloPart} from './kilo.js'
import {opencodePart} from './opencode.js'
import type {BugLogPart} from './types.js'
import {vscodeTasksPart} from './vscode-tasks.js'

export const BUG_LOG_PARTS: readonly BugLogPart[] = [codebuffPart, clinePart, kiloPart, indexesPart, claudeCodePart, codexPart, opencodePart, vscodeTasksPart]
