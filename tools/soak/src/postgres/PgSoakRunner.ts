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
 *   node PgSoakRunner.ts <database url> <root> <port> [--no-journal] [--approvals [--approve-denied]]
 *
 * `--no-journal` runs the calls without the journal (a store that records nothing): the soak's
 * own tests use it to see that the soak finds the appends a takeover runs twice.
 *
 * `--approvals` puts the conversations behind the soak's policy (`PgSoakApprovals.policy`): an
 * asked call is parked in the approvals table and its conversation suspends until the soak's
 * answering side answers it. Each time a call starts to wait the runner prints
 * `{"parked":{"id","session","call","digest","asked_at"}}`. A line `hold-take <approval id>`
 * makes the run that next takes that approval's answer (parking it again, or reading it after
 * its wait) hold there, before the call goes on; a line `hold-parked` makes the next run that
 * says a call waits hold right after saying it (before it suspends).
 * `--approve-denied` (with `--approvals`) reads every denied approval as approved, so denied
 * calls run: the soak's own tests use it to see that the soak finds them.
 *
 * Exit 2 on bad usage, 1 when the runner cannot start (the reason on stderr).
 *
 * @since 0.1.0
 */
import process from "node:process"
import { DurableApprovals, DurableJournal, Engine, PgApprovals } from "@agent-harness/durable"
import { Model, type Outcome } from "@agent-harness/executor"
import { Files } from "@agent-harness/file-tools"
import type { Approvals, Journal } from "@agent-harness/idempotency"
import { Cause, Effect, Exit, Layer, Logger, Option } from "effect"
import * as Child from "../Child.ts"
import * as PgSoakApprovals from "./PgSoakApprovals.ts"
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
 * How a runner runs.
 *
 * @since 0.1.0
 */
export interface RunnerOptions {
  /** Without the journal (`--no-journal`). */
  readonly withoutJournal?: boolean | undefined
  /** Whether the append that just ran holds (the driver asked it to). */
  readonly holdNext?: (() => boolean) | undefined
  /** Conversations behind the soak's policy (`--approvals`). */
  readonly approvals?: boolean | undefined
  /** Whether a run taking the answer of this approval holds (the driver asked it to). */
  readonly holdTake?: ((id: string) => boolean) | undefined
  /** Whether the run that just said a call waits holds there (the driver asked it to). */
  readonly holdParked?: (() => boolean) | undefined
  /** Denied approvals read as approved (`--approve-denied`): the soak's own check. */
  readonly approveDenied?: boolean | undefined
}

/**
 * The runner's approvals store: the Postgres table, a run that takes an answer the driver named
 * held there, and (`approveDenied`) every denied approval read as approved.
 *
 * @since 0.1.0
 */
export const soakStore = (store: Approvals.Store, options: RunnerOptions): Approvals.Store => {
  const read = (approval: Approvals.Approval): Approvals.Approval =>
    options.approveDenied === true && approval.state === "denied" ? { ...approval, state: "approved" } : approval
  const holdTake = options.holdTake
  // A run takes an answer where it finds the approval answered: parking it again (a resumed
  // run) or reading it after its wait.
  const taken = (approval: Approvals.Approval): Effect.Effect<Approvals.Approval> =>
    approval.state !== "pending" && holdTake !== undefined && holdTake(approval.id)
      ? Child.hold(`approval ${approval.id}`)
      : Effect.succeed(read(approval))
  return {
    ...store,
    park: (ask) => Effect.flatMap(store.park(ask), taken),
    get: (id) =>
      Effect.flatMap(store.get(id), (found) =>
        Option.isSome(found) ? Effect.asSome(taken(found.value)) : Effect.succeedNone
      )
  }
}

/**
 * The runner: the engine on `127.0.0.1:<port>`, both workflows registered, `{"ready":true}`
 * printed once it is up; it runs until the process ends.
 *
 * @since 0.1.0
 */
export const runner = (url: string, root: string, port: number, options?: RunnerOptions) => {
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
  const approvals = options?.approvals === true
  const permission: PgSoakWorkflows.Permission | undefined = approvals
    ? {
        policy: PgSoakApprovals.policy,
        onParked: (approval) =>
          Effect.andThen(
            Child.say(PgSoakApprovals.parkedLine(approval)),
            Effect.suspend(() => (options?.holdParked?.() === true ? Child.hold(`parked ${approval.id}`) : Effect.void))
          )
      }
    : undefined
  const workflows = Layer.mergeAll(
    PgSoakWorkflows.sessions(seen).layer,
    PgSoakWorkflows.conversations(seen, permission).layer
  ).pipe(Layer.provide(Layer.succeed(Files.Files, files)), Layer.provide(Model.layer(PgSoakWorkflows.model)))
  const store = Layer.effect(
    DurableApprovals.DurableApprovals,
    Effect.map(PgApprovals.make(), (store) => soakStore(store, options ?? {}))
  )
  return Layer.effectDiscard(Child.say({ ready: true })).pipe(
    Layer.provideMerge(workflows),
    Layer.provideMerge(approvals ? store : Layer.empty),
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

const usage = "usage: PgSoakRunner.ts <database url> <root> <port> [--no-journal] [--approvals [--approve-denied]]\n"

const flags = ["--no-journal", "--approvals", "--approve-denied"]

const main = async (args: ReadonlyArray<string>): Promise<number> => {
  const [url, root, portText, ...rest] = args
  const port = Number(portText)
  if (
    url === undefined ||
    root === undefined ||
    !Number.isSafeInteger(port) ||
    rest.some((flag) => !flags.includes(flag)) ||
    (rest.includes("--approve-denied") && !rest.includes("--approvals"))
  ) {
    process.stderr.write(usage)
    return 2
  }
  let holds = 0
  let parks = 0
  const takes = new Set<string>()
  let pending = ""
  process.stdin.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk
    for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
      const line = pending.slice(0, end).trim()
      pending = pending.slice(end + 1)
      if (line === "hold") holds += 1
      else if (line === "hold-parked") parks += 1
      else if (line.startsWith("hold-take ")) takes.add(line.slice("hold-take ".length))
    }
  })
  // Standard input must not keep the process alive on its own.
  process.stdin.unref()
  const holdNext = () => {
    if (holds === 0) return false
    holds -= 1
    return true
  }
  const holdTake = (id: string) => takes.delete(id)
  const holdParked = () => {
    if (parks === 0) return false
    parks -= 1
    return true
  }
  const options: RunnerOptions = {
    withoutJournal: rest.includes("--no-journal"),
    holdNext,
    approvals: rest.includes("--approvals"),
    holdTake,
    holdParked,
    approveDenied: rest.includes("--approve-denied")
  }
  // Standard output is for the JSON lines: the engine's own logs go to standard error.
  const exit = await Effect.runPromiseExit(
    Layer.launch(runner(url, root, port, options)).pipe(Effect.provideService(Logger.LogToStderr, true))
  )
  if (Exit.isSuccess(exit)) return 0
  process.stderr.write(`soak runner: ${Cause.pretty(exit.cause)}\n`)
  return 1
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2))
}
