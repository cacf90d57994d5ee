/**
 * A runner of the Postgres soak: one effect/cluster runner (a socket runner listening on
 * 127.0.0.1:<port>) registering the soak's plan sessions and conversations, their tools over
 * the run folders under `<root>`, the journal's store and the engine's state in the database.
 * It prints one JSON line per outcome a session gets, and runs until it is killed:
 *
 *   {"ready":true}                                          once it has joined the cluster
 *   {"session":"run-3-seed-3","id":"a17","outcome":"Succeeded"}
 *   {"session":"run-3-seed-3","id":"a17","outcome":"Replayed","original":"Succeeded"}
 *   {"session":"run-3-seed-3","id":"a17","outcome":"Failed","failure":"OutcomeUnknown"}
 *
 *   {"holding":"r3/log-2.txt"}                               held in an append, waiting to be killed
 *
 * (A plan session's call ids are `<session>/step-0-<n>`; `id` is printed as the soak's call id,
 * `a<n>` or `w<n>`.) The soak driver kills runners with SIGKILL at random instants and starts
 * them again on the same port. A line `hold` on standard input makes the next append that runs
 * hold once it has appended (before its outcome is recorded), say so and wait to be killed: the
 * driver sends it before some kills, so that they land inside a call that ran.
 *
 *   node apps/cli/src/PgSoakRunner.ts <database url> <root> <port> [--no-journal]
 *
 * `--no-journal` runs the calls without the journal (a store that records nothing): the soak's
 * own tests use it to see that the soak finds the appends a takeover runs twice.
 *
 * Exit 2 on bad usage, 1 when the runner cannot start (the reason on stderr).
 *
 * @since 0.1.0
 */
import process from "node:process"
import { DurableJournal, Engine } from "@agent-harness/durable"
import { Model, type Outcome } from "@agent-harness/executor"
import { Files } from "@agent-harness/file-tools"
import type { Journal } from "@agent-harness/idempotency"
import { Cause, Effect, Exit, Layer, Logger } from "effect"
import * as Child from "../Child.ts"
import * as PgSoakWorkflows from "./PgSoakWorkflows.ts"

/**
 * One line of a runner's output about an outcome.
 *
 * @since 0.1.0
 */
export interface OutcomeLine {
  readonly session: string
  readonly id: string
  readonly outcome: Outcome.Outcome["_tag"]
  readonly original?: string
  readonly failure?: string
}

/**
 * The soak's call id of an outcome: `a17` from a plan session's `<session>/step-0-17` (the
 * step's tool says `a` or `w`), the conversation's own id otherwise.
 *
 * @since 0.1.0
 */
export const callIdOf = (outcome: Outcome.Outcome): string => {
  const step = /\/step-\d+-(\d+)$/.exec(outcome.id)
  return step === null ? outcome.id : `${outcome.name === "append" ? "a" : "w"}${step[1]}`
}

/**
 * The line of an outcome.
 *
 * @since 0.1.0
 */
export const lineOf = (outcome: Outcome.Outcome, session: string): OutcomeLine => ({
  session,
  id: callIdOf(outcome),
  outcome: outcome._tag,
  ...(outcome._tag === "Replayed" ? { original: outcome.original } : {}),
  ...(outcome._tag === "Failed" ? { failure: outcome.failure._tag } : {})
})

/**
 * The runner: the engine on `127.0.0.1:<port>`, both workflows registered, `{"ready":true}`
 * printed once it is up; it runs until the process ends.
 *
 * @since 0.1.0
 */
export const runner = (
  url: string,
  root: string,
  port: number,
  options?: { readonly withoutJournal?: boolean | undefined; readonly holdNext?: (() => boolean) | undefined }
) => {
  const seen = (outcome: Outcome.Outcome, session: string) => Child.say(lineOf(outcome, session))
  const folders = PgSoakWorkflows.folders(root)
  const holdNext = options?.holdNext
  const files: Files.FilesShape =
    holdNext === undefined
      ? folders
      : {
          ...folders,
          append: (path, content) =>
            Effect.andThen(
              folders.append(path, content),
              Effect.suspend(() => (holdNext() ? Child.hold(path) : Effect.void))
            )
        }
  const workflows = Layer.mergeAll(
    PgSoakWorkflows.sessions(seen).layer,
    PgSoakWorkflows.conversations(seen).layer
  ).pipe(Layer.provide(Layer.succeed(Files.Files, files)), Layer.provide(Model.layer(PgSoakWorkflows.model)))
  return Layer.effectDiscard(Child.say({ ready: true })).pipe(
    Layer.provideMerge(workflows),
    Layer.provideMerge(options?.withoutJournal === true ? DurableJournal.layer(nothing) : DurableJournal.layerPg()),
    Layer.provideMerge(Engine.runner({ url, port, sharding: PgSoakWorkflows.sharding }))
  )
}

/** What the store below holds: nothing, ever. */
const none = new Map<string, Journal.Entry>()

/** A journal store that records nothing: every call runs, every time (the soak's own check). */
const nothing: Journal.Store = {
  location: "nowhere",
  get: (id) => Effect.sync(() => none.get(id)),
  start: () => Effect.void,
  finish: () => Effect.void,
  entries: Effect.succeed([])
}

const main = async (args: ReadonlyArray<string>): Promise<number> => {
  const [url, root, portText, flag] = args
  const port = Number(portText)
  const withoutJournal = flag === "--no-journal"
  if (
    url === undefined ||
    root === undefined ||
    !Number.isSafeInteger(port) ||
    args.length > 4 ||
    (flag !== undefined && !withoutJournal)
  ) {
    process.stderr.write("usage: PgSoakRunner.ts <database url> <root> <port> [--no-journal]\n")
    return 2
  }
  let holds = 0
  process.stdin.setEncoding("utf8").on("data", (chunk: string) => {
    holds += chunk.split("\n").filter((line) => line.trim() === "hold").length
  })
  // Standard input must not keep the process alive on its own.
  process.stdin.unref()
  const holdNext = () => {
    if (holds === 0) return false
    holds -= 1
    return true
  }
  // Standard output is for the JSON lines: the engine's own logs go to standard error.
  const exit = await Effect.runPromiseExit(
    Layer.launch(runner(url, root, port, { withoutJournal, holdNext })).pipe(
      Effect.provideService(Logger.LogToStderr, true)
    )
  )
  if (Exit.isSuccess(exit)) return 0
  process.stderr.write(`soak runner: ${Cause.pretty(exit.cause)}\n`)
  return 1
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2))
}
