/** Folder listings for readers that take a folder they cannot list as an empty one. */
import {readdirSync} from 'node:fs'

/** The names in `dir`, sorted; [] when it cannot be listed (missing, not a folder, no permission). Never throws. */
export function sortedNames(dir: string): string[] {
  try {
    return readdirSync(dir).sort()
  } catch {
    return []
  }
}
