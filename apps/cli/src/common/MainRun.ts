/**
 * `harness run FILE` read by `Route` without the command tree: the same handler as the tree's
 * (`Cli.runHandler`'s body: telemetry when `OTEL_*` says so, the run on the chosen engine), the
 * same services, the same exit codes.
 *
 * @since 0.1.0
 */
import { Variant } from "@agent-harness/scenario"
import { Effect } from "effect"
import * as Run from "../commands/Run.ts"
import * as ScenarioServices from "../scenarios/ScenarioServices.ts"
import * as ExitCode from "./ExitCode.ts"
import type * as Route from "./Route.ts"
import { traced } from "./Telemetry.ts"

/**
 * The run's exit code: 0 pass, 1 fail, 2 invalid file or usage.
 *
 * @since 0.1.0
 */
export const program = (flags: Route.RunFlags): Effect.Effect<number> =>
  traced(
    "run",
    Run.run({
      file: flags.file,
      json: flags.json,
      variant: Variant.byName[flags.variant],
      trace: flags.trace,
      engine: { engine: flags.engine, databaseUrl: flags.databaseUrl }
    })
  ).pipe(Effect.as(0), ExitCode.codes, Effect.provide(ScenarioServices.layer))
