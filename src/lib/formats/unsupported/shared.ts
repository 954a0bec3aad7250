/**
 * Paths the recognisers of agents chatdoctor does not diagnose yet share: the data folders of VS Code and its
 * forks (where extension agents keep their stores), the XDG base folders, and a path's segments.
 */
import path from 'node:path'

/** The user-data folders of VS Code and its forks, per platform (Linux, macOS, Windows) and remote servers. */
const EDITORS = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf']

/** `$XDG_CONFIG_HOME`, else `<home>/.config`. */
export function xdgConfig(home: string, env: NodeJS.ProcessEnv): string {
  return env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.join(home, '.config')
}

/** `$XDG_DATA_HOME`, else `<home>/.local/share`. */
export function xdgData(home: string, env: NodeJS.ProcessEnv): string {
  return env.XDG_DATA_HOME ? path.resolve(env.XDG_DATA_HOME) : path.join(home, '.local', 'share')
}

/** Every editor user-data folder (`…/<Editor>/User` holds `globalStorage/` and `workspaceStorage/`). */
export function editorUserDirs(home: string, env: NodeJS.ProcessEnv): string[] {
  const bases: string[] = [xdgConfig(home, env), path.join(home, 'Library', 'Application Support')]
  if (env.APPDATA) bases.push(path.resolve(env.APPDATA))
  const out = bases.flatMap((b) => EDITORS.map((e) => path.join(b, e, 'User')))
  out.push(path.join(home, '.vscode-server', 'data', 'User'))
  return out
}

/** The folder an extension keeps in every editor's `globalStorage`. */
export function extensionStorageDirs(home: string, env: NodeJS.ProcessEnv, extensionId: string): string[] {
  return editorUserDirs(home, env).map((u) => path.join(u, 'globalStorage', extensionId))
}

/** Home-relative discovery paths to an extension's `globalStorage` folder (Linux and remote layouts; macOS/Windows hold no dot-folder). */
export function extensionDiscoveryPaths(extensionId: string): string[] {
  return [...EDITORS.map((e) => `.config/${e}/User/globalStorage/${extensionId}`), `.vscode-server/data/User/globalStorage/${extensionId}`]
}

/** The segments of a path. */
export function segmentsOf(dir: string): string[] {
  return dir.split(path.sep).filter((s) => s !== '')
}

/** True when `dir` or one of its ancestors is named `name`. */
export function under(dir: string, name: string): boolean {
  return segmentsOf(dir).includes(name)
}
