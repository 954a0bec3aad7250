/**
 * The agents chatdoctor finds but does not diagnose yet, each recognised in its own file here: a scan lists what
 * it found as `skipped` (the agent, what it is, "not supported yet") instead of saying nothing, and never takes
 * their files for a supported agent's. An agent leaves this list when its adapter joins the registry.
 */
import type {UnsupportedAgent} from '../../model/adapter.js'
import {aider} from './aider.js'
import {continueDev} from './continue.js'
import {copilot} from './copilot.js'
import {cursor} from './cursor.js'
import {openWebui} from './open-webui.js'
import {zed} from './zed.js'

export const UNSUPPORTED_AGENTS: readonly UnsupportedAgent[] = [cursor, copilot, continueDev, zed, openWebui, aider]
