/**
 * Runs a composite GitHub Action's steps the way the runner does, without `act`: each `run:` step through
 * `bash --noprofile --norc -eo pipefail` in the workspace, with its `env:` and the runner's files
 * (`GITHUB_OUTPUT` per step, `GITHUB_STEP_SUMMARY`), `${{ … }}` expressions expanded, and `if:` conditions
 * evaluated. `uses:` steps (GitHub's own actions: setup-node, upload-sarif) are not run: they are recorded with
 * their expanded `with:` so a test can check what they would have been given.
 *
 * Only the expressions the action needs are understood (`inputs.*`, `github.action_path`,
 * `steps.<id>.outputs.*`, comparisons with `==`/`!=` joined by `&&`); anything else throws, so the action cannot
 * grow an expression this runner would get wrong.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {parse} from 'yaml'
import {runAsync} from './cli-async.js'

export interface ActionInput {
  description?: string
  required?: boolean
  default?: string
}

export interface ActionStep {
  name?: string
  id?: string
  if?: string
  uses?: string
  with?: Record<string, string | boolean | number>
  shell?: string
  env?: Record<string, string>
  run?: string
}

export interface ActionFile {
  name: string
  inputs: Record<string, ActionInput>
  outputs: Record<string, {value: string}>
  runs: {using: string; steps: ActionStep[]}
}

export function readAction(file: string): ActionFile {
  return parse(readFileSync(file, 'utf8')) as ActionFile
}

interface Context {
  inputs: Record<string, string>
  actionPath: string
  outputs: Record<string, Record<string, string>>
}

function value(expr: string, ctx: Context): string {
  const e = expr.trim()
  let m: RegExpExecArray | null
  if ((m = /^inputs\.([A-Za-z0-9_-]+)$/.exec(e))) return ctx.inputs[m[1]] ?? ''
  if (e === 'github.action_path') return ctx.actionPath
  if ((m = /^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)$/.exec(e))) return ctx.outputs[m[1]]?.[m[2]] ?? ''
  if ((m = /^'((?:[^']|'')*)'$/.exec(e))) return m[1].replace(/''/g, "'")
  throw new Error(`expression not understood by the test runner: ${expr}`)
}

/** Expands every `${{ expr }}` in a string. */
export function expand(text: string, ctx: Context): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expr: string) => value(expr, ctx))
}

/** An `if:` condition: `a == b`, `a != b`, joined by `&&` (GitHub compares strings case-blind). */
function condition(text: string, ctx: Context): boolean {
  const body = text.trim().replace(/^\$\{\{(.*)\}\}$/, '$1')
  return body.split('&&').every((part) => {
    const m = /^(.*?)\s*(==|!=)\s*(.*)$/.exec(part.trim())
    if (!m) throw new Error(`condition not understood by the test runner: ${text}`)
    const same = value(m[1], ctx).toLowerCase() === value(m[3], ctx).toLowerCase()
    return m[2] === '==' ? same : !same
  })
}

export interface StepRun {
  step: ActionStep
  /** False when its `if:` was false. */
  ran: boolean
  /** For `run:` steps. */
  status?: number
  stdout?: string
  stderr?: string
  /** For `uses:` steps: the expanded `with:`. */
  with?: Record<string, string>
}

/** GITHUB_OUTPUT lines: `name=value`, or `name<<DELIM` … `DELIM`. */
function readOutputs(file: string): Record<string, string> {
  const out: Record<string, string> = {}
  if (!existsSync(file)) return out
  const lines = readFileSync(file, 'utf8').split('\n')
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i])
    if (heredoc) {
      const end = lines.indexOf(heredoc[2], i + 1)
      out[heredoc[1]] = lines.slice(i + 1, end).join('\n')
      i = end
    } else if (lines[i].includes('=')) out[lines[i].slice(0, lines[i].indexOf('='))] = lines[i].slice(lines[i].indexOf('=') + 1)
  }
  return out
}

const bash = (script: string, cwd: string, env: NodeJS.ProcessEnv) => runAsync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {cwd, env})

export interface RunOptions {
  action: ActionFile
  actionPath: string
  workspace: string
  /** The `with:` the workflow gives; defaults are filled from the action's inputs. */
  with: Record<string, string>
  env: NodeJS.ProcessEnv
  /** Where the job summary goes (GITHUB_STEP_SUMMARY). */
  summary: string
  /** Runs only the steps this says yes to (the rest are not run, as if skipped); all by default. */
  only?: (step: ActionStep) => boolean
}

/**
 * Runs the steps in order; stops after the first `run:` step that fails, as the runner does. Returns each
 * step's run and the action's outputs.
 */
export async function runAction(o: RunOptions): Promise<{steps: StepRun[]; outputs: Record<string, string>; failed: boolean}> {
  const inputs: Record<string, string> = {}
  for (const [name, def] of Object.entries(o.action.inputs)) {
    const given = o.with[name]
    if (given === undefined && def.required) throw new Error(`input ${name} is required`)
    inputs[name] = given ?? def.default ?? ''
  }
  const ctx: Context = {inputs, actionPath: o.actionPath, outputs: {}}
  const steps: StepRun[] = []
  let failed = false
  for (const [i, step] of o.action.runs.steps.entries()) {
    if (o.only && !o.only(step)) continue
    if (step.if !== undefined && !condition(step.if, ctx)) {
      steps.push({step, ran: false})
      continue
    }
    if (step.uses) {
      const w: Record<string, string> = {}
      for (const [k, v] of Object.entries(step.with ?? {})) w[k] = expand(String(v), ctx)
      steps.push({step, ran: true, with: w})
      continue
    }
    if (step.shell !== 'bash') throw new Error(`step ${step.name}: shell ${step.shell} is not run by the test runner`)
    const outputFile = path.join(path.dirname(o.summary), `output-${i}-${process.hrtime.bigint()}`)
    writeFileSync(outputFile, '')
    const env: NodeJS.ProcessEnv = {...o.env, GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: o.summary, GITHUB_WORKSPACE: o.workspace, GITHUB_ACTION_PATH: o.actionPath, GITHUB_ACTIONS: 'true', CI: 'true'}
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = expand(String(v), ctx)
    const r = await bash(expand(step.run ?? '', ctx), o.workspace, env)
    if (step.id) ctx.outputs[step.id] = readOutputs(outputFile)
    steps.push({step, ran: true, ...r})
    if (r.status !== 0) {
      failed = true
      break
    }
  }
  const outputs: Record<string, string> = {}
  for (const [name, def] of Object.entries(o.action.outputs ?? {})) outputs[name] = expand(def.value, ctx)
  return {steps, outputs, failed}
}
