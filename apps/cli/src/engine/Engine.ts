/**
 * Where `harness run` and `harness test` run their scenarios, chosen once from `--engine` and
 * `--database-url`: in this process (`Local`), or on the durable engine over Postgres
 * (`Postgres`, effect/workflow on effect/cluster). Each engine is loaded only when chosen, from
 * a chunk of its own in the built CLI: `harness run` on the local engine never loads the durable
 * one.
 *
 * @since 0.1.0
 */
import type { Variant } from "@agent-harness/scenario"
import { Effect, type FileSystem, type Path } from "effect"
import type * as ExitCode from "../common/ExitCode.ts"
import { lazy } from "../common/Lazy.ts"

/**
 * The engine the flags name: `--engine local|postgres`, and `--database-url` (the Postgres
 * engine's; given with `--engine local`, it is refused by the Postgres engine, naming the flag).
 *
 * @since 0.1.0
 */
export interface Choice {
  readonly engine: "local" | "postgres"
  readonly databaseUrl?: string | undefined
}

/**
 * One scenario file to run (`harness run`).
 *
 * @since 0.1.0
 */
export interface RunOptions {
  readonly file: string
  /** One JSON object instead of the text report. */
  readonly json: boolean
  readonly variant: Variant.Variant
  /** Record the run as JSON Lines in this file (the local engine only). */
  readonly trace?: string | undefined
}

/**
 * Scenario files and folders to test (`harness test`).
 *
 * @since 0.1.0
 */
export interface TestOptions {
  readonly paths: ReadonlyArray<string>
  /** One JSON object per scenario instead of the text report. */
  readonly json: boolean
  readonly variant: Variant.Variant
  /** Record each conversation and plan session in this folder (the local engine only). */
  readonly traces?: string | undefined
  /** How many runners (the local engine only): this process and N - 1 worker threads. */
  readonly workers?: number | undefined
}

/**
 * An engine: a file run, paths tested, reported alike whichever runs them.
 *
 * @since 0.1.0
 */
export interface Engine {
  readonly run: (options: RunOptions) => Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem>
  readonly test: (options: TestOptions) => Effect.Effect<void, ExitCode.ExitCode, FileSystem.FileSystem | Path.Path>
}

/**
 * Whether the flags go to the Postgres engine: `--engine postgres`, or a `--database-url`
 * (which that engine refuses without `--engine postgres`, saying so).
 *
 * @since 0.1.0
 */
export const isPostgres = (choice: Choice): boolean => choice.engine === "postgres" || choice.databaseUrl !== undefined

/**
 * The engine the flags choose, loaded.
 *
 * @since 0.1.0
 */
export const load = (choice: Choice): Effect.Effect<Engine> =>
  isPostgres(choice)
    ? lazy(
        () => import("./Postgres.ts"),
        (postgres) => Effect.succeed(postgres.engine(choice))
      )
    : lazy(
        () => import("./Local.ts"),
        (local) => Effect.succeed(local.engine)
      )
