/**
 * The Postgres soak's answering child: a client of the engine (it runs no workflow) that answers
 * parked approvals as `harness approve` / `harness deny` would — the answer written once in the
 * approvals table (`store.answer`), then the waiting conversation woken
 * (`DurableApprovals.wakeUp`) — and that the soak kills at random, between the two included.
 *
 *   node PgSoakAnswerer.ts <database url>
 *
 * It reads JSON lines on stdin and prints JSON lines:
 *
 *   {"answer":"<id>","approve":true,"hold":false}      answer (approve or deny; `reason` for a denial)
 *   {"go":"<id>"}                                      go on with an answer held after its write
 *
 *   {"ready":true}                                     once it can answer
 *   {"answered":"<id>","state":"approved"}             the answer is committed in the store
 *   {"held":"<id>"}                                    held after the write, before the wake (`hold`)
 *   {"woken":"<id>","taken":true}                     the wake-up was sent (`taken`: the engine took it)
 *   {"written":"<id>","state":"approved"}              the store holds the soak's answer already: not woken
 *   {"refused":"<id>","problem":"…"}                   the store refused the answer, and it is not the soak's
 *   {"failed":"<id>","problem":"…"}                    the store could not be read or written
 *
 * An answer the store refuses because the soak gave it already (an answering child killed after
 * its write, before its wake) is what a person retrying `harness approve` would see: approved
 * already. Like that person, the child does not wake the conversation then (`written`): the
 * conversation must take the answer on its own, when it next looks at the store. Exit 2 on bad
 * usage, 1 when it cannot start.
 *
 * @since 0.1.0
 */
import process from "node:process"
import { DurableApprovals, Engine } from "@agent-harness/durable"
import type { Approvals } from "@agent-harness/idempotency"
import { Cause, Deferred, Effect, Exit, Layer, Logger, Option, Predicate, Queue } from "effect"
import * as Child from "../Child.ts"
import * as PgSoakApprovals from "./PgSoakApprovals.ts"
import * as PgSoakWorkflows from "./PgSoakWorkflows.ts"

/**
 * A command of the driver.
 *
 * @since 0.1.0
 */
export type Command =
  | { readonly _tag: "Answer"; readonly id: string; readonly approve: boolean; readonly hold: boolean }
  | { readonly _tag: "Go"; readonly id: string }

/**
 * A line of stdin as a command, or `undefined`.
 *
 * @since 0.1.0
 */
export const readCommand = (text: string): Command | undefined => {
  let line: unknown
  try {
    line = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!Predicate.isObject(line)) return undefined
  if (typeof line.go === "string") return { _tag: "Go", id: line.go }
  return typeof line.answer === "string" && typeof line.approve === "boolean"
    ? { _tag: "Answer", id: line.answer, approve: line.approve, hold: line.hold === true }
    : undefined
}

/**
 * The answer the soak gives (`PgSoakApprovals.answerer`, the soak's reason on a denial).
 *
 * @since 0.1.0
 */
export const answerOf = (approve: boolean): Approvals.Answer =>
  approve
    ? { approve: true, by: PgSoakApprovals.answerer }
    : { approve: false, by: PgSoakApprovals.answerer, reason: PgSoakApprovals.denyReason }

/** Whether an approval holds the soak's answer `approve`. */
const holdsAnswer = (approval: Approvals.Approval, approve: boolean): boolean =>
  approval.state === (approve ? "approved" : "denied") && approval.by === PgSoakApprovals.answerer

/**
 * Answers approval `id` and wakes its conversation, saying each step; held after the write until
 * `released` when `hold` is set. An answer found written by the soak already is only said.
 *
 * @since 0.1.0
 */
export const answer = (
  store: Approvals.Store,
  command: Extract<Command, { readonly _tag: "Answer" }>,
  released: Effect.Effect<void>
) =>
  Effect.gen(function* () {
    const { id, approve } = command
    const given = yield* Effect.result(store.answer(id, answerOf(approve)))
    if (given._tag === "Failure") {
      if (given.failure._tag === "ApprovalError")
        return yield* Child.say({ failed: id, problem: given.failure.message })
      // Refused: given already by the soak (a child killed after its write, before its wake)?
      const kept = yield* Effect.result(store.get(id))
      if (kept._tag === "Failure") return yield* Child.say({ failed: id, problem: kept.failure.message })
      if (Option.isSome(kept.success) && holdsAnswer(kept.success.value, approve)) {
        return yield* Child.say({ written: id, state: kept.success.value.state })
      }
      return yield* Child.say({ refused: id, problem: given.failure.message })
    }
    const approval = given.success
    yield* Child.say({ answered: id, state: approval.state })
    if (command.hold) yield* Effect.andThen(Child.say({ held: id }), released)
    const woken = yield* DurableApprovals.wakeUp(approval)
    yield* Child.say({
      woken: id,
      taken: woken.woken,
      ...(woken.problem === undefined ? {} : { problem: woken.problem })
    })
  })

/**
 * The answering child's program: answers every command it reads, each in its own fiber, until
 * the process ends.
 *
 * @since 0.1.0
 */
export const serve = (url: string) =>
  Effect.gen(function* () {
    const store = yield* DurableApprovals.DurableApprovals
    const commands = yield* Queue.unbounded<Command>()
    const holds = new Map<string, Deferred.Deferred<void>>()
    const heldFor = (id: string) => {
      const known = holds.get(id)
      if (known !== undefined) return known
      const made = Deferred.makeUnsafe<void>()
      holds.set(id, made)
      return made
    }
    let pending = ""
    process.stdin.setEncoding("utf8").on("data", (chunk: string) => {
      pending += chunk
      for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
        const command = readCommand(pending.slice(0, end))
        pending = pending.slice(end + 1)
        if (command !== undefined) Queue.offerUnsafe(commands, command)
      }
    })
    yield* Child.say({ ready: true })
    while (true) {
      const command = yield* Queue.take(commands)
      if (command._tag === "Go") yield* Deferred.succeed(heldFor(command.id), undefined)
      else yield* Effect.forkChild(answer(store, command, Deferred.await(heldFor(command.id))))
    }
  }).pipe(
    Effect.provide(
      DurableApprovals.layerPg().pipe(Layer.provideMerge(Engine.client({ url, sharding: PgSoakWorkflows.sharding })))
    )
  )

const main = async (args: ReadonlyArray<string>): Promise<number> => {
  const [url] = args
  if (url === undefined || args.length !== 1) {
    process.stderr.write("usage: PgSoakAnswerer.ts <database url>\n")
    return 2
  }
  // Standard output is for the JSON lines: the engine's own logs go to standard error.
  const exit = await Effect.runPromiseExit(serve(url).pipe(Effect.provideService(Logger.LogToStderr, true)))
  if (Exit.isSuccess(exit)) return 0
  process.stderr.write(`soak answerer: ${Cause.pretty(exit.cause)}\n`)
  return 1
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2))
}
