/**
 * OpenTelemetry for a command, when the environment asks for it: the standard `OTEL_*`
 * variables read once (`TelemetryConfig.fromEnv` of @agent-harness/telemetry, which loads no
 * OpenTelemetry code), and only when an endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) the telemetry package loaded and its layer provided
 * around the command, so the run's spans are exported over OTLP and flushed before it exits.
 * Off, nothing of OpenTelemetry loads. A variable that cannot be used: its message on stderr,
 * exit 2, nothing run.
 *
 * @since 0.1.0
 */
import process from "node:process"
import { TelemetryConfig } from "@agent-harness/telemetry/config"
import { Console, Effect, Result } from "effect"
import * as ExitCode from "./ExitCode.ts"
import { lazy } from "./Lazy.ts"

/**
 * Runs `effect` (the command `harness <command>`) inside the telemetry layer the environment
 * asks for, or as it is when telemetry is off.
 *
 * @since 0.1.0
 */
export const traced = <A, E, R>(
  command: string,
  effect: Effect.Effect<A, E, R>,
  env: TelemetryConfig.Env = process.env
): Effect.Effect<A, E | ExitCode.ExitCode, R> =>
  Effect.suspend((): Effect.Effect<A, E | ExitCode.ExitCode, R> => {
    const config = TelemetryConfig.fromEnv(env)
    if (Result.isFailure(config))
      return Effect.andThen(
        Console.error(`harness ${command}: ${config.failure.message}`),
        Effect.fail(ExitCode.invalid)
      )
    const options = config.success
    if (options === undefined) return effect
    return lazy(
      () => import("@agent-harness/telemetry"),
      ({ Telemetry }) => Effect.provide(effect, Telemetry.layer(options))
    )
  })
