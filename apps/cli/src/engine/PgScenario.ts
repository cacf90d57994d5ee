/**
 * Scenario files on the Postgres engine (`harness run|test --engine postgres`): each run of a
 * scenario is a workflow (`agent-harness/scenario`, keyed by a fresh run id) on effect/cluster
 * in this process (`Engine.single`), its state in the database. The workflow's body runs the
 * scenario as the local engine does — the same decoding, tools, planner, budgets and verdict —
 * with every tool call (every plan step) recorded under its call id by the
 * journal in Postgres (`DurableJournal`); a plan session's id is the run id. The payload holds
 * the decoded file (encoded again as JSON), so a runner resuming the run needs nothing else. The verdict comes back as
 * the JSON text the local engine prints, checked against the verdict's shape.
 *
 * The hosts a file's `root`, `policy`, `mcp` and `commands` need are the ones this process
 * provides (`ScenarioServices.layer`): the body runs where the engine was built, so a command
 * runs sandboxed over the run's copy of the root, its call journaled like any other.
 *
 * A conversation scenario's scripted model is the scenario's own (deterministic, replayed from
 * its script), so its turns are not activities; only `DurableLoop` journals model turns. A
 * `response-cases` scenario runs no tools: the same verdict, through the same workflow.
 *
 * A database that goes away while a scenario runs ends that run with `Database.ConnectionLost`
 * (a typed failure here, naming the database), within `Database.defaultLostAfter` and the
 * engine's bounded shutdown, instead of leaving it waiting; the engine's own logs of the
 * outage (storage unhealthy, retries) are then left out, the loss explains them.
 *
 * @since 0.1.0
 */
import { Database, DurableJournal, Engine } from "@agent-harness/durable"
import { PlanDiff } from "@agent-harness/diff"
import { Execute } from "@agent-harness/executor"
import { SessionResult } from "@agent-harness/planner"
import {
  Conversation,
  LiveCase,
  PlanScenario,
  ResponseCases,
  ScenarioFile,
  Variant,
  Verdict
} from "@agent-harness/scenario"
import { Context, Effect, Exit, Layer, Logger, References, Result, Schema } from "effect"
import { Workflow, WorkflowEngine } from "effect/workflow"

/**
 * What starts a scenario run: its id (the workflow's key), the file's name and text, and the
 * harness variant.
 *
 * @since 0.1.0
 */
export const Payload: Schema.Struct<{
  readonly run_id: Schema.String
  readonly file: Schema.String
  readonly text: Schema.String
  readonly variant: Schema.Literals<typeof Variant.names>
}> = Schema.Struct({
  run_id: Schema.String,
  file: Schema.String,
  text: Schema.String,
  variant: Schema.Literals(Variant.names)
})

/** What starts a scenario run. @since 0.1.0 */
export type Payload = typeof Payload.Type

const Failure = Schema.Struct({
  kind: Schema.Literals([
    "divergence",
    "script_exhausted",
    "script_unfinished",
    "stop",
    "text",
    "files",
    "status",
    "reason",
    "executed",
    "revisions",
    "case",
    "invalid",
    "mcp",
    "permission",
    "root",
    "commands",
    "pass"
  ]),
  turn: Schema.optional(Schema.Int),
  tool_use_id: Schema.optional(Schema.String),
  case_id: Schema.optional(Schema.String),
  expected: Schema.String,
  seen: Schema.String,
  message: Schema.String
})

const Files = Schema.Record(Schema.String, Schema.String)

const Outcome = Schema.Union([
  Schema.Struct({
    stop: Verdict.Stop,
    text: Schema.optional(Schema.String),
    files: Schema.optional(Files),
    turns: Schema.Int
  }),
  Schema.Struct({
    status: SessionResult.Status,
    reason: Schema.String,
    executed: Schema.Array(Schema.Int),
    revisions: Schema.Array(PlanDiff.PlanDiff),
    steps: Schema.Int,
    replans: Schema.Int,
    files: Files
  }),
  Schema.Struct({
    cases: Schema.Array(
      Schema.Struct({
        id: Schema.String,
        role: ScenarioFile.Role,
        purpose: Schema.optional(Schema.String),
        passed: Schema.Boolean,
        expected: Schema.Unknown,
        seen: Schema.Unknown
      })
    )
  })
])

/** The shape of a verdict (`Verdict.Verdict`), to check the one the engine hands back. */
const VerdictShape = Schema.Struct({
  name: Schema.String,
  file: Schema.String,
  kind: Schema.String,
  variant: Schema.String,
  passed: Schema.Boolean,
  reserved: Schema.Boolean,
  outcome: Outcome,
  failures: Schema.Array(Failure)
})

const isVerdict: (u: unknown) => u is typeof VerdictShape.Type = Schema.is(VerdictShape)

/**
 * `true` only when two types are the same. The shape above must follow `Verdict.Verdict`: when a
 * verdict gains a field or a literal (a failure kind, a stop reason), this line fails to compile
 * until the shape has it too, instead of the engine refusing such verdicts at run time.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const sameShape: Same<typeof VerdictShape.Type, Verdict.Verdict> = true
void sameShape

/**
 * The verdict a run's JSON text holds (its keys in the order the local engine prints them), or
 * a defect when it is not one.
 *
 * @since 0.1.0
 */
export const verdictOf = (text: string): Effect.Effect<Verdict.Verdict> =>
  Effect.suspend(() => {
    const parsed: unknown = JSON.parse(text)
    return isVerdict(parsed)
      ? Effect.succeed(parsed)
      : Effect.die(new TypeError(`the engine handed back something that is not a verdict: ${text.slice(0, 200)}`))
  })

/**
 * The scenario workflow.
 *
 * @since 0.1.0
 */
export const workflow = Workflow.make("agent-harness/scenario", {
  payload: Payload,
  success: Schema.String,
  idempotencyKey: (payload) => payload.run_id
})

/**
 * Registers the scenario workflow on this process's runner: its body decodes the file's text
 * and runs it with every tool call recorded by the journal.
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<never, never, WorkflowEngine.WorkflowEngine | DurableJournal.DurableJournal> =
  workflow.toLayer((payload) =>
    Effect.gen(function* () {
      const parsed = ScenarioFile.decode(payload.file, JSON.parse(payload.text))
      if (Result.isFailure(parsed)) return yield* Effect.die(parsed.failure)
      const scenario = parsed.success
      const variant = Variant.byName[payload.variant]
      // A plan session's call ids hold the session id (the run id); a conversation's are the
      // script's own, so the journal keeps them under the run id.
      const middleware = yield* DurableJournal.middleware({
        scope: scenario.kind === "plan" ? undefined : payload.run_id
      })
      const running: Effect.Effect<Verdict.Verdict> =
        scenario.kind === "plan"
          ? PlanScenario.run(scenario, payload.file, { variant, sessionId: payload.run_id })
          : scenario.kind === "conversation"
            ? Conversation.run(scenario, payload.file, { variant })
            : scenario.kind === "live"
              ? Effect.succeed(LiveCase.withoutModel(scenario, payload.file, variant))
              : ResponseCases.run(scenario, payload.file, { variant })
      const verdict = yield* Effect.provideService(running, Execute.Middleware, middleware)
      return JSON.stringify(verdict)
    })
  )

/** A decoded scenario's file as JSON text that decodes to it again (what a runner needs to run it). */
const textOf = (scenario: ScenarioFile.Scenario): string => {
  switch (scenario.kind) {
    case "conversation":
      return JSON.stringify(Schema.encodeSync(ScenarioFile.ConversationFile)(scenario.file))
    case "plan":
      return JSON.stringify(Schema.encodeSync(ScenarioFile.PlanFile)(scenario.file))
    case "response-cases":
      return JSON.stringify(Schema.encodeSync(ScenarioFile.ResponseCasesFile)(scenario.file))
    case "live":
      return JSON.stringify(Schema.encodeSync(ScenarioFile.LiveFile)(scenario.file))
  }
}

/**
 * Runs a decoded scenario on the engine, as a fresh run: its verdict; or `ConnectionLost` when
 * the database went away before the run ended (the run was not judged: a call it was running
 * stays started in the journal).
 *
 * @since 0.1.0
 */
export const run = (
  scenario: ScenarioFile.Scenario,
  file: string,
  variant: Variant.Variant = Variant.defaultVariant
): Effect.Effect<Verdict.Verdict, Database.ConnectionLost, WorkflowEngine.WorkflowEngine> =>
  Database.lostAsFailure(
    Effect.flatMap(
      workflow.execute({
        run_id: globalThis.crypto.randomUUID(),
        file,
        text: textOf(scenario),
        variant: variant.name === "before" ? "before" : "fixed"
      }),
      verdictOf
    )
  )

/**
 * Runs a decoded scenario on the engine to its verdict, or fails with `ConnectionLost`.
 *
 * @since 0.1.0
 */
export type Runner = (
  scenario: ScenarioFile.Scenario,
  file: string,
  variant: Variant.Variant
) => Effect.Effect<Verdict.Verdict, Database.ConnectionLost>

/** How many of the engine's log entries are held until the command ends (the last ones are kept). */
const heldLogs = 200

/**
 * The engine in this process over the database at `url`, the scenario workflow registered.
 *
 * @since 0.1.0
 */
export const engine = (url: string): Layer.Layer<WorkflowEngine.WorkflowEngine, Database.DatabaseUnavailable> =>
  layer.pipe(Layer.provideMerge(DurableJournal.layerPg().pipe(Layer.orDie)), Layer.provideMerge(Engine.single({ url })))

/**
 * Runs `use` with a scenario runner on the engine over the database at `url` (built once, for
 * every scenario `use` runs); fails with `DatabaseUnavailable` when the database cannot be used.
 * The engine's own logs (errors only: shard moves, retries) are held until `use` ends, then
 * written on stderr as they were, unless a run ended with `ConnectionLost`: they are about the
 * outage, which the command reports itself.
 *
 * @since 0.1.0
 */
export const withEngine = <A, E, R>(
  url: string,
  use: (runner: Runner) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | Database.DatabaseUnavailable, R> =>
  Effect.scoped(
    Effect.gen(function* () {
      const held: Array<Logger.Options<unknown>> = []
      let lost = false
      let released = false
      const holding = Logger.make<unknown, void>((options) => {
        if (lost) return
        if (released) return Logger.defaultLogger.log(options)
        held.push(options)
        if (held.length > heldLogs) held.shift()
      })
      const release = Effect.sync(() => {
        released = true
        if (!lost) for (const options of held) Logger.defaultLogger.log(options)
        held.length = 0
      })
      yield* Effect.addFinalizer(() => release)
      // The engine's fibers log with what the build is given: errors only, held, then on stderr.
      const context = yield* Layer.build(engine(url)).pipe(
        Effect.provideService(Logger.LogToStderr, true),
        Effect.provideService(References.MinimumLogLevel, "Error"),
        Effect.provideService(Logger.CurrentLoggers, new Set([holding]))
      )
      const engineService = Context.get(context, WorkflowEngine.WorkflowEngine)
      return yield* use((scenario, file, variant) =>
        run(scenario, file, variant).pipe(
          Effect.provideService(WorkflowEngine.WorkflowEngine, engineService),
          Effect.onExit((exit) =>
            Effect.sync(() => {
              if (Exit.isFailure(exit) && Exit.hasFails(exit)) lost = true
            })
          )
        )
      )
    })
  )
