/**
 * `harness test --trials N --model PROVIDER:MODEL PATH...`: every live case under the paths run
 * N times per variant against a real model (`CaseSet.run`: each trial independent, at most
 * `--concurrency` at once, one shared `Backoff` so a 429 makes every trial wait), the other
 * scenarios once as `harness test` runs them. Each trial is traced and journaled in the report
 * folder (`--report DIR`, default `harness-trials`) as soon as it ends, each failing one captured
 * as a scenario that replays it; the same command run again resumes (`--fresh` starts over).
 * Each trial's loop is priced (`--price`, else the shipped table's entry for the model, else
 * none): its record keeps its cost, and the report shows money next to tokens when priced.
 * The report: a line per case and variant, with two variants their paired comparison, then the
 * totals and `N passed, N failed` over the cases (a live case passes when it meets its threshold
 * under every variant); `--json` prints the report's JSON lines (also in `DIR/report.jsonl`).
 *
 * Exit 0 when every case passes, 1 when one does not, 2 for a bad flag, an invalid file or a
 * journal of another run, 130 when Ctrl-C stopped it (the trials that ended are journaled).
 *
 * Loaded only when `--trials` is given: no other command loads the AI SDK.
 *
 * @since 0.1.0
 */
import process from "node:process"
import { AiSdkModel, Backoff } from "@agent-harness/ai-sdk"
import { Spend } from "@agent-harness/budgets"
import { Capture, InputFile, Report, type ScenarioFile, Suite, Variant, type Verdict } from "@agent-harness/scenario"
import { CaseSet, ReportLines, Statistics } from "@agent-harness/trials"
import { Console, Effect, FileSystem, Logger, Path, Result } from "effect"
import * as Budgets from "../agent/Budgets.ts"
import * as Providers from "../agent/Providers.ts"
import * as ExitCode from "../common/ExitCode.ts"
import * as Engine from "../engine/Engine.ts"
import * as Signal from "../common/Signal.ts"
import * as Style from "../printing/Style.ts"
import * as Warnings from "../printing/Warnings.ts"
import * as Print from "../trials/Print.ts"

/**
 * What `harness test --trials` was asked to do (the flags as given: `check` validates them).
 *
 * @since 0.1.0
 */
export interface Options {
  /** Scenario files or folders. */
  readonly paths: ReadonlyArray<string>
  /** `--trials N`: trials per live case and variant. */
  readonly trials: number | undefined
  /** `--model PROVIDER:MODEL`. */
  readonly model: string | undefined
  /** `--variant` as given: none (`fixed`), one, or two to compare (the second against the first). */
  readonly variants: ReadonlyArray<Variant.Name>
  /** `--concurrency K`: trials at once over all cases (default `defaultConcurrency`). */
  readonly concurrency?: number | undefined
  /** `--json`: the report's JSON lines instead of the human report. */
  readonly json: boolean
  /** `--report DIR`: the report folder (default `defaultFolder`). */
  readonly report?: string | undefined
  /** `--fresh`: start the folder's journal over instead of resuming it. */
  readonly fresh: boolean
  /** `--base-url`: the provider's base URL. */
  readonly baseUrl?: string | undefined
  /** `--request-timeout`: how long one model request may take (`90s`). */
  readonly requestTimeout?: string | undefined
  /** `--all-traces`: write every trial's trace, not only the failing ones'. */
  readonly allTraces?: boolean | undefined
  /** `--engine`, `--database-url`: `postgres` runs every trial as a workflow on the durable engine. */
  readonly engine?: Engine.Choice | undefined
  /** `--cluster` (with `--engine postgres`): the trials spread over the runners of the database. */
  readonly cluster?: boolean | undefined
  /** `--price input=3,output=15,...`: USD per million tokens, over the shipped table's. */
  readonly price?: string | undefined
}

/** The report folder when `--report` is not given, in the working folder. @since 0.1.0 */
export const defaultFolder = "harness-trials"

/** Trials at once when `--concurrency` is not given. @since 0.1.0 */
export const defaultConcurrency = 4

/**
 * The flags, checked: the trial count, the variants (one or two, different), the concurrency.
 *
 * @since 0.1.0
 */
export interface Checked {
  /** Trials per case and variant. */
  readonly trials: number
  /** `PROVIDER:MODEL`. */
  readonly model: string
  /** The variants, in order. */
  readonly variants: readonly [Variant.Variant] | readonly [Variant.Variant, Variant.Variant]
  /** Trials at once. */
  readonly concurrency: number
}

/**
 * Checks the flags of a trials run, or says what is wrong, naming the flag.
 *
 * @since 0.1.0
 */
export const check = (options: Options): Result.Result<Checked, string> => {
  const { trials, model, variants } = options
  if (trials === undefined) return Result.fail("--model needs --trials N: how many trials each live case runs")
  if (model === undefined) {
    return Result.fail("--trials needs --model PROVIDER:MODEL: the live model the trials run against")
  }
  if (!Number.isSafeInteger(trials) || trials < 1 || trials > Statistics.maxTrials) {
    return Result.fail(`--trials must be a whole number from 1 to ${Statistics.maxTrials}, got ${trials}`)
  }
  const concurrency = options.concurrency ?? defaultConcurrency
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    return Result.fail(`--concurrency must be a whole number of at least 1, got ${concurrency}`)
  }
  if (variants.length > 2) {
    return Result.fail(`--variant is given ${variants.length} times; give one, or two to compare`)
  }
  const first: Variant.Name = variants[0] ?? "fixed"
  const second: Variant.Name | undefined = variants[1]
  if (second !== undefined && second === first) {
    return Result.fail(`--variant ${first} is given twice; two variants to compare must differ`)
  }
  const a = Variant.byName[first]
  const checked: Checked["variants"] = second === undefined ? [a] : [a, Variant.byName[second]]
  return Result.succeed({ trials, model, variants: checked, concurrency })
}

/** Ends the command with exit 2 after saying why on stderr. */
const usage = (message: string): Effect.Effect<never, ExitCode.ExitCode> =>
  Effect.andThen(Console.error(`harness test: ${message}; nothing was run`), Effect.fail(ExitCode.invalid))

/** Ends the command with exit 2 after a trials run that could not go on, saying why on stderr. */
const stopped = (message: string): Effect.Effect<never, ExitCode.ExitCode> =>
  Effect.andThen(Console.error(`harness test: ${message}`), Effect.fail(ExitCode.invalid))

/** Ends the command with exit 2 for a report folder that cannot be used or written. */
const folderFailed = (folder: string, message: string): Effect.Effect<never, ExitCode.ExitCode> =>
  Effect.andThen(Console.error(`harness test: --report ${folder}: ${message}`), Effect.fail(ExitCode.invalid))

/** The report folder, made with its parents if missing; exit 2 when it is something else or cannot be made. */
const reportFolder = (folder: string): Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const info = yield* Effect.result(fs.stat(folder))
    if (Result.isSuccess(info) && info.success.type !== "Directory") {
      return yield* usage(`--report ${folder}: it is ${InputFile.typeText(info.success.type)}, not a folder`)
    }
    // The folder and its `traces/` (each trial's trace is written there as it runs).
    yield* Effect.catch(fs.makeDirectory(path.join(folder, "traces"), { recursive: true }), (error) =>
      usage(`--report ${folder}: ${error.message}`)
    )
  })

/** A loaded file: a live case for the trials, another scenario to run once, or why it is invalid. */
type Loaded =
  | { readonly _tag: "Live"; readonly case: CaseSet.Case }
  | { readonly _tag: "Other"; readonly file: string; readonly scenario: ScenarioFile.Scenario }
  | { readonly _tag: "Invalid"; readonly failure: ScenarioFile.InvalidScenario }

/** Every file loaded (a live case with its bytes' digest), in order. */
const loadAll = (files: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Loaded>, never, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    return yield* Suite.eachLoaded(files, (loaded, i) =>
      Effect.gen(function* () {
        const file = files[i] as string
        if (Result.isFailure(loaded)) return { _tag: "Invalid", failure: loaded.failure } satisfies Loaded
        const scenario = loaded.success
        if (scenario.kind !== "live") return { _tag: "Other", file, scenario } satisfies Loaded
        const bytes = yield* Effect.result(fs.readFile(file))
        if (Result.isFailure(bytes)) {
          return { _tag: "Invalid", failure: Suite.unreadable(file, bytes.failure.message) } satisfies Loaded
        }
        const digest = yield* CaseSet.digest(bytes.success)
        return {
          _tag: "Live",
          case: { live: scenario, file, digest, reserved: scenario.reserved }
        } satisfies Loaded
      })
    )
  })

/** A message of something thrown or failed, never throwing itself. */
const messageOf = (u: unknown): string => {
  try {
    return u instanceof Error
      ? u.message
      : typeof u === "object" && u !== null && "message" in u
        ? String(u.message)
        : String(u)
  } catch {
    return "unreadable error"
  }
}

/**
 * The capture of a failing trial: its trace read back, captured and proved to fail the same way
 * (`Capture.checkedTrial`), written to `DIR/captured/<stem>.<variant>.<i>.json`; or why not.
 */
const captureWith =
  (folder: string, fs: FileSystem.FileSystem, path: Path.Path) =>
  (info: CaseSet.CaptureInfo): Effect.Effect<CaseSet.Captured> =>
    Effect.gen(function* () {
      const relative = CaseSet.capturedPath(info.stem, info.variant.name, info.index)
      const out = path.join(folder, relative)
      const checked = yield* Capture.checkedTrial(info.case.live, info.case.file, info.traceText, {
        out,
        trial: info.index,
        trace: info.trace
      })
      yield* fs.makeDirectory(path.dirname(out), { recursive: true })
      yield* fs.writeFileString(out, `${JSON.stringify(checked.scenario, null, 2)}\n`)
      return { scenario: relative }
    }).pipe(
      Effect.catch((error) => Effect.succeed<CaseSet.Captured>({ captureError: messageOf(error) })),
      Effect.catchDefect((defect) => Effect.succeed<CaseSet.Captured>({ captureError: messageOf(defect) }))
    )

/** A trial's progress line on stderr (only on a terminal). */
const progress = (event: CaseSet.TrialEvent): Effect.Effect<void> =>
  process.stderr.isTTY !== true
    ? Effect.void
    : Effect.sync(() => {
        const mark = event.record.passed ? "pass" : "fail"
        process.stderr.write(
          `  [${event.finished}/${event.total}] ${Report.printable(event.at.case.live.name)} (${event.at.variant.name}) #${event.at.index} ${mark}${event.resumed ? " (resumed)" : ""}\n`
        )
      })

/**
 * Runs the live cases under the paths as trials and the other scenarios once (see the module).
 *
 * @since 0.1.0
 */
export const trials = (
  options: Options
): Effect.Effect<void, ExitCode.ExitCode | ExitCode.Interrupted, FileSystem.FileSystem | Path.Path> =>
  Effect.scoped(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const style = Style.current()
      const { json } = options
      const checked = check(options)
      if (Result.isFailure(checked)) return yield* usage(checked.failure)
      const { trials, model, variants, concurrency } = checked.success
      const onEngine = options.engine !== undefined && Engine.isPostgres(options.engine)
      if (options.cluster === true && !onEngine) {
        return yield* usage("--cluster runs the trials on the runners of --engine postgres: add --engine postgres")
      }
      if (options.engine?.engine === "local" && options.engine.databaseUrl !== undefined) {
        return yield* usage("--database-url is for --engine postgres: add --engine postgres, or drop --database-url")
      }
      // On the cluster the runners build the model with their own key: only its name is checked here.
      const resolved = Providers.resolve(model, options.baseUrl, process.env, options.requestTimeout, {
        keyElsewhere: options.cluster === true
      })
      if (Result.isFailure(resolved)) return yield* usage(resolved.failure)
      const priced = Budgets.priceOf(options.price, resolved.success)
      if (Result.isFailure(priced)) return yield* usage(priced.failure)
      const { price } = priced.success
      const pg = onEngine
        ? yield* Effect.promise(() => Promise.all([import("../engine/Postgres.ts"), import("../engine/PgTrials.ts")]))
        : undefined
      const url = pg === undefined ? undefined : yield* pg[0].databaseUrl(options.engine?.databaseUrl)
      const folder = options.report ?? defaultFolder
      const found = yield* Effect.result(Suite.find(options.paths))
      if (Result.isFailure(found)) {
        yield* json
          ? Console.log(Report.invalidJson(found.failure, variants[0].name))
          : Console.error(Report.invalid(found.failure, style))
        return yield* ExitCode.invalid
      }
      // The report folder's own files (captured scenarios fail by design) are never cases.
      const inside = (file: string) => {
        const relative = path.relative(path.resolve(folder), path.resolve(file))
        return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative)
      }
      const files = found.success.files.filter((file) => !inside(file))
      const { skipped } = found.success
      if (!json && files.length < found.success.files.length) {
        yield* Console.error(
          `harness test: ${found.success.files.length - files.length} file(s) under --report ${folder} left out (the report's own: captured trials are not cases)`
        )
      }
      for (const entry of skipped) {
        yield* Console.log(json ? Report.skippedJson(entry, variants[0].name) : Report.skipped(entry, style))
      }
      const loaded = yield* loadAll(files)
      const invalid = loaded.flatMap((one) => (one._tag === "Invalid" ? [one.failure] : []))
      if (invalid.length > 0) {
        for (const failure of invalid) {
          yield* Console.log(json ? Report.invalidJson(failure, variants[0].name) : Report.invalid(failure, style))
        }
        if (!json)
          yield* Console.error(
            `harness test: ${invalid.length} invalid file${invalid.length === 1 ? "" : "s"}; nothing was run`
          )
        return yield* ExitCode.invalid
      }
      yield* reportFolder(folder)
      const languageModel = yield* Effect.try({
        try: () => Providers.languageModel(resolved.success),
        catch: messageOf
      }).pipe(Effect.catch(usage))
      const backoff = Backoff.make()
      const layer = AiSdkModel.layer(languageModel, { ...Providers.modelOptions(resolved.success), backoff })

      // The other scenarios, once, as `harness test` runs them.
      const verdicts: Array<Verdict.Verdict> = []
      for (const one of loaded) {
        if (one._tag !== "Other") continue
        const verdict = yield* Suite.run(one.scenario, one.file, variants[0])
        verdicts.push(verdict)
        yield* Console.log(json ? Report.json(verdict) : Report.verdict(verdict, style))
      }

      const cases = loaded.flatMap((one) => (one._tag === "Live" ? [one.case] : []))
      const { requested } = yield* Signal.interruptOnSigint()
      const common = {
        trials,
        variants,
        modelName: model,
        concurrency,
        folder,
        fresh: options.fresh,
        traces: options.allTraces === true ? ("all" as const) : ("failing" as const),
        capture: captureWith(folder, fs, path),
        onTrial: json ? undefined : progress,
        interrupt: requested,
        // No limits: nothing is refused, each turn is settled (`spend.settled`) and priced.
        spend: price === undefined ? undefined : Spend.make({}, { price })
      }
      const running =
        pg === undefined || url === undefined
          ? CaseSet.run(cases, { ...common, model: layer })
          : pg[1]
              .withRunTrial(
                {
                  url,
                  cluster: options.cluster === true,
                  model,
                  baseUrl: options.baseUrl,
                  requestTimeout: options.requestTimeout,
                  folder,
                  price
                },
                (runTrial) => CaseSet.run(cases, { ...common, runTrial })
              )
              .pipe(
                Effect.catchTags({
                  ModelUnavailable: (e) =>
                    stopped(
                      `${e.message}; set it there and run the same command again (the trials that ended are kept)`
                    ),
                  ConnectionLost: (e) =>
                    stopped(
                      `${e.message}; run the same command again once it answers (the trials that ended are kept)`
                    ),
                  TrialsRefused: (e) => usage(e.message)
                })
              )
      const report = yield* running.pipe(
        Effect.catchTags({
          JournalMismatch: (e) => folderFailed(folder, `${e.message}; run with --fresh to start over`),
          MalformedJournal: (e) => folderFailed(folder, e.message)
        }),
        Effect.catch((error) =>
          error instanceof ExitCode.ExitCode ? Effect.fail(error) : folderFailed(folder, messageOf(error))
        ),
        Effect.provide(Logger.layer([Warnings.stderrOnce("test")]))
      )
      const jsonLines = ReportLines.lines(report)
      yield* Effect.catch(fs.writeFileString(path.join(folder, "report.jsonl"), `${jsonLines.join("\n")}\n`), (e) =>
        folderFailed(folder, e.message)
      )
      if (json) for (const line of jsonLines) yield* Console.log(line)
      else if (cases.length > 0)
        for (const line of Print.lines(report, folder, style, path.join)) yield* Console.log(line)
      if (report.summary.interrupted) {
        const done = report.cases.reduce((sum, r) => sum + r.records.length, 0)
        const all = cases.length * variants.length * trials
        yield* Console.error(`interrupted: ${done} of ${all} trials done; run the same command again to resume`)
        return yield* ExitCode.interrupted
      }
      // A live case passes when it meets its threshold under every variant.
      const totals = Report.totals(verdicts, 0, skipped.length)
      const livePassed = report.summary.met
      const liveFailed = report.summary.notMet
      const reservedLive = cases.filter((c) => c.reserved)
      const reservedMet = reservedLive.filter((c) =>
        report.cases.filter((r) => r.file === c.file).every((r) => r.met)
      ).length
      const all: Report.Totals = {
        ...totals,
        passed: totals.passed + livePassed,
        failed: totals.failed + liveFailed,
        reservedPassed: totals.reservedPassed + reservedMet,
        reservedFailed: totals.reservedFailed + reservedLive.length - reservedMet
      }
      if (!json) for (const line of Report.closing(all)) yield* Console.log(line)
      if (all.failed > 0) return yield* ExitCode.failed
    })
  )
