/**
 * Tool calls of durable workflows, recorded by the idempotency journal in a store every runner
 * shares (`PgStore`). Inside a workflow, each call the executor runs goes through the journal's
 * middleware, and its journal row is its record:
 *
 * - the row is keyed by the call id (under a scope: a conversation's id), written once the call
 *   ran, and a later run of the workflow — after a restart, on another runner — is answered
 *   from it without running anything (`Replayed`);
 * - a non-idempotent call is marked started, committed, before it runs (one `INSERT` the id's
 *   key decides: of two runners racing on one call, one is refused). A workflow run again finds
 *   the mark of a call whose runner died and answers outcome unknown without running it: at most
 *   once. An idempotent call is not marked and simply runs again;
 * - the row holds the call's tool name and canonical input (the decoded input that runs:
 *   `Journal.recordedInput`): a call id used again for another call is refused.
 *
 * Calls are not effect/cluster activities (they were in 0.1): an activity's request and
 * reply recorded the same facts a second time, at four more commits a call. Planner answers and
 * model turns still are activities (`DurableSession`, `DurableLoop`).
 *
 * @since 0.1.0
 */
import type { Execute, Outcome } from "@agent-harness/executor"
import { Journal } from "@agent-harness/idempotency"
import { Context, Effect, Layer, Schema, SchemaTransformation } from "effect"
import type { SqlClient } from "effect/sql"
import * as PgStore from "./PgStore.ts"

const DurableJournalBase: Context.ServiceClass<DurableJournal, "@agent-harness/durable/DurableJournal", Journal.Store> =
  Context.Service<DurableJournal, Journal.Store>()("@agent-harness/durable/DurableJournal")

/**
 * The journal store durable workflows' calls use: one that every runner of the cluster shares.
 *
 * @since 0.1.0
 */
export class DurableJournal extends DurableJournalBase {}

/**
 * A store as the service.
 *
 * @since 0.1.0
 */
export const layer = (store: Journal.Store): Layer.Layer<DurableJournal> => Layer.succeed(DurableJournal, store)

/**
 * The Postgres store (`PgStore.make`) as the service, in the engine's database.
 *
 * @since 0.1.0
 */
export const layerPg = (
  options?: PgStore.Options
): Layer.Layer<DurableJournal, Journal.JournalError, SqlClient.SqlClient> =>
  Layer.effect(DurableJournal, PgStore.make(options))

/** A record as written today: the tool's `name`, as on the call. */
const RecordedNow: Schema.Struct<{
  readonly name: Schema.String
  readonly input: Schema.String
  readonly observation: typeof Journal.Observation
}> = Schema.Struct({ name: Schema.String, input: Schema.String, observation: Journal.Observation })

/** A record written before `name`: the tool's name under `tool`. */
const RecordedBefore: Schema.Struct<{
  readonly tool: Schema.String
  readonly input: Schema.String
  readonly observation: typeof Journal.Observation
}> = Schema.Struct({ tool: Schema.String, input: Schema.String, observation: Journal.Observation })

/**
 * What a call's activity recorded, in 0.1, when each call was an activity: its tool's `name`
 * and canonical input and the observation (records written before `name` hold the tool's name
 * under `tool`; they still read, as `name`). Calls are no longer activities, so nothing writes
 * it; the journal's row holds the same facts, and is what a workflow run again reads.
 *
 * @since 0.1.0
 */
export const Recorded: Schema.Union<
  readonly [typeof RecordedNow, Schema.decodeTo<typeof RecordedNow, typeof RecordedBefore>]
> = Schema.Union([
  RecordedNow,
  RecordedBefore.pipe(
    Schema.decodeTo(
      RecordedNow,
      SchemaTransformation.transform({
        decode: ({ tool, ...rest }) => ({ name: tool, ...rest }),
        encode: ({ name, ...rest }) => ({ tool: name, ...rest })
      })
    )
  )
])

/** What a call's activity recorded in 0.1. @since 0.1.0 */
export type Recorded = typeof Recorded.Type

/**
 * A store whose call ids live under a scope (`<scope>/<call id>`): a conversation's model picks
 * its call ids, unique within the conversation only.
 *
 * @since 0.1.0
 */
export const scoped = (store: Journal.Store, scope: string): Journal.Store => {
  const prefix = `${scope}/`
  const inScope = (id: string) => `${prefix}${id}`
  const claim = store.claim
  return {
    location: store.location,
    get: (id) =>
      Effect.map(store.get(inScope(id)), (entry) =>
        entry === undefined ? undefined : { ...entry, id: entry.id.slice(prefix.length) }
      ),
    start: (id, name, input) => store.start(inScope(id), name, input),
    claim:
      claim === undefined
        ? undefined
        : (id, name, input) =>
            Effect.map(claim(inScope(id), name, input), (entry) =>
              entry === undefined ? undefined : { ...entry, id: entry.id.slice(prefix.length) }
            ),
    finish: (id, name, input, observation) => store.finish(inScope(id), name, input, observation),
    entries: Effect.map(store.entries, (entries) =>
      entries.filter((e) => e.id.startsWith(prefix)).map((e) => ({ ...e, id: e.id.slice(prefix.length) }))
    )
  }
}

/**
 * Options of the middleware.
 *
 * @since 0.1.0
 */
export interface Options {
  /** Keep the journal's ids under this scope (see {@link scoped}); plan sessions' call ids need none. */
  readonly scope?: string | undefined
  /** Sees each outcome as the executor will return it (a runner's log, the soak's lines). */
  readonly onOutcome?: ((outcome: Outcome.Outcome) => Effect.Effect<void>) | undefined
}

/**
 * The executor middleware of a durable workflow's calls: the journal's middleware over the
 * `DurableJournal` store, each call uninterruptible from its mark to its outcome. Build it
 * inside the workflow.
 *
 * A call is not an effect/cluster activity: its journal row is its record. The row is keyed by
 * the call id (under the scope, when there is one), holds the tool's name and canonical input
 * and, once done, the observation; the store is shared by every runner, so a later run of the
 * workflow (after a restart, on another runner) replays it (`Replayed`), refuses the id's reuse
 * for another call, and reports a call started and never finished outcome unknown. An activity
 * recorded the same facts a second time, in the engine's tables, at four more commits a call
 * (its request, its claim, the shard lock's heartbeat, its reply): see docs/durable.md, "Cost
 * per step".
 *
 * A call runs uninterruptibly, as an activity's body did: a workflow that suspends, is
 * interrupted or loses its shard while a call runs (another call of the same turn waiting for an
 * approval, a runner shutting down) waits for the call's outcome to be recorded, instead of
 * leaving it started and unknown. The call's own timeout still applies.
 *
 * @since 0.1.0
 */
export const middleware = (options?: Options): Effect.Effect<Execute.Middleware, never, DurableJournal> =>
  Effect.gen(function* () {
    const store = yield* DurableJournal
    const journal = Journal.middleware(options?.scope === undefined ? store : scoped(store, options.scope))
    const seen = options?.onOutcome
    const durable: Execute.Middleware = (call, tool, run) => {
      const recorded = Effect.uninterruptible(journal(call, tool, run))
      return seen === undefined ? recorded : Effect.tap(recorded, seen)
    }
    return durable
  })
