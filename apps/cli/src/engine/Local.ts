/**
 * `harness run FILE` and `harness test PATH...` over scenario files.
 *
 * @since 0.1.0
 */
import { Trace } from "@agent-harness/executor"
import {
  InputFile,
  PlanScenario,
  Report,
  type ScenarioFile,
  Suite,
  Variant,
  type Verdict
} from "@agent-harness/scenario"
import { Console, Effect, FileSystem, Path, type PlatformError, Result } from "effect"
import * as ExitCode from "../common/ExitCode.ts"
import * as Outputs from "../printing/Outputs.ts"
import * as Style from "../printing/Style.ts"
import * as TestWorkers from "../workers/TestWorkers.ts"
import type * as Engine from "./Engine.ts"

/**
 * Runs a decoded scenario to its verdict: `Suite.run` in this process, or another engine's
 * (`harness run|test --engine postgres`).
 *
 * @since 0.1.0
 */
export type Runner = (
  scenario: ScenarioFile.Scenario,
  file: string,
  variant: Variant.Variant
) => Effect.Effect<Verdict.Verdict>

/**
 * `harness run`'s options on this engine: another engine's `runner` may run the scenario
 * (default: `Suite.run`, here), reported the same.
 *
 * @since 0.1.0
 */
export interface RunOptions extends Engine.RunOptions {
  readonly runner?: Runner | undefined
}

/**
 * `harness test`'s options on this engine: another engine's `runner` runs every file here, in
 * this process (default: `Suite.run`, on worker threads too).
 *
 * @since 0.1.0
 */
export interface TestOptions extends Engine.TestOptions {
  readonly runner?: Runner | undefined
}

/**
 * Under a variant other than the default, the human report opens with a line naming it.
 *
 * @since 0.1.0
 */
export const announce = (variant: Variant.Variant, json: boolean, style: Report.Style): Effect.Effect<void> =>
  json || variant.name === Variant.defaultVariant.name ? Effect.void : Console.log(Report.variantLine(variant, style))

/**
 * Exit 2 for a file or path that cannot be run: why on stderr, or with `--json` its line on stdout.
 *
 * @since 0.1.0
 */
export const refuseInvalid = (
  failure: ScenarioFile.InvalidScenario,
  json: boolean,
  variant: Variant.Variant,
  style: Report.Style
): Effect.Effect<never, ExitCode.ExitCode> =>
  Effect.andThen(
    json ? Console.log(Report.invalidJson(failure, variant.name)) : Console.error(Report.invalid(failure, style)),
    Effect.fail(ExitCode.invalid)
  )

/**
 * Runs a scenario and records it as JSON Lines in `trace`, the executor's `Trace`: a
 * conversation's events (what `harness capture` reads), a plan session's (`SessionTrace`:
 * start, events, result). Fails only when the trace file cannot be written at the start.
 */
const traced = (
  scenario: ScenarioFile.Conversation | ScenarioFile.Plan,
  file: string,
  variant: Variant.Variant,
  trace: string
): Effect.Effect<Verdict.Verdict, PlatformError.PlatformError, FileSystem.FileSystem> => {
  // A plan session records into the same trace as a loop (`SessionTrace`).
  const run =
    scenario.kind === "conversation"
      ? Suite.run(scenario, file, variant)
      : PlanScenario.run(scenario, file, { variant })
  return Effect.provide(run, Trace.jsonl(trace))
}

/** A verdict's `--json` line: with `trace` when the run was recorded there. */
const verdictJson = (verdict: Verdict.Verdict, trace: string | undefined): string =>
  trace === undefined ? Report.json(verdict) : JSON.stringify({ ...verdict, trace })

/** Exit 2 with a line naming the trace output and what went wrong. */
const traceFailed =
  (flag: string, file: string) =>
  (error: PlatformError.PlatformError): Effect.Effect<never, ExitCode.ExitCode> =>
    Effect.andThen(Console.error(`${flag} ${file}: ${error.message}`), Effect.fail(ExitCode.invalid))

/**
 * Where `harness test --traces FOLDER` records each scenario: its path from the scenario files'
 * common folder, `/` written as `-` and `.json` as `.jsonl` (`en-salmorejo.jsonl` for
 * `scenarios/en/salmorejo.json` among others under `scenarios/`); a name taken twice gets `-2`,
 * `-3`…
 *
 * @since 0.1.0
 */
export const traceNames = (
  folder: string,
  files: ReadonlyArray<string>,
  path: Path.Path
): ReadonlyMap<string, string> => {
  const dirs = files.map((file) => path.dirname(path.resolve(file)).split(path.sep))
  const first = dirs[0] ?? []
  let common = first.length
  for (const dir of dirs) {
    let i = 0
    while (i < common && i < dir.length && dir[i] === first[i]) i++
    common = i
  }
  const root = first.slice(0, common).join(path.sep) || path.sep
  const taken = new Set<string>()
  const names = new Map<string, string>()
  for (const file of files) {
    const stem = path
      .relative(root, path.resolve(file))
      .replace(/\.json$/, "")
      .split(path.sep)
      .join("-")
    let name = `${stem}.jsonl`
    for (let n = 2; taken.has(name); n++) name = `${stem}-${n}.jsonl`
    taken.add(name)
    names.set(file, path.join(folder, name))
  }
  return names
}

/**
 * Runs one scenario file under a harness variant: its verdict (or why the file is invalid),
 * exit 0 / 1 / 2. With `trace`, the run is recorded there (a conversation or a plan session; a
 * `response-cases` scenario runs no model and no tools, so there is nothing to record: exit 2),
 * and the `--json` line names it in a `trace` field. A live case is not run (exit 2): it runs
 * as trials, with `harness test --trials N --model PROVIDER:MODEL`.
 *
 * @since 0.1.0
 */
export const run = (options: RunOptions): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const { file, json, variant, trace, runner = Suite.run } = options
    const style = Style.current()
    if (trace !== undefined) yield* Outputs.refuseOverwrite("--trace", trace, { path: file, what: "the scenario" })
    const loaded = yield* Effect.result(Suite.load(file))
    if (Result.isFailure(loaded)) return yield* refuseInvalid(loaded.failure, json, variant, style)
    const scenario = loaded.success
    if (trace !== undefined && scenario.kind === "response-cases") {
      yield* Console.error(
        `--trace records conversations and plan sessions; ${file} is a 'response-cases' scenario, which runs no model and no tools: its verdict (harness run --json) holds every case; nothing was run or written`
      )
      return yield* ExitCode.invalid
    }
    if (scenario.kind === "live") {
      yield* Console.error(
        `${file} is a live case: it runs as trials against a live model, not once with a script; run it with harness test --trials N --model PROVIDER:MODEL ${file}`
      )
      return yield* ExitCode.invalid
    }
    yield* announce(variant, json, style)
    const verdict =
      trace === undefined || scenario.kind === "response-cases"
        ? yield* runner(scenario, file, variant)
        : yield* Effect.catch(traced(scenario, file, variant, trace), traceFailed("--trace", trace))
    yield* Console.log(json ? verdictJson(verdict, trace) : Report.verdict(verdict, style))
    if (!verdict.passed) return yield* ExitCode.failed
  })

/**
 * Runs one scenario file as loaded (`Suite.eachLoaded`), recording its conversation or plan
 * session in `trace` when given (a `response-cases` scenario has nothing to record). Gives where
 * it was recorded.
 */
const runLoaded = (
  file: string,
  loaded: Result.Result<ScenarioFile.Scenario, ScenarioFile.InvalidScenario>,
  variant: Variant.Variant,
  trace: string | undefined,
  runner: Runner
): Effect.Effect<
  { readonly entry: Suite.Entry; readonly trace: string | undefined },
  ExitCode.ExitCode,
  FileSystem.FileSystem
> =>
  Effect.gen(function* () {
    if (Result.isFailure(loaded)) return { entry: Result.fail(loaded.failure), trace: undefined }
    const scenario = loaded.success
    // A live case does not run here (no live model): nothing to record.
    if (trace === undefined || scenario.kind === "response-cases" || scenario.kind === "live") {
      return { entry: Result.succeed(yield* runner(scenario, file, variant)), trace: undefined }
    }
    yield* Outputs.refuseOverwrite("--traces", trace, { path: file, what: "the scenario" })
    const verdict = yield* Effect.catch(traced(scenario, file, variant, trace), traceFailed("--traces", trace))
    return { entry: Result.succeed(verdict), trace }
  })

/**
 * One file of `harness test` run to what the report needs: its entry, where it was traced, and
 * the lines it wrote on stderr on the way (`said`); or, when the command cannot go on (a
 * `--traces` file that would overwrite the scenario, or cannot be written), the lines saying why
 * (`fatal`) and the exit code.
 *
 * @since 0.1.0
 */
export type FileRun =
  | { readonly entry: Suite.Entry; readonly trace: string | undefined; readonly said: ReadonlyArray<string> }
  | { readonly fatal: ReadonlyArray<string>; readonly code: 1 | 2 }

/** A console that keeps what is written on stderr (`error`, `warn`), the rest as it is. */
const keeping = (said: Array<string>): Console.Console => {
  const keep = (...args: ReadonlyArray<unknown>) => {
    said.push(args.map(String).join(" "))
  }
  return { ...globalThis.console, error: keep, warn: keep }
}

/**
 * Runs files as `harness test` does in this process (`Suite.eachLoaded`: one at a time, in
 * order, the next few read ahead), keeping what each writes on stderr instead of writing it:
 * what a `harness test` worker thread runs for its jobs (`TestWorkers`), so the parent reports
 * them exactly as it would have. `each` is told of every run as it ends (a thread answers it).
 *
 * @since 0.1.0
 */
export const runFiles = (
  jobs: ReadonlyArray<TestWorkers.Job>,
  variant: Variant.Variant,
  each: (run: FileRun, index: number) => Effect.Effect<void> = () => Effect.void
): Effect.Effect<ReadonlyArray<FileRun>, never, FileSystem.FileSystem> =>
  Suite.eachLoaded(
    jobs.map((job) => job.file),
    (loaded, index) =>
      Effect.suspend(() => {
        const job = jobs[index] as TestWorkers.Job
        const said: Array<string> = []
        return runLoaded(job.file, loaded, variant, job.trace, Suite.run).pipe(
          Effect.map((run): FileRun => ({ ...run, said })),
          Effect.catch((exit) => Effect.succeed<FileRun>({ fatal: said, code: exit.code })),
          Effect.provideService(Console.Console, keeping(said)),
          Effect.tap((run) => each(run, index))
        )
      })
  )

/**
 * The files' runs as this process gives them: the stderr lines each wrote, in order, then, at
 * the first that could not go on, its lines and its exit code; else every entry, for the report.
 */
const replay = (
  runs: ReadonlyArray<FileRun>
): Effect.Effect<
  ReadonlyArray<{ readonly entry: Suite.Entry; readonly trace: string | undefined }>,
  ExitCode.ExitCode
> =>
  Effect.gen(function* () {
    const done: Array<{ readonly entry: Suite.Entry; readonly trace: string | undefined }> = []
    for (const run of runs) {
      if ("fatal" in run) {
        for (const line of run.fatal) yield* Console.error(line)
        return yield* run.code === 1 ? ExitCode.failed : ExitCode.invalid
      }
      for (const line of run.said) yield* Console.error(line)
      done.push(run)
    }
    return done
  })

/** The `--traces` folder, made if missing (with its parents); exit 2 when it cannot be. */
const traceFolder = (folder: string): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const info = yield* Effect.result(fs.stat(folder))
    if (Result.isSuccess(info) && info.success.type !== "Directory") {
      yield* Console.error(
        `--traces ${folder}: it is ${InputFile.typeText(info.success.type)}, not a folder; nothing was run`
      )
      return yield* ExitCode.invalid
    }
    if (Result.isFailure(info))
      yield* Effect.catch(fs.makeDirectory(folder, { recursive: true }), traceFailed("--traces", folder))
  })

/**
 * Runs every scenario under the paths under a harness variant: a `SKIP` line for each entry
 * not run (not a regular file, a link to a folder), a line per scenario, reserved cases on their
 * own line, then `N passed, N failed`. Exit 2 if any file is invalid, else 1 if any failed.
 * With `traces`, each conversation and plan session is recorded in that folder (`traceNames`)
 * and its `--json` line names its trace. With `workers` (`--workers N`; by default every core
 * once there are `TestWorkers.threshold` files), the files run across that many worker threads,
 * with the same report, line for line (`TestWorkers`); another engine's runner runs here.
 *
 * @since 0.1.0
 */
export const test = (options: TestOptions): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const { paths, json, variant, traces, workers, runner = Suite.run } = options
    const style = Style.current()
    if (workers !== undefined && !(Number.isSafeInteger(workers) && workers >= 1)) {
      yield* Console.error(`--workers must be a whole number of at least 1, got ${workers}; nothing was run`)
      return yield* ExitCode.invalid
    }
    const found = yield* Effect.result(Suite.find(paths))
    if (Result.isFailure(found)) return yield* refuseInvalid(found.failure, json, variant, style)
    yield* announce(variant, json, style)
    const { files, skipped } = found.success
    for (const entry of skipped) {
      yield* Console.log(json ? Report.skippedJson(entry, variant.name) : Report.skipped(entry, style))
    }
    if (traces !== undefined) yield* traceFolder(traces)
    const names = traces === undefined ? undefined : traceNames(traces, files, yield* Path.Path)
    const threads = runner === Suite.run ? TestWorkers.workersFor(files.length, workers) : 1
    const runs =
      threads > 1
        ? yield* Effect.flatMap(
            TestWorkers.run(
              files.map((file) => ({ file, trace: names?.get(file) })),
              threads,
              variant.name,
              (jobs) => runFiles(jobs, variant)
            ),
            ({ results, unavailable }) =>
              Effect.andThen(
                unavailable === undefined
                  ? Effect.void
                  : Console.error(
                      `harness test: worker threads could not start (${unavailable}); the files ran in this process`
                    ),
                replay(results)
              )
          )
        : names === undefined && runner === Suite.run
          ? (yield* Suite.runAll(files, variant)).map((entry) => ({ entry, trace: undefined }))
          : yield* Suite.eachLoaded(files, (loaded, i) => {
              const file = files[i] as string
              return runLoaded(file, loaded, variant, names?.get(file), runner)
            })
    const verdicts = []
    let invalid = 0
    for (const { entry, trace } of runs) {
      if (Result.isSuccess(entry)) {
        verdicts.push(entry.success)
        yield* Console.log(json ? verdictJson(entry.success, trace) : Report.verdict(entry.success, style))
      } else {
        invalid++
        yield* Console.log(
          json ? Report.invalidJson(entry.failure, variant.name) : Report.invalid(entry.failure, style)
        )
      }
    }
    const totals = Report.totals(verdicts, invalid, skipped.length)
    if (!json) for (const line of Report.closing(totals)) yield* Console.log(line)
    if (invalid > 0) return yield* ExitCode.invalid
    if (totals.failed > 0) return yield* ExitCode.failed
  })

/**
 * The local engine: scenarios run in this process (and `harness test`'s worker threads).
 *
 * @since 0.1.0
 */
export const engine: Engine.Engine = { run, test }
