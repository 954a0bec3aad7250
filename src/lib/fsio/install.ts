/**
 * Where this chatdoctor's own files are, from wherever its code runs: the compiled modules (`dist/src/…`, what
 * the API and the tests load) or the command-line bundle (`dist/bundle/…`, built by scripts/bundle.ts), where
 * one file holds many modules, so a module's own place says nothing of where the others are.
 */
import {existsSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

/** Defined (as `true`) by the bundler in the command-line bundle only. */
declare const CHATDOCTOR_BUNDLE: boolean | undefined

/** Whether this code runs from the command-line bundle. */
export const IN_BUNDLE: boolean = typeof CHATDOCTOR_BUNDLE !== 'undefined' && CHATDOCTOR_BUNDLE === true

let root: string | undefined

/**
 * The package's folder (its package.json, bin/, dist/): the nearest folder above this code holding a
 * package.json (dist/ holds none).
 */
export function packageRoot(): string {
  if (root !== undefined) return root
  const here = path.dirname(fileURLToPath(import.meta.url))
  for (let dir = here; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return (root = dir)
    if (path.dirname(dir) === dir) throw new Error(`chatdoctor's package.json is in no folder above ${here}: the installation is incomplete; reinstall chatdoctor`)
  }
}

/** The installed entry point, `bin/run.js` (what an agent's hook runs). */
export function runJsPath(): string {
  return path.join(packageRoot(), 'bin', 'run.js')
}

/** The scan worker's module: the bundle's own entry point in the bundle, else the compiled module beside the scan. */
export function scanWorkerUrl(inBundle = IN_BUNDLE): URL {
  return inBundle ? pathToFileURL(path.join(packageRoot(), 'dist', 'bundle', 'lib', 'pipeline', 'scan-worker.js')) : new URL('../pipeline/scan-worker.js', import.meta.url)
}
