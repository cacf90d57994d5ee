/**
 * Trials on the Postgres engine (`harness test --trials N --model P:M --engine postgres`): each
 * trial is a workflow (`agent-harness/trial`) keyed by the report's run id, the case's file and
 * bytes, the variant, the index and an attempt number, so that the same command run again (after
 * Ctrl-C, kill -9 or a lost connection) finds every trial a runner finished in the database and
 * does not run it, or pay for it, twice; and a trial still running is joined, not started again.
 *
 * Two shapes: without `--cluster` this process is the whole engine (`Engine.single`); with
 * `--cluster` it runs nothing (`Engine.client`) and the trials spread over the runners that
 * `harness runner` started on the same database, at most `--concurrency` at once. A runner builds
 * the model from its own environment (its API key never travels) and runs the trial as this
 * process would (`CaseSet.trial`: fresh environment, new model adapter, one `Backoff` per runner
 * process), and hands back the trial's record, its trace, and its address. A runner that cannot
 * build the model (no key there) refuses the trial (`ModelUnavailable`): nothing is judged, the
 * command exits 2 naming the runner, and the refusal is noted in `DIR/refused.jsonl` so that the
 * same command again tries that trial anew (the next attempt's key) instead of reading the
 * refusal back.
 *
 * A priced run sends its price with each trial (`price`): the runner gives the trial's loop
 * `Spend.make({}, { price })`, so its record keeps its cost as in this process.
 *
 * A trial's model calls are not activities: a runner killed mid-trial leaves the trial to be run
 * again from its start by the runner that takes its shard (the tokens it had spent are spent).
 *
 * @since 0.1.0
 */
import process from "node:process"
import { AiSdkModel, Backoff } from "@agent-harness/ai-sdk"
import { Price, Spend } from "@agent-harness/budgets"
import { Database, Engine } from "@agent-harness/durable"
import { ScenarioFile, Variant } from "@agent-harness/scenario"
import { CaseSet, Journal } from "@agent-harness/trials"
import { type Cause, Context, Data, Effect, FileSystem, Layer, Path, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { Workflow, WorkflowEngine } from "effect/workflow"
import * as Providers from "../agent/Providers.ts"

/**
 * What starts a trial: its key (the workflow's), the case (its file as given, its absolute path
 * for the runner, its JSON, its digest, its stem), the variant, the index, and the model as
 * `--model`, `--base-url` and `--request-timeout` name it, and its price when the run is priced.
 *
 * @since 0.1.0
 */
export const Payload: Schema.Struct<{
  readonly key: Schema.String
  readonly file: Schema.String
  readonly source: Schema.String
  readonly text: Schema.String
  readonly digest: Schema.String
  readonly stem: Schema.String
  readonly variant: Schema.Literals<typeof Variant.names>
  readonly index: Schema.Int
  readonly model: Schema.String
  readonly base_url: Schema.optional<Schema.String>
  readonly request_timeout: Schema.optional<Schema.String>
  readonly price: Schema.optional<typeof Price.Price>
}> = Schema.Struct({
  key: Schema.String,
  file: Schema.String,
  source: Schema.String,
  text: Schema.String,
  digest: Schema.String,
  stem: Schema.String,
  variant: Schema.Literals(Variant.names),
  index: Schema.Int,
  model: Schema.String,
  base_url: Schema.optional(Schema.String),
  request_timeout: Schema.optional(Schema.String),
  price: Schema.optional(Price.Price)
})

/** What starts a trial. @since 0.1.0 */
export type Payload = typeof Payload.Type

/**
 * What a runner hands back: the trial's journal line (`Journal.trialLine`, with `runner`) and its
 * trace's text.
 *
 * @since 0.1.0
 */
export const Ran: Schema.Struct<{ readonly line: Schema.String; readonly trace: Schema.String }> = Schema.Struct({
  line: Schema.String,
  trace: Schema.String
})

const ModelUnavailableBase: Schema.Class<
  ModelUnavailable,
  Schema.TaggedStruct<"ModelUnavailable", { readonly runner: Schema.String; readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<ModelUnavailable>()("ModelUnavailable", {
  runner: Schema.String,
  problem: Schema.String
})

/**
 * A runner that cannot build the trial's model (no API key in its environment, a bad base URL):
 * the trial was not run.
 *
 * @since 0.1.0
 */
export class ModelUnavailable extends ModelUnavailableBase {
  /** `runner <address> cannot run the trial: <problem>`. */
  override get message(): string {
    return `runner ${this.runner} cannot run the trial: ${this.problem}`
  }
}

/**
 * The trial workflow.
 *
 * @since 0.1.0
 */
export const workflow = Workflow.make("agent-harness/trial", {
  payload: Payload,
  success: Ran,
  error: ModelUnavailable,
  idempotencyKey: (payload) => payload.key
})

/**
 * The model of a payload, built from this process's environment, or why it cannot be.
 *
 * @since 0.1.0
 */
export const modelOf = (
  payload: Pick<Payload, "model" | "base_url" | "request_timeout">,
  backoff: Backoff.Backoff,
  env: Readonly<Record<string, string | undefined>> = process.env
): Result.Result<ReturnType<typeof AiSdkModel.layer>, string> => {
  const resolved = Providers.resolve(payload.model, payload.base_url, env, payload.request_timeout)
  if (Result.isFailure(resolved)) return Result.fail(resolved.failure)
  try {
    const languageModel = Providers.languageModel(resolved.success)
    return Result.succeed(AiSdkModel.layer(languageModel, { ...Providers.modelOptions(resolved.success), backoff }))
  } catch (error) {
    return Result.fail(error instanceof Error ? error.message : String(error))
  }
}

/**
 * Registers the trial workflow on this process (a runner, or the whole engine): its body
 * decodes the case, builds the model from this process's environment (one `Backoff` for every
 * trial it runs) and runs the trial (`CaseSet.trial`), handing back its record, marked with
 * `runner` (where it ran: a runner's address) when given, and its trace.
 *
 * @since 0.1.0
 */
export const layer = (runner: string | undefined): Layer.Layer<never, never, WorkflowEngine.WorkflowEngine> => {
  const backoff = Backoff.make()
  return workflow.toLayer((payload) =>
    Effect.gen(function* () {
      const parsed = ScenarioFile.decode(payload.source, JSON.parse(payload.text))
      if (Result.isFailure(parsed) || parsed.success.kind !== "live") {
        return yield* Effect.die(new TypeError(`${payload.file}: the trial's case is not a live case`))
      }
      const live = parsed.success
      const model = modelOf(payload, backoff)
      if (Result.isFailure(model)) {
        return yield* new ModelUnavailable({ runner: runner ?? "this process", problem: model.failure })
      }
      const at: CaseSet.TrialAt = {
        case: { live, file: payload.source, digest: payload.digest, reserved: live.reserved },
        variant: Variant.byName[payload.variant],
        index: payload.index,
        stem: payload.stem,
        run: payload.key
      }
      const spend = payload.price === undefined ? undefined : Spend.make({}, { price: payload.price })
      const ran = yield* CaseSet.trial(at, model.success, { spend })
      const record = { ...ran.record, file: payload.file, ...(runner === undefined ? {} : { runner }) }
      return { line: Journal.trialLine(record), trace: ran.trace }
    })
  )
}

/**
 * The workflow's key of a trial: the report's run id, the case (file and digest), the variant,
 * the index and the attempt (0, then one more after each refusal).
 *
 * @since 0.1.0
 */
export const keyOf = (at: CaseSet.TrialAt, attempt: number): string =>
  JSON.stringify([at.run, at.case.file, at.case.digest, at.variant.name, at.index, attempt])

/** The file of the refused trials' keys in a report folder. @since 0.1.0 */
export const refusedFile = "refused.jsonl"

/**
 * The runners up on the database (their addresses), as effect/cluster registers them: healthy,
 * with a heartbeat in the last minute; none when no runner ever registered there.
 *
 * @since 0.1.0
 */
export const runnersUp: Effect.Effect<ReadonlyArray<string>, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const exists = yield* sql<{ readonly name: string | null }>`SELECT to_regclass('cluster_runners')::text AS name`
  if (exists[0]?.name == null) return []
  const rows = yield* sql<{ readonly address: string }>`
    SELECT address FROM cluster_runners
    WHERE healthy AND last_heartbeat > NOW() - INTERVAL '60 seconds'
    ORDER BY address`
  return rows.map((row) => row.address)
}).pipe(Effect.orDie)

/**
 * How the trials reach the engine: the model as the flags name it, the report folder, and
 * whether they spread over the cluster's runners (`--cluster`) or run in this process.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The database. */
  readonly url: string
  /** `--cluster`: this process runs no trial; the runners of the database do. */
  readonly cluster: boolean
  /** `PROVIDER:MODEL`. */
  readonly model: string
  /** `--base-url`, as given. */
  readonly baseUrl?: string | undefined
  /** `--request-timeout`, as given. */
  readonly requestTimeout?: string | undefined
  /** The report folder (its `refused.jsonl`). */
  readonly folder: string
  /** The run's price (`--price` or the shipped table), sent with each trial; none: unpriced. */
  readonly price?: Price.Price | undefined
}

/**
 * The trials cannot go to the engine, before any ran: the database's answer, no runner up with
 * `--cluster`, or runners up without it.
 *
 * @since 0.1.0
 */
export class TrialsRefused extends Data.TaggedError("TrialsRefused")<{
  /** What is wrong, in words, naming the flag or the database. */
  readonly message: string
}> {}

/** The refused keys a report folder holds (a torn or bad line is left out). */
const readRefused = (file: string): Effect.Effect<Set<string>, never, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const text = yield* Effect.orElseSucceed(fs.readFileString(file), () => "")
    const keys = new Set<string>()
    for (const line of text.split("\n")) {
      try {
        const parsed: unknown = JSON.parse(line)
        if (typeof parsed === "object" && parsed !== null && "key" in parsed && typeof parsed.key === "string") {
          keys.add(parsed.key)
        }
      } catch {
        // a torn last line: that refusal is tried again at its old key, and refused again
      }
    }
    return keys
  })

/**
 * Runs `use` with a `runTrial` for `CaseSet.run` that runs each trial as a workflow on the
 * engine over the database (see the module). Fails with `TrialsRefused` when the database cannot be
 * used, when `--cluster` finds no runner up on it, or when without `--cluster` it finds runners
 * up (this process would take their shards): before anything runs. A trial a runner refuses
 * fails `runTrial` with `ModelUnavailable` (noted in `DIR/refused.jsonl`).
 *
 * @since 0.1.0
 */
export const withRunTrial = <A, E, R>(
  options: Options,
  use: (
    runTrial: (at: CaseSet.TrialAt) => Effect.Effect<CaseSet.TrialRun, ModelUnavailable | Database.ConnectionLost>
  ) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | TrialsRefused, R | FileSystem.FileSystem | Path.Path> =>
  Effect.scoped(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const where = Database.redact(options.url)
      const up = yield* runnersUp.pipe(
        Effect.provide(Database.layer(options.url)),
        Effect.mapError((error) => new TrialsRefused({ message: error.message }))
      )
      if (options.cluster && up.length === 0) {
        return yield* new TrialsRefused({
          message: `--cluster: no runner is up on ${where}; start one (or more) with harness runner --database-url URL --port PORT, or drop --cluster to run the trials in this process`
        })
      }
      if (!options.cluster && up.length > 0) {
        return yield* new TrialsRefused({
          message: `runners are up on ${where} (${up.join(", ")}): add --cluster to run the trials on them (without it this process would run every shard itself)`
        })
      }
      const built = options.cluster
        ? Engine.client({ url: options.url })
        : layer(undefined).pipe(Layer.provideMerge(Engine.single({ url: options.url })))
      const context = yield* Layer.build(built).pipe(
        Effect.mapError((error) => new TrialsRefused({ message: error.message }))
      )
      const engine = Context.get(context, WorkflowEngine.WorkflowEngine)
      const refusedPath = path.join(options.folder, refusedFile)
      const refused = yield* readRefused(refusedPath)
      const attemptOf = (at: CaseSet.TrialAt): number => {
        let attempt = 0
        while (refused.has(keyOf(at, attempt))) attempt++
        return attempt
      }
      const runTrial = (at: CaseSet.TrialAt) =>
        Effect.gen(function* () {
          const key = keyOf(at, attemptOf(at))
          const source = path.resolve(at.case.file)
          const text = JSON.stringify(Schema.encodeSync(ScenarioFile.LiveFile)(at.case.live.file))
          const ran = yield* workflow
            .execute({
              key,
              file: at.case.file,
              source,
              text,
              digest: at.case.digest,
              stem: at.stem,
              variant: at.variant.name === "before" ? "before" : "fixed",
              index: at.index,
              model: options.model,
              ...(options.baseUrl === undefined ? {} : { base_url: options.baseUrl }),
              ...(options.requestTimeout === undefined ? {} : { request_timeout: options.requestTimeout }),
              ...(options.price === undefined ? {} : { price: options.price })
            })
            .pipe(
              Effect.provideService(WorkflowEngine.WorkflowEngine, engine),
              Database.lostAsFailure,
              Effect.tapError((error) =>
                error._tag === "ModelUnavailable"
                  ? Effect.andThen(
                      Effect.sync(() => refused.add(key)),
                      Effect.ignore(fs.writeFileString(refusedPath, `${JSON.stringify({ key })}\n`, { flag: "a" }))
                    )
                  : Effect.void
              )
            )
          const record = Journal.readTrialLine(ran.line)
          if (Result.isFailure(record)) {
            return yield* Effect.die(
              new TypeError(`the engine handed back a trial that does not read: ${record.failure}`)
            )
          }
          return { record: record.success, trace: ran.trace }
        })
      return yield* use(runTrial)
    })
  )
