/**
 * Builds the command-line bundle (`dist/bundle/`) from the compiled modules (`dist/src/`), as the last step
 * of `npm run build` before `oclif manifest`.
 *
 * Why: a command's start-up was mostly Node finding, reading and linking about 220 small modules of ours
 * (about 0.5 ms each); bundled, `scan <one chat>` loads a few dozen files. The entry points keep their
 * places (`commands/<id>.js`, so oclif's manifest finds the commands by path as before; the help class; the
 * hook; the scan worker; the snapshot hook), the code they share goes to `chunks/`, and every `import()` of
 * ours stays a split point, so a module loaded lazily is still loaded only when needed. Packages in
 * `node_modules` are left to Node (external): their CommonJS and native code is loaded as it always was.
 * The API (`dist/src/api/`) and the tests use the compiled modules, not the bundle.
 *
 * Each bundle file has its source map beside it (`.js.map`), used only where a stack is printed
 * (`DEBUG=chatdoctor`). `dist/bundle.meta.json` (esbuild's metafile, not shipped) says which of our modules each bundle file holds:
 * the start-up tests read it to name the modules a command loaded.
 */
import {readdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {build} from 'esbuild'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const SRC = path.join(ROOT, 'dist', 'src')

/** Every `.js` file under `dir`. */
function jsFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true, recursive: true})
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => path.join(e.parentPath, e.name))
    .sort()
}

const entryPoints = [
  ...jsFiles(path.join(SRC, 'commands')),
  path.join(SRC, 'cli', 'help-class.js'),
  path.join(SRC, 'cli', 'snapshot-hook.js'),
  path.join(SRC, 'hooks', 'command-not-found.js'),
  path.join(SRC, 'lib', 'pipeline', 'scan-worker.js'),
]

const result = await build({
  absWorkingDir: ROOT,
  entryPoints,
  outbase: SRC,
  outdir: path.join(ROOT, 'dist', 'bundle'),
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // The bundled code asks where it runs (src/lib/install.ts): its own place says nothing in a bundle.
  define: {CHATDOCTOR_BUNDLE: 'true'},
  // Maps back to the compiled modules, read only with `DEBUG=chatdoctor` (bin/run.js turns them on): a stack
  // then names dist/src/… files and lines instead of chunks.
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
})
writeFileSync(path.join(ROOT, 'dist', 'bundle.meta.json'), JSON.stringify(result.metafile))
