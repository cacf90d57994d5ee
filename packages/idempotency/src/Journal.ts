/**
 * A durable journal keyed by call id, with the meaning of Stripe's idempotency keys: before a
 * non-idempotent call runs, "started" is written and flushed; after it, the outcome. Executing a
 * call id whose outcome is recorded replays the stored observation and runs nothing. A call id
 * that started and never finished is **outcome unknown**: it is never re-run blindly, and the
 * model and the caller are told so. Idempotent calls may re-run. A call id reused for another
 * call (another tool or other input) is refused.
 *
 * It plugs into the executor as middleware (`Journal.layer(store)`): the loop does not change.
 *
 * @since 0.1.0
 */
import { PlanDiff } from "@agent-harness/diff"
import { Execute, type Outcome } from "@agent-harness/executor"
import { MessageCatalog, Tool } from "@agent-harness/tool-schema"
import { Effect, Layer, Schema } from "effect"

/**
 * What the model was shown for a call, as recorded.
 *
 * @since 0.1.0
 */
export const Observation = Schema.Struct({
  original: Schema.Literals(["NotExecuted", "Refused", "Failed", "Succeeded"]),
  is_error: Schema.Boolean,
  content: Schema.String
})

/** @since 0.1.0 */
export type Observation = typeof Observation.Type

/**
 * One call id's record.
 *
 * @since 0.1.0
 */
export const Entry = Schema.Struct({
  id: Schema.String,
  tool: Schema.String,
  input: Schema.Unknown,
  state: Schema.Literals(["started", "done"]),
  observation: Schema.optionalKey(Observation)
})

/** @since 0.1.0 */
export type Entry = typeof Entry.Type

/**
 * The journal cannot be read or written: the file, and what is wrong.
 *
 * @since 0.1.0
 */
export class JournalError extends Schema.TaggedError<JournalError>()("JournalError", {
  file: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return `${this.file}: ${this.problem}`
  }
}

/**
 * A journal backend. `start` and `finish` return only once the record is durable.
 *
 * @since 0.1.0
 */
export interface Store {
  /** Where it is kept (a file path, or `memory`), for messages. */
  readonly location: string
  readonly get: (id: string) => Effect.Effect<Entry | undefined, JournalError>
  /**
   * Records that a call is about to run. Fails if the id is already in the journal (two calls
   * with one id raced past `get`): at most one of them may run.
   */
  readonly start: (id: string, tool: string, input: unknown) => Effect.Effect<void, JournalError>
  /** Records a call's outcome (inserting the entry if it was never started). */
  readonly finish: (
    id: string,
    tool: string,
    input: unknown,
    observation: Observation
  ) => Effect.Effect<void, JournalError>
  /** Every entry, in the order they were first written. */
  readonly entries: Effect.Effect<ReadonlyArray<Entry>, JournalError>
}

/**
 * The observation to record for an outcome.
 *
 * @since 0.1.0
 */
export const observationOf = (outcome: Outcome.Outcome): Observation => ({
  original: outcome._tag === "Replayed" ? outcome.original : outcome._tag,
  is_error: outcome._tag === "Replayed" ? outcome.is_error : outcome._tag !== "Succeeded",
  content: outcome.content
})

/** A refused call: `reason` says why, `content` is the catalogue's `not executed: <reason>`. */
const refused = (
  catalog: MessageCatalog.MessageCatalog,
  call: { readonly id: string; readonly name: string },
  reason: string
): Outcome.Outcome => ({
  _tag: "Refused",
  id: call.id,
  name: call.name,
  reason,
  content: catalog.notExecuted(reason)
})

/**
 * The journal as executor middleware.
 *
 * @since 0.1.0
 */
export const middleware =
  (store: Store): Execute.Middleware =>
  (call, tool, run) =>
    Effect.gen(function* () {
      const catalog = yield* Effect.service(MessageCatalog.MessageCatalog)
      const refuse = (reason: string) => refused(catalog, call, reason)
      const existing = yield* Effect.result(store.get(call.id))
      if (existing._tag === "Failure") return refuse(`the journal cannot be read (${existing.failure.message})`)
      const entry = existing.success
      const idempotent = Tool.isIdempotent(tool)
      if (entry !== undefined) {
        if (entry.tool !== call.name || !PlanDiff.equalArgs(entry.input, call.input)) {
          return refuse(
            `call id '${call.id}' was already used for another call (${entry.tool} ${JSON.stringify(entry.input)})`
          )
        }
        if (entry.state === "done" && entry.observation !== undefined) {
          const replayed: Outcome.Outcome = {
            _tag: "Replayed",
            id: call.id,
            name: call.name,
            original: entry.observation.original,
            is_error: entry.observation.is_error,
            content: entry.observation.content
          }
          return replayed
        }
        if (!idempotent) {
          const unknown: Outcome.Outcome = {
            _tag: "Failed",
            id: call.id,
            name: call.name,
            failure: { _tag: "OutcomeUnknown" },
            content: catalog.outcomeUnknown
          }
          return unknown
        }
      }
      if (!idempotent) {
        const started = yield* Effect.result(store.start(call.id, call.name, call.input))
        if (started._tag === "Failure") return refuse(`the journal cannot record the call (${started.failure.message})`)
      }
      const outcome = yield* run
      // If this write fails, a non-idempotent call stays "started": after a restart it is
      // reported as outcome unknown, never run again. Nothing is lost by going on.
      yield* Effect.ignore(store.finish(call.id, call.name, call.input, observationOf(outcome)))
      return outcome
    })

/**
 * The journal over a store, as the executor's middleware.
 *
 * @since 0.1.0
 */
export const layer = (store: Store): Layer.Layer<never> => Layer.succeed(Execute.Middleware, middleware(store))
