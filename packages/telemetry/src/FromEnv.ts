/**
 * `@agent-harness/telemetry/config`: `fromEnv` and its options and errors without any
 * OpenTelemetry code, for a program that decides from the environment whether to load
 * `@agent-harness/telemetry` at all (the `harness` CLI loads it only when telemetry is on).
 *
 * @since 0.1.0
 */

/** `TelemetryConfig.fromEnv(env)`, `Options`, `ConfigError`: the same as `Telemetry`'s. @since 0.1.0 */
export * as TelemetryConfig from "./Config.ts"
