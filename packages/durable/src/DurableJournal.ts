/**
 * Tool calls as effect/workflow activities, guarded by the idempotency journal. Inside a
 * workflow, each call the executor runs becomes an `Activity` named by its call id (`call/<id>`):
 *
 * - the engine records the activity's result once (a persisted reply keyed by workflow
 *   execution and call id), and a later run of the workflow — after a restart, on another
 *   runner — is answered from that record without running anything (`Replayed`);
 * - the activity's body is the journal's middleware over a store every runner shares
 *   (`PgStore`): a non-idempotent call is marked started, committed, before it runs. The engine
 *   delivers an activity whose runner died again (at least once), so a body that finds its own
 *   mark answers outcome unknown and does not run the call: at most once. An idempotent call is
 *   not marked and simply runs again;
 * - the record holds the call's tool name and canonical input (the decoded input that runs, as the
 *   journal records it: `Journal.recordedInput`): a call id used again for another call
 *   is refused, as the journal refuses it.
 *
 * Outside a workflow this middleware is not available (it needs the running workflow's
 * instance); the journal's own middleware is what runs there.
 *
 * @since 0.1.0
 */
import type { Execute, Outcome } from "@agent-harness/executor"
import { Journal } from "@agent-harness/idempotency"
import { MessageCatalog } from "@agent-harness/tool-schema"
import { Context, Effect, Layer, Result, Schema, SchemaTransformation } from "effect"
import type { SqlClient } from "effect/sql"
import { Activity, WorkflowEngine } from "effect/workflow"
import * as PgStore from "./PgStore.ts"

const DurableJournalBase: Context.ServiceClass<DurableJournal, "@agent-harness/durable/DurableJournal", Journal.Store> =
  Context.Service<DurableJournal, Journal.Store>()("@agent-harness/durable/DurableJournal")

/**
 * The journal store the activities' bodies use: one that every runner of the cluster shares.
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
 * What an activity records for a call: its tool's `name` and canonical input (to refuse the
 * id's reuse for another call) and the observation. Records written before `name` hold the
 * tool's name under `tool`; they still read (as `name`). A record is always written with `name`.
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

/** What an activity records for a call. @since 0.1.0 */
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
  return {
    location: store.location,
    get: (id) =>
      Effect.map(store.get(inScope(id)), (entry) =>
        entry === undefined ? undefined : { ...entry, id: entry.id.slice(prefix.length) }
      ),
    start: (id, name, input) => store.start(inScope(id), name, input),
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
 * The executor middleware of the running workflow: each call an activity named by its call id,
 * its body the journal's middleware over the `DurableJournal` store. Build it inside the
 * workflow (it keeps the workflow's instance).
 *
 * @since 0.1.0
 */
export const middleware = (
  options?: Options
): Effect.Effect<
  Execute.Middleware,
  never,
  DurableJournal | WorkflowEngine.WorkflowEngine | WorkflowEngine.WorkflowInstance
> =>
  Effect.gen(function* () {
    const store = yield* DurableJournal
    const engine = yield* WorkflowEngine.WorkflowEngine
    const instance = yield* WorkflowEngine.WorkflowInstance
    const journal = Journal.middleware(options?.scope === undefined ? store : scoped(store, options.scope))
    const seen = options?.onOutcome
    const durable: Execute.Middleware = (call, tool, run) =>
      Effect.gen(function* () {
        // The key of what runs: the decoded input, as the journal records it.
        const input = Journal.recordedInput(tool, call.input)
        // An input the journal cannot record: the journal refuses it, and nothing is worth recording.
        if (Result.isFailure(input)) return yield* journal(call, tool, run)
        let ranHere: Outcome.Outcome | undefined
        const recorded = yield* Activity.make({
          name: `call/${call.id}`,
          success: Recorded,
          execute: Effect.map(journal(call, tool, run), (outcome): Recorded => {
            ranHere = outcome
            return { name: call.name, input: input.success.text, observation: Journal.observationOf(outcome) }
          })
        }).pipe(
          Effect.provideService(WorkflowEngine.WorkflowEngine, engine),
          Effect.provideService(WorkflowEngine.WorkflowInstance, instance)
        )
        if (ranHere !== undefined) return ranHere
        if (recorded.name !== call.name || recorded.input !== input.success.text) {
          const catalog = yield* Effect.service(MessageCatalog.MessageCatalog)
          const reason = `call id '${call.id}' was already used for another call (${recorded.name} ${recorded.input})`
          const refused: Outcome.Outcome = {
            _tag: "Refused",
            id: call.id,
            name: call.name,
            reason,
            content: catalog.notExecuted(reason)
          }
          return refused
        }
        const replayed: Outcome.Outcome = Journal.replayed(call, recorded.observation)
        return replayed
      }).pipe(Effect.tap((outcome) => (seen === undefined ? Effect.void : seen(outcome))))
    return durable
  })
