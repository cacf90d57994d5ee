/**
 * The workflow engine over Postgres: effect/cluster's `ClusterWorkflowEngine` with SQL message
 * storage (every workflow run, activity and reply a persisted message) and SQL runner storage
 * (shard locks) in one database. Three shapes of process:
 *
 * - `single`: one process runs every shard (effect's `SingleRunner`): a CLI, a test, a small
 *   service.
 * - `runner`: one runner of many (effect's socket runners): shards are spread over the runners
 *   that are up; when one dies, its shard locks are released with its connection and another
 *   runner (or the same one, restarted) takes its shards and resumes their workflows.
 * - `client`: starts and polls workflows without running any.
 *
 * Every process of a cluster must register the same workflows (a message for a workflow a runner
 * does not know waits), and use the same `shardsPerGroup`. Each layer also gives the `SqlClient`,
 * for the journal's store.
 *
 * A database that goes away while a run is waiting (the server stopped, its connections cut)
 * does not leave it waiting: the engine watches the database (`Database.watch`), and once it has
 * not answered for `database.lostAfter` (default 15 s) every `execute`, `poll`, `resume` and
 * `interrupt` in progress or to come ends with the defect `Database.ConnectionLost`, naming the
 * database (`Database.lostAsFailure` makes it a typed failure). Nothing is run again because of
 * it: a call that was running stays started in the journal, reported outcome unknown when the
 * run is resumed on a database that answers.
 *
 * @since 0.1.0
 */
import { NodeClusterSocket } from "@effect/platform-node"
import type { PgClient } from "@effect/sql-pg"
import { Cause, Context, Duration, Effect, type Exit, Fiber, Layer, Option, Schema, Scope } from "effect"
import {
  ClusterWorkflowEngine,
  type MessageStorage,
  RunnerAddress,
  type Sharding,
  type ShardingConfig,
  SingleRunner
} from "effect/cluster"
import { Digest } from "effect/crypto"
import type { SqlClient } from "effect/sql"
import { WorkflowEngine } from "effect/workflow"
import * as Database from "./Database.ts"

/**
 * What a process of the cluster gets: the engine, and the database's client.
 *
 * @since 0.1.0
 */
export type Services = WorkflowEngine.WorkflowEngine | SqlClient.SqlClient | PgClient.PgClient

/**
 * Options common to every process.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The Postgres database (`postgres://user@host:port/database`). */
  readonly url: string
  /** The connection's options. */
  readonly database?: Database.Options | undefined
  /**
   * effect/cluster's settings (shard lock expiry, poll intervals...) over its defaults. The
   * same `shardsPerGroup` on every process of a cluster.
   */
  readonly sharding?: Partial<ShardingConfig.ShardingConfig["Service"]> | undefined
}

const RunnerUnavailableBase: Schema.Class<
  RunnerUnavailable,
  Schema.TaggedStruct<"RunnerUnavailable", { readonly address: Schema.String; readonly problem: Schema.String }>,
  Cause.YieldableError
> = Schema.TaggedError<RunnerUnavailable>()("RunnerUnavailable", {
  address: Schema.String,
  problem: Schema.String
})

/**
 * A runner cannot start: the address it should listen on, and why (the port is taken, the
 * settings are invalid).
 *
 * @since 0.1.0
 */
export class RunnerUnavailable extends RunnerUnavailableBase {
  /** `runner <address>: <problem>`. */
  override get message(): string {
    return `runner ${this.address}: ${this.problem}`
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** How long closing the engine (or a workflow's registration) may take once its database is lost. */
const shutdownWhenLost = Duration.seconds(5)

/**
 * The engine of `base`, its waits cut short by a lost database: each `execute`, `poll`, `resume`
 * and `interrupt` races the database's watch and dies with its `ConnectionLost`. Once the
 * database is lost, closing the engine, or a workflow's registration, waits at most
 * {@link shutdownWhenLost} for effect/cluster's shutdown (which retries its storage, and waits
 * 15 s for each running workflow to end); the rest of it goes on unawaited.
 */
const guarded = <E, R>(base: Layer.Layer<Services, E, R>, options: Options): Layer.Layer<Services, E, R> =>
  Layer.effectContext(
    Effect.gen(function* () {
      let watch: Database.Watch | undefined
      const close = (scope: Scope.Closeable, exit: Exit.Exit<unknown, unknown>) =>
        Effect.gen(function* () {
          if (watch === undefined || !(yield* watch.isLost)) return yield* Scope.close(scope, exit)
          const closing = yield* Effect.forkDetach(Scope.close(scope, exit))
          yield* Effect.timeoutOption(Fiber.await(closing), shutdownWhenLost)
        })
      /** A scope of its own, closed (as above) when the current one closes. */
      const ownScope = Effect.gen(function* () {
        const scope = yield* Scope.make()
        yield* Effect.addFinalizer((exit) => close(scope, exit))
        return scope
      })
      const inner = yield* ownScope
      // The database answered the engine's first query (or the build failed) before it is watched.
      const context = yield* Layer.buildWithScope(base, inner)
      watch = yield* Database.watch(options.url, options.database)
      const engine = Context.get(context, WorkflowEngine.WorkflowEngine)
      const lost = Effect.orDie(watch.lost)
      const guard = <A, E1, R1>(effect: Effect.Effect<A, E1, R1>): Effect.Effect<A, E1, R1> =>
        Effect.raceFirst(effect, lost)
      const shape: WorkflowEngine.WorkflowEngine["Service"] = {
        ...engine,
        register: (workflow, execute) =>
          Effect.flatMap(ownScope, (scope) => Scope.provide(engine.register(workflow, execute), scope)),
        execute: (workflow, opts) => guard(engine.execute(workflow, opts)),
        poll: (workflow, executionId) => guard(engine.poll(workflow, executionId)),
        resume: (workflow, executionId) => guard(engine.resume(workflow, executionId)),
        interrupt: (workflow, executionId) => guard(engine.interrupt(workflow, executionId))
      }
      return Context.add(context, WorkflowEngine.WorkflowEngine, WorkflowEngine.WorkflowEngine.of(shape))
    })
  )

/**
 * One process running every shard: workflows started here run here, and workflows left
 * unfinished in the database by an earlier process are resumed.
 *
 * @since 0.1.0
 */
export const single = (options: Options): Layer.Layer<Services, Database.DatabaseUnavailable> =>
  guarded(
    ClusterWorkflowEngine.layer.pipe(
      Layer.provideMerge(
        SingleRunner.layer({ runnerStorage: "sql", shardingConfig: options.sharding }).pipe(
          Layer.orDie,
          Layer.provide(Digest.layerWebCrypto)
        )
      ),
      Layer.provideMerge(Database.layer(options.url, options.database))
    ),
    options
  )

/**
 * Options of a runner.
 *
 * @since 0.1.0
 */
export interface RunnerOptions extends Options {
  /** The host other runners reach this one at (default `127.0.0.1`). */
  readonly host?: string | undefined
  /** The port it listens on. */
  readonly port: number
}

/**
 * One runner of a cluster: it listens on `host:port` for the other runners, takes its share of
 * the shards and runs their workflows.
 *
 * @since 0.1.0
 */
export const runner = (
  options: RunnerOptions
): Layer.Layer<Services, Database.DatabaseUnavailable | RunnerUnavailable> => {
  const host = options.host ?? "127.0.0.1"
  const address = `${host}:${options.port}`
  const unavailable = (problem: string) =>
    Layer.effectContext<Sharding.Sharding | MessageStorage.MessageStorage, RunnerUnavailable, never>(
      Effect.fail(new RunnerUnavailable({ address, problem }))
    )
  const cluster =
    !Number.isSafeInteger(options.port) || options.port < 1 || options.port > 65535
      ? unavailable("the port must be a whole number from 1 to 65535")
      : NodeClusterSocket.layer({
          storage: "sql",
          shardingConfig: { ...options.sharding, runnerAddress: Option.some(RunnerAddress.make(host, options.port)) }
        }).pipe(Layer.catchCause((cause) => unavailable(messageOf(Cause.squash(cause)))))
  return guarded(
    ClusterWorkflowEngine.layer.pipe(
      Layer.provideMerge(cluster),
      Layer.provideMerge(Database.layer(options.url, options.database))
    ),
    options
  )
}

/**
 * A process that starts and polls workflows and runs none (no shards, no listening port).
 *
 * @since 0.1.0
 */
export const client = (options: Options): Layer.Layer<Services, Database.DatabaseUnavailable> =>
  guarded(
    ClusterWorkflowEngine.layer.pipe(
      Layer.provideMerge(
        NodeClusterSocket.layer({ storage: "sql", clientOnly: true, shardingConfig: options.sharding }).pipe(
          Layer.orDie
        )
      ),
      Layer.provideMerge(Database.layer(options.url, options.database))
    ),
    options
  )
