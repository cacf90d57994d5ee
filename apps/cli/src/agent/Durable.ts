/**
 * `harness agent --engine postgres [--database-url URL] [--session ID]`: the same agent as a
 * durable conversation (`DurableLoop` of `@agent-harness/durable`): every model turn and every
 * call an activity recorded in Postgres, behind the permission gate. A call the policy asks
 * about is parked in the database and the conversation suspends — no terminal, no timeout —
 * until someone answers it from any process (`harness approve ID --database-url URL`, `harness
 * deny ID --database-url URL --reason …`). This process waits and goes on once it is answered;
 * killed (or Ctrl-C) while it waits, the same command with the same `--session` resumes the
 * conversation where it was: replies and calls recorded are given again, never asked nor run
 * again, and the answer given meanwhile is taken.
 *
 * Loaded only for `--engine postgres`: the local agent never loads the durable engine.
 *
 * @since 0.2.0
 */
import { randomBytes } from "node:crypto"
import { AiSdkModel } from "@agent-harness/ai-sdk"
import { Database, DurableApprovals, DurableJournal, DurableLoop, Engine } from "@agent-harness/durable"
import { Message, type Outcome } from "@agent-harness/executor"
import { Files } from "@agent-harness/file-tools"
import type { Policy } from "@agent-harness/permission"
import { Report } from "@agent-harness/scenario"
import type { Tool, Toolset } from "@agent-harness/tool-schema"
import { Console, Effect, Layer, Logger, References } from "effect"
import * as ExitCode from "../common/ExitCode.ts"
import * as Warnings from "../printing/Warnings.ts"
import type * as Budgets from "./Budgets.ts"
import * as Providers from "./Providers.ts"

/**
 * What a durable agent run needs, checked by `harness agent` before it comes here.
 *
 * @since 0.2.0
 */
export interface Setup {
  /** The database. */
  readonly url: string
  /** The conversation's id (`--session`), or none: a new one, printed. */
  readonly session: string | undefined
  readonly model: Providers.Resolved
  readonly policy: Policy.Policy
  readonly untrustedOutput: boolean
  readonly maxTurns: number
  readonly spending: Budgets.Spending | undefined
  /** The tools (the locale's file tools, the commands). */
  readonly toolset: Toolset.Toolset<Tool.Any>
  readonly files: Files.FilesShape
  /** The opening messages (a conversation resumed keeps the ones it started with). */
  readonly system: string
  readonly prompt: string
  /** How a call is shown (`ok`, `error`), in the run's language. */
  readonly show: (outcome: Outcome.Outcome) => string
  /** The words of the final lines. */
  readonly words: { readonly answer: string; readonly stop: string }
}

/** The name of the agent's conversations in the cluster. */
const kind = "agent-harness/agent"

/**
 * Runs (or resumes) the conversation and prints how it ended; exit 0 when the model ends, 1
 * otherwise, 2 when the database cannot be used.
 *
 * @since 0.2.0
 */
export const run = (setup: Setup): Effect.Effect<void, ExitCode.ExitCode> =>
  Effect.gen(function* () {
    const session = setup.session ?? `agent-${randomBytes(6).toString("hex")}`
    const where = `--database-url ${Database.redact(setup.url)}`
    const conversation = DurableLoop.make(kind, {
      toolset: setup.toolset,
      maxTurns: setup.maxTurns,
      onOutcome: (outcome) => Console.log(setup.show(outcome)),
      permission: {
        policy: setup.policy,
        untrustedOutput: setup.untrustedOutput,
        onParked: (approval) =>
          Console.error(
            Report.printable(
              `harness agent: call ${approval.toolUseId} (${approval.name} ${approval.input.length > 200 ? `${approval.input.slice(0, 200)}…` : approval.input}) waits for approval ${approval.id}: harness approve ${approval.id} ${where}, or harness deny ${approval.id} ${where} --reason "…"`
            )
          )
      },
      ...(setup.spending === undefined
        ? {}
        : {
            spend: {
              limits: setup.spending.spend.limits,
              price: setup.spending.spend.price,
              maxOutputTokens: setup.spending.maxOutputTokens
            }
          })
    })
    const model = AiSdkModel.layer(Providers.languageModel(setup.model), {
      ...Providers.modelOptions(setup.model),
      ...(setup.spending === undefined ? {} : { maxOutputTokens: setup.spending.maxOutputTokens })
    })
    const layer = conversation.layer.pipe(
      Layer.provideMerge(DurableJournal.layerPg()),
      Layer.provideMerge(DurableApprovals.layerPg()),
      Layer.provideMerge(Engine.single({ url: setup.url })),
      Layer.provide(Layer.succeed(Files.Files, setup.files)),
      Layer.provide(model)
    )
    yield* Console.error(
      Report.printable(
        `harness agent: session ${session} on ${Database.redact(setup.url)}: resume it with --session ${session}; calls the policy asks about wait for harness approve`
      )
    )
    const ended = yield* conversation
      .run({
        conversation_id: session,
        messages: [Message.system(setup.system), Message.user(setup.prompt)]
      })
      .pipe(
        Effect.provide(layer),
        Effect.provide(Logger.layer([Warnings.stderrOnce("agent")])),
        Effect.provideService(References.MinimumLogLevel, "Warn"),
        Effect.result
      )
    if (ended._tag === "Failure") {
      const error = ended.failure
      if (error._tag === "ConversationFailed") {
        yield* Console.error(`harness agent: the model failed: ${error.message}`)
        return yield* ExitCode.failed
      }
      yield* Console.error(`harness agent: ${error.message}`)
      return yield* ExitCode.invalid
    }
    const result = ended.success
    yield* Console.log("")
    if (result.text !== null) yield* Console.log(`${setup.words.answer}: ${Report.printable(result.text)}`)
    yield* Console.log(`${setup.words.stop}: ${result.stop}`)
    if (result.stop === "end") return
    yield* Console.error(`harness agent: the run stopped (${result.stop}) before the model finished`)
    return yield* ExitCode.failed
  })
