/**
 * Hooks that are a file chatdoctor owns whole (an OpenCode plugin, a Cline file hook): install writes the file
 * (a file of that name that is not chatdoctor's, told by its marker, is never replaced), uninstall removes it,
 * status says whose it is. The members give the file's text and how to tell it is theirs. Pure text decisions.
 */
import type {AgentHook, HookCommand} from '../../model/adapter.js'

/** One member's file. */
export interface OwnedFileSpec {
  /** The file's name, for messages. */
  file: string
  /** The agent's name, for the message of a file that is another program's. */
  agent: string
  /** The file's text for a command. */
  text(cmd: HookCommand): string
  /** True when the text is chatdoctor's (its marker). */
  isOurs(text: string): boolean
  /** What the hook is, in words, for `guard status` (e.g. `plugin on session.idle`), and what there is without the file. */
  installed: string
  absent: string
  /** What else the user may do with a file of that name that is not chatdoctor's (a sentence part), if anything. */
  otherwise?(cmd: HookCommand): string
}

/** The install, uninstall and status of a file hook. */
export function ownedFileHook(spec: OwnedFileSpec): Pick<AgentHook, 'install' | 'uninstall' | 'status'> {
  return {
    install(current, cmd) {
      const text = spec.text(cmd)
      if (current === null) return {text}
      if (!spec.isOurs(current)) return {error: `${spec.file} exists and is not chatdoctor's; move it away${spec.otherwise ? ` (${spec.otherwise(cmd)})` : ''} and run chatdoctor guard install ${spec.agent} again`}
      return current === text ? {already: true} : {text}
    },
    uninstall(current) {
      if (!spec.isOurs(current)) return {error: `${spec.file} is not chatdoctor's; left as it is`}
      return {text: null}
    },
    status(current) {
      if (current === null) return {installed: false, detail: spec.absent}
      return spec.isOurs(current) ? {installed: true, detail: spec.installed} : {installed: false, detail: `${spec.file} is another program's`}
    },
  }
}
